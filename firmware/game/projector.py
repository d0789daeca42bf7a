# The view projector: the only way game state leaves the board, so the place where hidden
# information stays hidden. A view is one role's projection of a Match (a player's square of
# radius 3, or 6 under the vision effect, or everything for an observer), streamed as a
# sequence of JSON records of at most 512 bytes (docs/protocol.md).
#
#   proj = Projector()                   # or Projector(headroom): free bytes before a record
#   count = proj.begin(match, role)      # role 1, 2 or OBSERVER: snapshot + plan, count >= 1
#   for i in range(count):
#       rec = proj.record(i)             # memoryview of record i, valid until the next call
#   end = proj.write_into(i, out, at)    # or record i written at out[at:], returns its end
#
# begin() writes every piece of text the view shows (the envelope up to "i", the status, the
# objects) into preallocated buffers and computes the exact chunk count before any record is
# written, so the records of one view describe one state even if the match moves on while they
# are being sent. A record is then assembled from those pieces and the maze's cells. Field
# order is fixed by the code, never by a dict, so CPython and MicroPython produce the same
# bytes. begin() and write() allocate nothing (but the first begin() for a maze size, which
# makes the maze tables); record() allocates only the memoryview it returns.
#
# Speed (docs/performance.md): the maze's passage flags do not change during a match, so their
# hex digits are encoded once per maze (`_hex`, redone when the flags differ from the copy
# `_raw`) and copied into records in blocks. Every piece is copied whole, from a buffer longer
# than the text it holds: what lies past the text lands after it in the record and is written
# over by what follows (or lies past the record's end; a record's buffer has _SLACK bytes
# more). A view that fits one record (every player view at radius 3) is written by begin().
from game.compat import const
from game.jsonbuf import ndigits, put, put_int
from game.rules import (
    NO_BEARING,
    PHASE_NAMES,
    PROTOCOL_VERSION,
    RECORD_MAX,
    RESULT_NAMES,
    ROLE_NAMES,
)

OBSERVER = const(0)  # the observer role; seats are 1 and 2
MAX_CHUNKS = const(12)  # records per view; a 32x32 observer view needs 4
_MAX_RUNS = const(13)  # cell runs per view: the rows of a radius-6 square (observers need 1)
_MAX_OBJECTS = const(14)  # object slots of the largest match: 6 + 2 * MAX_ARTIFACT_PAIRS

# Cell digits are copied from `_blocks`: views of _BLOCK digits of the maze's hex text, one
# starting at every 8th cell. A run starting at cell a is copied from the block holding it,
# placed so that cell a lands where it belongs: the copy also writes up to 7 bytes before the
# run (its opening, `"],[a,"` or `,"c":[[a,"`, at least 7 bytes, is written after it).
_BLOCK = const(64)
_HEX = b"0123456789abcdef"
# Text buffers of one view: the envelope up to "i": (at most ~100 bytes with a 10-digit state
# sequence), the status (~190 bytes at most: an observer's, every number at its widest), the
# objects (14 of at most 13 bytes, the member around them).
_PRE_MAX = const(128)
_ST_MAX = const(224)
_OBJ_MAX = const(192)
SLACK = const(_BLOCK)  # bytes a record's buffer needs past RECORD_MAX (see write_into)

# Envelope: {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":I,"n":N
_ENV_V = b'{"v":%d,"t":"view","s":' % PROTOCOL_VERSION
_ENV_R = b',"r":"'
_ENV_PH = b'","ph":"'
_ENV_W = b'","w":'
_ENV_H = b',"h":'
_ENV_M = b',"m":'
_ENV_I = b',"i":'
_ENV_N = b',"n":'
_ENV_ONE = b'0,"n":1,"st":'  # i, n and the status member of a view of one record
# The names of game.rules as bytes, made once at import (the writers copy bytes).
_ROLE_NAMES = tuple(name.encode() for name in ROLE_NAMES)
_PHASE_NAMES = tuple(name.encode() for name in PHASE_NAMES)
_RESULT_NAMES = tuple(name.encode() for name in RESULT_NAMES)

# Payload members, in this order after the envelope: status (chunk 0 only), objects, cells.
_ST = b',"st":'
_OBJS = b',"o":['
_CELLS = b',"c":[['  # the member and its first run's opening
_NEXT_RUN = b'"],['  # the end of a run and the next one's opening
_OPEN_LEN = const(6)  # len(_OBJS) == len(_ST) == len(_CELLS) - 1

# Status members. A seat: {"p":..,"k":..,"vm":..,"rad":..,"cp":..,"xo":..,"xd":..(,"xt":..)};
# a 0 stands for a value poked in (when it has one digit, as it has in every real match).
_S_P = b'{"p":'
_S_K_VM = b',"k":0,"vm":'
_S_VM = b',"vm":'
_S_RAD_CP = b',"rad":0,"cp":'
_S_CP = b',"cp":'
_S_XO_XD = b',"xo":0,"xd":0'
_S_XD = b',"xd":'
_S_XT = b',"xt":'
_S_RES = b',"res":"'
_S_RES_OBS = b'}],"res":"'
_S_WIN = b'","win":0'
_S_OPP = b',"opponent":{"p":'
_S_K_END = b',"k":0}'
_S_PLAYERS = b'{"players":['


def visible(match, seat, cell):
    """True when cell lies in seat's square: Chebyshev distance <= match.radius(seat)."""
    w = match.width
    if cell < 0 or cell >= w * match.height:
        return False
    here = match.pos[seat]
    r = match.radius(seat)
    dx = cell % w - here % w
    dy = cell // w - here // w
    return -r <= dx <= r and -r <= dy <= r


def opponent_visible(match, seat):
    """True when seat may see the other player: still in the maze and inside seat's square."""
    other = 3 - seat
    return not match.exited[other] and visible(match, seat, match.pos[other])


def _copy(out, p, src, n):
    """out[p : p + n] = src[:n] without slicing src (a slice would be a new object): the whole
    of src is copied when out has room for it (the rest is written over later), else byte by
    byte. Returns p + n."""
    if p + len(src) <= len(out):
        out[p : p + len(src)] = src
    else:
        for j in range(n):
            out[p + j] = src[j]
    return p + n


class Projector:
    """The text pieces and the plan of the current view, the maze's hex digits, and a buffer
    for one record.

    `store` holds a record at `headroom` bytes: a caller may put bytes of its own in front of
    it (a frame header) and send both with one write. `buf` and `mv` are views of the
    RECORD_MAX bytes of that record."""

    def __init__(self, headroom=0):
        self.headroom = headroom
        self.store = bytearray(headroom + RECORD_MAX + SLACK)
        self.mv = self.buf = memoryview(self.store)[headroom : headroom + RECORD_MAX]
        self.count = 0  # records of the current view
        self.length = 0  # bytes of the record last written in store
        self._whole = -1  # the record that is in store, complete; -1: none
        self._raw = None  # a copy of the maze flags the hex digits were made from
        self._hex = None  # the maze's hex digits (+ _BLOCK bytes of padding)
        self._blocks = None  # views of _hex: _BLOCK digits from every 8th cell
        self._w = 0
        self._h = 0
        self._pre = bytearray(_PRE_MAX)  # the envelope up to "i":
        self._pre_len = 0
        self._st = bytearray(_ST_MAX)  # the status object
        self._st_len = 0
        self._objs = bytearray(_OBJ_MAX)  # the objects member: ,"o":[[..],[..]]
        self._objs_len = 0
        self._obj_len = bytearray(_MAX_OBJECTS)  # bytes of each object's text
        self._nobj = 0
        self._run_start = [0] * _MAX_RUNS
        self._run_len = [0] * _MAX_RUNS
        self._nruns = 0
        self._cells_len = 0  # bytes of the cells member when all runs are in one record
        # The square (a player's, or the whole maze): columns x0..x1, cells lo..hi.
        self._x0 = 0
        self._x1 = 0
        self._lo = 0
        self._hi = 0
        # Where each chunk starts: object index, run index, offset in that run, and its length
        # in bytes; entry count is where the view ends.
        self._c_obj = bytearray(MAX_CHUNKS + 1)
        self._c_run = bytearray(MAX_CHUNKS + 1)
        self._c_off = [0] * (MAX_CHUNKS + 1)
        self._c_len = [0] * (MAX_CHUNKS + 1)

    # ---- the gateway's API ----------------------------------------------------------------

    def visible(self, match, seat, cell):
        return visible(match, seat, cell)

    def opponent_visible(self, match, seat):
        return opponent_visible(match, seat)

    def begin(self, match, role):
        """Snapshot role's view of match and plan its records; returns the record count."""
        if role != OBSERVER and role != 1 and role != 2:
            raise ValueError("role must be 1, 2 or OBSERVER")
        if self._raw != match.cells:
            self._load_maze(match.cells)
        self._w = match.width
        self._h = match.height
        self._whole = -1
        self._put_prefix(match, role)
        if role == OBSERVER:
            self._observer_status(match)
        else:
            self._player_status(match, role)
        self._put_objects(match)
        # One record: the envelope with i and n of one digit, the members, the closing brace.
        size = self._pre_len + 14 + self._st_len + self._objs_len + self._cells_len
        if size <= RECORD_MAX:
            self._c_obj[1] = self._nobj
            self._c_run[1] = self._nruns
            self._c_off[1] = 0
            self._c_len[0] = size
            self.count = 1
            self.length = self.write_into(0, self.store, self.headroom) - self.headroom
            self._whole = 0
            return 1
        # More than one record. The envelope holds n, so its width depends on the count it
        # helps to decide: plan with one digit, and again with more if the count came out wider.
        digits = 1
        count = self._plan(digits)
        while ndigits(count) > digits:
            digits = ndigits(count)
            count = self._plan(digits)
        self.count = count
        return count

    def record(self, i):
        """Write record i (0 <= i < count) and return a memoryview of exactly its bytes."""
        return self.mv[: self.write(i)]

    def write(self, i):
        """Write record i at `headroom` in self.store and return its length (allocation-free)."""
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        if i != self._whole:
            at = self.headroom
            self.length = self.write_into(i, self.store, at) - at
            self._whole = i
        return self.length

    def size(self, i):
        """Bytes of record i of the current view (known before it is written)."""
        return self._c_len[i]

    def write_into(self, i, out, at):
        """Write record i at out[at:] and return the position after it. out needs SLACK bytes
        past the record, which this may overwrite (allocation-free)."""
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        p = _copy(out, at, self._pre, self._pre_len)
        if i < 10:
            out[p] = 48 + i
            p += 1
        else:
            p = put_int(out, p, i)
        out[p : p + 5] = _ENV_N
        p = put_int(out, p + 5, self.count)
        if i == 0:
            out[p : p + 6] = _ST
            p = _copy(out, p + 6, self._st, self._st_len)
        o = self._c_obj[i]
        o_end = self._c_obj[i + 1]
        if o == 0 and o_end == self._nobj:
            if o_end:
                p = _copy(out, p, self._objs, self._objs_len)  # all of them
        elif o < o_end:
            p = self._some_objects(out, p, o, o_end)
        run = self._c_run[i]
        off = self._c_off[i]
        run_end = self._c_run[i + 1]
        off_end = self._c_off[i + 1]
        if run < run_end or (run == run_end and off < off_end):
            p = self._put_cells(out, p, run, off, run_end, off_end)
        out[p] = 125  # '}'
        return p + 1

    # ---- the maze's digits ------------------------------------------------------------------

    def _load_maze(self, cells):
        """Encode the maze's flags as hex digits, once per maze (and per change of flags)."""
        n = len(cells)
        if self._raw is None or len(self._raw) != n:
            # A maze of another size: new tables (let the old ones go first).
            self._raw = self._hex = self._blocks = None
            self._raw = bytearray(n)
            self._hex = bytearray(n + _BLOCK)
            digits = memoryview(self._hex)
            self._blocks = [digits[first : first + _BLOCK] for first in range(0, n, 8)]
        self._raw[:] = cells
        hexd = _HEX
        out = self._hex
        for c in range(n):
            out[c] = hexd[cells[c] & 15]

    # ---- the pieces of a view (begin) -------------------------------------------------------

    def _put_prefix(self, match, role):
        # {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":
        b = self._pre
        p = put(b, 0, _ENV_V)
        p = put_int(b, p, match.state_seq)
        b[p : p + 6] = _ENV_R
        p = put(b, p + 6, _ROLE_NAMES[role])
        b[p : p + 8] = _ENV_PH
        p = put(b, p + 8, _PHASE_NAMES[match.phase])
        b[p : p + 6] = _ENV_W
        p = put_int(b, p + 6, self._w)
        b[p : p + 5] = _ENV_H
        p = put_int(b, p + 5, self._h)
        b[p : p + 5] = _ENV_M
        p = put_int(b, p + 5, match.meeting_seq)
        b[p : p + 5] = _ENV_I
        self._pre_len = p + 5

    def _put_seat(self, b, p, match, seat):
        # {"p":P,"k":K,"vm":VM,"rad":R,"cp":CP,"xo":XO,"xd":XD: the members after a value are
        # copied with it and the value poked in, or written in place when it is wider.
        b[p : p + 5] = _S_P
        p = put_int(b, p + 5, match.pos[seat])
        v = match.inventory[seat]
        b[p : p + 12] = _S_K_VM
        if v < 10:
            b[p + 5] = 48 + v
            p += 12
        else:
            p = put(b, put_int(b, p + 5, v), _S_VM)
        v = match.vision[seat]
        if v < 10:
            b[p] = 48 + v
            p += 1
        else:
            p = put_int(b, p, v)
        v = match.radius(seat)
        b[p : p + 14] = _S_RAD_CP
        if v < 10:
            b[p + 7] = 48 + v
            p += 14
        else:
            p = put(b, put_int(b, p + 7, v), _S_CP)
        v = match.compass[seat]
        if v < 10:
            b[p] = 48 + v
            p += 1
        elif v == NO_BEARING:
            b[p] = 45  # '-'
            b[p + 1] = 49  # '1'
            p += 2
        else:
            p = put_int(b, p, v)
        v = match.exit_open[seat]
        b[p : p + 14] = _S_XO_XD
        if v < 10:
            b[p + 6] = 48 + v
            p += 13
        else:
            p = put(b, put_int(b, p + 6, v), _S_XD)
        v = match.exited[seat]
        if v < 10:
            b[p] = 48 + v
            return p + 1
        return put_int(b, p, v)

    def _put_result(self, b, p, match):
        # ..."res":"R","win":W}
        p = put(b, p, _RESULT_NAMES[match.result])
        v = match.winner
        b[p : p + 9] = _S_WIN
        if v < 10:
            b[p + 8] = 48 + v
            return p + 9
        return put_int(b, p + 8, v)

    def _observer_status(self, match):
        # {"players":[seat 1,"xt":T},seat 2,"xt":T}],"res":"R","win":W}
        b = self._st
        b[0:12] = _S_PLAYERS
        p = self._put_seat(b, 12, match, 1)
        b[p : p + 6] = _S_XT
        p = put_int(b, p + 6, match.exit_time[1])
        b[p] = 125  # '}'
        b[p + 1] = 44  # ','
        p = self._put_seat(b, p + 2, match, 2)
        b[p : p + 6] = _S_XT
        p = put_int(b, p + 6, match.exit_time[2])
        b[p : p + 10] = _S_RES_OBS
        p = self._put_result(b, p + 10, match)
        b[p] = 125
        self._st_len = p + 1
        # The whole maze: one run.
        n = self._w * self._h
        self._run_start[0] = 0
        self._run_len[0] = n
        self._nruns = 1
        self._cells_len = _OPEN_LEN + 7 + n
        self._x0 = 0
        self._x1 = self._w - 1
        self._lo = 0
        self._hi = n - 1

    def _player_status(self, match, seat):
        # Only what the seat may see is written: nothing hidden even reaches a buffer.
        w = self._w
        h = self._h
        here = match.pos[seat]
        r = match.radius(seat)
        hx = here % w
        hy = here // w
        x0 = hx - r if hx > r else 0
        x1 = hx + r if hx + r < w else w - 1
        y0 = hy - r if hy > r else 0
        y1 = hy + r if hy + r < h else h - 1
        self._x0 = x0
        self._x1 = x1
        self._lo = lo = y0 * w + x0
        self._hi = hi = y1 * w + x1
        # {seat,"res":"R","win":W(,"opponent":{"p":P,"k":K})}
        b = self._st
        p = self._put_seat(b, 0, match, seat)
        b[p : p + 8] = _S_RES
        p = self._put_result(b, p + 8, match)
        # The opponent: while in the maze and in the square (the same test as visible()).
        other = 3 - seat
        there = match.pos[other]
        if not match.exited[other] and lo <= there <= hi and x0 <= there % w <= x1:
            b[p : p + 17] = _S_OPP
            p = put_int(b, p + 17, there)
            v = match.inventory[other]
            b[p : p + 7] = _S_K_END
            if v < 10:
                b[p + 5] = 48 + v
                p += 7
            else:
                p = put(b, put_int(b, p + 5, v), b"}")
        b[p] = 125  # '}'
        self._st_len = p + 1
        # The cells: one run per row of the square, or one for whole rows.
        starts = self._run_start
        lens = self._run_len
        if x0 == 0 and x1 == w - 1:
            starts[0] = lo
            lens[0] = hi + 1 - lo
            self._nruns = 1
            self._cells_len = _OPEN_LEN + 6 + ndigits(lo) + hi + 1 - lo
            return
        # [first,"digits"] and a comma each, the member's opening around.
        span = x1 - x0 + 1
        size = _OPEN_LEN
        run = 0
        first = lo
        while first <= hi:  # (a range with a step would be an object on MicroPython)
            starts[run] = first
            lens[run] = span
            size += (7 if first < 10 else 8 if first < 100 else 9 if first < 1000 else 10) + span
            run += 1
            first += w
        self._nruns = run
        self._cells_len = size

    def _put_objects(self, match):
        """The objects on the ground inside the square, in slot order: [kind,owner,variant,
        cell] each, measured for the planner."""
        present = match.obj_present
        cell_of = match.obj_cell
        lo = self._lo
        hi = self._hi
        x0 = self._x0
        x1 = self._x1
        w = self._w
        lens = self._obj_len
        b = self._objs
        p = _OPEN_LEN
        n = 0
        for slot in range(len(present)):
            if not present[slot]:
                continue
            cell = cell_of[slot]
            if cell < lo or cell > hi or not x0 <= cell % w <= x1:
                continue
            start = p
            b[p] = 91  # '['
            p = put_int(b, p + 1, match.obj_kind[slot])
            b[p] = 44  # ','
            p = put_int(b, p + 1, match.obj_owner[slot])
            b[p] = 44
            p = put_int(b, p + 1, match.obj_variant[slot])
            b[p] = 44
            p = put_int(b, p + 1, cell)
            b[p] = 93  # ']'
            b[p + 1] = 44  # ',' (the last one becomes the member's ']')
            p += 2
            lens[n] = p - 1 - start
            n += 1
        self._nobj = n
        if n:
            b[0:6] = _OBJS
            b[p - 1] = 93
            self._objs_len = p
        else:
            self._objs_len = 0

    # ---- planning ---------------------------------------------------------------------------

    def _plan(self, n_digits):
        """Pack status, objects and cell runs greedily into records; returns the count."""
        nobj = self._nobj
        nruns = self._nruns
        env_len = self._pre_len + 5 + n_digits + 1  # + `,"n":`, n and the closing brace
        o = 0
        run = 0
        off = 0
        chunk = 0
        while True:
            if chunk >= MAX_CHUNKS:
                raise ValueError("view needs more than MAX_CHUNKS records")
            self._c_obj[chunk] = o
            self._c_run[chunk] = run
            self._c_off[chunk] = off
            used = env_len + (1 if chunk < 10 else 2)
            if chunk == 0:
                used += _OPEN_LEN + self._st_len
            first = True
            while o < nobj:
                size = self._obj_len[o] + (_OPEN_LEN + 1 if first else 1)
                if used + size > RECORD_MAX:
                    break
                used += size
                first = False
                o += 1
            first = True
            while run < nruns:
                left = self._run_len[run] - off
                # [first,"hex..."] plus the member's opening and closing, or a comma.
                over = 5 + ndigits(self._run_start[run] + off) + (_OPEN_LEN + 1 if first else 1)
                room = RECORD_MAX - used - over
                if room < 1:
                    break
                first = False
                if left <= room:
                    used += over + left
                    run += 1
                    off = 0
                else:
                    used += over + room  # the run goes on in the next record
                    off += room
                    break
            self._c_len[chunk] = used
            chunk += 1
            if o >= nobj and run >= nruns:
                break
        self._c_obj[chunk] = o
        self._c_run[chunk] = run
        self._c_off[chunk] = off
        return chunk

    # ---- writing records --------------------------------------------------------------------

    def _some_objects(self, out, p, o, o_end):
        """Objects o..o_end-1 only (a view whose objects do not fit one record), byte by byte
        from their text."""
        src = self._objs
        lens = self._obj_len
        q = _OPEN_LEN
        for k in range(o):
            q += lens[k] + 1
        out[p : p + 6] = _OBJS
        p += 6
        for k in range(o, o_end):
            for j in range(q, q + lens[k] + 1):  # the object and the comma after it
                out[p] = src[j]
                p += 1
            q += lens[k] + 1
        out[p - 1] = 93  # ']'
        return p

    def _put_cells(self, b, p, run, off, run_end, off_end):
        """The cells member from cell `off` of run `run` to cell `off_end` of run `run_end`
        (exclusive); returns the position after its closing bracket."""
        blocks = self._blocks
        starts = self._run_start
        lens = self._run_len
        lead = 7  # len(_CELLS), then len(_NEXT_RUN)
        while True:
            a = starts[run] + off
            n = (lens[run] if run < run_end else off_end) - off
            at = p + lead + (3 if a < 10 else 4 if a < 100 else 5 if a < 1000 else 2 + ndigits(a))
            # The digits first, block by block from the one holding cell a; the first copy
            # starts up to 7 bytes early, over the run's opening, which is written next.
            k = a >> 3
            d = at - (a & 7)
            end = at + n
            while d < end:
                b[d : d + _BLOCK] = blocks[k]
                d += _BLOCK
                k += _BLOCK >> 3
            if lead == 7:
                b[p : p + 7] = _CELLS
            else:
                b[p : p + 4] = _NEXT_RUN
            p += lead
            if a < 10:
                b[p] = 48 + a
            elif a < 100:
                b[p] = 48 + a // 10
                b[p + 1] = 48 + a % 10
            elif a < 1000:
                b[p] = 48 + a // 100
                b[p + 1] = 48 + a // 10 % 10
                b[p + 2] = 48 + a % 10
            else:
                put_int(b, p, a)
            b[at - 2] = 44  # ','
            b[at - 1] = 34  # '"'
            p = end
            run += 1
            off = 0
            if run > run_end or (run == run_end and off_end == 0):
                break
            lead = 4
        b[p] = 34  # '"'
        b[p + 1] = 93  # ']'
        b[p + 2] = 93
        return p + 3
