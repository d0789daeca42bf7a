"""Memory budget of the deployed board image: does it serve a full room at a given heap?

One run builds the image (tools/build_image.py), copies it into a fresh virtual-board flash
folder with a settings.json, boots it as a reset would (tools/board_run.py,
tools/virtual_board.py: boot.py then main.py under the MicroPython unix port with
`-X heapsize=`), connects 2 players and 4 observers with real WebSocket clients, readies up
and plays a match of 2,000 accepted moves (rematches included) while the observers keep
receiving views. It passes when the process is still alive, its log holds no MemoryError and
no traceback, every move count was reached and, at the end, every client still answers a
ping and every observer holds the final view.

    python tools/mem_budget.py --heap 92K           # one run, exit status 0 if it passes
    python tools/mem_budget.py --budget [--romfs]   # one run at the layout's budget heap
    python tools/mem_budget.py --bisect             # smallest passing heap -> build/mem.json
    python tools/mem_budget.py --bisect --romfs     # the same with the code in a ROMFS image
                                                    # -> build/mem-romfs.json
    python tools/mem_budget.py --parts [--romfs]    # resident bytes per part of the wiring
    ... --binary .venv/bin/micropython              # the 64-bit unix port instead

The binary: the 32-bit unix port by default (hostenv.find_micropython32: $MICROPY32, or
micropython-32 on PATH or in .venv/bin), the board's word size, so every figure is a board's
bytes; without one, the 64-bit port from PyPI, and the output says so on its first lines. The
word size is asked from the binary, never assumed. On a 32-bit binary `--heap` takes bytes or K
(`90112`, `88K`; `88wK` is the same there) and `-X heapsize=` gets bytes; on the 64-bit one it
also takes `NwK` (N K 4-byte words: 84wK is 172,032 bytes there). Every printed figure and
every JSON file names the binary (path, word size, version line) and is in its bytes.

Two layouts of the same .mpy files: on the filesystem (what `make deploy` copies to a stock
board: every import copies its bytecode into the heap) and in a ROMFS partition (`make deploy
ROMFS=1` on firmware with one: the bytecode runs in place from flash). The virtual board
mounts the ROMFS image at /rom with the unix port's own VfsRom and pins the image's bytes,
like the stand-ins of the built-in modules, outside the heap the run is given
(tools/virtual_board.py); those reserved bytes are subtracted from every "in use" figure.

Fragmentation: the figures also give the largest free block and the largest allocated block
from the last `micropython.mem_info()` block of the board's log (tools/mem_log.py): the one
the firmware prints when a match ends, or, with firmware that prints none there, the one at
boot (the output says which).

The players are the bot runner's (tools/bot_runner.py, BotRunner, without chaos): each knows
only its own square (bots.FogOfWar), walks to its own key once seen, then to its own exit and
out, else explores; an opponent key picked up on the way is dropped at once. A finished match
is followed by a rematch, so several mazes are generated. The image, the flash, the virtual
board and its heap figures are tools/board_run.py's (the same harness as make soak and make
stress).
"""

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import build_image
import mem_log
from board_run import (
    RUN_SETTINGS,
    BoardRun,
    budget_heap,
    deploy,
    gateway_heap,
    heap_label,
    heap_spec,
    image_bytes,
    log_checks,
    memory_figures,
    resolve_binary,
)
from bot_runner import BotRunner, RunFailed
from hostenv import (
    BUILD,
    BinaryError,
)
from virtual_board import VirtualBoard

DEFAULT_MOVES = 2000
OBSERVERS = 4
# Bisection, in bytes of the binary: (step, low bound assumed to fail, high bound; doubled while
# it fails). 32-bit: 2 KB steps from 48 KB (well below an ESP32's first heap, 56 KB) to 128 KB
# (above its grown heap, ~112 KB). 64-bit: 4wK steps from 32wK to 128wK (8 KB, 64 KB, 256 KB).
BISECT = {32: (2 * 1024, 48 * 1024, 128 * 1024), 64: (8 * 1024, 64 * 1024, 256 * 1024)}

HEARTBEAT_S = 3.0  # pings from every client: well inside the 20 s idle timeout
REPLY_TIMEOUT_S = 10.0  # an intent without an answer in this long fails the run
STALL_S = 30.0  # no accepted move for this long fails the run

_JOINED_4 = re.compile(r"observer joined \(4 watching\) \(heap used (\d+), free (\d+)\)")


def default_json(bits, romfs):
    """build/mem.json, build/mem-romfs.json (32-bit); build/mem-64*.json for a 64-bit run."""
    return BUILD / ("mem%s%s.json" % ("" if bits == 32 else "-64", "-romfs" if romfs else ""))


# ---- one run --------------------------------------------------------------------------------


async def _scenario(board, moves, result, say, seed):
    """The room joins (measured), then plays `moves` accepted moves; then everyone must still
    be served (BotRunner.check_served)."""
    runner = BotRunner(
        board.url,
        players=2,
        observers=OBSERVERS,
        rng_seed=seed,
        heartbeat_s=HEARTBEAT_S,
        reply_s=REPLY_TIMEOUT_S,
        stall_s=STALL_S,
    )
    try:
        await runner.join()
        result["stage"] = "6 clients joined"
        await asyncio.sleep(0.5)  # let the writers settle before measuring
        # The gateway logs the heap after a collection as the 4th observer joins: the room
        # with no HTTP request in flight (the /status figures below include that request).
        found = _JOINED_4.findall(board.read_log())
        if found:
            used, free = found[-1]
            result["six_clients_log"] = memory_figures(
                {"mem_alloc": int(used), "mem_free": int(free)}, board.reserved
            )
        result["six_clients"] = figures = await asyncio.to_thread(board.status)
        say(
            "  6 clients: heap in use %d, free %d bytes"
            % (figures["mem_alloc"], figures["mem_free"])
        )
        result["stage"] = "playing"

        def guard():
            if not board.alive():
                raise RunFailed("the board process ended (%s)" % board.process.returncode)
            if "MemoryError" in board.read_log():
                raise RunFailed("MemoryError in the board log")

        await runner.play(moves=moves, guard=guard)
        result["moves"] = runner.moves
        result["stage"] = "moves done"
        # Everyone still served: a pong for each client, then every observer on the final state.
        await runner.check_served()
        result["end"] = await asyncio.to_thread(board.status)
        result["stage"] = "done"
    finally:
        bots = runner.figures()["bots"]
        players = [name for name, row in bots.items() if row["role"] == "play"]
        result["acks"] = {name: bots[name]["acks"] for name in players}
        result["refusals"] = {name: bots[name]["refusals"] for name in players}
        result["views"] = {name: row["views"] for name, row in bots.items()}
        result["matches"] = len(runner.started)
        await runner.close()


def run_once(
    image,
    heap,
    moves=DEFAULT_MOVES,
    say=print,
    seed=1,
    settings=None,
    romfs=None,
    binary=None,
):
    """Boot the image with `heap` (bytes, '92K', or on a 64-bit binary '84wK') on `binary` (a
    path or hostenv.Binary; default: the 32-bit port if there is one, else the 64-bit one) and
    play; returns a result dict (`ok` says it all). With `romfs` (a ROMFS image of the image's
    code) the code runs from /rom instead."""
    if not hasattr(binary, "word_bits"):
        binary = resolve_binary(binary, say=lambda *a: None)
    spec, size = heap_spec(heap, binary.word_bits)
    result = {"heap": spec, "heap_bytes": size, "ok": False, "stage": "boot", "moves": 0}
    result["target"] = moves
    result["binary"] = binary._asdict()
    result["layout"] = "romfs" if romfs else "filesystem"
    run_settings = dict(RUN_SETTINGS)
    run_settings.update(settings or {})
    work = Path(tempfile.mkdtemp(prefix="mem-budget-"))
    log = ""
    alive = False
    board = BoardRun(image, work / "flash", spec, binary, romfs=romfs, settings=run_settings)
    try:
        try:
            board.boot()
            result["reserved"] = board.reserved
            result["gc_heap_bytes"] = board.gc_heap_bytes
            result["boot"] = figures = board.status()
            result["stage"] = "booted"
            say(
                "  booted: heap in use %d, free %d bytes"
                % (figures["mem_alloc"], figures["mem_free"])
            )
            asyncio.run(
                asyncio.wait_for(_scenario(board, moves, result, say, seed), 60 + moves * 0.5)
            )
        except Exception as err:  # RunFailed, VirtualBoardError, OSError, a timeout, and
            # websockets' own errors (the board refused or dropped us): the run failed
            result["error"] = "%s: %s" % (type(err).__name__, err)
        log = board.read_log()
        alive = board.alive()
    finally:
        board.stop()
        shutil.rmtree(work, ignore_errors=True)
    result["alive"] = alive
    result.update(log_checks(log))
    result["boot_log"] = [
        line for line in log.splitlines() if line.startswith(("mem", "code", "vboard"))
    ]
    result["mem_info"] = mem_log.end_figures(log, mem_log.gc_block_bytes(binary.word_bits))
    result["gateway_heap"] = gateway_heap(log, result.get("reserved", 0))
    result["log_tail"] = log.splitlines()[-15:]
    result["log"] = log
    result["ok"] = (
        result["stage"] == "done"
        and alive
        and not result["memory_error"]
        and not result["traceback"]
        and result["moves"] >= moves
    )
    return result


def describe(result):
    """One line: pass or FAIL, and why."""
    if result["ok"]:
        return "pass: %d moves (%s), %d matches" % (
            result["moves"],
            ", ".join("%s %d" % kv for kv in sorted(result["acks"].items())),
            result["matches"],
        )
    why = result.get("error") or ("MemoryError" if result.get("memory_error") else "?")
    why = why.splitlines()[0] if why.strip() else why
    errors = result.get("memory_errors") or ()
    return "FAIL at %s: %s%s" % (result["stage"], why, (" (%s)" % errors[-1]) if errors else "")


# ---- resident cost per part ----------------------------------------------------------------

# Run on the virtual board in place of boot.py and main.py, after the same prologue (the
# built-in stand-ins, and a ROMFS image, outside the heap): imports the image's main.py, then
# calls net.wiring's wire() (WIRING: its name in the image) with a step that collects and
# prints the bytes that stayed resident since the step before ("part <name> <bytes>"); then
# the qstr pool of qstr_info().
_PARTS_SCRIPT = """
import gc, micropython
def _used():
    gc.collect()
    return gc.mem_alloc()
def _part(name):
    now = _used()
    print('part', name, now - _last[0])
    _last[0] = now
_last = [_used()]
import asyncio, time
_part('asyncio')
import main
_part('main.py (compiled from source) and net.board')
import WIRING
_board = WIRING.wire(_part)
micropython.qstr_info()
"""


def parts(image, settings=None, romfs=None, binary=None):
    """[(part, bytes)] resident after each step of the board's wiring (net.wiring.wire()) on
    `binary` (a path or hostenv.Binary; default as run_once), plus the qstr pool total (already
    counted inside the parts: every module interns its names). With `romfs` the code is imported
    from that ROMFS image at /rom. A short-named image's modules are named by their dotted
    names (the module map beside the image)."""
    if not hasattr(binary, "word_bits"):
        binary = resolve_binary(binary, say=lambda *a: None)
    work = Path(tempfile.mkdtemp(prefix="mem-parts-"))
    try:
        flash = work / "flash"
        deploy(image, flash, settings or RUN_SETTINGS, romfs=bool(romfs))
        board = VirtualBoard(flash, heapsize="1024K", romfs=romfs, micropython=binary.path)
        with board:
            wiring = build_image.image_modules(image).get("net.wiring", "net.wiring")
            process = board.boot(program=_PARTS_SCRIPT.replace("WIRING", wiring))
            process.wait(timeout=60)
            out = board.read_log()
        if process.returncode != 0:
            raise RunFailed("parts script failed: " + out[-500:])
        rows = []
        dotted = {short: name for name, short in build_image.image_modules(image).items()}
        for line in out.splitlines():
            if line.startswith("part "):
                name, _, size = line[5:].rpartition(" ")
                rows.append((dotted.get(name, name), int(size)))  # a flat module's own name
        found = re.search(r"n_qstr=(\d+).*n_total_bytes=(\d+)", out)
        if found:
            rows.append(("(qstr pool: %s names)" % found.group(1), int(found.group(2))))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_parts(rows, binary, say=print):
    say("  %-58s %14s" % ("part", "bytes (%d-bit)" % binary.word_bits))
    for name, size in rows:
        say("  %-58s %14d" % (name, size))


# ---- bisection ------------------------------------------------------------------------------


def _heap_of_steps(n, bits):
    """The -X heapsize value of n bisection steps: bytes on 32-bit, NwK on 64-bit."""
    step = BISECT[bits][0]
    return heap_spec(n * step if bits == 32 else "%dwK" % (n * step // 2048), bits)


def bisect(image, moves, say, binary, romfs=None, hint=None, settings=None):
    """Smallest passing heap in the binary's steps (BISECT); returns (its -X heapsize value,
    results by value). With `hint` (the budget: expected to pass, and at most one step above
    the smallest heap) the first trials are the budget and the steps below it, so an image
    that needs its budget takes two runs, and one that passes a step below it three; any
    other outcome goes on with an ordinary bisection between the bounds."""
    bits = binary.word_bits
    step, lo_bytes, hi_bytes = BISECT[bits]
    results = {}

    def trial(n):
        spec, size = _heap_of_steps(n, bits)
        if spec not in results:
            say("heap %s ..." % heap_label(spec, size))
            if settings:
                res = run_once(
                    image, spec, moves, say, settings=settings, romfs=romfs, binary=binary
                )
            else:
                res = run_once(image, spec, moves, say, romfs=romfs, binary=binary)
            say("heap %s: %s" % (heap_label(spec, size), describe(res)))
            if not res["ok"]:
                for line in res["log_tail"][-6:]:
                    say("    | " + line)
            results[spec] = res
        return results[spec]["ok"]

    lo, hi = lo_bytes // step, hi_bytes // step  # in steps; invariant: hi passes, lo fails
    floor = lo
    if hint is not None:
        # the budget, then down one step at a time while it passes, twice at most (the budget
        # is at most a step above the smallest heap), before any bisection
        start = max(lo + 1, -(-heap_spec(hint, bits)[1] // step))
        if not trial(start):
            lo = max(lo, start)
        else:
            hi = start
            while hi - 1 > lo and hi > start - 2 and trial(hi - 1):
                hi -= 1
            if hi - 1 > lo and hi > start - 2:
                lo = hi - 1  # the step below hi was tried and failed
    hi = max(hi, lo + 1)
    while not trial(hi):
        lo, hi = hi, hi * 2
        if hi * step > 1024 * 1024:
            raise RunFailed("the image fails even at %d bytes" % (lo * step))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if trial(mid):
            hi = mid
        else:
            lo = mid
    if lo == floor and trial(lo):
        hi = lo  # the assumed floor passes too: report it
    return _heap_of_steps(hi, bits)[0], results


def summary(image_sizes, result, moves, part_rows=()):
    """The figures of one run as a flat dict for build/mem*.json, in bytes of its binary."""

    def figure(stage, key):
        return (result.get(stage) or {}).get(key)

    info = result.get("mem_info") or {}
    return {
        "binary": result.get("binary"),
        "word_bits": (result.get("binary") or {}).get("word_bits"),
        "layout": result.get("layout", "filesystem"),
        "ok": result.get("ok"),
        "heap": result.get("heap"),
        "heap_bytes": result.get("heap_bytes"),
        "gc_heap_bytes": result.get("gc_heap_bytes"),
        "romfs_image_bytes": image_sizes.get("romfs"),
        "moves": moves,
        "players": 2,
        "observers": OBSERVERS,
        "settings": RUN_SETTINGS,
        "matches": result.get("matches"),
        "image_bytes": image_sizes["image_bytes"],
        "image_mpy_bytes": image_sizes["mpy"],
        "image_web_gz_bytes": image_sizes["web_gz"],
        "source_bytes": image_sizes["source_bytes"],
        "in_use_after_boot": figure("boot", "mem_alloc"),
        "free_after_boot": figure("boot", "mem_free"),
        "in_use_6_clients": figure("six_clients", "mem_alloc"),
        "free_6_clients": figure("six_clients", "mem_free"),
        "in_use_6_clients_no_request": figure("six_clients_log", "mem_alloc"),
        "in_use_end": figure("end", "mem_alloc"),
        "free_end": figure("end", "mem_free"),
        "largest_free_block_bytes": info.get("largest_free_block_bytes"),
        "largest_block_bytes": info.get("largest_block_bytes"),
        "mem_info": info or None,
        "gateway_heap": result.get("gateway_heap"),
        "parts_bytes": dict(part_rows),
    }


FIGURES = (
    ("in_use_after_boot", "heap in use after boot (/status)"),
    ("in_use_6_clients_no_request", "in use, 2 players + 4 observers (gateway log)"),
    ("in_use_6_clients", "in use, the same through /status"),
    ("free_6_clients", "free with 6 clients (/status)"),
    ("in_use_end", "in use at the end of the run (/status)"),
    ("free_end", "free at the end of the run (/status)"),
)


def print_figures(out, say=print):
    binary = out.get("binary") or {}
    say(
        "figures at %s, bytes of %s (%s-bit; %s):"
        % (
            heap_label(out["heap"], out["heap_bytes"]),
            binary.get("path"),
            binary.get("word_bits"),
            binary.get("version"),
        )
    )
    for key, text in FIGURES:
        if out.get(key) is not None:
            say("  %-48s %8d" % (text, out[key]))
    rows = out.get("gateway_heap") or []
    if rows:
        say("  heap in use as the clients join (gateway log; a client costs the difference):")
        before = None
        for event, used in rows:
            step = "" if before is None else "%+d" % (used - before)
            say("    %-46s %8d %7s" % (event[:46], used, step))
            before = used
    info = out.get("mem_info")
    if not info:
        say("  (no mem_info() block in the board log)")
        return
    when = (
        "after match %d (%r)" % (info["match"], info["at"])
        if info["after_a_match"]
        else "at boot (%r): no match finished in this run (the firmware prints one when a match "
        "ends)" % info["at"]
    )
    say("  mem_info() %s:" % when)
    say("  %-48s %8d" % ("largest free block", info["largest_free_block_bytes"]))
    if info["largest_block_bytes"] is not None:
        say("  %-48s %8d" % ("largest allocated block", info["largest_block_bytes"]))
    else:
        say(
            "  %-48s %8s  (mem_info's %d is a block the virtual board pinned: the ROMFS image)"
            % ("largest allocated block", "n/a", info["largest_block_bytes_in_mem_info"])
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--heap", help="one run at this heap: bytes or K (90112, 88K; 64-bit: 84wK)")
    what.add_argument(
        "--budget", action="store_true", help="one run at the layout's budget heap (hostenv)"
    )
    what.add_argument("--bisect", action="store_true", help="find the smallest passing heap")
    what.add_argument("--parts", action="store_true", help="only the resident cost per part")
    parser.add_argument("--moves", type=int, default=DEFAULT_MOVES, help="accepted moves")
    parser.add_argument(
        "--romfs",
        action="store_true",
        help="the code in a ROMFS image mounted at /rom (bytecode in place), not on the flash",
    )
    parser.add_argument(
        "--binary",
        help="the MicroPython unix port to run (default: the 32-bit one if found, else 64-bit)",
    )
    parser.add_argument(
        "--json",
        help="where the figures go (default build/mem.json, mem-romfs.json; mem-64*.json for "
        "a 64-bit binary); --heap and --budget write only when given",
    )
    parser.add_argument("--image", help="use this built image instead of building one")
    parser.add_argument(
        "--march",
        help="build the image with mpy-cross -march (MARCH): xtensawin makes the view writers' "
        "machine code unloadable on the unix port, so the board runs their Python fallback",
    )
    parser.add_argument(
        "--ruleset", help="the ruleset the board plays (settings.json's ruleset; default classic)"
    )
    parser.add_argument("--preset", help="the maze every ruleset plays (settings.json's preset)")
    args = parser.parse_args(argv)
    extra = {}
    if args.ruleset:
        extra["ruleset"] = args.ruleset
    if args.preset:
        extra["preset"] = args.preset

    try:
        binary = resolve_binary(args.binary)
    except BinaryError as err:
        print("mem_budget: error: %s" % err, file=sys.stderr)
        return 2
    if args.json is None and args.bisect:
        args.json = str(default_json(binary.word_bits, args.romfs))
    if args.heap:
        try:
            heap_spec(args.heap, binary.word_bits)
        except ValueError:
            print(
                "mem_budget: error: --heap %r: bytes, K or wK (90112, 88K)" % args.heap,
                file=sys.stderr,
            )
            return 2
    work = romfs_dir = None
    if args.image:
        image = Path(args.image)
    else:
        work = Path(tempfile.mkdtemp(prefix="mem-image-"))
        image = work / "image"
        try:
            build_image.build(image, march=args.march, log=lambda *a: None)
        except build_image.BuildError as err:
            print("mem_budget: error: %s" % err, file=sys.stderr)
            return 2
    try:
        sizes = image_bytes(image)
        print(
            "image: %d bytes (.mpy %d + gzipped client %d); boot.py + main.py %d bytes"
            % (sizes["image_bytes"], sizes["mpy"], sizes["web_gz"], sizes["source_bytes"])
        )
        romfs = None
        if args.romfs:
            romfs_dir = Path(tempfile.mkdtemp(prefix="mem-romfs-"))
            romfs = build_image.build_romfs(image, romfs_dir / "image.romfs")
            sizes["romfs"] = romfs.stat().st_size
            print("layout: ROMFS image of %d bytes at /rom (code runs in place)" % sizes["romfs"])
        else:
            print("layout: .mpy files on the flash filesystem (imports copy them to the heap)")
        rows = parts(image, romfs=romfs, binary=binary)
        print("resident cost per part, in main.py's order (bytes of this binary):")
        print_parts(rows, binary)
        if args.parts:
            return 0
        if args.heap or args.budget:
            heap = args.heap or budget_heap(binary.word_bits, args.romfs)
            spec, size = heap_spec(heap, binary.word_bits)
            res = run_once(
                image, spec, args.moves, romfs=romfs, binary=binary, settings=extra or None
            )
            print("heap %s: %s" % (heap_label(spec, size), describe(res)))
            if not res["ok"]:
                print("\n".join("    | " + line for line in res["log_tail"]))
            out = summary(sizes, res, args.moves, rows)
            print_figures(out)
            if args.json:
                Path(args.json).parent.mkdir(parents=True, exist_ok=True)
                Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
                print("figures: %s" % args.json)
            return 0 if res["ok"] else 1
        hint = budget_heap(binary.word_bits, args.romfs)
        try:
            smallest, results = bisect(
                image, args.moves, print, binary, romfs=romfs, hint=hint, settings=extra or None
            )
        except RunFailed as err:
            print("mem_budget: error: %s" % err, file=sys.stderr)
            return 1
        out = summary(sizes, results[smallest], args.moves, rows)
        out["min_heap"] = smallest
        out["min_heap_bytes"] = results[smallest]["heap_bytes"]
        out["trials"] = {
            spec: describe(res)
            for spec, res in sorted(results.items(), key=lambda kv: kv[1]["heap_bytes"])
        }
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
        print_figures(out)
        print(
            "smallest heap: %s (%d-bit binary: %s)"
            % (heap_label(smallest, out["min_heap_bytes"]), binary.word_bits, binary.path)
        )
        print("figures: %s" % args.json)
        return 0
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        if romfs_dir is not None:
            shutil.rmtree(romfs_dir, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
