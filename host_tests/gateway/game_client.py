# A scripted phone for the gateway tests (CPython, PyPI `websockets`): joins, sends intents
# with client sequences, keeps everything the server says, and reassembles view records into
# one dict per complete view. A background task reads; the helpers wait on what it collected.
import asyncio
import json
from collections import deque

import websockets

DIRS = "NESW"
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
BITS = (1, 2, 4, 8)
OPPOSITE = (2, 3, 0, 1)


class Closed(Exception):
    pass


def run(coro, timeout=60):
    """Run one async scenario from a plain pytest test."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


class GameClient:
    def __init__(self, url, name="?", heartbeat_s=0.4):
        self.url = url
        self.name = name
        self.heartbeat_s = heartbeat_s  # None: stay silent (idle tests)
        self.ws = None
        self.messages = []  # every JSON message, in order
        self.raw = []  # every text frame as received
        self.replies = {}  # c -> ack/err/pong
        self.errors = []  # err messages, with or without c
        self.events = []
        self.rooms = []
        self.welcome = None
        self.view = None  # the newest complete view, merged
        self.views = []  # every complete view, merged, in order
        self.close_code = None
        self.close_reason = None
        self._parts = []
        self._c = 0
        self._ping_c = 1_000_000
        self._tasks = []

    # ---- connection --------------------------------------------------------------------------

    async def connect(self):
        self.ws = await websockets.connect(
            self.url, ping_interval=None, max_size=2**16, open_timeout=5, close_timeout=2
        )
        self._tasks.append(asyncio.create_task(self._reader()))
        if self.heartbeat_s:
            self._tasks.append(asyncio.create_task(self._heartbeat()))
        return self

    async def close(self):
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        if self.ws is not None:
            await self.ws.close()

    @property
    def closed(self):
        return self.close_code is not None

    async def _heartbeat(self):
        while True:
            await asyncio.sleep(self.heartbeat_s)
            self._ping_c += 1
            try:
                await self.ws.send('{"t":"ping","c":%d}' % self._ping_c)
            except websockets.ConnectionClosed:
                return

    async def _reader(self):
        try:
            async for text in self.ws:
                self.raw.append(text)
                self._take(json.loads(text))
        except websockets.ConnectionClosed:
            pass
        rcvd = self.ws.protocol.close_rcvd  # the server's close frame, None if it sent none
        self.close_reason = rcvd.reason if rcvd is not None else ""
        self.close_code = rcvd.code if rcvd is not None else 1006

    def _take(self, msg):
        self.messages.append(msg)
        t = msg.get("t")
        if t in ("ack", "err", "pong") and "c" in msg:
            self.replies[msg["c"]] = msg
        if t == "err":
            self.errors.append(msg)
        elif t == "ev":
            self.events.append(msg)
        elif t == "room":
            self.rooms.append(msg)
        elif t == "welcome":
            self.welcome = msg
        elif t == "view":
            self._record(msg)

    def _record(self, rec):
        if rec["i"] == 0:
            self._parts = [rec]
        elif self._parts and rec["s"] == self._parts[0]["s"] and rec["i"] == len(self._parts):
            self._parts.append(rec)
        else:
            self._parts = []
            return
        if len(self._parts) == rec["n"]:
            self.view = merge(self._parts)
            self.views.append(self.view)
            self._parts = []

    # ---- sending -----------------------------------------------------------------------------

    async def send(self, text):
        await self.ws.send(text)

    async def send_json(self, obj):
        await self.ws.send(json.dumps(obj))

    def next_c(self):
        self._c += 1
        return self._c

    async def join(self, role="play", token=None, name=None, expect="welcome"):
        msg = {"t": "join", "role": role}
        if token is not None:
            msg["token"] = token
        if name is not None:
            msg["name"] = name
        self.welcome = None
        count = len(self.errors)
        await self.send_json(msg)
        if expect == "welcome":
            await self.until(lambda: self.welcome is not None, what="welcome")
            await self.until(lambda: self.view is not None, what="first view")
            # A resumed seat continues its client sequence after the last one applied.
            self._c = max(self._c, self.welcome.get("last", 0))
            return self.welcome
        await self.until(lambda: len(self.errors) > count, what="join refusal")
        return self.errors[-1]

    async def intent(self, t, c=None, **fields):
        """Send {"t":t,"c":c,...} and return the ack/err that answers c."""
        if c is None:
            c = self.next_c()
        msg = {"t": t, "c": c}
        msg.update(fields)
        self.replies.pop(c, None)
        await self.send_json(msg)
        await self.until(lambda: c in self.replies, what="reply to %s c=%d" % (t, c))
        return self.replies[c]

    async def move(self, d, retry_cooldown=True):
        while True:
            reply = await self.intent("move", d=d)
            if not (retry_cooldown and reply.get("code") == "COOLDOWN"):
                return reply
            await asyncio.sleep(0.03)

    # ---- waiting -----------------------------------------------------------------------------

    async def until(self, predicate, timeout=5.0, what="condition"):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError("%s: timed out waiting for %s" % (self.name, what))
            if self.closed and not predicate():
                raise Closed(
                    "%s closed (%s %s) waiting for %s"
                    % (self.name, self.close_code, self.close_reason, what)
                )
            await asyncio.sleep(0.005)

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


def merge(parts):
    """The records of one view as one dict: envelope of record 0, status, objects, cells."""
    first = parts[0]
    view = {k: first[k] for k in first if k not in ("o", "c", "i")}
    view["records"] = [dict(p) for p in parts]
    objects = []
    cells = {}
    for p in parts:
        objects.extend(p.get("o", []))
        for start, hexes in p.get("c", []):
            for k, ch in enumerate(hexes):
                cells[start + k] = int(ch, 16)
    view["objects"] = objects
    view["cells"] = cells
    return view


def path(cells, w, h, start, goal, avoid=()):
    """Shortest list of directions from start to goal over open passages, or None."""
    if start == goal:
        return []
    prev = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for d in range(4):
            if not cells[here] & BITS[d]:
                continue
            x = here % w + DX[d]
            y = here // w + DY[d]
            if not (0 <= x < w and 0 <= y < h):
                continue
            nxt = y * w + x
            if nxt in prev or (nxt in avoid and nxt != goal):
                continue
            prev[nxt] = (here, d)
            if nxt == goal:
                dirs = []
                while prev[nxt] is not None:
                    nxt, d = prev[nxt]
                    dirs.append(d)
                return dirs[::-1]
            queue.append(nxt)
    return None


def step(cell, d, w):
    return cell + DX[d] + DY[d] * w


def find_object(view, kind, owner):
    for k, o, variant, cell in view["objects"]:
        if k == kind and o == owner:
            return variant, cell
    return None


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
    await obs.join("watch")
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
