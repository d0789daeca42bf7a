# The projection boundary of seed 000: a player's view holds exactly the cells at Chebyshev
# distance <= the server-owned radius (3, or 6 under the vision effect), clipped by the map,
# never occluded by walls, rebuilt from zero every time. Both interpreters.
from game import rules
from game.engine import Match
from game.maze import distances
from game.projector import OBSERVER, Projector
from projector_model import check_view
from scenario import at, close, move, open_all, park_objects, put

ARTIFACT = 6  # first vision artifact slot


def _open_match(side=21):
    m = Match(7, side, side, cooldown_ms=0, countdown_ms=0, artifact_pairs=1)
    open_all(m)
    park_objects(m)
    m.start(0)
    m.pos[1] = at(m, side // 2, side // 2)
    m.pos[2] = at(m, 0, side - 1)
    return m


def _cheb(m, a, b):
    w = m.width
    return max(abs(a % w - b % w), abs(a // w - b // w))


def _ring(m, seat, d):
    here = m.pos[seat]
    return [c for c in range(m.width * m.height) if _cheb(m, c, here) == d]


def test_radius_3_holds_distance_3_and_not_4():
    proj = Projector()
    m = _open_match()
    view = check_view(proj, m, 1)
    assert m.radius(1) == 3 and view["st"]["rad"] == 3
    assert len(view["cells"]) == 49
    for c in _ring(m, 1, 3):
        assert c in view["cells"]
    for c in _ring(m, 1, 4):
        assert c not in view["cells"]


def test_vision_radius_6_holds_distance_6_and_not_7():
    proj = Projector()
    m = _open_match()
    m.vision[1] = rules.VISION_MOVES
    view = check_view(proj, m, 1)
    assert view["st"]["rad"] == 6 and view["st"]["vm"] == 10
    assert len(view["cells"]) == 169
    for c in _ring(m, 1, 6):
        assert c in view["cells"]
    for c in _ring(m, 1, 7):
        assert c not in view["cells"]


def test_vision_artifact_widens_then_the_square_shrinks_back():
    proj = Projector()
    m = _open_match()
    here = m.pos[1]
    put(m, ARTIFACT, here + 1)
    assert move(m, 1, rules.E, 0) == rules.OK
    assert len(check_view(proj, m, 1)["cells"]) == 169
    t = 0
    for k in range(10):
        t += 1
        assert move(m, 1, rules.W if k % 2 == 0 else rules.E, t) == rules.OK
        size = len(check_view(proj, m, 1)["cells"])
        assert size == (169 if k < 9 else 49), (k, size)


def test_square_clipped_at_borders_and_corners():
    proj = Projector()
    m = _open_match()
    w = m.width
    for x, y, cells in (
        (0, 0, 16),
        (w - 1, w - 1, 16),
        (0, 10, 4 * 7),
        (1, 10, 5 * 7),
        (10, w - 2, 7 * 5),
        (2, 2, 6 * 6),
    ):
        m.pos[1] = at(m, x, y)
        view = check_view(proj, m, 1)
        assert len(view["cells"]) == cells, (x, y, len(view["cells"]))
        for c in view["cells"]:
            assert 0 <= c < w * w


def test_whole_rows_when_the_square_spans_the_map():
    proj = Projector()
    m = _open_match(side=9)
    m.vision[1] = 10
    m.pos[1] = at(m, 4, 1)
    view = check_view(proj, m, 1)
    assert sorted(view["cells"]) == list(range(0, 8 * 9))


def test_walls_do_not_occlude():
    proj = Projector()
    m = _open_match()
    here = m.pos[1]
    for d in range(4):
        close(m, here, d)
    assert m.cells[here] == 0
    view = check_view(proj, m, 1)
    assert len(view["cells"]) == 49
    assert view["cells"][here] == 0
    # A real maze: some cells of the square are far away by path (or behind walls), and
    # every one of them is still in the view.
    m = Match(3, 15, 15)
    m.pos[1] = at(m, 7, 7)
    steps = distances(m.cells, 15, 15, m.pos[1])
    view = check_view(proj, m, 1)
    assert len(view["cells"]) == 49
    assert max(steps[c] for c in view["cells"]) > 3


def test_opponent_leaving_the_square_disappears():
    proj = Projector()
    m = _open_match()
    m.pos[2] = m.pos[1] + 3  # distance 3, east
    m.inventory[2] = 1
    m.key_carrier[1] = 2
    view = check_view(proj, m, 1)
    assert view["st"]["opponent"] == {"p": m.pos[2], "k": 1}
    assert proj.opponent_visible(m, 1) and proj.visible(m, 1, m.pos[2])
    assert move(m, 2, rules.E, 0) == rules.OK
    view = check_view(proj, m, 1)
    assert "opponent" not in view["st"]
    assert not proj.opponent_visible(m, 1) and not proj.visible(m, 1, m.pos[2])
    assert move(m, 2, rules.W, 1) == rules.OK
    assert check_view(proj, m, 1)["st"]["opponent"]["p"] == m.pos[2]


def test_object_leaving_the_square_disappears():
    proj = Projector()
    m = _open_match()
    here = m.pos[1]
    put(m, 0, here - 3)  # key 1, distance 3 west
    put(m, 4, here - 3 * m.width)  # compass 1, distance 3 north
    objects = check_view(proj, m, 1)["objects"]
    assert (rules.OBJ_KEY, 1, 0, here - 3) in objects
    assert (rules.OBJ_COMPASS, 1, 0, here - 3 * m.width) in objects
    assert move(m, 1, rules.E, 0) == rules.OK
    objects = check_view(proj, m, 1)["objects"]
    assert objects == [(rules.OBJ_COMPASS, 1, 0, here - 3 * m.width)]
    assert move(m, 1, rules.S, 1) == rules.OK
    assert check_view(proj, m, 1)["objects"] == []
    # Still on the ground: the observer keeps seeing both.
    assert len(check_view(proj, m, OBSERVER)["objects"]) == 2


def test_consumed_artifact_and_picked_key_disappear():
    proj = Projector()
    m = _open_match()
    here = m.pos[1]
    put(m, ARTIFACT, here + 1)
    put(m, 0, here + 2)
    assert len(check_view(proj, m, 1)["objects"]) == 2
    assert move(m, 1, rules.E, 0) == rules.OK
    assert check_view(proj, m, 1)["objects"] == [(rules.OBJ_KEY, 1, 0, here + 2)]
    assert move(m, 1, rules.E, 1) == rules.OK
    view = check_view(proj, m, 1)
    assert view["objects"] == []
    assert view["st"]["k"] == 1


def test_radius_follows_the_viewer_not_the_opponent():
    proj = Projector()
    m = _open_match()
    m.vision[2] = 10  # the opponent's effect does not widen seat 1's square
    assert len(check_view(proj, m, 1)["cells"]) == 49
