# Placement of starts, keys, exits, compasses and vision artifacts. Everything of player 2 is
# the 180-degree mirror image of player 1's, and the maze is point-symmetric too, so both
# players face identical distances on every seed (exact fairness, see docs/rules.md).
# A Placer is made once with the match; it writes the objects into the match's own arrays and
# uses the maze Workspace's arrays for its distance tables: placing allocates nothing.
from game.compat import const
from game.maze import distances_into, mirror

# Numbers of other firmware modules, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py).
_E = const(1)
_MAX_ARTIFACT_PAIRS = const(4)
_N = const(0)
_OBJ_COMPASS = const(2)
_OBJ_EXIT = const(1)
_OBJ_KEY = const(0)
_OBJ_VISION = const(3)
_S = const(2)
_W = const(3)

_TRIES = const(64)  # random candidates tried per object before the constraint is relaxed

# What a candidate cell must satisfy (see _accept).
_START = const(0)  # in the top-left third
_KEY = const(1)  # span/2 .. span steps from the start
_EXIT = const(2)  # on the border, >= span/2 from the key, >= 3 from the start
_COMPASS = const(3)  # 2 .. span/3 + 2 steps from the start
_ARTIFACT = const(4)  # >= 3 steps from the start


def exit_direction(cell, w, h):
    """The outward direction that leaves the map from a border cell (-1 if not on the border)."""
    x = cell % w
    y = cell // w
    if y == 0:
        return _N
    if x == w - 1:
        return _E
    if y == h - 1:
        return _S
    if x == 0:
        return _W
    return -1


class Placer:
    """Places the objects of a match; work is the maze Workspace whose arrays it borrows."""

    def __init__(self, work):
        # player 1's cells taken so far (player 2's are their mirrors): start, key, exit,
        # compass, artifacts
        self.used = [0] * (4 + _MAX_ARTIFACT_PAIRS)
        self.count = 0
        self.from_start = work.dist
        self.from_key = work.walls  # free once the maze is generated
        self.queue = work.parent  # likewise
        self.w = 0
        self.h = 0
        self.n = 0
        self.rng = None

    def free(self, cell):
        twin = mirror(cell, self.n)
        if twin == cell:  # the centre of an odd maze has no mirror partner
            return False
        used = self.used
        for i in range(self.count):
            if used[i] == cell or used[i] == twin:
                return False
        return True

    def accept(self, rule, cell):
        w = self.w
        h = self.h
        span = w + h
        if rule == _START:
            return cell % w < (w + 2) // 3 and cell // w < (h + 2) // 3
        d = self.from_start[cell]
        if rule == _KEY:
            return span // 2 <= d <= span
        if rule == _EXIT:
            return exit_direction(cell, w, h) >= 0 and self.from_key[cell] >= span // 2 and d >= 3
        if rule == _COMPASS:
            return 2 <= d <= span // 3 + 2
        return d >= 3  # _ARTIFACT

    def pick(self, rule):
        """A random free cell satisfying rule, else any free cell (any free border cell for an
        exit: its outward direction needs one); it becomes used."""
        n = self.n
        rng = self.rng
        cell = -1
        for _ in range(_TRIES):
            candidate = rng.below(n)
            if self.free(candidate) and self.accept(rule, candidate):
                cell = candidate
                break
        if cell < 0:
            start = rng.below(n)
            for step in range(n):
                candidate = (start + step) % n
                if self.free(candidate) and self.accept(rule, candidate):
                    cell = candidate
                    break
        if cell < 0:  # relaxed: distances dropped, but an exit stays on the border
            for step in range(n):
                candidate = (start + step) % n
                if self.free(candidate) and (
                    rule != _EXIT or exit_direction(candidate, self.w, self.h) >= 0
                ):
                    cell = candidate
                    break
        if cell < 0:
            raise ValueError("maze too small for its objects")
        self.used[self.count] = cell
        self.count += 1
        return cell

    def place(self, cells, w, h, rng, artifact_pairs, kind, owner, variant, where):
        """Player 1's start cell (player 2 starts on its mirror). The objects are written into
        the arrays kind, owner, variant and where (one slot each) in the fixed order key1,
        key2, exit1, exit2, compass1, compass2, then the vision artifacts in mirrored pairs."""
        n = w * h
        self.w = w
        self.h = h
        self.n = n
        self.rng = rng
        self.count = 0
        # Player 1 starts in the top-left third; player 2 in the mirrored bottom-right third.
        start = self.pick(_START)
        distances_into(cells, w, h, start, self.from_start, self.queue)
        key = self.pick(_KEY)
        distances_into(cells, w, h, key, self.from_key, self.queue)
        exit_cell = self.pick(_EXIT)
        compass = self.pick(_COMPASS)
        direction = exit_direction(exit_cell, w, h)
        _put(kind, owner, variant, where, 0, _OBJ_KEY, 0, key, n)
        _put(kind, owner, variant, where, 2, _OBJ_EXIT, direction, exit_cell, n)
        _put(kind, owner, variant, where, 4, _OBJ_COMPASS, 0, compass, n)
        slot = 6
        for _ in range(artifact_pairs):
            artifact = self.pick(_ARTIFACT)
            _put(kind, owner, variant, where, slot, _OBJ_VISION, 0, artifact, n)
            owner[slot] = 0  # artifacts belong to nobody
            owner[slot + 1] = 0
            slot += 2
        self.rng = None
        return start


def _put(kind, owner, variant, where, slot, obj, direction, cell, n):
    # player 1's object at slot, player 2's mirror image at slot + 1 (facing the other way)
    kind[slot] = obj
    owner[slot] = 1
    variant[slot] = direction
    where[slot] = cell
    kind[slot + 1] = obj
    owner[slot + 1] = 2
    variant[slot + 1] = (direction + 2) % 4 if obj == _OBJ_EXIT else 0
    where[slot + 1] = mirror(cell, n)
