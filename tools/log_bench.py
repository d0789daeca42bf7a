"""Figures of the match log (docs/log.md, docs/performance.md), part of `make bench`:

- flash: bytes per command and per match, and the writes per move (file writes and flushes,
  counted on the board's own code path: net.journal under the MicroPython unix port);
- time: the extra time per accepted move on the unix port (Journal.push + changed, with a
  real file and its flush, which is an fsync there), fastest of several runs;
- resume: a host board (tools/run_host.sh) started on a flash folder holding an unfinished
  match of ~2,000 moves: process start to the first view of a player who rejoins, and what
  part of it the rebuild (replay) takes.

    python tools/log_bench.py [--json]
"""

import argparse
import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _path  # noqa: F401  (firmware/ on sys.path)
from host_board import start_host_board, stop_host_board
from hostenv import GATEWAY_HEAP, ROOT, find_micropython
from logbook import CLOCK, DROP, ENTRY, HEADER, MOVE, driven_log, read
from ws_game_client import WsGameClient

TOKEN = "0123456789abcdef0123456789abcdef"

# Runs under the unix port with firmware/ on MICROPYPATH: one match logged to a folder, the
# per-move path timed with the log (folder) and without (no folder), and the file calls of
# the per-move path counted through thin wrappers.
_UPY = """
import time
from net import intents
from net.match_host import MatchHost
from net.views import ViewPublisher
from net.resume import resume
from net.settings import Settings

# a session that takes every frame, framed as the gateway frames it
from net.selftest import Phone

class Null:
    def write(self, b):
        return len(b)
    def flush(self):
        pass
    def seek(self, n):
        return n
    def close(self):
        pass

class Counting:
    def __init__(self, f):
        self.f = f
        self.writes = self.flushes = 0
    def write(self, b):
        self.writes += 1
        return self.f.write(b)
    def flush(self):
        self.flushes += 1
        self.f.flush()
    def seek(self, n):
        return self.f.seek(n)
    def close(self):
        self.f.close()

made = [0]

def host(folder, countdown=0, players=2):
    # a folder of its own each time: a log or room file left by the last one would be resumed
    # (its seats held for their tokens, so these tokenless joins would find the room full)
    if folder:
        made[0] += 1
        folder = "%s%d" % (folder, made[0])
    settings = Settings()
    settings.preset = "classic"
    settings.countdown_ms = countdown
    h = MatchHost(settings, ViewPublisher(), log=lambda *a: None, ticks_ms=lambda: 0)
    if folder:
        resume(h, folder)
    for p in [Phone() for _ in range(players)]:
        h.handle(p, intents.parse('{"t":"join","role":"play"}'))
        h.handle(p, intents.parse('{"t":"ready","c":1}'))
    return h

N = 2000
move = intents.parse('{"t":"move","c":2,"d":"N"}')
best = {}
for folder in ("logs", None, "null"):
    for run in range(5):
        h = host(folder and "logs")
        j = h.journal
        if folder == "null":  # the encoding alone: files that take the bytes and do nothing
            j.main = j.stream = Null()
        m = h.match
        seat = h.seats[1]
        t = time.ticks_us()
        for _ in range(N):
            j.push(m, seat, move)
            j.changed(h)
        us = time.ticks_diff(time.ticks_us(), t) / N
        key = folder or "nolog"
        best[key] = min(best.get(key, 1e9), us)
h = host("logs")
j = h.journal
j.main = main = Counting(j.main)
j.stream = tail = Counting(j.stream)
for _ in range(N):
    j.push(h.match, h.seats[1], move)
    j.changed(h)
print("RESULT", best["logs"], best["nolog"], best["null"], tail.writes, tail.flushes,
      main.writes, main.flushes, N)
t = time.ticks_ms()
r = host(None, None, 0)  # the preset's countdown, as in the log; nobody joined yet
resume(r, "resume")
print("REBUILD", time.ticks_diff(time.ticks_ms(), t), r.paused)
"""


def per_move(micropython, resume_log):
    env = dict(
        os.environ,
        MICROPYPATH=os.pathsep.join(
            [str(ROOT / "tools" / "hostboard"), str(ROOT / "firmware"), ".frozen"]
        ),
    )
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "resume").mkdir()
        (Path(work) / "resume" / "match-1.log").write_bytes(resume_log)
        done = subprocess.run(
            [micropython, "-X", "heapsize=" + GATEWAY_HEAP, "-c", _UPY],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    if done.returncode:
        raise RuntimeError(done.stdout + done.stderr)
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT")][-1].split()
    log_us, nolog_us, encode_us = float(line[1]), float(line[2]), float(line[3])
    tail_writes, tail_flushes, main_writes, main_flushes, n = map(int, line[4:])
    rebuild = [x for x in done.stdout.splitlines() if x.startswith("REBUILD")][-1].split()
    assert rebuild[2] == "True", rebuild  # resumed: paused until both players are back
    return {
        "us_per_move_encoding_only_unix": round(encode_us - nolog_us, 2),
        "rebuild_2000_commands_ms_unix": int(rebuild[1]),
        "us_per_move_with_log_unix": round(log_us, 2),
        "us_per_move_without_log_unix": round(nolog_us, 2),
        "us_per_move_added_unix": round(log_us - nolog_us, 2),
        "writes_per_move": round((tail_writes + main_writes) / n, 3),
        "flushes_per_move": round((tail_flushes + main_flushes) / n, 3),
        "tail_file_rewrites_per_move": round(tail_writes / n, 3),
        "log_appends_per_move": round(main_writes / n, 3),
    }


def sizes():
    data, m = driven_log(7, "classic", 2400)
    head, entries, _ = read(data)
    commands = sum(1 for e in entries if e[0] in (MOVE, DROP))
    return {
        "bytes_per_entry": ENTRY,
        "header_bytes": HEADER,
        "driven_match": {
            "commands": commands,
            "entries": len(entries),
            "bytes": len(data),
            "bytes_per_command": round(len(data) / commands, 2),
        },
        "bytes_for_2000_commands_est": HEADER + ENTRY * 2000 + 4 * ENTRY,
    }


def unfinished_log(commands=2000):
    """An unfinished classic match of `commands` accepted moves (both players stepping to and
    fro), seat 1 holding TOKEN: (the log's bytes, the number of commands, the match)."""
    from driver import new_match
    from game import rules
    from logbook import Writer, seed_bytes_for

    seed = 11
    m = new_match(seed, "classic")
    w = Writer(m, seed_bytes_for(seed))
    w.header.token_hash[1] = hashlib.sha256(TOKEN.encode()).digest()[:16]
    w.header.token_hash[2] = hashlib.sha256(b"x" * 32).digest()[:16]
    w.out[:HEADER] = w.header.write(bytearray(HEADER))
    m.start(0)
    t = m.countdown_ms
    m.advance(t)
    w.entry(CLOCK, 0, 0, 0, t)
    way = [0, 0, 0]
    for seat in (1, 2):
        way[seat] = [d for d in range(4) if m.cells[m.pos[seat]] & rules.DIR_BITS[d]][0]
    for i in range(commands):
        seat = 1 + i % 2
        t += m.cooldown_ms // 2 + 1
        m.enqueue(seat, rules.CMD_MOVE, way[seat], t)
        assert m.process() == rules.OK
        w.entry(MOVE, seat, way[seat], 0, t)
        way[seat] = rules.DIR_OPPOSITE[way[seat]]
    return bytes(w.out), commands, m


async def _first_view(url):
    client = WsGameClient(url, "p1", heartbeat_s=None)
    await client.connect()
    await client.join(token=TOKEN)
    welcome = client.welcome
    await client.close()
    return welcome


def resume_time(micropython, runs=3):
    data, commands, m = unfinished_log()
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as work:
            logs = Path(work) / "flash" / "log"
            logs.mkdir(parents=True)
            (logs / "match-1.log").write_bytes(data)
            settings = json.dumps({"preset": "classic"})
            started = time.monotonic()
            board = start_host_board(micropython, work, settings, heap=GATEWAY_HEAP)
            serving = time.monotonic() - started
            try:
                welcome = asyncio.run(asyncio.wait_for(_first_view(board.ws_url), 30))
                first_view = time.monotonic() - started
                assert welcome.get("restarted") is True, welcome
                log = board.log()
            finally:
                stop_host_board(board)
        out.append((first_view, serving))
    first_view, serving = min(out)
    resumed = [line for line in log.splitlines() if "resumed True" in line]
    return {
        "commands_in_log": commands,
        "log_bytes": len(data),
        "process_start_to_first_view_s": round(first_view, 3),
        "process_start_to_serving_s": round(serving, 3),
        "board_log": resumed[-1] if resumed else None,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    micropython = find_micropython()
    report = {"flash": sizes()}
    log, _, _ = unfinished_log()
    report["flash"].update(per_move(micropython, log))
    report["resume"] = resume_time(micropython)
    if args.json:
        print(json.dumps(report))
        return
    flash, resume = report["flash"], report["resume"]
    print("match log: %d bytes a command, a %d-byte header" % (ENTRY, HEADER))
    print(
        "  a driven classic match: %(commands)d commands, %(entries)d entries, %(bytes)d bytes"
        % flash["driven_match"]
    )
    print(
        "  per move: %.2f writes (%.2f tail rewrites, %.3f log appends), %.2f flushes"
        % (
            flash["writes_per_move"],
            flash["tail_file_rewrites_per_move"],
            flash["log_appends_per_move"],
            flash["flushes_per_move"],
        )
    )
    print(
        "  time per move on the unix port: %.1f us with the log, %.1f without: +%.1f us"
        % (
            flash["us_per_move_with_log_unix"],
            flash["us_per_move_without_log_unix"],
            flash["us_per_move_added_unix"],
        )
    )
    print(
        "  of which the encoding (no file I/O): +%.1f us; the rest is the file writes and their"
        " flushes (an fsync on the unix port)" % flash["us_per_move_encoding_only_unix"]
    )
    print(
        "resume of %d commands (%d bytes): serving after %.2f s, first view after %.2f s"
        % (
            resume["commands_in_log"],
            resume["log_bytes"],
            resume["process_start_to_serving_s"],
            resume["process_start_to_first_view_s"],
        )
    )
    print(
        "  of which the rebuild (reading and replaying the log) %d ms on the unix port"
        % flash["rebuild_2000_commands_ms_unix"]
    )
    print("  " + str(resume["board_log"]))


if __name__ == "__main__":
    sys.exit(main())
