"""Soak: many matches back to back on the board image at the board's heap, with chaos.

    python tools/soak.py                        # 15 minutes, ROMFS layout (make soak)
    python tools/soak.py --minutes 3 --layout filesystem
    python tools/soak.py --matches 4            # the short form (host_tests/test_soak.py)

The board image (tools/build_image.py) is copied to a virtual board's flash (and, for the ROMFS
layout, its code into a ROMFS image at /rom) and booted as a reset would (tools/board_run.py,
the harness make mem and make stress use too) at the layout's heap: with the 32-bit unix port
named by $MICROPY32 (the board's word size) the budgets of docs/memory.md in true bytes (plus
JUNK_ROOM); otherwise the 64-bit port at its budgets (K words, 32-bit-equivalent). The bot
runner (tools/bot_runner.py) then plays matches with 2 players and 4 observers, alternating a
quiet match and a chaotic one: p1 and three observers leave and rejoin, drop and reconnect,
flood and stall at random, and junk connections come and go (seeded: --seed gives the same
choices). p2 and obs1 stay honest: p2's intent -> view latency is compared between the quiet
and the chaotic matches.

Read back from the board's log (board_run.match_heaps): every `game: match N starts`, and
the heap report the firmware writes when a match ends (`mem: match N finished (heap used U,
free F)`, then micropython.mem_info(): the largest free block). Heap figures are the board's
own bytes (after a collection), less what the virtual board pinned outside the firmware's heap.

Asserted (both forms): the process never exits, no MemoryError and no traceback in its log,
every match that started ended with a result (win, draw or forfeit), and the heap in use after
the quiet matches grows by at most HEAP_GROWTH_BOUND from the first to the last. A quiet match
starts with the same room every time (6 clients joined, no junk), so its figure is comparable;
a chaotic match's figure depends on who happens to be connected when it ends and is reported
only. The latency ratio (p2's intent -> view p99 under chaos / quiet) is a speed figure: the
long form fails above MAX_LATENCY_RATIO, the short form (a test) only reports it.
"""

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import build_image
from board_run import (
    RUN_SETTINGS,
    BoardRun,
    budget_heap,
    log_checks,
    match_heaps,
    prepare_image,
    resolve_binary,
)
from bot_runner import BEHAVIOURS, RunFailed, run_bots
from hostenv import (
    BUILD,
    BinaryError,
)
from virtual_board import VirtualBoardError

# The heap the board has for each layout: the memory budgets (tools/hostenv.py,
# docs/memory.md), true bytes on the 32-bit port, K words on the 64-bit one. On the 32-bit
# port JUNK_ROOM more: the budget is for the full room alone (make mem), and the chaotic
# matches add up to 4 junk connections, players leaving and rejoining and floods to it (at
# 4 KB more the short soak still failed 1 run in 2, a MemoryError in a message frame). 10 KB
# since the budgets were lowered to 92K / 56K: the same soak heaps as before for the filesystem
# (102K) and 2 KB less for ROMFS (66K), with an image ~2 KB smaller in both. The filesystem
# budget was 90K after "Closer to 88K" (docs/memory.md): a 100K soak heap, for an image 1 KB
# smaller; it is 88K, the goal, since "A slow phone's rest": a 98K soak heap (the short soak of
# host_tests/test_soak.py passed there, in a fresh clone's make test).
JUNK_ROOM = 10 * 1024
# Growth of the heap in use after a quiet match, first to last, that passes (bytes of the
# port). Measured: the quiet figures of a run stay within a few hundred bytes
# (docs/performance.md, "Soak").
HEAP_GROWTH_BOUND = 2048
MAX_LATENCY_RATIO = 1.5
DEFAULT_MINUTES = 15.0
HONEST_PLAYER = "p2"
BOARD_LOG = BUILD / "soak-board.log"


def default_heap(layout, bits):
    """The layout's budget heap (board_run.budget_heap), JUNK_ROOM more on the 32-bit port."""
    budget = budget_heap(bits, layout == "romfs")
    return str(budget + JUNK_ROOM) if bits == 32 else budget


def heap_figures(finished, quiet):
    """first/last/max of the heap in use after every match, and after the quiet ones."""
    out = {}
    for label, keys in (
        ("all", sorted(finished)),
        ("quiet", sorted(n for n in finished if quiet(n))),
    ):
        used = [finished[n]["used"] for n in keys]
        largest = [finished[n]["largest_free"] for n in keys if finished[n]["largest_free"]]
        out[label] = {
            "matches": len(keys),
            "first": used[0] if used else None,
            "last": used[-1] if used else None,
            "max": max(used) if used else None,
            "min": min(used) if used else None,
            "growth": used[-1] - used[0] if used else None,
            "min_largest_free": min(largest) if largest else None,
            "min_free": min((finished[n]["free"] for n in keys), default=None),
        }
    return out


def soak(
    minutes=None,
    matches=None,
    layout="romfs",
    heap=None,
    seed=1,
    behaviours=BEHAVIOURS,
    say=print,
    log_path=None,
):
    """One soak run; returns the report (a dict: "failures" lists what was not met). The
    board's whole log is written to log_path when given."""
    binary = resolve_binary(say=lambda *a: None)
    bits = binary.word_bits
    heap = heap or default_heap(layout, bits)
    if minutes is None and matches is None:
        minutes = DEFAULT_MINUTES
    report = {
        "layout": layout,
        "heap_spec": heap,
        "word_bits": bits,
        "binary": binary.path,
        "seed": seed,
        "settings": RUN_SETTINGS,
        "failures": [],
    }
    say(
        "soak: %s layout, heap %s on the %d-bit unix port, %s"
        % (layout, heap, bits, "%g min" % minutes if minutes else "%d matches" % matches)
    )
    work = Path(tempfile.mkdtemp(prefix="soak-"))
    started_at = time.monotonic()
    try:
        image, romfs = prepare_image(work, layout)
        with BoardRun(image, work / "flash", heap, binary, romfs=romfs) as board:

            def guard():
                if not board.alive():
                    raise RunFailed("the board process ended (%s)" % board.process.returncode)
                if "MemoryError" in board.read_log():
                    raise RunFailed("MemoryError in the board log")

            try:
                figures = asyncio.run(
                    run_bots(
                        board.url,
                        players=2,
                        observers=4,
                        matches=matches,
                        seconds=minutes * 60 if minutes else None,
                        rng_seed=seed,
                        behaviours=behaviours,
                        schedule="alternate",
                        guard=guard,
                    )
                )
            except (RunFailed, VirtualBoardError, OSError, asyncio.TimeoutError) as err:
                report["failures"].append("run: %s: %s" % (type(err).__name__, err))
                figures = None
            log = board.read_log()
            alive = board.alive()
        report["log_tail"] = log.splitlines()[-20:]
        if log_path is not None:
            Path(log_path).parent.mkdir(parents=True, exist_ok=True)
            Path(log_path).write_text(log)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report["minutes"] = round((time.monotonic() - started_at) / 60, 2)
    report["alive"] = alive
    checks = log_checks(log)
    report["memory_error"] = checks["memory_error"]
    report["traceback"] = checks["traceback"]
    started, finished = match_heaps(log, bits)
    report["matches_started"] = len(started)
    report["matches_finished"] = len(finished)
    report["heap_after_match"] = {str(n): finished[n] for n in sorted(finished)}
    report["heap"] = heap_figures(finished, lambda n: n % 2 == 1)
    report["bots"] = figures
    if figures is not None:
        p2 = figures["bots"][HONEST_PLAYER]["latency_ms"]
        quiet, chaos = p2["quiet"]["p99"], p2["chaos"]["p99"]
        report["latency_ms"] = p2
        report["latency_ratio"] = round(chaos / quiet, 2) if quiet and chaos else None
        report["connections"] = figures["connections"]
    # ---- what must hold ----
    fail = report["failures"]
    if not alive:
        fail.append("the board process exited")
    if report["memory_error"]:
        fail.append("MemoryError in the board log")
    if report["traceback"]:
        fail.append("a traceback in the board log")
    unfinished = [n for n in started if n not in finished]
    if unfinished:
        fail.append("matches without a result: %s" % unfinished)
    if figures is not None:
        if figures["without_result"]:
            fail.append("matches the bots saw without a result: %s" % figures["without_result"])
        if figures["matches_started"] < 2:
            fail.append("fewer than 2 matches played")
    growth = report["heap"]["quiet"]["growth"]
    if growth is not None and growth > HEAP_GROWTH_BOUND:
        fail.append(
            "heap after the quiet matches grew by %d bytes (bound %d)"
            % (growth, HEAP_GROWTH_BOUND)
        )
    return report


def print_report(report, say=print):
    say("soak: %s" % ("PASS" if not report["failures"] else "FAIL"))
    say(
        "  %s layout, heap %s (%d-bit unix port), %.1f min, seed %d"
        % (report["layout"], report["heap_spec"], report["word_bits"], report["minutes"],
           report["seed"])
    )  # fmt: skip
    say(
        "  matches: %d started, %d ended with a result; process alive: %s"
        % (report["matches_started"], report["matches_finished"], report["alive"])
    )
    figures = report.get("bots")
    if figures:
        results = list(figures["results"].values())
        say(
            "  results: %s; accepted moves %d"
            % (
                ", ".join("%s %d" % (r, results.count(r)) for r in ("win", "draw", "forfeit")),
                figures["moves"],
            )
        )
        say(
            "  connections opened: %d (bots %d, junk %d; junk: %s)"
            % (
                sum(figures["connections"].values()),
                figures["connections"]["bots"],
                figures["connections"]["junk"],
                ", ".join("%s %d" % kv for kv in figures["junk"].items()) or "none",
            )
        )
        chaos = {}
        closes = {}
        for row in figures["bots"].values():
            for k, v in row["chaos"].items():
                chaos[k] = chaos.get(k, 0) + v
            for k, v in row["closes"].items():
                closes[k] = closes.get(k, 0) + v
        say("  chaos actions: %s" % (", ".join("%s %d" % kv for kv in sorted(chaos.items()))))
        say("  close codes the bots got: %s" % (closes or "none"))
        longest = max(row["longest_out_s"] for row in figures["bots"].values())
        say("  longest time a bot was out before its next welcome: %.2f s" % longest)
    for label in ("all", "quiet"):
        h = report["heap"][label]
        if h["matches"]:
            say(
                "  heap in use after %s matches (%d): first %d, last %d, max %d, min %d, "
                "growth %+d; smallest largest-free-block %s, smallest free %d"
                % (
                    "all" if label == "all" else "the quiet",
                    h["matches"],
                    h["first"],
                    h["last"],
                    h["max"],
                    h["min"],
                    h["growth"],
                    h["min_largest_free"],
                    h["min_free"],
                )
            )
    lat = report.get("latency_ms")
    if lat:
        say(
            "  %s intent->view: quiet p50 %s / p99 %s ms (n=%d), chaos p50 %s / p99 %s ms "
            "(n=%d); p99 ratio %s (limit %.1f in make soak)"
            % (
                HONEST_PLAYER,
                lat["quiet"]["p50"],
                lat["quiet"]["p99"],
                lat["quiet"]["n"],
                lat["chaos"]["p50"],
                lat["chaos"]["p99"],
                lat["chaos"]["n"],
                report["latency_ratio"],
                MAX_LATENCY_RATIO,
            )
        )
    for failure in report["failures"]:
        say("  FAILED: %s" % failure)
    if report["failures"]:
        for line in report["log_tail"]:
            say("    | " + line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    until = parser.add_mutually_exclusive_group()
    until.add_argument("--minutes", type=float, help="how long (default %g)" % DEFAULT_MINUTES)
    until.add_argument("--matches", type=int, help="this many matches with a result instead")
    parser.add_argument("--layout", choices=("romfs", "filesystem"), default="romfs")
    parser.add_argument("--heap", help="override the layout's heap, e.g. 64wK")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=str(BUILD / "soak.json"), help="the report's file")
    parser.add_argument(
        "--no-ratio",
        action="store_true",
        help="report the latency ratio without failing on it (as the short form does)",
    )
    args = parser.parse_args(argv)
    try:
        report = soak(
            args.minutes, args.matches, args.layout, args.heap, args.seed, log_path=BOARD_LOG
        )
    except (VirtualBoardError, BinaryError, build_image.BuildError) as err:
        print("soak: error: %s" % err, file=sys.stderr)
        return 2
    ratio = report.get("latency_ratio")
    if not args.no_ratio and (ratio is None or ratio > MAX_LATENCY_RATIO):
        report["failures"].append(
            "p2 intent->view p99 under chaos is %s x the quiet figure (limit %.1f)"
            % (ratio, MAX_LATENCY_RATIO)
        )
    print_report(report)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print("report: %s, board log: %s" % (args.json, BOARD_LOG))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
