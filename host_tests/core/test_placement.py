# Placement: distinct cells, border exits with their outward direction, exact mirror fairness.
from game import rules
from game.engine import Match
from game.maze import Workspace, distances, mirror
from game.placement import Placer, exit_direction
from game.prng import Prng

_EXIT_RULE = 2  # placement's rule for an exit (a private const there)


def shortest_start_key_exit(m, seat):
    w, h = m.width, m.height
    start = m.start_cell[seat]
    key = m.obj_cell[seat - 1]
    exit_cell = m.exit_cell(seat)
    return distances(m.cells, w, h, start)[key] + distances(m.cells, w, h, key)[exit_cell]


def test_placement_puts_every_object_on_its_own_cell_away_from_the_starts():
    for name, w, h, pairs, braid, cooldown, countdown in rules.PRESETS:
        for seed in range(10):
            m = Match(seed, w, h, cooldown, countdown, pairs, braid)
            cells = [m.obj_cell[i] for i in range(m.object_count())]
            cells += [m.start_cell[1], m.start_cell[2]]
            assert len(set(cells)) == len(cells), (name, seed)
            assert m.object_count() == 6 + 2 * pairs


def test_one_key_exit_and_compass_per_player_and_shared_artifacts():
    m = Match(9, 15, 15, artifact_pairs=2)
    kinds = [(m.obj_kind[i], m.obj_owner[i]) for i in range(m.object_count())]
    assert kinds == [
        (rules.OBJ_KEY, 1),
        (rules.OBJ_KEY, 2),
        (rules.OBJ_EXIT, 1),
        (rules.OBJ_EXIT, 2),
        (rules.OBJ_COMPASS, 1),
        (rules.OBJ_COMPASS, 2),
        (rules.OBJ_VISION, 0),
        (rules.OBJ_VISION, 0),
        (rules.OBJ_VISION, 0),
        (rules.OBJ_VISION, 0),
    ]


def test_exits_are_on_the_border_with_an_outward_direction_off_the_map():
    for seed in range(30):
        m = Match(seed, 9, 11)
        for seat in (1, 2):
            cell = m.exit_cell(seat)
            d = m.exit_direction(seat)
            x, y = cell % m.width, cell // m.width
            nx, ny = x + rules.DIR_DX[d], y + rules.DIR_DY[d]
            assert not (0 <= nx < m.width and 0 <= ny < m.height)
            assert not m.cells[cell] & rules.DIR_BITS[d]
        assert exit_direction(m.exit_cell(1), 9, 11) == m.exit_direction(1)


def test_player_two_gets_the_mirror_image_of_player_one():
    for seed in range(20):
        m = Match(seed, 15, 15)
        n = 15 * 15
        assert m.start_cell[2] == mirror(m.start_cell[1], n)
        for a, b in ((0, 1), (2, 3), (4, 5), (6, 7), (8, 9)):
            assert m.obj_cell[b] == mirror(m.obj_cell[a], n)
        assert m.exit_direction(2) == (m.exit_direction(1) + 2) % 4


def test_start_key_exit_paths_are_equally_long_for_both_players():
    for name, w, h, pairs, braid, cooldown, countdown in rules.PRESETS:
        for seed in range(25):
            m = Match(seed, w, h, cooldown, countdown, pairs, braid)
            assert shortest_start_key_exit(m, 1) == shortest_start_key_exit(m, 2), (name, seed)
            assert shortest_start_key_exit(m, 1) >= (w + h) // 2


def test_starting_state_is_waiting_with_empty_inventories():
    m = Match(4, 9, 9)
    assert m.phase == rules.WAITING and m.state_seq == 0 and m.meeting_seq == 0
    assert list(m.inventory) == [0, 0, 0] and list(m.vision) == [0, 0, 0]
    assert m.compass[1] == rules.NO_BEARING and m.compass[2] == rules.NO_BEARING
    assert m.pos[1] == m.start_cell[1] and m.pos[2] == m.start_cell[2]
    assert m.key_location(1)[1] == 0 and m.key_location(2)[1] == 0


def test_reset_gives_a_fresh_match_identical_to_a_new_one():
    m = Match(1, 15, 15)
    m.start(0)
    m.advance(5000)
    m.reset(77)
    fresh = Match(77, 15, 15)
    assert m.digest() == fresh.digest()
    assert m.queue.count == 0 and m.phase == rules.WAITING


def test_an_exit_placed_without_its_distances_is_still_on_the_border():
    # No cell meets the exit's distances (every cell 0 steps from the start): the relaxed
    # pick must still be a border cell, or the exit would have no outward direction.
    w, h = 9, 9
    n = w * h
    for seed in range(40):
        placer = Placer(Workspace(n))
        placer.w, placer.h, placer.n, placer.count = w, h, n, 0
        placer.rng = Prng(seed)
        for cell in range(n):
            placer.from_start[cell] = 0
            placer.from_key[cell] = 0
        cell = placer.pick(_EXIT_RULE)
        assert exit_direction(cell, w, h) >= 0, (seed, cell)
        assert placer.used[0] == cell and placer.count == 1
