# The view projector: the only way game state leaves the board, so the place where hidden
# information stays hidden. A view is one role's projection of a Match (a player's square of
# radius 3, or 6 under the vision effect, or everything for an observer), streamed as a
# sequence of JSON records of at most 512 bytes (docs/protocol.md).
#
#   proj = Projector()                   # or Projector(headroom): free bytes before a record
#   count = proj.begin(match, role)      # role 1, 2 or OBSERVER: snapshot + plan, count >= 1
#   for i in range(count):
#       rec = proj.record(i)             # memoryview of record i, valid until the next call
#   end = proj.write_into(i, out, at)    # or: record i written at out[at:], returns its end
#
# begin() writes every piece of text the view shows (the envelope up to "i", the status, the
# objects) into preallocated buffers and computes the exact chunk count before any record is
# written, so the records of one view describe one state even if the match moves on while they
# are being sent. Records are then assembled from those pieces and the maze's cells. Field
# order is fixed by the code, never by a dict, so CPython and MicroPython produce the same
# bytes. begin() and the writers allocate nothing (but the first begin() for a maze size, which
# makes the maze tables); record() allocates only the memoryview it returns.
#
# Speed (docs/performance.md). The maze's passage flags do not change during a match: their
# hex digits are encoded once per maze (`_hex`, again only when the flags differ from the copy
# `_raw`) and copied into records in blocks. Every piece is copied whole from a buffer longer
# than its text, since a slice of the source would be a new object: what lies past the text
# lands after it in the record and is written over by what follows (or lies past the record's
# end, where a record's buffer has SLACK bytes). A view that fits one record (every player view
# at radius 3) is written by begin() itself.
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
_NONE = const(255)  # no record (an index past every count)

# Cell digits are copied from `_blocks`: views of _BLOCK digits of the maze's hex text, one
# starting at every 8th cell. A run starting at cell a is copied from the block holding a,
# placed so that a lands where it belongs: the copy also writes up to 7 bytes before the run,
# over its opening (`"],[a,"` or `,"c":[[a,"`, at least 7 bytes), which is written after it.
_BLOCK = const(64)
SLACK = const(_BLOCK)  # bytes a record's buffer needs past the record (see write_into)
# The text pieces of a view, at their longest: the envelope up to "i": 90 bytes (a 10-digit
# state sequence), the status 182 (an observer's, every number at its widest), the objects 188
# (14 of them).
_PRE_MAX = const(128)
_TAIL_MAX = const(64)  # the envelope after the role: 49 bytes with a 7-digit meeting count
_ST_MAX = const(192)
_OBJ_MAX = const(192)

# Envelope: {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":I,"n":N
_ENV_V = b'{"v":%d,"t":"view","s":' % PROTOCOL_VERSION
_ENV_V_LEN = len(_ENV_V)  # where the state sequence starts
_ENV_R = const(b',"r":"')
_ENV_PH = const(b'","ph":"')
_ENV_W = const(b'","w":')
_ENV_H = const(b',"h":')
_ENV_M = const(b',"m":')
_ENV_I = const(b',"i":')
_ENV_N = const(b',"n":')
_ENV_ONE = const(b'0,"n":1,"st":')  # i, n and the status member of a view of one record
# The names of game.rules as bytes, made once at import (the writers copy bytes).
_ROLES = tuple(name.encode() for name in ROLE_NAMES)
_PHASES = tuple(name.encode() for name in PHASE_NAMES)
_RESULTS = tuple(name.encode() for name in RESULT_NAMES)

# Payload members, in this order after the envelope: status (chunk 0 only), objects, cells.
_ST = const(b',"st":')
_OBJS = const(b',"o":[')
_CELLS = const(b',"c":[[')  # the member and its first run's opening
_OPEN_LEN = const(6)  # len(_OBJS) == len(_ST) == len(_CELLS) - 1
# A run's opening after the one before it, with room for the digits of its first cell.
_RUN_1 = const(b'"],[0,"')
_RUN_2 = const(b'"],[00,"')
_RUN_3 = const(b'"],[000,"')
_RUN_4 = const(b'"],[0000,"')

# Status members. A seat: {"p":..,"k":..,"vm":..,"rad":..,"cp":..,"xo":..,"xd":..(,"xt":..)};
# a 0 stands for a value poked in (when it has one digit, as it has in every real match).
_S_P = const(b'{"p":')
_S_K_VM = const(b',"k":0,"vm":')
_S_VM = const(b',"vm":')
_S_RAD_CP = const(b',"rad":0,"cp":')
_S_CP = const(b',"cp":')
_S_XO_XD = const(b',"xo":0,"xd":0')
_S_XD = const(b',"xd":')
_S_XT = const(b',"xt":')
_S_RES = const(b',"res":"')
_S_RES_OBS = const(b'}],"res":"')
_S_WIN = const(b'","win":0')
_S_OPP = const(b',"opponent":{"p":')
_S_K_END = const(b',"k":0}')
_S_PLAYERS = const(b'{"players":[')
_O_3 = const(b"[0,0,0,")  # an object's kind, owner and variant when each has one digit


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
    """out[p : p + n] = src[:n], and returns p + n: the whole of src when out has room for it,
    else byte by byte."""
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

    def __init__(self, headroom=0, gap=None):
        self.headroom = headroom
        self.store = bytearray(headroom + RECORD_MAX + SLACK)
        self.mv = self.buf = memoryview(self.store)[headroom : headroom + RECORD_MAX]
        self.count = 0  # records of the current view
        self._role = 0
        self.length = 0  # bytes of the record last written in store
        self._whole = _NONE  # the record that is in store, complete
        # The maze: a copy of the flags its hex digits were made from, the digits (+ _BLOCK
        # bytes of padding), views of _BLOCK digits from every 8th cell.
        self._raw = None
        self._hex = None
        self._blocks = None
        self._w = 0
        self._h = 0
        # The envelope up to "i": stays at the start of the record in store for every record
        # of the view (the other buffers get a copy). Its part after the role is kept in
        # _tail, with what it was made of.
        self._pre = memoryview(self.store)[headroom : headroom + _PRE_MAX]
        self._pre_len = 0
        self._tail = bytearray(_TAIL_MAX)
        self._tail_len = 0
        self._t_phase = -1
        self._t_meet = 0
        self._t_w = 0
        # The status object (a player view of one record writes it in place instead).
        self._st = bytearray(_ST_MAX)
        self._st_len = 0
        # The objects member (,"o":[[..],[..]]) of the view: its text, bytes, count, and the
        # bytes of each object's text. A player's are written for each view, an observer's
        # (every object on the ground) only when an object was taken, dropped or moved.
        self._objs = None
        self._objs_len = 0
        self._nobj = 0
        self._obj_len = None
        self._p_objs = bytearray(_OBJ_MAX)
        self._p_obj_len = bytearray(_MAX_OBJECTS)
        self._o_objs = bytearray(_OBJ_MAX)
        self._o_obj_len = bytearray(_MAX_OBJECTS)
        self._o_objs_len = 0
        self._o_nobj = 0
        self._o_present = None  # the match's obj_present and obj_cell they were made from
        self._o_cell = None
        # The cells: runs of consecutive cells (a player's rows, or the whole maze).
        self._run_start = [0] * _MAX_RUNS
        self._run_len = [0] * _MAX_RUNS
        self._nruns = 0
        # The observer's records, each after `gap(its length)` free bytes (a frame header),
        # one after another: kept from one observer view to the next and, when nothing but the
        # state sequence and the status changed and the status kept its length, updated in
        # place (the state sequence in every record, the status in record 0).
        self._gap = gap
        self.obs = None
        self.obs_at = [0] * MAX_CHUNKS  # where each record starts in obs
        self.obs_end = 0  # where the last one ends
        self._o_len = [0] * MAX_CHUNKS  # bytes of each record
        self._o_count = 0
        self._o_valid = False  # obs holds the view described by:
        self._o_st = 0  # where record 0's status starts, and its bytes
        self._o_st_len = 0
        self._o_seq_digits = 0
        self._o_phase = 0
        self._o_meet = 0
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
        """Snapshot role's view of match and plan its records; returns the record count. A
        player's records are written by write(i); an observer's are all in `obs` on return."""
        if role != OBSERVER and role != 1 and role != 2:
            raise ValueError("role must be 1, 2 or OBSERVER")
        if self._raw != match.cells:
            self._load_maze(match.cells)
        self._w = match.width
        self._h = match.height
        self._role = role
        self._whole = _NONE
        if role == OBSERVER:
            return self._observer_view(match)
        self._put_prefix(match, role)
        if self._player(match, role):
            return 1  # one record, written
        return self._planned()

    def record(self, i):
        """Write record i (0 <= i < count) and return a memoryview of exactly its bytes."""
        n = self.write(i)
        if self._role == OBSERVER:
            at = self.obs_at[i]
            return memoryview(self.obs)[at : at + n]
        return self.mv[:n]

    def write(self, i):
        """Write record i at `headroom` in self.store (an observer's is in `obs` already) and
        return its length (allocation-free)."""
        if i == self._whole and i < self.count:
            return self.length
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        if self._role == OBSERVER:
            self.length = self._o_len[i]
            return self.length
        at = self.headroom
        self.length = self._write_into(i, self.store, at) - at
        self._whole = i
        return self.length

    def _planned(self):
        # The envelope holds n, so its width depends on the count it helps to decide: plan
        # with one digit, and again if the count came out wider.
        digits = 1
        count = self._plan(digits)
        while ndigits(count) > digits:
            digits = ndigits(count)
            count = self._plan(digits)
        self.count = count
        return count

    def _write_into(self, i, out, at):
        """Write record i of the planned view at out[at:] and return the position after it
        (allocation-free). Up to SLACK bytes after the record may be written over (or the rest
        of out, when it has fewer): records are written in order, one after another."""
        if out is self.store and at == self.headroom:
            p = at + self._pre_len  # the envelope is in place
        else:
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
        if self._o_present:  # a new maze: the observer's objects are written again
            self._o_present[0] = 255
        self._o_valid = False
        self._t_phase = -1
        hexd = b"0123456789abcdef"
        out = self._hex
        for c in range(n):
            out[c] = hexd[cells[c] & 15]

    # ---- the envelope -----------------------------------------------------------------------

    def _put_prefix(self, match, role):
        # {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i": at headroom in store
        b = self.store
        at = self.headroom
        p = put(b, at, _ENV_V)
        p = put_int(b, p, match.state_seq)
        b[p : p + 6] = _ENV_R
        p = put(b, p + 6, _ROLES[role])
        phase = match.phase
        meet = match.meeting_seq
        if phase != self._t_phase or meet != self._t_meet or self._w != self._t_w:
            self._put_tail(phase, meet)
        b[p : p + _TAIL_MAX] = self._tail
        self._pre_len = p + self._tail_len - at

    def _put_tail(self, phase, meet):
        # ","ph":"P","w":W,"h":H,"m":M,"i":  (the same for every role until one of them changes)
        b = self._tail
        b[0:8] = _ENV_PH
        p = put(b, 8, _PHASES[phase])
        b[p : p + 6] = _ENV_W
        p = put_int(b, p + 6, self._w)
        b[p : p + 5] = _ENV_H
        p = put_int(b, p + 5, self._h)
        b[p : p + 5] = _ENV_M
        p = put_int(b, p + 5, meet)
        b[p : p + 5] = _ENV_I
        self._tail_len = p + 5
        self._t_phase = phase
        self._t_meet = meet
        self._t_w = self._w

    # ---- a player's view --------------------------------------------------------------------

    def _player(self, match, seat):
        """A player's view: written whole at headroom in store when it fits one record
        (returns 1), else its pieces made for the planner (returns 0)."""
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
        lo = y0 * w + x0
        hi = y1 * w + x1
        # Record 0 as it is when the view is one record: the status and the objects in place.
        b = self.store
        at = self.headroom
        p = at + self._pre_len
        b[p : p + 13] = _ENV_ONE
        st = p + 13
        p = self._player_status(b, st, match, seat, r, lo, hi, x0, x1)
        p = self._put_objects(b, p, match, lo, hi, x0, x1, self._p_obj_len)
        # The cells: [first,"digits"] for each row (one run for whole rows), a comma after
        # each, the member's opening around them. The digits of the rows' first cells: one
        # each, and one more for each that is at least 10, 100, 1000.
        rows = y1 - y0 + 1
        span = x1 - x0 + 1
        if x0 == 0 and x1 == w - 1:
            size = _OPEN_LEN + 6 + ndigits(lo) + hi + 1 - lo
        else:
            last = hi + 1 - span
            size = _OPEN_LEN + rows * (7 + span)
            if last >= 10:
                size += rows if lo >= 10 else rows - (9 - lo) // w - 1
                if last >= 100:
                    size += rows if lo >= 100 else rows - (99 - lo) // w - 1
                    if last >= 1000:
                        size += rows if lo >= 1000 else rows - (999 - lo) // w - 1
        if p + size < at + RECORD_MAX:  # with the closing brace: it fits
            if x0 == 0 and x1 == w - 1:
                self._run_start[0] = lo
                self._run_len[0] = hi + 1 - lo
                p = self._put_cells(b, p, 0, 0, 1, 0)
            else:
                p = self._put_rows(b, p, lo, w, rows, span)
            b[p] = 125  # '}'
            p += 1 - at
            self._c_len[0] = p
            self.length = p
            self.count = 1
            self._whole = 0
            return 1
        # More than one record: the status and objects as pieces, the rows as runs.
        self._st_len = self._player_status(self._st, 0, match, seat, r, lo, hi, x0, x1)
        self._objs = self._p_objs
        self._obj_len = self._p_obj_len
        self._objs_len = self._put_objects(self._p_objs, 0, match, lo, hi, x0, x1, self._obj_len)
        starts = self._run_start
        lens = self._run_len
        if x0 == 0 and x1 == w - 1:
            starts[0] = lo
            lens[0] = hi + 1 - lo
            rows = 1
        else:
            first = lo
            for run in range(rows):
                starts[run] = first
                lens[run] = span
                first += w
        self._nruns = rows
        return 0

    def _player_status(self, b, p, match, seat, r, lo, hi, x0, x1):
        # {seat,"res":"R","win":W(,"opponent":{"p":P,"k":K})}: only what the seat may see.
        p = self._put_seat(b, p, match, seat, r)
        b[p : p + 8] = _S_RES
        p = self._put_result(b, p + 8, match)
        # The opponent: while in the maze and in the square (the same test as visible()).
        other = 3 - seat
        there = match.pos[other]
        if not match.exited[other] and lo <= there <= hi and x0 <= there % self._w <= x1:
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
        return p + 1

    # ---- the observer's view ----------------------------------------------------------------

    def _observer_view(self, match):
        fresh = self._observer_objects(match)
        seq = match.state_seq
        if (
            self._o_valid
            and not fresh
            and match.phase == self._o_phase
            and match.meeting_seq == self._o_meet
            and ndigits(seq) == self._o_seq_digits
        ):
            # The same layout as the view in obs if the status keeps its length: write it in
            # place, then the state sequence into every record.
            ob = self.obs
            at = self._o_st
            if self._observer_status(ob, at, match) - at == self._o_st_len:
                count = self._o_count
                starts = self.obs_at
                for i in range(count):
                    put_int(ob, starts[i] + _ENV_V_LEN, seq)
                self.count = count
                return count
        # Every record again.
        self._put_prefix(match, OBSERVER)
        self._st_len = self._observer_status(self._st, 0, match)
        self._objs = self._o_objs
        self._obj_len = self._o_obj_len
        self._objs_len = self._o_objs_len
        self._nobj = self._o_nobj
        n = self._w * self._h
        self._run_start[0] = 0
        self._run_len[0] = n
        self._nruns = 1
        count = self._planned()
        gap = self._gap
        top = 0 if gap is None else gap(RECORD_MAX)
        need = count * (top + RECORD_MAX) + SLACK
        if self.obs is None or len(self.obs) < need:
            self.obs = None  # (let the old buffer go first)
            self.obs = bytearray(need)
        ob = self.obs
        p = 0
        for i in range(count):
            size = self._c_len[i]
            if gap is not None:
                p += gap(size)
            self.obs_at[i] = p
            self._o_len[i] = size
            p = self._write_into(i, ob, p)
        self.obs_end = p
        self._o_count = count
        self._o_st = self.obs_at[0] + self._pre_len + 12 + (1 if count < 10 else 2)
        self._o_st_len = self._st_len
        self._o_seq_digits = ndigits(seq)
        self._o_phase = match.phase
        self._o_meet = match.meeting_seq
        self._o_valid = True
        return count

    def _observer_status(self, b, p, match):
        # {"players":[seat 1,"xt":T},seat 2,"xt":T}],"res":"R","win":W} at p; returns its end
        b[p : p + 12] = _S_PLAYERS
        p = self._put_seat(b, p + 12, match, 1, match.radius(1))
        b[p : p + 6] = _S_XT
        p = put_int(b, p + 6, match.exit_time[1])
        b[p] = 125  # '}'
        b[p + 1] = 44  # ','
        p = self._put_seat(b, p + 2, match, 2, match.radius(2))
        b[p : p + 6] = _S_XT
        p = put_int(b, p + 6, match.exit_time[2])
        b[p : p + 10] = _S_RES_OBS
        p = self._put_result(b, p + 10, match)
        b[p] = 125
        return p + 1

    def _observer_objects(self, match):
        """Every object on the ground, written again only when one of them changed since the
        last observer view (returns True then)."""
        present = match.obj_present
        cells = match.obj_cell
        if self._o_present == present and self._o_cell == cells:
            return False
        n = self._w * self._h
        self._o_objs_len = self._put_objects(
            self._o_objs, 0, match, 0, n - 1, 0, self._w - 1, self._o_obj_len
        )
        self._o_nobj = self._nobj
        if self._o_present is None or len(self._o_present) != len(present):
            self._o_present = bytearray(len(present))
            self._o_cell = [0] * len(present)
        self._o_present[:] = present
        for slot in range(len(present)):
            self._o_cell[slot] = cells[slot]
        return True

    # ---- status and objects -----------------------------------------------------------------

    def _put_seat(self, b, p, match, seat, rad):
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
        b[p : p + 14] = _S_RAD_CP
        if rad < 10:
            b[p + 7] = 48 + rad
            p += 14
        else:
            p = put(b, put_int(b, p + 7, rad), _S_CP)
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
        # R","win":W  (after ..."res":")
        p = put(b, p, _RESULTS[match.result])
        v = match.winner
        b[p : p + 9] = _S_WIN
        if v < 10:
            b[p + 8] = 48 + v
            return p + 9
        return put_int(b, p + 8, v)

    def _put_objects(self, b, p, match, lo, hi, x0, x1, lens):
        """The objects on the ground inside the square (cells lo..hi, columns x0..x1) at p, in
        slot order: the member ,"o":[[kind,owner,variant,cell],..] (nothing when there are
        none), each object's bytes in lens. Sets _nobj; returns the position after the
        member."""
        present = match.obj_present
        cell_of = match.obj_cell
        w = self._w
        start = p
        p += _OPEN_LEN
        n = 0
        for slot in range(len(present)):
            if not present[slot]:
                continue
            cell = cell_of[slot]
            if cell < lo or cell > hi or not x0 <= cell % w <= x1:
                continue
            first = p
            kind = match.obj_kind[slot]
            owner = match.obj_owner[slot]
            variant = match.obj_variant[slot]
            if kind < 10 and owner < 10 and variant < 10:
                b[p : p + 7] = _O_3
                b[p + 1] = 48 + kind
                b[p + 3] = 48 + owner
                b[p + 5] = 48 + variant
                p += 7
            else:
                b[p] = 91  # '['
                p = put_int(b, p + 1, kind)
                b[p] = 44  # ','
                p = put_int(b, p + 1, owner)
                b[p] = 44
                p = put_int(b, p + 1, variant)
                b[p] = 44
                p += 1
            p = put_int(b, p, cell)
            b[p] = 93  # ']'
            b[p + 1] = 44  # ',' (the last one becomes the member's ']')
            lens[n] = p + 1 - first
            p += 2
            n += 1
        self._nobj = n
        if not n:
            return start
        b[start : start + 6] = _OBJS
        b[p - 1] = 93
        return p

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
            if o == 0 and used + self._objs_len <= RECORD_MAX:
                used += self._objs_len  # all of them (0 when there are none)
                o = nobj
                first = False
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

    def _put_rows(self, b, p, a, w, rows, span):
        """The cells member of a player's square: one run per row (of at most 13 cells, the
        first starting at cell a); returns the position after it."""
        blocks = self._blocks
        start = p
        p += 3  # the first run's opening is written as `"],[` over the member's `:[[`
        for _ in range(rows):
            if a >= 100:
                if a < 1000:
                    at = p + 9
                    b[at - (a & 7) : at - (a & 7) + _BLOCK] = blocks[a >> 3]
                    b[p : p + 9] = _RUN_3
                    b[p + 4] = 48 + a // 100
                    b[p + 5] = 48 + a // 10 % 10
                    b[p + 6] = 48 + a % 10
                else:
                    at = p + 10
                    b[at - (a & 7) : at - (a & 7) + _BLOCK] = blocks[a >> 3]
                    b[p : p + 10] = _RUN_4
                    put_int(b, p + 4, a)
            elif a >= 10:
                at = p + 8
                b[at - (a & 7) : at - (a & 7) + _BLOCK] = blocks[a >> 3]
                b[p : p + 8] = _RUN_2
                b[p + 4] = 48 + a // 10
                b[p + 5] = 48 + a % 10
            else:
                at = p + 7
                b[at - (a & 7) : at - (a & 7) + _BLOCK] = blocks[a >> 3]
                b[p : p + 7] = _RUN_1
                b[p + 4] = 48 + a
            p = at + span
            a += w
        b[start : start + 7] = _CELLS
        b[p] = 34  # '"'
        b[p + 1] = 93  # ']'
        b[p + 2] = 93
        return p + 3

    def _put_cells(self, b, p, run, off, run_end, off_end):
        """The cells member from cell `off` of run `run` to cell `off_end` of run `run_end`
        (exclusive); returns the position after its closing bracket."""
        blocks = self._blocks
        starts = self._run_start
        lens = self._run_len
        lead = 7  # len(_CELLS), then 4 for `"],[`
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
                b[p : p + 7] = _RUN_1
            put_int(b, p + lead, a)
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
