# The view projector: the only way game state leaves the board, so the place where hidden
# information stays hidden. A view is one role's projection of a Match (a player's square of
# radius 3, or 6 under the vision effect, or everything for an observer), streamed as a
# sequence of JSON records of at most 512 bytes into one preallocated buffer (docs/protocol.md).
#
#   proj = Projector()
#   count = proj.begin(match, role)      # role 1, 2 or OBSERVER: snapshot + plan, count >= 1
#   for i in range(count):
#       rec = proj.record(i)             # memoryview of record i, valid until the next call
#
# begin() copies every value the view shows into preallocated fields (the maze flags, which do
# not change during a match, are read in place) and computes the exact chunk count before any
# record is written, so the records of one view describe one state even if the match moves on
# while they are being sent. Field order is fixed by the code, never by a
# dict, so CPython and MicroPython produce the same bytes. begin() and write() allocate nothing;
# record() allocates only the memoryview it returns.
from game.compat import const
from game.jsonbuf import ndigits, put, put_hex, put_int
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

# Envelope: {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":I,"n":N
_ENV_V = b'{"v":%d,"t":"view","s":' % PROTOCOL_VERSION
_ENV_R = b',"r":"'
_ENV_PH = b'","ph":"'
_ENV_W = b'","w":'
_ENV_H = b',"h":'
_ENV_M = b',"m":'
_ENV_I = b',"i":'
_ENV_N = b',"n":'
# The names of game.rules as bytes, made once at import (the writers copy bytes).
_ROLE_NAMES = tuple(name.encode() for name in ROLE_NAMES)
_PHASE_NAMES = tuple(name.encode() for name in PHASE_NAMES)
_RESULT_NAMES = tuple(name.encode() for name in RESULT_NAMES)

# Payload members, in this order after the envelope: status (chunk 0 only), objects, cells.
_ST = b',"st":'
_OBJS = b',"o":['
_CELLS = b',"c":['
_OPEN_LEN = const(6)  # len(_OBJS) == len(_CELLS) == len(_ST)

# Status members. A seat: {"p":..,"k":..,"vm":..,"rad":..,"cp":..,"xo":..,"xd":..(,"xt":..)}.
_S_P = b'{"p":'
_S_K = b',"k":'
_S_VM = b',"vm":'
_S_RAD = b',"rad":'
_S_CP = b',"cp":'
_S_XO = b',"xo":'
_S_XD = b',"xd":'
_S_XT = b',"xt":'
_S_RES = b',"res":"'
_S_RES_OBS = b'],"res":"'
_S_WIN = b'","win":'
_S_OPP = b',"opponent":'
_S_PLAYERS = b'{"players":['

# Status snapshot layout (self._st): two seat blocks of 8, then the public result.
_P = const(0)  # position (cell index)
_K = const(1)  # carried key owner, 0 = none
_VM = const(2)  # vision moves left
_RAD = const(3)  # projection radius
_CP = const(4)  # compass bearing 0..7, -1 = none
_XO = const(5)  # exit open 0/1
_XD = const(6)  # exited 0/1
_XT = const(7)  # exit timestamp, -1 = none
_SEAT2 = const(8)  # block of seat 2 (observer) or of the opponent (player)
_RES = const(16)
_WIN = const(17)
_OPVIS = const(18)  # player view: opponent visible 0/1
_ST_LEN = const(19)


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


class Projector:
    """One preallocated 512-byte record buffer and the plan of the current view."""

    def __init__(self):
        self.buf = bytearray(RECORD_MAX)
        self.mv = memoryview(self.buf)
        self.count = 0  # records of the current view
        self.length = 0  # bytes of the record last written
        self._cells = None  # the match's maze flags (constant during a match)
        self._w = 0
        self._h = 0
        self._role = 0
        self._seq = 0
        self._phase = 0
        self._meet = 0
        self._st = [0] * _ST_LEN
        self._st_len = 0
        self._prefix = 0  # bytes of the envelope up to "i": (kept at the buffer's start)
        self._env_len = 0  # envelope bytes without the digits of i and n
        self._st_pos = 0  # where chunk 0's status starts when n has one digit
        self._st_ready = False  # the status bytes are in place at _st_pos
        self._run_start = [0] * _MAX_RUNS
        self._run_len = [0] * _MAX_RUNS
        self._nruns = 0
        self._obj_kind = bytearray(_MAX_OBJECTS)
        self._obj_owner = bytearray(_MAX_OBJECTS)
        self._obj_variant = bytearray(_MAX_OBJECTS)
        self._obj_cell = [0] * _MAX_OBJECTS
        self._nobj = 0
        # Where each chunk starts: object index, run index, offset in that run; entry count is
        # where the view ends.
        self._c_obj = [0] * (MAX_CHUNKS + 1)
        self._c_run = [0] * (MAX_CHUNKS + 1)
        self._c_off = [0] * (MAX_CHUNKS + 1)

    # ---- the gateway's API ----------------------------------------------------------------

    def visible(self, match, seat, cell):
        return visible(match, seat, cell)

    def opponent_visible(self, match, seat):
        return opponent_visible(match, seat)

    def begin(self, match, role):
        """Snapshot role's view of match and plan its records; returns the record count."""
        if role != OBSERVER and role != 1 and role != 2:
            raise ValueError("role must be 1, 2 or OBSERVER")
        self._role = role
        self._cells = match.cells
        self._w = match.width
        self._h = match.height
        self._seq = match.state_seq
        self._phase = match.phase
        self._meet = match.meeting_seq
        if role == OBSERVER:
            self._snap_observer(match)
        else:
            self._snap_player(match, role)
        # The envelope up to "i": is the same in every record of the view: it is written once
        # here and stays at the start of the buffer; write() fills in from i onward.
        buf = self.buf
        prefix = self._put_prefix(buf)
        self._prefix = prefix
        self._env_len = prefix + len(_ENV_N)  # + the digits of i and n
        # The status is measured by writing it where chunk 0 has it when n has one digit; while
        # it stays there untouched, write(0) does not write it again.
        st_pos = prefix + 1 + len(_ENV_N) + 1 + _OPEN_LEN
        self._st_pos = st_pos
        self._st_len = self._put_status(buf, st_pos) - st_pos
        # The envelope holds n, so its width depends on the count it helps to decide: plan with
        # one digit, and again with more if the count came out wider.
        digits = 1
        count = self._plan(digits)
        while ndigits(count) > digits:
            digits = ndigits(count)
            count = self._plan(digits)
        self._st_ready = digits == 1
        self.count = count
        return count

    def record(self, i):
        """Write record i (0 <= i < count) and return a memoryview of exactly its bytes."""
        return self.mv[: self.write(i)]

    def write(self, i):
        """Write record i into self.buf and return its length (allocation-free)."""
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        buf = self.buf
        pos = put_int(buf, self._prefix, i)
        pos = put(buf, pos, _ENV_N)
        pos = put_int(buf, pos, self.count)
        if i == 0:
            pos = put(buf, pos, _ST)
            if self._st_ready and pos == self._st_pos:
                pos += self._st_len  # still in place from begin() or the last write(0)
            else:
                pos = self._put_status(buf, pos)
        o = self._c_obj[i]
        o_end = self._c_obj[i + 1]
        if o < o_end:
            pos = put(buf, pos, _OBJS)
            while o < o_end:
                pos = self._put_object(buf, pos, o)
                o += 1
                if o < o_end:
                    buf[pos] = 44  # ','
                    pos += 1
            buf[pos] = 93  # ']'
            pos += 1
        run = self._c_run[i]
        off = self._c_off[i]
        run_end = self._c_run[i + 1]
        off_end = self._c_off[i + 1]
        if run < run_end or (run == run_end and off < off_end):
            pos = put(buf, pos, _CELLS)
            cells = self._cells
            while True:
                stop = self._run_len[run] if run < run_end else off_end
                first = self._run_start[run] + off
                buf[pos] = 91  # '['
                pos = put_int(buf, pos + 1, first)
                buf[pos] = 44  # ','
                buf[pos + 1] = 34  # '"'
                pos = put_hex(buf, pos + 2, cells, first, stop - off)
                buf[pos] = 34
                buf[pos + 1] = 93  # ']'
                pos += 2
                run += 1
                off = 0
                if run > run_end or (run == run_end and off_end == 0):
                    break
                buf[pos] = 44
                pos += 1
            buf[pos] = 93
            pos += 1
        buf[pos] = 125  # '}'
        pos += 1
        self._st_ready = i == 0
        self.length = pos
        return pos

    # ---- snapshot ---------------------------------------------------------------------------

    def _snap_seat(self, match, seat, base, st):
        st[base + _P] = match.pos[seat]
        st[base + _K] = match.inventory[seat]
        st[base + _VM] = match.vision[seat]
        st[base + _RAD] = match.radius(seat)
        hint = match.compass[seat]
        st[base + _CP] = -1 if hint == NO_BEARING else hint
        st[base + _XO] = match.exit_open[seat]
        st[base + _XD] = match.exited[seat]
        st[base + _XT] = match.exit_time[seat]

    def _snap_observer(self, match):
        st = self._st
        self._snap_seat(match, 1, 0, st)
        self._snap_seat(match, 2, _SEAT2, st)
        st[_RES] = match.result
        st[_WIN] = match.winner
        st[_OPVIS] = 0
        w = self._w
        self._run_start[0] = 0
        self._run_len[0] = w * self._h
        self._nruns = 1
        n = 0
        for slot in range(len(match.obj_kind)):
            if match.obj_present[slot]:
                n = self._take_object(match, slot, n)
        self._nobj = n

    def _snap_player(self, match, seat):
        # Only what the seat may see is copied: nothing hidden even reaches the buffer's planner.
        st = self._st
        for k in range(_ST_LEN):
            st[k] = 0
        self._snap_seat(match, seat, 0, st)
        st[_XT] = 0  # a player's own exit time is not part of its status
        st[_RES] = match.result
        st[_WIN] = match.winner
        other = 3 - seat
        if opponent_visible(match, seat):
            st[_OPVIS] = 1
            st[_SEAT2 + _P] = match.pos[other]
            st[_SEAT2 + _K] = match.inventory[other]
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
        if x0 == 0 and x1 == w - 1:
            # The square spans whole rows: they are consecutive indices, one run.
            self._run_start[0] = y0 * w
            self._run_len[0] = (y1 - y0 + 1) * w
            self._nruns = 1
        else:
            span = x1 - x0 + 1
            for y in range(y0, y1 + 1):
                self._run_start[y - y0] = y * w + x0
                self._run_len[y - y0] = span
            self._nruns = y1 - y0 + 1
        n = 0
        for slot in range(len(match.obj_kind)):
            if match.obj_present[slot]:
                cell = match.obj_cell[slot]
                dx = cell % w - hx
                dy = cell // w - hy
                if -r <= dx <= r and -r <= dy <= r:
                    n = self._take_object(match, slot, n)
        self._nobj = n

    def _take_object(self, match, slot, n):
        self._obj_kind[n] = match.obj_kind[slot]
        self._obj_owner[n] = match.obj_owner[slot]
        self._obj_variant[n] = match.obj_variant[slot]
        self._obj_cell[n] = match.obj_cell[slot]
        return n + 1

    # ---- planning ---------------------------------------------------------------------------

    def _object_len(self, o):
        # [kind,owner,variant,cell]
        return (
            5
            + ndigits(self._obj_kind[o])
            + ndigits(self._obj_owner[o])
            + ndigits(self._obj_variant[o])
            + ndigits(self._obj_cell[o])
        )

    def _plan(self, n_digits):
        """Pack status, objects and cell runs greedily into records; returns the count."""
        nobj = self._nobj
        nruns = self._nruns
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
            used = self._env_len + ndigits(chunk) + n_digits + 1  # + the closing brace
            if chunk == 0:
                used += _OPEN_LEN + self._st_len
            first = True
            while o < nobj:
                size = self._object_len(o) + (_OPEN_LEN + 1 if first else 1)
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
            chunk += 1
            if o >= nobj and run >= nruns:
                break
        self._c_obj[chunk] = o
        self._c_run[chunk] = run
        self._c_off[chunk] = off
        return chunk

    # ---- writing ----------------------------------------------------------------------------

    def _put_prefix(self, buf):
        # {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":
        pos = put(buf, 0, _ENV_V)
        pos = put_int(buf, pos, self._seq)
        pos = put(buf, pos, _ENV_R)
        pos = put(buf, pos, _ROLE_NAMES[self._role])
        pos = put(buf, pos, _ENV_PH)
        pos = put(buf, pos, _PHASE_NAMES[self._phase])
        pos = put(buf, pos, _ENV_W)
        pos = put_int(buf, pos, self._w)
        pos = put(buf, pos, _ENV_H)
        pos = put_int(buf, pos, self._h)
        pos = put(buf, pos, _ENV_M)
        pos = put_int(buf, pos, self._meet)
        return put(buf, pos, _ENV_I)

    def _put_seat(self, buf, pos, base, with_time):
        st = self._st
        pos = put(buf, pos, _S_P)
        pos = put_int(buf, pos, st[base + _P])
        pos = put(buf, pos, _S_K)
        pos = put_int(buf, pos, st[base + _K])
        pos = put(buf, pos, _S_VM)
        pos = put_int(buf, pos, st[base + _VM])
        pos = put(buf, pos, _S_RAD)
        pos = put_int(buf, pos, st[base + _RAD])
        pos = put(buf, pos, _S_CP)
        pos = put_int(buf, pos, st[base + _CP])
        pos = put(buf, pos, _S_XO)
        pos = put_int(buf, pos, st[base + _XO])
        pos = put(buf, pos, _S_XD)
        pos = put_int(buf, pos, st[base + _XD])
        if with_time:
            pos = put(buf, pos, _S_XT)
            pos = put_int(buf, pos, st[base + _XT])
            buf[pos] = 125  # '}'
            pos += 1
        return pos

    def _put_result(self, buf, pos, lead):
        st = self._st
        pos = put(buf, pos, lead)
        pos = put(buf, pos, _RESULT_NAMES[st[_RES]])
        pos = put(buf, pos, _S_WIN)
        return put_int(buf, pos, st[_WIN])

    def _put_status(self, buf, pos):
        st = self._st
        if self._role == OBSERVER:
            pos = put(buf, pos, _S_PLAYERS)
            pos = self._put_seat(buf, pos, 0, True)
            buf[pos] = 44  # ','
            pos = self._put_seat(buf, pos + 1, _SEAT2, True)
            pos = self._put_result(buf, pos, _S_RES_OBS)
        else:
            pos = self._put_seat(buf, pos, 0, False)
            pos = self._put_result(buf, pos, _S_RES)
            if st[_OPVIS]:
                pos = put(buf, pos, _S_OPP)
                pos = put(buf, pos, _S_P)
                pos = put_int(buf, pos, st[_SEAT2 + _P])
                pos = put(buf, pos, _S_K)
                pos = put_int(buf, pos, st[_SEAT2 + _K])
                buf[pos] = 125
                pos += 1
        buf[pos] = 125  # '}'
        return pos + 1

    def _put_object(self, buf, pos, o):
        buf[pos] = 91  # '['
        pos = put_int(buf, pos + 1, self._obj_kind[o])
        buf[pos] = 44
        pos = put_int(buf, pos + 1, self._obj_owner[o])
        buf[pos] = 44
        pos = put_int(buf, pos + 1, self._obj_variant[o])
        buf[pos] = 44
        pos = put_int(buf, pos + 1, self._obj_cell[o])
        buf[pos] = 93  # ']'
        return pos + 1
