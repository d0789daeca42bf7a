# The game boards of the gateway tests: the REAL firmware (firmware/main.py under the
# MicroPython unix port, started by tools/run_host.sh through tools/host_board.py) with a
# board-sized heap and game settings fast enough for tests (conftest.py's fixtures use these;
# a test that needs other settings imports start_game_board from here: a module of its own, as
# `from conftest import ...` may find another directory's conftest under xdist).
import json
import os
import urllib.request

from host_board import start_host_board
from hostenv import GATEWAY_HEAP

# The board heap (hostenv.GATEWAY_HEAP: the firmware is loaded from .py sources here, compiled
# at import; docs/protocol.md, "Gateway figures"). GAME_TEST_HEAP overrides it, e.g. to find
# the floor again.
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
