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


# ---- nobody holds the room ------------------------------------------------------------------


def test_a_player_who_does_not_say_ready_in_time_loses_the_seat():
    host, clock = host_with(ready_timeout_ms=60000)
    ann = join(host, "ann")
    clock.wait(90000)  # alone: nobody waits for Ann, no deadline runs
    host.tick()
    assert host.seats[1].token is not None and "rl" not in ann.last("room")["p"][0]
    bob = join(host, "bob")  # an opponent: both have 60 s to say ready, shown in the room line
    room = bob.last("room")
    assert [p["rl"] for p in room["p"]] == [60000, 60000]
    clock.wait(20000)
    send(host, bob, '{"t":"ready","c":1}')
    room = ann.last("room")
    assert room["p"][0]["rl"] == 40000 and "rl" not in room["p"][1]
    clock.wait(39999)
    host.tick()
    assert ann.killed is None and host.seats[1].token is not None
    clock.wait(1)
    host.tick()
    # Ann's seat is free: she is told why (a coded error), her socket is closed
    assert ann.last("err") == {"t": "err", "code": "READY_TIMEOUT"}
    assert ann.killed == (1000, "ready timeout")
    assert host.seats[1].token is None and host.seats[2].token is not None
    room = bob.last("room")
    assert room["p"][0] is None and "rl" not in room["p"][1]
    # the next person takes the seat and the match can start
    cid = join(host, "cid")
    assert cid.last("welcome")["seat"] == 1
    send(host, cid, '{"t":"ready","c":1}')
    assert host.match.phase == rules.ACTIVE


def test_the_ready_deadline_is_off_at_0_and_never_runs_during_a_match():
    host, clock = host_with(ready_timeout_ms=0)
    ann = join(host, "ann")
    join(host, "bob")
    clock.wait(10**6)
    host.tick()
    assert ann.killed is None and "rl" not in ann.last("room")["p"][0]
    host, clock = host_with(ready_timeout_ms=1000)
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":1}')
    clock.wait(5000)
    host.tick()
    assert ann.killed is None and bob.killed is None


def test_a_new_ruleset_gives_both_players_the_whole_time_again():
    host, clock = host_with(ready_timeout_ms=10000, ruleset=None)
    ann = join(host, "ann")
    bob = join(host, "bob")
    clock.wait(9000)
    assert choose(host, ann, "quick")["t"] == "ack"
    clock.wait(9000)
    host.tick()
    assert ann.killed is None and bob.killed is None
    assert bob.last("room")["p"][0]["rl"] == 10000  # (the room line the choice sent)


class Device(FakeSession):
    def __init__(self, addr):
        super().__init__()
        self.addr = addr


def test_one_device_holds_at_most_one_seat():
    host, clock = host_with()
    phone = Device("192.168.4.2")
    send(host, phone, '{"t":"join","role":"play","name":"ann"}')
    again = Device("192.168.4.2")  # a second join play from the same phone: refused, coded
    assert send(host, again, '{"t":"join","role":"play","name":"ann2"}') == {
        "t": "err",
        "code": "ONE_SEAT",
    }
    assert host.seats[2].token is None and again.killed is None
    # the same phone may watch; another phone takes the seat
    assert send(host, again, '{"t":"join","role":"watch"}')["t"] == "room"
    bob = Device("192.168.4.3")
    send(host, bob, '{"t":"join","role":"play","name":"bob"}')
    assert bob.last("welcome")["seat"] == 2
    # raw sockaddr bytes (the unix port's accept) count the same way
    host, clock = host_with()
    send(host, Device(b"\xc0\xa8\x04\x02"), '{"t":"join","role":"play"}')
    assert (
        send(host, Device(b"\xc0\xa8\x04\x02"), '{"t":"join","role":"play"}')["code"] == "ONE_SEAT"
    )


def test_the_machine_the_host_board_runs_on_is_no_one_device():
    # make run and the tests: every client comes from 127.0.0.1
    for addr in ("127.0.0.1", b"\x7f\x00\x00\x01"):
        host, clock = host_with()
        send(host, Device(addr), '{"t":"join","role":"play"}')
        assert send(host, Device(addr), '{"t":"join","role":"play"}')["t"] == "room"
        assert host.seats[2].token is not None


def test_a_resume_keeps_its_seat_whatever_the_address():
    host, clock = host_with()
    phone = Device("192.168.4.2")
    send(host, phone, '{"t":"join","role":"play","name":"ann"}')
    token = phone.last("welcome")["token"]
    host.detach(phone)
    back = Device("192.168.4.9")  # (a new address after the phone rejoined the Wi-Fi)
    send(host, back, '{"t":"join","role":"play","token":"%s"}' % token)
    assert back.last("welcome")["resumed"] is True
    assert send(host, Device("192.168.4.9"), '{"t":"join","role":"play"}')["code"] == "ONE_SEAT"
    assert send(host, Device("192.168.4.2"), '{"t":"join","role":"play"}')["t"] == "room"
