# Maze generation: passage flags (N=1, E=2, S=4, W=8) in one bytearray(w*h), cell y*w + x.
# The maze is point-symmetric (rotating it 180 degrees gives the same maze), so the two players,
# placed on mirrored cells, face exactly the same distances. It is built by a randomised
# Kruskal over pairs of mirrored walls, then braided: some dead ends get an extra opening, so
# there are loops to choose between and no player can be cornered by the other.
#
# The engine generates into preallocated arrays (a Workspace sized to the maze), so starting a
# match allocates nothing that could fail on a fragmented heap; generate() and distances()
# are the allocating conveniences for tests and tools.
from array import array

from game.rules import DIR_BITS, DIR_DX, DIR_DY, DIR_OPPOSITE


class Workspace:
    """The arrays a maze of n cells needs while it is generated and its objects placed,
    allocated once with the match. `parent` is the union-find forest, then the breadth-first
    queue; `walls` the shuffled walls (their cells; `south`: a bit per wall, set for the
    wall south of its cell, clear for the one east of it), then distances from the key;
    `dist` the distances from player 1's start. Each holds values below n, so an array of
    bytes does where they fit one (the classic 15x15 maze: 704 bytes, 225 with a scratch
    buffer lent for parent, dist and south; 32x32: 4 KB)."""

    def __init__(self, n, scratch=None):
        # parent, dist and south in scratch (2n + n/8 bytes that nothing else uses while a
        # maze is made: net.match_host lends its 512) when their values fit a byte
        m = (n + 7) >> 3
        if scratch and n < 0xFF and len(scratch) >= 2 * n + m:
            scratch = memoryview(scratch)
            self.parent = scratch[:n]
            self.dist = scratch[n : 2 * n]
            self.south = scratch[2 * n : 2 * n + m]
        else:
            self.parent = _array(n, n)
            self.dist = _array(n, n)
            self.south = bytearray(m)
        self.walls = _array(n, n)


def _array(size, bound):
    # `size` entries of values below `bound`, 0xFF (bytes) or 0xFFFF meaning "unreachable"
    if bound < 0xFF:
        return bytearray(size)
    return array("H", bytes(2 * size))


def mirror(cell, n):
    """The cell that a 180-degree rotation of a maze of n cells puts in place of cell."""
    return n - 1 - cell


def neighbour(cell, direction, w, h):
    """The index of the cell next to cell in direction, or -1 off the map."""
    x = cell % w + DIR_DX[direction]
    y = cell // w + DIR_DY[direction]
    if x < 0 or y < 0 or x >= w or y >= h:
        return -1
    return y * w + x


def open_passage(cells, cell, direction, w, h):
    """Open the wall between cell and its neighbour in direction, and its mirror image."""
    n = w * h
    other = neighbour(cell, direction, w, h)
    back = DIR_OPPOSITE[direction]
    cells[cell] |= DIR_BITS[direction]
    cells[other] |= DIR_BITS[back]
    # Rotating by 180 degrees turns every direction into its opposite.
    cells[mirror(cell, n)] |= DIR_BITS[back]
    cells[mirror(other, n)] |= DIR_BITS[direction]


def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def generate(w, h, rng, braid_percent):
    """A connected, point-symmetric maze of w x h cells as a new bytearray of passage flags."""
    cells = bytearray(w * h)
    generate_into(cells, w, h, rng, braid_percent, Workspace(w * h))
    return cells


def generate_into(cells, w, h, rng, braid_percent, work):
    """generate(), written into cells (w * h bytes) with work's arrays: allocates nothing."""
    n = w * h
    parent = work.parent
    walls = work.walls
    south = work.south
    for cell in range(n):
        cells[cell] = 0
        parent[cell] = cell
    for i in range(len(south)):
        south[i] = 0
    # Each wall is named by (cell, direction) with direction E or S, packed as cell*2 + (0|1).
    # Keep one wall of every mirrored pair: the one with the smaller packed id (fewer than n),
    # as its cell in walls and its direction as a bit of south.
    count = 0
    for cell in range(n):
        x = cell % w
        y = cell // w
        if x < w - 1:
            twin = mirror(cell + 1, n) * 2  # mirror of E wall is the E wall of mirror(cell + 1)
            if cell * 2 <= twin:
                walls[count] = cell
                count += 1
        if y < h - 1:
            twin = mirror(cell + w, n) * 2 + 1
            if cell * 2 + 1 <= twin:
                walls[count] = cell
                south[count >> 3] |= 1 << (count & 7)
                count += 1
    for i in range(count - 1, 0, -1):  # Fisher-Yates with our own PRNG
        j = rng.below(i + 1)
        cell = walls[i]
        walls[i] = walls[j]
        walls[j] = cell
        if (south[i >> 3] >> (i & 7) ^ south[j >> 3] >> (j & 7)) & 1:
            south[i >> 3] ^= 1 << (i & 7)
            south[j >> 3] ^= 1 << (j & 7)
    for i in range(count):
        cell = walls[i]
        direction = 2 if south[i >> 3] >> (i & 7) & 1 else 1
        other = neighbour(cell, direction, w, h)
        a = _find(parent, cell)
        b = _find(parent, other)
        if a == b:
            continue
        parent[a] = b
        ma = _find(parent, mirror(cell, n))
        mb = _find(parent, mirror(other, n))
        if ma != mb:
            parent[ma] = mb
        open_passage(cells, cell, direction, w, h)
    _braid(cells, w, h, rng, braid_percent)


def open_sides(flags):
    return (flags & 1) + (flags >> 1 & 1) + (flags >> 2 & 1) + (flags >> 3 & 1)


def _braid(cells, w, h, rng, percent):
    # Visit dead ends in index order; each gets, with the given chance, one more opening
    # (preferring a neighbour that is itself a dead end, which removes two at once).
    n = w * h
    for cell in range(n):
        if open_sides(cells[cell]) != 1 or rng.below(100) >= percent:
            continue
        best = -1
        for direction in range(4):
            if cells[cell] & DIR_BITS[direction]:
                continue
            other = neighbour(cell, direction, w, h)
            if other < 0 or other == mirror(cell, n):
                continue
            if best < 0 or open_sides(cells[other]) == 1:
                best = direction
        if best >= 0:
            open_passage(cells, cell, best, w, h)


def distances(cells, w, h, start):
    """Breadth-first step counts from start to every cell (0xFFFF where unreachable)."""
    n = w * h
    dist = array("H", bytes(2 * n))
    distances_into(cells, w, h, start, dist, array("H", bytes(2 * n)))
    return dist


def distances_into(cells, w, h, start, dist, queue):
    """distances(), written into dist with queue as the breadth-first queue (each at least
    w * h entries): allocates nothing."""
    n = w * h
    far = 0xFFFF if type(dist) is array else 0xFF  # "not reached (yet)"
    for cell in range(n):
        dist[cell] = far
    dist[start] = 0
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        cell = queue[head]
        head += 1
        for direction in range(4):
            if cells[cell] & DIR_BITS[direction]:
                other = neighbour(cell, direction, w, h)
                if dist[other] == far:
                    dist[other] = dist[cell] + 1
                    queue[tail] = other
                    tail += 1
