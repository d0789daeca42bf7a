# The match log's pure half (docs/log.md): the header and the 8-byte entries of one match,
# written into and read from the caller's buffers, and Replay, which rebuilds the match from
# them through the engine's public calls (start, enqueue + process, advance, forfeit). The
# board (net/journal.py) keeps the files and the hashes and replays a log once at boot to
# resume its match; tools/replay.py checks a log with this same code. No I/O, clock or hash
# here: the seed commitment is sha256 of the header's first 32 bytes, computed outside.
# Header.record() allocates nothing (the board calls it for every accepted command).
#
# Few names: on the board every module global and attribute name is interned for good, so
# the format's numbers are private constants (tools/logbook.py has them for the host), and the
# functions are Header's and Replay's, under names the firmware already uses.
from game.compat import const
from game.engine import Match
from game.rules import CMD_DROP, CMD_MOVE, FINISHED, OK

_NAME = const(48)  # bytes of a name in the header (12 characters of up to 4 bytes)
_FORMAT = const(1)  # the header's format version
_RULES = const(1)  # the rules version: bumped by any change to game.engine's rules

# Entry kinds (the high nibble of an entry's first byte), as in docs/log.md.
_MOVE = const(1)  # seat, arg = direction, aux = client sequence step - 1 (0..1023), value = t
_DROP = const(2)  # seat, aux as MOVE, value = t
_CLOCK = const(3)  # t: a clock advance that changed the state (countdown end, finish window)
_FORFEIT = const(4)  # seat, t
_CHECK = const(5)  # aux = state_seq & 0xFF, value = digest; arg 1: written at a resume
_END = const(6)  # seat = winner, arg = result (0: abandoned), value = the clock at the end

# Replay's problems: (entry number, what, expected, got)
_AFTER_END = const(1)  # an entry after the end (0, its kind)
_DIGEST = const(2)  # a checkpoint's digest (the log's, the replay's)
_RESULT = const(3)  # the end's result * 4 + winner (the log's, the replay's)
_REFUSED = const(4)  # a command or clock advance refused or without effect (its kind, the code)


class Header:
    """The fields of a log's header (offsets in docs/log.md). write() packs them, with the
    header's own check, into a bytearray(208); Replay.head() reads them back. params: (width,
    height, artifact pairs, braid percent, cooldown ms, countdown ms), as
    net.match_host.match_parameters() gives them. The engine's seed is 30 bits of the seed."""

    def __init__(self, params=(5, 5, 0, 0, 0, 0), seed=bytes(16)):
        self.rules = _RULES
        self.params = params
        self.seed = seed
        self.digest = bytes(32)  # the commitment: sha256 of the header's first 32 bytes
        self.match_no = 0
        self.last_c = [0, 0, 0]  # each seat's client sequence when the match started
        self.token_hash = [b"", bytes(16), bytes(16)]  # of each seat's token (16 bytes)
        self.players = ["", "", ""]  # each seat's name

    @staticmethod
    def sum(buf, start, end, a, b):
        """Fletcher-16 of buf[start:end], continuing from the sums (a, b): b << 8 | a."""
        for i in range(start, end):
            a = (a + buf[i]) % 255
            b = (b + a) % 255
        return b << 8 | a

    @staticmethod
    def place(buf, off, n, v):
        """v as n bytes, big-endian, at buf[off]."""
        for i in range(off + n - 1, off - 1, -1):
            buf[i] = v & 0xFF
            v >>= 8

    @staticmethod
    def record(buf, off, index, kind, seat, arg, aux, value):
        """Write entry number `index` of a log at buf[off:off+8]. value is a time (< 2**30)
        with aux < 1024, or, for a check, a 32-bit digest with aux < 256."""
        buf[off] = kind << 4 | seat << 2 | arg
        if kind == _CHECK:
            buf[off + 1] = aux
            buf[off + 2] = (value >> 24) & 0xFF
        else:
            buf[off + 1] = aux >> 2
            buf[off + 2] = (aux & 3) << 6 | value >> 24
        buf[off + 3] = (value >> 16) & 0xFF
        buf[off + 4] = (value >> 8) & 0xFF
        buf[off + 5] = value & 0xFF
        # the index is summed first, so an entry is only valid at its own place in its log
        check = Header.sum(buf, off, off + 6, index & 0xFF, (index >> 8) & 0xFF)
        Header.place(buf, off + 6, 2, check)

    def write(self, buf):
        """The header in buf (a bytearray of 208 bytes); returns buf."""
        place = Header.place
        for i in range(208):
            buf[i] = 0
        buf[0:4] = b"MDLG"
        buf[4] = _FORMAT
        buf[5] = self.rules
        w, h, pairs, braid, cooldown, countdown = self.params
        buf[6] = w
        buf[7] = h
        buf[8] = pairs
        buf[9] = braid
        place(buf, 10, 2, cooldown)
        place(buf, 12, 2, countdown)
        buf[16:32] = self.seed
        buf[32:64] = self.digest
        place(buf, 64, 2, self.match_no)
        for seat in (1, 2):
            place(buf, 64 + 4 * seat, 4, self.last_c[seat])
            buf[60 + 16 * seat : 76 + 16 * seat] = self.token_hash[seat]
            name = self.players[seat].encode()[:_NAME]
            at = 59 + (_NAME + 1) * seat
            buf[at] = len(name)
            buf[at + 1 : at + 1 + len(name)] = name
        place(buf, 206, 2, Header.sum(buf, 0, 206, 0, 0))
        return buf


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
            or kind > _END
            or (kind <= _DROP or kind == _FORFEIT)
            and seat not in (1, 2)
        ):
            return None
        return kind, seat, arg, aux, t

    @staticmethod
    def head(buf):
        """The Header in buf; ValueError if it is not one of this format, or damaged."""
        if (
            len(buf) < 208
            or buf[0:4] != b"MDLG"
            or buf[4] != _FORMAT
            or Replay.uint(buf, 206, 2) != Header.sum(buf, 0, 206, 0, 0)
        ):
            raise ValueError("bad log header")
        h = Header(
            (buf[6], buf[7], buf[8], buf[9], Replay.uint(buf, 10, 2), Replay.uint(buf, 12, 2)),
            bytes(buf[16:32]),
        )
        h.rules = buf[5]
        h.digest = bytes(buf[32:64])
        h.match_no = Replay.uint(buf, 64, 2)
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
            match = Match(seed, w, h, cooldown, countdown, pairs, braid)
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
            else:
                code = m.forfeit(seat, value)
            if code != OK or m.state_seq == before:
                what, expected, got = _REFUSED, kind, code
        if what and self.reason is None:
            self.reason = (self.count, what, expected, got)
        self.count += 1
        return self.reason is None
