# Fixtures for the network tests (CPython). The host board machinery is in netboard.py:
#
#   def test_x(host_board):        # the real firmware under micropython, one per test module
#       host_board.get("/status")
#
# For a board with its own settings.json or heap, call netboard.start_host_board and
# netboard.stop_host_board (in a try/finally) directly.
import pytest
from netboard import HOST_HEAP, start_host_board, stop_host_board


@pytest.fixture(scope="session")
def host_heap():
    return HOST_HEAP


@pytest.fixture(scope="module")
def host_board(upy_binary, tmp_path_factory):
    board = start_host_board(upy_binary, tmp_path_factory.mktemp("host_board"))
    try:
        yield board
    finally:
        stop_host_board(board)
