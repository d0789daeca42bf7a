"""A terminal client: play or watch a match on any board (or a `make run` laptop board).

    python tools/term_client.py ws://127.0.0.1:8080/ws            # take a seat
    python tools/term_client.py http://192.168.4.1/ --name ann    # a board page URL works too
    python tools/term_client.py http://127.0.0.1:8080/ --watch    # spectate: the whole maze

Keys: arrows or WASD move, r ready (and rematch after a result; reconnect when disconnected),
x drop the carried key, q quit. A plain ANSI terminal in raw mode (termios/tty, no curses).

A player sees what its own views showed it, as the phone does: the walls of every cell seen
this match (out of sight: dimmed), objects where they were last seen (out of sight: lower
case, since they may have moved), the opponent only while in sight, the own square
highlighted; a status block (phase, key, vision, compass, exit, opponent, result) and the room
(names, presence, ready flags, spectators). A spectator sees the observer view: every cell,
both players, every object. After a dropped connection the client reconnects (250 ms doubling
to 5 s, +-20 %) and a player presents its seat token to keep its seat; not after `leave`, a
full room (4003) or a seat opened elsewhere (4001): r tries again.

Map legend: @1 / @2 yourself, P1 / P2 a player, K1 key of seat 1, E2 exit of seat 2 (O2 once
open), C1 compass, V* vision artifact; `--` and `|` walls, `+` corners.

Pure parts, tested without a terminal (host_tests/test_term_client.py): parse_keys(bytes) ->
actions, TermState.take(message) and .see(view) (the protocol -> what to draw), render(state)
-> list of lines. The rest is I/O: the terminal, the socket, the redraw loop.
"""

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time

import websockets

from ws_game_client import Closed, WsGameClient, ws_url

DIRS = "NESW"
BEARINGS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
KEY, EXIT, COMPASS, VISION = 0, 1, 2, 3
GLYPH = {KEY: "K", EXIT: "E", COMPASS: "C", VISION: "V"}
BACKOFF_S = (0.25, 5.0)
NO_RECONNECT = {1000: "left", 4001: "seat opened elsewhere", 4003: "room full"}
FRAME_S = 1 / 30  # the screen is redrawn at most this often

# ---- keys -------------------------------------------------------------------------------------

_ARROWS = {b"A": "N", b"B": "S", b"C": "E", b"D": "W"}
_LETTERS = {
    "w": ("move", "N"),
    "a": ("move", "W"),
    "s": ("move", "S"),
    "d": ("move", "E"),
    "r": ("ready",),
    "x": ("drop",),
    "q": ("quit",),
    "\x03": ("quit",),  # Ctrl-C in raw mode
    "\x0c": ("redraw",),  # Ctrl-L
}


def parse_keys(data):
    """(actions, rest): the actions of the bytes typed, and an unfinished escape sequence to
    prepend to the next read. Arrows come as ESC [ A..D (or ESC O A..D); other bytes and
    escape sequences are ignored."""
    actions = []
    i = 0
    while i < len(data):
        b = data[i : i + 1]
        if b == b"\x1b":
            if i + 1 >= len(data) or (data[i + 1 : i + 2] in b"[O" and i + 2 >= len(data)):
                return actions, data[i:]  # wait for the rest of the sequence
            if data[i + 1 : i + 2] in (b"[", b"O"):
                j = i + 2
                while j < len(data) and not 0x40 <= data[j] <= 0x7E:
                    j += 1  # parameters of a longer sequence (e.g. ESC [ 1 ; 5 A)
                if j >= len(data):
                    return actions, data[i:]
                final = data[j : j + 1]
                if final in _ARROWS:
                    actions.append(("move", _ARROWS[final]))
                i = j + 1
                continue
            i += 1  # a lone ESC followed by something else
            continue
        action = _LETTERS.get(b.decode("latin-1").lower())
        if action is not None:
            actions.append(action)
        i += 1
    return actions, b""


# ---- what to draw ------------------------------------------------------------------------------


class MapMemory:
    """What a player's views showed it this match: the passages of every cell seen, and each
    object where it was last seen. A key, exit or compass is one object (its newest sighting
    wins: a key moves when carried and dropped); vision artifacts come in pairs, so each is
    known by its cell. Seeing a cell again without an object drops what was remembered there."""

    def __init__(self):
        self.forget()

    def forget(self):
        self.cells = {}  # index -> passage flags
        self.things = {}  # (kind, owner) or (VISION, cell) -> (kind, owner, variant, cell)

    def see(self, view):
        cells = view["cells"]
        self.cells.update(cells)
        for name in [n for n, thing in self.things.items() if thing[3] in cells]:
            del self.things[name]
        for kind, owner, variant, cell in view["objects"]:
            name = (kind, cell) if kind == VISION else (kind, owner)
            self.things[name] = (kind, owner, variant, cell)

    def find(self, kind, owner):
        """(variant, cell) where this object was last seen, or None."""
        thing = self.things.get((kind, owner))
        return None if thing is None else (thing[2], thing[3])


class TermState:
    """Everything the screen shows, fed by the protocol's messages (take) and complete views
    (see). A player's map memory is per match (mn): a new match number starts it afresh."""

    def __init__(self, url, watch=False, name=None):
        self.url = url
        self.role = "watch" if watch else "play"
        self.name = name
        self.seat = 0
        self.token = None
        self.welcome = None
        self.room = None
        self.view = None
        self.mn = 0
        self.memory = MapMemory()  # cells seen this match, objects where last seen
        self.size = None  # (w, h) of the maze the memory belongs to
        self.conn = "connecting"
        self.note = ""
        self.result = None  # the last result event

    # -- protocol ----------------------------------------------------------------------------

    def take(self, msg):
        """One message from the board (anything but view records)."""
        t = msg.get("t")
        if t == "welcome":
            self.welcome = msg
            self.seat = msg.get("seat", 0)
            self.token = msg.get("token", self.token)
            self._match(msg["mn"])
            self.note = "%s seat %d" % ("resumed" if msg.get("resumed") else "took", self.seat)
            if self.role == "watch":
                self.note = "watching"
        elif t == "room":
            self.room = msg
            self._match(msg["mn"])
        elif t == "err":
            self.note = "refused: %s" % msg.get("code", "?")
            if msg.get("code") == "BAD_TOKEN":
                self.token = None
        elif t == "ev":
            self._event(msg)

    def _event(self, ev):
        e = ev.get("e")
        if e == "phase":
            self.note = "phase: %s" % ev.get("ph")
            if ev.get("ph") == "countdown":
                self.result = None
        elif e == "result":
            self.result = ev
            self.note = "result: %s" % ev.get("result")
        elif e == "compass":
            self.note = "compass: your exit lies %s" % ev.get("bearing")
        else:
            fields = ", ".join("%s %s" % (k, v) for k, v in ev.items() if k not in ("t", "e", "s"))
            self.note = "%s%s" % (e.replace("_", " "), (" (%s)" % fields) if fields else "")

    def _match(self, mn):
        """A new match number (welcome, room) starts a new map memory."""
        if mn != self.mn:
            self.memory.forget()
        self.mn = mn

    def see(self, view):
        """A complete view (tools/ws_game_client.merge)."""
        size = (view["w"], view["h"])
        if size != self.size:  # another maze: another match
            self.memory.forget()
            self.size = size
        self.view = view
        if self.role == "play":
            self.memory.see(view)

    # -- helpers -----------------------------------------------------------------------------

    @property
    def phase(self):
        return self.view["ph"] if self.view else "?"

    def xy(self, cell):
        w = self.view["w"]
        return "(%d,%d)" % (cell % w, cell // w)


def _own(seat, owner):
    return "yours" if owner == seat else "seat %d's" % owner


def status_lines(state):
    """The status block under the map."""
    v = state.view
    lines = []
    who = (
        "watching"
        if state.role == "watch"
        else "%s, seat %d" % (state.name or "player", state.seat)
        if state.seat
        else "no seat yet"
    )
    lines.append(
        "Maze Duel %s  [%s]  %s  match %d: %s"
        % (state.url, state.conn, who, state.mn, v["ph"] if v else "-")
    )
    if v is None:
        return lines
    st = v["st"]
    if state.role == "play" and "p" in st:
        seat = state.seat
        key = "none" if not st["k"] else _own(seat, st["k"])
        if st["k"] and st["k"] != seat:
            key += " (x drops it)"
        vision = "radius %d" % st["rad"] + (", %d moves left" % st["vm"] if st["vm"] else "")
        compass = BEARINGS[st["cp"]] if st["cp"] >= 0 else "none"
        exit_ = state.memory.find(EXIT, seat)
        if st["xd"]:
            where = "out"
        elif exit_ is not None:
            where = "at %s, %s" % (state.xy(exit_[1]), "open" if st["xo"] else "closed")
        else:
            where = "open, not seen" if st["xo"] else "not seen yet"
        lines.append(
            "You at %s  key: %s  vision: %s  compass: %s  exit: %s"
            % (state.xy(st["p"]), key, vision, compass, where)
        )
        opp = st.get("opponent")
        lines.append(
            "Opponent: "
            + (
                "in sight at %s, carrying %s" % (state.xy(opp["p"]), _key_text(opp["k"], seat))
                if opp
                else "out of sight"
            )
        )
    elif "players" in st:
        for n, p in enumerate(st["players"], 1):
            where = "out" if p["xd"] else state.xy(p["p"])
            lines.append(
                "P%d at %s  key: %s  vision: %s  compass: %s  exit: %s"
                % (
                    n,
                    where,
                    "seat %d's" % p["k"] if p["k"] else "none",
                    p["vm"] if p["vm"] else "-",
                    BEARINGS[p["cp"]] if p["cp"] >= 0 else "-",
                    "open" if p["xo"] else "closed",
                )
            )
    lines.append("Result: " + _result_text(st, state))
    lines.append("Room: " + _room_text(state.room))
    lines.append("Last: " + (state.note or "-"))
    if state.role == "play":
        lines.append("Keys: arrows/WASD move, r ready/rematch, x drop the key, q quit")
    else:
        lines.append("Keys: q quit")
    return lines


def _key_text(k, seat):
    return "no key" if not k else ("your key" if k == seat else "key %d" % k)


def _result_text(st, state):
    res = st.get("res", "none")
    if res == "none":
        return "none yet"
    win = st.get("win", 0)
    if res == "draw":
        text = "draw"
    elif state.role == "play" and state.seat:
        text = "you %s" % ("won" if win == state.seat else "lost")
        if res == "forfeit":
            text += " (forfeit)"
    else:
        text = "seat %d won%s" % (win, " by forfeit" if res == "forfeit" else "")
    if state.role == "play":
        text += "  (r: rematch)"
    return text


def _room_text(room):
    if room is None:
        return "-"
    parts = []
    for n, p in enumerate(room["p"], 1):
        if p is None:
            parts.append("%d free" % n)
        else:
            flags = ["here" if p["on"] else "away"]
            if p["ready"]:
                flags.append("ready")
            parts.append("%d %s (%s)" % (n, p["name"], ", ".join(flags)))
    parts.append("watching %d/%d" % (room["obs"], room["max_obs"]))
    return "  ".join(parts)


# Styles of the map's pieces (color=True): ANSI SGR parameters.
_STYLE = {
    "wall": "37",
    "old": "2",  # out of sight (remembered)
    "sight": "1;44",  # the own square
    "me": "1;7",
    "player": "1;31",
    "key": "1;33",
    "exit": "1;32",
    "compass": "1;36",
    "vision": "1;35",
}


def map_lines(state):
    """The maze as [(text, style or None), ...] per line: 3 columns per cell ("+--" above,
    "|xy" beside), walls only where a cell on either side is known."""
    v = state.view
    w, h = v["w"], v["h"]
    st = v["st"]
    watch = state.role != "play"
    if watch:
        known = v["cells"]
        things = {}
        for kind, owner, _variant, cell in v["objects"]:
            things.setdefault(cell, (kind, owner, True))
    else:
        known = state.memory.cells
        things = {}
        for kind, owner, _variant, cell in sorted(state.memory.things.values()):
            # in sight: in this view; else where it was last seen (it may have moved)
            things.setdefault(cell, (kind, owner, cell in v["cells"]))
    sight = set(v["cells"]) if not watch else set()
    players = {}
    if watch:
        for n, p in enumerate(st["players"], 1):
            if not p["xd"]:
                players.setdefault(p["p"], ("P%d" % n, "player"))
    else:
        opp = st.get("opponent")
        if opp:
            players[opp["p"]] = ("P%d" % (3 - state.seat), "player")
        players[st["p"]] = ("@%d" % state.seat, "me")
    open_exits = set()
    if watch:
        open_exits = {n for n, p in enumerate(st["players"], 1) if p["xo"]}
    elif st.get("xo"):
        open_exits = {state.seat}

    def flags(x, y):
        if 0 <= x < w and 0 <= y < h:
            return known.get(y * w + x)
        return None

    def style_of(x, y):
        if not (0 <= x < w and 0 <= y < h):
            return "wall"
        return "wall" if watch or (y * w + x) in sight else "old"

    lines = []
    for y in range(h + 1):
        # the wall line above row y
        row = []
        for x in range(w + 1):
            around = ((x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y))
            corner = any(flags(cx, cy) is not None for cx, cy in around)
            row.append(("+" if corner else " ", "wall"))
            if x == w:
                break
            above, below = flags(x, y - 1), flags(x, y)
            if above is None and below is None:
                row.append(("  ", None))
            else:
                closed = (below is not None and not below & 1) or (
                    above is not None and not above & 4
                )
                row.append(
                    ("--" if closed else "  ", style_of(x, y if below is not None else y - 1))
                )
        lines.append(row)
        if y == h:
            break
        row = []
        for x in range(w + 1):
            left, here = flags(x - 1, y), flags(x, y)
            if left is None and here is None:
                row.append((" ", None))
            else:
                closed = (here is not None and not here & 8) or (left is not None and not left & 2)
                row.append(("|" if closed else " ", style_of(x if here is not None else x - 1, y)))
            if x == w:
                break
            cell = y * w + x
            in_sight = cell in sight
            base = "sight" if in_sight else None
            if cell in players:
                text, style = players[cell]
            elif cell in things:
                kind, owner, now = things[cell]
                letter = GLYPH[kind]
                if kind == EXIT and owner in open_exits:
                    letter = "O"
                text = letter + ("*" if kind == VISION else str(owner))
                if not now:
                    text = text.lower()
                style = ("key", "exit", "compass", "vision")[kind] if now else "old"
            else:
                text, style = "  ", base
            row.append((text, style if style else base))
        lines.append(row)
    return lines


def render(state, color=False, width=None):
    """The whole screen as a list of lines (ANSI styled when color), map then status."""
    out = []
    if state.view is not None:
        for row in map_lines(state):
            while row and not row[-1][0].strip() and row[-1][1] != "sight":
                row.pop()  # trailing blanks (the own square's keep their background)
            out.append("".join(_paint(text, style, color) for text, style in row))
        out.append("")
    out.extend(status_lines(state))
    if width:
        out = [_clip(line, width) for line in out]
    return out


def _paint(text, style, color):
    if not color or not style:
        return text
    return "\x1b[%sm%s\x1b[0m" % (_STYLE[style], text)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text):
    return _ANSI.sub("", text)


def _clip(line, width):
    """Cut a line to `width` visible columns (escape sequences kept whole)."""
    if len(strip_ansi(line)) <= width:
        return line
    out, seen, i = [], 0, 0
    while i < len(line) and seen < width:
        m = _ANSI.match(line, i)
        if m:
            out.append(m.group(0))
            i = m.end()
            continue
        out.append(line[i])
        seen += 1
        i += 1
    return "".join(out) + "\x1b[0m"


# ---- I/O: the connection -----------------------------------------------------------------------


class _Conn(WsGameClient):
    def __init__(self, app):
        super().__init__(app.state.url, "term", heartbeat_s=0.4, open_timeout=10, reply_timeout=10)
        self.app = app

    def on_message(self, msg):
        if msg.get("t") != "view":
            self.app.state.take(msg)
            if msg.get("t") in ("ack", "err") and msg.get("c") == self.app.in_flight:
                self.app.in_flight = None
            self.app.changed()

    def on_view(self, view):
        self.app.state.see(view)
        self.app.changed()


class TermApp:
    """The terminal client: input, connection (with reconnects) and redraws."""

    def __init__(self, url, watch=False, name=None, out_fd=1, in_fd=0, color=True):
        self.state = TermState(ws_url(url), watch, name)
        self.out_fd = out_fd
        self.in_fd = in_fd
        self.color = color
        self.conn = None
        self.quit = asyncio.Event()
        self.retry = asyncio.Event()
        self.dirty = asyncio.Event()
        self.pending = None  # the newest direction asked for, not sent yet
        self.in_flight = None  # c of the move sent and not answered yet
        self.sent_at = 0.0
        self.c = 0  # the seat's client sequence, across reconnects
        self._rest = b""

    def changed(self):
        self.dirty.set()

    # -- input ---------------------------------------------------------------------------------

    def on_input(self):
        try:
            data = os.read(self.in_fd, 256)
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self.in_fd)
            return
        actions, self._rest = parse_keys(self._rest + data)
        for action in actions:
            self.act(action)

    def act(self, action):
        kind = action[0]
        if kind == "quit":
            self.quit.set()
        elif kind == "redraw":
            self.changed()
        elif kind == "move":
            self.pending = action[1]
            self.changed()
        elif kind == "ready":
            if self.conn is None or self.conn.closed or self.conn.welcome is None:
                self.retry.set()  # reconnect now
            else:
                t = "rematch" if self.state.phase == "finished" else "ready"
                asyncio.get_running_loop().create_task(self._send(t))
        elif kind == "drop":
            asyncio.get_running_loop().create_task(self._send("drop"))

    async def _send(self, t, **fields):
        conn = self.conn
        if conn is None or conn.closed or conn.welcome is None or self.state.role != "play":
            return None
        c = conn.next_c()
        msg = {"t": t, "c": c}
        msg.update(fields)
        try:
            await conn.send(json.dumps(msg))
        except websockets.ConnectionClosed:
            return None
        return c

    async def mover(self):
        """Sends the newest direction asked for: one move at a time, one per cooldown."""
        while True:
            await asyncio.sleep(0.01)
            conn = self.conn
            if self.pending is None or conn is None or conn.welcome is None:
                continue
            cool = conn.welcome.get("cool", 250) / 1000 + 0.02
            if self.in_flight is not None and time.monotonic() - self.sent_at < 5:
                continue
            if time.monotonic() - self.sent_at < cool:
                continue
            d, self.pending = self.pending, None
            self.sent_at = time.monotonic()
            self.in_flight = await self._send("move", d=d)

    # -- connection ----------------------------------------------------------------------------

    async def connection(self):
        """Connect, join, stay until closed; then reconnect after a backoff (with the seat's
        token), unless the board said not to (leave, room full, seat opened elsewhere)."""
        backoff = BACKOFF_S[0]
        state = self.state
        while not self.quit.is_set():
            conn = _Conn(self)
            self.conn = conn
            state.conn = "connecting"
            self.changed()
            try:
                if await self._session(conn):
                    backoff = BACKOFF_S[0]
            except (Closed, OSError, AssertionError, websockets.WebSocketException):
                pass  # refused (503), reset, closed, no answer: try again
            finally:
                if state.token is not None:  # the seat's sequence goes on
                    self.c = max(self.c, conn._c)
                await conn.close()
            if self.quit.is_set():
                break
            code = conn.close_code
            stop = NO_RECONNECT.get(code)
            if stop is None and conn.errors and conn.errors[-1].get("code") == "ROOM_FULL":
                stop = "room full"
            self.retry.clear()
            if stop is not None:
                state.conn = "closed: %s (r: try again)" % stop
                self.changed()
                await self._wait_any(self.retry)
                continue
            wait = backoff * random.uniform(0.8, 1.2)
            state.conn = "reconnecting in %.1f s (%s)" % (wait, code or "no connection")
            self.changed()
            await self._wait_any(self.retry, timeout=wait)
            backoff = min(backoff * 2, BACKOFF_S[1])

    async def _session(self, conn):
        """One connection: join, then wait until it closes (or the user quits). Returns
        whether the board welcomed it."""
        state = self.state
        await conn.connect()
        conn._c = self.c
        msg = {"t": "join", "role": state.role}
        if state.role == "watch":
            # the whole maze where the board allows it ("tv": "full"); else the board sends
            # both players' views and this shows the last one (docs/protocol.md)
            msg["view"] = "full"
        if state.role == "play":
            if state.name:
                msg["name"] = state.name
            if state.token:
                msg["token"] = state.token
        await conn.send(json.dumps(msg))
        await conn.until(lambda: conn.welcome is not None or conn.errors, what="welcome")
        welcomed = conn.welcome is not None
        if welcomed:
            conn._c = max(conn._c, conn.welcome.get("last", 0))
            conn.heartbeat_s = max(0.2, min(5.0, conn.welcome.get("idle", 20000) / 4000))
            state.conn = "online"
            self.in_flight = None
            self.changed()
        await conn.until(lambda: conn.closed or self.quit.is_set(), timeout=1e9)
        return welcomed

    async def _wait_any(self, event, timeout=None):
        waiters = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(self.quit.wait())]
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for waiter in waiters:
            waiter.cancel()

    # -- output --------------------------------------------------------------------------------

    def size(self):
        try:
            return os.get_terminal_size(self.out_fd)
        except OSError:
            return os.terminal_size((100, 50))

    def draw(self):
        cols, rows = self.size()
        lines = render(self.state, self.color, width=cols)[:rows]
        text = "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J"
        self._write(text)

    def _write(self, text):
        data = text.encode()
        while data:
            try:
                n = os.write(self.out_fd, data)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            data = data[n:]

    async def painter(self):
        while True:
            await self.dirty.wait()
            self.dirty.clear()
            self.draw()
            await asyncio.sleep(FRAME_S)

    async def run(self):
        loop = asyncio.get_running_loop()
        loop.add_reader(self.in_fd, self.on_input)
        self._write("\x1b[?1049h\x1b[?25l\x1b[2J")
        tasks = [
            asyncio.create_task(self.connection()),
            asyncio.create_task(self.mover()),
            asyncio.create_task(self.painter()),
        ]
        self.changed()
        try:
            await self.quit.wait()
        finally:
            loop.remove_reader(self.in_fd)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.conn is not None:
                await self.conn.close()
            self._write("\x1b[0m\x1b[?25h\x1b[?1049l")
        return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url", help="ws://HOST:PORT/ws, or the board's http:// page URL")
    parser.add_argument("--watch", action="store_true", help="spectate instead of playing")
    parser.add_argument("--name", help="display name (players)")
    parser.add_argument("--no-color", action="store_true", help="plain text, no colours")
    args = parser.parse_args(argv)
    app = TermApp(args.url, args.watch, args.name, color=not args.no_color)
    saved = None
    if os.isatty(0):
        import termios
        import tty

        saved = termios.tcgetattr(0)
        tty.setraw(0)
    try:
        return asyncio.run(app.run())
    except KeyboardInterrupt:
        return 130
    finally:
        if saved is not None:
            termios.tcsetattr(0, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    sys.exit(main())
