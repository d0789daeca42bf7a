# Fixtures for the network tests (CPython). The host board machinery is tools/host_board.py:
#
#   def test_x(host_board):        # the real firmware under micropython, one per test module
#       host_board.get("/status")
#
# For a board with its own settings.json or heap, call host_board.start_host_board and
# host_board.stop_host_board (in a try/finally) directly.
import os

import pytest

from host_board import start_host_board, stop_host_board
from hostenv import BOARD_HEAP

# The heap of these boards: the board heap (tools/hostenv.py); MAZE_TEST_HEAP overrides it.
# (The network periphery alone served at 48wK; with the game gateway, from .py sources, the
# firmware needs ~96wK.)
HOST_HEAP = os.environ.get("MAZE_TEST_HEAP", BOARD_HEAP)


@pytest.fixture(scope="session")
def host_heap():
    return HOST_HEAP


@pytest.fixture(scope="module")
def host_board(upy_binary, tmp_path_factory):
    board = start_host_board(upy_binary, tmp_path_factory.mktemp("host_board"), heap=HOST_HEAP)
    try:
        yield board
    finally:
        stop_host_board(board)
