"""Stress: how much the board survives, and when its limits trigger, on the board image at the
board heaps, with a valid player playing throughout (docs/performance.md, "Robustness").

    python tools/stress.py                     # every board: 32-bit (MICROPY32) and 64-bit
    python tools/stress.py --only 64-romfs     # one board (labels: CONFIGS)
    python tools/stress.py --quick             # shorter phases, smaller floods

The board image (tools/build_image.py) boots on a virtual board (tools/board_run.py, the
harness make mem and make soak use too) for each board of CONFIGS: the 32-bit unix port
($MICROPY32, hostenv.locate_micropython32) at make mem's budgets (hostenv.BUDGET_FS,
BUDGET_ROMFS: a board's bytes), and the 64-bit port at 84wK / 64wK (hostenv.BUDGET_*_64) as a
second figure.
Two honest bots (tools/bot_runner.py) play matches throughout: p1, the valid player, from
127.0.0.2, and p2 from 127.0.0.3. Every hostile client runs in a child process of this
script (`--attack NAME`), so its own CPU does not slow the valid player's client, and connects
from loopback addresses of its own (127.0.x.y: every one is loopback on Linux); all traffic
goes to 127.0.0.1. Every scenario is bounded in count and time.

Reported, per board:
  (a) survival: idle TCP connects, simultaneous WebSocket upgrades, slowloris half-sent
      requests, unjoined sockets that ping (and the valid player dropping and coming back
      with its token meanwhile): how each connection ended (refused 503, closed to make room
      or at a deadline, upgraded and then closed with which code), the board's own counters,
      the most sessions / players / observers / open connections /status ever showed (never
      over the caps), whether the board is alive, and whether the valid player was answered
      during (pings, accepted moves) and after (every bot pings, a newcomer joins);
  (b) isolation: p1's intent -> own view p50/p99 while quiet, while a client floods (10x the
      frame limit, rejoining after each close) and while a client stalls (stops reading), in
      the same run, and the ratios to quiet;
  (c) the rates at which the limits trigger: per frame rate, when RATE_LIMITED starts, the
      rate still accepted, and the time to close 1008 (at 2x, 5x, 10x the limit); new
      connections per second per source before 503; DNS queries per source answered.

Written to build/stress.json, and printed as a table. Exit status 1 when a board died or a
correctness check failed (caps exceeded, the valid player not answered); speed is never judged.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets

import build_image
from board_run import BoardRun, budget_heap, prepare_image
from bot_runner import RATE_PER_S, BotRunner, percentile
from hostenv import (
    BUILD,
    LOOPBACK,
    find_micropython,
    locate_micropython32,
    word_bits,
)
from raw_ws import (
    close_code,
    close_reason,
    masked,
    open_async,
    send_upgrade,
    server_frames,
    upgrade,
)
from virtual_board import VirtualBoardError
from ws_game_client import WsGameClient

# (label, word size, layout, heap): the board heaps (tools/hostenv.py, docs/memory.md).
CONFIGS = (
    ("32-fs", 32, "filesystem", str(budget_heap(32, False))),
    ("32-romfs", 32, "romfs", str(budget_heap(32, True))),
    ("64-fs", 64, "filesystem", budget_heap(64, False)),
    ("64-romfs", 64, "romfs", budget_heap(64, True)),
)
# The board's caps with the default settings (docs/protocol.md, "Connection and limits"):
# 2 players + 4 observers + 2 spare game sockets, and 4 more connections for HTTP.
MAX_OBSERVERS = 4
MAX_SESSIONS = 2 + MAX_OBSERVERS + 2
MAX_OPEN = MAX_SESSIONS + 4
VALID = "p1"  # the valid player (BotRunner: p1 from 127.0.0.2, p2 from 127.0.0.3)
STATUS_SOURCE = "127.0.0.60"
NEWCOMER_SOURCE = "127.0.0.61"
REQUEST_S = 5.0  # the board's request deadline (net/server.py _REQUEST_MS)
DEADLINE_SLACK_S = 0.5  # a close this close to a deadline counts as the deadline's

# Scenario sizes: (full, --quick).
SIZES = {
    "idle": ({"count": 300, "hold_s": 12.0}, {"count": 60, "hold_s": 9.0}),
    "upgrades": ({"count": 100, "hold_s": 8.0}, {"count": 30, "hold_s": 7.0}),
    "slowloris": ({"count": 70, "hold_s": 12.0}, {"count": 20, "hold_s": 9.0}),
    "pingers": ({"count": 12, "seconds": 12.0}, {"count": 8, "seconds": 8.0}),
    "phase_s": (20.0, 8.0),
    "frame_rates": (
        ((15, 10.0), (20, 10.0), (25, 10.0), (40, 15.0), (100, 10.0), (200, 10.0)),
        ((40, 12.0), (200, 6.0)),
    ),
    "conn_rates": (((0, 80), (15, 4.0), (30, 4.0), (60, 4.0)), ((0, 60), (30, 3.0))),
    "dns_rates": (((0, 100), (15, 4.0), (30, 4.0), (60, 4.0)), ((0, 80), (30, 3.0))),
}
# One cheap request: the 404 handler answers the icon (the Host must be the board's, else 302).
HTTP_PROBE = b"GET /favicon.ico HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n"


# ==== pure helpers (tested by host_tests/test_stress.py) =========================================


def http_status(head):
    """The status code of an HTTP response's first line, or None."""
    parts = head.split(b"\r\n", 1)[0].split()
    if len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1].isdigit():
        return int(parts[1])
    return None


def fates(rows):
    """Counts of how held connections ended: rows of (outcome, seconds or None)."""
    out = {}
    for outcome, _t in rows:
        out[outcome] = out.get(outcome, 0) + 1
    return dict(sorted(out.items()))


def classify_close(seconds, deadline):
    """A silent close: at the board's deadline ("deadline") or before it ("made_room")."""
    return "deadline" if seconds >= deadline - DEADLINE_SLACK_S else "made_room"


def latency(samples):
    """p50/p99/max/n of a list of ms."""
    return {
        "n": len(samples),
        "p50": _r(percentile(samples, 50)),
        "p99": _r(percentile(samples, 99)),
        "max": _r(max(samples) if samples else None),
    }


def ratios(phases, quiet="quiet"):
    """Each phase's p50 and p99 over the quiet phase's (None where a figure is missing)."""
    base = phases.get(quiet) or {}
    out = {}
    for label, fig in phases.items():
        if label == quiet:
            continue
        out[label] = {
            key: (_r(fig[key] / base[key]) if fig.get(key) and base.get(key) else None)
            for key in ("p50", "p99")
        }
    return out


def rate_row(rate, events, sent, seconds):
    """The figures of one paced frame flood: events are (seconds since the first frame,
    kind) with kind "pong", "limited" or ("close", code)."""
    first = next((t for t, kind in events if kind == "limited"), None)
    closed = next(((t, k[1]) for t, k in events if isinstance(k, tuple)), None)
    pongs = [t for t, kind in events if kind == "pong"]
    end = closed[0] if closed else seconds
    after = [t for t in pongs if first is not None and t >= first]
    span = end - first if first is not None else 0
    return {
        "rate": rate,
        "x_limit": _r(rate / RATE_PER_S),
        "seconds": _r(seconds),
        "sent": sent,
        "accepted": len(pongs),
        "limited": sum(1 for _t, kind in events if kind == "limited"),
        "first_limited_s": _r(first),
        "accepted_per_s_after": _r(len(after) / span) if span >= 1 else None,
        "close": closed[1] if closed else None,
        "close_s": _r(closed[0]) if closed else None,
    }


def source_row(rate, outcomes, seconds):
    """New connections (or DNS queries) from one source: outcomes are (seconds, accepted)."""
    refused = [t for t, ok in outcomes if not ok]
    first = min(refused) if refused else None
    accepted = sum(1 for _t, ok in outcomes if ok)
    after = [ok for t, ok in outcomes if first is not None and t >= first]
    span = seconds - first if first is not None else 0
    return {
        "rate": rate or "burst",
        "tried": len(outcomes),
        "accepted": accepted,
        "refused": len(refused),
        "first_refused_at": (1 + sorted(outcomes).index((first, False))) if refused else None,
        "first_refused_s": _r(first),
        "accepted_per_s_after": _r(sum(after) / span) if rate and span >= 1 else None,
    }


def _r(value):
    return None if value is None else round(value, 2)


# ==== attacks (run in a child process: --attack NAME) ============================================


def _sources(block, count):
    """count loopback addresses 127.0.<block + k // 200>.<1 + k % 200>."""
    return ["127.0.%d.%d" % (block + k // 200, 1 + k % 200) for k in range(count)]


async def _read_until_close(reader, hold_s, begun):
    """Read a held connection until it closes or hold_s pass: (outcome, seconds)."""
    data = b""
    left = hold_s - (time.monotonic() - begun)
    try:
        while left > 0:
            chunk = await asyncio.wait_for(reader.read(4096), left)
            if not chunk:
                break
            data += chunk
            left = hold_s - (time.monotonic() - begun)
        else:
            return "held", None, data
    except asyncio.TimeoutError:
        return "held", None, data
    except OSError:
        pass
    return "closed", time.monotonic() - begun, data


async def _held(host, port, source, payload, hold_s):
    """One connection that sends payload (maybe nothing) and holds: how it ended."""
    begun = time.monotonic()
    try:
        reader, writer = await open_async(host, port, source, hold_s)
    except asyncio.TimeoutError:  # the listen backlog is full: the SYN waits to be resent
        return "not_connected", None
    except OSError:
        return "connect_failed", None
    connected = time.monotonic()
    try:
        if payload:
            writer.write(payload)
            await writer.drain()
        outcome, t, data = await _read_until_close(reader, hold_s, begun)
    except OSError:
        outcome, t, data = "closed", time.monotonic() - begun, b""
    finally:
        writer.close()
    if t is not None:
        t -= connected - begun  # seconds from the connection to its close
    if http_status(data) == 503:
        return "refused_503", t
    if data:
        return "answered", t
    if outcome == "held":
        return "held", None
    return classify_close(t, REQUEST_S), t


async def attack_idle(host, port, count, hold_s):
    """count connections at once from count addresses, sending nothing."""
    rows = await asyncio.gather(*(_held(host, port, s, b"", hold_s) for s in _sources(10, count)))
    return {"count": count, "fates": fates(rows), "close_s": _times(rows)}


async def attack_slowloris(host, port, count, hold_s):
    """count half-sent requests at once (no blank line ends them)."""
    half = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
    rows = await asyncio.gather(*(_held(host, port, s, half, hold_s) for s in _sources(20, count)))
    return {"count": count, "fates": fates(rows), "close_s": _times(rows)}


def _times(rows):
    times = sorted(t for _o, t in rows if t is not None)
    return {"p50": _r(percentile(times, 50)), "max": _r(times[-1] if times else None)}


async def _upgraded(host, port, source, hold_s, ping_every=None, counts=None):
    """An upgrade that never joins (pinging every ping_every s, if given): how it ended."""
    begun = time.monotonic()
    writer = None
    try:
        reader, writer = await open_async(host, port, source, hold_s)
    except asyncio.TimeoutError:
        return "not_connected", None
    except OSError:
        return "connect_failed", None
    try:
        try:
            head = await send_upgrade(reader, writer, host, port, hold_s)
        except asyncio.TimeoutError:
            return "unanswered_held", None
        except (asyncio.IncompleteReadError, OSError) as err:
            partial = getattr(err, "partial", b"")
            if http_status(partial) == 503:
                return "refused_503", None
            return "closed_unanswered", time.monotonic() - begun
        status = http_status(head)
        if status != 101:
            return ("refused_503" if status == 503 else "http_%s" % status), None
        buf = b""
        pinger = None
        if ping_every:

            async def ping():
                n = 0
                while True:
                    n += 1
                    writer.write(masked(1, b'{"t":"ping","c":%d}' % n))
                    counts["pings"] += 1
                    await asyncio.sleep(ping_every)

            pinger = asyncio.create_task(ping())
        try:
            while True:
                left = hold_s - (time.monotonic() - begun)
                if left <= 0:
                    return "upgraded_held", None
                try:
                    chunk = await asyncio.wait_for(reader.read(4096), left)
                except asyncio.TimeoutError:
                    return "upgraded_held", None
                frames, buf = server_frames(buf + chunk, strict=False)
                if counts is not None:
                    for opcode, payload in frames:
                        if opcode == 1 and b"NOT_JOINED" in payload:
                            counts["not_joined"] += 1
                        elif opcode == 1 and b'"pong"' in payload:
                            counts["pongs"] += 1
                code = close_code(frames)
                if code is not None:
                    return "upgraded_closed_%d" % code, time.monotonic() - begun
                if not chunk:
                    return "upgraded_dropped", time.monotonic() - begun
        finally:
            if pinger is not None:
                pinger.cancel()
    except (OSError, EOFError):
        return "upgraded_dropped", time.monotonic() - begun
    except asyncio.LimitOverrunError:
        return "bad_reply", None
    finally:
        if writer is not None:
            writer.close()


async def attack_upgrades(host, port, count, hold_s):
    """count WebSocket upgrades at once, none of which joins."""
    rows = await asyncio.gather(*(_upgraded(host, port, s, hold_s) for s in _sources(30, count)))
    return {"count": count, "fates": fates(rows), "close_s": _times(rows)}


async def attack_pingers(host, port, count, seconds):
    """count sockets (an address each) that upgrade and ping every 0.5 s without joining,
    upgrading again whenever closed, for `seconds`."""
    counts = {"pings": 0, "not_joined": 0, "pongs": 0}
    rows = []
    end = time.monotonic() + seconds

    async def one(source):
        while time.monotonic() < end - 0.5:
            row = await _upgraded(
                host, port, source, end - time.monotonic(), ping_every=0.5, counts=counts
            )
            rows.append(row)
            await asyncio.sleep(0.2)

    await asyncio.gather(*(one(s) for s in _sources(50, count)))
    return {"count": count, "seconds": seconds, "fates": fates(rows), **counts}


class _Watcher(WsGameClient):
    """An observer that counts what it is told (a flooding or rate-measuring client)."""

    def __init__(self, url, source):
        super().__init__(url, "attacker", heartbeat_s=None, open_timeout=10)
        self.source = source
        self.told = []  # (monotonic, kind): the answers counted
        self.closed_at = None

    async def _reader(self):
        await super()._reader()
        self.closed_at = time.monotonic()

    def on_message(self, msg):
        if msg.get("t") == "err" and msg.get("code") == "RATE_LIMITED":
            self.told.append((time.monotonic(), "limited"))
        elif msg.get("t") == "pong":
            self.told.append((time.monotonic(), "pong"))


async def _joined_watcher(url, source):
    client = _Watcher(url, source)
    await client.connect()
    await client.join("watch")
    return client


async def _paced_pings(client, rate, seconds):
    """Pings at `rate` a second for `seconds` or until closed: (frames sent, first send)."""
    begun = time.monotonic()
    sent = 0
    while not client.closed:
        now = time.monotonic()
        if now - begun >= seconds:
            break
        due = int((now - begun) * rate) + 1
        try:
            while sent < due:
                sent += 1
                await client.send('{"t":"ping","c":%d}' % sent)
        except websockets.ConnectionClosed:
            break
        await asyncio.sleep(min(0.005, 1 / rate))
    return sent, begun


async def attack_rates(host, port, rates, source_block=60):
    """One joined observer per (rate, seconds), all at once, each from its own address:
    pings at that rate; when RATE_LIMITED starts, what is accepted, and when 1008 comes."""
    url = "ws://%s:%d/ws" % (host, port)

    async def one(k, rate, seconds):
        client = await _joined_watcher(url, "127.0.%d.%d" % (source_block, 1 + k))
        client.told.clear()
        sent, begun = await _paced_pings(client, rate, seconds)
        await asyncio.sleep(1.0)  # the answers still on their way, the close frame
        events = [(t - begun, kind) for t, kind in client.told]
        if client.closed and client.closed_at is not None:
            events.append((client.closed_at - begun, ("close", client.close_code)))
        await client.close()
        return rate_row(rate, sorted(events, key=lambda e: e[0]), sent, seconds)

    rows = await asyncio.gather(*(one(k, r, s) for k, (r, s) in enumerate(rates)))
    return {"rows": list(rows)}


async def attack_flood(host, port, rate, seconds):
    """A joined observer flooding pings at `rate` a second for `seconds`, joining again
    (from the next address) after every close."""
    url = "ws://%s:%d/ws" % (host, port)
    end = time.monotonic() + seconds
    closes = {}
    sent = limited = joins = refused_joins = 0
    k = 0
    while time.monotonic() < end - 0.2:
        k += 1
        try:
            client = await _joined_watcher(url, "127.0.70.%d" % (1 + k % 200))
        except Exception:  # noqa: BLE001 - refused (503, room full) for now: try again
            refused_joins += 1
            await asyncio.sleep(0.2)
            continue
        joins += 1
        n, _ = await _paced_pings(client, rate, end - time.monotonic())
        sent += n
        await asyncio.sleep(0.2)
        limited += sum(1 for _t, kind in client.told if kind == "limited")
        if client.closed:
            closes[str(client.close_code)] = closes.get(str(client.close_code), 0) + 1
        await client.close()
    return {
        "rate": rate,
        "seconds": seconds,
        "sent": sent,
        "limited": limited,
        "joins": joins,
        "refused_joins": refused_joins,
        "closes": closes,
    }


async def attack_stall(host, port, seconds):
    """A joined observer with a 4 KB receive buffer that stops reading for `seconds`, then
    reads what is there: the close code, if the board closed it."""
    rcvbuf = (socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock, head = upgrade(port, "127.0.80.1", timeout=10, options=(rcvbuf,), host=host)
    if b"\r\n\r\n" not in head:
        sock.close()
        return {"joined": False}
    sock.sendall(masked(1, b'{"t":"join","role":"watch"}'))
    await asyncio.sleep(seconds)  # not reading
    sock.settimeout(0.5)
    data = b""
    code = None
    frames = []
    try:
        while code is None and len(data) < 4 << 20:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            frames = server_frames(data, strict=False)[0]
            code = close_code(frames)
    except (TimeoutError, OSError):
        pass
    sock.close()
    reason = close_reason(frames)
    return {"joined": http_status(head) == 101, "seconds": seconds, "read": len(data),
            "close": code, "reason": reason}  # fmt: skip


async def _conn_one(host, port, source):
    try:
        reader, writer = await open_async(host, port, source, 5)
    except (OSError, asyncio.TimeoutError):
        return False
    try:
        writer.write(HTTP_PROBE % port)
        await writer.drain()
        head = await asyncio.wait_for(reader.read(64), 5)
    except (OSError, asyncio.TimeoutError):
        return False
    finally:
        writer.close()
    return http_status(head) not in (None, 503)


async def attack_conn_rates(host, port, rates, source_block=90):
    """New connections (each one request) from one address per row: a burst of n back to
    back (rate 0), or `rate` a second for `seconds`."""
    rows = []
    for k, (rate, amount) in enumerate(rates):
        source = "127.0.%d.%d" % (source_block, 1 + k)
        begun = time.monotonic()
        outcomes = []
        if rate == 0:
            for _ in range(amount):
                ok = await _conn_one(host, port, source)
                outcomes.append((time.monotonic() - begun, ok))
            seconds = time.monotonic() - begun
        else:
            seconds = amount

            async def at(i, rate=rate, source=source, begun=begun):
                await asyncio.sleep(max(0.0, begun + i / rate - time.monotonic()))
                t = time.monotonic() - begun
                return t, await _conn_one(host, port, source)

            outcomes = await asyncio.gather(*(at(i) for i in range(int(rate * amount))))
        rows.append(source_row(rate, list(outcomes), seconds))
        await asyncio.sleep(2.5)  # the next row's address is fresh; let the board settle
    return {"rows": rows}


def _dns_query(qid):
    header = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    return header + b"\x07example\x03com\x00" + b"\x00\x01\x00\x01"


async def attack_dns(host, dns_port, rates, source_block=95):
    """DNS queries from one address per row: a burst of n (rate 0), or `rate` a second for
    `seconds`; which were answered."""
    rows = []
    for k, (rate, amount) in enumerate(rates):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.%d.%d" % (source_block, 1 + k), 0))
        sock.setblocking(False)
        n = amount if rate == 0 else int(rate * amount)
        sent_at = {}
        answered = set()
        begun = time.monotonic()
        for qid in range(n):
            if rate:
                await asyncio.sleep(max(0.0, begun + qid / rate - time.monotonic()))
            sent_at[qid] = time.monotonic() - begun
            sock.sendto(_dns_query(qid), (host, dns_port))
            answered |= _dns_replies(sock)
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            answered |= _dns_replies(sock)
            await asyncio.sleep(0.05)
        sock.close()
        seconds = amount if rate else time.monotonic() - begun - 1.5
        rows.append(source_row(rate, [(sent_at[q], q in answered) for q in range(n)], seconds))
    return {"rows": rows}


def _dns_replies(sock):
    got = set()
    while True:
        try:
            reply = sock.recv(512)
        except BlockingIOError:
            return got
        if len(reply) >= 2:
            got.add(reply[0] << 8 | reply[1])


ATTACKS = {
    "idle": attack_idle,
    "upgrades": attack_upgrades,
    "slowloris": attack_slowloris,
    "pingers": attack_pingers,
    "flood": attack_flood,
    "stall": attack_stall,
    "rates": attack_rates,
    "conn_rates": attack_conn_rates,
}


def attack_main(name, target, params):
    host, port, dns_port = target.split(":")
    if name == "dns":
        result = asyncio.run(attack_dns(host, int(dns_port), **params))
    else:
        result = asyncio.run(ATTACKS[name](host, int(port), **params))
    print(json.dumps(result))
    return 0


async def run_attack(name, target, params, limit_s):
    """Run one attack in a child process; its result (a dict), or {"error": ...}."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--attack",
        name,
        "--target",
        target,
        "--params",
        json.dumps(params),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(child.communicate(), limit_s)
    except asyncio.TimeoutError:
        child.kill()
        await child.wait()
        return {"error": "no result within %.0f s" % limit_s}
    lines = out.decode().strip().splitlines()
    if child.returncode != 0 or not lines:
        return {"error": (err.decode().strip().splitlines() or ["exit %s" % child.returncode])[-1]}
    return json.loads(lines[-1])


# ==== the board and the valid player =============================================================


class Runner(BotRunner):
    """The two honest players; every latency sample is labelled with the phase under way."""

    label = "warmup"

    def saw_latency(self, bot, ms):
        super().saw_latency(bot, ms)
        bot.latencies[-1] = (ms, self.label)

    def samples(self, name, label):
        bot = next(b for b in self.bots if b.name == name)
        return [ms for ms, lab in bot.latencies if lab == label]

    def bot(self, name):
        return next(b for b in self.bots if b.name == name)


class StatusSampler:
    """/status from an address of its own, every 0.25 s: the most sessions, players,
    observers and open connections ever seen, the least free heap."""

    def __init__(self, port):
        self.port = port
        self.task = None
        self.stopping = False
        self.reset()

    def reset(self):
        self.seen = {"sessions": 0, "players": 0, "observers": 0, "http_open": 0}
        self.min_free = None
        self.samples = 0
        self.missed = 0
        self.last = None

    async def once(self, timeout=5.0):
        try:
            reader, writer = await open_async(LOOPBACK, self.port, STATUS_SOURCE, timeout)
        except (OSError, asyncio.TimeoutError):
            return None
        try:
            writer.write(b"GET /status HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n" % self.port)
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), timeout)
        except (OSError, asyncio.TimeoutError):
            return None
        finally:
            writer.close()
        if http_status(data) != 200:
            return None
        return json.loads(data.split(b"\r\n\r\n", 1)[1])

    async def _loop(self):
        while not self.stopping:
            status = await self.once()
            if status is None:
                self.missed += 1
            else:
                self.samples += 1
                self.last = status
                for key in self.seen:
                    self.seen[key] = max(self.seen[key], status.get(key, 0))
                if "mem_free" in status:
                    free = status["mem_free"]
                    self.min_free = free if self.min_free is None else min(self.min_free, free)
            await asyncio.sleep(0.25)

    def start(self):
        self.reset()
        self.stopping = False
        self.task = asyncio.create_task(self._loop())

    async def stop(self):
        # The flag as well as the cancellation: Python 3.11's wait_for() drops a cancellation
        # that arrives as its inner call completes (here a /status answer), and the loop would
        # then sample for ever (a CI run hung there, the task "cancelling" in its sleep).
        self.stopping = True
        self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            pass
        return {
            "max": dict(self.seen),
            "min_mem_free": self.min_free,
            "samples": self.samples,
            "missed": self.missed,
        }


class Board:
    """The board image on a virtual board at a heap, and the two honest players on it."""

    def __init__(self, work, binary, layout, heap):
        self.work = Path(work)
        self.binary = binary
        self.layout = layout
        self.heap = heap
        self.run = None  # board_run.BoardRun
        self.runner = None
        self.boots = 0

    def boot(self):
        """The image (built once into work/) on a fresh flash folder, booted and listening."""
        image, romfs = prepare_image(self.work, self.layout)
        flash = self.work / ("flash%d" % self.boots)
        self.run = BoardRun(image, flash, self.heap, self.binary, romfs=romfs).boot()
        self.boots += 1
        self.http_port = self.run.http_port
        self.url = self.run.url
        self.target = self.run.target

    def alive(self):
        return self.run is not None and self.run.alive()

    def log(self):
        return self.run.read_log() if self.run is not None else ""

    async def start_players(self):
        self.runner = Runner(self.url, players=2, observers=0, rng_seed=7)
        await self.runner.join()
        self.runner._playing = True  # play on, rematch after rematch, until close()
        valid = self.runner.bot(VALID)
        deadline = time.monotonic() + 30
        while valid.acks < 5:  # the match runs
            if time.monotonic() > deadline:
                raise VirtualBoardError("the players did not start moving")
            await asyncio.sleep(0.1)

    async def stop(self):
        if self.runner is not None:
            await self.runner.close()
            self.runner = None
        if self.run is not None:
            self.run.stop()
            self.run = None


async def newcomer_joins(url, tries=20):
    """A new observer from an address of its own gets in (retrying as the phone does) and
    leaves again: the seconds it took, or None."""
    begun = time.monotonic()
    for _ in range(tries):
        client = WsGameClient(url, "newcomer", heartbeat_s=None)
        client.source = NEWCOMER_SOURCE
        try:
            await client.connect()
            await client.join("watch")
            await client.ping()
            await client.close()
            return _r(time.monotonic() - begun)
        except Exception:  # noqa: BLE001 - 503, room full, dropped: again a moment later
            await client.close()
            await asyncio.sleep(0.5)
    return None


async def probe_pings(runner, stop, rows):
    """While `stop` is not set: the valid player pings every 0.5 s ("ok", "failed" or
    "reconnecting" while it is between connections)."""
    bot = runner.bot(VALID)
    while not stop.is_set():
        if not bot.settled or bot.client is None or bot.client.closed:
            rows.append("reconnecting")
        else:
            try:
                await asyncio.wait_for(bot.client.ping(), 5)
                rows.append("ok")
            except Exception:  # noqa: BLE001 - no pong: that is the finding
                rows.append("failed")
        await asyncio.sleep(0.5)


async def scenario(board, name, attack, params, limit_s, extra=None):
    """One bounded scenario with the valid player playing: the attack's result, the caps
    /status saw, whether the valid player was answered during and after, and the board's
    counters."""
    runner = board.runner
    valid = runner.bot(VALID)
    runner.label = name
    sampler = StatusSampler(board.http_port)
    before = await sampler.once() or {}
    acks_before = valid.acks
    timeouts_before = valid.reply_timeouts
    pings = []
    stop = asyncio.Event()
    sampler.start()
    prober = asyncio.create_task(probe_pings(runner, stop, pings))
    extra_task = asyncio.create_task(extra(board)) if extra else None
    result = await run_attack(attack, board.target, params, limit_s)
    extra_result = await extra_task if extra_task else None
    stop.set()
    await prober
    caps = await sampler.stop()
    row = {
        "scenario": name,
        "params": params,
        "result": result,
        "caps": caps,
        "alive": board.alive(),
        "valid_during": {
            "moves": valid.acks - acks_before,
            "pings": {k: pings.count(k) for k in ("ok", "failed", "reconnecting")},
            "reply_timeouts": valid.reply_timeouts - timeouts_before,
        },
    }
    if extra_result is not None:
        row["extra"] = extra_result
    if row["alive"]:
        await asyncio.sleep(1.0)
        after_ok = True
        try:
            await asyncio.wait_for(runner.check_served(timeout=10), 40)
        except Exception as err:  # noqa: BLE001 - reported: that is the finding
            after_ok = "%s: %s" % (type(err).__name__, err)
        row["valid_after"] = after_ok
        row["newcomer_after_s"] = await newcomer_joins(board.url)
        after = await sampler.once() or {}
        row["board_counters"] = {
            k: after.get(k, 0) - before.get(k, 0)
            for k in ("http_refused", "http_evicted", "dns_answered", "dns_ignored")
        }
        row["after_status"] = {
            k: after.get(k) for k in ("sessions", "players", "observers", "http_open", "mem_free")
        }
    else:
        row["log_tail"] = board.log().splitlines()[-25:]
    row["failures"] = scenario_failures(row)
    return row


def scenario_failures(row):
    """What did not hold in one scenario (correctness only, never speed)."""
    fail = []
    if not row["alive"]:
        fail.append("the board process ended")
        return fail
    if "error" in row["result"]:
        fail.append("attack: %s" % row["result"]["error"])
    seen = row["caps"]["max"]
    for key, cap in (
        ("sessions", MAX_SESSIONS),
        ("players", 2),
        ("observers", MAX_OBSERVERS),
        ("http_open", MAX_OPEN),
    ):
        if seen[key] > cap:
            fail.append("%s reached %d (cap %d)" % (key, seen[key], cap))
    during = row["valid_during"]
    if during["pings"]["ok"] == 0:
        fail.append("the valid player was never answered during the scenario")
    if during["pings"]["failed"]:
        fail.append("the valid player's pings unanswered %d times" % during["pings"]["failed"])
    if row.get("valid_after") is not True:
        fail.append("after: %s" % row.get("valid_after"))
    if row.get("newcomer_after_s") is None:
        fail.append("a newcomer could not join after the scenario")
    return fail


async def drop_and_return(board):
    """Meanwhile: the valid player's connection is reset after 2 s; it comes back with its
    token (the seat's reserved place): the seconds until its next welcome, or None."""
    await asyncio.sleep(2.0)
    bot = board.runner.bot(VALID)
    joins = bot.joins
    begun = time.monotonic()
    if bot.client is not None and bot.client.ws is not None:
        bot.client.ws.transport.abort()
    while time.monotonic() - begun < 15:
        if bot.joins > joins and bot.settled:
            return {"back_after_s": _r(time.monotonic() - begun), "seat": bot.seat}
        await asyncio.sleep(0.05)
    return {"back_after_s": None}


async def isolation(board, phase_s):
    """p1's intent -> own view: quiet, under a flood (10x the frame limit), under a stall,
    in this order, in the same run."""
    runner = board.runner
    phases = {}
    attacks = {}
    for label, attack, params in (
        ("quiet", None, None),
        ("flood", "flood", {"rate": 10 * RATE_PER_S, "seconds": phase_s}),
        ("stall", "stall", {"seconds": phase_s}),
    ):
        runner.label = label
        if attack is None:
            await asyncio.sleep(phase_s)
        else:
            attacks[label] = await run_attack(attack, board.target, params, phase_s + 60)
        runner.label = "between"
        phases[label] = latency(runner.samples(VALID, label))
    return {"phase_s": phase_s, "latency_ms": phases, "ratios": ratios(phases), "attacks": attacks}


async def run_board(label, binary, bits, layout, heap, quick, work, say):
    """Every scenario on one board; its report."""
    pick = 1 if quick else 0
    report = {"board": label, "word_bits": bits, "layout": layout, "heap": heap, "scenarios": []}
    board = Board(work, binary, layout, heap)
    deaths = []
    try:
        board.boot()
        await board.start_players()
        survival = (
            ("idle", "idle", None),
            ("upgrades", "upgrades", None),
            ("slowloris", "slowloris", None),
            ("pingers", "pingers", drop_and_return),
        )
        for name, attack, extra in survival:
            params = SIZES[name][pick]
            say("  %s: %s %s" % (label, name, params))
            row = await scenario(board, name, attack, params, 120, extra)
            report["scenarios"].append(row)
            if not row["alive"]:
                deaths.append(name)
                # The dead board's log is kept: the board booted next writes a new one.
                died = BUILD / ("stress-%s-died-in-%s.log" % (label, name))
                BUILD.mkdir(parents=True, exist_ok=True)
                died.write_text(board.log())
                say(
                    "  %s: THE BOARD DIED in %s (its log: %s); rebooting for the rest"
                    % (label, name, died)
                )
                await board.stop()
                board = Board(work, binary, layout, heap)
                board.boot()
                await board.start_players()
        say("  %s: isolation" % label)
        report["isolation"] = await isolation(board, SIZES["phase_s"][pick])
        say("  %s: rates" % label)
        board.runner.label = "rates"
        rates = SIZES["frame_rates"][pick]
        low = [r for r in rates if r[0] <= RATE_PER_S + 5]
        high = [r for r in rates if r[0] > RATE_PER_S + 5]
        rows = []
        for group in (low, high):
            if group:
                got = await run_attack("rates", board.target, {"rates": group}, 90)
                rows += got.get("rows", [got])
        report["frame_rates"] = rows
        report["conn_rates"] = await run_attack(
            "conn_rates", board.target, {"rates": SIZES["conn_rates"][pick]}, 120
        )
        report["dns_rates"] = await run_attack(
            "dns", board.target, {"rates": SIZES["dns_rates"][pick]}, 120
        )
        report["alive_at_end"] = board.alive()
        log = board.log()
        report["board_log"] = str(BUILD / ("stress-%s-board.log" % label))
        BUILD.mkdir(parents=True, exist_ok=True)
        Path(report["board_log"]).write_text(log)
        report["memory_error_in_log"] = log.count("MemoryError")
        report["dropped_in_log"] = log.count("http: connection dropped")
        report["traceback_in_log"] = log.count("Traceback")
    finally:
        await board.stop()
    report["deaths"] = deaths
    fail = [
        "%s: %s" % (row["scenario"], f) for row in report["scenarios"] for f in row["failures"]
    ]
    if not report.get("alive_at_end"):
        fail.append("the board was not alive at the end")
    for key in ("frame_rates",):
        for row in report.get(key, []):
            if "error" in row:
                fail.append("%s: %s" % (key, row["error"]))
    for key in ("conn_rates", "dns_rates"):
        if "error" in report.get(key, {}):
            fail.append("%s: %s" % (key, report[key]["error"]))
    report["failures"] = fail
    return report


async def one_scenario(binary, layout, heap, name, params, work):
    """One survival scenario (SIZES' names) on a fresh board: its row (the short test's)."""
    board = Board(work, binary, layout, heap)
    try:
        board.boot()
        await board.start_players()
        extra = drop_and_return if name == "pingers" else None
        return await scenario(board, name, name, params, 120, extra)
    finally:
        await board.stop()


def boards(only=None):
    """The (label, binary, bits, layout, heap) to run, and notes on what is missing."""
    notes = []
    upy32, why = locate_micropython32()
    upy64 = find_micropython()
    out = []
    for label, bits, layout, heap in CONFIGS:
        if only and label not in only:
            continue
        binary = upy32 if bits == 32 else upy64
        if binary is None:
            notes.append("%s skipped: %s" % (label, why if bits == 32 else "no micropython"))
            continue
        if word_bits(binary) != bits:
            notes.append("%s skipped: %s is not %d-bit" % (label, binary, bits))
            continue
        out.append((label, binary, bits, layout, heap))
    return out, notes


def stress(only=None, quick=False, say=print):
    """Every scenario on every board; the report (a dict)."""
    todo, notes = boards(only)
    for note in notes:
        say("stress: WARNING: %s" % note)
    report = {"quick": quick, "notes": notes, "boards": [], "started": time.time()}
    begun = time.monotonic()
    for label, binary, bits, layout, heap in todo:
        say("stress: %s: %s layout, heap %s, %d-bit unix port (%s)" % (label, layout, heap,
                                                                      bits, binary))  # fmt: skip
        work = Path(tempfile.mkdtemp(prefix="stress-"))
        try:
            report["boards"].append(
                asyncio.run(run_board(label, binary, bits, layout, heap, quick, work, say))
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
    report["minutes"] = _r((time.monotonic() - begun) / 60)
    report["failures"] = [
        "%s: %s" % (b["board"], f) for b in report["boards"] for f in b["failures"]
    ]
    return report


# ==== the printed table ==========================================================================


def _fates_text(result):
    if "error" in result:
        return "ERROR " + result["error"]
    return ", ".join("%s %d" % kv for kv in result.get("fates", {}).items())


def table(report):
    """The report as text lines (markdown tables)."""
    lines = []
    for b in report["boards"]:
        lines.append("")
        lines.append("## %s: %s layout, heap %s, %d-bit" % (b["board"], b["layout"], b["heap"],
                                                            b["word_bits"]))  # fmt: skip
        lines.append("")
        lines.append(
            "| scenario | how the connections ended | alive | valid player during "
            "(pings ok/failed, moves) | after | max sessions/players/obs/open "
            "| board refused/evicted |"
        )
        lines.append("| --- | --- | --- | --- | --- | --- | --- |")
        for row in b["scenarios"]:
            during = row["valid_during"]
            seen = row["caps"]["max"]
            counters = row.get("board_counters", {})
            fates_text = _fates_text(row["result"])
            if row["scenario"] == "pingers" and "error" not in row["result"]:
                res = row["result"]
                fates_text += "; pings %d, NOT_JOINED %d, pongs %d" % (
                    res["pings"], res["not_joined"], res["pongs"])  # fmt: skip
                back = (row.get("extra") or {}).get("back_after_s")
                fates_text += "; valid player reset, back in %s s" % back
            lines.append(
                "| %s x%s | %s | %s | %d/%d, %d | %s | %d/%d/%d/%d | %s/%s |"
                % (
                    row["scenario"],
                    row["params"].get("count", ""),
                    fates_text,
                    "yes" if row["alive"] else "**DIED**",
                    during["pings"]["ok"],
                    during["pings"]["failed"],
                    during["moves"],
                    "ok" if row.get("valid_after") is True else row.get("valid_after", "-"),
                    seen["sessions"],
                    seen["players"],
                    seen["observers"],
                    seen["http_open"],
                    counters.get("http_refused", "-"),
                    counters.get("http_evicted", "-"),
                )
            )
        iso = b.get("isolation")
        if iso:
            lines.append("")
            lines.append(
                "| p1 intent -> own view | n | p50 ms | p99 ms | p50 / quiet | p99 / quiet |"
            )
            lines.append("| --- | --- | --- | --- | --- | --- |")
            for label, fig in iso["latency_ms"].items():
                ratio = iso["ratios"].get(label, {"p50": 1.0, "p99": 1.0})
                lines.append(
                    "| %s | %d | %s | %s | %s | %s |"
                    % (label, fig["n"], fig["p50"], fig["p99"], ratio["p50"], ratio["p99"])
                )
            flood = iso["attacks"].get("flood", {})
            stall = iso["attacks"].get("stall", {})
            lines.append("")
            lines.append(
                "flood: %s frames sent, %s RATE_LIMITED, %s joins, closes %s; stall: close %s"
                % (
                    flood.get("sent"),
                    flood.get("limited"),
                    flood.get("joins"),
                    flood.get("closes"),
                    stall.get("close"),
                )  # fmt: skip
            )
        if b.get("frame_rates"):
            lines.append("")
            lines.append("| frames/s | x limit | accepted | RATE_LIMITED | first refused at | "
                         "accepted/s after | close | close at |")  # fmt: skip
            lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
            for r in b["frame_rates"]:
                if "error" in r:
                    lines.append("| ERROR %s |" % r["error"])
                    continue
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    r["rate"], r["x_limit"], r["accepted"], r["limited"],
                    _s(r["first_limited_s"]), r["accepted_per_s_after"], r["close"] or "-",
                    _s(r["close_s"])))  # fmt: skip
        for key, what in (("conn_rates", "new connections"), ("dns_rates", "DNS queries")):
            rows = b.get(key, {}).get("rows")
            if not rows:
                if b.get(key):
                    lines.append("%s: ERROR %s" % (what, b[key].get("error")))
                continue
            lines.append("")
            lines.append("| %s per source | tried | accepted | refused | first refused (#, at) "
                         "| accepted/s after |" % what)  # fmt: skip
            lines.append("| --- | --- | --- | --- | --- | --- |")
            for r in rows:
                lines.append("| %s | %d | %d | %d | %s | %s |" % (
                    "%s/s" % r["rate"] if r["rate"] != "burst" else "back to back",
                    r["tried"], r["accepted"], r["refused"],
                    "#%s, %s" % (r["first_refused_at"], _s(r["first_refused_s"]))
                    if r["first_refused_at"] else "-",
                    r["accepted_per_s_after"] or "-"))  # fmt: skip
        lines.append("")
        lines.append(
            "log: %d MemoryError, %d connections dropped by the last line of defence, "
            "%d tracebacks; alive at the end: %s"
            % (
                b.get("memory_error_in_log", 0),
                b.get("dropped_in_log", 0),
                b.get("traceback_in_log", 0),
                b.get("alive_at_end"),
            )  # fmt: skip
        )
    for note in report["notes"]:
        lines.append("note: %s" % note)
    for failure in report["failures"]:
        lines.append("FAILED: %s" % failure)
    return lines


def _s(value):
    return "-" if value is None else "%s s" % value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="boards: %s" % " ".join(c[0] for c in CONFIGS))
    parser.add_argument("--quick", action="store_true", help="shorter phases, smaller floods")
    parser.add_argument("--json", default=str(BUILD / "stress.json"), help="the report's file")
    parser.add_argument("--attack", help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--params", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.attack:
        return attack_main(args.attack, args.target, json.loads(args.params))
    random.seed(1)
    try:
        report = stress(args.only, args.quick)
    except (VirtualBoardError, build_image.BuildError) as err:
        print("stress: error: %s" % err, file=sys.stderr)
        return 2
    for line in table(report):
        print(line)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print("report: %s" % args.json)
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
