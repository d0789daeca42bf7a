"""Bytes an HTTP request makes the board allocate, per stage (docs/memory.md, "Less per HTTP
request").

Builds the board image (or takes one), wires it on a virtual board as main.py does (nothing
served: no socket), and runs a few typical requests through the server's own `_open` with a
stream stand-in, on the MicroPython unix port (the 32-bit one if there is one):

- `live`: the bytes in use at /status's own collection (its `gc.collect()`, wrapped to read
  `gc.mem_alloc()` right after), less those in use before the request: what the request keeps
  while its answer is made, the figure that decides whether /status fits a full room;
- `create`, `+wait_for`, `dispatch`, `write`: what each stage allocates with the collector off
  (`Request.create` alone, then inside the server's `wait_for_ms`; the dispatch with the
  handler; `Response.write` to a stream whose `awrite` allocates nothing). The dispatch of
  /status includes its collection, so it counts what its handler allocates after it.

    MICROPY32=... python tools/dev/request_alloc.py [--image DIR]
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import _path  # noqa: F401  (tools/ and firmware/ on sys.path)
import board_run
import build_image
from virtual_board import VirtualBoard

# Request lines and headers as clients send them (the host is replaced by the board's).
REQUESTS = (
    (
        "status (urllib)",
        b"GET /status HTTP/1.1|Accept-Encoding: identity|Host: HOST|"
        b"User-Agent: Python-urllib/3.11|Connection: close",
    ),
    (
        "status (phone)",
        b"GET /status HTTP/1.1|Host: HOST|Connection: keep-alive|User-Agent: Mozilla/5.0 (Linux;"
        b" Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile"
        b" Safari/537.36|Accept: */*|Referer: http://HOST/|Accept-Encoding: gzip, deflate|"
        b"Accept-Language: en-US,en;q=0.9",
    ),
    (
        "probe (Android)",
        b"GET /generate_204 HTTP/1.1|Host: connectivitycheck.gstatic.com|User-Agent: Dalvik/2.1.0"
        b" (Linux; U; Android 13; Pixel 6 Build/TQ3A.230805.001)|Connection: Keep-Alive|"
        b"Accept-Encoding: gzip",
    ),
    (
        "redirect",
        b"GET / HTTP/1.1|Host: example.com|User-Agent: x",
    ),
)

# Run on the virtual board after its prologue. NAMES maps the firmware's and Microdot's names
# to the image's short ones, and MODULES their dotted module names to the image's flat ones (the
# build's renaming report).
_SCRIPT = r"""
import gc, asyncio, sys
import main

def N(name):
    return NAMES.get(name, name)

def M(name):  # a module by its dotted name (flat, with a short name, in a short-named image)
    name = MODULES.get(name, name)
    __import__(name)
    return sys.modules[name]

microdot = M('microdot.microdot')
portal = M('net.portal')
wait_for_ms = M('net.compat').wait_for_ms

board = M('net.wiring').wire()
app = getattr(board, N('app'))
server = getattr(board, N('server'))
Request = getattr(microdot, N('Request'))

class Stream:
    def __init__(self, lines):
        self.lines = lines
        self.i = 0
        self.s = self
    async def readline(self):
        self.i += 1
        if self.i <= len(self.lines):
            return bytes(self.lines[self.i - 1])  # a new object, as a socket's readline
        return b''
    async def readexactly(self, n):
        return b''
    def awrite(self, b):
        return NOTHING
    def close(self):
        pass

class Nothing:
    def __iter__(self):
        return self
    def __next__(self):
        raise StopIteration

NOTHING = Nothing()
LIVE = [None]

class Gc:  # portal's gc: records what is in use at /status's own collection
    def collect():
        gc.collect()
        LIVE[0] = gc.mem_alloc()
    mem_free = gc.mem_free
    mem_alloc = gc.mem_alloc

portal.gc = Gc

async def quiet():
    await asyncio.sleep_ms(0)
    await asyncio.sleep_ms(0)
    gc.collect()
    gc.collect()

async def measure(name, lines):
    live = None
    for _ in range(3):  # the last of three (the first ones intern names, fill caches)
        stream = Stream(lines)
        await quiet()
        LIVE[0] = None
        before = gc.mem_alloc()
        await getattr(server, N('_open'))(stream, ('10.0.0.2', 5000))
        live = None if LIVE[0] is None else LIVE[0] - before
    stages = []
    for timed in (False, True):
        stream = Stream(lines)
        await quiet()
        gc.disable()
        before = gc.mem_alloc()
        create = getattr(Request, N('create'))(app, stream, stream, ('10.0.0.2', 5000))
        req = await (wait_for_ms(create, 5000) if timed else create)
        create = None
        stages.append(gc.mem_alloc() - before)
        gc.enable()
    await quiet()
    gc.disable()
    before = gc.mem_alloc()
    res = await getattr(app, N('dispatch_request'))(req)
    stages.append(gc.mem_alloc() - before)
    before = gc.mem_alloc()
    await getattr(res, N('write'))(stream)
    stages.append(gc.mem_alloc() - before)
    gc.enable()
    print('request|%s|%s|%d|%d|%d|%d' % ((name, live) + tuple(stages)))

async def run():
    for name, lines in REQUESTS:
        await measure(name, lines)

asyncio.run(run())
"""


def renamed(image):
    """{name: short name} from the build's renaming report beside the image."""
    names = {}
    report = Path(image).with_name(Path(image).name + ".names.txt")
    for line in report.read_text().splitlines():
        words = line.split()
        if len(words) == 3 and words[0] in ("attribute", "global"):
            names.setdefault(words[2], words[1])
    return names


def measure(image, binary=None):
    """[(request, live bytes or None, create, create+wait_for, dispatch, write)]."""
    binary = board_run.resolve_binary(binary, say=lambda *a: None)
    work = Path(tempfile.mkdtemp(prefix="request-alloc-"))
    try:
        host = "127.0.0.1:8080"
        settings = dict(board_run.RUN_SETTINGS, http_port=8080)
        board_run.deploy(image, work / "flash", settings)
        requests = [
            (name, [line + b"\r\n" for line in text.replace(b"HOST", host.encode()).split(b"|")])
            for name, text in REQUESTS
        ]
        requests = [(name, lines + [b"\r\n"]) for name, lines in requests]
        script = "NAMES = %r\nMODULES = %r\nREQUESTS = %r\n%s" % (
            renamed(image),
            build_image.image_modules(image),
            requests,
            _SCRIPT,
        )
        board = VirtualBoard(work / "flash", heapsize="1024K", micropython=binary.path)
        with board:
            process = board.boot(program=script)
            process.wait(timeout=120)
            out = board.read_log()
        rows = []
        for line in out.splitlines():
            if line.startswith("request|"):
                _, name, live, *stages = line.split("|")
                rows.append((name, None if live == "None" else int(live), *map(int, stages)))
        if process.returncode or len(rows) != len(REQUESTS):
            raise RuntimeError("the measuring script failed:\n" + out[-2000:])
        return binary, rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", help="a built image (default: build one)")
    parser.add_argument(
        "--binary", help="the MicroPython unix port (default as make mem: the 32-bit one if found)"
    )
    args = parser.parse_args(argv)
    work = None
    try:
        image = args.image
        if image is None:
            work = Path(tempfile.mkdtemp(prefix="request-alloc-image-"))
            image = work / "image"
            board_run.build(image)
        binary, rows = measure(image, args.binary)
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    print("binary: %s (%d-bit)" % (binary.path, binary.word_bits))
    head = ("request", "live", "create", "+wait_for", "dispatch", "write")
    print("%-18s %7s %7s %10s %9s %7s" % head)
    for name, live, *stages in rows:
        shown = "-" if live is None else live
        print("%-18s %7s %7d %10d %9d %7d" % ((name, shown) + tuple(stages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
