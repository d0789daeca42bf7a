"""The host environment every tool and test shares: where the repository is, the heap that laptop
runs give the firmware, the memory budget, the MicroPython unix port binaries (the 64-bit one
from PyPI, and a 32-bit build: the board's word size), and ports on the loopback interface.

    python tools/hostenv.py heap           # BOARD_HEAP (the Makefile and run_host.sh read it)
    python tools/hostenv.py core-heap      # CORE_TEST_HEAP (make test-upy reads it)
    python tools/hostenv.py micropython32  # the 32-bit binary's path, or why there is none (on
                                           # stderr, exit status 1)

CPython only. Tools that import the firmware (`game`, `net`) get firmware/ on sys.path from
tools/_path.py, which also runs under MicroPython.
"""

import functools
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build"
# Host stand-ins for the board's built-in `network` and `machine` (never in a board image).
HOSTBOARD = TOOLS / "hostboard"

# The Python heap of every laptop run that plays a board: `make run`, `make test-upy`, the host
# and virtual boards of the tests, the benchmarks. An ESP32 without PSRAM has about 112 KB after
# its one growth (docs/memory.md); `w` counts 32-bit words whatever the port's word size, so this
# is 112 KB on a board and 224 KB on the 64-bit unix port.
BOARD_HEAP = "112wK"
# The heap of the gateway tests and of the latency bench's gateway figures (docs/protocol.md,
# "Gateway figures"): the firmware run from .py sources, compiled at import (the board runs the
# image's .mpy files, whose heap `make mem` measures against the budgets). 2 players + 4
# observers needed 84wK until the log's failure paths, the room's reset and the writers'
# fallback came (2026-12-03); then 96wK failed at boot, compiling the wiring's imports (a
# 2,672-byte block), so this is 104wK.
GATEWAY_HEAP = "104wK"
# The core tests under MicroPython (tools/upytest.py: `make test-upy`, test_upy_suite.py) on both
# word sizes. A test heap, not a board heap: the reference models the tests check the core
# against (tools/projector_model.py, tools/view_decoder.py) hold far more than the board's core
# does, and the decoder's cell dict of a 32x32 view needs one 9,784-byte block. On the 32-bit
# port the suite passes at 172 KB and fails at 168 KB here (a MemoryError from that block, heap
# fragmentation: ~120 KB is free at the time); a CI machine failed it at 192 KB. 256wK leaves a
# margin of about half on 32-bit (256 KB) and is plenty on 64-bit (2 MB; it needs under 128wK).
CORE_TEST_HEAP = "256wK"

# ---- The memory budget of a full room (docs/memory.md) ------------------------------------
# 2 players + 4 observers served through 2,000 accepted moves by the deployed image on a virtual
# board (tools/mem_budget.py, host_tests/memory). Measured with the 32-bit unix port (MICROPY32):
# the board's word size, so these are a board's bytes, the value given to `-X heapsize=`.
# BUDGET_* is asserted by the tests: one 2 KB step above the smallest heap `make mem` found,
# when at the smallest heap a run does not pass every time (ROMFS at 60K once failed one run in
# four, at the last request of the run), or the goal once it is met and passes every run
# (ROMFS, 56K; the filesystem, 88K). GOAL_* is the target, a strict xfail in the tests
# until it is met. NO CHANGE MAY RAISE ANY OF THESE: a change that needs more heap is
# a regression to fix, not a budget to move. Lower a budget when `make mem` finds less (and a
# goal, once met, becomes the budget).
# RAISED ONCE, against that rule, and recorded as a regression (docs/memory.md, "Where the
# heap stands"): before the match log, the party client and the rulesets the image passed at
# 88K / 58K with Microdot trimmed; with them it needs 100K / 64K (96K and 62K fail: a 376-byte
# allocation in a fragmented heap). The budgets below are what passes now, so that the tests
# guard against any further growth. Lowered again to 96K / 62K (each passed 2 runs of 2) by
# the board's Microdot Response.write and /status written in pieces (docs/memory.md, "Winning
# it back"); 94K / 60K fail. As the rule above says, the budget is one 2 KB step above the
# smallest passing heap (62K ROMFS passed with a largest free block of 240 bytes): 98K / 64K.
# Lowered to 96K / 62K: the join path's fragmentation won back (docs/memory.md, "Fragmentation
# on the join path"; 94K and 60K passed 2 runs of 2 with everything merged, 92K failed). The
# ROMFS budget is back where it was before the regression; the filesystem one is still 4 KB
# above its 92K, and the rest (~8 KB filesystem, 6 KB ROMFS above the goals) is open work.
# Lowered to 94K / 60K: messages in pieces, one scratch buffer, sha256 made ahead
# (docs/memory.md, "Messages in pieces, one scratch buffer, sha256 made ahead"; 92K and 58K
# passed 2 runs of 2 with the final code, 56K ROMFS failed in match 11).
# Lowered to 92K / 56K: fewer attribute tables and per-connection objects, short module names
# (docs/memory.md, "Short module names"): 90K passed 3 runs of 3 on the filesystem (88K fails
# every run, 4 of 4), and the ROMFS goal, 56K, passed every run since (5 of 5 on the merged
# code; 54K passes some runs and fails others), so it is the ROMFS budget.
# Lowered to 90K / 56K (docs/memory.md, "Closer to 88K"): the captive portal's probes in one
# string, the per-source limits in one list, Microdot's package __init__ and main.py's tool
# function left out of the image, idle sessions waiting on their sockets directly. The goal,
# 88K, now passes most runs but not all (a slow client's unsent bytes then find no hole in the
# fragmented heap), so the budget stays one step above it, and the strict expected failure is
# one step below the goal (FAILS_FS: 86K fails every run, as the room fills).
# Lowered to 88K, the goal (docs/memory.md, "A slow phone's rest"): the bytes a socket does not
# take are kept without a copy where nothing writes to them again, and a copy that finds no
# hole no longer ends a session (the views wait instead): 88K passed 12 serial runs of 12, and
# 6 of 6 of a first version of the change (87K and 86K fail, as the room fills), so the goal
# is met and is the budget. The step below is a figure (`make mem`), not a strict xfail: 86K
# passed once in CI (2026-12-03: 1,712 bytes free with the room), so it was a coin toss.
BUDGET_FS = 88 * 1024  # .mpy files on the filesystem (stock firmware): the goal
BUDGET_ROMFS = 56 * 1024  # the same .mpy files in a ROMFS partition (or frozen): the goal
GOAL_FS = 88 * 1024
GOAL_ROMFS = 56 * 1024  # about an ESP32's first heap (55,968 bytes of GC heap)
# The same on the 64-bit unix port (secondary figures: `w` counts 4-byte words, so 84wK is
# 172,032 bytes there); same rule: never raised.
BUDGET_FS_64 = "84wK"
BUDGET_ROMFS_64 = "64wK"
GOAL_FS_64 = "64wK"

# Where the 32-bit unix port is: this variable, else `micropython-32` on PATH or in .venv/bin.
MICROPY32_VAR = "MICROPY32"
LOOPBACK = "127.0.0.1"


def heap_bytes(spec, word_bytes=8):
    """Bytes of a `-X heapsize=` value as the unix port reads it (`w` scales 4-byte words to
    this port's words): '64wK' -> 131072 on a 64-bit port."""
    text = str(spec).strip().lower()
    scale = 1
    if text.endswith("k"):
        scale, text = 1024, text[:-1]
    elif text.endswith("m"):
        scale, text = 1024 * 1024, text[:-1]
    words = text.endswith("w")
    number = int(text[:-1] if words else text, 0) * scale
    return number * word_bytes // 4 if words else number


def find_micropython():
    """The unix port binary, or None: $MICROPY_MICROPYTHON, beside this Python, .venv, PATH."""
    override = os.environ.get("MICROPY_MICROPYTHON")
    if override:
        return override
    for candidate in (
        Path(sys.executable).parent / "micropython",
        ROOT / ".venv" / "bin" / "micropython",
    ):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("micropython")


class BinaryError(Exception):
    """A MicroPython binary that is missing or cannot run here (the message says why)."""


# What a MicroPython binary is: its path, its word size (32 or 64 bits, asked from the binary
# itself) and its version line (`micropython --version`).
Binary = namedtuple("Binary", "path word_bits version")


def _elf_class(path):
    """32 or 64 for an ELF file, else None."""
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except OSError:
        return None
    return {1: 32, 2: 64}.get(head[4]) if head[:4] == b"\x7fELF" and len(head) == 5 else None


def _elf_interpreter(path):
    """The program interpreter (dynamic loader) an ELF executable names, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF":
                return None
            bits64, order = head[4] == 2, "<" if head[5] == 1 else ">"
            if bits64:
                (phoff,) = struct.unpack_from(order + "Q", head, 32)
                entsize, count = struct.unpack_from(order + "HH", head, 54)
            else:
                (phoff,) = struct.unpack_from(order + "I", head, 28)
                entsize, count = struct.unpack_from(order + "HH", head, 42)
            for i in range(count):
                f.seek(phoff + i * entsize)
                entry = f.read(entsize)
                if struct.unpack_from(order + "I", entry, 0)[0] != 3:  # PT_INTERP
                    continue
                if bits64:
                    (offset,) = struct.unpack_from(order + "Q", entry, 8)
                    (size,) = struct.unpack_from(order + "Q", entry, 32)
                else:
                    (offset,) = struct.unpack_from(order + "I", entry, 4)
                    (size,) = struct.unpack_from(order + "I", entry, 16)
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode(errors="replace")
    except (OSError, struct.error):
        return None
    return None


def _ask(binary, *args):
    """stdout of `binary args...`; BinaryError says why it could not run."""
    try:
        done = subprocess.run(
            [binary, *args], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        if not Path(binary).exists():
            raise BinaryError("%s: no such file" % binary)
        loader = _elf_interpreter(binary)
        if loader and not Path(loader).exists():
            hint = ""
            if _elf_class(binary) == 32:
                hint = " (a 32-bit binary on Debian needs libc6-i386: apt-get install libc6-i386)"
            raise BinaryError("%s cannot run: its loader %s is missing%s" % (binary, loader, hint))
        raise BinaryError("%s cannot run (exec: no such file or directory)" % binary)
    except PermissionError:
        raise BinaryError("%s cannot run: not executable" % binary)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BinaryError("%s cannot run: %s" % (binary, err))
    if done.returncode != 0:
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise BinaryError(
            "%s cannot run (exit status %d): %s"
            % (binary, done.returncode, why[-1] if why else "no output")
        )
    return done.stdout


@functools.cache
def describe_binary(binary):
    """A Binary for this MicroPython executable: its word size is asked from the binary
    (`sys.maxsize`), never derived from this CPython. Raises BinaryError."""
    binary = str(binary)
    out = _ask(binary, "-c", "import sys; print(sys.maxsize)").split()
    if not out or not out[-1].isdigit():
        raise BinaryError("%s: not a MicroPython binary (sys.maxsize: %r)" % (binary, out))
    bits = 32 if int(out[-1]) < 2**32 else 64
    version = _ask(binary, "--version").strip().splitlines()
    return Binary(binary, bits, version[0] if version else "?")


def word_bits(binary):
    """32 or 64: the word size of this MicroPython binary (it is asked, once)."""
    return describe_binary(binary).word_bits


def locate_micropython32():
    """(path, None) for a 32-bit MicroPython unix port that runs here, or (None, why not).

    $MICROPY32 when set (nothing else is tried then), else `micropython-32` on PATH or in
    .venv/bin. The binary is run once: it must start and report 32-bit words."""
    override = os.environ.get(MICROPY32_VAR)
    if override:
        candidate, origin = override, "%s=%s" % (MICROPY32_VAR, override)
        if os.sep in override:  # tools run it from other working directories
            candidate = os.path.abspath(override)
    else:
        candidate = shutil.which("micropython-32")
        if candidate is None and (ROOT / ".venv" / "bin" / "micropython-32").is_file():
            candidate = str(ROOT / ".venv" / "bin" / "micropython-32")
        if candidate is None:
            return None, (
                "no 32-bit MicroPython: %s is not set and there is no micropython-32 on PATH or "
                'in .venv/bin (docs/memory.md, "Building the 32-bit unix port")' % MICROPY32_VAR
            )
        origin = candidate
    try:
        info = describe_binary(candidate)
    except BinaryError as err:
        return None, "no usable 32-bit MicroPython (%s): %s" % (origin, err)
    if info.word_bits != 32:
        return None, "no usable 32-bit MicroPython: %s is a %d-bit build (%s)" % (
            origin,
            info.word_bits,
            info.version,
        )
    return candidate, None


def find_micropython32():
    """The 32-bit unix port (the board's word size) if there is one that runs here, else None;
    locate_micropython32() says why not."""
    return locate_micropython32()[0]


def free_port(kind=socket.SOCK_STREAM):
    """A port on the loopback interface that is free right now for `kind` (TCP or UDP)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def serving_env(http_port, dns_port):
    """The environment that makes the firmware serve on these loopback ports (see
    net.wiring.host_overrides)."""
    return {
        "MAZE_HTTP_PORT": str(http_port),
        "MAZE_DNS_PORT": str(dns_port),
        "MAZE_BIND": LOOPBACK,
    }


class NotListening(Exception):
    """wait_port() gave up: the process ended first, or nothing listened in time."""


def wait_port(port, host=LOOPBACK, timeout=20.0, process=None):
    """Wait until something accepts TCP connections on host:port. With `process` (a Popen),
    stop as soon as it has ended. Raises NotListening."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise NotListening("the process exited (%s) before listening" % process.returncode)
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise NotListening("nothing listens on %s:%d after %gs" % (host, port, timeout))
            time.sleep(0.05)


def stop_process(process, timeout=5.0):
    """End a Popen: SIGTERM, then SIGKILL if it lingers. Safe to call twice."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)


def main(argv):
    if argv[1:] == ["heap"]:
        print(BOARD_HEAP)
        return 0
    if argv[1:] == ["goal-fs-64"]:
        print(GOAL_FS_64)
        return 0
    if argv[1:] == ["core-heap"]:
        print(CORE_TEST_HEAP)
        return 0
    if argv[1:] == ["micropython32"]:
        path, why = locate_micropython32()
        if path is None:
            print(why, file=sys.stderr)
            return 1
        print(path)
        return 0
    print("usage: hostenv.py heap | core-heap | goal-fs-64 | micropython32", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
