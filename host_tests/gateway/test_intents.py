# net.intents is pure: every inbound message becomes an Intent or a coded error, never an
# exception; the same table gives the same Intents on CPython and on the MicroPython unix port.
import json

import pytest

import refusal_codes
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
FIELDS = ("kind", "c", "code", "direction", "role", "token", "name")


def expect(kind, c=-1, code=None, direction=0, role=0, token=None, name=None):
    """An Intent's fields as a dict (what shown() gives for a parsed one)."""
    return dict(zip(FIELDS, (kind, c, code, direction, role, token, name)))


def shown(intent):
    return {name: getattr(intent, name) for name in FIELDS}


CASES = (
    ('{"t":"move","c":1,"d":"N"}', expect(MOVE, 1, direction=0)),
    ('{"t":"move","c":2,"d":"W","extra":[1,2]}', expect(MOVE, 2, direction=3)),
    ('{"t":"drop","c":3}', expect(DROP, 3)),
    ('{"t":"ready","c":4}', expect(READY, 4)),
    ('{"t":"rematch","c":5}', expect(READY, 5)),
    ('{"t":"leave","c":6}', expect(LEAVE, 6)),
    ('{"t":"ping","c":1073741823}', expect(PING, 1073741823)),
    ('{"t":"sync","c":7}', expect(SYNC, 7)),
    ('{"t":"sync"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"join","role":"play"}', expect(JOIN, role=ROLE_PLAY)),
    ('{"t":"join","role":"watch","token":null}', expect(JOIN, role=ROLE_WATCH)),
    ('{"t":"join","role":"play","token":"%s"}' % TOKEN, expect(JOIN, role=ROLE_PLAY, token=TOKEN)),
    ('{"t":"join","role":"play","name":"  ann  "}', expect(JOIN, role=ROLE_PLAY, name="ann")),
    (
        '{"t":"join","role":"play","name":"<b>bob</b>&\\"x\'\\u0007y`z\\\\"}',
        expect(JOIN, role=ROLE_PLAY, name="bbob/bxyz"),
    ),
    (
        '{"t":"join","role":"play","name":"abcdefghijklmnop"}',
        expect(JOIN, role=ROLE_PLAY, name="abcdefghijkl"),
    ),
    (
        '{"t":"join","role":"play","name":"\\u00e9l\\u00e8ve"}',
        expect(JOIN, role=ROLE_PLAY, name="\u00e9l\u00e8ve"),
    ),
    ("{", expect(ERROR, code="BAD_JSON")),
    ("", expect(ERROR, code="BAD_JSON")),
    ("[]", expect(ERROR, code="BAD_JSON")),
    ("3", expect(ERROR, code="BAD_JSON")),
    ('{"t":"move"', expect(ERROR, code="BAD_JSON")),
    ("{}", expect(ERROR, code="UNKNOWN_INTENT")),
    ('{"t":"fly","c":9}', expect(ERROR, 9, code="UNKNOWN_INTENT")),
    ('{"t":"fly","c":"9"}', expect(ERROR, code="UNKNOWN_INTENT")),
    ('{"t":["move"],"c":1}', expect(ERROR, 1, code="UNKNOWN_INTENT")),
    ('{"t":"move","d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":0,"d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":1073741824,"d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":true,"d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":2.0,"d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":null,"d":"N"}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"ping","c":123456789012345678901234567890}', expect(ERROR, code="BAD_SEQ")),
    ('{"t":"move","c":7,"d":"NE"}', expect(ERROR, 7, code="BAD_VALUE")),
    ('{"t":"move","c":7,"d":1}', expect(ERROR, 7, code="BAD_VALUE")),
    ('{"t":"move","c":7,"d":null}', expect(ERROR, 7, code="BAD_VALUE")),
    ('{"t":"join"}', expect(ERROR, code="BAD_VALUE")),
    ('{"t":"join","role":"PLAY"}', expect(ERROR, code="BAD_VALUE")),
    ('{"t":"join","role":"play","name":5}', expect(ERROR, code="BAD_VALUE")),
    (
        '{"t":"join","role":"play","token":"%s"}' % TOKEN.upper(),
        expect(ERROR, code="BAD_TOKEN"),
    ),
    ('{"t":"join","role":"play","token":"%s0"}' % TOKEN, expect(ERROR, code="BAD_TOKEN")),
    ('{"t":"join","role":"play","token":123}', expect(ERROR, code="BAD_TOKEN")),
)


@pytest.mark.parametrize("text, expected", CASES)
def test_parse(text, expected):
    assert shown(intents.parse(text)) == expected
    assert shown(intents.parse(text.encode())) == expected
    assert shown(intents.parse(memoryview(bytearray(text.encode())))) == expected


@pytest.mark.parametrize(
    "payload", [b"\xff\xfe", b'{"t":"move","c":1,"d":"\xff"}', b"[" * 300, b"\x00", b"{" * 512]
)
def test_garbage_is_bad_json_never_an_exception(payload):
    assert shown(intents.parse(payload)) == expect(ERROR, code="BAD_JSON")


def test_every_code_is_listed():
    for _, expected in CASES:
        if expected["kind"] == ERROR:
            assert expected["code"] in refusal_codes.intents_codes()


def test_same_results_on_micropython(run_upy, repo_root, monkeypatch):
    # The gateway runs on the board: the same table must give the same Intents there.
    monkeypatch.setenv("MICROPYPATH", str(repo_root / "firmware"))
    code = (
        "import json\n"
        "from net import intents\n"
        "for text in json.loads(%r):\n"
        "    i = intents.parse(text.encode())\n"
        "    print(json.dumps([getattr(i, f) for f in %r]))\n"
    ) % (json.dumps([text for text, _ in CASES]), FIELDS)
    result = run_upy(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(CASES)
    for line, (text, expected) in zip(lines, CASES):
        assert dict(zip(FIELDS, json.loads(line))) == expected, text
