# The view projector: the only way game state leaves the board, so the place where hidden
# information stays hidden. A view is one role's projection of a Match (a player's square of
# radius 3, or 6 under the vision effect, in classic; under line of sight only the cells of the
# square in sight, the others sent as 0; or everything for an observer), streamed as a
# sequence of JSON records of at most 512 bytes (docs/protocol.md).
#
#   proj = Projector()                   # Projector(headroom, gap): room for frame headers
#   count = proj.begin(match, role)      # role 1, 2 or OBSERVER: every record written
#   for i in range(count):
#       rec = proj.record(i)             # memoryview of record i (of proj.out, at proj.at[i])
#
# begin() writes every record of the view before it returns, so the records of one view
# describe one state even if the match moves on while they are being sent. Field order is
# fixed by the code, never by a dict, so CPython and MicroPython produce the same bytes.
# begin() and write() allocate nothing but the buffers made once (the maze tables, for each
# maze size; the observers' buffer, when it must grow); record() allocates the memoryview.
#
# Where the records go: a view of one record (every player view at radius 3) into `store`, at
# `headroom` bytes, with room before it for a frame header; a longer view (the observer's,
# a radius-6 view that does not fit) into `obs`, one record after another, each after
# gap(its length) bytes for its header. The observer's records stay in obs from one
# observer view to the next: when only the state sequence and the status changed and the
# status kept its length, begin() writes just those two in place.
#
# Speed (docs/performance.md). The maze's passage flags do not change during a match: their
# hex digits are encoded once per maze (`_hex`, again only when the flags differ from the copy
# in `_cut`) and copied into records run by run; the rest of a record is templates with the
# numbers poked in. A view that shows what the role's last one showed but its state sequence
# and status (the other player moved) is written in place; a seat's members in a status are
# written again only where they changed (a moved player: its position's digits); a player who
# moved keeps its record's envelope (written again from the status on). The byte-by-byte
# parts (a seat's members, the objects, the cell runs) are written by machine code
# (game.writers: MicroPython's viper emitter); this plans them and writes the rest.
from game.compat import const
from game.jsonbuf import ndigits, put, put_int
from game.rules import PROTOCOL_VERSION, RECORD_MAX  # noqa: F401 (PROTOCOL_VERSION re-exported)

# The writers' machine code, else the same functions as plain Python (byte-identical records):
# an .mpy of another architecture (ValueError), no executable RAM (MemoryError), a firmware
# without the native emitter (SyntaxError, ImportError) must not stop the board. WRITERS says
# which run, and why not the machine code (the board logs it at boot and /status shows it).
try:
    from game.writers import KIND as WRITERS
    from game.writers import write_objects, write_runs, write_seat
except Exception as err:  # whatever stops the machine code: never a brick
    from game.pywriters import write_objects, write_runs, write_seat

    WRITERS = "python (%s: %s)" % (type(err).__name__, err)

OBSERVER = const(0)  # the observer role; seats are 1 and 2
MAX_CHUNKS = const(9)  # records per view (one digit); a 32x32 observer view needs 4

_SLACK = const(16)  # bytes obs has past its records (the copies of record 0's envelope are
# made whole from a view longer than the envelope: what follows it is written over, or lies
# past the last record)
_GAP = const(4)  # bytes before record 0 in obs: room for the largest gap
_PRE_MAX = const(96)  # the envelope up to "i": 93 bytes (10-digit sequences) at the most
# Line of sight: a seat's mask of its square, (2 * 9 + 1) ** 2 cells at the largest radius.
_SIGHT_R = const(9)  # game.rules.MAX_RADIUS
_SIGHT_SIDE = const(19)
_SIGHT_CELLS = const(361)  # (and 2 bytes more in a seat's mask: what it was made for)
_SIGHT_MID = const(180)  # here: (9, 9)

# Envelope: {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":I,"n":N
_ENV_V = const(b'{"v":1,"t":"view","s":')  # v: PROTOCOL_VERSION (a test checks)
_ENV_V_LEN = const(22)  # where the state sequence starts
_ENV_R = const(b',"r":"')
_ENV_PH = const(b'","ph":"')
_ENV_W = const(b'","w":')
_ENV_H = const(b',"h":')
_ENV_M = const(b',"m":')
_ENV_I = const(b',"i":')
_ENV_N = const(b',"n":')
_ENV_0 = const(b'0,"n":0,"st":')  # record 0's i, n (poked in) and the status member
# The names of game.rules (ROLE_NAMES, PHASE_NAMES, RESULT_NAMES) as bytes (a test checks).
_ROLES = const((b"obs", b"p1", b"p2"))
_PHASES = const((b"waiting", b"countdown", b"active", b"finished"))
_RESULTS = const((b"none", b"win", b"draw", b"forfeit"))
_RES_END = const(b"\r\x0c\r\x10")  # a result's bytes and the 9 of `","win":W` after it
# game.rules' numbers, as private consts (their values in the bytecode, not a global's lookup)

# Payload members, in this order after the envelope: status (record 0), objects (record 0:
# they always fit there), cells; the objects and the cells written by game.writers.

# Status members. A seat: {"p":..,"k":..,"vm":..,"rad":..,"cp":..,"xo":..,"xd":.. (written by
# game.writers) and for the observer (,"xt":..); a 0 stands for a one-digit value poked in.
_S_XT = const(b',"xt":-1')  # an exit time, -1 (none) unless written over
_S_RES = const(b',"res":"')
_S_RES_OBS = const(b'}],"res":"')
_S_WIN = const(b'","win":')
_S_OPP = const(b',"opponent":{"p":')
_S_K = const(b',"k":')
_S_PLAYERS = const(b'{"players":[')


def visible(match, seat, cell, proj=None):
    """True when seat may see cell: inside its square (Chebyshev distance <= its radius) and,
    under line of sight (match.rules[5]) without a vision effect, in sight (see sight()): an
    eye shows the whole square of the vision radius, over the walls. With a Projector, its
    mask of the seat's square (see Projector.visible)."""
    w = match.width
    if cell < 0 or cell >= w * match.height:
        return False
    here = match.pos[seat]
    r = match.radius(seat)
    dx = cell % w - here % w
    dy = cell // w - here // w
    if not (-r <= dx <= r and -r <= dy <= r):
        return False
    if match.rules[5] and not match.vision[seat]:
        if proj:
            mask = proj._sight(match, seat, here, r)
        else:
            mask = bytearray(_SIGHT_CELLS)  # (allocates: for events, not views)
            sight(match.cells, w, here, r, mask)
        return mask[(dy + _SIGHT_R) * _SIGHT_SIDE + dx + _SIGHT_R] == 1
    return True


def opponent_visible(match, seat):
    """True when seat may see the other player: still in the maze and visible to seat."""
    other = 3 - seat
    return not match.exited[other] and visible(match, seat, match.pos[other])


def sight(cells, w, here, r, mask):
    """Line of sight (docs/rules.md, "Line of sight"): mask[(dy + 9) * 19 + dx + 9] = 1 for
    every cell (dx, dy) from here, inside the square of radius r, that is in sight, 0 for the
    rest of the square. A cell is in sight when the straight line from the centre of here to
    its centre crosses only open walls and passes only through cells in sight; a line through
    a corner of four cells goes round it on either side, if both walls of that side are open.
    Cells are decided in order of Manhattan distance, so the cells a line passes through are
    decided first; a wall is read from a cell in sight only (the flags of a cell out of sight
    never count). Allocation-free; the square must lie inside the map."""
    x0 = here % w
    y0 = here // w
    mask[_SIGHT_MID] = 1
    for d in range(1, 2 * r + 1):
        for dy in range(-r, r + 1):
            ay = dy if dy >= 0 else -dy
            ax = d - ay
            if ax < 0 or ax > r:
                continue
            for dx in (ax, -ax) if ax else (0,):
                x = x0 + dx
                y = y0 + dy
                at = (dy + _SIGHT_R) * _SIGHT_SIDE + dx + _SIGHT_R
                mask[at] = 0
                if x < 0 or y < 0 or x >= w or y * w + x >= len(cells):
                    continue
                # Walk the line from here toward (dx, dy); the end is in sight if it gets there.
                c = here
                sx = 1 if dx > 0 else -1
                sy = w if dy > 0 else -w
                bx = 2 if dx > 0 else 8  # the flag of the side crossed going along x (E or W)
                by = 4 if dy > 0 else 1  # along y (S or N)
                mx = sx  # the mask's steps
                my = _SIGHT_SIDE if dy > 0 else -_SIGHT_SIDE
                m = _SIGHT_MID
                i = j = 0
                while True:
                    # the next crossings, scaled: of a column line at (2i+1)*ay, of a row line
                    # at (2j+1)*ax
                    ex = (2 * i + 1) * ay if i < ax else -1
                    ey = (2 * j + 1) * ax if j < ay else -1
                    if ey < 0 or (0 <= ex < ey):
                        if not cells[c] & bx:
                            break
                        c += sx
                        m += mx
                        i += 1
                    elif ex < 0 or ey < ex:
                        if not cells[c] & by:
                            break
                        c += sy
                        m += my
                        j += 1
                    else:
                        # through the corner: round it along x then y, or along y then x
                        if not (
                            (cells[c] & bx and mask[m + mx] and cells[c + sx] & by)
                            or (cells[c] & by and mask[m + my] and cells[c + sy] & bx)
                        ):
                            break
                        c += sx + sy
                        m += mx + my
                        i += 1
                        j += 1
                    if i == ax and j == ay:
                        mask[at] = 1
                        break
                    if not mask[m]:
                        break


class Projector:
    """The records of the current view, the maze's hex digits and what each role's last view
    shows."""

    def __init__(self, headroom=0, gap=None):
        self._gap = gap
        # A store per seat, with the seat's last view of one record (buf: its bytes).
        size = headroom + RECORD_MAX
        self._stores = (None, bytearray(size), bytearray(size))
        self._bufs = (
            None,
            memoryview(self._stores[1])[headroom : headroom + RECORD_MAX],
            memoryview(self._stores[2])[headroom : headroom + RECORD_MAX],
        )
        self.store = self._stores[1]
        self.buf = self._bufs[1]
        # The observer's records, and a view of more than one record, in obs: each after its
        # gap, one after another (obs_start..obs_end), record i at _obs_at[i].
        self.obs = None
        self._obs_pre = None  # a view of record 0's envelope there (copied into the others)
        self.obs_start = 0
        self.obs_end = 0
        self._obs_at = [0] * MAX_CHUNKS
        self._obs_lens = [0] * MAX_CHUNKS
        self._one_at = [headroom]  # (never changes: the headroom, read from here)
        self._one_lens = [0]
        # The current view: its records in out (a store or obs), at[i], lens[i] bytes each.
        self.count = 0
        self.length = 0  # bytes of the record last asked for
        self.out = self.store
        self.at = self._one_at
        self.lens = self._one_lens
        # What the last view of each role (observer, seat 1, seat 2) in its buffer shows:
        # [objects generation, its square (lo * 1024 + hi; under line of sight -2 - the seat's
        # cell * 16 - the radius: the same square may show other cells), 10 ** the digits of
        # the state sequence (0: nothing valid), ((meetings * 4 + phase) * 4 + result) * 4 +
        # winner, where the status starts * 4096 + where the state sequence's last digit is,
        # the status's bytes, the observer's count (a seat's view is one record: its bytes),
        # the state sequence written there, then a seat's members in the status (see begin):
        # the seat's, and for the observer seat 1's and seat 2's (-1: not known)]. (12
        # entries: 3 blocks of the 32-bit heap each, 13 would take 4)
        self._keys = ([-1] * 12, [-1] * 12, [-1] * 12)
        # Line of sight: each seat's mask of its square (made by its first such view), its
        # last two bytes what it was made for (cell * 16 + radius + 1, 0: nothing); _mask: the
        # last view's under line of sight (for _seen).
        self._sights = [None, None, None]
        self._mask = None
        # The objects' generation: +1 whenever the match's obj_present or obj_cell differ
        # from the copies kept here.
        self._gen = 0
        self._gen_present = None
        self._gen_cells = None
        # The maze: its hex digits, and a copy of the flags they were made from; _w: the width
        # of the maze of the last view under line of sight (for _seen).
        self._hex = None
        self._cut = None
        self._w = 0
        # The seat's cell (the centre of its square) of the last view under line of sight (for
        # _seen) and the objects' last change (see begin).
        self._sq = [0, -1]
        # Where each chunk starts: run index * 1024 + offset in that run (entry count: the
        # end; a run has at most 32 * 32 cells, rules.MAX_SIDE).
        self._chunks = [0] * (MAX_CHUNKS + 1)

    # ---- the gateway's API ----------------------------------------------------------------

    def visible(self, match, seat, cell):
        """visible(), with the seat's mask of this projector under line of sight (made or
        brought up to date here: allocation-free once made)."""
        return visible(match, seat, cell, self)

    def _sight(self, match, seat, here, r):
        # seat's mask of its square at here and radius r, made again only when they (or the
        # maze) changed
        if self._cut != match.cells:
            self._load_maze(match.cells)
        mask = self._sights[seat]
        if mask is None:
            mask = self._sights[seat] = bytearray(_SIGHT_CELLS + 2)
        made = here * 16 + r + 1
        if mask[_SIGHT_CELLS] != made & 255 or mask[_SIGHT_CELLS + 1] != made >> 8:
            sight(match.cells, match.width, here, r, mask)
            mask[_SIGHT_CELLS] = made & 255
            mask[_SIGHT_CELLS + 1] = made >> 8
        return mask

    def opponent_visible(self, match, seat):
        return not match.exited[3 - seat] and visible(match, seat, match.pos[3 - seat])

    def begin(self, match, role):
        """Write every record of role's view of match; returns the record count."""
        if role != OBSERVER and role != 1 and role != 2:
            # (MicroPython numbers a function's locals in the order they first appear in the
            # source and reads and writes the first 16, the arguments among them, with shorter
            # and faster bytecodes: these are the ones the status, the objects and the envelope
            # use most; named here, where it costs nothing on the way through)
            b = p = t = q = key = seat = here = i = 0
            raise ValueError("role must be 1, 2 or OBSERVER")
        if self._cut != match.cells:
            self._load_maze(match.cells)
        w = match.width
        h = match.height
        present = match.obj_present
        cells = match.obj_cell
        if self._gen_present != present or self._gen_cells != cells:
            if self._gen_present is None or len(self._gen_present) != len(present):
                self._gen_present = bytearray(len(present))
                self._gen_cells = [0] * len(present)
            # The cell the one object that changed left and the one it is on now (its cell
            # before * 4096 + after), -1 when more than one changed: a seat's record showing
            # neither stays valid (see same, below).
            t = -2
            for slot in range(len(present)):
                q = self._gen_cells[slot]
                if self._gen_present[slot] != present[slot] or q != cells[slot]:
                    t = q * 4096 + cells[slot] if t == -2 else -1
                    self._gen_cells[slot] = cells[slot]
            self._sq[1] = t
            self._gen_present[:] = present
            self._gen = (self._gen + 1) & 0xFFFF
        # The square: the seat's (only what it may see is written: nothing hidden even
        # reaches a buffer), or the whole maze.
        mask = None
        if role:
            here = match.pos[role]
            r = match.rules[1] if match.vision[role] else match.rules[0]  # match.radius()
            if match.rules[5] and not match.vision[role]:
                mask = self._mask = self._sight(match, role, here, r)
                self._sq[0] = here
                self._w = w  # (and _mask, _sq[0]: for _seen)
            hx = here % w
            hy = here // w
            x0 = hx - r if hx > r else 0
            x1 = hx + r if hx + r < w else w - 1
            y0 = hy - r if hy > r else 0
            y1 = hy + r if hy + r < h else h - 1
        else:
            x0 = y0 = 0
            x1 = w - 1
            y1 = h - 1
        lo = y0 * w + x0
        hi = y1 * w + x1
        sq = lo * 1024 + hi if mask is None else -2 - here * 16 - r  # (see self._keys)
        # The role's last view has the same envelope (kept) if it shows the same state sequence
        # width, phase, meetings and result (10 ** digits: the state sequence stays below
        # 10 ** 9): its envelope stays, the state sequence written over. If it also shows the
        # same square and objects (same) and the status keeps its length, the status (only the
        # seats' members that changed) and the state sequence are all that is written.
        key = self._keys[role]
        seq = match.state_seq
        env = ((match.meeting_seq * 4 + match.phase) * 4 + match.result) * 4 + match.winner
        kept = key[2] > seq and seq * 10 >= key[2] and key[3] == env
        same = kept and key[1] == sq
        if same and key[0] != self._gen:
            # The objects changed: a seat's record that showed the generation before is still
            # the same if the one object that changed left and reached cells outside its square.
            t = self._sq[1]
            same = role and t >= 0 and key[0] + 1 & 0xFFFF == self._gen
            if same:
                q = t >> 12
                t &= 4095
                same = not (
                    lo <= q <= hi and x0 <= q % w <= x1 or lo <= t <= hi and x0 <= t % w <= x1
                )
            if same:
                key[0] = self._gen
        # Record 0 at b[at:]: a seat's in its store, the observer's in obs (before obs is
        # made, to the view's size and never smaller than record 0's room: in seat 2's store,
        # for the planner).
        if role:
            b = self.store = self._stores[role]
            self.buf = self._bufs[role]
            at = self._one_at[0]
        else:
            b = self.obs
            at = _GAP
            if b is None:
                b = self._stores[2]
                at = self._one_at[0]
                kept = same = False
                self._keys[2][2] = self._keys[2][8] = key[8] = key[10] = -1
        while True:
            last = 0
            if kept:
                # the state sequence's digits over the old ones (as many: key[2] = 10 ** that);
                # only the last one when the others are those of the one written there
                if seq // 10 == key[7] // 10:
                    last = key[4] & 4095
                    b[last] = 48 + seq % 10
                else:
                    p = at + _ENV_V_LEN
                    t = key[2] // 10
                    while t:
                        b[p] = 48 + seq // t % 10
                        p += 1
                        t //= 10
                key[7] = seq
                p = key[4] >> 12
                pre = p - 13 - at
            else:
                # {"v":1,"t":"view","s":S,"r":"R","ph":"P","w":W,"h":H,"m":M,"i":0,"n":1,"st":
                # (a longer view's count is poked in later)
                p = put(b, at, _ENV_V)
                p = put_int(b, p, seq)
                key[7] = seq
                key[4] = p - 1  # (and where the status starts, when the view is done)
                b[p : p + 6] = _ENV_R
                p = put(b, p + 6, _ROLES[role])
                b[p : p + 8] = _ENV_PH
                p = put(b, p + 8, _PHASES[match.phase])
                b[p : p + 6] = _ENV_W
                p = put_int(b, p + 6, w)
                b[p : p + 5] = _ENV_H
                p = put_int(b, p + 5, h)
                b[p : p + 5] = _ENV_M
                p = put_int(b, p + 5, match.meeting_seq)
                b[p : p + 5] = _ENV_I
                p += 5
                pre = p - at
                b[p : p + 13] = _ENV_0
                b[p + 6] = 49
                p += 13
            st = p
            # The status: {seat,"res":"R","win":W(,"opponent":{"p":P,"k":K})}, or for the
            # observer {"players":[seat 1,"xt":T},seat 2,"xt":T}],"res":"R","win":W}
            seat = role
            if not role:
                b[p : p + 12] = _S_PLAYERS
                p += 12
                seat = 1
            i = 8
            while True:
                # The seat's {"p":P,"k":K,"vm":VM,"rad":R,"cp":CP,"xo":XO,"xd":XD at p. K, R,
                # XO and XD have one digit (in the rules' ranges; checked where they are
                # written), poked into the members around them. key[i]: what the members at p
                # show but the position, key[i + 1]: (position * 1024 + p) * 128 + their
                # bytes: when they show the same, only a position that keeps its width is
                # written again.
                t = write_seat(b, p, match, seat, key, i)
                p = t >> 1
                if t & 1:
                    kept = False  # (what follows may have moved)
                # (kept, from here on: the status's bytes up to p are where they were, and so
                # are the constant ones that follow, the result and the winner among them)
                if role:
                    if not kept:
                        b[p : p + 8] = _S_RES
                    p += 8
                    break
                t = match.exit_time[seat]
                if t != -1:
                    kept = False
                if not kept:
                    b[p : p + 8] = _S_XT
                p = p + 8 if t == -1 else put_int(b, p + 6, t)
                if seat == 2:
                    if not kept:
                        b[p : p + 10] = _S_RES_OBS
                    p += 10
                    break
                if not kept:
                    b[p] = 125  # '}'
                    b[p + 1] = 44  # ','
                p += 2
                seat = 2
                i = 10
            t = match.result
            if kept:
                p += _RES_END[t]
            else:
                q = p + _RES_END[t] - 9
                b[p:q] = _RESULTS[t]
                b[q : q + 8] = _S_WIN
                b[q + 8] = 48 + match.winner  # a seat or 0
                p = q + 9
            if role:
                # The opponent: while in the maze and in the square (the test of visible()).
                seat = 3 - role
                here = match.pos[seat]
                if (
                    not match.exited[seat]
                    and lo <= here <= hi
                    and x0 <= here % w <= x1
                    and (mask is None or self._seen(here))
                ):
                    b[p : p + 17] = _S_OPP
                    p = put_int(b, p + 17, here)
                    b[p : p + 5] = _S_K
                    p = put_int(b, p + 5, match.inventory[seat])
                    b[p] = 125  # '}'
                    p += 1
            b[p] = 125
            p += 1
            if same and p - st == key[5]:
                # in place: the state sequence of the observer's other records too
                n = key[6]
                if not role:
                    for i in range(1, n):
                        if last:
                            b[self._obs_at[i] + last - at] = b[last]
                        else:
                            put_int(b, self._obs_at[i] + _ENV_V_LEN, seq)
                break
            key[2] = 0
            key[5] = p - st  # (the status's bytes)
            # ,"o":[[kind,owner,variant,cell],..]: the objects on the ground in the square, in
            # slot order (nothing when there are none), written by game.writers.
            p = write_objects(b, p, match, lo, hi, x0, x1, mask, self._sq[0])
            # The cells, as runs: run r from cell lo + r * w, rlen cells each (a player's rows;
            # one run for whole rows).
            rlen = x1 - x0 + 1
            nruns = y1 - y0 + 1
            if x0 == 0 and x1 == w - 1:
                rlen = hi + 1 - lo
                nruns = 1
            # The cells: a seat's view in one record, in its store, if it fits (with the
            # closing brace). Bytes of the cells member in one record: [first,"digits"] and a
            # comma for each run, the member's opening around them. The digits of the runs'
            # first cells: one each, and one more for each that is at least 10, 100, 1000
            # (counted only when 4 each would not fit).
            count = 1  # (0: one record, in the seat's store)
            if role and b is not self.obs:
                n = 6 + nruns * (10 + rlen)
                if p + n >= at + RECORD_MAX:
                    n = 6 + nruns * (7 + rlen)
                    t = lo + (nruns - 1) * w
                    for q in (10, 100, 1000):
                        if t >= q:
                            n += nruns if lo >= q else nruns - (q - 1 - lo) // w - 1
                if p + n < at + RECORD_MAX:
                    count = 0
            if count:
                # More than one record (or the observer's): in obs, each after its gap. Where
                # record 0's head is not there yet, or obs had to be made anew (to the view's
                # size), written again in obs (the seat's members in key then describe obs).
                # The plan: record 0's head (the status and the objects always fit there) and
                # the cell runs packed greedily into records: record i's cells from cell
                # _chunks[i] & 1023 of run _chunks[i] >> 10, lens[i] bytes; each record after the
                # first has the envelope (up to "i":, then its digit, `,"n":`, that of n and the
                # closing brace) before its cells.
                lens = self._obs_lens
                used = p - at + 1
                run = off = count = 0
                while True:
                    if count >= MAX_CHUNKS or used > RECORD_MAX:
                        raise ValueError("view too large")
                    self._chunks[count] = run * 1024 + off
                    first = True
                    while run < nruns:
                        # [first,"hex..."] plus the member's opening and closing, or a comma.
                        over = ndigits(lo + run * w + off) + (12 if first else 6)
                        room = RECORD_MAX - used - over
                        if room < 1:
                            break
                        first = False
                        if rlen - off <= room:
                            used += over + rlen - off
                            run += 1
                            off = 0
                        else:
                            used += over + room  # the run goes on in the next record
                            off += room
                            break
                    lens[count] = used
                    count += 1
                    if run >= nruns:
                        break
                    used = pre + 8
                self._chunks[count] = run * 1024 + off
                gap = self._gap
                n = _GAP + _SLACK
                for i in range(count):
                    n += lens[i] + (gap(lens[i]) if gap else 0)
                if self.obs is None or len(self.obs) < n:
                    # (let the old buffer go first; room to grow a little, and for record 0
                    # of any view; what it showed is gone)
                    self.obs = self._obs_pre = None
                    self.obs = bytearray(max(n, _GAP + RECORD_MAX + _SLACK) + 32)
                    self._obs_pre = memoryview(self.obs)[_GAP : _GAP + _PRE_MAX]
                    b = None
                if b is not self.obs:
                    b = self.obs
                    at = _GAP
                    kept = same = False
                    self._keys[0][2] = self._keys[0][8] = self._keys[0][10] = key[8] = -1
                    continue
                # Record 0's count, then each record's cells (and after record 0 its envelope:
                # record 0's up to "i":, i and the count), each record after its gap.
                self.obs_start = _GAP - (gap(lens[0]) if gap else 0)
                b[at + pre + 6] = 48 + count
                self._obs_at[0] = _GAP
            else:
                run = off = off_end = 0
                run_end = nruns
            # The records' cells (one record in a seat's store: count 0).
            i = 0
            while True:
                if count:
                    if i:
                        p += gap(lens[i]) if gap else 0
                        self._obs_at[i] = p
                        b[p : p + _PRE_MAX] = self._obs_pre
                        p += pre
                        b[p] = 48 + i
                        b[p + 1 : p + 6] = _ENV_N
                        b[p + 6] = 48 + count
                        p += 7
                    t = self._chunks[i]
                    run = t >> 10
                    off = t & 1023
                    t = self._chunks[i + 1]
                    run_end = t >> 10
                    off_end = t & 1023
                if run < run_end or (run == run_end and off < off_end):
                    # The cells member from cell off of run `run` to cell off_end of run
                    # run_end (exclusive), written by game.runs: [a,"digits"] for each run, a
                    # its first cell; the first has rlen - off cells, the next start w - off
                    # and then w cells after it; the cells end before the cell v.
                    v = lo + run_end * w + (off_end if off_end else rlen - w)
                    p = write_runs(
                        b,
                        p,
                        self._hex,
                        lo + run * w + off,
                        rlen - off,
                        w - off,
                        v,
                        w,
                        rlen,
                        mask,
                        self._sq[0],
                    )
                b[p] = 125  # '}'
                p += 1
                i += 1
                if i >= count:
                    break
            if not count:
                n = p - at
                break
            self.obs_end = p
            n = count
            break
        if role and b is self.obs:
            # a seat's view of more than one record: the seat's members in key describe obs,
            # not its store; its next view is written whole (key[2] is 0)
            key[8] = -1
        elif not key[2]:
            # What the view just written shows (see self._keys): its status is at st; n: the
            # observer's count, a seat's bytes.
            key[1] = sq
            t = 10  # 10 ** ndigits(seq), without the call and the power
            while t <= seq:
                t *= 10
            key[2] = t
            key[3] = env
            key[4] = st * 4096 + (key[4] & 4095)
            key[6] = n
            key[0] = self._gen
        if b is self.obs:  # the observer's records, or a seat's of more than one
            if self.out is not b:  # (at and lens are obs's whenever out is)
                self.out = b
                self.at = self._obs_at
                self.lens = self._obs_lens
            self.count = n
            return n
        self._one_lens[0] = n
        self.out = b
        if self.count != 1 or self.at is not self._one_at:  # (unchanged after a seat's view)
            self.at = self._one_at
            self.lens = self._one_lens
            self.count = 1
        return 1

    def forget(self):
        """Write the next view of every role whole (benchmarks: the cost of a view from
        scratch)."""
        for key in self._keys:
            key[2] = key[8] = key[10] = -1

    def forget_square(self):
        """Write the next view of every seat as after a move: again from its status on
        (benchmarks; the board image leaves it out: nothing there calls it)."""
        for key in self._keys:
            key[1] = -1

    def record(self, i):
        """Record i (0 <= i < count) of the current view: a memoryview of exactly its bytes."""
        n = self.write(i)
        at = self.at[i]
        return memoryview(self.out)[at : at + n]

    def write(self, i):
        """Bytes of record i of the current view (at self.at[i] in self.out); allocation-free."""
        if i < 0 or i >= self.count:
            raise IndexError("record index out of range")
        n = self.length = self.lens[i]
        return n

    # ---- the maze's digits ------------------------------------------------------------------

    def _load_maze(self, cells):
        """Encode the maze's flags as hex digits, once per maze (and per change of flags)."""
        n = len(cells)
        if self._hex is None or len(self._hex) != n:
            # A maze of another size: new tables (let the old ones go first).
            self._hex = self._cut = None
            self._hex = bytearray(n)
            self._cut = bytearray(n)
        self._cut[0 : len(self._cut)] = cells
        for key in self._keys:
            key[2] = key[8] = key[10] = -1
        for mask in self._sights:
            if mask:
                mask[_SIGHT_CELLS] = mask[_SIGHT_CELLS + 1] = 0
        hexd = b"0123456789abcdef"
        out = self._hex
        for c in range(n):
            out[c] = hexd[cells[c] & 15]

    def _seen(self, cell):
        # cell (inside the view's square) is in sight in the view's mask
        w = self._w
        here = self._sq[0]
        return self._mask[
            (cell // w - here // w + _SIGHT_R) * _SIGHT_SIDE + cell % w - here % w + _SIGHT_R
        ]
