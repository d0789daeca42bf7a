"""Bots against a game board: players and observers that play real matches over the WebSocket
protocol (docs/protocol.md), from the players' own projections only, with optional chaos.

    python tools/bot_runner.py ws://127.0.0.1:8080/ws --players 2 --observers 4 --moves 2000
    python tools/bot_runner.py http://192.168.4.1/ --matches 5
    python tools/bot_runner.py http://127.0.0.1:8080/ --minutes 3 --chaos all --schedule alternate

    figures = await run_bots(url, players=2, observers=4, moves=2000)       # the API
    runner = BotRunner(url, ...); await runner.join(); figures = await runner.play(...)

Players are bots.FogOfWar: each knows only what its own views showed it this match (cells and
objects of its square), walks to its key, then to its exit and out, else explores; it drops
the opponent's key when it picks it up. After every result both ask for a rematch. Observers
watch. Every client pings every `heartbeat_s` (3 s, at most a quarter of the board's idle
timeout). Counted: accepted moves per player, refusals by code, views per client, matches
started and their results (by match number), connections opened, close codes seen, and each
player's intent -> own view latency: from sending a move until the first complete view whose
record 0 arrived after the move's ack (the board writes the ack before the view showing it).

Chaos (`behaviours`, applied by every bot not named in `honest`, at random, seeded):
  rejoin     leave (a player forfeits a running match, then its seat is freed) and join again
             as a new player (observers: as a new observer)
  reconnect  drop the connection (a reset, or a close without leave) and join again with the
             seat's token, as the phone does (observers join again)
  flood      a burst of pings over the rate limit: the board answers RATE_LIMITED, and after
             RATE_ABUSE refusals (draining 5 a second) closes with 1008 (or 4008 if the
             refusals pile up unread); the bot then reconnects with its token
  stall      stop reading the socket for a few seconds (its receive buffer is small, so the
             board's writes back up): the board may close it with 4008; then reconnect
  junk       besides the bots, connections that send nothing, half a request, upgrade and
             never join, or send bad frames (unmasked, oversized, invalid UTF-8, fragmented,
             not JSON), from addresses of their own
`schedule` says when: "always", or "alternate" (odd matches quiet, even matches chaotic: a
quiet match starts only once every bot is back and no junk connection is open, so the quiet
matches give the reference figures of the same run).

The board's limits this runner respects (docs/protocol.md, "Connection and limits"; the
firmware's constants in net/gateway.py, net/server.py, net/match_host.py); only the flood and
junk bots cross them, on purpose:
  - inbound frames per client: a token bucket of RATE_BURST (40), refilled at RATE_PER_S (20/s);
    over it RATE_LIMITED (without `c`: the frame is not read), and RATE_ABUSE (100) refusals
    close with 1008 (they drain at ABUSE_DRAIN_PER_S, 5 a second, so a sustained flood is
    closed too: host_tests/gateway/test_sustained_flood.py). A bot sends a move per
    cooldown (100 ms at the shortest), a ready now and then and a ping per heartbeat;
  - new connections per source address: SOURCE_BURST (40), then SOURCE_PER_S (20/s), else 503.
    On loopback every bot connects from an address of its own (127.0.0.x are all loopback on
    Linux) and the junk from JUNK_SOURCES, so no limit of one source falls on another; against
    a real board everything comes from this host's one address, and reconnects back off
    (250 ms doubling to 5 s, +-20 %, as the phone client does);
  - an upgraded socket must join within JOIN_S (5 s, else 4002); a frame must be complete
    within FRAME_S (3 s); a request's line and headers within 5 s;
  - a client sequence may jump ahead of the seat's last one by at most SEQ_AHEAD (1024):
    each seat's sequence carries over reconnects, a new seat starts again at 1;
  - game sockets: 2 players + max_observers + 2 spare; more upgrades get 503 unless an unjoined
    socket can be displaced; extra players or observers get ROOM_FULL and close 4003.
All traffic goes to the given URL only.
"""

import argparse
import asyncio
import json
import random
import socket
import sys
import time
from urllib.parse import urlsplit

import websockets

from bots import DIRS, FogOfWar
from raw_ws import frame, open_async, send_upgrade
from ws_game_client import Closed, WsGameClient, ws_url

# ---- the board's limits (see the docstring) ---------------------------------------------------
RATE_BURST = 40
RATE_PER_S = 20
RATE_ABUSE = 100
SOURCE_BURST = 40
SOURCE_PER_S = 20
JOIN_S = 5.0
FRAME_S = 3.0
SEQ_AHEAD = 1024

BEHAVIOURS = ("rejoin", "reconnect", "flood", "stall", "junk")
SCHEDULES = ("always", "alternate")
HONEST = ("p2", "obs1")  # never misbehave: the reference player and a witness

HEARTBEAT_S = 3.0
REPLY_TIMEOUT_S = 10.0  # an intent without an answer this long: the connection is given up
STALL_S = 30.0  # no accepted move for this long (while a match should run): the run fails
CHAOS_EVERY_S = (2.0, 6.0)  # a chaotic bot considers an action this often (uniform)
STALL_FOR_S = (2.0, 8.0)
FLOOD_FRAMES = (60, 160)  # a flood: this many pings at once (over 140 may end in close 1008)
SMALL_RCVBUF = 4096  # receive buffer of a chaotic bot's socket, so a stall backs up the board
BACKOFF_S = (0.25, 5.0)  # reconnect backoff: first, most
JUNK_SOURCES = ("127.0.0.9", "127.0.0.10")
JUNK_AT_ONCE = 4
JUNK_KINDS = ("silent", "half_request", "no_join", "bad_frame")
BAD_FRAMES = ("unmasked", "oversized", "bad_utf8", "fragmented", "not_json", "unknown")
WIND_DOWN_S = 120.0  # after the time is up, how long the last match may take to end

_STOP_MOVING = object()


class RunFailed(Exception):
    """The run cannot go on: the guard said so, nothing moved for stall_s, a bot failed."""


class ReplyTimeout(Exception):
    """An answer the board owed did not come within reply_s: the connection is given up."""


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def _is_loopback(url):
    host = urlsplit(url).hostname or ""
    return host.startswith("127.") or host == "localhost"


# ---- one connection -------------------------------------------------------------------------


class BotClient(WsGameClient):
    """One connection of a bot: the shared protocol client, reporting to its bot."""

    def __init__(self, bot):
        runner = bot.runner
        super().__init__(
            runner.url, bot.name, heartbeat_s=0.4, open_timeout=10, reply_timeout=runner.reply_s
        )
        self.bot = bot
        self.source = bot.source
        self.room = None
        self.mn = 0
        self.timing = None  # [c, sent, acked, view started] of the move being timed
        self._sock = None

    async def connect(self):
        self.bot.runner.connections["bots"] += 1
        if self.bot.small_rcvbuf:
            self._sock = await self._small_socket()
        return await super().connect()

    async def _small_socket(self):
        parts = urlsplit(self.url)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_RCVBUF)
        if self.source:
            sock.bind((self.source, 0))
        sock.setblocking(False)
        try:
            await asyncio.wait_for(
                asyncio.get_running_loop().sock_connect(sock, (parts.hostname, parts.port or 80)),
                self.open_timeout,
            )
        except BaseException:
            sock.close()
            raise
        return sock

    def timeout_error(self, what, timeout):
        return ReplyTimeout("%s: no %s within %.0f s" % (self.name, what, timeout))

    def connect_options(self):
        if self._sock is not None:
            return {"sock": self._sock}
        return super().connect_options()

    def on_message(self, msg):
        t = msg.get("t")
        bot = self.bot
        if t == "room":
            self.room = msg
            self.mn = msg["mn"]
            bot.runner.saw_room(msg)
        elif t == "welcome":
            self.mn = msg["mn"]
        elif t == "ev":
            if msg.get("e") == "phase" and msg.get("ph") == "countdown":
                bot.fog.forget()
            elif msg.get("e") == "result":
                bot.runner.saw_result(self.mn, msg["result"])
        elif t == "err":
            code = msg.get("code", "?")
            bot.errors[code] = bot.errors.get(code, 0) + 1
        elif t == "ack" and self.timing is not None and msg.get("c") == self.timing[0]:
            self.timing[2] = True
        elif t == "view" and msg.get("i") == 0 and self.timing is not None and self.timing[2]:
            self.timing[3] = True

    def view_complete(self, parts):
        super().view_complete(parts)
        bot = self.bot
        bot.views += 1
        view = self.view
        if bot.role == "play":
            bot.fog.see(view)
        if view["ph"] == "finished":
            bot.runner.saw_result(self.mn, view["st"]["res"])
        timing = self.timing
        if timing is not None and timing[3]:
            self.timing = None
            bot.runner.saw_latency(bot, (time.monotonic() - timing[1]) * 1000)


# ---- one bot --------------------------------------------------------------------------------


class Bot:
    """A player or an observer for the whole run: connects, joins, plays or watches, and
    comes back after every close (with the seat's token), until the runner stops."""

    def __init__(self, runner, name, role, source, chaotic, rng):
        self.runner = runner
        self.name = name
        self.role = role  # "play" or "watch"
        self.source = source
        self.chaotic = chaotic
        self.rng = rng
        self.small_rcvbuf = chaotic and "stall" in runner.behaviours
        self.fog = FogOfWar()
        self.client = None
        self.token = None
        self.seat = 0
        self.c = 0  # the seat's client sequence, across reconnects
        self.joined = asyncio.Event()
        self.busy = False  # in a chaos action (not settled)
        self.acks = 0
        self.views = 0
        self.refusals = {}  # move refusals by code
        self.errors = {}  # every err by code
        self.closes = {}  # close codes the board sent, by code
        self.chaos = {}  # chaos actions done, by name
        self.joins = 0
        self.reply_timeouts = 0
        self.longest_out_s = 0.0  # longest time from a lost connection to the next welcome
        self.latencies = []  # (ms, chaotic match) of this player's moves
        self.task = None
        self._next_chaos = None
        self._ready_at = 0.0

    @property
    def settled(self):
        return self.joined.is_set() and not self.busy

    # ---- the connection loop ---------------------------------------------------------------

    async def run(self):
        backoff = BACKOFF_S[0]
        lost_at = None
        runner = self.runner
        while not runner.closing:
            client = BotClient(self)
            self.client = client
            try:
                await client.connect()
                welcome = await self._join(client)
                if welcome is None:  # refused: try again a little later
                    raise Closed("join refused")
                backoff = BACKOFF_S[0]
                if lost_at is not None:
                    self.longest_out_s = max(self.longest_out_s, time.monotonic() - lost_at)
                    lost_at = None
                self.joined.set()
                if self.role == "play":
                    await self._play(client)
                else:
                    await self._watch(client)
            except (Closed, OSError, asyncio.TimeoutError, websockets.WebSocketException):
                pass  # closed, refused (503), reset: come back after the backoff
            except ReplyTimeout:
                self.reply_timeouts += 1
            finally:
                self.joined.clear()
                if client.close_code is not None:
                    code = client.close_code
                    self.closes[code] = self.closes.get(code, 0) + 1
                if self.token is not None:  # the seat's sequence goes on
                    self.c = max(self.c, client._c)
                await client.close()
            if runner.closing:
                break
            if lost_at is None:
                lost_at = time.monotonic()
            await asyncio.sleep(backoff * self.rng.uniform(0.8, 1.2))
            backoff = min(backoff * 2, BACKOFF_S[1])

    async def _join(self, client):
        """Join as this bot's role (with the seat's token when it has one); the welcome, or
        None when refused (a seat not free yet, the room full, a token that expired)."""
        if self.role == "watch":
            msg = {"t": "join", "role": "watch"}
        else:
            client._c = self.c
            msg = {"t": "join", "role": "play", "name": self.name}
            if self.token is not None:
                msg["token"] = self.token
        count = len(client.errors)
        await client.send_json(msg)
        await client.until(
            lambda: client.welcome is not None or len(client.errors) > count, what="join answer"
        )
        reply = client.welcome or client.errors[-1]
        if reply.get("t") == "welcome":
            # (a board sends a watcher no view while the match waits: the room line says so)
            await client.until(
                lambda: (
                    client.view_count > 0
                    or self.role == "watch"
                    and client.rooms
                    and client.rooms[-1]["ph"] == "waiting"
                ),
                what="first view",
            )
            client._c = max(client._c, reply.get("last", 0))
        else:
            if reply.get("code") == "BAD_TOKEN":
                self._new_seat()
            return None
        self.joins += 1
        if self.role == "play":
            if not reply.get("resumed"):
                self.fog.forget()
            self.token = reply["token"]
            self.seat = reply["seat"]
        idle_s = reply.get("idle", 20000) / 1000
        client.heartbeat_s = min(self.runner.heartbeat_s, idle_s / 4)
        return reply

    def _new_seat(self):
        self.token = None
        self.seat = 0
        self.c = 0
        self.fog.forget()

    # ---- chaos -------------------------------------------------------------------------------

    def _chaos_due(self):
        runner = self.runner
        if not (self.chaotic and runner.chaos_now()):
            self._next_chaos = None
            return None
        now = time.monotonic()
        if self._next_chaos is None:
            self._next_chaos = now + self.rng.uniform(*CHAOS_EVERY_S)
            return None
        if now < self._next_chaos:
            return None
        self._next_chaos = None
        choices = [b for b in runner.behaviours if b != "junk"]
        return self.rng.choice(choices) if choices else None

    async def _chaos_turn(self, client):
        """A chaos action if one is due: None when none was, "gone" when the connection is
        closed after it (the run loop then reconnects), else the action's name."""
        action = self._chaos_due()
        if action is None:
            return None
        await self._chaos(client, action)
        if client.closed or action in ("rejoin", "reconnect"):
            return "gone"
        return action

    async def _chaos(self, client, action):
        """Do one chaos action; returns once the connection is closed (the run loop then
        reconnects), except a flood or stall the board let pass."""
        self.busy = True
        self.chaos[action] = self.chaos.get(action, 0) + 1
        try:
            if action == "rejoin":
                if self.role == "play":
                    try:
                        await client.intent("leave")
                    except (Closed, ReplyTimeout):
                        pass
                    self._new_seat()
                else:  # an observer's leave is not answered: the board closes (1000 left)
                    await client.send('{"t":"leave","c":1}')
                    try:
                        await client.until(lambda: client.closed, 2.0, "the close after leave")
                    except ReplyTimeout:
                        pass
                await client.close()
            elif action == "reconnect":
                if self.rng.random() < 0.5:
                    client.ws.transport.abort()  # a reset: no close frame
                await client.close()
            elif action == "flood":
                await self._flood(client)
            elif action == "stall":
                transport = client.ws.transport
                transport.pause_reading()
                await asyncio.sleep(self.rng.uniform(*STALL_FOR_S))
                if not transport.is_closing():
                    transport.resume_reading()
                await asyncio.sleep(0.5)  # read what piled up, the close frame if any
        finally:
            self.busy = False

    async def _flood(self, client):
        count = self.rng.randint(*FLOOD_FRAMES)
        base = self.rng.randrange(2_000_000, 3_000_000)
        refused = self.errors.get("RATE_LIMITED", 0)

        def answered():
            pongs = sum(1 for c in range(base, base + count) if c in client.replies)
            return pongs + self.errors.get("RATE_LIMITED", 0) - refused >= count

        try:
            for k in range(count):
                await client.send('{"t":"ping","c":%d}' % (base + k))
            # every ping is answered, a pong or RATE_LIMITED (without c: the frame was not
            # read), unless the board closes the socket (1008, or 4008 if unread answers pile
            # up); then the bucket refills before anything else is sent
            await client.until(lambda: client.closed or answered(), self.runner.reply_s, "pongs")
            await asyncio.sleep(RATE_BURST / RATE_PER_S + 0.5)
        except (websockets.ConnectionClosed, Closed, ReplyTimeout):
            return

    # ---- players -------------------------------------------------------------------------

    def _own_ready(self, client):
        room = client.room
        if room is None or not self.seat:
            return False
        entry = room["p"][self.seat - 1]
        return bool(entry and entry.get("ready"))

    async def _play(self, client):
        runner = self.runner
        rng = self.rng
        while not client.closed and not runner.closing:
            chaos = await self._chaos_turn(client)
            if chaos == "gone":
                return
            if chaos:
                continue
            view = client.view
            phase = view["ph"]
            st = view["st"]
            if phase in ("waiting", "finished"):
                now = time.monotonic()
                if (
                    runner.may_start()
                    and not self._own_ready(client)
                    and now - self._ready_at > 1.0
                ):
                    self._ready_at = now
                    reply = await client.intent("ready" if phase == "waiting" else "rematch")
                    if reply["t"] == "ack":
                        await client.until(
                            lambda ph=phase: self._own_ready(client) or client.view["ph"] != ph,
                            runner.reply_s,
                            "ready in the room",
                        )
                await asyncio.sleep(0.02)
                continue
            if phase != "active" or st["xd"] or runner.moves_done():
                await asyncio.sleep(0.02)  # countdown, or out and the window still open
                continue
            if st["k"] == 3 - self.seat:
                reply = await client.intent("drop")  # the opponent's key: leave it there
                if reply["t"] == "ack":
                    await client.until(
                        lambda: client.view["st"]["k"] == 0 or client.view["ph"] != "active",
                        runner.reply_s,
                        "key dropped",
                    )
                continue
            d = self.fog.choose(view, self.seat, rng)
            if d is None:
                await asyncio.sleep(0.02)
                continue
            await self._move(client, d)

    async def _move(self, client, d):
        runner = self.runner
        seen = client.view_count
        c = client.next_c()
        sent = time.monotonic()
        client.timing = [c, sent, False, False]
        reply = await client.intent("move", c=c, d=DIRS[d])
        if reply["t"] == "ack":
            self.acks += 1
            runner.saw_move()
            await client.until(
                lambda: client.view_count > seen and client.timing is None,
                runner.reply_s,
                "the view after a move",
            )
            left = client.welcome["cool"] / 1000 + 0.005 - (time.monotonic() - sent)
            if left > 0:
                await asyncio.sleep(left)
            return
        client.timing = None
        code = reply.get("code", "?")
        self.refusals[code] = self.refusals.get(code, 0) + 1
        if code in ("COOLDOWN", "PHASE", "COUNTDOWN", "EXITED", "RATE_LIMITED"):
            await asyncio.sleep(0.02)
        else:  # WALL and the like: the map was stale (a view was skipped); wait for a newer one
            try:
                await client.until(lambda: client.view_count > seen, 2.0, "a newer view")
            except AssertionError:
                pass

    # ---- observers -----------------------------------------------------------------------

    async def _watch(self, client):
        runner = self.runner
        while not client.closed and not runner.closing:
            if await self._chaos_turn(client) == "gone":
                return
            await asyncio.sleep(0.05)


# ---- junk connections -----------------------------------------------------------------------


def _bad_frame(kind):
    if kind == "unmasked":
        return frame(1, b'{"t":"ping","c":1}', mask=False)
    if kind == "oversized":
        return frame(1, b"x" * 600)
    if kind == "bad_utf8":
        return frame(1, b'{"t":"join","role":"watch","name":"\xc0\xaf"}')
    if kind == "fragmented":
        return frame(1, b'{"t":"pi', fin=False) + frame(0, b'ng","c":1}')
    if kind == "not_json":
        return frame(1, b"{not json")
    return frame(1, b'{"t":"teleport","c":1}')


class Junk:
    """Connections that hold places for nothing, from addresses of their own."""

    def __init__(self, runner, rng):
        self.runner = runner
        self.rng = rng
        self.open = 0
        self.kinds = {}

    async def run(self):
        runner = self.runner
        tasks = set()
        while not runner.closing:
            await asyncio.sleep(self.rng.uniform(0.2, 1.2))
            if not runner.chaos_now() or self.open >= JUNK_AT_ONCE:
                continue
            kind = self.rng.choice(JUNK_KINDS)
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            self.open += 1
            task = asyncio.create_task(self._one(kind))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        for task in list(tasks):
            task.cancel()

    async def _one(self, kind):
        runner = self.runner
        parts = urlsplit(runner.url)
        host, port = parts.hostname, parts.port or 80
        source = self.rng.choice(JUNK_SOURCES) if runner.loopback else None
        runner.connections["junk"] += 1
        writer = None
        try:
            reader, writer = await open_async(host, port, source, 5)
            if kind == "half_request":
                writer.write(b"GET /ws HTTP/1.1\r\nHost: %s\r\nUpgr" % host.encode())
            elif kind in ("no_join", "bad_frame"):
                head = await send_upgrade(reader, writer, host, port, 5)
                if kind == "bad_frame" and head.startswith(b"HTTP/1.1 101"):
                    writer.write(_bad_frame(self.rng.choice(BAD_FRAMES)))
            await writer.drain()
            # hold the place until the board closes it (its deadlines are 5 s) or 8 s pass
            await asyncio.wait_for(self._drain(reader), JOIN_S + 3)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, EOFError):
            pass
        except asyncio.LimitOverrunError:
            pass
        finally:
            self.open -= 1
            if writer is not None:
                writer.close()

    @staticmethod
    async def _drain(reader):
        while await reader.read(4096):
            pass


# ---- the runner -----------------------------------------------------------------------------


class BotRunner:
    """`players` (0..2) and `observers` bots against one board's game socket."""

    def __init__(
        self,
        url,
        players=2,
        observers=4,
        rng_seed=1,
        behaviours=(),
        schedule="always",
        honest=HONEST,
        heartbeat_s=HEARTBEAT_S,
        reply_s=REPLY_TIMEOUT_S,
        stall_s=STALL_S,
    ):
        if not 0 <= players <= 2:
            raise ValueError("a board seats 0 to 2 players")
        unknown = set(behaviours) - set(BEHAVIOURS)
        if unknown:
            raise ValueError("unknown behaviours: %s" % ", ".join(sorted(unknown)))
        if schedule not in SCHEDULES:
            raise ValueError("schedule: one of %s" % ", ".join(SCHEDULES))
        self.url = ws_url(url)
        self.loopback = _is_loopback(self.url)
        self.behaviours = tuple(behaviours)
        self.schedule = schedule
        self.heartbeat_s = heartbeat_s
        self.reply_s = reply_s
        self.stall_s = stall_s
        self.rng = random.Random(rng_seed)
        self.connections = {"bots": 0, "junk": 0}
        self.bots = []
        for k in range(players + observers):
            is_player = k < players
            name = "p%d" % (k + 1) if is_player else "obs%d" % (k - players + 1)
            source = "127.0.0.%d" % (2 + k) if self.loopback else None
            chaotic = bool(self.behaviours) and name not in honest
            self.bots.append(
                Bot(
                    self,
                    name,
                    "play" if is_player else "watch",
                    source,
                    chaotic,
                    random.Random(self.rng.random()),
                )
            )
        self.junk = Junk(self, random.Random(self.rng.random())) if "junk" in behaviours else None
        self.moves = 0
        self.last_move = time.monotonic()
        self.started = {}  # match number -> monotonic time its countdown was seen
        self.results = {}  # match number -> "win" / "draw" / "forfeit"
        self.mn = 0  # the newest match number seen
        self.phase = "waiting"
        self.closing = False
        self._playing = False
        self._target_moves = None
        self._last_match = None  # no rematch after this match number (stopping)
        self._stopped_at = None
        self._target_matches = None
        self._deadline = None
        self._tasks = []

    # ---- what the bots report ----------------------------------------------------------------

    def saw_room(self, room):
        mn, phase = room["mn"], room["ph"]
        if mn >= self.mn:
            self.mn = mn
            self.phase = phase
        if phase in ("countdown", "active") and mn not in self.started:
            self.started[mn] = time.monotonic()

    def saw_result(self, mn, result):
        if result != "none" and mn and mn not in self.results:
            self.results[mn] = result
            if self._target_matches is not None and len(self.results) >= self._target_matches:
                self._stop_after(mn)

    def saw_move(self):
        self.moves += 1
        self.last_move = time.monotonic()

    def saw_latency(self, bot, ms):
        bot.latencies.append((ms, self.chaotic_match(self.mn)))

    # ---- the schedule ------------------------------------------------------------------------

    def chaotic_match(self, mn):
        if not self.behaviours:
            return False
        return self.schedule == "always" or mn % 2 == 0

    def chaos_now(self):
        """Chaos goes on during a chaotic match until its result (not while winding down)."""
        return (
            self._playing
            and self._last_match is None
            and self.chaotic_match(self.mn)
            and self.mn not in self.results
        )

    def may_start(self):
        """Whether players may say ready or ask for a rematch now: not after the last match,
        and a quiet match only once every bot is back and no junk connection is open."""
        if not self._playing or self.closing:
            return False
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self._stop_after(self.mn)
        if self._last_match is not None and self.mn >= self._last_match:
            return False
        following = self.mn + 1 if self.mn in self.results else self.mn
        if self.chaotic_match(following):
            return True
        return all(bot.settled for bot in self.bots) and (self.junk is None or not self.junk.open)

    def _stop_after(self, mn):
        """No match after mn: nobody asks for a rematch, chaos ends."""
        if self._last_match is None:
            self._last_match = mn
            self._stopped_at = time.monotonic()

    def moves_done(self):
        return self._target_moves is not None and self.moves >= self._target_moves

    # ---- running -----------------------------------------------------------------------------

    async def join(self, timeout=30.0):
        """Connect and join every bot, in order (p1 takes seat 1); nobody is ready yet."""
        for bot in self.bots:
            bot.task = asyncio.create_task(bot.run())
            self._tasks.append(bot.task)
            await asyncio.wait_for(bot.joined.wait(), timeout)
        if self.junk is not None:
            self._tasks.append(asyncio.create_task(self.junk.run()))

    async def play(self, moves=None, matches=None, seconds=None, guard=None):
        """Play until `moves` accepted moves, `matches` matches with a result, or `seconds`
        (then the match under way is played to its result). guard(), if given, is called
        every 0.5 s and may raise to stop the run. Returns figures(); raises RunFailed when
        nothing moves for stall_s while a match should be running."""
        if not self.bots:
            raise ValueError("no bots")
        self._target_moves = moves
        self._target_matches = matches
        begun = time.monotonic()
        self._deadline = begun + seconds if seconds is not None else None
        self._playing = True
        self.last_move = begun
        while True:
            await asyncio.sleep(0.5)
            if guard is not None:
                guard()
            for bot in self.bots:
                if bot.task.done() and bot.task.exception() is not None:
                    raise RunFailed("%s failed: %r" % (bot.name, bot.task.exception()))
            now = time.monotonic()
            if moves is not None and self.moves >= moves:
                break
            if self._deadline is not None and now >= self._deadline:
                self._stop_after(self.mn)
            if self._last_match is not None:
                if self._last_match in self.results or self.mn > self._last_match:
                    break
                if self.phase == "waiting" or now - self._stopped_at > WIND_DOWN_S:
                    break  # no match under way (or it will not end): nothing to wait for
            players = [b for b in self.bots if b.role == "play"]
            if len(players) == 2 and now - self.last_move > self.stall_s:
                raise RunFailed(
                    "no accepted move for %.0f s (match %d, %s; settled: %s)"
                    % (
                        self.stall_s,
                        self.mn,
                        self.phase,
                        ", ".join("%s %s" % (b.name, b.settled) for b in self.bots),
                    )
                )
        self._playing = False
        return self.figures()

    async def check_served(self, timeout=None):
        """Every bot still answers a ping, and every observer holds a view at least as new as
        the players' (the end-of-run check of tools/mem_budget.py)."""
        timeout = timeout or self.reply_s
        loop = asyncio.get_running_loop()
        for bot in self.bots:
            # a chaos action still under way ends first (its bot then comes back)
            deadline = loop.time() + timeout + STALL_FOR_S[1] + BACKOFF_S[1]
            while True:
                while not bot.settled:
                    if loop.time() > deadline:
                        raise RunFailed("%s did not come back" % bot.name)
                    await asyncio.sleep(0.05)
                try:
                    await bot.client.ping()
                    break
                except (Closed, websockets.ConnectionClosed):
                    await asyncio.sleep(0.05)  # closed just now: it reconnects
                except ReplyTimeout as err:
                    raise RunFailed(str(err))
        players = [b.client for b in self.bots if b.role == "play"]
        if not players:
            return
        final = max(p.view["s"] for p in players)
        mn = max(p.mn for p in players)
        for bot in self.bots:
            if bot.role == "watch":
                obs = bot.client
                try:
                    await obs.until(
                        lambda o=obs: o.mn == mn and o.view["s"] >= final,
                        timeout,
                        "the final view",
                    )
                except (Closed, ReplyTimeout) as err:
                    raise RunFailed(str(err))

    async def close(self):
        self.closing = True
        self._playing = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except BaseException:  # noqa: B036 - cancelled, or already failed and reported
                pass
        for bot in self.bots:
            if bot.client is not None:
                await bot.client.close()

    # ---- figures ----------------------------------------------------------------------------

    def figures(self):
        """Everything counted so far, as plain data (JSON-ready)."""
        started = sorted(self.started)
        bots = {}
        for bot in self.bots:
            row = {
                "role": bot.role,
                "chaotic": bot.chaotic,
                "joins": bot.joins,
                "views": bot.views,
                "closes": {str(k): v for k, v in sorted(bot.closes.items())},
                "errors": dict(sorted(bot.errors.items())),
                "chaos": dict(sorted(bot.chaos.items())),
                "reply_timeouts": bot.reply_timeouts,
                "longest_out_s": round(bot.longest_out_s, 2),
            }
            if bot.role == "play":
                row["acks"] = bot.acks
                row["refusals"] = dict(sorted(bot.refusals.items()))
                row["latency_ms"] = latency_figures(bot.latencies)
            bots[bot.name] = row
        return {
            "url": self.url,
            "moves": self.moves,
            "matches_started": len(started),
            "matches_with_result": sum(1 for mn in started if mn in self.results),
            "results": {str(mn): self.results[mn] for mn in sorted(self.results)},
            "without_result": [mn for mn in started if mn not in self.results],
            "connections": dict(self.connections),
            "junk": dict(sorted(self.junk.kinds.items())) if self.junk else {},
            "bots": bots,
        }


def latency_figures(samples):
    """p50/p99/max (ms) and counts of (ms, chaotic) samples: all, quiet, under chaos."""
    out = {}
    for label, keep in (("all", None), ("quiet", False), ("chaos", True)):
        values = [ms for ms, chaotic in samples if keep is None or chaotic == keep]
        out[label] = {
            "n": len(values),
            "p50": _round(percentile(values, 50)),
            "p99": _round(percentile(values, 99)),
            "max": _round(max(values) if values else None),
        }
    return out


def _round(value):
    return None if value is None else round(value, 2)


async def run_bots(
    url,
    players=2,
    observers=4,
    moves=None,
    matches=None,
    seconds=None,
    rng_seed=1,
    behaviours=(),
    schedule="always",
    honest=HONEST,
    heartbeat_s=HEARTBEAT_S,
    reply_s=REPLY_TIMEOUT_S,
    stall_s=STALL_S,
    guard=None,
    check=True,
):
    """Join every bot, play until `moves` accepted moves, `matches` results or `seconds`, check
    that everyone is still served (check=True), and return the figures (BotRunner.figures)."""
    runner = BotRunner(
        url,
        players,
        observers,
        rng_seed,
        behaviours,
        schedule,
        honest,
        heartbeat_s,
        reply_s,
        stall_s,
    )
    try:
        await runner.join()
        figures = await runner.play(moves, matches, seconds, guard)
        if check:
            await runner.check_served()
        return figures
    finally:
        await runner.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url", help="the board: ws://HOST:PORT/ws or http://HOST[:PORT]/")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--observers", type=int, default=4)
    until = parser.add_mutually_exclusive_group()
    until.add_argument("--moves", type=int, help="stop after this many accepted moves")
    until.add_argument("--matches", type=int, help="stop after this many results")
    until.add_argument("--minutes", type=float, help="stop after this long (ends the match)")
    parser.add_argument(
        "--chaos",
        default="",
        help="comma-separated behaviours (%s) or 'all'" % ",".join(BEHAVIOURS),
    )
    parser.add_argument("--schedule", choices=SCHEDULES, default="always")
    parser.add_argument("--honest", default=",".join(HONEST), help="bots that never misbehave")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    behaviours = BEHAVIOURS if args.chaos == "all" else tuple(filter(None, args.chaos.split(",")))
    if args.moves is None and args.matches is None and args.minutes is None:
        args.moves = 2000
    try:
        figures = asyncio.run(
            run_bots(
                args.url,
                args.players,
                args.observers,
                moves=args.moves,
                matches=args.matches,
                seconds=args.minutes * 60 if args.minutes else None,
                rng_seed=args.seed,
                behaviours=behaviours,
                schedule=args.schedule,
                honest=tuple(filter(None, args.honest.split(","))),
            )
        )
    except (RunFailed, ValueError, OSError, asyncio.TimeoutError) as err:
        print("bot_runner: %s" % err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print_figures(figures)
    return 0


def print_figures(figures, say=print):
    say(
        "%d accepted moves, %d matches started, %d with a result (%s)"
        % (
            figures["moves"],
            figures["matches_started"],
            figures["matches_with_result"],
            ", ".join(
                "%s %d" % (r, list(figures["results"].values()).count(r))
                for r in ("win", "draw", "forfeit")
            ),
        )
    )
    say(
        "connections opened: %s" % ", ".join("%s %d" % kv for kv in figures["connections"].items())
    )
    for name, row in figures["bots"].items():
        line = "  %-5s %s joins %d, views %d" % (
            name,
            "chaotic" if row["chaotic"] else "honest ",
            row["joins"],
            row["views"],
        )
        if "acks" in row:
            lat = row["latency_ms"]
            line += ", moves %d, intent->view p50 %s / p99 %s ms" % (
                row["acks"],
                lat["all"]["p50"],
                lat["all"]["p99"],
            )
        if row["chaos"]:
            line += ", chaos %s" % row["chaos"]
        if row["closes"]:
            line += ", closes %s" % row["closes"]
        say(line)


if __name__ == "__main__":
    sys.exit(main())
