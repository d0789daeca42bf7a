# The captive portal's probe answers as net/portal.py finds them in its one string (_PROBES),
# on CPython with PyPI Microdot's Response: every probe path of docs/captive-portal.md gets its
# status, body and content type, and nothing else is taken for a probe (the HTTP side, on the
# real firmware, is host_tests/net/test_portal.py).
import pytest

from net.portal import probe

APPLE = b"<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
FIREFOX = (
    b'<meta http-equiv="refresh" content="0;url=https://support.mozilla.org/kb/captive-portal"/>'
)


@pytest.mark.parametrize(
    "path, status, content_type, body",
    [
        ("/generate_204", 204, None, b""),
        ("/gen_204", 204, None, b""),
        ("/hotspot-detect.html", 200, "text/html", APPLE),
        ("/library/test/success.html", 200, "text/html", APPLE),
        ("/connecttest.txt", 200, "text/plain", b"Microsoft Connect Test"),
        ("/ncsi.txt", 200, "text/plain", b"Microsoft NCSI"),
        ("/canonical.html", 200, "text/html", FIREFOX),
        ("/success.txt", 200, "text/plain", b"success\n"),
    ],
)
def test_every_probe_gets_its_answer(path, status, content_type, body):
    answer = probe(path)
    assert (answer.status_code, answer.body) == (status, body)
    assert answer.headers.get("Content-Type") == content_type
    assert answer.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/",
        "/gen",  # the start of a probe's path
        "/generate_2045",  # a probe's path and more
        "/ncsi.txt Microsoft",  # a probe's path and its body
        "/generate_204|/gen_204",  # two of them, joined as they are stored
        "|/success.txt",
        "/success",
        "-",
        "/GENERATE_204",  # paths are case-sensitive
    ],
)
def test_no_other_path_is_a_probe(path):
    assert probe(path) is None
