# Seats across connections: reconnect with the token, wrong tokens, stale sockets, idle drop.
import asyncio
import socket
import struct
import time

import pytest
from waits import until

from game_client import (
    GameClient,
    both_ready,
    check_player_view,
    close_all,
    run,
    two_players_and_observer,
)
from raw_ws import RawClient

pytestmark = [pytest.mark.upy, pytest.mark.slow]


async def first_open_move(player):
    """Some move the player can make from where it stands (accepted: ack)."""
    for d in "NESW":
        reply = await player.move(d)
        if reply["t"] == "ack":
            return d, reply
        assert reply["code"] == "WALL", reply
    raise AssertionError("no open side")


def test_reconnect_with_the_token_resumes_seat_and_view(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        start = obs.view["st"]["players"][0]["p"]
        d, ack = await first_open_move(p1)
        c_done = ack["c"]
        moved = await p1.view_where(lambda v: v["s"] >= 3, what="moved view")
        token = p1.welcome["token"]
        await p1.ws.close()
        await obs.until(lambda: not obs.rooms[-1]["p"][0]["on"], what="seat 1 away")

        again = await GameClient(game_board.ws_url, "p1 again").connect()
        welcome = await again.join(token=token)
        assert welcome["seat"] == 1 and welcome["resumed"] is True
        assert welcome["token"] == token and welcome["last"] == c_done
        # The full current view arrives without asking, the same state as before.
        view = await again.view_where(lambda v: v["s"] == moved["s"])
        assert view["st"] == moved["st"] and view["cells"] == moved["cells"]
        check_player_view(view, 1)
        await obs.until(lambda: obs.rooms[-1]["p"][0]["on"], what="seat 1 back")
        # A resend of the already-applied sequence changes nothing: the move back after it is
        # the one change of state the observer sees (an applied resend would be one more).
        before = obs.view["s"]
        dup = await again.intent("move", c=c_done, d=d)
        assert dup == {"t": "ack", "c": c_done, "dup": True}
        # New sequences go on where the seat left off; the match is still running.
        reply = await again.move("NESW"[("NESW".index(d) + 2) % 4])
        assert reply["t"] == "ack" and reply["c"] == c_done + 1
        view = await obs.view_where(
            lambda v: v["st"]["players"][0]["p"] == start, what="seat 1 back at %d" % start
        )
        assert view["s"] == before + 1, (before, view["s"])
        # Seat 1's grace period ended when it came back. Seat 2 drops now: its grace period,
        # begun after seat 1's, ends first only if seat 1's no longer runs; its end decides the
        # match (the timeout only ends a hang).
        await p2.ws.close()
        result = await obs.event("result", timeout=30)
        assert result["result"] == "forfeit" and result["winner"] == 1, result
        await again.event("result", result="forfeit", winner=1)
        await close_all(again, p2, obs)

    run(scenario())


def test_a_wrong_token_never_takes_a_seat(game_board):
    async def scenario():
        p1 = await GameClient(game_board.ws_url, "p1").connect()
        await p1.join(name="ann")
        guesser = await GameClient(game_board.ws_url, "guesser").connect()
        refusal = await guesser.join(token="0" * 32, expect="err")
        assert refusal == {"t": "err", "code": "BAD_TOKEN"}
        refusal = await guesser.join(token="not-a-token", expect="err")
        assert refusal == {"t": "err", "code": "BAD_TOKEN"}
        # Not even the free seat 2: a token that holds no seat is refused, full stop.
        assert p1.rooms[-1]["p"][1] is None
        moved = await guesser.intent("move", d="N")
        assert moved["code"] == "NOT_JOINED"
        # Leaving p1 away (grace running) does not make its seat guessable either. The board's
        # close frame comes after it took seat 1's session away (net/gateway.py, serve: the
        # detach runs before the pump may write the frame).
        await p1.ws.close()
        assert await p1.until_closed() == 1000
        status = await asyncio.to_thread(game_board.status)
        assert status["players"] == 0 and status["seats"] == 1, status
        refusal = await guesser.join(token=p1.welcome["token"][::-1], expect="err")
        assert refusal["code"] == "BAD_TOKEN"
        # The same socket may still join properly afterwards.
        welcome = await guesser.join(name="gus")
        assert welcome["seat"] == 2
        await close_all(guesser)

    run(scenario())


def test_a_stale_socket_cannot_evict_the_reconnected_one(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        token = p1.welcome["token"]
        # The phone reconnects while its old socket still looks open to the server.
        fresh = await GameClient(game_board.ws_url, "p1 fresh").connect()
        welcome = await fresh.join(token=token)
        assert welcome["seat"] == 1 and welcome["resumed"] is True
        assert await p1.until_closed() == 4001
        assert "newer connection" in p1.close_reason
        # The old socket's end changed nothing: the seat stays with the fresh one. Its end is
        # over once its session is gone (/status: fresh, p2 and obs left); a room message it
        # sent would reach the observer before the pong of a ping sent after that.
        await asyncio.to_thread(
            until, lambda: game_board.status()["sessions"] == 3, "the old session's end"
        )
        assert (await obs.ping())["t"] == "pong"
        assert obs.rooms[-1]["p"][0]["on"] is True
        d, ack = await first_open_move(fresh)
        await fresh.view_where(lambda v: v["s"] >= 3)
        # No grace period runs for seat 1: seat 2 drops now, and its grace period, begun after
        # anything the old socket's end could have begun, ends first (the timeout only ends a
        # hang). The fresh socket is still served.
        await p2.ws.close()
        result = await obs.event("result", timeout=30)
        assert result["result"] == "forfeit" and result["winner"] == 1, result
        pong = await fresh.intent("ping")
        assert pong["t"] == "pong"
        assert not fresh.closed
        await close_all(fresh, p2, obs)

    run(scenario())


def test_stale_socket_traffic_is_ignored(game_board):
    # A raw socket plays the stale phone: unlike a WebSocket library it goes on sending after
    # the server's close frame, as a phone that has not noticed yet would.
    port = game_board.board.http_port

    async def scenario():
        stale = await asyncio.to_thread(RawClient, port)
        await asyncio.to_thread(stale.send, {"t": "join", "role": "play", "name": "old"})
        welcome = await asyncio.to_thread(stale.until, "welcome")
        p2 = await GameClient(game_board.ws_url, "p2").connect()
        await p2.join(name="bob")
        obs = await GameClient(game_board.ws_url, "obs").connect()
        await obs.join("watch")
        await asyncio.to_thread(stale.send, {"t": "ready", "c": 1})
        assert (await p2.intent("ready"))["t"] == "ack"
        await obs.event("phase", ph="active", timeout=3)
        fresh = await GameClient(game_board.ws_url, "p1 fresh").connect()
        assert (await fresh.join(token=welcome["token"]))["last"] == 1
        steady = obs.view["s"]
        for c in range(2, 10):  # the stale phone tries every direction, and to give up
            await asyncio.to_thread(stale.send, {"t": "move", "c": c, "d": "NESW"[c % 4]})
        await asyncio.to_thread(stale.send, {"t": "leave", "c": 10})
        assert await asyncio.to_thread(stale.close_code) == 4001
        # Once the stale session is gone (/status: fresh, p2 and obs left) nothing it sent can
        # be applied any more; a view it caused would reach the observer before the pong.
        await asyncio.to_thread(
            until, lambda: game_board.status()["sessions"] == 3, "the stale session's end"
        )
        assert (await obs.ping())["t"] == "pong"
        assert obs.view["s"] == steady  # none of it was applied
        assert obs.rooms[-1]["p"][0]["on"] is True
        assert (await fresh.intent("ping"))["t"] == "pong"
        first = await first_open_move(fresh)  # the seat's sequence went on from 1, not 10
        assert first[1]["c"] <= 6  # ping 2, then at most four moves (N, E, S, W): 3..6
        await close_all(fresh, p2, obs)
        stale.sock.close()

    run(scenario())


def test_idle_clients_are_dropped_and_may_reconnect(game_board):
    async def scenario():
        url = game_board.ws_url
        quiet = await GameClient(url, "quiet", heartbeat_s=None).connect()
        await quiet.join(name="zed")
        watcher = await GameClient(url, "quiet watcher", heartbeat_s=None).connect()
        await watcher.join("watch")
        chatty = await GameClient(url, "chatty").connect()  # pings every 0.4 s
        await chatty.join("watch")
        started = time.monotonic()
        assert await quiet.until_closed(4) == 4000
        assert quiet.close_reason == "idle"
        assert 1.8 <= time.monotonic() - started <= 3.5
        assert await watcher.until_closed(2) == 4000
        await chatty.until(lambda: not chatty.rooms[-1]["p"][0]["on"], what="seat 1 away")
        assert chatty.rooms[-1]["obs"] == 1
        assert not chatty.closed
        back = await GameClient(url, "back").connect()
        welcome = await back.join(token=quiet.welcome["token"])
        assert welcome["seat"] == 1 and welcome["resumed"] is True
        await close_all(back, chatty)

    run(scenario())


def test_abrupt_disconnects_are_not_errors(game_board):
    # Phones vanish without a close frame: a plain TCP close, and a reset. Neither is a server
    # error (the fixture fails the test on any traceback in the board's log); both leave the
    # seat away for the grace period.
    port = game_board.board.http_port

    async def scenario():
        obs = await GameClient(game_board.ws_url, "obs").connect()
        await obs.join("watch")
        raws = []
        for seat, reset in ((1, False), (2, True)):
            raw = await asyncio.to_thread(RawClient, port)
            raws.append(raw)
            await asyncio.to_thread(raw.send, {"t": "join", "role": "play"})
            await asyncio.to_thread(raw.until, "welcome")
            await obs.until(lambda s=seat: obs.rooms[-1]["p"][s - 1] is not None)
            if reset:
                raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                raw.sock.close()
            else:
                raw.sock.shutdown(socket.SHUT_WR)  # a FIN, even with unread data waiting
            await obs.until(
                lambda s=seat: not obs.rooms[-1]["p"][s - 1]["on"], what="seat %d away" % seat
            )
        assert (await obs.intent("ping"))["t"] == "pong"
        await close_all(obs)
        for raw in raws:
            raw.sock.close()

    run(scenario())


def test_sync_resends_the_whole_current_view_without_changing_anything(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        await first_open_move(p1)
        current = await p1.view_where(lambda v: v["s"] >= 3, what="moved view")
        await obs.view_where(lambda v: v["s"] == current["s"], what="the observer's moved view")
        for client in (p1, obs):  # players and observers alike
            count = len(client.views)
            await client.send_json({"t": "sync", "c": client.next_c()})
            await client.until(lambda c=client, n=count: len(c.views) > n, what="synced view")
            assert client.views[-1]["s"] == client.views[count - 1]["s"]
        assert p1.views[-1] == current  # the same state, every record again
        assert obs.view["s"] == p1.view["s"]  # nothing changed for anyone
        # Not joined: a coded refusal, no view.
        stranger = await GameClient(game_board.ws_url, "stranger").connect()
        reply = await stranger.intent("sync")
        assert reply["t"] == "err" and reply["code"] == "NOT_JOINED"
        assert stranger.view is None
        await close_all(p1, p2, obs, stranger)

    run(scenario())


def test_welcome_tells_the_countdown_and_status_tells_seats_held(game_board):
    async def scenario():
        p1 = await GameClient(game_board.ws_url, "p1").connect()
        welcome = await p1.join(name="Ann")
        assert welcome["cd"] >= 0 and welcome["cool"] > 0
        token = welcome["token"]
        # The board's close frame comes after it took the seat's session away (net/gateway.py,
        # serve: the detach runs before the pump may write the frame).
        await p1.ws.close()
        assert await p1.until_closed() == 1000
        status = await asyncio.to_thread(game_board.status)
        # Seat 1 is away but still held (inside its grace period): nobody else can take it.
        assert status["players"] == 0 and status["seats"] == 1
        again = await GameClient(game_board.ws_url, "p1 again").connect()
        assert (await again.join(token=token))["resumed"] is True
        await close_all(again)

    run(scenario())
