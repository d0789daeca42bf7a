# The terminal client end to end (tools/term_client.py): the real client in a pseudo-terminal
# (raw mode, arrow keys and WASD as a terminal sends them) against the real firmware on a host
# board; a second player and a spectator (tools/game_client.py) check that the board applied
# the moves typed, and the screen shows the room, the phase and the player's own position.
import asyncio
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading

from waits import until_async

from bots import BITS, DIRS, inside, step
from game_client import GameClient, both_ready, close_all, run, two_players_and_observer
from hostenv import TOOLS
from term_client import strip_ansi

ARROWS = {"N": b"\x1b[A", "S": b"\x1b[B", "E": b"\x1b[C", "W": b"\x1b[D"}
LETTERS = {"N": b"w", "S": b"s", "E": b"d", "W": b"a"}
REFUSED = "refused: COOLDOWN"  # the client's last line after a move the board refused


class Terminal:
    """tools/term_client.py on a pty of 60 rows x 120 columns; .screen() is the last frame."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 120, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, str(TOOLS / "term_client.py"), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.output = b""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data

    def screen(self):
        """The lines of the newest complete frame (each frame starts at the home position)."""
        with self._lock:
            text = self.output.decode(errors="replace")
        frames = text.split("\x1b[H")
        last = frames[-1] if text.endswith("\x1b[J") or len(frames) < 3 else frames[-2]
        return [strip_ansi(line) for line in last.replace("\r", "").split("\n")]

    def type(self, data):
        os.write(self.master, data)

    async def shows(self, *texts, timeout=10.0):
        """The screen once it shows every one of texts (nothing announces a frame: polled)."""

        def shown():
            screen = "\n".join(self.screen())
            if all(text in screen for text in texts):
                return screen
            if self.process.poll() is not None:
                raise AssertionError("the client ended; the screen never showed %r" % (texts,))
            return None

        try:
            return await until_async(shown, "the screen to show %r" % (texts,), timeout)
        except AssertionError as exc:
            raise AssertionError("%s:\n%s" % (exc, "\n".join(self.screen()))) from None

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


class Proxy:
    """A TCP relay on loopback to the board; cut() resets every connection through it. The
    request's Host names the board (the board redirects requests for other hosts)."""

    def __init__(self, port):
        self.port = port
        self.pairs = []
        self.server = None
        self.local = None

    async def start(self):
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.local = self.server.sockets[0].getsockname()[1]
        return self.local

    async def _relay(self, reader, writer):
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.pairs.append((writer, up_writer))
        host = (b"127.0.0.1:%d" % self.local, b"127.0.0.1:%d" % self.port)

        async def pipe(src, dst, rewrite=False):
            try:
                while data := await src.read(4096):
                    if rewrite:
                        data = data.replace(*host)
                    dst.write(data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer))

    def cut(self):
        for writer, up_writer in self.pairs:
            writer.transport.abort()
            up_writer.transport.abort()
        self.pairs = []

    def close(self):
        self.server.close()


def open_direction(maze, cell):
    w, h = maze["w"], maze["h"]
    flags = maze["cells"][cell]
    for d in range(4):
        if flags & BITS[d] and inside(cell, d, w, h):
            return d
    raise AssertionError("no open side at %d" % cell)


def test_terminal_client_plays_a_match_typed_on_a_pty(game_board):
    url = game_board.ws_url
    term = Terminal(url, "--name", "ann")

    async def scenario():
        screen = await term.shows("ann, seat 1", "match 1: waiting", "Room: 1 ann (here)")
        assert "@1" in screen  # the own pawn on the map
        bob = await GameClient(url, "bob").connect()
        await bob.join(name="bob")
        obs = await GameClient(url, "obs").connect()
        await obs.join("watch", view="full")
        await term.shows("2 bob (here)", "watching 1/4")
        term.type(b"r")  # ready
        await term.shows("1 ann (here, ready)")
        assert (await bob.intent("ready"))["t"] == "ack"
        await obs.view_where(lambda v: v["ph"] == "active", what="active")
        await term.shows("match 1: active")
        w = obs.view["w"]
        for keys in (ARROWS, LETTERS):
            here = obs.view["st"]["players"][0]["p"]
            d = open_direction(obs.view, here)
            there = step(here, d, w)

            def moved(c=there):
                return obs.view["st"]["players"][0]["p"] == c

            # The client sends a move a cooldown after its last one, timed on its own clock;
            # should the board's clock say it came too early, the refusal is on the screen and
            # the key is typed again (the client then waits a cooldown after the refused one,
            # which was sent after the board took the move before).
            assert REFUSED not in "\n".join(term.screen())
            term.type(keys[DIRS[d]])
            await until_async(
                lambda: moved() or REFUSED in "\n".join(term.screen()),
                "p1 moved, or refused",
                timeout=10.0,
            )
            if not moved():
                term.type(keys[DIRS[d]])
            await obs.view_where(
                lambda v, c=there: v["st"]["players"][0]["p"] == c, what="p1 at %d" % there
            )
            await term.shows("You at (%d,%d)" % (there % w, there // w))
        term.type(b"q")
        await close_all(bob, obs)

    try:
        run(scenario(), timeout=60)
        assert term.process.wait(10) == 0
        assert term.output.endswith(b"\x1b[?1049l")  # the terminal is given back
    finally:
        term.stop()


def test_terminal_client_gets_its_seat_back_after_a_drop(game_board):
    """A connection cut in the middle of a match: the client reconnects with its seat token and
    the board gives it the same seat (resumed), its position unchanged."""
    port = int(game_board.ws_url.rsplit(":", 1)[1].split("/")[0])

    async def scenario():
        proxy = Proxy(port)
        local = await proxy.start()
        term = Terminal("http://127.0.0.1:%d/" % local, "--name", "ann", "--no-color")
        try:
            await term.shows("ann, seat 1", "[online]")
            bob = await GameClient(game_board.ws_url, "bob").connect()
            await bob.join(name="bob")
            term.type(b"r")
            assert (await bob.intent("ready"))["t"] == "ack"
            await bob.view_where(lambda v: v["ph"] == "active", what="active")
            screen = await term.shows("match 1: active")
            where = [line for line in screen.splitlines() if line.startswith("You at ")][0]
            proxy.cut()
            await bob.until(
                lambda: bob.rooms and bob.rooms[-1]["p"][0]["on"] is False, what="ann away"
            )
            await term.shows("resumed seat 1", "[online]", "1 ann (here)", where.split("  ")[0])
            await bob.until(lambda: bob.rooms[-1]["p"][0]["on"], what="ann back")
            assert bob.rooms[-1]["p"][0]["name"] == "ann"
            term.type(b"q")
            await close_all(bob)
            assert await asyncio.to_thread(term.process.wait, 10) == 0
        finally:
            term.stop()
            proxy.close()

    run(scenario(), timeout=60)


def test_terminal_spectator_sees_the_whole_maze_and_both_players(game_board):
    url = game_board.ws_url
    term = Terminal(game_board.board.url, "--watch")  # the page URL: the client finds /ws

    async def scenario():
        ann, bob, obs = await two_players_and_observer(url)
        await both_ready(ann, bob)
        screen = await term.shows("watching", "match 1: active", "P1 at (", "P2 at (")
        maze = [line for line in screen.splitlines() if line.startswith("+")]
        h = ann.view["h"]
        assert len(maze) == h + 1  # every wall line: the spectator sees every cell
        assert "P1" in screen.split("P1 at")[0] and "P2" in screen.split("P1 at")[0]
        term.type(b"q")
        await close_all(ann, bob, obs)

    try:
        run(scenario(), timeout=60)
        assert term.process.wait(10) == 0
    finally:
        term.stop()
