"""The host environment every tool and test shares: where the repository is, the heap that laptop
runs give the firmware, the MicroPython unix port binary, and ports on the loopback interface.

    python tools/hostenv.py heap     # prints BOARD_HEAP (the Makefile and run_host.sh read it)

CPython only. Tools that import the firmware (`game`, `net`) get firmware/ on sys.path from
tools/_path.py, which also runs under MicroPython.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
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
# "Gateway figures"): 2 players + 4 observers need 84wK with the firmware run from .py
# sources, and this leaves a margin.
GATEWAY_HEAP = "96wK"
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
    print("usage: hostenv.py heap", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
