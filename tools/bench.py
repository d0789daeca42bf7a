# `make bench`: one fixed, seeded workload measured every way we promise, printed as one table
# and written to build/bench.json. Benchmarks only: nothing here asserts a speed.
#   core     us per accepted move (engine + the views of 2 players and 1 observer) on CPython and
#            on the MicroPython unix port, an ESP32 estimate, heap bytes allocated per move
#   in play  us per view as each connection gets them in play: one role's views of every move
#            (bench_core.py --roles R) less the engine alone, classic 15x15 and huge 32x32
#   instr    callgrind instruction counts per move under the unix port (when valgrind exists)
#   wire     records and bytes per view (tools/bench_projector.py) and the naive alternative:
#            one full-state JSON document per move for every client
#   latency  intent-to-own-view round trip on loopback beside a plain Microdot echo
#            (tools/latency_bench.py, the real firmware under the unix port)
#   memory   the minimum heap from `make mem` (build/mem.json), when it has been run
# Usage: python tools/bench.py [--quick] [--skip SECTION ...]
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import _path  # noqa: F401  (firmware/ on sys.path)
from bench_core import Workload, record_workload
from bench_projector import ESP32_FACTOR  # the one ESP32 estimate factor (docs/platform.md)
from driver import new_match
from game import rules
from game.projector import OBSERVER, Projector
from hostenv import BOARD_HEAP, BUILD, ROOT, TOOLS, find_micropython


def run_json(cmd, timeout=900, env=None):
    out = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=True, env=env
    ).stdout
    try:
        return json.loads(out)  # a whole JSON document ...
    except ValueError:
        return json.loads(out.strip().splitlines()[-1])  # ... or JSON as its last line


def bench_core_args(workload_path, moves, *flags, preset="classic"):
    """tools/bench_core.py replaying the saved workload of preset (its maze), moves long."""
    args = ["tools/bench_core.py", "--load", workload_path, "--preset", preset]
    return args + ["--moves", str(moves), *flags]


def core_section(workload_path, moves):
    rows = []
    upy = find_micropython()
    for views in (True, False):
        args = bench_core_args(workload_path, moves, *([] if views else ["--no-views"]))
        best = {}
        for name, cmd in (
            ("cpython", [sys.executable, *args]),
            ("micropython", [upy, "-X", "heapsize=" + BOARD_HEAP, *args] if upy else None),
        ):
            if cmd is None:
                continue
            # The fastest of three runs: the least disturbed by whatever else the machine does.
            runs = [run_json(cmd) for _ in range(3)]
            best[name] = min(runs, key=lambda r: r["us_per_move"])
        rows.append(
            {
                "work": "engine + 3 views" if views else "engine only",
                "moves": moves,
                "us_cpython": best["cpython"]["us_per_move"],
                "us_unix": best.get("micropython", {}).get("us_per_move"),
                "ms_esp32_estimate": (
                    round(best["micropython"]["us_per_move"] * ESP32_FACTOR / 1000, 2)
                    if "micropython" in best
                    else None
                ),
                "alloc_bytes_per_move_unix": best.get("micropython", {}).get(
                    "alloc_bytes_per_move"
                ),
            }
        )
    return rows


# (label, preset, role): a player at its radius as the match makes it (3, 6 after a vision
# artifact), and the observer; each of a seat's views and the observer's after every move.
IN_PLAY = (
    ("player 15x15", "classic", 1),
    ("observer 15x15", "classic", OBSERVER),
    ("player 32x32", "huge", 1),
    ("observer 32x32", "huge", OBSERVER),
)


def in_play_section(workloads, moves):
    """us per view in play: the views one role's connection gets, one after every move of the
    driven match (its own moves, the opponent's, pickups; what the projector keeps from the
    view before is kept), as one role's run less a run of the engine alone (fastest of 3)."""
    upy = find_micropython()
    if not upy:
        return {"skipped": "micropython not available"}
    rows = []
    best = {}

    def fastest(preset, *flags):
        key = (preset, flags)
        if key not in best:
            cmd = [upy, "-X", "heapsize=" + BOARD_HEAP]
            cmd += bench_core_args(workloads[preset], moves, *flags, preset=preset)
            best[key] = min(run_json(cmd)["us_per_move"] for _ in range(3))
        return best[key]

    for label, preset, role in IN_PLAY:
        engine = fastest(preset, "--no-views")
        rows.append(
            {
                "view": label,
                "preset": preset,
                "moves": moves,
                "us_unix_per_view": round(fastest(preset, "--roles", str(role)) - engine, 1),
                "us_unix_engine": engine,
            }
        )
    return rows


def instr_section(workloads, moves):
    upy = find_micropython()
    if not shutil.which("valgrind") or not upy:
        return {"skipped": "valgrind or micropython not available"}
    high = min(600, moves)
    low = high // 6

    def count(moves, *flags, preset="classic"):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "callgrind.out")
            cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
            cmd += [upy, "-X", "heapsize=" + BOARD_HEAP]
            cmd += bench_core_args(workloads[preset], moves, *flags, preset=preset)
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
        for line in proc.stderr.splitlines():
            if "Collected :" in line:
                return int(line.split(":")[-1].strip())
        raise RuntimeError("callgrind printed no total: " + proc.stderr[-500:])

    def per_move(*flags, preset="classic"):
        # Differences between two run lengths cancel start-up and loading
        return count(high, *flags, preset=preset) - count(low, *flags, preset=preset)

    # ... and subtracting the same difference for a run that only repeats the resets between
    # games leaves the moves alone.
    baseline = per_move("--resets-only")
    engine = {preset: per_move("--no-views", preset=preset) for preset in workloads}
    result = {
        "engine + 3 views": round((per_move() - baseline) / (high - low)),
        "engine only": round((engine["classic"] - baseline) / (high - low)),
    }
    # A view in play (make bench's "views in play"): one role's views less the engine alone.
    for label, preset, role in IN_PLAY:
        views = per_move("--roles", str(role), preset=preset)
        result["in play: " + label] = round((views - engine[preset]) / (high - low))
    return result


def naive_document(m):
    """The naive alternative: the whole state as one JSON document (what a simple server
    would broadcast to every client after every move)."""
    seats = []
    for s in (1, 2):
        seats.append(
            {
                "pos": m.pos[s],
                "key": m.inventory[s],
                "vision": m.vision[s],
                "compass": m.compass[s],
                "exit_open": m.exit_open[s],
                "exited": m.exited[s],
                "exit_time": m.exit_time[s],
            }
        )
    objects = [
        [m.obj_kind[i], m.obj_owner[i], m.obj_variant[i], m.obj_cell[i]]
        for i in range(m.object_count())
        if m.obj_present[i]
    ]
    doc = {
        "seq": m.state_seq,
        "phase": rules.PHASE_NAMES[m.phase],
        "w": m.width,
        "h": m.height,
        "meetings": m.meeting_seq,
        "cells": list(m.cells),
        "players": seats,
        "objects": objects,
        "result": rules.RESULT_NAMES[m.result],
        "winner": m.winner,
    }
    return json.dumps(doc, separators=(",", ":"))


def wire_section(workload, quick):
    rows = []
    for preset in ("classic", "large", "huge"):
        m = new_match(7, preset)
        m.start(0)
        proj = Projector()
        moves = 0
        ours = 0
        naive = 0
        records = 0
        packed, times = workload.packed, workload.times
        if preset != "classic":  # the classic workload's moves do not fit other mazes
            w = record_workload(7, preset, 300 if quick else 1000)
            packed, times = w.packed, w.times
        for j in range(len(packed)):
            word, t = packed[j], times[j]
            if t < m.now:
                m.reset(m.seed)
                m.start(0)
            m.enqueue(word >> 24, word >> 16 & 0xFF, word >> 8 & 0xFF, t)
            if m.process() != rules.OK:
                continue
            moves += 1
            for role in (1, 2, OBSERVER):
                for i in range(proj.begin(m, role)):
                    ours += proj.write(i)
                    records += 1
            naive += 3 * len(naive_document(m))
        rows.append(
            {
                "preset": preset,
                "size": "%dx%d" % (m.width, m.height),
                "moves": moves,
                "records_per_move": round(records / moves, 2),
                "bytes_per_move_records": round(ours / moves),
                "bytes_per_move_naive": round(naive / moves),
                "naive_over_records": round(naive / ours, 2),
            }
        )
    views = run_json([sys.executable, "tools/bench_projector.py", "--json"])
    return {"per_move_3_clients": rows, "per_view": views}


def latency_section(quick):
    script = str(TOOLS / "latency_bench.py")
    if not os.path.exists(script):
        return {"skipped": "tools/latency_bench.py not present"}
    cmd = [sys.executable, script, "--json"]
    if quick:
        cmd.append("--quick")
    return run_json(cmd, timeout=1200)


def log_section():
    return run_json([sys.executable, str(TOOLS / "log_bench.py"), "--json"], timeout=900)


def memory_section():
    path = BUILD / "mem.json"
    if not os.path.exists(path):
        return {"skipped": "run `make mem` first (writes build/mem.json)"}
    with open(path) as f:
        return json.load(f)


def print_table(report):
    print("\n== core: per accepted move (fastest of 3 runs) ==")
    print(
        "%-18s %10s %10s %14s %18s"
        % ("work", "CPython us", "unix us", "ESP32 est. ms", "unix alloc B/move")
    )
    for r in report["core"]:
        print(
            "%-18s %10.1f %10.1f %14.2f %18s"
            % (
                r["work"],
                r["us_cpython"],
                r["us_unix"] or 0,
                r["ms_esp32_estimate"] or 0,
                r["alloc_bytes_per_move_unix"],
            )
        )
    print("ESP32 estimate = unix time x %d (see docs/performance.md)" % ESP32_FACTOR)
    print("\n== views in play: us per view, one after every move (unix port, fastest of 3) ==")
    if isinstance(report["in_play"], dict):
        print("  skipped:", report["in_play"]["skipped"])
    else:
        for r in report["in_play"]:
            print("  %-18s %6.1f" % (r["view"], r["us_unix_per_view"]))
    print("\n== instructions per move (callgrind, unix port) ==")
    for key, value in report["instr"].items():
        print("  %-18s %s" % (key, value))
    print("\n== wire: per accepted move, 2 players + 1 observer ==")
    print(
        "%-8s %-6s %9s %12s %12s %8s"
        % ("preset", "size", "records", "our bytes", "naive bytes", "naive/us")
    )
    for r in report["wire"]["per_move_3_clients"]:
        print(
            "%-8s %-6s %9.2f %12d %12d %8.2f"
            % (
                r["preset"],
                r["size"],
                r["records_per_move"],
                r["bytes_per_move_records"],
                r["bytes_per_move_naive"],
                r["naive_over_records"],
            )
        )
    print(
        "\n== wire: per view (us: written whole; 'moved': a player's after its move, from its"
        " status on; 'again': the same state, updated in place) =="
    )
    print(
        "%-18s %8s %8s %9s %9s %9s %9s %9s %9s"
        % (
            "view",
            "rec avg",
            "rec max",
            "bytes avg",
            "bytes max",
            "us CPy",
            "us unix",
            "moved",
            "again",
        )
    )
    for r in report["wire"]["per_view"]:
        print(
            "%-18s %8.2f %8d %9.1f %9d %9.1f %9s %9s %9s"
            % (
                r["name"],
                r["records_mean"],
                r["records_max"],
                r["bytes_mean"],
                r["bytes_max"],
                r["us_per_view_cpython"],
                r.get("us_per_view_upy", "-"),
                r.get("us_per_moved_upy", "-"),
                r.get("us_per_update_upy", "-"),
            )
        )
    print("\n== latency (loopback, real firmware on the unix port) ==")
    lat = report["latency"]
    if "skipped" in lat:
        print("  skipped:", lat["skipped"])
    else:
        echo = lat["echo_ms"]
        print("%-34s %8s %8s %12s" % ("round trip", "p50 ms", "p99 ms", "p50 / echo"))
        for key, label in (
            ("intent_to_ack_ms", "intent -> ack"),
            ("intent_to_view_ms", "intent -> own view"),
            ("intent_to_all_observers_ms", "intent -> all 4 observers' views"),
            ("echo_ms", "plain Microdot echo"),
        ):
            row = lat[key]
            print(
                "%-34s %8.2f %8.2f %12.1f"
                % (label, row["p50"], row["p99"], row["p50"] / echo["p50"])
            )
        print(
            "heap (64-bit unix, %s): idle %d, 2 players + 4 observers %d, per client %d bytes"
            % (
                lat["heap"],
                lat["heap_used_idle"],
                lat["heap_used_2p_4obs"],
                lat["heap_per_client"],
            )
        )
    print("\n== match log (tools/log_bench.py) ==")
    log = report["log"]
    if "skipped" in log:
        print("  skipped:", log["skipped"])
    else:
        flash, resume = log["flash"], log["resume"]
        print(
            "  %d bytes a command (+%d-byte header); per move %.2f writes, %.2f flushes;"
            " +%.1f us a move on the unix port (encoding %.1f us)"
            % (
                flash["bytes_per_entry"],
                flash["header_bytes"],
                flash["writes_per_move"],
                flash["flushes_per_move"],
                flash["us_per_move_added_unix"],
                flash["us_per_move_encoding_only_unix"],
            )
        )
        print(
            "  resume of %d commands: first view %.2f s after the process started (rebuild %d ms)"
            % (
                resume["commands_in_log"],
                resume["process_start_to_first_view_s"],
                flash["rebuild_2000_commands_ms_unix"],
            )
        )
    print("\n== memory ==")
    print(json.dumps(report["memory"], indent=2))


def main(argv):
    quick = "--quick" in argv
    skip = set(argv[argv.index("--skip") + 1 :]) if "--skip" in argv else set()
    started = time.time()
    moves = 500 if quick else 2000
    BUILD.mkdir(exist_ok=True)
    workload_path = str(BUILD / "bench-workload.bin")
    workload = record_workload(7, "classic", moves)
    workload.save(workload_path)
    # the huge preset's too, for the views in play on a 32x32 maze
    workloads = {"classic": workload_path, "huge": str(BUILD / "bench-workload-huge.bin")}
    record_workload(7, "huge", moves).save(workloads["huge"])
    report = {
        "machine": {
            "platform": platform.platform(),
            "processor": platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "workload": {"seed": 7, "preset": "classic", "moves": len(workload)},
        "esp32_factor": ESP32_FACTOR,
    }
    report["core"] = core_section(workload_path, len(workload))
    report["in_play"] = in_play_section(workloads, len(workload))
    report["instr"] = (
        {"skipped": "--skip instr"} if "instr" in skip else instr_section(workloads, len(workload))
    )
    report["wire"] = wire_section(Workload.load(workload_path, len(workload)), quick)
    report["latency"] = (
        {"skipped": "--skip latency"} if "latency" in skip else latency_section(quick)
    )
    report["log"] = {"skipped": "--skip log"} if "log" in skip else log_section()
    report["memory"] = memory_section()
    report["seconds"] = round(time.time() - started, 1)
    with open(BUILD / "bench.json", "w") as f:
        json.dump(report, f, indent=2)
    print_table(report)
    print("\nwritten: build/bench.json (%.0f s)" % report["seconds"])


if __name__ == "__main__":
    main(sys.argv)
