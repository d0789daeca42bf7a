# The match log's pure writing half (docs/log.md): the header and the 8-byte entries of one
# match, written into the caller's buffers. Reading them back and rebuilding the match is
# game.replay's (loaded at boot only to resume a match, then dropped; and by the tools). The
# board (net/journal.py) keeps the files and the hashes. No I/O, clock or hash here: the seed
# commitment is sha256 of the header's first 32 bytes, computed outside.
# Header.record() allocates nothing (the board calls it for every accepted command).
#
# Few names: on the board every module global and attribute name is interned for good, so
# the format's numbers are private constants (tools/logbook.py has them for the host), and the
# functions are Header's, under names the firmware already uses.
from game.compat import const

# The log's sizes (docs/log.md): its header, one entry, and the tail file of the entries not
# yet in the log (8 bytes: first entry's number, count, check; then TAIL_GROUP entries), which
# LittleFS keeps inline in its directory's metadata (at most 128 bytes).
HEADER_SIZE = const(208)
ENTRY_SIZE = const(8)
TAIL_GROUP = const(14)
TAIL_SIZE = const(8 + 14 * 8)
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
_LIMIT = const(7)  # t: the match reached the board's length limit (max_moves): a draw


class Header:
    """The fields of a log's header (offsets in docs/log.md). write() packs them, with the
    header's own check, into a bytearray(208); game.replay's Replay.head() reads them back.
    params: (width, height, artifact pairs, braid percent, cooldown ms, countdown ms), as
    net.match_host.match_parameters() gives them. The engine's seed is 30 bits of the seed."""

    def __init__(
        self,
        params=(5, 5, 0, 0, 0, 0),
        seed=bytes(16),
        series=(0, 0, 0, 0),
        digest=None,
        match_no=0,
        rules=_RULES,
    ):
        self.rules = rules
        self.params = params
        self.seed = seed
        # the commitment: sha256 of the header's first 32 bytes
        self.digest = bytes(32) if digest is None else digest
        self.match_no = match_no
        self.last_c = [0, 0, 0]  # each seat's client sequence when the match started
        self.token_hash = [b"", bytes(16), bytes(16)]  # of each seat's token (16 bytes)
        self.players = ["", "", ""]  # each seat's name
        # (ruleset: its index in game.rulesets.RULESETS, best of N as N // 2, the series
        # score of seat 1 and 2 before this match): all 0 for classic
        self.series = series

    def commit(self, digest, match_no=0):
        """The commitment (known once the first 32 bytes are) and the match number."""
        self.digest = digest
        self.match_no = match_no

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
        for i in range(HEADER_SIZE):
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
        series = self.series
        buf[14] = series[0] << 4 | series[1]
        buf[15] = min(series[2], 15) << 4 | min(series[3], 15)  # (a running tally: capped)
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
