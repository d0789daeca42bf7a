# The maze: flags layout, sizes, reachability, point symmetry, loops, determinism.
from game import rules
from game.maze import distances, generate, mirror, neighbour, open_sides
from game.prng import Prng

SIZES = ((5, 5), (9, 9), (10, 8), (15, 15), (21, 21), (32, 32), (7, 30))


def test_passage_flags_are_one_bytearray_indexed_y_times_w_plus_x():
    cells = generate(9, 7, Prng(3), 40)
    assert type(cells) is bytearray and len(cells) == 63
    for cell in range(63):
        for d in range(4):
            other = neighbour(cell, d, 9, 7)
            if cells[cell] & rules.DIR_BITS[d]:
                assert other >= 0  # no passage leaves the map
                assert cells[other] & rules.DIR_BITS[rules.DIR_OPPOSITE[d]]  # both faces agree
                assert other == (cell // 9 + rules.DIR_DY[d]) * 9 + cell % 9 + rules.DIR_DX[d]


def test_every_cell_is_reachable_at_every_size():
    for w, h in SIZES:
        for seed in range(20):
            cells = generate(w, h, Prng(seed), 40)
            dist = distances(cells, w, h, 0)
            assert max(dist) < 0xFFFF, (w, h, seed)


def test_maze_is_point_symmetric():
    def rotated(flags):
        return (flags & 1) << 2 | (flags & 4) >> 2 | (flags & 2) << 2 | (flags & 8) >> 2

    for w, h in SIZES:
        cells = generate(w, h, Prng(w * 100 + h), 40)
        n = w * h
        for cell in range(n):
            assert cells[mirror(cell, n)] == rotated(cells[cell]), (w, h, cell)


def test_braiding_adds_loops_and_removes_dead_ends():
    w = h = 15
    perfect = generate(w, h, Prng(11), 0)
    braided = generate(w, h, Prng(11), 40)

    def passages(cells):
        return sum(open_sides(f) for f in cells) // 2

    def dead_ends(cells):
        return sum(1 for f in cells if open_sides(f) == 1)

    assert passages(braided) > w * h - 1  # more than a spanning tree: loops exist
    assert dead_ends(braided) < dead_ends(perfect)


def test_same_seed_and_settings_give_byte_identical_mazes():
    a = generate(15, 15, Prng(1234), 40)
    b = generate(15, 15, Prng(1234), 40)
    c = generate(15, 15, Prng(1235), 40)
    assert a == b and a != c


def test_golden_maze_bytes_are_the_same_on_every_interpreter():
    # Recorded once; CPython and MicroPython must both reproduce it byte for byte.
    cells = generate(9, 9, Prng(1), 40)
    assert bytes(cells).hex() == GOLDEN_9x9_SEED_1


GOLDEN_9x9_SEED_1 = (
    "060e0c060c060e0a0c050709030f0d030c05070b0a0a0905060b0d030c060a0c0309060d04070b0a"
    "0f0a0e0d010709060c030a09030c070e0905060a0a0e0d05030c070f0c060d05030a0b090309030b09"
)


def test_prng_is_xorshift32_and_reproducible():
    r = Prng(0)
    first = [r.next32() for _ in range(4)]
    r.seed(0)
    assert [r.next32() for _ in range(4)] == first
    assert all(0 < x <= 0xFFFFFFFF for x in first)
    assert first == GOLDEN_PRNG_SEED_0
    counts = [0] * 6
    for _ in range(6000):
        counts[r.below(6)] += 1
    assert min(counts) > 850 and max(counts) < 1150


GOLDEN_PRNG_SEED_0 = [2999971811, 2839979834, 3382371498, 888286093]


def test_a_lent_scratch_buffer_gives_the_same_matches():
    # game.maze.Workspace: parent and dist in a scratch buffer (net.match_host lends its 512
    # bytes) when their values fit a byte; the maze, its objects and starts are the same
    from game.engine import Match

    for w, h in ((5, 5), (9, 9), (15, 15), (15, 16), (21, 21)):
        for seed in range(8):
            scratch = bytearray(512)
            a = Match(seed, w, h)
            b = Match(seed, w, h, scratch=scratch)
            assert (a.cells, a.obj_cell, a.pos) == (b.cells, b.obj_cell, b.pos), (w, h, seed)
            b.reset(seed + 100)
            a.reset(seed + 100)
            assert (a.cells, a.obj_cell, a.pos) == (b.cells, b.obj_cell, b.pos), (w, h, seed)
            assert any(scratch) == (w * h < 0xFF)  # used only when the values fit a byte
