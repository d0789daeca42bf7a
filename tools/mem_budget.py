"""Memory budget of the deployed board image: does it serve a full room at a given heap?

One run builds the image (tools/build_image.py), copies it into a fresh virtual-board flash
folder with a settings.json, boots it as a reset would (tools/virtual_board.py: boot.py then
main.py under the MicroPython unix port with `-X heapsize=NwK`), connects 2 players and 4
observers with real WebSocket clients, readies up and plays a scripted match of 2,000 accepted
moves (rematches included) while the observers keep receiving views. It passes when the process
is still alive, its log holds no MemoryError and no traceback, every move count was reached and,
at the end, every client still answers a ping and every observer holds the final view.

    python tools/mem_budget.py --heap 64wK          # one run, exit status 0 if it passes
    python tools/mem_budget.py --bisect             # smallest passing heap -> build/mem.json
    python tools/mem_budget.py --bisect --romfs     # the same with the code in a ROMFS image
                                                    # -> build/mem-romfs.json

Two layouts of the same .mpy files: on the filesystem (what `make deploy` copies to a stock
board: every import copies its bytecode into the heap) and in a ROMFS partition (`make deploy
ROMFS=1` on firmware with one: the bytecode runs in place from flash). The virtual board
mounts the ROMFS image at /rom with the unix port's own VfsRom and pins the image's bytes,
like the stand-ins of the built-in modules, outside the heap the run is given
(tools/virtual_board.py); those reserved bytes are subtracted from every "in use" figure.

Heap figures: `-X heapsize=NwK` gives N K machine words scaled to 32-bit sizes, so the unix
port's 64-bit heap is twice the bytes a 32-bit board (ESP32) would have; the figures printed
are the board's own (/status, after a collection) in unix bytes and halved as "32-bit equiv".

The players (tools/bots.py, FogOfWar) know only their own square (radius 3): each keeps the
cells and objects it has seen this match, walks to its own key once seen, then to its own exit
and out; otherwise it explores the nearest unseen cell (random among equals). Opponent keys
picked up on the way are dropped at once. A finished match is followed by a rematch, so
several mazes are generated.
"""

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import build_image
from bots import DIRS, FogOfWar
from hostenv import BUILD, LOOPBACK, free_port, serving_env
from virtual_board import VirtualBoard, VirtualBoardError, reserved_bytes
from ws_game_client import WsGameClient

DEFAULT_JSON = BUILD / "mem.json"
DEFAULT_ROMFS_JSON = BUILD / "mem-romfs.json"
DEFAULT_MOVES = 2000
OBSERVERS = 4
STEP_WK = 4  # bisection granularity (K words)
BISECT_LO_WK = 32  # assumed too small (checked anyway when it is the answer's neighbour)
BISECT_HI_WK = 128  # the ESP32 heap after one growth is ~112 KB; doubled if even this fails

# Settings of the run: the board defaults (classic 15x15 maze, 4 observers, 20 s idle timeout)
# except the shortest cooldown the settings allow and a short countdown, so 2,000 moves take
# about two minutes. Memory does not depend on either.
RUN_SETTINGS = {"cooldown_ms": 100, "countdown_ms": 300}

HEARTBEAT_S = 3.0  # pings from every client: well inside the 20 s idle timeout
REPLY_TIMEOUT_S = 10.0  # an intent without an answer in this long fails the run
STALL_S = 30.0  # no accepted move for this long fails the run


_JOINED_4 = re.compile(r"observer joined \(4 watching\) \(heap used (\d+), free (\d+)\)")


class RunFailed(Exception):
    pass


# ---- image and flash ------------------------------------------------------------------------


def build(out):
    """Build the image into `out`; returns {part: bytes} as build_image reports it."""
    return build_image.build(out, log=lambda *a: None)


def image_bytes(image):
    """Bytes of the compiled code (.mpy) plus the gzipped client: what the flash must hold
    besides boot.py and main.py."""
    image = Path(image)
    mpy = sum(p.stat().st_size for p in image.rglob("*.mpy"))
    web = sum(p.stat().st_size for p in (image / "web").rglob("*") if p.is_file())
    source = sum((image / name).stat().st_size for name in build_image.SOURCE_FILES)
    return {"mpy": mpy, "web_gz": web, "image_bytes": mpy + web, "source_bytes": source}


def deploy(image, flash, settings, romfs=False):
    """Copy the image's files into the flash folder (what deploy.py would copy), and settings.
    With romfs the code folders stay out: they are in the ROMFS image."""
    flash = Path(flash)
    for rel in build_image.image_files(Path(image)):
        if romfs and build_image.in_romfs(rel):
            continue
        dest = flash / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(image) / rel, dest)
    (flash / "settings.json").write_text(json.dumps(settings))


def get_status(port):
    """The board's /status as a dict (main.py collects garbage before reading the heap)."""
    with urllib.request.urlopen("http://%s:%d/status" % (LOOPBACK, port), timeout=10) as resp:
        return json.loads(resp.read())


# ---- clients --------------------------------------------------------------------------------


class Client(WsGameClient):
    """One phone (the shared protocol client); players also map what they see this match
    (bots.FogOfWar)."""

    def __init__(self, url, name, role):
        super().__init__(url, name, HEARTBEAT_S, open_timeout=10, reply_timeout=REPLY_TIMEOUT_S)
        self.role = role
        self.refusals = {}  # err code -> count (moves only)
        self.acks = 0  # accepted moves
        self.match = 0  # +1 at every countdown (a new maze)
        self.fog = FogOfWar()

    @property
    def seat(self):
        return self.welcome["seat"] if self.welcome is not None else 0

    def on_message(self, msg):
        if msg.get("t") == "ev" and msg.get("e") == "phase" and msg.get("ph") == "countdown":
            self.match += 1
            self.fog.forget()

    def on_view(self, view):
        if self.role == "play":
            self.fog.see(view)

    def timeout_error(self, what, timeout):
        return RunFailed("%s: no %s within %.0f s" % (self.name, what, timeout))

    def closed_error(self, what):
        return RunFailed("%s closed (%s) waiting for %s" % (self.name, self.close_code, what))

    async def join(self):
        return await super().join(self.role, name=self.name)


# ---- the players ----------------------------------------------------------------------------


async def play(client, tally, target, cooldown_s, rng):
    """Move until the room has made `target` accepted moves; rematch after every finish."""
    asked_for = 0
    while tally["moves"] < target:
        st = client.view["st"]
        phase = client.view["ph"]
        if phase == "finished":
            if asked_for != client.match:
                asked_for = client.match
                reply = await client.intent("rematch")
                if reply["t"] != "ack":
                    raise RunFailed("%s: rematch refused: %s" % (client.name, reply))
            await asyncio.sleep(0.01)
            continue
        if phase != "active" or st["xd"]:
            await asyncio.sleep(0.01)  # countdown, waiting, or out and the window still open
            continue
        if st["k"] == 3 - client.seat:
            reply = await client.intent("drop")  # the opponent's key: leave it for its owner
            if reply["t"] == "ack":
                await client.until(
                    lambda: client.view["st"]["k"] == 0 or client.view["ph"] != "active",
                    REPLY_TIMEOUT_S,
                    "key dropped",
                )
            continue
        d = client.fog.choose(client.view, client.seat, rng)
        if d is None:
            await asyncio.sleep(0.01)
            continue
        seen = client.view_count
        reply = await client.intent("move", d=DIRS[d])
        if reply["t"] == "ack":
            client.acks += 1
            tally["moves"] += 1
            tally["last_move"] = time.monotonic()
            sent = time.monotonic()
            await client.until(
                lambda seen=seen: client.view_count > seen, REPLY_TIMEOUT_S, "view after a move"
            )
            left = cooldown_s - (time.monotonic() - sent)
            if left > 0:
                await asyncio.sleep(left)
        else:
            code = reply.get("code", "?")
            client.refusals[code] = client.refusals.get(code, 0) + 1
            if code not in ("COOLDOWN", "PHASE", "COUNTDOWN", "EXITED"):
                # WALL and the like: the map was stale (a view was skipped); wait for a newer one
                await client.until(lambda seen=seen: client.view_count > seen, 2.0, "a newer view")
            else:
                await asyncio.sleep(0.02)


# ---- one run --------------------------------------------------------------------------------


def _memory_figures(status, reserved=0):
    """The heap figures of a /status answer; `reserved` (what the virtual board pinned outside
    the firmware's heap: built-in stand-ins, a ROMFS image) is taken off the bytes in use."""
    used = status.get("mem_alloc")
    return {
        "mem_alloc": used - reserved if used is not None else None,
        "mem_free": status.get("mem_free"),
    }


async def _scenario(board, http_port, moves, cooldown_s, result, say, seed):
    url = "ws://%s:%d/ws" % (LOOPBACK, http_port)
    reserved = result.get("reserved", 0)
    rng = random.Random(seed)
    clients = []
    watchdog = None
    try:
        p1 = await Client(url, "p1", "play").connect()
        clients.append(p1)
        await p1.join()
        p2 = await Client(url, "p2", "play").connect()
        clients.append(p2)
        await p2.join()
        for i in range(OBSERVERS):
            obs = await Client(url, "obs%d" % (i + 1), "watch").connect()
            clients.append(obs)
            await obs.join()
        result["stage"] = "6 clients joined"
        await asyncio.sleep(0.5)  # let the writers settle before measuring
        # The gateway logs the heap after a collection as the 4th observer joins: the room
        # with no HTTP request in flight (the /status figures below include that request).
        found = _JOINED_4.findall(board.read_log())
        if found:
            used, free = found[-1]
            result["six_clients_log"] = _memory_figures(
                {"mem_alloc": int(used), "mem_free": int(free)}, reserved
            )
        status = await asyncio.to_thread(get_status, http_port)
        result["six_clients"] = figures = _memory_figures(status, reserved)
        say(
            "  6 clients: heap in use %d, free %d bytes (unix)"
            % (figures["mem_alloc"], figures["mem_free"])
        )
        for player in (p1, p2):
            reply = await player.intent("ready")
            if reply["t"] != "ack":
                raise RunFailed("%s: ready refused: %s" % (player.name, reply))
        result["stage"] = "playing"
        tally = {"moves": 0, "last_move": time.monotonic()}

        async def guard():
            while True:
                await asyncio.sleep(0.5)
                if board.process.poll() is not None:
                    raise RunFailed("the board process ended (%s)" % board.process.returncode)
                if "MemoryError" in board.read_log():
                    raise RunFailed("MemoryError in the board log")
                if time.monotonic() - tally["last_move"] > STALL_S:
                    raise RunFailed("no accepted move for %.0f s" % STALL_S)

        watchdog = asyncio.create_task(guard())
        players = asyncio.gather(
            play(p1, tally, moves, cooldown_s, random.Random(rng.random())),
            play(p2, tally, moves, cooldown_s, random.Random(rng.random())),
        )
        done, _ = await asyncio.wait({watchdog, players}, return_when=asyncio.FIRST_COMPLETED)
        if watchdog in done:
            players.cancel()
            try:
                await players
            except (asyncio.CancelledError, RunFailed):
                pass
            watchdog.result()  # raises the reason
        players.result()
        result["moves"] = tally["moves"]
        result["stage"] = "moves done"
        # Everyone still served: a pong for each client, then every observer on the final state.
        for client in clients:
            await client.ping()
        final = max(p1.view["s"], p2.view["s"])
        for obs in clients[2:]:
            await obs.until(
                lambda o=obs: o.view["s"] >= final and o.match == p1.match,
                REPLY_TIMEOUT_S,
                "the final view",
            )
        status = await asyncio.to_thread(get_status, http_port)
        result["end"] = _memory_figures(status, reserved)
        result["stage"] = "done"
    finally:
        if watchdog is not None:
            watchdog.cancel()
        result["acks"] = {c.name: c.acks for c in clients[:2]}
        result["refusals"] = {c.name: c.refusals for c in clients[:2]}
        result["views"] = {c.name: c.view_count for c in clients}
        result["matches"] = max((c.match for c in clients), default=0)
        for client in clients:
            await client.close()


def run_once(image, heap_wk, moves=DEFAULT_MOVES, say=print, seed=1, settings=None, romfs=None):
    """Boot the image at `heap_wk` K words and play; returns a result dict (`ok` says it all).
    With `romfs` (a ROMFS image of the image's code) the code runs from /rom instead."""
    heap = "%dwK" % heap_wk
    result = {"heap_wK": heap_wk, "ok": False, "stage": "boot", "moves": 0, "target": moves}
    result["layout"] = "romfs" if romfs else "filesystem"
    run_settings = dict(RUN_SETTINGS)
    run_settings.update(settings or {})
    cooldown_s = run_settings["cooldown_ms"] / 1000 + 0.005
    work = Path(tempfile.mkdtemp(prefix="mem-budget-"))
    try:
        deploy(image, work / "flash", run_settings, romfs=bool(romfs))
        with VirtualBoard(work / "flash", heapsize=heap, romfs=romfs) as board:
            http_port = free_port(socket.SOCK_STREAM)
            board.boot(serving_env(http_port, free_port(socket.SOCK_DGRAM)))
            try:
                board.wait_listening(http_port, timeout=30)
                result["reserved"] = reserved = reserved_bytes(board.read_log())
                status = get_status(http_port)
                result["boot"] = figures = _memory_figures(status, reserved)
                result["stage"] = "booted"
                say(
                    "  booted: heap in use %d, free %d bytes (unix)"
                    % (figures["mem_alloc"], figures["mem_free"])
                )
                asyncio.run(
                    asyncio.wait_for(
                        _scenario(board, http_port, moves, cooldown_s, result, say, seed),
                        timeout=60 + moves * 0.5,
                    )
                )
            except (
                RunFailed,
                VirtualBoardError,
                OSError,
                asyncio.TimeoutError,
                TimeoutError,
            ) as err:
                result["error"] = "%s: %s" % (type(err).__name__, err)
            except Exception as err:  # websockets' own errors: the board refused or dropped us
                result["error"] = "%s: %s" % (type(err).__name__, err)
            log = board.read_log()
            alive = board.process is not None and board.process.poll() is None
        result["alive"] = alive
        result["memory_error"] = "MemoryError" in log
        result["traceback"] = "Traceback" in log
        result["boot_log"] = [
            line for line in log.splitlines() if line.startswith(("mem", "code", "vboard"))
        ]
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
    finally:
        shutil.rmtree(work, ignore_errors=True)


def describe(result):
    if result["ok"]:
        return "pass: %d moves (%s), %d matches" % (
            result["moves"],
            ", ".join("%s %d" % kv for kv in sorted(result["acks"].items())),
            result["matches"],
        )
    why = result.get("error") or ("MemoryError" if result.get("memory_error") else "?")
    return "FAIL at %s: %s" % (result["stage"], why)


# ---- resident cost per part ----------------------------------------------------------------

# Run on the virtual board in place of boot.py and main.py, after the same prologue (the
# built-in stand-ins, and a ROMFS image, outside the heap): imports the image's main.py and
# calls its wire() with a step that collects and prints the bytes that stayed resident since
# the step before ("part <name> <bytes>"); then the qstr pool of qstr_info().
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
_board = main.wire(_part)
micropython.qstr_info()
"""


def parts(image, settings=None, romfs=None):
    """[(part, unix bytes)] resident after each step of main.py's wiring (main.wire()), plus
    the qstr pool total (already counted inside the parts: every module interns its names).
    With `romfs` the code is imported from that ROMFS image at /rom."""
    work = Path(tempfile.mkdtemp(prefix="mem-parts-"))
    try:
        flash = work / "flash"
        deploy(image, flash, settings or RUN_SETTINGS, romfs=bool(romfs))
        with VirtualBoard(flash, heapsize="1wM", romfs=romfs) as board:
            process = board.boot(program=_PARTS_SCRIPT)
            process.wait(timeout=60)
            out = board.read_log()
        if process.returncode != 0:
            raise RunFailed("parts script failed: " + out[-500:])
        rows = []
        for line in out.splitlines():
            if line.startswith("part "):
                name, _, size = line[5:].rpartition(" ")
                rows.append((name, int(size)))
        found = re.search(r"n_qstr=(\d+).*n_total_bytes=(\d+)", out)
        if found:
            rows.append(("(qstr pool: %s names)" % found.group(1), int(found.group(2))))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_parts(rows, say=print):
    scale = 32 / word_bits()
    say("  %-58s %9s %9s" % ("part", "unix B", "~32-bit B"))
    for name, size in rows:
        say("  %-58s %9d %9d" % (name, size, int(size * scale)))


# ---- bisection ------------------------------------------------------------------------------


def bisect(image, moves, say, lo=BISECT_LO_WK, hi=BISECT_HI_WK, romfs=None):
    """Smallest heap (multiple of STEP_WK K words) that passes; returns (wK, results by wK)."""
    results = {}

    def trial(wk):
        say("heap %dwK ..." % wk)
        res = run_once(image, wk, moves, say, romfs=romfs)
        say("heap %dwK: %s" % (wk, describe(res)))
        if not res["ok"]:
            for line in res["log_tail"][-6:]:
                say("    | " + line)
        results[wk] = res
        return res["ok"]

    while not trial(hi):
        lo, hi = hi, hi * 2
        if hi > 1024:
            raise RunFailed("the image fails even at %dwK" % lo)
    # invariant: hi passes; lo is assumed to fail until checked
    lo_k, hi_k = lo // STEP_WK, hi // STEP_WK
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        if trial(mid * STEP_WK):
            hi_k = mid
        else:
            lo_k = mid
    if lo_k * STEP_WK == lo and lo not in results and trial(lo):
        hi_k = lo_k  # the assumed floor passes too: report it
    return hi_k * STEP_WK, results


def word_bits():
    """Width of the unix port's words (64 on x86-64): its heap bytes are 64/32 of a board's."""
    return 64 if sys.maxsize > 2**32 else 32


def summary(image_sizes, heap_wk, result, moves, part_rows=()):
    """The figures of one passing run (at `heap_wk`) as a flat dict for build/mem.json."""
    scale = 32 / word_bits()

    def figure(stage, key):
        return (result.get(stage) or {}).get(key)

    out = {
        "layout": result.get("layout", "filesystem"),
        "romfs_image_bytes": image_sizes.get("romfs"),
        "min_heap_wK": heap_wk,
        "heap_bytes_unix": heap_wk * 1024 * word_bits() // 32 if heap_wk else None,
        "unix_word_bits": word_bits(),
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
        "free_after_boot_6_clients": figure("six_clients", "mem_free"),
        "in_use_6_clients_no_request": figure("six_clients_log", "mem_alloc"),
        "in_use_end": figure("end", "mem_alloc"),
        "free_end": figure("end", "mem_free"),
    }
    for key in list(out):
        if key.startswith(("free_", "in_use_")) and out[key] is not None:
            out[key + "_32bit_equiv"] = int(out[key] * scale)
    out["parts_unix_bytes"] = dict(part_rows)
    return out


def print_figures(out, say=print):
    scale = 32 / word_bits()
    say("figures (unix %d-bit bytes, ~32-bit equivalent = x%.1f):" % (word_bits(), scale))
    for key in (
        "in_use_after_boot",
        "in_use_6_clients_no_request",
        "in_use_6_clients",
        "free_after_boot_6_clients",
        "in_use_end",
        "free_end",
    ):
        if out.get(key) is not None:
            say("  %-30s %8d  (~%d)" % (key, out[key], out[key + "_32bit_equiv"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--heap", help="one run at this heap, e.g. 64wK")
    what.add_argument("--bisect", action="store_true", help="find the smallest passing heap")
    what.add_argument("--parts", action="store_true", help="only the resident cost per part")
    parser.add_argument("--moves", type=int, default=DEFAULT_MOVES, help="accepted moves")
    parser.add_argument(
        "--romfs",
        action="store_true",
        help="the code in a ROMFS image mounted at /rom (bytecode in place), not on the flash",
    )
    parser.add_argument(
        "--json", help="where --bisect writes (build/mem.json, with --romfs build/mem-romfs.json)"
    )
    parser.add_argument("--image", help="use this built image instead of building one")
    args = parser.parse_args(argv)
    if args.json is None:
        args.json = str(DEFAULT_ROMFS_JSON if args.romfs else DEFAULT_JSON)

    work = romfs_dir = None
    if args.image:
        image = Path(args.image)
    else:
        work = Path(tempfile.mkdtemp(prefix="mem-image-"))
        image = work / "image"
        try:
            build(image)
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
        rows = parts(image, romfs=romfs)
        print("resident cost per part, in main.py's order:")
        print_parts(rows)
        if args.parts:
            return 0
        if args.heap:
            wk = int(args.heap.lower().rstrip("k").rstrip("w"))
            res = run_once(image, wk, args.moves, romfs=romfs)
            print("heap %dwK: %s" % (wk, describe(res)))
            if not res["ok"]:
                print("\n".join("    | " + line for line in res["log_tail"]))
            print_figures(summary(sizes, wk, res, args.moves))
            return 0 if res["ok"] else 1
        try:
            min_wk, results = bisect(image, args.moves, print, romfs=romfs)
        except RunFailed as err:
            print("mem_budget: error: %s" % err, file=sys.stderr)
            return 1
        out = summary(sizes, min_wk, results[min_wk], args.moves, rows)
        out["trials"] = {"%dwK" % k: describe(v) for k, v in sorted(results.items())}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
        print_figures(out)
        print(
            "smallest heap: %dwK (%d bytes on this %d-bit unix port, %d KB on a 32-bit board)"
            % (min_wk, out["heap_bytes_unix"], word_bits(), min_wk)
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
