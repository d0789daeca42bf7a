# Scripted phones for the tests that play over WebSocket (the gateway tests, the deploy test's
# match on a virtual board; CPython, PyPI `websockets`): the shared protocol client
# (tools/ws_game_client.py: joins, sends intents with client sequences, reassembles view records
# into one dict per complete view) keeping everything the server says, plus the helpers the
# tests walk and check with. A background task reads; the helpers wait on it. Routes over the
# maze come from tools/bots.py.
import asyncio
import json

from bots import DIRS, find_object, path, step
from ws_game_client import WsGameClient


def run(coro, timeout=60):
    """Run one async scenario from a plain pytest test."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


class GameClient(WsGameClient):
    """The shared client, keeping everything: every frame, every message, every view."""

    def __init__(self, url, name="?", heartbeat_s=0.4):
        super().__init__(url, name, heartbeat_s)
        self.messages = []  # every JSON message, in order
        self.raw = []  # every text frame as received
        self.views = []  # every complete view, merged, in order

    def on_text(self, text):
        self.raw.append(text)

    def on_message(self, msg):
        self.messages.append(msg)

    def on_view(self, view):
        self.views.append(view)

    async def move(self, d, retry_cooldown=True, c=None):
        """Move d; sent again (with c, or a new sequence) while the board says COOLDOWN."""
        while True:
            reply = await self.intent("move", c=c, d=d)
            if not (retry_cooldown and reply.get("code") == "COOLDOWN"):
                return reply
            await asyncio.sleep(0.08)  # a retry pace well under the inbound rate limit

    # ---- waiting -----------------------------------------------------------------------------

    async def until_closed(self, timeout=5.0):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.closed:
            if loop.time() > deadline:
                raise AssertionError("%s: not closed after %.1f s" % (self.name, timeout))
            await asyncio.sleep(0.01)
        return self.close_code

    async def event(self, e, timeout=5.0, **fields):
        def found():
            for ev in self.events:
                if ev["e"] == e and all(ev.get(k) == v for k, v in fields.items()):
                    return ev
            return None

        await self.until(lambda: found() is not None, timeout, "event %s %s" % (e, fields))
        return found()

    async def view_where(self, predicate, timeout=5.0, what="view"):
        await self.until(lambda: self.view is not None and predicate(self.view), timeout, what)
        return self.view


async def walk(player, maze, target, avoid=()):
    """Walk player (its own view tells where it is) to target along the observer's maze.
    A picked-up opponent key is dropped at once, so the own key can still be collected."""
    w, h, cells = maze["w"], maze["h"], maze["cells"]
    pos = player.view["st"]["p"]
    route = path(cells, w, h, pos, target, avoid) or path(cells, w, h, pos, target)
    assert route is not None, "no route from %d to %d" % (pos, target)
    seat = player.welcome["seat"]
    for d in route:
        reply = await player.move(DIRS[d])
        assert reply["t"] == "ack", reply
        pos = step(pos, d, w)
        view = await player.view_where(lambda v, p=pos: v["st"]["p"] == p, what="pos %d" % pos)
        carried = view["st"]["k"]
        if carried and carried != seat:
            reply = await player.intent("drop")
            assert reply["t"] == "ack", reply
            await player.view_where(lambda v: v["st"]["k"] == 0, what="key dropped")
    return pos


async def fetch_own_key_and_open_exit(player, watcher):
    """Walk to the own key (avoiding the opponent's), then onto the own exit (opening it).
    Object positions come from the observer `watcher`'s newest view: a key the opponent picked
    up by accident is dropped again somewhere else, and is followed there."""
    seat = player.welcome["seat"]
    while player.view["st"]["k"] != seat:
        view = await watcher.view_where(
            lambda v: find_object(v, 0, seat) is not None, what="key %d on the ground" % seat
        )
        other_key = find_object(view, 0, 3 - seat)
        avoid = (other_key[1],) if other_key else ()
        await walk(player, view, find_object(view, 0, seat)[1], avoid)
    view = watcher.view
    other_key = find_object(view, 0, 3 - seat)
    direction, exit_cell = find_object(view, 1, seat)
    await walk(player, view, exit_cell, (other_key[1],) if other_key else ())
    await player.view_where(lambda v: v["st"]["xo"] == 1, what="exit open")
    return DIRS[direction]


async def two_players_and_observer(url):
    p1 = await GameClient(url, "p1").connect()
    await p1.join(name="ann")
    p2 = await GameClient(url, "p2").connect()
    await p2.join(name="bob")
    obs = await GameClient(url, "obs").connect()
    await obs.join("watch", view="full")  # (the whole maze: the board must allow it, "tv")
    return p1, p2, obs


async def both_ready(p1, p2, timeout=5.0):
    """Both say ready; returns once both are told the match is active."""
    for player in (p1, p2):
        reply = await player.intent("ready")
        assert reply["t"] == "ack", reply
    for player in (p1, p2):
        await player.event("phase", timeout, ph="active")


def check_player_view(view, seat):
    """A player view holds the own square only and none of the observer-only fields."""
    role = "p%d" % seat
    for record in view["records"]:
        assert record["r"] == role
        assert "players" not in json.dumps(record)
    st = view["st"]
    assert "players" not in st and "xt" not in st
    assert set(st) <= {"p", "k", "vm", "rad", "cp", "xo", "xd", "res", "win", "opponent"}
    w = view["w"]
    px, py, r = st["p"] % w, st["p"] // w, st["rad"]
    for cell in view["cells"]:
        assert max(abs(cell % w - px), abs(cell // w - py)) <= r, (cell, st)
    for _, _, _, cell in view["objects"]:
        assert max(abs(cell % w - px), abs(cell // w - py)) <= r, (cell, st)


def check_observer_view(view):
    """An observer view: every cell, both players in full, the result, ground objects."""
    assert all(record["r"] == "obs" for record in view["records"])
    assert sorted(view["cells"]) == list(range(view["w"] * view["h"]))
    players = view["st"]["players"]
    assert len(players) == 2
    for seat in players:
        assert set(seat) == {"p", "k", "vm", "rad", "cp", "xo", "xd", "xt"}
    assert "res" in view["st"] and "win" in view["st"]


async def close_all(*clients):
    for client in clients:
        await client.close()
