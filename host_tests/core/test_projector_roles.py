# What each role's view carries (seed 000 "Exits and results"): players their own inventory,
# vision moves, compass hint and own-exit status, the opponent only while visible; observers
# everything the seed lists. Players never get an observer's members. Both interpreters.
import json

from driver import new_match, play
from game import rules
from game.engine import Match
from game.projector import OBSERVER, Projector
from projector_model import check_view, records
from scenario import at, give, move, open_all, park_objects, put, put_exit

PLAYER_STATUS = ("p", "k", "vm", "rad", "cp", "xo", "xd", "res", "win", "opponent")
OPPONENT = ("p", "k")
OBSERVER_STATUS = ("players", "res", "win")
OBSERVER_SEAT = ("p", "k", "vm", "rad", "cp", "xo", "xd", "xt")
RECORD_MEMBERS = ("v", "t", "s", "r", "ph", "w", "h", "m", "i", "n", "st", "o", "c")


def _open_match():
    m = Match(7, 15, 15, cooldown_ms=0, countdown_ms=0, artifact_pairs=1)
    open_all(m)
    park_objects(m)
    m.start(0)
    m.pos[1] = at(m, 7, 7)
    m.pos[2] = at(m, 0, 14)
    return m


def _members(recs):
    docs = [json.loads(r.decode("utf-8")) for r in recs]
    for doc in docs:
        for key in doc:
            assert key in RECORD_MEMBERS, key
    return docs[0]["st"]


def test_player_status_has_only_player_members():
    proj = Projector()
    for seed in range(6):
        m = new_match(seed, ("small", "classic", "large")[seed % 3], countdown_ms=0)

        def on_step(m, kind, seat, arg, t, code):
            for role in (1, 2):
                st = _members(records(proj, m, role))
                for key in ("p", "k", "vm", "rad", "cp", "xo", "xd", "res", "win"):
                    assert key in st
                for key in st:
                    assert key in PLAYER_STATUS, key  # never "players", "xt"
                if "opponent" in st:
                    assert sorted(st["opponent"]) == sorted(OPPONENT)

        play(m, seed, 80, on_step)


def test_observer_status_has_everything_the_seed_lists():
    proj = Projector()
    for seed in range(6):
        m = new_match(seed, ("small", "classic", "large")[seed % 3], countdown_ms=0)
        play(m, seed, 400)
        st = _members(records(proj, m, OBSERVER))
        assert sorted(st) == sorted(OBSERVER_STATUS)
        assert len(st["players"]) == 2
        for seat in (1, 2):
            entry = st["players"][seat - 1]
            assert sorted(entry) == sorted(OBSERVER_SEAT)
            assert entry["p"] == m.pos[seat]
            assert entry["k"] == m.inventory[seat]
            assert entry["vm"] == m.vision[seat]
            assert entry["xo"] == m.exit_open[seat]
            assert entry["xt"] == m.exit_time[seat]
            assert entry["xd"] == m.exited[seat]
        assert st["res"] == rules.RESULT_NAMES[m.result]
        assert st["win"] == m.winner
        view = check_view(proj, m, OBSERVER)
        assert len(view["cells"]) == m.width * m.height
        present = sum(1 for s in range(m.object_count()) if m.obj_present[s])
        assert len(view["objects"]) == present


def test_driven_matches_reach_finished_views():
    # Exits opened, keys carried, results: the full life of a match through every role's view.
    proj = Projector()
    finished = 0
    for seed in range(12):
        m = new_match(seed, "small", countdown_ms=0)
        play(m, seed, 600)
        for role in (1, 2, OBSERVER):
            view = check_view(proj, m, role)
        if m.phase == rules.FINISHED:
            finished += 1
            assert view["st"]["res"] in ("win", "draw", "forfeit")
    assert finished > 0


def test_opponent_key_only_while_visible():
    proj = Projector()
    m = _open_match()
    give(m, 2, 1)  # seat 2 carries seat 1's key, far away
    st = check_view(proj, m, 1)["st"]
    assert "opponent" not in st
    assert b'"opponent"' not in b"".join(records(proj, m, 1))
    m.pos[2] = m.pos[1] + 2
    st = check_view(proj, m, 1)["st"]
    assert st["opponent"] == {"p": m.pos[2], "k": 1}
    # Seat 2's own view always carries its own inventory.
    assert check_view(proj, m, 2)["st"]["k"] == 1


def test_exited_opponent_is_not_shown():
    proj = Projector()
    m = _open_match()
    put_exit(m, 2, at(m, 14, 7), rules.E)
    m.pos[1] = at(m, 12, 7)
    m.pos[2] = at(m, 14, 7)
    give(m, 2, 2)
    assert move(m, 2, rules.W, 0) == rules.OK
    assert move(m, 2, rules.E, 1) == rules.OK
    assert m.exit_open[2]
    assert check_view(proj, m, 1)["st"]["opponent"]["p"] == m.pos[2]
    assert move(m, 2, rules.E, 2) == rules.OK
    assert m.exited[2]
    assert "opponent" not in check_view(proj, m, 1)["st"]
    assert not proj.opponent_visible(m, 1)
    st2 = check_view(proj, m, 2)["st"]
    assert st2["xo"] == 1 and st2["xd"] == 1
    obs = check_view(proj, m, OBSERVER)["st"]["players"][1]
    assert obs["xd"] == 1 and obs["xt"] == 2


def test_compass_is_a_bearing_and_the_own_exit_is_not_revealed():
    proj = Projector()
    m = _open_match()
    put_exit(m, 1, at(m, 0, 0), rules.N)
    here = m.pos[1]
    put(m, 4, here + 1)  # compass 1
    st = check_view(proj, m, 1)["st"]
    assert st["cp"] == -1
    assert move(m, 1, rules.E, 0) == rules.OK
    view = check_view(proj, m, 1)
    assert view["st"]["cp"] == 7  # NW: the exit is up and to the left
    assert 0 <= view["st"]["cp"] <= 7
    for obj in view["objects"]:
        assert obj[0] != rules.OBJ_EXIT  # the exit is far outside the square
    # The opponent's view never shows seat 1's hint.
    assert b'"cp":7' not in b"".join(records(proj, m, 2))
    # A successful move clears it.
    assert move(m, 1, rules.E, 1) == rules.OK
    assert check_view(proj, m, 1)["st"]["cp"] == -1


def test_exits_visible_only_inside_the_square():
    proj = Projector()
    m = _open_match()
    put_exit(m, 1, at(m, 14, 7), rules.E)
    put_exit(m, 2, at(m, 0, 7), rules.W)
    m.pos[1] = at(m, 11, 7)
    assert check_view(proj, m, 1)["objects"] == [(rules.OBJ_EXIT, 1, rules.E, at(m, 14, 7))]
    m.pos[1] = at(m, 3, 7)
    assert check_view(proj, m, 1)["objects"] == [(rules.OBJ_EXIT, 2, rules.W, at(m, 0, 7))]
    m.pos[1] = at(m, 7, 7)
    assert check_view(proj, m, 1)["objects"] == []


def test_roles_are_named_in_the_envelope():
    proj = Projector()
    m = Match(1)
    assert check_view(proj, m, 1)["r"] == "p1"
    assert check_view(proj, m, 2)["r"] == "p2"
    assert check_view(proj, m, OBSERVER)["r"] == "obs"
