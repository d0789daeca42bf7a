# The room survives kill -9 between matches (docs/log.md, "The room file"): the real firmware
# (tools/run_host.sh, the MicroPython unix port, a flash folder) killed with SIGKILL in the
# waiting room after a ruleset choice, and again after a won match of a best-of-3 series, then
# started on the same flash: both players get their seats back with their tokens
# (welcome with restarted:true), the series score, the ruleset and the match number are the
# ones before the kill.
import pytest
from game_board import start_game_board

from game_client import GameClient, both_ready, fetch_own_key_and_open_exit, run
from host_board import stop_host_board

pytestmark = [pytest.mark.upy, pytest.mark.slow]


def _last(client, t):
    return next((m for m in reversed(client.messages) if m.get("t") == t), None)


def _kill(board):
    process = board.board.process
    process.kill()  # SIGKILL: no cleanup of any kind
    process.wait()
    return board.log()


async def _back(url, tokens):
    """Both players come back with their tokens; an observer watches."""
    players = []
    for seat in (1, 2):
        p = await GameClient(url, "p%d" % seat).connect()
        welcome = await p.join(token=tokens[seat])
        assert welcome["seat"] == seat and welcome.get("restarted") is True, welcome
        players.append(p)
    obs = await GameClient(url, "obs").connect()
    await obs.join("watch", view="full")  # (steers by the whole maze: FAST allows it)
    return players[0], players[1], obs


def test_the_room_survives_kill_9_between_matches(upy_binary, tmp_path):
    board = start_game_board(upy_binary, tmp_path, reconnect_grace_ms=60000)
    try:

        async def lobby():
            p1 = await GameClient(board.ws_url, "p1").connect()
            w1 = await p1.join(name="ann")
            p2 = await GameClient(board.ws_url, "p2").connect()
            w2 = await p2.join(name="bob")
            reply = await p1.intent("rules", id="quick")  # best of 3, chosen by seat 1
            assert reply["t"] == "ack", reply
            return {1: w1["token"], 2: w2["token"]}

        tokens = run(lobby())
        _kill(board)
        board = start_game_board(upy_binary, tmp_path, reconnect_grace_ms=60000)

        async def first_match():
            p1, p2, obs = await _back(board.ws_url, tokens)
            await p1.until(lambda: _last(p1, "rules") is not None, 5.0, "rules")
            rules = _last(p1, "rules")
            assert rules["rs"]["id"] == "quick" and rules["by"] == 1
            await obs.until(lambda: obs.rooms, 5.0, "room")
            room = obs.rooms[-1]
            assert room["mn"] == 1 and room["rs"] == "quick"
            assert [p["name"] for p in room["p"]] == ["ann", "bob"]
            await both_ready(p1, p2)
            outward = await fetch_own_key_and_open_exit(p1, obs)
            reply = await p1.move(outward)
            assert reply["t"] == "ack", reply
            result = await obs.event("result", timeout=5)
            assert result["winner"] == 1
            await obs.event("phase", ph="finished")
            await obs.until(lambda: obs.rooms[-1]["sc"] == [1, 0], 5.0, "score")

        run(first_match())
        _kill(board)
        board = start_game_board(upy_binary, tmp_path, reconnect_grace_ms=60000)

        async def between():
            p1, p2, obs = await _back(board.ws_url, tokens)
            assert p1.welcome["mn"] == 2
            await obs.until(lambda: obs.rooms, 5.0, "room")
            room = obs.rooms[-1]
            assert room["sc"] == [1, 0] and room["rs"] == "quick" and room["mn"] == 2
            await both_ready(p1, p2)  # the series goes on: match 2 of it

        run(between())
        status = board.status()
        assert status["match"] == 2 and status["ruleset"] == "quick"
        assert "Traceback" not in board.log(), board.log()
    finally:
        stop_host_board(board.board)
