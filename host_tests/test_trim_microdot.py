# The board's Microdot (tools/trim_microdot.py): its request parser keeps only the headers the
# firmware reads, so the build refuses firmware that reads another one.
import pytest

import trim_microdot
from build_image import microdot_dir


def _trim(extra):
    return trim_microdot.trim(microdot_dir(), trim_microdot.firmware_sources() + [extra])


def test_the_firmware_reads_only_kept_headers():
    trimmed = _trim("")["microdot.py"]
    for name in trim_microdot.KEPT_HEADERS:
        assert repr(name) in trimmed
    assert "NoCaseDict" not in trimmed


@pytest.mark.parametrize(
    "source",
    [
        'def f(request):\n    return request.headers.get("User-Agent")\n',
        'def f(request):\n    return request.headers.get("Host")\n',  # kept, but lower case
        'def f(request):\n    return request.headers["origin"]\n',
        "def f(request, name):\n    return request.headers.get(name)\n",
    ],
)
def test_a_header_the_board_does_not_keep_fails_the_build(source):
    with pytest.raises(trim_microdot.TrimError, match="request header"):
        _trim(source)


def test_kept_headers_pass():
    _trim('def f(request):\n    return request.headers.get("sec-websocket-key")\n')
