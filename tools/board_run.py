"""The board-run harness: the board image on a virtual board at a given heap, and its heap
figures. One place for what `make mem` (tools/mem_budget.py), `make soak` (tools/soak.py) and
`make stress` (tools/stress.py) all do before and after their clients play:

    binary = resolve_binary()                   # the 32-bit unix port if found, else 64-bit
    image, romfs = prepare_image(work, "romfs") # tools/build_image.py, and a ROMFS image
    with BoardRun(image, work / "flash", heap, binary, romfs=romfs) as board:
        board.url                               # ws://127.0.0.1:PORT/ws: the clients' socket
        board.status()                          # /status's heap figures, pinned bytes taken off
        board.alive(), board.read_log()
    match_heaps(log, bits)                      # the heap after every match, from the log

The binary: `resolve_binary()` takes the 32-bit unix port (hostenv.locate_micropython32:
$MICROPY32, or micropython-32 on PATH or in .venv/bin), the board's word size, else the 64-bit
port from PyPI and says so. The heap is given as bytes, K or K words (`heap_spec`). The flash
is a fresh folder with the image's files and a settings.json (`deploy`: what tools/deploy.py
would copy; with a ROMFS image the code folders stay out, they are at /rom). The board boots as
a reset would (tools/virtual_board.py: boot.py then main.py) serving HTTP and DNS on free
loopback ports. Heap figures are the board's own bytes after a collection, less what the
virtual board pinned outside the firmware's heap (built-in stand-ins, a ROMFS image:
virtual_board.reserved_bytes).
"""

import json
import os
import re
import shutil
import socket
import urllib.request
from pathlib import Path

import build_image
import mem_log
from hostenv import (
    BUDGET_FS,
    BUDGET_FS_64,
    BUDGET_ROMFS,
    BUDGET_ROMFS_64,
    LOOPBACK,
    BinaryError,
    describe_binary,
    find_micropython,
    free_port,
    heap_bytes,
    locate_micropython32,
    serving_env,
)
from virtual_board import VirtualBoard, reserved_bytes

# The runs' settings: the board's defaults (classic 15x15 maze, 4 observers, 20 s idle timeout,
# 30 s grace) but the shortest cooldown the settings allow and a short countdown, so 2,000
# moves take about two minutes. Memory depends on neither.
RUN_SETTINGS = {"cooldown_ms": 100, "countdown_ms": 300}

# The budget heap of each layout (filesystem, romfs) per word size, as make mem asserts it
# (hostenv, docs/memory.md): bytes on the 32-bit port, K words on the 64-bit one.
BUDGETS = {32: (BUDGET_FS, BUDGET_ROMFS), 64: (BUDGET_FS_64, BUDGET_ROMFS_64)}

# The virtual board's first line: the GC heap the firmware gets ("heapsize gives N").
_HEAPSIZE_GIVES = re.compile(r"\(heapsize gives (\d+)\)")
# Every gateway line with the heap after a collection: "game: seat 1 taken (heap used N, free N)"
_GATEWAY_HEAP = re.compile(r"^game: (.*) \(heap used (\d+), free (\d+)\)$")
# The firmware's heap report when a match ends, then micropython.mem_info()'s lines.
_STARTS = re.compile(r"^game: match (\d+) starts", re.M)
_FINISHED = re.compile(r"^mem: match (\d+) finished \(heap used (\d+), free (\d+)\)")
_MAX_FREE = re.compile(r"max free sz: (\d+)")


# ---- the binary and its heap ---------------------------------------------------------------


def resolve_binary(path=None, say=print):
    """The Binary (hostenv.describe_binary) the runs use: `path` if given, else the 32-bit unix
    port when there is one, else the 64-bit one, with a line saying the figures are 64-bit.
    Raises BinaryError."""
    if path is None:
        path, why = locate_micropython32()
        if path is None:
            path = find_micropython()
            if path is None:
                raise BinaryError("no micropython binary: run `make venv`")
            say("note: %s" % why)
            say("note: the figures below are the 64-bit unix port's, NOT a 32-bit board's")
    if os.sep in str(path):  # the board runs in its flash folder: no relative paths
        path = os.path.abspath(path)
    binary = describe_binary(path)
    say("binary: %s (%d-bit; %s)" % (binary.path, binary.word_bits, binary.version))
    return binary


def heap_spec(heap, bits):
    """(the `-X heapsize=` value, the bytes it gives) for a heap given as bytes (an int or
    '90112'), K ('88K') or K words ('84wK', 4-byte words: on a 32-bit binary the same as K).
    A 32-bit binary is given plain bytes; a 64-bit one keeps the NwK form."""
    text = str(heap).strip()
    size = heap_bytes(text, bits // 8)
    if bits == 64 and "w" in text.lower():
        return text, size
    return str(size), size


def budget_heap(bits, romfs):
    """The heap a layout is asserted to pass at on a binary of this word size."""
    return BUDGETS[bits][1 if romfs else 0]


def heap_label(spec, size):
    """'94,208 bytes (92K)', or '172,032 bytes (84wK)' for a 64-bit NwK run."""
    if not spec.isdigit():
        return "{:,} bytes ({})".format(size, spec)
    if size % 1024 == 0:
        return "{:,} bytes ({}K)".format(size, size // 1024)
    return "{:,} bytes".format(size)


# ---- image and flash ------------------------------------------------------------------------


def build(out):
    """Build the image into `out`; returns {part: bytes} as build_image reports it."""
    return build_image.build(out, log=lambda *a: None)


def prepare_image(work, layout="filesystem"):
    """(image, romfs): the image built into work/image (unless there already), and for the
    "romfs" layout its code in work/image.romfs (else None)."""
    work = Path(work)
    image = work / "image"
    if not image.exists():
        build(image)
    if layout != "romfs":
        return image, None
    romfs = work / "image.romfs"
    if not romfs.exists():
        build_image.build_romfs(image, romfs)
    return image, romfs


def image_bytes(image):
    """Bytes of the compiled code (.mpy) plus the gzipped client: what the flash must hold
    besides boot.py and main.py."""
    image = Path(image)
    mpy = sum(p.stat().st_size for p in image.rglob("*.mpy"))
    web = sum(p.stat().st_size for p in (image / "web").rglob("*") if p.is_file())
    source = sum((image / name).stat().st_size for name in build_image.SOURCE_FILES)
    return {"mpy": mpy, "web_gz": web, "image_bytes": mpy + web, "source_bytes": source}


def deploy(image, flash, settings=None, romfs=False):
    """Copy the image's files into the flash folder (what deploy.py would copy), and settings
    (RUN_SETTINGS by default). With romfs the code folders stay out: they are in the ROMFS
    image."""
    flash = Path(flash)
    for rel in build_image.image_files(Path(image)):
        if romfs and build_image.in_romfs(rel):
            continue
        dest = flash / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(image) / rel, dest)
    settings = RUN_SETTINGS if settings is None else settings
    (flash / "settings.json").write_text(json.dumps(settings))


# ---- the running board ----------------------------------------------------------------------


def get_status(port):
    """The board's /status as a dict (main.py collects garbage before reading the heap)."""
    with urllib.request.urlopen("http://%s:%d/status" % (LOOPBACK, port), timeout=10) as resp:
        return json.loads(resp.read())


def memory_figures(status, reserved=0):
    """The heap figures of a /status answer; `reserved` (what the virtual board pinned outside
    the firmware's heap: built-in stand-ins, a ROMFS image) is taken off the bytes in use."""
    used = status.get("mem_alloc")
    return {
        "mem_alloc": used - reserved if used is not None else None,
        "mem_free": status.get("mem_free"),
    }


class BoardRun:
    """The image deployed to a fresh flash folder and booted on a virtual board at `heap`
    (a `-X heapsize=` value), serving on free loopback ports. A context manager; boot() and
    stop() may also be called by hand (a board booted again gets a new flash folder)."""

    def __init__(self, image, flash, heap, binary, romfs=None, settings=None):
        self.image = Path(image)
        self.flash = Path(flash)
        self.heap = heap
        self.binary = getattr(binary, "path", binary)
        self.romfs = romfs
        self.settings = settings
        self.vb = None
        self.http_port = self.dns_port = None
        self.url = self.target = None
        self.reserved = 0
        self.gc_heap_bytes = None

    def __enter__(self):
        self.boot()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def boot(self, timeout=30):
        """Deploy, boot, and wait until the board listens; raises VirtualBoardError."""
        deploy(self.image, self.flash, self.settings, romfs=bool(self.romfs))
        self.vb = VirtualBoard(
            self.flash, heapsize=self.heap, romfs=self.romfs, micropython=self.binary
        )
        self.vb.start()
        self.http_port = free_port(socket.SOCK_STREAM)
        self.dns_port = free_port(socket.SOCK_DGRAM)
        self.vb.boot(serving_env(self.http_port, self.dns_port))
        self.url = "ws://%s:%d/ws" % (LOOPBACK, self.http_port)
        self.target = "%s:%d:%d" % (LOOPBACK, self.http_port, self.dns_port)
        self.vb.wait_listening(self.http_port, timeout=timeout)
        log = self.read_log()
        self.reserved = reserved_bytes(log)
        gives = _HEAPSIZE_GIVES.search(log)
        self.gc_heap_bytes = int(gives.group(1)) if gives else None
        return self

    @property
    def process(self):
        return self.vb.process if self.vb is not None else None

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def read_log(self):
        return self.vb.read_log() if self.vb is not None else ""

    def status(self):
        """The heap figures of /status now, the pinned bytes taken off."""
        return memory_figures(get_status(self.http_port), self.reserved)

    def stop(self):
        if self.vb is not None:
            self.vb.stop()
            self.vb = None


# ---- heap figures from the board's log ------------------------------------------------------


def log_checks(log):
    """What every run asserts of a board's log: MemoryErrors (the last five lines), a
    traceback."""
    return {
        "memory_error": "MemoryError" in log,
        "memory_errors": [line for line in log.splitlines() if "MemoryError" in line][-5:],
        "traceback": "Traceback" in log,
    }


def gateway_heap(log, reserved=0):
    """[(event, heap in use)] of the gateway's log lines up to the first match: the game
    ready, then each client joining, so the differences are the cost of each client."""
    rows = []
    for line in log.splitlines():
        if line.startswith("game: match "):
            break
        found = _GATEWAY_HEAP.match(line)
        if found:
            rows.append((found.group(1), int(found.group(2)) - reserved))
    return rows


def match_heaps(log, bits):
    """Matches started, and per finished match: heap in use, free, largest free block (bytes),
    read from the board's log; the virtual board's pinned bytes taken off."""
    reserved = reserved_bytes(log)
    block = mem_log.gc_block_bytes(bits)  # mem_info counts blocks
    started = sorted({int(n) for n in _STARTS.findall(log)})
    finished = {}
    lines = log.splitlines()
    for k, line in enumerate(lines):
        found = _FINISHED.match(line)
        if not found:
            continue
        n, used, free = (int(x) for x in found.groups())
        largest = None
        for after in lines[k + 1 : k + 6]:  # mem_info's lines follow at once
            blocks = _MAX_FREE.search(after)
            if blocks:
                largest = int(blocks.group(1)) * block
                break
        finished[n] = {"used": used - reserved, "free": free, "largest_free": largest}
    return started, finished
