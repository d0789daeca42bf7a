# net.intents is pure: every inbound message becomes a command tuple or a coded error, never an
# exception; the same table gives the same tuples on CPython and on the MicroPython unix port.
import json

import pytest

from net import intents
from net.intents import (
    DROP,
    ERROR,
    JOIN,
    LEAVE,
    MOVE,
    PING,
    READY,
    ROLE_PLAY,
    ROLE_WATCH,
    SYNC,
)

TOKEN = "0123456789abcdef0123456789abcdef"

CASES = (
    ('{"t":"move","c":1,"d":"N"}', (MOVE, 1, 0, None, None)),
    ('{"t":"move","c":2,"d":"W","extra":[1,2]}', (MOVE, 2, 3, None, None)),
    ('{"t":"drop","c":3}', (DROP, 3, 0, None, None)),
    ('{"t":"ready","c":4}', (READY, 4, 0, None, None)),
    ('{"t":"rematch","c":5}', (READY, 5, 0, None, None)),
    ('{"t":"leave","c":6}', (LEAVE, 6, 0, None, None)),
    ('{"t":"ping","c":1073741823}', (PING, 1073741823, 0, None, None)),
    ('{"t":"sync","c":7}', (SYNC, 7, 0, None, None)),
    ('{"t":"sync"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"join","role":"play"}', (JOIN, -1, ROLE_PLAY, None, None)),
    ('{"t":"join","role":"watch","token":null}', (JOIN, -1, ROLE_WATCH, None, None)),
    ('{"t":"join","role":"play","token":"%s"}' % TOKEN, (JOIN, -1, ROLE_PLAY, TOKEN, None)),
    ('{"t":"join","role":"play","name":"  ann  "}', (JOIN, -1, ROLE_PLAY, None, "ann")),
    (
        '{"t":"join","role":"play","name":"<b>bob</b>&\\"x\'\\u0007y`z\\\\"}',
        (JOIN, -1, ROLE_PLAY, None, "bbob/bxyz"),
    ),
    (
        '{"t":"join","role":"play","name":"abcdefghijklmnop"}',
        (JOIN, -1, ROLE_PLAY, None, "abcdefghijkl"),
    ),
    (
        '{"t":"join","role":"play","name":"\\u00e9l\\u00e8ve"}',
        (JOIN, -1, ROLE_PLAY, None, "\u00e9l\u00e8ve"),
    ),
    ("{", (ERROR, -1, "BAD_JSON", None, None)),
    ("", (ERROR, -1, "BAD_JSON", None, None)),
    ("[]", (ERROR, -1, "BAD_JSON", None, None)),
    ("3", (ERROR, -1, "BAD_JSON", None, None)),
    ('{"t":"move"', (ERROR, -1, "BAD_JSON", None, None)),
    ("{}", (ERROR, -1, "UNKNOWN_INTENT", None, None)),
    ('{"t":"fly","c":9}', (ERROR, 9, "UNKNOWN_INTENT", None, None)),
    ('{"t":"fly","c":"9"}', (ERROR, -1, "UNKNOWN_INTENT", None, None)),
    ('{"t":["move"],"c":1}', (ERROR, 1, "UNKNOWN_INTENT", None, None)),
    ('{"t":"move","d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":0,"d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":1073741824,"d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":true,"d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":2.0,"d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":null,"d":"N"}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"ping","c":123456789012345678901234567890}', (ERROR, -1, "BAD_SEQ", None, None)),
    ('{"t":"move","c":7,"d":"NE"}', (ERROR, 7, "BAD_VALUE", None, None)),
    ('{"t":"move","c":7,"d":1}', (ERROR, 7, "BAD_VALUE", None, None)),
    ('{"t":"move","c":7,"d":null}', (ERROR, 7, "BAD_VALUE", None, None)),
    ('{"t":"join"}', (ERROR, -1, "BAD_VALUE", None, None)),
    ('{"t":"join","role":"PLAY"}', (ERROR, -1, "BAD_VALUE", None, None)),
    ('{"t":"join","role":"play","name":5}', (ERROR, -1, "BAD_VALUE", None, None)),
    (
        '{"t":"join","role":"play","token":"%s"}' % TOKEN.upper(),
        (ERROR, -1, "BAD_TOKEN", None, None),
    ),
    ('{"t":"join","role":"play","token":"%s0"}' % TOKEN, (ERROR, -1, "BAD_TOKEN", None, None)),
    ('{"t":"join","role":"play","token":123}', (ERROR, -1, "BAD_TOKEN", None, None)),
)


@pytest.mark.parametrize("text, expected", CASES)
def test_parse(text, expected):
    assert intents.parse(text) == expected
    assert intents.parse(text.encode()) == expected
    assert intents.parse(memoryview(bytearray(text.encode()))) == expected


@pytest.mark.parametrize(
    "payload", [b"\xff\xfe", b'{"t":"move","c":1,"d":"\xff"}', b"[" * 300, b"\x00", b"{" * 512]
)
def test_garbage_is_bad_json_never_an_exception(payload):
    assert intents.parse(payload) == (ERROR, -1, "BAD_JSON", None, None)


def test_every_code_is_listed():
    for _, expected in CASES:
        if expected[0] == ERROR:
            assert expected[2] in intents.GATEWAY_CODES


def test_same_results_on_micropython(run_upy):
    # The gateway runs on the board: the same table must give the same tuples there.
    code = (
        "import sys, json\n"
        "sys.path.insert(0, 'firmware')\n"
        "from net import intents\n"
        "for text in json.loads(%r):\n"
        "    print(json.dumps(list(intents.parse(text.encode()))))\n"
    ) % json.dumps([text for text, _ in CASES])
    result = run_upy(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(CASES)
    for line, (text, expected) in zip(lines, CASES):
        assert json.loads(line) == list(expected), text
