# A room that resets (issue 34), on the real firmware with real WebSocket clients: after a
# finished match whose players left (leave, or the grace period ran out), two new people get a
# fresh waiting room: no result, no end of the old match, nobody ready, no moves.

import pytest

from game_client import GameClient, both_ready, close_all, run

pytestmark = [pytest.mark.upy, pytest.mark.slow]


async def finished_match(url):
    """Ann and Bob play and the TV watches; Bob leaves: Ann wins by forfeit."""
    ann = await GameClient(url, "ann").connect()
    await ann.join(name="Ann")
    bob = await GameClient(url, "bob").connect()
    await bob.join(name="Bob")
    tv = await GameClient(url, "tv").connect()
    await tv.join("watch")
    await both_ready(ann, bob)
    assert (await bob.intent("leave"))["t"] == "ack"
    await ann.event("result", result="forfeit", winner=1)
    await tv.view_where(lambda v: v["ph"] == "finished", what="the finished match")
    return ann, bob, tv


async def newcomers_see_a_fresh_room(url, tv, finished_no):
    await tv.until(
        lambda: tv.rooms[-1]["mn"] == finished_no + 1 and tv.rooms[-1]["ph"] == "waiting",
        what="a fresh waiting room",
    )
    # (a TV gets no view of a waiting room: it shows no maze of the coming match)
    people = []
    for name in ("Cid", "Dee"):
        person = await GameClient(url, name).connect()
        welcome = await person.join(name=name)
        assert welcome["mn"] == finished_no + 1
        people.append(person)
    cid, dee = people
    for person in people:
        await person.until(
            lambda p=person: p.rooms and len(p.rooms[-1]["p"]) == 2 and all(p.rooms[-1]["p"]),
            what="both seats in the room line",
        )
        room = person.rooms[-1]
        assert room["ph"] == "waiting" and room["sc"] == [0, 0]
        assert [s["name"] for s in room["p"]] == ["Cid", "Dee"]
        assert [s["ready"] for s in room["p"]] == [False, False]
        view = await person.view_where(lambda v: v["ph"] == "waiting", what="waiting view")
        assert view["st"]["res"] == "none" and view["st"]["win"] == 0
        assert not [e for e in person.events if e["e"] == "result"]
    # they play a match of their own, from its start
    await both_ready(cid, dee)
    return cid, dee


def test_two_new_people_after_a_finished_match_see_a_fresh_waiting_room(game_board):
    async def scenario():
        url = game_board.ws_url
        ann, bob, tv = await finished_match(url)
        finished_no = tv.rooms[-1]["mn"]
        assert tv.rooms[-1]["p"][1] is None  # Bob's seat is free: the TV shows its join code
        assert (await ann.intent("leave"))["t"] == "ack"
        cid, dee = await newcomers_see_a_fresh_room(url, tv, finished_no)
        await close_all(ann, bob, tv, cid, dee)

    run(scenario())


def test_a_fresh_room_once_the_last_player_s_grace_period_ran_out(game_board):
    async def scenario():
        url = game_board.ws_url
        ann, bob, tv = await finished_match(url)
        finished_no = tv.rooms[-1]["mn"]
        await ann.close()  # Ann's phone goes away without a leave: her grace period runs
        grace_s = game_board.settings["reconnect_grace_ms"] / 1000
        await tv.until(
            lambda: tv.rooms[-1]["mn"] == finished_no + 1, timeout=grace_s + 5, what="the reset"
        )
        cid, dee = await newcomers_see_a_fresh_room(url, tv, finished_no)
        await close_all(bob, tv, cid, dee)

    run(scenario())


def test_a_newcomer_in_a_freed_seat_mid_result_gets_a_fresh_room(game_board):
    # Ann forfeits (here: Bob leaves), Cid takes the free seat while Ann reads her result
    async def scenario():
        url = game_board.ws_url
        ann, bob, tv = await finished_match(url)
        finished_no = tv.rooms[-1]["mn"]
        cid = await GameClient(url, "cid").connect()
        welcome = await cid.join(name="Cid")
        assert welcome["seat"] == 2 and welcome["mn"] == finished_no + 1
        view = await ann.view_where(lambda v: v["ph"] == "waiting", what="Ann's waiting room")
        assert view["st"]["res"] == "none"
        await ann.until(lambda: ann.rooms[-1]["mn"] == finished_no + 1, what="Ann's room")
        cview = await cid.view_where(lambda v: v["ph"] == "waiting", what="Cid's view")
        assert cview["st"]["res"] == "none"
        assert not [e for e in cid.events if e["e"] == "result"]
        await both_ready(ann, cid)
        await close_all(ann, bob, tv, cid)

    run(scenario())


# ---- nobody holds the room ------------------------------------------------------------------


async def from_address(url, name, source):
    client = GameClient(url, name)
    client.source = source  # a device of its own (127.0.0.1 is the host machine: no device)
    return await client.connect()


def test_one_device_holds_one_seat_and_the_seat_not_said_ready_is_freed(board_factory):
    board = board_factory(ready_timeout_ms=1500)

    async def scenario():
        url = board.ws_url
        phone = await from_address(url, "phone", "127.0.0.2")
        await phone.join(name="Hog")
        # the same phone's second `join play`: refused with a code, no second seat
        again = await from_address(url, "again", "127.0.0.2")
        assert await again.join(name="Hog2", expect="err") == {"t": "err", "code": "ONE_SEAT"}
        bob = await from_address(url, "bob", "127.0.0.3")
        assert (await bob.join(name="Bob"))["seat"] == 2
        await bob.until(
            lambda: bob.rooms and bob.rooms[-1]["p"][0] and "rl" in bob.rooms[-1]["p"][0]
        )
        assert 0 < bob.rooms[-1]["p"][0]["rl"] <= 1500
        assert (await bob.intent("ready"))["t"] == "ack"
        # the phone never says ready: its seat is freed when its time is out
        assert await phone.until_closed(10) == 1000
        assert phone.close_reason == "ready timeout"
        assert {"t": "err", "code": "READY_TIMEOUT"} in phone.errors
        await bob.until(lambda: bob.rooms[-1]["p"][0] is None, what="the freed seat")
        cid = await from_address(url, "cid", "127.0.0.4")
        assert (await cid.join(name="Cid"))["seat"] == 1
        assert (await cid.intent("ready"))["t"] == "ack"
        await cid.event("phase", ph="countdown")
        await close_all(again, bob, cid)

    run(scenario())
