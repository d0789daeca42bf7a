# A full house (2 players + 4 observers, the board-sized heap), the room-full refusals, and the
# cap on open sockets.

import pytest

from game_client import (
    GameClient,
    both_ready,
    check_player_view,
    close_all,
    run,
    two_players_and_observer,
)

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


def test_unjoined_sockets_never_keep_a_seated_player_out(game_board):
    async def scenario():
        url = game_board.ws_url
        p1, p2, obs = await two_players_and_observer(url)
        others = [await GameClient(url, "obs%d" % i).connect() for i in range(3)]
        for other in others:
            await other.join("watch")
        token = p1.welcome["token"]
        await p1.ws.close()  # p1's phone drops; its seat waits out the grace period
        # Strangers hold the spare places (2 players + 4 observers + 2 spare = 8 sockets).
        idle = [await GameClient(url, "idle%d" % i).connect() for i in range(3)]
        # A ninth upgrade gets in: the oldest socket that never joined makes room.
        back = await GameClient(url, "p1 back").connect()
        welcome = await back.join(token=token)
        assert welcome["seat"] == 1 and welcome["resumed"] is True
        assert await idle[0].until_closed(5) == 4003
        assert (await back.intent("ping"))["t"] == "pong"
        assert (await p2.intent("ping"))["t"] == "pong"
        await close_all(back, p2, obs, *others, *idle[1:])

    run(scenario())
