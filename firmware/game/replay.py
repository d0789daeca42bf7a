# The match log's reading half (docs/log.md): an entry and a header read back from the caller's
# buffers, and Replay, which rebuilds the match from them through the engine's public calls
# (start, enqueue + process, advance, forfeit). The board loads it only at boot, to resume an
# interrupted match (net/resume.py), and drops it after; tools/replay.py checks a log with this
# same code. The format's numbers are private copies of game.matchlog's
# (host_tests/test_private_consts.py checks them).
from game import rulesets
from game.compat import const
from game.engine import Match
from game.matchlog import HEADER_SIZE, Header
from game.rules import CMD_DROP, CMD_MOVE, FINISHED, OK
from game.rulesets import RULESETS

_NAME = const(48)  # bytes of a name in the header
_FORMAT = const(1)  # the header's format version
_RULES = const(1)  # the rules version

# Entry kinds (game.matchlog)
_MOVE = const(1)
_DROP = const(2)
_CLOCK = const(3)
_FORFEIT = const(4)
_CHECK = const(5)
_END = const(6)
_LIMIT = const(7)

# Replay's problems: (entry number, what, expected, got)
_AFTER_END = const(1)  # an entry after the end (0, its kind)
_DIGEST = const(2)  # a checkpoint's digest (the log's, the replay's)
_RESULT = const(3)  # the end's result * 4 + winner (the log's, the replay's)
_REFUSED = const(4)  # a command or clock advance refused or without effect (its kind, the code)


class Replay:
    """Rebuilds a match from its header, one entry at a time (take), through Match.start,
    enqueue + process, advance and forfeit (or onto `match`, a Match with the header's
    parameters, which is reset). Also counts what the board needs to go on: each seat's client
    sequence and accepted commands, the clock of the last entry (now). `reason` is the first
    mismatch, None while everything agrees: (entry number, what, expected, got), what 1 an
    entry after the end, 2 a checkpoint's digest, 3 the end's result * 4 + winner, 4 a
    command or clock advance the engine refused or that changed nothing (its kind, the code).
    done: the log's end was read."""

    @staticmethod
    def uint(buf, off, n):
        """The n bytes at buf[off] as a big-endian unsigned int."""
        v = 0
        for i in range(off, off + n):
            v = v << 8 | buf[i]
        return v

    @staticmethod
    def read(buf, off, index):
        """(kind, seat, arg, aux, value) of entry `index` at buf[off:off+8], or None when its
        check, kind or fields are wrong (a torn or garbage tail)."""
        if Replay.uint(buf, off + 6, 2) != Header.sum(
            buf, off, off + 6, index & 0xFF, (index >> 8) & 0xFF
        ):
            return None
        b = buf[off]
        kind = b >> 4
        seat = (b >> 2) & 3
        arg = b & 3
        if kind == _CHECK:
            return kind, seat, arg, buf[off + 1], Replay.uint(buf, off + 2, 4)
        aux = buf[off + 1] << 2 | buf[off + 2] >> 6
        t = (buf[off + 2] & 0x3F) << 24 | Replay.uint(buf, off + 3, 3)
        if (
            kind < _MOVE
            or kind > _LIMIT
            or (kind <= _DROP or kind == _FORFEIT)
            and seat not in (1, 2)
        ):
            return None
        return kind, seat, arg, aux, t

    @staticmethod
    def head(buf):
        """The Header in buf; ValueError if it is not one of this format, or damaged."""
        if (
            len(buf) < HEADER_SIZE
            or buf[0:4] != b"MDLG"
            or buf[4] != _FORMAT
            or Replay.uint(buf, 206, 2) != Header.sum(buf, 0, 206, 0, 0)
        ):
            raise ValueError("bad log header")
        series = (buf[14] >> 4, buf[14] & 15, buf[15] >> 4, buf[15] & 15)
        if series[0] >= len(RULESETS):
            raise ValueError("bad log header")
        h = Header(
            (buf[6], buf[7], buf[8], buf[9], Replay.uint(buf, 10, 2), Replay.uint(buf, 12, 2)),
            bytes(buf[16:32]),
            series,
            bytes(buf[32:64]),
            Replay.uint(buf, 64, 2),
            buf[5],
        )
        for seat in (1, 2):
            h.last_c[seat] = Replay.uint(buf, 64 + 4 * seat, 4)
            h.token_hash[seat] = bytes(buf[60 + 16 * seat : 76 + 16 * seat])
            at = 59 + (_NAME + 1) * seat
            h.players[seat] = bytes(buf[at + 1 : at + 1 + min(buf[at], _NAME)]).decode()
        return h

    def __init__(self, header, match=None):
        if header.rules != _RULES:
            raise ValueError("bad log header")
        s = header.seed
        seed = (s[0] & 0x3F) << 24 | s[1] << 16 | s[2] << 8 | s[3]
        if match is None:
            w, h, pairs, braid, cooldown, countdown = header.params
            rs = RULESETS[header.series[0]]  # the ruleset's numbers, by its index
            rules = (
                rs[rulesets.RADIUS],
                rs[rulesets.VISION_RADIUS],
                rs[rulesets.VISION_MOVES],
                rs[rulesets.FINISH_MS],
                rs[rulesets.COMPASS],
                rs[rulesets.SIGHT],
            )
            match = Match(seed, w, h, cooldown, countdown, pairs, braid, rules)
        else:
            match.reset(seed)
        self.match = match
        match.start(0)
        self.last_c = [0, header.last_c[1], header.last_c[2]]
        self.accepted = [0, 0, 0]
        self.now = 0  # the clock of the last entry with a time
        self.count = 0  # entries taken
        self.done = False
        self.reason = None

    def take(self, entry):
        """Apply one entry (kind, seat, arg, aux, value); False once something disagreed."""
        kind, seat, arg, aux, value = entry
        m = self.match
        what = 0
        if self.done:
            what, expected, got = _AFTER_END, 0, kind
        elif kind == _CHECK:
            if value != m.digest() or aux != m.state_seq & 0xFF:
                what, expected, got = _DIGEST, value, m.digest()
        elif kind == _END:
            self.done = True
            if arg and (m.phase != FINISHED or m.result != arg or m.winner != seat):
                what, expected, got = _RESULT, arg * 4 + seat, m.result * 4 + m.winner
        else:
            self.now = value
            before = m.state_seq
            if kind == _MOVE or kind == _DROP:
                code = m.enqueue(seat, CMD_MOVE if kind == _MOVE else CMD_DROP, arg, value)
                if code == OK:
                    code = m.process()
                self.last_c[seat] = (self.last_c[seat] + aux + 1) & 0x3FFFFFFF
                self.accepted[seat] += 1
            elif kind == _CLOCK:
                code = m.advance(value)
            elif kind == _LIMIT:
                code = m.draw(value)
            else:
                code = m.forfeit(seat, value)
            if code != OK or m.state_seq == before:
                what, expected, got = _REFUSED, kind, code
        if what and self.reason is None:
            self.reason = (self.count, what, expected, got)
        self.count += 1
        return self.reason is None
