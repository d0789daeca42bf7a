# Rulesets as data (game/rulesets.py, docs/rules.md "Rulesets") and line of sight
# (game/projector.py sight(), docs/rules.md "Line of sight"), on both interpreters.
from game import rules, ruleset_check, rulesets
from game.engine import CLASSIC, COMPASS_SLOT, Match
from game.projector import OBSERVER, Projector, opponent_visible, sight, visible
from harness import heap_locked
from projector_model import check_view, records
from scenario import arena, at, close, move, open_all


def test_classic_is_the_default_and_plays_seed_000_exactly():
    assert rulesets.DEFAULT == "classic" == rulesets.RULESETS[0][0]
    classic = rulesets.find("classic")[0]
    for seed in (0, 1, 77, 12345):
        a = rulesets.new_match(seed, classic)
        b = Match(seed)  # the engine's defaults are seed 000's numbers
        assert a.digest() == b.digest()
        for name in ("cooldown_ms", "countdown_ms", "rules"):
            assert getattr(a, name) == getattr(b, name), name
        assert b.rules == CLASSIC == (3, 6, 10, 200, 1, 0)
    assert classic[13] == 1  # one match


def test_at_least_three_rulesets_ship_and_each_is_valid_as_it_is():
    assert ruleset_check.ids()[:3] == ("classic", "quick", "sight")
    for entry in rulesets.RULESETS:
        assert ruleset_check.check(entry) == (entry, ()), entry[0]
        assert len(entry[2]) <= 80 and entry[3] in ("small", "classic", "large", "huge")
    assert rulesets.find("sight")[0][14] == 1  # line of sight
    assert rulesets.find("quick")[0][3] == "small"


def test_an_unknown_ruleset_falls_back_to_classic_and_says_so():
    for wrong in ("nope", "", None, 3, "CLASSIC"):
        entry, code = rulesets.find(wrong)
        assert entry[0] == "classic" and code == rulesets.UNKNOWN
    assert rulesets.find("quick")[1] is None


def test_check_clamps_numbers_out_of_bounds_and_refuses_wrong_types():
    base = list(rulesets.find("quick")[0])
    base[4] = 5  # cooldown below 100
    base[6] = 12  # radius above 9
    base[13] = 4  # best of an even number
    base[8] = "ten"  # not a number
    entry, problems = ruleset_check.check(tuple(base))
    assert entry[4] == 100 and entry[6] == 9 and entry[13] == 5 and entry[8] == 10
    assert problems == (
        ("cool", ruleset_check.CLAMPED),
        ("rad", ruleset_check.CLAMPED),
        ("vrad", ruleset_check.CLAMPED),  # at least the (clamped) radius
        ("vm", ruleset_check.BAD),
        ("bo", ruleset_check.CLAMPED),
    )
    # the vision radius is at least the radius
    base = list(rulesets.find("quick")[0])
    base[6], base[7] = 4, 2
    assert ruleset_check.check(tuple(base))[0][7] == 4
    base[3] = "giant"  # no such maze
    assert ruleset_check.check(tuple(base))[1][0] == ("preset", ruleset_check.BAD)
    # not a ruleset at all: classic, refused whole
    for wrong in (None, (), ("x",), list(rulesets.RULESETS[1]), (3,) + rulesets.RULESETS[1][1:]):
        assert ruleset_check.check(wrong) == (rulesets.RULESETS[0], (("id", ruleset_check.BAD),))


def test_each_ruleset_reaches_the_match():
    for entry in rulesets.RULESETS:
        m = rulesets.new_match(5, entry)
        _, w, h, _, _, _, _ = rules.preset(entry[3])
        assert (m.width, m.height, m.cooldown_ms, m.countdown_ms) == (w, h, entry[4], entry[5])
        assert m.rules[:3] == entry[6:9] and m.artifact_pairs == entry[9]
        assert m.rules[3:] == (entry[11], entry[10], entry[14])
    # a board's settings may fix the maze, cooldown and countdown
    m = rulesets.new_match(5, rulesets.RULESETS[2], "small", 120, 0)
    assert (m.width, m.cooldown_ms, m.countdown_ms, m.rules[5]) == (9, 120, 0, 1)


def test_the_engine_refuses_rule_numbers_out_of_bounds():
    for wrong in (
        (0, 6, 10, 200, 1, 0),
        (10, 10, 10, 200, 1, 0),
        (3, 2, 10, 200, 1, 0),
        (3, 6, 10, 200, 1, 2),
        (3, 6, 100, 200, 1, 0),
        (3, 6, 10, 200, 1),
        [3, 6, 10, 200, 1, 0],
        (3, 6, 10, True, 1, 0),
    ):
        try:
            Match(1, rules=wrong)
        except ValueError:
            continue
        raise AssertionError(wrong)


def test_vision_moves_and_radii_come_from_the_match():
    m = arena()
    m.rules = (2, 4, 3, 200, 1, 0)
    m.obj_cell[6] = at(m, 2, 1)
    m.obj_present[6] = 1
    assert m.radius(1) == 2
    assert move(m, 1, rules.E, 100) == rules.OK
    assert m.vision[1] == 3 and m.radius(1) == 4


def test_the_finish_window_comes_from_the_match():
    for window, second_at, result in (
        (200, 1300, rules.RESULT_WIN),
        (500, 1300, rules.RESULT_DRAW),
    ):
        m = arena()
        m.rules = (3, 6, 10, window, 1, 0)
        for seat in (1, 2):
            m.pos[seat] = m.exit_cell(seat)
            m.exit_open[seat] = 1
        assert move(m, 1, m.exit_direction(1), 1000) == rules.OK
        code = move(m, 2, m.exit_direction(2), second_at)
        assert m.phase == rules.FINISHED and m.result == result, (window, code)


def test_without_compasses_none_is_on_the_ground_and_none_gives_a_bearing():
    entry = list(rulesets.RULESETS[0])
    entry[10] = 0
    m = rulesets.new_match(9, tuple(entry))
    with_compass = rulesets.new_match(9, rulesets.RULESETS[0])
    assert list(m.cells) == list(with_compass.cells)  # the same maze and placement
    for owner in (1, 2):
        assert not m.obj_present[COMPASS_SLOT[owner]]
    m = arena()
    m.rules = (3, 6, 10, 200, 0, 0)
    m.obj_cell[COMPASS_SLOT[1]] = m.pos[1] + 1
    assert move(m, 1, rules.E, 100) == rules.OK
    assert m.compass[1] == rules.NO_BEARING and not m.ev_count > 1


# ---- line of sight -----------------------------------------------------------------------


def _sighted(side=11):
    """An open side x side map under line of sight, radius 5, seat 1 in the middle."""
    m = Match(3, side, side, 100, 0, 0, 40, (5, 5, 10, 200, 1, 1))
    open_all(m)
    m.pos[1] = at(m, side // 2, side // 2)
    m.pos[2] = at(m, 0, 0)
    return m


def _seen(m, seat=1):
    mask = bytearray(361)
    sight(m.cells, m.width, m.pos[seat], m.radius(seat), mask)
    here = m.pos[seat]
    w = m.width
    out = set()
    for c in range(w * m.height):
        dx = c % w - here % w
        dy = c // w - here // w
        if -9 <= dx <= 9 and -9 <= dy <= 9 and abs(dx) <= m.radius(seat):
            if abs(dy) <= m.radius(seat) and mask[(dy + 9) * 19 + dx + 9]:
                out.add((dx, dy))
    return out


def test_in_the_open_line_of_sight_is_the_whole_square():
    m = _sighted()
    assert len(_seen(m)) == 11 * 11


def test_a_corridor_shows_its_length_and_nothing_behind_its_walls():
    m = _sighted()
    w = m.width
    # a corridor running east-west through the middle row: close every wall north and south
    for x in range(w):
        close(m, at(m, x, 5), rules.N)
        close(m, at(m, x, 5), rules.S)
    assert _seen(m) == {(dx, 0) for dx in range(-5, 6)}
    # a wall across it, two cells east: the corridor ends there
    close(m, at(m, 7, 5), rules.E)
    assert _seen(m) == {(dx, 0) for dx in range(-5, 3)}


def test_a_corner_cell_is_seen_round_either_side_if_both_walls_of_that_side_are_open():
    m = _sighted()
    here = m.pos[1]
    # boxed in: only east open, and from the east cell only north
    for d in (rules.N, rules.S, rules.W):
        close(m, here, d)
    east = here + 1
    close(m, east, rules.E)
    close(m, east, rules.S)
    north_east = east - m.width
    for d in (rules.N, rules.E, rules.W):
        close(m, north_east, d)
    assert _seen(m) == {(0, 0), (1, 0), (1, -1)}
    # the same cell diagonal to an opening but with the corner's second wall closed: hidden
    close(m, east, rules.N)
    assert _seen(m) == {(0, 0), (1, 0)}


def test_a_line_through_cells_out_of_sight_is_blocked():
    m = _sighted()
    here = m.pos[1]
    # east of here: a wall; the line to (2, 1) passes (1, 0) first (crossings: x at 1/4,
    # y at 1/2, x at 3/4): out of sight, so (2, 1) is too, though (0, 1) -> (1, 1) is open
    close(m, here, rules.E)
    seen = _seen(m)
    assert (1, 0) not in seen and (2, 0) not in seen and (2, 1) not in seen
    assert (0, 1) in seen and (1, 1) in seen  # (1, 1) through the corner, round by the south


def test_visible_and_the_projector_follow_line_of_sight():
    m = _sighted()
    here = m.pos[1]
    for x in range(m.width):
        close(m, at(m, x, 5), rules.N)
        close(m, at(m, x, 5), rules.S)
    m.pos[2] = here - m.width  # right next to seat 1, behind the wall
    assert not visible(m, 1, m.pos[2]) and not opponent_visible(m, 1)
    assert visible(m, 1, here + 3) and not visible(m, 1, here + 6)
    m.pos[2] = here + 4
    assert opponent_visible(m, 1) and opponent_visible(m, 2)
    view = check_view(Projector(), m, 1)
    assert view["st"]["opponent"]["p"] == here + 4
    # out of sight: sent as 0, never as the cell's flags
    assert view["cells"][here - m.width] == 0 and m.cells[here - m.width] != 0
    m.rules = (5, 5, 10, 200, 1, 0)
    assert check_view(Projector(), m, 1)["cells"][here - m.width] == m.cells[here - m.width]


def test_line_of_sight_views_of_driven_matches_equal_the_reference_model():
    from driver import every, play

    proj = Projector()
    for seed in range(3):
        for ruleset in ("sight", "quick"):
            m = rulesets.new_match(seed, rulesets.find(ruleset)[0], None, None, 0)
            m.rules = m.rules[:5] + (1,)
            play(m, seed, 150, every(10, lambda m: [check_view(proj, m, r) for r in (1, 2, 0)]))


def test_a_line_of_sight_view_allocates_nothing():
    from driver import play

    proj = Projector()
    m = rulesets.new_match(4, rulesets.find("sight")[0], None, None, 0)
    play(m, 4, 40)
    for seat in (1, 2):
        for vision in (0, 10):
            m.vision[seat] = vision
            first = records(proj, m, seat)  # the seat's mask is made by its first such view

            def again(seat=seat):
                proj.forget()
                n = 0
                for i in range(proj.begin(m, seat)):
                    n += proj.write(i)
                return n

            assert heap_locked(again) == sum(len(r) for r in first)
    assert proj.begin(m, OBSERVER) >= 1


def test_the_projectors_visible_agrees_with_visible_and_allocates_nothing_once_made():
    from driver import play

    proj = Projector()
    m = rulesets.new_match(6, rulesets.find("sight")[0], None, None, 0)
    play(m, 6, 60)
    n = m.width * m.height
    for seat in (1, 2):
        for cell in range(0, n, 7):
            assert proj.visible(m, seat, cell) == visible(m, seat, cell), (seat, cell)

    def all_cells():
        k = 0
        for cell in range(n):
            if proj.visible(m, 1, cell):
                k += 1
        return k

    assert heap_locked(all_cells) == sum(1 for c in range(n) if visible(m, 1, c))
