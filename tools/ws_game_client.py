# The protocol client of the game's WebSocket gateway (docs/protocol.md, "WebSocket
# conversation"), CPython + PyPI `websockets`: connects, keeps the heartbeat, reads in a
# background task, routes what the server says by type and reassembles view records into one
# merged view per complete view. Waiters poll what the reader collected.
#
# One implementation for every host-side client: the tests' scripted phones
# (tools/game_client.py), the bots (tools/bot_runner.py: make mem, make soak, make stress) and
# the latency bench (tools/latency_bench.py). They add their own bookkeeping through the hooks
# below, never by replacing the reader:
#   on_text(text)         every text frame as received, before it is parsed
#   on_message(msg)       every parsed message, before it is routed
#   view_complete(parts)  the records of each complete view; by default merged into self.view
#   on_view(view)         every complete view, merged (called by the default view_complete)
import asyncio
import json

import websockets

PING_C = 1_000_000  # heartbeat and ping sequences count up from here, clear of the intents'


class Closed(Exception):
    """The connection closed while a waiter was waiting."""


class WsGameClient:
    def __init__(self, url, name="?", heartbeat_s=0.4, open_timeout=5.0, reply_timeout=5.0):
        self.url = url
        self.name = name
        self.heartbeat_s = heartbeat_s  # None: stay silent (idle tests)
        self.open_timeout = open_timeout
        self.reply_timeout = reply_timeout  # until()'s default, and so intent/join/ping's
        self.ws = None
        self.replies = {}  # c -> ack/err/pong
        self.errors = []  # err messages, with or without c
        self.events = []
        self.rooms = []
        self.welcome = None
        self.view = None  # the newest complete view, merged
        self.view_count = 0  # complete views so far
        self.close_code = None
        self.close_reason = None
        self._parts = []  # records of the view being reassembled
        self._c = 0
        self._ping_c = PING_C
        self._tasks = []
        self.source = None  # a local address to connect from (e.g. "127.0.0.2"), or None

    # ---- hooks -------------------------------------------------------------------------------

    def on_text(self, text):
        pass

    def on_message(self, msg):
        pass

    def view_complete(self, parts):
        self.view = merge(parts)
        self.on_view(self.view)

    def on_view(self, view):
        pass

    def timeout_error(self, what, timeout):
        return AssertionError("%s: timed out waiting for %s" % (self.name, what))

    def closed_error(self, what):
        return Closed(
            "%s closed (%s %s) waiting for %s"
            % (self.name, self.close_code, self.close_reason, what)
        )

    # ---- connection --------------------------------------------------------------------------

    def connect_options(self):
        """Extra keyword arguments of websockets.connect: the source address, if any. A
        subclass may add its own (tools/bot_runner.py passes a socket of its own making)."""
        return {"local_addr": (self.source, 0)} if self.source else {}

    async def connect(self):
        self.ws = await websockets.connect(
            self.url,
            ping_interval=None,
            max_size=2**16,
            open_timeout=self.open_timeout,
            close_timeout=2,
            **self.connect_options(),
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
                self.on_text(text)
                self._take(json.loads(text))
        except websockets.ConnectionClosed:
            pass
        rcvd = self.ws.protocol.close_rcvd  # the server's close frame, None if it sent none
        self.close_reason = rcvd.reason if rcvd is not None else ""
        self.close_code = rcvd.code if rcvd is not None else 1006

    def _take(self, msg):
        self.on_message(msg)
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
        """Reassembly, as tools/view_decoder.py and the phone client do it: a chunk 0 always
        starts a new view; a gap, or a record of another state (s) or chunk count (n), drops the
        partial view."""
        if rec["i"] == 0:
            self._parts = [rec]
        elif (
            self._parts
            and rec["s"] == self._parts[0]["s"]
            and rec["n"] == self._parts[0]["n"]
            and rec["i"] == len(self._parts)
        ):
            self._parts.append(rec)
        else:
            self._parts = []
            return
        if len(self._parts) == rec["n"]:
            parts, self._parts = self._parts, []
            self.view_count += 1
            self.view_complete(parts)

    # ---- sending -----------------------------------------------------------------------------

    async def send(self, text):
        await self.ws.send(text)

    async def send_json(self, obj):
        await self.ws.send(json.dumps(obj))

    def next_c(self):
        self._c += 1
        return self._c

    async def join(self, role="play", token=None, name=None, expect="welcome", view=None):
        """Join; returns the welcome once the first view is complete (a watcher: once the room
        line after it has come, and the first view too unless the match waits, when a board
        sends observers none), or (expect anything else) the err that refuses the join. view:
        a watcher's "full" (the whole maze, where the board's settings allow it) or "players"."""
        msg = {"t": "join", "role": role}
        if token is not None:
            msg["token"] = token
        if name is not None:
            msg["name"] = name
        if view is not None:
            msg["view"] = view
        self.welcome = None
        count = len(self.errors)
        rooms = len(self.rooms)
        await self.send_json(msg)
        if expect == "welcome":
            await self.until(lambda: self.welcome is not None, what="welcome")
            if role == "watch":
                await self.until(lambda: len(self.rooms) > rooms, what="room line")
                if self.rooms[-1]["ph"] == "waiting":
                    return self.welcome
            await self.until(lambda: self.view_count > 0, what="first view")
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

    async def ping(self):
        """A heartbeat now; returns its pong."""
        self._ping_c += 1
        c = self._ping_c
        await self.send('{"t":"ping","c":%d}' % c)
        await self.until(lambda: c in self.replies, what="pong")
        return self.replies[c]

    # ---- waiting -----------------------------------------------------------------------------

    async def until(self, predicate, timeout=None, what="condition"):
        """Poll predicate (it may look at other clients too) until it holds; raises
        timeout_error() after `timeout` s (default reply_timeout), closed_error() once closed."""
        if timeout is None:
            timeout = self.reply_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise self.timeout_error(what, timeout)
            if self.closed and not predicate():
                raise self.closed_error(what)
            await asyncio.sleep(0.005)


def ws_url(url):
    """The game socket of a board from any URL of it: ws://host:port/ws as is, an http:// page
    (http://192.168.4.1/, http://127.0.0.1:8080/) becomes its /ws, a bare host:port too."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    if scheme in ("ws", "wss") and path:
        return url
    scheme = "wss" if scheme in ("https", "wss") else "ws"
    return "%s://%s/ws" % (scheme, host)


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
