# Whole matches against the real firmware: a win, a draw inside the finish window, a forfeit
# when the grace period runs out, and a rematch; with what each role may and may not see.
import asyncio
import time

import pytest

from bots import BITS, DIRS, inside
from game_client import (
    GameClient,
    both_ready,
    check_observer_view,
    check_player_view,
    close_all,
    fetch_own_key_and_open_exit,
    run,
    two_players_and_observer,
)

pytestmark = [pytest.mark.upy, pytest.mark.slow]

PRIVATE_EVENTS = ("compass", "vision")  # only ever for the seat itself and the observers


def check_entitlements(p1, p2, obs):
    for seat, player in ((1, p1), (2, p2)):
        for view in player.views:
            check_player_view(view, seat)
        for ev in player.events:
            if ev["e"] in PRIVATE_EVENTS:
                assert ev["seat"] == seat, (seat, ev)
    for view in obs.views:
        check_observer_view(view)


def test_full_match_to_a_win(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        assert p1.welcome["seat"] == 1 and p2.welcome["seat"] == 2
        assert p1.welcome["token"] != p2.welcome["token"]
        assert len(p1.welcome["token"]) == 32
        assert "token" not in obs.welcome
        assert (await p1.intent("ready"))["t"] == "ack"
        assert (await p2.intent("ready"))["t"] == "ack"
        # The countdown starts at once and ends on the timer, with nobody sending anything.
        countdown = await obs.event("phase", ph="countdown")
        assert countdown["ms"] == 300
        early = await p1.move("N", retry_cooldown=False)
        assert early == {"t": "err", "c": early["c"], "code": "COUNTDOWN"}
        for client in (p1, p2, obs):
            await client.event("phase", ph="active", timeout=3)
        maze = await obs.view_where(lambda v: v["ph"] == "active")
        check_observer_view(maze)
        assert len(maze["objects"]) == 8  # 2 keys, 2 exits, 2 compasses, 1 pair of artifacts

        outward = await fetch_own_key_and_open_exit(p1, obs)
        reply = await p1.move(outward)  # (sent again while the last step's cooldown runs)
        assert reply["t"] == "ack" and reply["cs"] > 0
        await obs.event("exited", seat=1, first=True)
        # Nobody sends anything now: the timer closes the 200 ms finish window.
        for client in (p1, p2, obs):
            result = await client.event("result", timeout=3)
            assert result["result"] == "win" and result["winner"] == 1
            await client.event("phase", ph="finished")
        final = await obs.view_where(lambda v: v["ph"] == "finished")
        assert final["st"]["res"] == "win" and final["st"]["win"] == 1
        assert final["st"]["players"][0]["xd"] == 1 and final["st"]["players"][0]["xt"] >= 0
        await p2.view_where(lambda v: v["ph"] == "finished" and v["st"]["res"] == "win")
        # The observer heard every event of seat 1's walk; the opponent only what it saw.
        assert {"key_picked", "exit_opened", "exited"} <= {e["e"] for e in obs.events}
        assert any(e["e"] == "key_picked" and e["seat"] == 1 for e in p1.events)
        check_entitlements(p1, p2, obs)
        # Finished: moves are refused with the engine's code and the client sequence.
        late = await p2.move("N", retry_cooldown=False)
        assert late["t"] == "err" and late["code"] == "PHASE"
        await close_all(p1, p2, obs)

    run(scenario())


def test_draw_inside_the_finish_window(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        await obs.view_where(lambda v: v["ph"] == "active")
        out1, out2 = await asyncio.gather(
            fetch_own_key_and_open_exit(p1, obs), fetch_own_key_and_open_exit(p2, obs)
        )
        # Both out within the 200 ms window of the board's clock: p1 steps off its exit and
        # back after p2's last step was acknowledged, so p2's cooldown ends before p1's. p1
        # goes out once its own has ended (a refusal is sent again); p2 goes out as soon as
        # that is acknowledged, one round trip later, and its cooldown is over by then.
        exit1, maze = p1.view["st"]["p"], obs.view
        side = next(
            d
            for d in range(4)
            if maze["cells"][exit1] & BITS[d] and inside(exit1, d, maze["w"], maze["h"])
        )
        for d in (side, (side + 2) % 4):
            reply = await p1.move(DIRS[d])
            assert reply["t"] == "ack", reply
        r1 = await p1.move(out1)
        r2 = await p2.move(out2, retry_cooldown=False)
        assert r1["t"] == "ack" and r2["t"] == "ack", (r1, r2)
        for client in (p1, p2, obs):
            result = await client.event("result", timeout=3)
            assert result == {**result, "result": "draw", "winner": 0}
        final = await obs.view_where(lambda v: v["ph"] == "finished")
        assert final["st"]["res"] == "draw"
        times = [seat["xt"] for seat in final["st"]["players"]]
        assert min(times) >= 0 and abs(times[0] - times[1]) <= 200
        check_entitlements(p1, p2, obs)
        await close_all(p1, p2, obs)

    run(scenario())


def test_forfeit_when_the_grace_period_ends(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        # The board starts the grace period when it notices the drop, which is after this
        # moment (and before close() returns: the close waits out the board's linger).
        closing = time.monotonic()
        await p2.ws.close()  # the phone goes away without a word
        await obs.until(
            lambda: obs.rooms and obs.rooms[-1]["p"][1] and not obs.rooms[-1]["p"][1]["on"],
            what="seat 2 shown away",
        )
        # However loaded the machine, the forfeit comes at the end of the grace period and
        # never before it (the board's clock counts whole milliseconds: 10 ms of slack); the
        # timeout only ends a hang.
        result = await p1.event("result", timeout=30)
        waited = time.monotonic() - closing
        assert result["result"] == "forfeit" and result["winner"] == 1
        grace_s = game_board.settings["reconnect_grace_ms"] / 1000
        assert waited >= grace_s - 0.01, (waited, grace_s)
        await obs.event("result", result="forfeit", winner=1)
        await obs.until(lambda: obs.rooms[-1]["p"][1] is None, what="seat 2 freed")
        # The freed seat can be taken by someone new, who can then ask for a rematch.
        p3 = await GameClient(game_board.ws_url, "p3").connect()
        welcome = await p3.join(name="cy")
        assert welcome["seat"] == 2 and welcome["token"] != p2.welcome["token"]
        await close_all(p1, p2, obs, p3)

    run(scenario())


def test_rematch_with_a_new_seed(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        first = await obs.view_where(lambda v: v["ph"] == "active")
        assert (await p1.intent("leave"))["t"] == "ack"  # giving up is a forfeit too
        await p2.event("result", result="forfeit", winner=2)
        assert await p1.until_closed() == 1000
        p1 = await GameClient(game_board.ws_url, "p1b").connect()
        assert (await p1.join(name="ann"))["seat"] == 1
        # a newcomer in the freed seat gets a fresh waiting room: match 2, never the last
        # match's result (docs/protocol.md, "a room that resets")
        await obs.until(lambda: obs.rooms[-1]["mn"] == 2, what="a fresh room")
        assert obs.rooms[-1]["ph"] == "waiting"
        for client in (p1, p2, obs):
            client.events.clear()
        assert (await p1.intent("rematch"))["t"] == "ack"  # (a rematch is a ready here)
        assert (await p2.intent("rematch"))["t"] == "ack"
        for client in (p1, p2, obs):
            await client.event("phase", ph="countdown")
            await client.event("phase", ph="active", timeout=3)
        await obs.until(lambda: obs.rooms[-1]["mn"] == 2, what="match 2")
        second = await obs.view_where(lambda v: v["ph"] == "active")
        assert second["st"]["res"] == "none"
        assert second["cells"] != first["cells"] or second["objects"] != first["objects"]
        await close_all(p1, p2, obs)

    run(scenario())
