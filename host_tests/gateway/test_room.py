# A full house (2 players + 4 observers, the board-sized heap), the room-full refusals, and the
# cap on open sockets.
import asyncio
import base64
import os
import socket

import pytest

from game_client import GameClient, both_ready, check_player_view, close_all, run

pytestmark = [pytest.mark.upy, pytest.mark.slow]


async def full_house(url):
    players = []
    for i in range(2):
        player = await GameClient(url, "p%d" % (i + 1)).connect()
        await player.join(name="player%d" % (i + 1))
        players.append(player)
    observers = []
    for i in range(4):
        observer = await GameClient(url, "obs%d" % (i + 1)).connect()
        await observer.join("watch")
        observers.append(observer)
    return players, observers


def test_full_house_and_room_full_refusals(game_board):
    async def scenario():
        url = game_board.ws_url
        (p1, p2), observers = await full_house(url)
        # A third player: refused with ROOM_FULL, then closed with 4003.
        third = await GameClient(url, "third").connect()
        assert await third.join(expect="err") == {"t": "err", "code": "ROOM_FULL"}
        assert await third.until_closed() == 4003
        assert third.close_reason == "room full"
        # A fifth observer likewise.
        fifth = await GameClient(url, "obs5").connect()
        assert await fifth.join("watch", expect="err") == {"t": "err", "code": "ROOM_FULL"}
        assert await fifth.until_closed() == 4003
        # Everyone in the room is still served: a match with six watchers.
        await both_ready(p1, p2)
        for d in "NESW":
            reply = await p1.move(d)
            if reply["t"] == "ack":
                break
        for observer in observers:
            await observer.view_where(lambda v: v["s"] >= 3, what="view after the move")
        # Observer records are encoded once: every observer got the very same bytes.
        records = [[r for r in o.raw if '"t":"view"' in r and '"s":3,' in r] for o in observers]
        assert records[0] and all(r == records[0] for r in records)
        check_player_view(p1.view, 1)
        assert p1.rooms[-1]["obs"] == 4
        await close_all(p1, p2, *observers)

    run(scenario())


def upgrade_status(port):
    """The status line the server answers a WebSocket upgrade with (raw socket: the server
    speaks HTTP/1.0 on refusals, which WebSocket clients reject before reading the status)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n" % (port, key)
            ).encode()
        )
        line = b""
        while not line.endswith(b"\r\n"):
            line += sock.recv(1)
        return line


def test_sockets_beyond_the_room_get_503(game_board):
    async def scenario():
        url = game_board.ws_url
        # 2 players + 4 observers + 2 spare sockets for people still joining.
        idle = [await GameClient(url, "s%d" % i).connect() for i in range(8)]
        status = await asyncio.to_thread(upgrade_status, game_board.board.http_port)
        assert status.startswith(b"HTTP/1.0 503"), status
        await idle[0].close()
        await asyncio.sleep(0.5)
        again = await GameClient(url, "again").connect()
        assert (await again.intent("ping"))["t"] == "pong"
        await close_all(again, *idle[1:])

    run(scenario())
