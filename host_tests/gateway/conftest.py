# Fixtures for the WebSocket gateway tests (CPython): the REAL firmware (firmware/main.py under
# the MicroPython unix port, started by tools/run_host.sh through tools/host_board.py) with a
# board-sized heap and game settings fast enough for tests, driven by real WebSocket clients
# (tools/game_client.py, GameClient).
#
#   def test_x(game_board):            # a fresh board per test: no seat or match state leaks
#       url = game_board.ws_url
#   start_game_board(upy_binary, tmp_path, heap=..., **settings) for other settings.
import json
import os
import urllib.request

import pytest

from host_board import start_host_board, stop_host_board
from hostenv import GATEWAY_HEAP

# A board-like heap (32-bit-equivalent words) with a margin: 2 players + 4 observers run at
# 84wK and this whole suite at 88wK with the firmware loaded from .py (docs/protocol.md,
# "Gateway figures"). GAME_TEST_HEAP overrides it, e.g. to find the floor again.
GAME_HEAP = os.environ.get("GAME_TEST_HEAP", GATEWAY_HEAP)

# Fast settings: a 9x9 maze, the shortest cooldown the settings allow, a countdown long enough
# to see, short grace and idle periods so their tests take a second or two.
FAST = {
    "preset": "small",
    "cooldown_ms": 100,
    "countdown_ms": 300,
    "reconnect_grace_ms": 1500,
    "idle_timeout_ms": 2000,
    "max_observers": 4,
    # the tests' watchers that check or steer by the whole maze ask for it (view "full"); the
    # others get the default, both players' own views (test_fair_tv.py)
    "tv": "full",
}


class GameBoard:
    def __init__(self, board, settings):
        self.board = board
        self.settings = settings
        self.ws_url = board.ws_url

    def log(self):
        return self.board.log()

    def alive(self):
        return self.board.alive()

    def status(self):
        """The board's /status figures (net/portal.py): seats, players, observers, sessions."""
        url = "http://127.0.0.1:%d/status" % self.board.http_port
        with urllib.request.urlopen(url, timeout=10) as resp:
            return json.loads(resp.read())


def start_game_board(upy_binary, workdir, heap=GAME_HEAP, **overrides):
    settings = dict(FAST)
    settings.update(overrides)
    board = start_host_board(upy_binary, workdir, json.dumps(settings), heap=heap)
    return GameBoard(board, settings)


@pytest.fixture
def game_board(upy_binary, tmp_path):
    board = start_game_board(upy_binary, tmp_path)
    try:
        yield board
        assert board.alive(), "the board died:\n" + board.log()
        assert "Traceback" not in board.log(), board.log()
    finally:
        stop_host_board(board.board)


@pytest.fixture
def board_factory(upy_binary, tmp_path):
    """start(**settings) -> a fresh game board with FAST settings changed by `settings`;
    every board started is stopped afterwards."""
    started = []

    def start(**settings):
        board = start_game_board(upy_binary, tmp_path / str(len(started)), **settings)
        started.append(board)
        return board

    try:
        yield start
    finally:
        for board in started:
            stop_host_board(board.board)
