# Fixtures for the WebSocket gateway tests (CPython): the REAL firmware (firmware/main.py under
# the MicroPython unix port, started by tools/run_host.sh through tools/host_board.py) with a
# board-sized heap and game settings fast enough for tests, driven by real WebSocket clients
# (tools/game_client.py, GameClient).
#
#   def test_x(game_board):            # a fresh board per test: no seat or match state leaks
#       url = game_board.ws_url
#   start_game_board(upy_binary, tmp_path, heap=..., **settings) for other settings.
import pytest
from game_board import FAST, GAME_HEAP, GameBoard, start_game_board  # noqa: F401

from host_board import stop_host_board


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
