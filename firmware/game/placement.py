# Placement of starts, keys, exits, compasses and vision artifacts. Everything of player 2 is
# the 180-degree mirror image of player 1's, and the maze is point-symmetric too, so both
# players face identical distances on every seed (exact fairness, see docs/rules.md).
from game.maze import distances, mirror
from game.rules import OBJ_COMPASS, OBJ_EXIT, OBJ_KEY, OBJ_VISION, E, N, S, W

_TRIES = 64  # random candidates tried per object before the constraint is relaxed


def exit_direction(cell, w, h):
    """The outward direction that leaves the map from a border cell (-1 if not on the border)."""
    x = cell % w
    y = cell // w
    if y == 0:
        return N
    if x == w - 1:
        return E
    if y == h - 1:
        return S
    if x == 0:
        return W
    return -1


def _free(cell, used, n):
    twin = mirror(cell, n)
    if twin == cell:  # the centre of an odd maze has no mirror partner
        return False
    for other in used:
        if other == cell or other == twin:
            return False
    return True


def _pick(rng, used, n, accept):
    """A random free cell for which accept(cell) holds; relaxes to any free cell."""
    for _ in range(_TRIES):
        cell = rng.below(n)
        if _free(cell, used, n) and accept(cell):
            return cell
    start = rng.below(n)
    for step in range(n):
        cell = (start + step) % n
        if _free(cell, used, n) and accept(cell):
            return cell
    for step in range(n):
        cell = (start + step) % n
        if _free(cell, used, n):
            return cell
    raise ValueError("maze too small for its objects")


def _border(cell, w, h):
    return exit_direction(cell, w, h) >= 0


def place(cells, w, h, rng, artifact_pairs):
    """(start1, start2, objects): objects is a list of (kind, owner, variant, cell) in the fixed
    order key1, key2, exit1, exit2, compass1, compass2, then the vision artifacts in pairs."""
    n = w * h
    span = w + h
    used = []
    # Player 1 starts in the top-left third; player 2 in the mirrored bottom-right third.
    start = _pick(rng, used, n, lambda c: c % w < (w + 2) // 3 and c // w < (h + 2) // 3)
    used.append(start)
    from_start = distances(cells, w, h, start)
    key = _pick(rng, used, n, lambda c: span // 2 <= from_start[c] <= span)
    used.append(key)
    from_key = distances(cells, w, h, key)
    exit_cell = _pick(
        rng,
        used,
        n,
        lambda c: _border(c, w, h) and from_key[c] >= span // 2 and from_start[c] >= 3,
    )
    used.append(exit_cell)
    compass = _pick(rng, used, n, lambda c: 2 <= from_start[c] <= span // 3 + 2)
    used.append(compass)
    direction = exit_direction(exit_cell, w, h)
    objects = [
        (OBJ_KEY, 1, 0, key),
        (OBJ_KEY, 2, 0, mirror(key, n)),
        (OBJ_EXIT, 1, direction, exit_cell),
        (OBJ_EXIT, 2, (direction + 2) % 4, mirror(exit_cell, n)),
        (OBJ_COMPASS, 1, 0, compass),
        (OBJ_COMPASS, 2, 0, mirror(compass, n)),
    ]
    for _ in range(artifact_pairs):
        artifact = _pick(rng, used, n, lambda c: from_start[c] >= 3)
        used.append(artifact)
        objects.append((OBJ_VISION, 0, 0, artifact))
        objects.append((OBJ_VISION, 0, 0, mirror(artifact, n)))
    return start, mirror(start, n), objects
