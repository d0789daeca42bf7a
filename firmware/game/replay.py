# Reading a match log and rebuilding its match (docs/log.md): the header and the entries read
# back (game/matchlog.py writes them), then the header's seed and parameters and every entry
# through the engine's public calls (start, enqueue + process, advance, forfeit). The board
# runs it once at boot to resume a match (net/resume.py, then drops it), tools/replay.py to
# check a log.
from game.compat import const
from game.engine import Match
from game.matchlog import (
    CHECK,
    CLOCK,
    DROP,
    END,
    FORFEIT,
    HEADER,
    MOVE,
    Header,
    engine_seed,
    fletcher,
)
from game.rules import CMD_DROP, CMD_MOVE, FINISHED, OK

_NAME = const(48)  # bytes of a name in the header (as in game.matchlog)


def get_uint(buf, off, n):
    v = 0
    for i in range(off, off + n):
        v = v << 8 | buf[i]
    return v


def get_entry(buf, off, index):
    """(kind, seat, arg, aux, value) of entry `index` at buf[off:off+8], or None when its
    check, kind or fields are wrong (a torn or garbage tail)."""
    if get_uint(buf, off + 6, 2) != fletcher(buf, off, off + 6, index & 0xFF, (index >> 8) & 0xFF):
        return None
    b = buf[off]
    kind = b >> 4
    seat = (b >> 2) & 3
    arg = b & 3
    if kind == CHECK:
        return kind, seat, arg, buf[off + 1], get_uint(buf, off + 2, 4)
    aux = buf[off + 1] << 2 | buf[off + 2] >> 6
    t = (buf[off + 2] & 0x3F) << 24 | get_uint(buf, off + 3, 3)
    if kind < MOVE or kind > END or (kind <= DROP or kind == FORFEIT) and seat not in (1, 2):
        return None
    return kind, seat, arg, aux, t


def read_header(buf):
    """The Header in buf; ValueError if it is not one of this format, or damaged."""
    if (
        len(buf) < HEADER
        or buf[0:4] != Header.MAGIC
        or buf[4] != Header.FORMAT
        or get_uint(buf, HEADER - 2, 2) != fletcher(buf, 0, HEADER - 2, 0, 0)
    ):
        raise ValueError("bad log header")
    h = Header(
        (buf[6], buf[7], buf[8], buf[9], get_uint(buf, 10, 2), get_uint(buf, 12, 2)),
        bytes(buf[16:32]),
    )
    h.rules = buf[5]
    h.commit = bytes(buf[32:64])
    h.match_no = get_uint(buf, 64, 2)
    for seat in (1, 2):
        h.last_c[seat] = get_uint(buf, 64 + 4 * seat, 4)
        h.token_hash[seat] = bytes(buf[60 + 16 * seat : 76 + 16 * seat])
        at = 59 + (_NAME + 1) * seat
        h.players[seat] = bytes(buf[at + 1 : at + 1 + min(buf[at], _NAME)]).decode()
    return h


class Replay:
    """Rebuilds a match from its header, one entry at a time, through Match.start, enqueue +
    process, advance and forfeit (or onto `match`, a Match with the header's parameters, which
    is reset). Also counts what the board needs to go on: each seat's client sequence and
    accepted commands, the clock of the last entry. `problem` is the first mismatch, None while
    everything agrees: (entry number, AFTER_END/DIGEST/RESULT/REFUSED, expected, got)."""

    AFTER_END = 1  # an entry after the end (0, its kind)
    DIGEST = 2  # a checkpoint's digest (the log's, the replay's)
    RESULT = 3  # the end's result * 4 + winner (the log's, the replay's)
    REFUSED = 4  # a command or clock advance refused or without effect (its kind, the code)

    def __init__(self, header, match=None):
        if header.rules != Header.RULES:
            raise ValueError("bad log header")
        seed = engine_seed(header.seed, 0)
        if match is None:
            w, h, pairs, braid, cooldown, countdown = header.params
            match = Match(seed, w, h, cooldown, countdown, pairs, braid)
        else:
            match.reset(seed)
        self.match = match
        match.start(0)
        self.last_c = [0, header.last_c[1], header.last_c[2]]
        self.accepted = [0, 0, 0]
        self.t = 0  # the clock of the last entry with a time
        self.count = 0  # entries applied
        self.checks = 0  # CHECK entries that agreed
        self.ended = False
        self.problem = None

    def apply(self, entry):
        """Apply one entry (kind, seat, arg, aux, value); False once something disagreed."""
        kind, seat, arg, aux, value = entry
        m = self.match
        what = 0
        if self.ended:
            what, expected, got = Replay.AFTER_END, 0, kind
        elif kind == CHECK:
            if value != m.digest() or aux != m.state_seq & 0xFF:
                what, expected, got = Replay.DIGEST, value, m.digest()
            else:
                self.checks += 1
        elif kind == END:
            self.ended = True
            if arg and (m.phase != FINISHED or m.result != arg or m.winner != seat):
                what, expected, got = Replay.RESULT, arg * 4 + seat, m.result * 4 + m.winner
        else:
            self.t = value
            before = m.state_seq
            if kind == MOVE or kind == DROP:
                code = m.enqueue(seat, CMD_MOVE if kind == MOVE else CMD_DROP, arg, value)
                if code == OK:
                    code = m.process()
                self.last_c[seat] = (self.last_c[seat] + aux + 1) & 0x3FFFFFFF
                self.accepted[seat] += 1
            elif kind == CLOCK:
                code = m.advance(value)
            else:
                code = m.forfeit(seat, value)
            if code != OK or m.state_seq == before:
                what, expected, got = Replay.REFUSED, kind, code
        if what and self.problem is None:
            self.problem = (self.count, what, expected, got)
        self.count += 1
        return self.problem is None
