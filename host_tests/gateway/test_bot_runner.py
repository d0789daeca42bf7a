# The bot runner (tools/bot_runner.py) against the real firmware on a host board: players that
# know only their own views play whole matches with rematches while observers watch, every match
# ends with a result, and each chaos behaviour does what it says without locking anyone out:
# the honest player and the witness observer stay on their one connection throughout.
import json
import subprocess
import sys
import urllib.request

import pytest
from waits import until

import bot_runner
from bot_runner import BotRunner, run_bots
from game_client import run
from hostenv import TOOLS


def status(board):
    url = "http://127.0.0.1:%d/status" % board.board.http_port
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def assert_every_match_ended(figures):
    assert figures["matches_started"] >= 2, figures
    assert figures["without_result"] == [], figures
    assert figures["matches_with_result"] == figures["matches_started"]
    assert set(figures["results"].values()) <= {"win", "draw", "forfeit"}


def assert_honest_ones_untouched(figures, board):
    for name in bot_runner.HONEST:
        row = figures["bots"][name]
        assert not row["chaotic"]
        assert row["joins"] == 1, (name, row)  # never closed, never had to come back
        assert row["reply_timeouts"] == 0 and row["closes"] == {}, (name, row)
    assert board.alive(), board.log()
    assert "Traceback" not in board.log(), board.log()


@pytest.fixture
def fast_chaos(monkeypatch):
    """Chaos often enough for a short run: an action every 0.3-0.8 s per chaotic bot."""
    monkeypatch.setattr(bot_runner, "CHAOS_EVERY_S", (0.3, 0.8))
    monkeypatch.setattr(bot_runner, "STALL_FOR_S", (0.5, 1.5))


@pytest.mark.slow
def test_players_play_matches_from_their_own_views_and_rematch(game_board):
    figures = run(run_bots(game_board.ws_url, players=2, observers=2, matches=3), timeout=120)
    assert_every_match_ended(figures)
    assert figures["matches_started"] == 3  # no rematch after the last result
    assert figures["connections"] == {"bots": 4, "junk": 0}
    p1, p2 = figures["bots"]["p1"], figures["bots"]["p2"]
    assert p1["acks"] > 0 and p2["acks"] > 0
    assert figures["moves"] == p1["acks"] + p2["acks"]
    # one intent -> view sample per accepted move
    for row in (p1, p2):
        assert row["latency_ms"]["all"]["n"] == row["acks"]
        assert row["latency_ms"]["all"]["p50"] > 0
    for name in ("obs1", "obs2"):
        assert figures["bots"][name]["views"] >= figures["moves"] // 2
    assert status(game_board)["match"] == 3


def test_a_move_target_stops_moving_and_everyone_is_still_served(game_board):
    async def scenario():
        runner = BotRunner(game_board.ws_url, players=2, observers=4)
        try:
            await runner.join()
            room = status(game_board)
            assert (room["players"], room["observers"], room["phase"]) == (2, 4, "waiting")
            figures = await runner.play(moves=60)
            await runner.check_served()  # pings answered, observers on the final state
            return figures
        finally:
            await runner.close()

    figures = run(scenario(), timeout=120)
    assert 60 <= figures["moves"] <= 62  # both players may have had one move on the way


@pytest.mark.slow
def test_rejoin_and_reconnect(game_board, fast_chaos):
    figures = run(
        run_bots(
            game_board.ws_url,
            players=2,
            observers=2,
            matches=4,
            behaviours=("rejoin", "reconnect"),
            rng_seed=3,
        ),
        timeout=180,
    )
    assert_every_match_ended(figures)
    assert_honest_ones_untouched(figures, game_board)
    chaos = figures["bots"]["p1"]["chaos"]
    assert chaos.get("rejoin", 0) + chaos.get("reconnect", 0) > 0, chaos
    assert figures["bots"]["p1"]["joins"] > 1
    if figures["bots"]["p1"]["chaos"].get("rejoin"):
        # leaving in a running match forfeits it; a new player then takes the seat
        assert "forfeit" in figures["results"].values() or figures["matches_started"] > 1


@pytest.mark.slow
def test_flood_is_refused_then_closed_and_the_flooder_comes_back(game_board, monkeypatch):
    monkeypatch.setattr(bot_runner, "CHAOS_EVERY_S", (0.5, 1.0))
    monkeypatch.setattr(bot_runner, "FLOOD_FRAMES", (150, 150))  # 40 let through + 100 refused
    figures = run(
        run_bots(game_board.ws_url, players=2, observers=2, matches=2, behaviours=("flood",)),
        timeout=180,
    )
    assert_every_match_ended(figures)
    assert_honest_ones_untouched(figures, game_board)
    flooders = [row for row in figures["bots"].values() if row["chaos"].get("flood")]
    assert flooders
    for row in flooders:
        assert row["errors"].get("RATE_LIMITED", 0) >= 100, row
        assert "1008" in row["closes"] or "4008" in row["closes"], row
        assert row["joins"] > 1


@pytest.mark.slow
def test_stalls_and_junk_connections_lock_nobody_out(game_board, fast_chaos):
    before = status(game_board)
    figures = run(
        run_bots(
            game_board.ws_url,
            players=2,
            observers=2,
            matches=3,
            behaviours=("stall", "junk"),
            rng_seed=5,
        ),
        timeout=180,
    )
    assert_every_match_ended(figures)
    assert_honest_ones_untouched(figures, game_board)
    assert figures["connections"]["junk"] > 0, figures
    assert sum(row["chaos"].get("stall", 0) for row in figures["bots"].values()) > 0
    # every place is given back once the last sockets have closed (a hang ends the wait)
    seen = []

    def given_back():
        seen.append(status(game_board))
        return not seen[-1]["sessions"] and seen[-1]["http_open"] <= 1

    try:
        until(given_back, "every place given back", timeout=15)
    except AssertionError as exc:
        raise AssertionError("%s: %s" % (exc, seen[-1])) from None
    after = seen[-1]
    assert after["uptime_ms"] > before["uptime_ms"]
    assert "MemoryError" not in game_board.log()


def test_limits_documented_match_the_firmware():
    from net import gateway, match_host, server

    assert bot_runner.RATE_BURST == gateway._RATE_BURST
    assert bot_runner.RATE_PER_S == gateway._RATE_PER_S
    assert bot_runner.RATE_ABUSE == gateway._RATE_ABUSE
    assert bot_runner.SOURCE_BURST == server._SOURCE_BURST
    assert bot_runner.SOURCE_PER_S == server._SOURCE_PER_S
    assert bot_runner.JOIN_S * 1000 == gateway.JOIN_MS
    assert bot_runner.FRAME_S * 1000 == gateway.FRAME_MS
    assert bot_runner.SEQ_AHEAD == match_host._SEQ_AHEAD


def test_runner_arguments_are_checked():
    with pytest.raises(ValueError):
        BotRunner("ws://127.0.0.1:1/ws", players=3)
    with pytest.raises(ValueError):
        BotRunner("ws://127.0.0.1:1/ws", behaviours=("teleport",))
    with pytest.raises(ValueError):
        BotRunner("ws://127.0.0.1:1/ws", schedule="sometimes")
    runner = BotRunner("http://127.0.0.1:8080/", behaviours=bot_runner.BEHAVIOURS)
    assert runner.url == "ws://127.0.0.1:8080/ws"
    assert [b.chaotic for b in runner.bots] == [True, False, False, True, True, True]
    assert len({b.source for b in runner.bots}) == 6  # an address each on loopback
    assert BotRunner("ws://192.168.4.1/ws").bots[0].source is None  # a real board: no


def test_cli_plays_against_a_board_page_url(game_board):
    done = subprocess.run(
        [
            sys.executable,
            str(TOOLS / "bot_runner.py"),
            game_board.board.url,  # http://127.0.0.1:PORT/: the runner finds /ws
            "--matches",
            "1",
            "--observers",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["matches_with_result"] == 1 and figures["moves"] > 0
