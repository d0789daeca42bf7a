# The match log's pure half, writing (docs/log.md): the header and the 8-byte entries of one
# match, written into the caller's buffers (game/replay.py reads them and rebuilds the match).
# The board (net/journal.py) keeps the files and the hashes; tools/replay.py checks a log with
# this same code. No I/O, clock or hash here: the seed commitment is sha256 of the header's
# first COMMITTED bytes, computed outside. put_entry() allocates nothing (the board calls it
# for every accepted command).
from game.compat import const

HEADER = const(208)  # bytes of a log's header (Header.SIZE)
ENTRY = const(8)  # bytes of one entry
_NAME = const(48)  # bytes of a name in the header (12 characters of up to 4 bytes)

# Entry kinds (the high nibble of an entry's first byte).
MOVE = const(1)  # seat, arg = direction, aux = client sequence step - 1 (0..1023), t
DROP = const(2)  # seat, aux as MOVE, t
CLOCK = const(3)  # t: a clock advance that changed the state (countdown end, finish window)
FORFEIT = const(4)  # seat, t
CHECK = const(5)  # aux = state_seq & 0xFF, value = digest; arg 1: written at a resume
END = const(6)  # seat = winner, arg = result (0: abandoned), t = the clock at the end


def fletcher(buf, start, end, a, b):
    """Fletcher-16 of buf[start:end], continuing from the sums (a, b); returns b << 8 | a."""
    for i in range(start, end):
        a = (a + buf[i]) % 255
        b = (b + a) % 255
    return b << 8 | a


def put_uint(buf, off, n, v):
    for i in range(off + n - 1, off - 1, -1):
        buf[i] = v & 0xFF
        v >>= 8


def put_entry(buf, off, index, kind, seat, arg, aux, value):
    """Write entry number `index` of a log at buf[off:off+8]. value is a time (< 2**30) with
    aux < 1024, or, for CHECK, a 32-bit digest with aux < 256."""
    buf[off] = kind << 4 | seat << 2 | arg
    if kind == CHECK:
        buf[off + 1] = aux
        buf[off + 2] = (value >> 24) & 0xFF
    else:
        buf[off + 1] = aux >> 2
        buf[off + 2] = (aux & 3) << 6 | value >> 24
    buf[off + 3] = (value >> 16) & 0xFF
    buf[off + 4] = (value >> 8) & 0xFF
    buf[off + 5] = value & 0xFF
    # the index is summed first, so an entry is only valid at its own place in its log
    put_uint(buf, off + 6, 2, fletcher(buf, off, off + 6, index & 0xFF, (index >> 8) & 0xFF))


def engine_seed(buf, off=16):
    """The engine's seed from a seed's first four bytes: 30 bits, a small int on the board."""
    return (buf[off] & 0x3F) << 24 | buf[off + 1] << 16 | buf[off + 2] << 8 | buf[off + 3]


class Header:
    """The fields of a log's header (offsets in docs/log.md); pack() writes them, with the
    header's own check, into a bytearray(SIZE) (game.replay.read_header reads them back).
    params: (width, height, artifact pairs, braid percent, cooldown ms, countdown ms), as
    net.match_host.match_parameters() gives them."""

    SIZE = HEADER
    MAGIC = b"MDLG"
    FORMAT = 1  # this layout; a reader refuses any other
    RULES = 1  # the rules the log was played under (bumped by any change of game.engine)
    COMMITTED = 32  # header bytes under the seed commitment: versions, parameters, seed
    SEED = 16  # random bytes of a seed (at offset 16)

    def __init__(self, params=(5, 5, 0, 0, 0, 0), seed=bytes(16)):
        self.rules = Header.RULES
        self.params = params
        self.seed = seed
        self.commit = bytes(32)
        self.match_no = 0
        self.last_c = [0, 0, 0]  # each seat's client sequence when the match started
        self.token_hash = [b"", bytes(16), bytes(16)]  # of each seat's token (16 bytes)
        self.players = ["", "", ""]  # each seat's name

    def pack(self, buf):
        for i in range(HEADER):
            buf[i] = 0
        buf[0:4] = Header.MAGIC
        buf[4] = Header.FORMAT
        buf[5] = self.rules
        w, h, pairs, braid, cooldown, countdown = self.params
        buf[6] = w
        buf[7] = h
        buf[8] = pairs
        buf[9] = braid
        put_uint(buf, 10, 2, cooldown)
        put_uint(buf, 12, 2, countdown)
        buf[16:32] = self.seed
        buf[32:64] = self.commit
        put_uint(buf, 64, 2, self.match_no)
        for seat in (1, 2):
            put_uint(buf, 64 + 4 * seat, 4, self.last_c[seat])
            buf[60 + 16 * seat : 76 + 16 * seat] = self.token_hash[seat]
            name = self.players[seat].encode()[:_NAME]
            at = 59 + (_NAME + 1) * seat
            buf[at] = len(name)
            buf[at + 1 : at + 1 + len(name)] = name
        put_uint(buf, HEADER - 2, 2, fletcher(buf, 0, HEADER - 2, 0, 0))
        return buf
