# The authoritative match: every rule of seed 000. Time is always an argument (milliseconds on
# the authoritative clock); the engine never reads a clock and never raises on bad input: every
# refusal is a code from game.rules and leaves the state and the state sequence unchanged.
# After construction nothing in enqueue() / process() / advance() allocates.
from game.compat import const
from game.maze import Workspace, generate_into, mirror
from game.placement import Placer
from game.prng import Prng

# The numbers of game.rules this module uses, as private consts: the compiler puts their values
# in the bytecode, so they take no room in the module's globals and load faster
# (host_tests/test_private_consts.py checks they equal game.rules').
_ACTIVE = const(2)
_BAD_COMMAND = const(1)
_CLOCK_LIMIT_MS = const(0x3FFFFFFF - 0x20000)
_CMD_DROP = const(2)
_CMD_MOVE = const(1)
_COOLDOWN = const(7)
_COUNTDOWN = const(1)
_COUNTDOWN_REFUSED = const(5)
_EMPTY = const(13)
_EV_COMPASS = const(7)
_EV_EXITED = const(10)
_EV_EXIT_OPENED = const(8)
_EV_KEY_DROPPED = const(9)
_EV_KEY_PICKED = const(4)
_EV_KEY_RETURNED = const(6)
_EV_MEETING = const(5)
_EV_MOVED = const(2)
_EV_PHASE = const(1)
_EV_RESULT = const(11)
_EV_VISION = const(3)
_EXITED = const(12)
_EXIT_CLOSED = const(10)
_FINISHED = const(3)
_MAX_ARTIFACT_PAIRS = const(4)
_MAX_EVENTS = const(12)
_MAX_SIDE = const(32)
_MIN_SIDE = const(5)
_NOT_PLAYER = const(2)
_NOT_YOUR_EXIT = const(11)
_NO_BEARING = const(255)
_NO_KEY = const(9)
_OBJ_VISION = const(3)
_OK = const(0)
_OUT_OF_ORDER = const(6)
_PHASE = const(4)
_QUEUE_DEPTH = const(16)
_QUEUE_FULL = const(3)
_MAX_RADIUS = const(9)
_RESULT_DRAW = const(2)
_RESULT_FORFEIT = const(3)
_RESULT_NONE = const(0)
_RESULT_WIN = const(1)
_WAITING = const(0)
_WALL = const(8)

# Fixed object slots (see game.placement.place): keys, exits, compasses, then artifacts.
KEY_SLOT = (0, 0, 1)  # KEY_SLOT[owner]
EXIT_SLOT = (0, 2, 3)
COMPASS_SLOT = (0, 4, 5)
_FIRST_ARTIFACT_SLOT = const(6)
FIRST_ARTIFACT_SLOT = _FIRST_ARTIFACT_SLOT

# The numbers of a ruleset the engine plays (game.rulesets), one tuple: (radius, radius while
# a vision effect lasts, moves a vision effect lasts, finish window ms, compasses 0/1, line
# of sight 0/1); seed 000's are CLASSIC. Bounds: RULE_MAX (the vision radius is at least the
# radius, the radius at least 1).
CLASSIC = (3, 6, 10, 200, 1, 0)
RULE_MAX = (_MAX_RADIUS, _MAX_RADIUS, 99, 5000, 1, 1)

# tan(22.5 degrees) ~ 414/1000: the border between a straight and a diagonal bearing.
_TAN_NUM = const(414)
_TAN_DEN = const(1000)


def bearing(from_cell, to_cell, w):
    """One of eight bearings (0=N, 1=NE ... 7=NW) from one cell toward another."""
    dx = to_cell % w - from_cell % w
    dy = to_cell // w - from_cell // w
    ax = dx if dx >= 0 else -dx
    ay = dy if dy >= 0 else -dy
    if ay * _TAN_DEN <= ax * _TAN_NUM:
        return 2 if dx > 0 else 6
    if ax * _TAN_DEN <= ay * _TAN_NUM:
        return 4 if dy > 0 else 0
    if dy < 0:
        return 1 if dx > 0 else 7
    return 3 if dx > 0 else 5


def _is_int(value):
    return type(value) is int  # bool is not int on either interpreter here


# The command FIFO: a preallocated ring of QUEUE_DEPTH entries. The command sequence is
# assigned when an entry is accepted and only ever grows; a full ring refuses (QUEUE_FULL)
# instead of overwriting. Nothing here allocates after construction. Match.enqueue and
# Match.process add and take the entries inline (head: the oldest, count of them).
class CommandQueue:
    def __init__(self):
        self.player = bytearray(_QUEUE_DEPTH)
        self.kind = bytearray(_QUEUE_DEPTH)
        self.arg = bytearray(_QUEUE_DEPTH)
        self.time = [0] * _QUEUE_DEPTH
        self.seq = [0] * _QUEUE_DEPTH
        self.clear()

    def clear(self):
        self.head = 0  # index of the oldest entry
        self.count = 0
        self.last_seq = 0  # sequence of the most recently accepted entry


class Match:
    """One duel. Seats are 1 and 2; per-player arrays are indexed by seat (index 0 unused)."""

    def __init__(
        self,
        seed,
        width=15,
        height=15,
        cooldown_ms=250,
        countdown_ms=3000,
        artifact_pairs=2,
        braid_percent=40,
        rules=CLASSIC,
        scratch=None,
    ):
        for name, value, low, high in (
            ("width", width, _MIN_SIDE, _MAX_SIDE),
            ("height", height, _MIN_SIDE, _MAX_SIDE),
            ("cooldown_ms", cooldown_ms, 0, 60000),
            ("countdown_ms", countdown_ms, 0, 60000),
            ("artifact_pairs", artifact_pairs, 0, _MAX_ARTIFACT_PAIRS),
            ("braid_percent", braid_percent, 0, 100),
        ):
            if not _is_int(value) or not low <= value <= high:
                raise ValueError("%s must be an int in %d..%d" % (name, low, high))
        if type(rules) is not tuple or len(rules) != 6:
            raise ValueError("rules must be a tuple of 6")
        for i in range(6):
            value = rules[i]
            if not _is_int(value) or not (rules[0] if i == 1 else 0) <= value <= RULE_MAX[i]:
                raise ValueError("rules must be ints in range")
        if rules[0] < 1:
            raise ValueError("rules must be ints in range")
        self.width = width
        self.height = height
        self.cooldown_ms = cooldown_ms
        self.countdown_ms = countdown_ms
        self.artifact_pairs = artifact_pairs
        self.braid_percent = braid_percent
        self.rules = rules
        self.cells = bytearray(width * height)
        slots = FIRST_ARTIFACT_SLOT + 2 * artifact_pairs
        self.obj_kind = bytearray(slots)
        self.obj_owner = bytearray(slots)
        self.obj_variant = bytearray(slots)
        self.obj_cell = [0] * slots
        self.obj_present = bytearray(slots)
        self.pos = [0, 0, 0]
        self.inventory = bytearray(3)  # owner of the carried key, 0 = empty slot
        self.key_carrier = bytearray(3)  # key_carrier[owner]: seat carrying it, 0 = on ground
        self.vision = bytearray(3)  # remaining vision moves
        self.compass = bytearray(3)  # bearing hint or NO_BEARING
        self.ready_at = [0, 0, 0]  # earliest timestamp of the next move (cooldown)
        self.exit_open = bytearray(3)
        self.exited = bytearray(3)
        self.exit_time = [0, -1, -1]  # authoritative timestamp of the outward move, -1 = none
        self.start_cell = [0, 0, 0]
        self.queue = CommandQueue()
        # maze generation, placement: no allocation (scratch: bytes it may use meanwhile)
        self._work = Workspace(width * height, scratch)
        self._placer = Placer(self._work)
        self._rng = Prng(0)  # reseeded by reset()
        self.ev_kind = bytearray(_MAX_EVENTS)
        self.ev_a = [0] * _MAX_EVENTS
        self.ev_b = [0] * _MAX_EVENTS
        self.ev_count = 0
        self.reset(seed)

    # ---- setup -------------------------------------------------------------------------

    def reset(self, seed):
        """Start over in WAITING with a new maze from seed (buffers are reused)."""
        if not _is_int(seed):
            raise ValueError("seed must be an int")
        self.seed = seed
        w = self.width
        h = self.height
        rng = self._rng
        rng.seed(seed)
        generate_into(self.cells, w, h, rng, self.braid_percent, self._work)
        start1 = self._placer.place(
            self.cells,
            w,
            h,
            rng,
            self.artifact_pairs,
            self.obj_kind,
            self.obj_owner,
            self.obj_variant,
            self.obj_cell,
        )
        start2 = mirror(start1, w * h)
        for i in range(len(self.obj_present)):
            self.obj_present[i] = 1
        if not self.rules[4]:
            # placed all the same (the maze and every other object as with compasses)
            self.obj_present[COMPASS_SLOT[1]] = 0
            self.obj_present[COMPASS_SLOT[2]] = 0
        self.start_cell[1] = start1
        self.start_cell[2] = start2
        self.pos[1] = start1
        self.pos[2] = start2
        for seat in (1, 2):
            self.inventory[seat] = 0
            self.key_carrier[seat] = 0
            self.vision[seat] = 0
            self.compass[seat] = _NO_BEARING
            self.ready_at[seat] = 0
            self.exit_open[seat] = 0
            self.exited[seat] = 0
            self.exit_time[seat] = -1
        self.phase = _WAITING
        self.state_seq = 0
        self.meeting_seq = 0
        self.now = 0
        self.countdown_end = 0
        self.first_out = 0  # seat that exited first, 0 = nobody yet
        self.result = _RESULT_NONE
        self.winner = 0
        self.queue.clear()
        self.done_seq = 0
        self.done_player = 0
        self.done_kind = 0
        self.ev_count = 0

    # ---- inputs ------------------------------------------------------------------------

    def enqueue(self, player, kind, arg, time_ms):
        """Accept one command into the FIFO: OK (self.queue.last_seq is its sequence) or a
        refusal code. Observers (any seat but 1 and 2) cannot enqueue."""
        # (_is_int's test inline, by the argument's __class__: no call, and int looked up once,
        # into the local i: a frame of more than 11 words would come from the heap)
        i = int
        if (
            player.__class__ is not i
            or kind.__class__ is not i
            or arg.__class__ is not i
            or time_ms.__class__ is not i
        ):
            return _BAD_COMMAND
        if player != 1 and player != 2:
            return _NOT_PLAYER
        if kind == _CMD_MOVE:
            if arg < 0 or arg > 3:
                return _BAD_COMMAND
        elif kind != _CMD_DROP or arg != 0:
            return _BAD_COMMAND
        if time_ms < 0 or time_ms > _CLOCK_LIMIT_MS:
            return _BAD_COMMAND
        q = self.queue
        if q.count == _QUEUE_DEPTH:  # (full)
            return _QUEUE_FULL
        # the entry after the last one (inline: no call)
        i = (q.head + q.count) % _QUEUE_DEPTH
        q.player[i] = player
        q.kind[i] = kind
        q.arg[i] = arg
        q.time[i] = time_ms
        q.last_seq += 1
        q.seq[i] = q.last_seq
        q.count += 1
        return _OK

    def process(self):
        """Process the oldest queued command; returns OK, a refusal code or EMPTY. The command
        is described by done_seq / done_player / done_kind, its effects by the events."""
        self.ev_count = 0
        q = self.queue
        if q.count == 0:
            return _EMPTY
        i = q.head  # the oldest (inline: no call)
        q.head = (i + 1) % _QUEUE_DEPTH
        q.count -= 1
        player = q.player[i]
        kind = q.kind[i]
        self.done_seq = q.seq[i]
        self.done_player = player
        self.done_kind = kind
        time_ms = q.time[i]
        if time_ms < self.now:
            return _OUT_OF_ORDER
        self.now = time_ms
        if self.phase == _COUNTDOWN or self.first_out:  # (else _advance only sets the clock)
            self._advance(time_ms)
        if self.phase == _COUNTDOWN:
            return _COUNTDOWN_REFUSED
        if self.phase != _ACTIVE:
            return _PHASE
        if self.exited[player]:
            return _EXITED
        if kind == _CMD_DROP:
            return self._drop(player)
        # The move (the only caller of what was _move: its frame, larger than 11 words, came
        # from the heap on every call).
        direction = q.arg[i]
        w = self.width
        here = self.pos[player]
        if not self.cells[here] & 1 << direction:  # DIR_BITS[direction]
            return self._outward(player, direction, time_ms)
        if time_ms < self.ready_at[player]:
            return _COOLDOWN
        # the cell on the open side (inside the map): N, E, S, W are -w, +1, +w, -1
        dest = here + (w if direction == 2 else -w if direction == 0 else 2 - direction)
        self.state_seq += 1
        self.ready_at[player] = time_ms + self.cooldown_ms
        self.pos[player] = dest
        self.compass[player] = _NO_BEARING  # a successful move clears the hint (step 5 may re-set)
        # (_emit inline: at most the phase's event came before, so there is room)
        n = self.ev_count
        self.ev_kind[n] = _EV_MOVED
        self.ev_a[n] = player
        self.ev_b[n] = dest
        self.ev_count = n + 1
        # 1. An existing vision effect loses one move.
        if self.vision[player]:
            self.vision[player] -= 1
        # 2. An unconsumed artifact on the destination is consumed: the counter is reset to ten.
        present = self.obj_present
        cells = self.obj_cell
        for slot in range(_FIRST_ARTIFACT_SLOT, len(present)):
            if present[slot] and cells[slot] == dest:
                if self.obj_kind[slot] == _OBJ_VISION:
                    present[slot] = 0
                    self.vision[player] = self.rules[2]
                    self._emit(_EV_VISION, player, slot)
        # 3. An empty hand picks up the lowest-owner-numbered ground key here.
        if not self.inventory[player]:
            for owner in (1, 2):
                slot = owner - 1  # KEY_SLOT[owner]
                if present[slot] and cells[slot] == dest:
                    present[slot] = 0
                    self.inventory[player] = owner
                    self.key_carrier[owner] = player
                    self._emit(_EV_KEY_PICKED, player, owner)
                    break
        # 4. Ending on the other player's cell is a meeting: every carried key goes home.
        other = 3 - player
        if not self.exited[other] and self.pos[other] == dest:
            self.meeting_seq += 1
            self._emit(_EV_MEETING, player, self.meeting_seq)
            carried1 = self.inventory[1]
            carried2 = self.inventory[2]
            self.inventory[1] = 0
            self.inventory[2] = 0
            if carried1:
                self._return_key(carried1, 1)
            if carried2:
                self._return_key(carried2, 2)
        # 5. The mover's own compass gives a bearing toward the mover's own exit (where the
        # ruleset has compasses: else they are never on the ground).
        if dest == cells[player + 3] and self.rules[4]:  # COMPASS_SLOT[player]
            hint = bearing(dest, cells[player + 1], w)  # EXIT_SLOT[player]
            self.compass[player] = hint
            self._emit(_EV_COMPASS, player, hint)
        # 6. Entering the own exit with the own key opens it.
        if (
            dest == cells[player + 1]
            and self.inventory[player] == player
            and not self.exit_open[player]
        ):
            self.exit_open[player] = 1
            self._emit(_EV_EXIT_OPENED, player, 0)
        return _OK

    def advance(self, time_ms):
        """Move the authoritative clock forward: ends the countdown and finalises a finish
        window whose 200 ms have strictly passed. OK, or OUT_OF_ORDER for a clock going back."""
        self.ev_count = 0
        if not _is_int(time_ms) or time_ms < 0 or time_ms > _CLOCK_LIMIT_MS:
            return _BAD_COMMAND
        if time_ms < self.now:
            return _OUT_OF_ORDER
        self._advance(time_ms)
        return _OK

    def start(self, time_ms):
        """WAITING -> COUNTDOWN (both seats ready). The match goes ACTIVE countdown_ms later."""
        self.ev_count = 0
        if not _is_int(time_ms) or time_ms < 0 or time_ms > _CLOCK_LIMIT_MS:
            return _BAD_COMMAND
        if time_ms < self.now:
            return _OUT_OF_ORDER
        if self.phase != _WAITING:
            return _PHASE
        self.now = time_ms
        self.countdown_end = time_ms + self.countdown_ms
        self._set_phase(_COUNTDOWN)
        self._advance(time_ms)
        return _OK

    def forfeit(self, player, time_ms):
        """The seat gives up (or its grace period ran out): the other seat wins."""
        self.ev_count = 0
        if not _is_int(player) or not _is_int(time_ms):
            return _BAD_COMMAND
        if player != 1 and player != 2:
            return _NOT_PLAYER
        if time_ms < 0 or time_ms > _CLOCK_LIMIT_MS:
            return _BAD_COMMAND
        if time_ms < self.now:
            return _OUT_OF_ORDER
        self._advance(time_ms)
        if self.phase != _COUNTDOWN and self.phase != _ACTIVE:
            return _PHASE
        if self.exited[player]:
            return _EXITED  # already out of the maze: the finish window decides, not a forfeit
        self._finish(_RESULT_FORFEIT, 3 - player)
        return _OK

    def draw(self, time_ms):
        """The match reached the board's length limit (net.match_host, max_moves): a draw."""
        self.ev_count = 0
        if not _is_int(time_ms) or time_ms < self.now or time_ms > _CLOCK_LIMIT_MS:
            return _BAD_COMMAND
        self._advance(time_ms)
        if self.phase != _COUNTDOWN and self.phase != _ACTIVE:
            return _PHASE
        self._finish(_RESULT_DRAW, 0)
        return _OK

    # ---- queries -----------------------------------------------------------------------

    def radius(self, player):
        """The server-owned projection radius of a seat: 6 while a vision effect lasts."""
        return self.rules[1] if self.vision[player] else self.rules[0]

    def key_location(self, owner):
        """(cell, carrier): the key of owner lies on cell (carrier 0) or is carried by carrier
        (cell -1). Exactly one of the two holds at all times."""
        carrier = self.key_carrier[owner]
        if carrier:
            return -1, carrier
        return self.obj_cell[KEY_SLOT[owner]], 0

    def exit_cell(self, owner):
        return self.obj_cell[EXIT_SLOT[owner]]

    def exit_direction(self, owner):
        return self.obj_variant[EXIT_SLOT[owner]]

    def object_count(self):
        return len(self.obj_kind)

    def digest(self):
        """A 32-bit FNV-1a digest of the whole authoritative game state (not the clock, the
        queue or the command sequence). Equal digests on both interpreters mean equal matches.
        Computed in two 16-bit halves, so every step stays a small int on a 32-bit board (the
        whole hash would be a heap big integer there: 65 KB of garbage a digest, measured); only
        the result may be one."""
        hi = 0x811C  # the FNV offset basis 0x811C9DC5
        lo = 0x9DC5
        for values in (
            (
                self.width,
                self.height,
                self.phase,
                self.state_seq,
                self.meeting_seq,
                self.countdown_end,
                self.first_out,
                self.result,
                self.winner,
            ),
            self.cells,
            self.obj_kind,
            self.obj_owner,
            self.obj_variant,
            self.obj_present,
            self.inventory,
            self.key_carrier,
            self.vision,
            self.compass,
            self.exit_open,
            self.exited,
            self.obj_cell,
            self.pos,
            self.ready_at,
            self.exit_time,
        ):
            for value in values:
                # the four bytes of value as a 32-bit two's complement number, low byte first
                for _ in range(4):
                    lo ^= value & 0xFF
                    value >>= 8
                    # h * 0x01000193 mod 2 ** 32 = (h << 24) + h * 0x193, in halves
                    t = lo * 0x193
                    hi = (hi * 0x193 + (t >> 16) + ((lo & 0xFF) << 8)) & 0xFFFF
                    lo = t & 0xFFFF
        return hi * 0x10000 + lo

    # ---- rules -------------------------------------------------------------------------

    def _emit(self, kind, a, b):
        n = self.ev_count
        if n < _MAX_EVENTS:
            self.ev_kind[n] = kind
            self.ev_a[n] = a
            self.ev_b[n] = b
            self.ev_count = n + 1

    def _set_phase(self, phase):
        self.phase = phase
        self.state_seq += 1
        self._emit(_EV_PHASE, phase, 0)

    def _finish(self, result, winner):
        self.result = result
        self.winner = winner
        self._emit(_EV_RESULT, result, winner)
        self._set_phase(_FINISHED)

    def _advance(self, time_ms):
        self.now = time_ms
        if self.phase == _COUNTDOWN and time_ms >= self.countdown_end:
            self._set_phase(_ACTIVE)
        if (
            self.phase == _ACTIVE
            and self.first_out
            and time_ms > self.exit_time[self.first_out] + self.rules[3]
        ):
            self._finish(_RESULT_WIN, self.first_out)

    def _drop(self, player):
        owner = self.inventory[player]
        if not owner:
            return _NO_KEY
        slot = KEY_SLOT[owner]
        self.inventory[player] = 0
        self.key_carrier[owner] = 0
        self.obj_cell[slot] = self.pos[player]
        self.obj_present[slot] = 1
        self.state_seq += 1
        self._emit(_EV_KEY_DROPPED, player, owner)
        return _OK

    def _return_key(self, owner, had_it):
        self.inventory[owner] = owner
        self.key_carrier[owner] = owner
        self._emit(_EV_KEY_RETURNED, owner, had_it)

    def _outward(self, player, direction, time_ms):
        # A closed side: the only way through is leaving the map from an open own exit.
        here = self.pos[player]
        own = EXIT_SLOT[player]
        theirs = EXIT_SLOT[3 - player]
        if here == self.obj_cell[own] and direction == self.obj_variant[own]:
            if not self.exit_open[player]:
                return _EXIT_CLOSED
        elif here == self.obj_cell[theirs] and direction == self.obj_variant[theirs]:
            return _NOT_YOUR_EXIT
        else:
            return _WALL
        if time_ms < self.ready_at[player]:
            return _COOLDOWN
        self.state_seq += 1
        self.ready_at[player] = time_ms + self.cooldown_ms
        self.exited[player] = 1
        self.exit_time[player] = time_ms
        if not self.first_out:
            self.first_out = player
            self._emit(_EV_EXITED, player, 0)
            return _OK
        # The other seat left first and its window has not closed (else _advance ended the
        # match before this command): same timestamp up to and including +200 ms is a draw.
        self._emit(_EV_EXITED, player, 1)
        self._finish(_RESULT_DRAW, 0)
        return _OK
