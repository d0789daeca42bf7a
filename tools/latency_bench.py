#!/usr/bin/env python3
# Latency and heap figures of the game host, measured on this machine (CPython + PyPI
# `websockets`): the REAL firmware (tools/run_host.sh, MicroPython unix port, board-like heap)
# with 2 players + 4 observers, and a plain Microdot WebSocket echo under the same binary and
# heap as the baseline, in the same run.
#
#   python tools/latency_bench.py [--samples 200 | --quick] [--heap 96wK] [--preset classic]
#                                 [--json] [--out FILE]
#
# --json prints the figures as one JSON line at the end of stdout (tools/bench.py reads it);
# --out writes them to FILE; --quick takes 50 samples.
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


async def measure_game(url, samples, cooldown_ms):
    p1 = await connect(url, "play", "bench1")
    p2 = await connect(url, "play", "bench2")
    observers = [await connect(url, "watch") for _ in range(OBSERVERS)]
    await asyncio.sleep(0.3)  # the last join's heap line reaches the log
    for c, peer in ((1, p1), (1, p2)):
        await peer.ws.send('{"t":"ready","c":%d}' % c)
    await asyncio.wait_for(p1.active.wait(), 10)
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
    to_ack = []
    to_player = []
    to_observers = []
    view_bytes = 0
    for k in range(samples):
        await asyncio.sleep(cooldown_ms / 1000 + 0.02)
        c += 1
        d = back if k % 2 == 0 else direction
        before = p1.view_s
        sent = time.perf_counter()
        await p1.ws.send('{"t":"move","c":%d,"d":"%s"}' % (c, d))
        answer = await reply(p1, c)
        assert answer["t"] == "ack", answer
        await p1.until(lambda b=before: p1.view_s != b)
        for o in observers:
            await o.until(lambda o=o, b=before: o.view_s != b)
        to_ack.append((p1.reply_at[c] - sent) * 1000)
        to_player.append((p1.view_at - sent) * 1000)
        to_observers.append((max([o.view_at for o in observers] or [p1.view_at]) - sent) * 1000)
        view_bytes = p1.view_bytes
    obs_bytes = observers[0].view_bytes if observers else 0
    for peer in [p1, p2, *observers]:
        await peer.close()
    return to_ack, to_player, to_observers, view_bytes, obs_bytes


async def measure_echo(url, samples, size, pause_s):
    text = json.dumps({"t": "move", "c": 1, "d": "N", "pad": ""})
    text = text[:-2] + "x" * max(0, size - len(text)) + '"}'
    times = []
    async with websockets.connect(url, ping_interval=None) as ws:
        for _ in range(5):
            await ws.send(text)
            await ws.recv()
        for _ in range(samples):
            await asyncio.sleep(pause_s)  # the same pacing as the moves (idle wake-ups count)
            sent = time.perf_counter()
            await ws.send(text)
            await ws.recv()
            times.append((time.perf_counter() - sent) * 1000)
    return times, len(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--heap", default=os.environ.get("MAZE_HEAP", GATEWAY_HEAP))
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--quick", action="store_true", help="50 samples")
    parser.add_argument("--json", action="store_true", help="end with the figures as JSON")
    parser.add_argument("--out", help="also write the figures to this file (JSON)")
    args = parser.parse_args(argv)
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
        to_ack, to_player, to_obs, view_bytes, obs_bytes = asyncio.run(
            measure_game(game.ws_url, args.samples, cooldown_ms)
        )
        echo_times, echo_size = asyncio.run(
            measure_echo(
                "ws://%s:%d/echo" % (LOOPBACK, echo_port),
                args.samples,
                32,
                cooldown_ms / 1000 + 0.02,
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
        "heap_used_idle": idle,
        "heap_used_2p_4obs": int(full[0]) if full else None,
        "heap_free_2p_4obs": int(full[1]) if full else None,
        "heap_per_client": round(per_client) if per_client else None,
        "intent_to_ack_ms": {"p50": percentile(to_ack, 50), "p99": percentile(to_ack, 99)},
        "intent_to_view_ms": {"p50": percentile(to_player, 50), "p99": percentile(to_player, 99)},
        "intent_to_all_observers_ms": {
            "p50": percentile(to_obs, 50),
            "p99": percentile(to_obs, 99),
        },
        "echo_ms": {"p50": percentile(echo_times, 50), "p99": percentile(echo_times, 99)},
        "echo_bytes": echo_size,
        "player_view_bytes": view_bytes,
        "observer_view_bytes": obs_bytes,
    }
    print(
        "game host on the MicroPython unix port, heap %s, preset %s, %d samples; flash folder %s"
        % (args.heap, args.preset, args.samples, "in RAM (/dev/shm)" if ram else "on disk")
    )
    if full:
        print(
            "  heap in use: %d bytes idle, %s with 2 players + %d observers (free %s),"
            " %.0f per client [unix port, 64-bit]"
            % (idle, full[0], OBSERVERS, full[1], per_client)
        )
    row = "  %-34s p50 %7.3f ms   p99 %7.3f ms"
    print(row % ("intent -> ack", *figures["intent_to_ack_ms"].values()))
    print(
        row % ("intent -> view (mover, %d B)" % view_bytes, *figures["intent_to_view_ms"].values())
    )
    print(
        "  %-34s p50 %7.3f ms   p99 %7.3f ms"
        % (
            "intent -> 4 observers (%d B each)" % obs_bytes,
            *figures["intent_to_all_observers_ms"].values(),
        )
    )
    print(
        "  %-34s p50 %7.3f ms   p99 %7.3f ms"
        % ("plain Microdot echo (%d B)" % echo_size, *figures["echo_ms"].values())
    )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    if args.json:
        print(json.dumps(figures))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
