# A phone that stops reading (net/gateway.py, Session.rest and flush; net/views.py, hold and
# release), on the real firmware under the unix port. The phone's socket has a small receive
# window, so the board's socket soon takes only part of a frame: the rest waits with the
# session, and a flush task sends it once the phone reads again. The phone then has every frame
# whole and in order and ends with the newest view; nobody else waits for it meanwhile. With no
# heap for the copy of a view's rest (partial_writes.py makes that copy fail, as a fragmented
# heap does), no view is written to anyone until the rest is out, then everyone gets the
# newest one; nothing is lost or corrupted either way. (The byte accounting of partial writes
# and the hold itself are tested on CPython too: test_write_path.py.)
import asyncio
import json
import socket
import time
from pathlib import Path

import pytest

from game_client import GameClient, both_ready, close_all, run
from raw_ws import masked, server_frames, upgrade
from ws_game_client import WsGameClient

pytestmark = [pytest.mark.upy, pytest.mark.slow]

PRELUDE = Path(__file__).with_name("partial_writes.py")
SLOW = "127.0.0.3"  # the slow phone's own loopback address (its own per-source limits)
# A small window and segment: the board's send buffer for this socket stays small too (Linux
# sizes it from the segment size), so a few dozen views fill it.
SLOW_OPTIONS = (
    (socket.SOL_SOCKET, socket.SO_RCVBUF, 1024),
    (socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536),
)
MOVES_MAX = 400  # bounded: the socket is full long before this


def _open_side(view):
    """A direction the player can move from its cell, and the way back."""
    flags = view["cells"].get(view["st"]["p"])
    assert flags is not None, "own cell not in the view"
    for d, bit, back in (("N", 1, "S"), ("E", 2, "W"), ("S", 4, "N"), ("W", 8, "E")):
        if flags & bit:
            return d, back
    raise AssertionError("a cell with no open side")


def _drain(sock, quiet_s=3.0, total_s=30):
    """Everything the board sends until it has been quiet for quiet_s (bounded by total_s).
    (What the board's socket holds arrives without the board running; only the last frame's
    rest waits for its flush task: quiet_s is generous for a loaded machine.)"""
    sock.settimeout(0.2)
    data = b""
    last = start = time.monotonic()
    while time.monotonic() - last < quiet_s and time.monotonic() - start < total_s:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        data += chunk
        last = time.monotonic()
    return data


class Pacer:
    """Both players step back and forth between their start and a neighbour: every move is
    accepted and changes the state, so every move is a new view for everyone."""

    def __init__(self, players):
        self.players = players
        self.sides = [_open_side(p.view) for p in players]
        self.moves = 0

    async def step(self):
        for player, side in zip(self.players, self.sides):
            reply = await player.move(side[self.moves % 2])
            assert reply["t"] == "ack", reply
        self.moves += 1

    async def until_logged(self, board, text):
        """Step until the board's log has `text` (bounded)."""
        while text not in board.log() and self.moves < MOVES_MAX:
            await self.step()
        assert text in board.log(), "%r not seen after %d moves" % (text, self.moves)


def _scenario(board, no_copy):
    async def scenario():
        p1 = await GameClient(board.ws_url, "p1").connect()
        await p1.join(name="ann")
        p2 = await GameClient(board.ws_url, "p2").connect()
        await p2.join(name="bob")
        obs = await GameClient(board.ws_url, "obs").connect()
        await obs.join("watch")
        slow, head = upgrade(board.board.http_port, SLOW, options=SLOW_OPTIONS)
        assert head.startswith(b"HTTP/1.1 101"), head
        slow.sendall(masked(1, json.dumps({"t": "join", "role": "watch"}).encode()))
        await both_ready(p1, p2)
        pacer = Pacer((p1, p2))
        # From here the slow phone reads nothing, and its socket fills.
        if no_copy:
            # (that no view is written while one is held is test_write_path.py's, on CPython:
            # here the phone's kernel may take a little more at any moment and end the hold)
            await pacer.until_logged(board, "partial_writes: no heap for the copy")
            for _ in range(3):
                await pacer.step()  # acks still come
        else:
            await pacer.until_logged(board, "partial_writes: flush started")
            # nobody waits for the slow phone: the others' views keep coming
            before = obs.view_count
            for _ in range(6):
                await pacer.step()
            await obs.until(lambda: obs.view_count >= before + 6, 5, "views while one is slow")
        data = await asyncio.get_running_loop().run_in_executor(None, _drain, slow)
        frames, left = server_frames(data)
        # every frame whole, in order, JSON; the views reassemble; the last is the newest
        phone = WsGameClient("ws://unused", "slow")
        for opcode, payload in frames:
            assert opcode == 1, opcode
            phone._take(json.loads(payload.decode()))
        assert left == b"", "a frame cut short: %r" % left[:40]
        assert phone.welcome is not None and phone.view_count > 1
        newest = phone.view["s"]
        await obs.until(lambda: obs.view["s"] == newest, 5, "the newest view")
        assert phone.view["st"] == obs.view["st"] and phone.view["cells"] == obs.view["cells"]
        await p1.view_where(lambda v: v["s"] == newest, what="p1's newest view")
        slow.close()
        await close_all(p1, p2, obs)

    run(scenario(), timeout=120)


@pytest.mark.parametrize("no_copy", [False, True], ids=["copied", "held"])
def test_a_phone_that_stops_reading_gets_every_frame_whole_later(
    board_factory, monkeypatch, no_copy
):
    monkeypatch.setenv("MAZE_PRELUDE", str(PRELUDE))
    monkeypatch.setenv("MAZE_NO_COPY", "1" if no_copy else "0")
    board = board_factory(idle_timeout_ms=60000)
    _scenario(board, no_copy)
    assert board.alive(), board.log()
    log = board.log()
    assert "Traceback" not in log and "writer failed" not in log, log
