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
# The names of game.rules as bytes, made once at import (the writers copy bytes).
_ROLES = tuple(name.encode() for name in ROLE_NAMES)
_PHASES = tuple(name.encode() for name in PHASE_NAMES)
_RESULTS = tuple(name.encode() for name in RESULT_NAMES)

# Payload members, in this order after the envelope: status (chunk 0 only), objects, cells.
_ST = const(b',"st":')
_OBJS = const(b',"o":[')
_CELLS = const(b',"c":[[')  # the member and its first run's opening
_OPEN_LEN = const(6)  # len(_OBJS) == len(_ST) == len(_CELLS) - 1
_RUN = const(b'"],[0,"')  # a run's opening after the run before it
_OBJ = const(b"[0,0,0,")  # an object's kind, owner and variant, poked in

# Status members. A seat: {"p":..,"k":..,"vm":..,"rad":..,"cp":..,"xo":..,"xd":..(,"xt":..)};
# a 0 stands for a one-digit value poked in.
_S_P = const(b'{"p":')
_S_K_VM = const(b',"k":0,"vm":')
_S_RAD_CP = const(b',"rad":0,"cp":')
_S_XO_XD = const(b',"xo":0,"xd":0')
_S_XT = const(b',"xt":')
_S_RES = const(b',"res":"')
_S_RES_OBS = const(b'}],"res":"')
_S_WIN = const(b'","win":')
_S_OPP = const(b',"opponent":{"p":')
_S_K = const(b',"k":')
_S_PLAYERS = const(b'{"players":[')


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
    """out[p : p + n] = src[:n], and returns p + n: the whole of src when out has room for it
    (what follows the n bytes is written over later), else byte by byte."""
    if p + len(src) <= len(out):
        out[p : p + len(src)] = src
    else:
        for j in range(n):
            out[p + j] = src[j]
    return p + n


class Projector:
    """The text pieces and the plan of the current view, the maze's hex digits, a buffer for a
    player's record (`store`) and one for the observer's records (`obs`).

    A player's record is written at `headroom` bytes into `store` (`buf` is a view of its
    RECORD_MAX bytes): a caller may put bytes of its own in front of it, a frame header, and
    send both with one write. The observer's records are written one after another into `obs`,
    record i at obs_at[i], each after gap(its length) free bytes (gap: a function given to the
    constructor, for the same purpose)."""

    def __init__(self, headroom=0, gap=None):
        self.headroom = headroom
        self.store = bytearray(headroom + RECORD_MAX + SLACK)
        self.buf = memoryview(self.store)[headroom : headroom + RECORD_MAX]
        self.count = 0  # records of the current view
        self.length = 0  # bytes of the record last written
        self._role = 0
        self._whole = _NONE  # the record of the current view that is complete in store
        # The maze: a copy of the flags its hex digits were made from, the digits (+ _BLOCK
        # bytes of padding), views of _BLOCK digits from every 8th cell.
        self._raw = None
        self._hex = None
        self._blocks = None
        self._w = 0
        self._h = 0
        # The envelope up to "i": written in store at headroom, where it stays for every record
        # of the view (_pre is a view of it for other buffers), its part after the role kept
        # in _tail with what it was made of (phase, meetings, width).
        self._pre = memoryview(self.store)[headroom : headroom + _PRE_MAX]
        self._pre_len = 0
        self._tail = bytearray(_TAIL_MAX)
        self._tail_len = 0
        self._tail_of = [-1, 0, 0]
        # The status object; the objects member (,"o":[[..],..]) and each object's bytes: a
        # player's (written for each view) or the observer's (only when an object changed).
        self._st = bytearray(_ST_MAX)
        self._st_len = 0
        self._objs = None
        self._obj_len = None
        self._objs_len = 0
        self._nobj = 0
        self._p_objs = bytearray(_OBJ_MAX)
        self._p_obj_len = bytearray(_MAX_OBJECTS)
        self._o_objs = bytearray(_OBJ_MAX)
        self._o_obj_len = bytearray(_MAX_OBJECTS)
        self._o_of = None  # the match's obj_present and obj_cell the observer's were made of
        self._o_cells = None
        self._o_size = [0, 0]  # the observer's objects_len and object count
        # The cells: runs of consecutive cells, run r from cell first + r * step, rlen cells
        # each (a player's rows; one run for whole rows or the whole maze).
        self._runs = [0, 0, 0, 0]  # first, step, rlen, count
        # The observer's records in obs, and what they show: kept from one observer view to
        # the next and updated in place when only the state sequence and the status changed
        # (the status keeping its length): [valid, count, where the status starts, its
        # bytes, digits of the state sequence, phase, meetings].
        self._gap = gap
        self.obs = None
        self.obs_at = [0] * MAX_CHUNKS  # where each record starts in obs
        self.obs_end = 0  # where the last one ends
        self._o_len = [0] * MAX_CHUNKS  # the bytes of each
        self._obs_of = [0, 0, 0, 0, 0, 0, 0]
        # Where each chunk starts: run index, offset in that run; its bytes. Entry count is
        # where the view ends. (The status and the objects are in chunk 0.)
        self._c_run = bytearray(MAX_CHUNKS + 1)
        self._c_off = [0] * (MAX_CHUNKS + 1)
        self._c_len = [0] * (MAX_CHUNKS + 1)

    # ---- the gateway's API ----------------------------------------------------------------

    def visible(self, match, seat, cell):
        return visible(match, seat, cell)

    def opponent_visible(self, match, seat):
        return opponent_visible(match, seat)

    def begin(self, match, role):
        """Snapshot role's view of match and plan its records; returns the record count. The
        observer's records are in obs on return; a player's are written by write(i) (one
        record: by begin() already)."""
        if role != OBSERVER and role != 1 and role != 2:
            raise ValueError("role must be 1, 2 or OBSERVER")
        if self._raw != match.cells:
            self._load_maze(match.cells)
        self._w = match.width
        self._h = match.height
        self._role = role
        self._whole = _NONE
        if role == OBSERVER:
            return self._observer(match)
        return self._player(match, role)

    def record(self, i):
        """Write record i (0 <= i < count) and return a memoryview of exactly its bytes."""
        n = self.write(i)
        if self._role == OBSERVER:
            return memoryview(self.obs)[self.obs_at[i] : self.obs_at[i] + n]
        return self.buf[:n]

    def write(self, i):
        """Write record i at `headroom` in store (the observer's: in obs already) and return its
        length (allocation-free)."""
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        if i != self._whole:
            if self._role == OBSERVER:
                self.length = self._o_len[i]
                return self.length
            at = self.headroom
            self.length = self._write(i, self.store, at) - at
            self._whole = i
        return self.length

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
        self._tail_of[0] = -1
        self._obs_of[0] = 0
        if self._o_of:  # the observer's objects are written again
            self._o_of[0] = 255
        hexd = b"0123456789abcdef"
        out = self._hex
        for c in range(n):
            out[c] = hexd[cells[c] & 15]

    # ---- the pieces -------------------------------------------------------------------------

    def _put_prefix(self, match, role):
        # {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i": at headroom in store
        b = self.store
        at = self.headroom
        p = put(b, at, _ENV_V)
        p = put_int(b, p, match.state_seq)
        b[p : p + 6] = _ENV_R
        p = put(b, p + 6, _ROLES[role])
        t = self._tail
        of = self._tail_of
        phase = match.phase
        meet = match.meeting_seq
        if phase != of[0] or meet != of[1] or self._w != of[2]:
            # ","ph":"P","w":W,"h":H,"m":M,"i":
            t[0:8] = _ENV_PH
            q = put(t, 8, _PHASES[phase])
            t[q : q + 6] = _ENV_W
            q = put_int(t, q + 6, self._w)
            t[q : q + 5] = _ENV_H
            q = put_int(t, q + 5, self._h)
            t[q : q + 5] = _ENV_M
            q = put_int(t, q + 5, meet)
            t[q : q + 5] = _ENV_I
            self._tail_len = q + 5
            of[0] = phase
            of[1] = meet
            of[2] = self._w
        b[p : p + _TAIL_MAX] = t
        self._pre_len = p + self._tail_len - at

    def _put_seat(self, b, p, match, seat, rad):
        # {"p":P,"k":K,"vm":VM,"rad":R,"cp":CP,"xo":XO,"xd":XD at p; returns its end. K, R,
        # XO and XD have one digit (in the rules' ranges), poked into the members around them.
        k = match.inventory[seat]
        xo = match.exit_open[seat]
        xd = match.exited[seat]
        if k > 9 or rad > 9 or xo > 9 or xd > 9:
            raise ValueError("status value out of range")
        b[p : p + 5] = _S_P
        p = put_int(b, p + 5, match.pos[seat])
        b[p : p + 12] = _S_K_VM
        b[p + 5] = 48 + k
        v = match.vision[seat]
        if v < 10:
            b[p + 12] = 48 + v
            p += 13
        else:
            p = put_int(b, p + 12, v)
        b[p : p + 14] = _S_RAD_CP
        b[p + 7] = 48 + rad
        v = match.compass[seat]
        if v < 10:
            b[p + 14] = 48 + v
            p += 15
        else:
            p = put_int(b, p + 14, -1 if v == NO_BEARING else v)
        b[p : p + 14] = _S_XO_XD
        b[p + 6] = 48 + xo
        b[p + 13] = 48 + xd
        return p + 14

    def _put_result(self, b, p, match):
        # R","win":W  (after ..."res":"); returns its end
        p = put(b, p, _RESULTS[match.result])
        b[p : p + 8] = _S_WIN
        return put_int(b, p + 8, match.winner)

    def _put_objects(self, match, b, lens, lo, hi, x0, x1):
        """The objects on the ground in the square (cells lo..hi, columns x0..x1), in slot
        order, as the member ,"o":[[kind,owner,variant,cell],..] in b (nothing when there are
        none) and each object's bytes in lens; sets _objs_len and _nobj."""
        present = match.obj_present
        cell_of = match.obj_cell
        w = self._w
        p = _OPEN_LEN
        n = 0
        for slot in range(len(present)):
            if not present[slot]:
                continue
            cell = cell_of[slot]
            if cell < lo or cell > hi or not x0 <= cell % w <= x1:
                continue
            kind = match.obj_kind[slot]
            owner = match.obj_owner[slot]
            variant = match.obj_variant[slot]
            if kind > 9 or owner > 9 or variant > 9:
                raise ValueError("object value out of range")
            first = p
            b[p : p + 7] = _OBJ
            b[p + 1] = 48 + kind
            b[p + 3] = 48 + owner
            b[p + 5] = 48 + variant
            p = put_int(b, p + 7, cell)
            b[p] = 93  # ']'
            b[p + 1] = 44  # ',' (the last one becomes the member's ']')
            lens[n] = p + 1 - first
            p += 2
            n += 1
        self._nobj = n
        self._objs_len = 0
        if n:
            b[0:6] = _OBJS
            b[p - 1] = 93
            self._objs_len = p

    # ---- a player's view --------------------------------------------------------------------

    def _player(self, match, seat):
        # Only what the seat may see is written: nothing hidden even reaches a buffer.
        self._put_prefix(match, seat)
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
        # {seat,"res":"R","win":W(,"opponent":{"p":P,"k":K})}
        b = self._st
        p = self._put_seat(b, 0, match, seat, r)
        b[p : p + 8] = _S_RES
        p = self._put_result(b, p + 8, match)
        # The opponent: while in the maze and in the square (the same test as visible()).
        other = 3 - seat
        there = match.pos[other]
        if not match.exited[other] and lo <= there <= hi and x0 <= there % w <= x1:
            b[p : p + 17] = _S_OPP
            p = put_int(b, p + 17, there)
            b[p : p + 5] = _S_K
            p = put_int(b, p + 5, match.inventory[other])
            b[p] = 125  # '}'
            p += 1
        b[p] = 125
        self._st_len = p + 1
        self._objs = self._p_objs
        self._obj_len = self._p_obj_len
        self._put_objects(match, self._p_objs, self._p_obj_len, lo, hi, x0, x1)
        # The cells: a run per row, or one for whole rows. Each run is [first,"digits"] and a
        # comma, the member's opening around them; the digits of the first cells: one each,
        # and one more for each that is at least 10, 100, 1000.
        runs = self._runs
        runs[0] = lo
        runs[1] = w
        if x0 == 0 and x1 == w - 1:
            runs[2] = hi + 1 - lo
            runs[3] = 1
            size = _OPEN_LEN + 6 + ndigits(lo) + hi + 1 - lo
        else:
            rows = y1 - y0 + 1
            span = x1 - x0 + 1
            runs[2] = span
            runs[3] = rows
            size = _OPEN_LEN + rows * (7 + span)
            last = hi + 1 - span
            for top in (10, 100, 1000):
                if last >= top:
                    size += rows if lo >= top else rows - (top - 1 - lo) // w - 1
        # The whole view in one record (i and n of one digit, the closing brace)?
        size += self._pre_len + 14 + self._st_len + self._objs_len
        if size > RECORD_MAX:
            return self._planned()
        self._c_run[1] = runs[3]
        self._c_off[1] = 0
        self._c_len[0] = size
        self.count = 1
        self.length = size
        self._whole = 0
        self._write(0, self.store, self.headroom)
        return 1

    # ---- the observer's view ----------------------------------------------------------------

    def _observer(self, match):
        # Every object on the ground: written again only when one of them changed.
        present = match.obj_present
        cells = match.obj_cell
        n = self._w * self._h
        fresh = self._o_of != present or self._o_cells != cells
        if fresh:
            self._put_objects(match, self._o_objs, self._o_obj_len, 0, n - 1, 0, self._w - 1)
            self._o_size[0] = self._objs_len
            self._o_size[1] = self._nobj
            if self._o_of is None or len(self._o_of) != len(present):
                self._o_of = bytearray(len(present))
                self._o_cells = [0] * len(present)
            self._o_of[:] = present
            for slot in range(len(present)):
                self._o_cells[slot] = cells[slot]
        # The records in obs show the same layout if only the state sequence (with as many
        # digits) and the status (as long) changed: both are written in place.
        of = self._obs_of
        seq = match.state_seq
        if (
            of[0]
            and not fresh
            and of[4] == ndigits(seq)
            and of[5] == match.phase
            and of[6] == match.meeting_seq
        ):
            at = of[2]
            if self._observer_status(self.obs, at, match) - at == of[3]:
                count = of[1]
                for i in range(count):
                    put_int(self.obs, self.obs_at[i] + _ENV_V_LEN, seq)
                self.count = count
                return count
        # Every record again.
        self._put_prefix(match, OBSERVER)
        self._st_len = self._observer_status(self._st, 0, match)
        self._objs = self._o_objs
        self._obj_len = self._o_obj_len
        self._objs_len = self._o_size[0]
        self._nobj = self._o_size[1]
        runs = self._runs
        runs[0] = 0
        runs[2] = n
        runs[3] = 1
        count = self._planned()
        gap = self._gap
        need = count * (RECORD_MAX + (gap(RECORD_MAX) if gap else 0)) + SLACK
        if self.obs is None or len(self.obs) < need:
            self.obs = None  # (let the old buffer go first)
            self.obs = bytearray(need)
        p = 0
        for i in range(count):
            if gap:
                p += gap(self._c_len[i])
            self.obs_at[i] = p
            self._o_len[i] = self._c_len[i]
            p = self._write(i, self.obs, p)
        self.obs_end = p
        of[0] = 1
        of[1] = count
        of[2] = self.obs_at[0] + self._pre_len + 12 + ndigits(count)  # i, n, ,"st":
        of[3] = self._st_len
        of[4] = ndigits(seq)
        of[5] = match.phase
        of[6] = match.meeting_seq
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

    # ---- planning ---------------------------------------------------------------------------

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

    def _plan(self, n_digits):
        """Pack status, objects and cell runs greedily into records; returns the count."""
        first_cell, step, rlen, nruns = self._runs
        env_len = self._pre_len + 5 + n_digits + 1  # + `,"n":`, n and the closing brace
        run = 0
        off = 0
        chunk = 0
        while True:
            if chunk >= MAX_CHUNKS:
                raise ValueError("view needs more than MAX_CHUNKS records")
            self._c_run[chunk] = run
            self._c_off[chunk] = off
            used = env_len + (1 if chunk < 10 else 2)
            if chunk == 0:
                # The status and all objects: always room for them (numbers below 2**31).
                used += _OPEN_LEN + self._st_len + self._objs_len
                if used + 13 > RECORD_MAX:
                    raise ValueError("view too large")
            first = True
            while run < nruns:
                left = rlen - off
                # [first,"hex..."] plus the member's opening and closing, or a comma.
                over = ndigits(first_cell + run * step + off) + (12 if first else 6)
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
            if run >= nruns:
                break
        self._c_run[chunk] = run
        self._c_off[chunk] = off
        return chunk

    # ---- writing records --------------------------------------------------------------------

    def _write(self, i, out, at):
        """Write record i of the planned view at out[at:] and return the position after it
        (allocation-free). Up to SLACK bytes after the record may be written over (or the rest
        of out, when it has fewer): records are written in order, one after another."""
        if out is self.store and at == self.headroom:
            p = at + self._pre_len  # the envelope is in place
        else:
            p = _copy(out, at, self._pre, self._pre_len)
        p = put_int(out, p, i)
        out[p : p + 5] = _ENV_N
        p = put_int(out, p + 5, self.count)
        if i == 0:
            out[p : p + 6] = _ST
            p = _copy(out, p + 6, self._st, self._st_len)
        if i == 0 and self._nobj:
            p = _copy(out, p, self._objs, self._objs_len)  # all of them, in record 0
        run = self._c_run[i]
        off = self._c_off[i]
        run_end = self._c_run[i + 1]
        off_end = self._c_off[i + 1]
        if run < run_end or (run == run_end and off < off_end):
            p = self._put_cells(out, p, run, off, run_end, off_end)
        out[p] = 125  # '}'
        return p + 1

    def _put_cells(self, b, p, run, off, run_end, off_end):
        """The cells member from cell `off` of run `run` to cell `off_end` of run `run_end`
        (exclusive); returns the position after its closing bracket."""
        blocks = self._blocks
        first, step, rlen, _ = self._runs
        start = p
        p += 3  # each run opens with `"],[` (the first one's is turned into `,"c":[[`)
        a = first + run * step + off
        while True:
            n = (rlen if run < run_end else off_end) - off
            at = p + (7 if a < 10 else 8 if a < 100 else 9 if a < 1000 else 6 + ndigits(a))
            # The digits first, block by block from the one holding cell a; the first copy
            # starts up to 7 bytes early, over the run's opening, which is written next.
            d = at - (a & 7)
            b[d : d + _BLOCK] = blocks[a >> 3]
            end = at + n
            if d + _BLOCK < end:  # a long run: the next blocks
                k = (a >> 3) + (_BLOCK >> 3)
                d += _BLOCK
                while d < end:
                    b[d : d + _BLOCK] = blocks[k]
                    d += _BLOCK
                    k += _BLOCK >> 3
            b[p : p + 7] = _RUN
            if a < 10:
                b[p + 4] = 48 + a
            elif a < 100:
                b[p + 4] = 48 + a // 10
                b[p + 5] = 48 + a % 10
            else:
                put_int(b, p + 4, a)
            b[at - 2] = 44  # ','
            b[at - 1] = 34  # '"'
            p = end
            run += 1
            if run > run_end or (run == run_end and off_end == 0):
                break
            off = 0
            a = first + run * step
        b[start : start + 7] = _CELLS
        b[p] = 34  # '"'
        b[p + 1] = 93  # ']'
        b[p + 2] = 93
        return p + 3
