# A room that resets (issue 34), in net.match_host without sockets (CPython, fast, a fake tick
# clock): once a finished match's players are gone (leave, or the grace period ran out) the
# room is a fresh waiting room; a newcomer who takes a freed seat never sees, nor is named in,
# the last match's result; when both players of a series leave, the series ends and the
# newcomers choose the ruleset afresh.
from test_lobby_rules import choose, host_with, join
from test_match_host import FakeSession, send

from game import rules


def finished_by_forfeit(host, clock):
    """Ann and Bob play; Bob leaves: Ann wins by forfeit. Returns (ann, bob)."""
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":1}')
    assert host.match.phase == rules.ACTIVE
    send(host, bob, '{"t":"leave","c":2}')
    host.detach(bob)
    host.tick()
    assert host.match.phase == rules.FINISHED and host.match.result == rules.RESULT_FORFEIT
    return ann, bob


def test_both_players_gone_after_the_end_leave_a_fresh_waiting_room():
    host, clock = host_with(reconnect_grace_ms=5000)
    ann, _ = finished_by_forfeit(host, clock)
    finished_no = host.match_no
    # Ann stays on her result for a while (a seat is free; nobody new came) ...
    clock.wait(1000)
    host.tick()
    assert host.match.phase == rules.FINISHED and host.match_no == finished_no
    # ... then closes her browser and her grace period runs out.
    host.detach(ann)
    clock.wait(4999)
    host.tick()
    assert host.match.phase == rules.FINISHED
    clock.wait(1)
    host.tick()
    m = host.match
    assert m.phase == rules.WAITING and m.result == rules.RESULT_NONE and m.winner == 0
    assert host.match_no == finished_no + 1
    assert host.seats[1].token is None and host.seats[2].token is None
    # Two new people: a waiting room, no end of any match, nobody ready, a score of 0 - 0.
    cid = join(host, "cid")
    dee = join(host, "dee")
    for newcomer in (cid, dee):
        kinds = [f["t"] for f in newcomer.frames]
        assert "maze" not in kinds, kinds
        assert newcomer.last("welcome")["mn"] == finished_no + 1
        room = newcomer.last("room")
        assert room["ph"] == "waiting" and room["mn"] == finished_no + 1
        assert room["sc"] == [0, 0]
        assert [p["ready"] for p in room["p"]] == [False, False]
        assert [p["name"] for p in room["p"]] == ["cid", "dee"]
    # and they play a match of their own from its start
    send(host, cid, '{"t":"ready","c":1}')
    send(host, dee, '{"t":"ready","c":1}')
    assert host.match.phase == rules.ACTIVE and host.moves[1:] == [0, 0]


def test_a_newcomer_in_a_freed_seat_is_never_named_in_the_last_result():
    # Ann forfeits, Cid takes her seat: Bob must not read "Cid gave up", Cid not "You forfeited"
    host, clock = host_with(reconnect_grace_ms=5000)
    bob, ann = finished_by_forfeit(host, clock)  # (seat 1 stays, seat 2 forfeits)
    finished_no = host.match_no
    send(host, bob, '{"t":"rematch","c":2}')  # Bob had asked for a rematch against Ann
    cid = join(host, "cid")
    assert cid.last("welcome")["seat"] == 2
    assert "maze" not in [f["t"] for f in cid.frames]  # no end of Ann's match for Cid
    m = host.match
    assert m.phase == rules.WAITING and m.result == rules.RESULT_NONE
    assert host.match_no == finished_no + 1
    room = bob.last("room")  # Bob's page: a new match number (it forgets the old end)
    assert room["mn"] == finished_no + 1 and room["ph"] == "waiting"
    assert [p["ready"] for p in room["p"]] == [False, False]  # the rematch was for Ann
    # a late spectator gets no end of a match either
    tv = join(host, "", "watch")
    assert "maze" not in [f["t"] for f in tv.frames]


def test_a_spectator_still_gets_the_end_while_a_player_stays_on_the_result():
    host, clock = host_with(reconnect_grace_ms=5000)
    finished_by_forfeit(host, clock)
    tv = join(host, "", "watch")
    assert "maze" in [f["t"] for f in tv.frames]
    assert tv.last("room")["p"][1] is None  # the free seat: the TV shows its join code


def test_when_both_players_of_a_series_leave_newcomers_choose_afresh():
    host, clock = host_with(ruleset=None, reconnect_grace_ms=5000)
    ann = join(host, "ann")
    bob = join(host, "bob")
    assert choose(host, ann, "quick")["t"] == "ack"  # best of 3
    send(host, ann, '{"t":"ready","c":2}')
    send(host, bob, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"leave","c":2}')
    host.detach(bob)
    host.tick()  # match 1 of the series: Ann wins by forfeit ...
    assert host.match.phase == rules.FINISHED
    # ... and Ann, alone now, may already choose: the series ended with Bob's seat
    assert choose(host, ann, "classic", c=3)["t"] == "ack"
    send(host, ann, '{"t":"leave","c":4}')
    host.detach(ann)
    host.tick()
    assert host.match.phase == rules.WAITING and host.chooser == 0
    cid = join(host, "cid")
    dee = join(host, "dee")
    assert cid.last("rules")["by"] == 1
    assert choose(host, cid, "quick")["t"] == "ack"  # no PHASE: a new series, chosen afresh
    assert host.score == [0, 0, 0]
    assert dee.last("room")["sc"] == [0, 0]


def test_a_best_of_3_series_in_progress_still_refuses_a_new_ruleset():
    host, clock = host_with(ruleset=None)
    ann = join(host, "ann")
    bob = join(host, "bob")
    assert choose(host, ann, "quick")["t"] == "ack"
    send(host, ann, '{"t":"ready","c":2}')
    send(host, bob, '{"t":"ready","c":1}')
    host.match.forfeit(2, host.now_ms())  # (the engine's forfeit: Bob keeps his seat)
    host._after(-1)
    assert host.match.phase == rules.FINISHED and host.score[1] == 1
    assert choose(host, ann, "classic", c=3) == {"t": "err", "c": 3, "code": "PHASE"}


def test_a_player_s_own_resume_after_the_end_still_gets_the_end():
    host, clock = host_with(reconnect_grace_ms=5000)
    ann, _ = finished_by_forfeit(host, clock)
    token = ann.last("welcome")["token"]
    host.detach(ann)
    back = FakeSession()
    send(host, back, '{"t":"join","role":"play","token":"%s"}' % token)
    assert "maze" in [f["t"] for f in back.frames]
    assert host.match.phase == rules.FINISHED
