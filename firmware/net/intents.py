# The inbound half of the WebSocket vocabulary: one JSON text message -> one Intent, and the
# gateway's refusal codes. Pure (no socket, no clock), so it runs and is tested on CPython and
# MicroPython alike. Validate here, then trust: whatever leaves parse() is well-formed, and
# nothing a client sends can raise past it.
#
#   intent = parse(payload)          # payload: str, bytes or memoryview
#   intent.kind                      # ERROR, JOIN, MOVE, DROP, READY, LEAVE, PING or SYNC
#   intent.c                         # the client sequence 1..SEQ_MAX (-1: none, JOIN has none)
#   intent.code                      # ERROR: the refusal code (a str below)
#   intent.direction                 # MOVE: 0..3 (rules.N, E, S, W)
#   intent.role, .token, .name       # JOIN: ROLE_PLAY or ROLE_WATCH, token or None, name or None
import json

from game.compat import const
from game.rules import DIR_NAMES

_MAX_NAME = const(12)  # characters of a player name after cleaning
_TOKEN_CHARS = const(32)  # a seat token: 16 random bytes as lowercase hex
SEQ_MAX = const(0x3FFFFFFF)  # client sequences are 1..SEQ_MAX (small ints on the board)

# Command kinds.
ERROR = const(0)
JOIN = const(1)
MOVE = const(2)
DROP = const(3)
READY = const(4)
LEAVE = const(5)
PING = const(6)
SYNC = const(7)
RULES = const(8)  # the lobby's choice of ruleset (name: its id)

ROLE_PLAY = const(1)
ROLE_WATCH = const(2)

# Refusal codes, sent as {"t":"err","code":...}. Every code is defined once: the engine's are
# the names in game.rules.CODE_NAMES (WALL, COOLDOWN, PHASE, NOT_PLAYER, ...), the gateway's
# and the match host's are here, each as NAME = "NAME" (UNKNOWN_RULESET is game.rulesets'
# UNKNOWN). tools/refusal_codes.py joins them into the one table the tests and the page's
# build read (no tuple of them on the board: nothing there needs the list).
BAD_JSON = "BAD_JSON"  # not UTF-8 JSON, or not one JSON object
UNKNOWN_INTENT = "UNKNOWN_INTENT"  # "t" missing, not text, or not in the vocabulary
BAD_SEQ = "BAD_SEQ"  # "c" missing or not an integer 1..SEQ_MAX
BAD_VALUE = "BAD_VALUE"  # another field of the wrong type or out of its range
BAD_TOKEN = "BAD_TOKEN"  # token malformed, or it holds no seat
TOO_LARGE = "TOO_LARGE"  # frame over MAX_MESSAGE bytes (then close 1009)
FRAGMENTED = "FRAGMENTED"  # continuation frames (then close 1003)
NOT_JOINED = "NOT_JOINED"  # a game intent before a successful join
ALREADY_JOINED = "ALREADY_JOINED"  # a second join on the same socket
ROOM_FULL = "ROOM_FULL"  # no free seat / observer place (then close 4003)
INTERNAL = "INTERNAL"  # the server failed on this message (then close 1011)
BAD_UTF8 = "BAD_UTF8"  # a text frame that is not valid UTF-8 (then close 1007)
RATE_LIMITED = "RATE_LIMITED"  # over the inbound rate limit: not applied (repeated: close 1008)

# The match host's refusals (lobby and resume), beside the engine's.
RULES_FIXED = "RULES_FIXED"  # a `rules` intent on a board whose settings fix the ruleset
NOT_CHOOSER = "NOT_CHOOSER"  # a `rules` intent from the seat that does not choose
RESTART_PAUSE = "RESTART_PAUSE"  # a move in a resumed match before both players are back
ONE_SEAT = "ONE_SEAT"  # a `join play` from a device (an address) that holds the other seat
READY_TIMEOUT = "READY_TIMEOUT"  # the seat was not said ready in time: it is free (then close)
LOG_FAILED = "LOG_FAILED"  # the match log's write failed (flash full or failing): not applied
LOG_FULL = "LOG_FULL"  # no room on flash for a whole match's log: the match does not start

# Intent names -> kinds. A tuple of pairs, never a dict (no reliance on dict order).
INTENTS = (
    ("join", JOIN),
    ("move", MOVE),
    ("drop", DROP),
    ("ready", READY),
    ("rematch", READY),
    ("leave", LEAVE),
    ("ping", PING),
    ("sync", SYNC),
    ("rules", RULES),
)

_NAME_DROP = b"<>&\"'`\\"  # characters a name never keeps (it may end up in someone's HTML)


class Intent:
    """One parsed client message; `kind` says which of the other fields mean something."""

    def __init__(self, kind, c=-1, code=None, direction=0, role=0, token=None, name=None):
        self.kind = kind
        self.c = c
        self.code = code
        self.direction = direction
        self.role = role
        self.token = token
        self.name = name


def error(code, c=-1):
    """The Intent of a message refused with code (c: its sequence, if it had a valid one)."""
    return Intent(ERROR, c, code)


def _seq(value):
    """value as a client sequence, or -1 (bool is not an int here, floats are refused)."""
    if type(value) is int and 1 <= value <= SEQ_MAX:
        return value
    return -1


def _unprintable(code):
    """Code points a name never keeps: controls (C0, DEL, C1), lone surrogates (JSON escapes
    can make them; they are not valid UTF-8 to send on), invisible format and direction
    controls (but the zero-width joiner, which holds an emoji such as a family together),
    line separators, and the two noncharacters U+FFFE and U+FFFF."""
    return (
        code < 32
        or 127 <= code < 160
        or 0xD800 <= code <= 0xDFFF
        or 0x200B <= code <= 0x200F
        and code != 0x200D
        or 0x2028 <= code <= 0x202E
        or 0x2060 <= code <= 0x206F
        or code == 0xFEFF
        or code >= 0xFFFE
        and code <= 0xFFFF
    )


def clean_name(text):
    """Up to MAX_NAME printable characters of text, without markup characters: the result is
    always text that encodes to valid UTF-8, whatever the client sent. Read from its UTF-8
    bytes, never a character at a time: on MicroPython each one-character string a loop over
    a str makes is interned for good (a qstr), so a stream of names with new characters would
    fill the heap with them (host_tests/net/test_names.py)."""
    data = text.encode("utf-8", "surrogatepass")  # (JSON escapes can make lone surrogates)
    kept = bytearray()
    count = 0
    i = 0
    while i < len(data) and count < _MAX_NAME:
        b = data[i]
        size = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        code = b & (0x7F >> size) if size > 1 else b
        for j in range(i + 1, i + size):
            code = code << 6 | data[j] & 0x3F
        if not (_unprintable(code) or size == 1 and b in _NAME_DROP):
            kept.extend(data[i : i + size])
            count += 1
        i += size
    return kept.decode().strip()


def valid_token(value):
    """True for exactly TOKEN_CHARS lowercase hex characters (read as bytes: see clean_name)."""
    if type(value) is not str or len(value) != _TOKEN_CHARS:
        return False
    for b in value.encode():
        if not (48 <= b <= 57 or 97 <= b <= 102):  # 0-9, a-f
            return False
    return True


def _loads(payload):
    try:
        return json.loads(payload)  # MicroPython reads a memoryview in place
    except TypeError:  # CPython's json takes str, bytes or bytearray only
        return json.loads(bytes(payload))


def parse(payload):
    """One inbound message -> an Intent (kind ERROR for anything malformed). Never raises."""
    try:
        msg = _loads(payload)
    except Exception:  # ValueError, UnicodeError, MemoryError, RecursionError: all bad input
        return error(BAD_JSON)
    if type(msg) is not dict:
        return error(BAD_JSON)
    name = msg.get("t")
    kind = ERROR
    if type(name) is str:
        for intent, value in INTENTS:
            if intent == name:
                kind = value
                break
    if kind == ERROR:
        return error(UNKNOWN_INTENT, _seq(msg.get("c")))
    if kind == JOIN:
        return _parse_join(msg)
    c = _seq(msg.get("c"))
    if c < 0:
        return error(BAD_SEQ)
    if kind == MOVE:
        d = msg.get("d")
        for direction in range(4):
            if DIR_NAMES[direction] == d:
                return Intent(MOVE, c, direction=direction)
        return error(BAD_VALUE, c)
    if kind == RULES:
        rid = msg.get("id")
        if type(rid) is not str or not rid or len(rid) > 16:
            return error(BAD_VALUE, c)
        return Intent(RULES, c, name=rid)
    return Intent(kind, c)


def _parse_join(msg):
    role = msg.get("role")
    if role == "play":
        role = ROLE_PLAY
    elif role == "watch":
        role = ROLE_WATCH
    else:
        return error(BAD_VALUE)
    token = msg.get("token")
    if token is not None and not valid_token(token):
        return error(BAD_TOKEN)
    name = msg.get("name")
    if name is not None:
        if type(name) is not str:
            return error(BAD_VALUE)
        name = clean_name(name)
    return Intent(JOIN, role=role, token=token, name=name)
