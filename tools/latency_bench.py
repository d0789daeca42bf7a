#!/usr/bin/env python3
# Latency and heap figures of the game host, measured on this machine (CPython + PyPI
# `websockets`): the REAL firmware (tools/run_host.sh, MicroPython unix port, board-like heap)
# with 2 players + 4 observers, and a plain Microdot WebSocket echo under the same binary and
# heap as the baseline, in the same run.
#
#   python tools/latency_bench.py [--samples 200 | --quick] [--heap 96wK] [--preset classic]
#                                 [--cpus apart|shared] [--clients shared|split]
#                                 [--json] [--out FILE]
#
# --json prints the figures as one JSON line at the end of stdout (tools/bench.py reads it);
# --out writes them to FILE; --quick takes 50 samples.
#
# How it measures (docs/performance.md, "Latency"): the echo's round trips are taken between
# the moves, half-way through each pause, so both see the same load of the machine. With
# --cpus apart (the default) the two servers run on the first CPU and every client on the
# others: a phone has a CPU of its own, and on Linux a client woken by the server's write
# would otherwise often run on the server's CPU in its place, before the server writes to the
# next client (measured: the firmware's six writes of a move took 2-3x as long). --cpus shared
# lets every process run anywhere, as before (the echo stays between the moves); a machine with
# one CPU (or no sched_setaffinity) gets it.
# --clients split (not the default) runs the other player and every observer in a process of
# its own (this script with --client), each noting when a view is complete on CLOCK_MONOTONIC
# (time.perf_counter, one clock for every process); it is fair only on a machine with a free
# core per client (on 2 cores it is slower than one process reading all six sockets).
#
# Figures printed:
# - heap in use (after gc.collect, from the board's log): with nobody connected, with 2 players
#   + 4 observers joined, and the difference per client;
# - intent -> ack: from sending a move until its ack arrives (the echo's equivalent), p50/p99;
# - intent -> view: from sending a move until the mover holds the complete new view, p50/p99;
# - intent -> last observer: until all four observers hold that view, p50/p99;
# - echo: round trip of a message of the intent's size through a plain Microdot echo, p50/p99.
# On the ESP32 expect roughly 200x the unix-port times (docs/platform.md, "Speed").
import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets

from build_image import BuildError, microdot_dir, microdot_files, mpy_cross_command
from host_board import HostBoardError, start_host_board, stop_host_board
from hostenv import (
    GATEWAY_HEAP,
    LOOPBACK,
    NotListening,
    find_micropython,
    free_port,
    stop_process,
    wait_port,
)
from ws_game_client import WsGameClient

OBSERVERS = int(os.environ.get("BENCH_OBSERVERS", "4"))
ECHO_BYTES = 32  # the echo's message: about a move intent's size (42 bytes with its JSON)

ECHO_SERVER = """
import sys
from microdot import Microdot
from microdot.websocket import with_websocket, WebSocket

WebSocket.max_message_length = 512
app = Microdot()


@app.route("/echo")
@with_websocket
async def echo(request, ws):
    while True:
        await ws.send(await ws.receive())


app.run(host="127.0.0.1", port=int(sys.argv[1]))
"""


def echo_microdot(lib):
    """The pinned Microdot, untrimmed, compiled to .mpy in lib/microdot (the echo needs the parts
    the board's trimmed copy leaves out: with_websocket, receive, send, run); returns lib."""
    package = lib / "microdot"
    package.mkdir(parents=True, exist_ok=True)
    try:
        source = microdot_dir()
        cross = mpy_cross_command()
        files = microdot_files(source) + ["helpers.py"]  # helpers: websocket_wrapper's
    except BuildError as err:
        sys.exit("latency_bench: %s" % err)
    for name in files:
        out = package / (name[:-3] + ".mpy")
        subprocess.run([*cross, "-o", str(out), str(source / name)], check=True)
    return lib


def percentile(values, p):
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return round(ordered[k], 3)


def spread(values):
    """p50 and p99 (the goals), and p90: on a busy machine a few slow turns make the p99."""
    return {
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
    }


class Peer(WsGameClient):
    """The shared protocol client (tools/ws_game_client.py), noting when each reply and each
    complete view arrived. Views are not merged: only their sequence, phase and size count
    here, and merging observer views in the readers would add to the times measured. Waiters
    wait on an event set after every message: they never spin."""

    def __init__(self, url):
        super().__init__(url, heartbeat_s=1.0, open_timeout=10.0)
        self.reply_at = {}
        self.view_s = -1
        self.view_at = 0.0
        self.view_bytes = 0
        self.part_bytes = 0
        self.active = asyncio.Event()
        self.changed = asyncio.Event()  # set after every message: waiters never spin
        self._text_bytes = 0

    def on_text(self, text):
        self._text_bytes = len(text)

    def on_message(self, msg):
        t = msg.get("t")
        if t == "view":
            if msg["i"] == 0:
                self.part_bytes = 0
            self.part_bytes += self._text_bytes
        elif t in ("ack", "err", "pong") and "c" in msg:
            self.reply_at[msg["c"]] = time.perf_counter()
        self.changed.set()  # the waiters run once this message is routed

    def view_complete(self, parts):
        self.view_at = time.perf_counter()
        last = parts[-1]
        self.view_s = last["s"]
        self.view_bytes = self.part_bytes
        if last["ph"] == "active":
            self.active.set()

    async def until(self, predicate, timeout=None, what="condition"):
        if timeout is None:
            timeout = self.reply_timeout
        deadline = time.perf_counter() + timeout
        while not predicate():
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("%s not met" % what)
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass


async def connect(url, role, name=None):
    peer = await Peer(url).connect()
    await peer.join(role, name=name)
    return peer


async def reply(peer, c):
    await peer.until(lambda: c in peer.replies)
    return peer.replies[c]


class Viewer(Peer):
    """A client of its own process (--client): notes when each view is first complete."""

    def __init__(self, url):
        super().__init__(url)
        self.times = {}  # view sequence s -> time.perf_counter() when it was complete

    def view_complete(self, parts):
        super().view_complete(parts)
        self.times.setdefault(self.view_s, self.view_at)


async def client_main(url, role, name):
    """--client: join, say "joined"; on "ready" send ready (a player), on "done" print the view
    times as JSON and leave. Commands come on stdin, one a line."""
    peer = await Viewer(url).connect()
    await peer.join(role, name=name)
    loop = asyncio.get_running_loop()
    commands = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)
    print("joined", flush=True)
    while True:
        line = (await commands.readline()).strip()
        if line == b"ready":
            await peer.ws.send('{"t":"ready","c":1}')
        elif line in (b"done", b""):
            break
    print(json.dumps({"times": peer.times, "bytes": peer.view_bytes}), flush=True)
    await peer.close()


class Remote:
    """A client in a process of its own (this script with --client), driven through its pipes."""

    @classmethod
    async def start(cls, url, role, name=None):
        self = cls()
        args = [sys.executable, __file__, "--client", role, "--url", url]
        if name:
            args += ["--name", name]
        self.proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        line = await asyncio.wait_for(self.proc.stdout.readline(), 20)
        if line.strip() != b"joined":
            raise RuntimeError("client %s did not join: %r" % (role, line))
        return self

    async def ready(self):
        self.proc.stdin.write(b"ready\n")
        await self.proc.stdin.drain()

    async def finish(self):
        """The times of its complete views, {s: time.perf_counter()}, and its last view's
        bytes."""
        self.proc.stdin.write(b"done\n")
        await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), 20)
        await asyncio.wait_for(self.proc.wait(), 20)
        got = json.loads(line)
        return {int(s): t for s, t in got["times"].items()}, got["bytes"]


def first_at_or_after(times, s):
    """When the first complete view of sequence s or later arrived (None: none did)."""
    later = [t for k, t in times.items() if k >= s]
    return min(later) if later else None


async def measure(url, echo_url, samples, cooldown_ms, split):
    p1 = await connect(url, "play", "bench1")
    if split:
        p2 = await Remote.start(url, "play", "bench2")
        observers = [await Remote.start(url, "watch") for _ in range(OBSERVERS)]
    else:
        p2 = await connect(url, "play", "bench2")
        observers = [await connect(url, "watch") for _ in range(OBSERVERS)]
    await asyncio.sleep(0.3)  # the last join's heap line reaches the log
    await p1.ws.send('{"t":"ready","c":1}')
    if split:
        await p2.ready()
    else:
        await p2.ws.send('{"t":"ready","c":1}')
    await asyncio.wait_for(p1.active.wait(), 10)
    echo = await websockets.connect(echo_url, ping_interval=None)
    text = json.dumps({"t": "move", "c": 1, "d": "N", "pad": ""})
    text = text[:-2] + "x" * max(0, ECHO_BYTES - len(text)) + '"}'
    for _ in range(5):
        await echo.send(text)
        await echo.recv()
    await asyncio.sleep(0.1)
    c = 1
    direction = None
    for d in "NESW":  # find an open side, then walk back and forth through it
        c += 1
        await p1.ws.send('{"t":"move","c":%d,"d":"%s"}' % (c, d))
        if (await reply(p1, c))["t"] == "ack":
            direction = d
            break
        await asyncio.sleep(cooldown_ms / 1000 + 0.02)
    assert direction is not None, "no open side"
    back = "NESW"[("NESW".index(direction) + 2) % 4]
    pause = cooldown_ms / 1000 + 0.02
    to_ack = []
    to_player = []
    to_observers = []
    echo_times = []
    moves = []  # (sent, view sequence after the move): the split observers' times come last
    view_bytes = 0
    for k in range(samples):
        # The echo's round trip half-way through the pause: idle before it as long as a move.
        await asyncio.sleep(pause / 2)
        sent = time.perf_counter()
        await echo.send(text)
        await echo.recv()
        echo_times.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(pause / 2)
        c += 1
        d = back if k % 2 == 0 else direction
        before = p1.view_s
        sent = time.perf_counter()
        await p1.ws.send('{"t":"move","c":%d,"d":"%s"}' % (c, d))
        answer = await reply(p1, c)
        assert answer["t"] == "ack", answer
        await p1.until(lambda b=before: p1.view_s != b)
        to_ack.append((p1.reply_at[c] - sent) * 1000)
        to_player.append((p1.view_at - sent) * 1000)
        view_bytes = p1.view_bytes
        if split:
            moves.append((sent, p1.view_s))
            continue
        for o in observers:
            await o.until(lambda o=o, b=before: o.view_s != b)
        to_observers.append((max([o.view_at for o in observers] or [p1.view_at]) - sent) * 1000)
    await echo.close()
    obs_bytes = 0
    if split:
        await p2.finish()
        times = []
        for o in observers:
            got, obs_bytes = await o.finish()
            times.append(got)
        for sent, s in moves:
            got = [first_at_or_after(t, s) for t in times]
            assert None not in got, "an observer never had view %d" % s
            to_observers.append((max(got or [sent]) - sent) * 1000)
    else:
        obs_bytes = observers[0].view_bytes if observers else 0
        for peer in [p2, *observers]:
            await peer.close()
    await p1.close()
    return to_ack, to_player, to_observers, echo_times, view_bytes, obs_bytes, len(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--heap", default=os.environ.get("MAZE_HEAP", GATEWAY_HEAP))
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--quick", action="store_true", help="50 samples")
    parser.add_argument(
        "--clients",
        choices=("split", "shared"),
        default="shared",
        help="the other player and the observers each in a process of its own (split: fair only"
        " with a free core per client), or all read by this one process (shared)",
    )
    parser.add_argument(
        "--cpus",
        choices=("apart", "shared"),
        default="apart",
        help="apart: the two servers on the first CPU, the clients on the others, so that a"
        " client woken by a write never runs in the server's place (Linux); shared: all"
        " anywhere, as before",
    )
    parser.add_argument("--json", action="store_true", help="end with the figures as JSON")
    parser.add_argument("--client", choices=("play", "watch"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="also write the figures to this file (JSON)")
    args = parser.parse_args(argv)
    if args.client:  # one client of a split run
        asyncio.run(client_main(args.url, args.client, args.name))
        return 0
    if args.clients == "split" and not time.get_clock_info("perf_counter").monotonic:
        sys.exit("latency_bench: --clients split needs a monotonic perf_counter")
    if args.quick:
        args.samples = 50
    upy = find_micropython()
    if upy is None:
        sys.exit("latency_bench: no micropython binary (make venv, or set MICROPY_MICROPYTHON)")
    cooldown_ms = 100
    # The board's flash folder in RAM when the host has one: every accepted move is flushed
    # to the match log before its ack (docs/log.md), and this machine's disk fsync (0.1 to
    # over 1 ms, varying with its load) is not the board's flash; the time measured is the
    # firmware's.
    ram = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = Path(tempfile.mkdtemp(prefix="latency-bench-", dir=ram))
    settings = {"preset": args.preset, "cooldown_ms": cooldown_ms, "countdown_ms": 0}
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    apart = args.cpus == "apart" and len(cpus) >= 2
    if apart:  # the servers inherit the first CPU; the clients (this process) get the others
        os.sched_setaffinity(0, cpus[:1])
    try:
        game = start_host_board(upy, work, json.dumps(settings), heap=args.heap)
    except HostBoardError as err:
        sys.exit("latency_bench: %s" % err)
    echo_port = free_port()
    echo_log = work / "echo.log"
    echo = None
    try:
        (work / "echo.py").write_text(ECHO_SERVER)
        lib = echo_microdot(work / "echo-lib")
        with open(echo_log, "wb") as log:
            echo = subprocess.Popen(
                [upy, "-X", "heapsize=" + args.heap, str(work / "echo.py"), str(echo_port)],
                cwd=work,
                env=dict(os.environ, MICROPYPATH=".frozen:" + str(lib)),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_port(echo_port, process=echo)
        except NotListening as err:
            sys.exit("latency_bench: echo server: %s:\n%s" % (err, echo_log.read_text()))
        if apart:
            os.sched_setaffinity(0, cpus[1:])
        to_ack, to_player, to_obs, echo_times, view_bytes, obs_bytes, echo_size = asyncio.run(
            measure(
                game.ws_url,
                "ws://%s:%d/echo" % (LOOPBACK, echo_port),
                args.samples,
                cooldown_ms,
                args.clients == "split",
            )
        )
    finally:
        stop_host_board(game)
        if echo is not None:
            stop_process(echo)
    text = game.log()
    heap = re.findall(r"\(heap used (\d+), free (\d+)\)", text)
    idle = int(heap[0][0]) if heap else None  # logged when the game starts, nobody connected
    full = heap[-1] if len(heap) >= 1 + 2 + OBSERVERS else None
    per_client = (int(full[0]) - idle) / (2 + OBSERVERS) if full and idle else None
    figures = {
        "heap": args.heap,
        "preset": args.preset,
        "flash_in_ram": bool(ram),
        "samples": args.samples,
        "clients": args.clients,
        "cpus": "apart" if apart else "shared",
        "heap_used_idle": idle,
        "heap_used_2p_4obs": int(full[0]) if full else None,
        "heap_free_2p_4obs": int(full[1]) if full else None,
        "heap_per_client": round(per_client) if per_client else None,
        "intent_to_ack_ms": spread(to_ack),
        "intent_to_view_ms": spread(to_player),
        "intent_to_all_observers_ms": spread(to_obs),
        "echo_ms": spread(echo_times),
        "echo_bytes": echo_size,
        "player_view_bytes": view_bytes,
        "observer_view_bytes": obs_bytes,
    }
    print(
        "game host on the MicroPython unix port, heap %s, preset %s, %d samples; flash folder %s;"
        " clients %s, %s"
        % (
            args.heap,
            args.preset,
            args.samples,
            "in RAM (/dev/shm)" if ram else "on disk",
            "in one process" if args.clients == "shared" else "a process each",
            "servers on CPU %d, clients on the others" % cpus[0] if apart else "CPUs shared",
        )
    )
    if full:
        print(
            "  heap in use: %d bytes idle, %s with 2 players + %d observers (free %s),"
            " %.0f per client [unix port, 64-bit]"
            % (idle, full[0], OBSERVERS, full[1], per_client)
        )
    echo = figures["echo_ms"]
    for label, key in (
        ("intent -> ack", "intent_to_ack_ms"),
        ("intent -> view (mover, %d B)" % view_bytes, "intent_to_view_ms"),
        (
            "intent -> %d observers (%d B each)" % (OBSERVERS, obs_bytes),
            "intent_to_all_observers_ms",
        ),
        ("plain Microdot echo (%d B)" % echo_size, "echo_ms"),
    ):
        row = figures[key]
        print(
            "  %-34s p50 %7.3f ms (%4.2fx)  p90 %7.3f ms  p99 %7.3f ms (%4.2fx)"
            % (
                label,
                row["p50"],
                row["p50"] / echo["p50"],
                row["p90"],
                row["p99"],
                row["p99"] / echo["p99"],
            )
        )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    if args.json:
        print(json.dumps(figures))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
