#!/bin/sh
# Run the firmware on this machine under the MicroPython unix port: a "host board".
# A directory plays the flash root (settings.json, web/, lib/microdot as .mpy like the board);
# tools/hostboard provides the `network` and `machine` stand-ins, never uploaded to a board.
# The firmware itself runs unchanged from firmware/ (on MICROPYPATH).
#
# Environment, all optional:
#   MAZE_HTTP_PORT, MAZE_DNS_PORT  ports (host defaults 8080 and 5353; the board uses 80, 53)
#   MAZE_BIND                      listening address (host default 127.0.0.1; `make run LAN=1`
#                                  gives 0.0.0.0: phones on this network can join, and the
#                                  game's address is this machine's LAN address, printed with
#                                  a QR code to scan)
#   MAZE_ADDRESS                   the address players open (default: the LAN address with
#                                  0.0.0.0, else MAZE_BIND); printed with a QR code to scan
#                                  when it is not the bind address
#   MAZE_FLASH_DIR                 flash root to use (default: build/flash/ of this checkout,
#                                  kept between runs, so a restart resumes the match like a
#                                  board's; `make clean` removes it); put a settings.json there
#                                  to try settings
#   MAZE_FRESH                     1: empty the flash folder first (`make run FRESH=1`): a board
#                                  with a blank flash; refused for a folder that does not look
#                                  like a flash folder (settings.json, web/, lib/, log/)
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

# The address players open: given (MAZE_ADDRESS), else this machine's LAN address when serving
# every interface, else the bind address. The host board's stand-in for the access point
# reports it, so the portal redirects other host names to it, as a board does to 192.168.4.1.
if [ -z "${MAZE_ADDRESS:-}" ]; then
    if [ "$MAZE_BIND" = "0.0.0.0" ]; then
        MAZE_ADDRESS=$("${PYTHON:-python3}" "$ROOT/tools/join_card.py" --lan-address)
    else
        MAZE_ADDRESS=$MAZE_BIND
    fi
fi
export MAZE_ADDRESS
if [ "$MAZE_HTTP_PORT" = 80 ]; then URL="http://$MAZE_ADDRESS/"; else URL="http://$MAZE_ADDRESS:$MAZE_HTTP_PORT/"; fi

# A busy port is one clear line, not a traceback from the firmware.
if ! "${PYTHON:-python3}" -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError:
    sys.exit(1)
' "$MAZE_BIND" "$MAZE_HTTP_PORT"; then
    echo "run_host.sh: port $MAZE_HTTP_PORT is in use on $MAZE_BIND (another make run?);" \
        "choose another: make run HTTP_PORT=8081 (or MAZE_HTTP_PORT=8081)" >&2
    exit 1
fi

# The flash: one folder kept between runs, as a board's flash is kept across resets (its log/
# holds the match logs, so a restart resumes an interrupted match). MAZE_FRESH=1 empties it
# first, but only a folder holding nothing but what a flash holds: a mistyped MAZE_FLASH_DIR
# (a home folder, say) is never emptied.
FLASH=${MAZE_FLASH_DIR:-$ROOT/build/flash}
if [ "${MAZE_FRESH:-}" = 1 ] && [ -d "$FLASH" ]; then
    for entry in "$FLASH"/* "$FLASH"/.[!.]* "$FLASH"/..?*; do
        [ -e "$entry" ] || [ -L "$entry" ] || continue
        case "${entry##*/}" in
            settings.json | web | lib | log | boot.py | main.py | .frozen) ;;
            *)
                echo "run_host.sh: not emptying $FLASH: it holds ${entry##*/}, which is not" \
                    "on a flash (settings.json, web/, lib/, log/); remove it by hand" >&2
                exit 2
                ;;
        esac
    done
    rm -rf "$FLASH"
    echo "host board: flash $FLASH emptied (fresh start)" >&2
fi
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

# the phone client as in the board image (minified, gzipped) with the QR code of this game's
# address (and of the Wi-Fi, when the flash's settings.json names one), unless the flash already
# has a web/ folder. One this script built (its stamp, web/.run_host, names the address and
# the settings) is built again for another address or settings.json, or after a change to
# firmware/ or tools/ (the flash is kept between runs: the page must follow the checkout).
WEB_STAMP="$FLASH/web/.run_host"
WEB_FOR="$URL none"
if [ -f "$FLASH/settings.json" ]; then WEB_FOR="$URL $(cksum < "$FLASH/settings.json")"; fi
if [ -f "$WEB_STAMP" ]; then
    if [ "$(cat "$WEB_STAMP")" != "$WEB_FOR" ] \
        || [ -n "$(find -H "$ROOT/firmware" "$ROOT/tools" "$ROOT/package-lock.json" -newer "$WEB_STAMP" \
            -type f ! -path '*/__pycache__/*' ! -name '*.pyc' 2>/dev/null | head -n 1)" ]; then
        rm -rf "$FLASH/web"
    fi
fi
if [ ! -d "$FLASH/web" ]; then
    SETTINGS=
    if [ -f "$FLASH/settings.json" ]; then SETTINGS="--settings $FLASH/settings.json"; fi
    # shellcheck disable=SC2086
    # the page is built from firmware/web/ (its script bundled by esbuild): no build, no client
    # (a settings.json the build cannot read is the board's to report: the page is then built
    # without the Wi-Fi's QR code)
    if ! "${PYTHON:-python3}" "$ROOT/tools/build_image.py" --web "$FLASH/web" --url "$URL" $SETTINGS \
        && { [ -z "$SETTINGS" ] \
            || ! "${PYTHON:-python3}" "$ROOT/tools/build_image.py" --web "$FLASH/web" --url "$URL"; }; then
        echo "run_host.sh: cannot build the phone client (above); make venv installs what it needs" >&2
        exit 1
    fi
    echo "$WEB_FOR" > "$WEB_STAMP"
fi

echo "host board: flash $FLASH, heap $MAZE_HEAP, http $MAZE_BIND:$MAZE_HTTP_PORT," \
    "dns $MAZE_BIND:$MAZE_DNS_PORT" >&2
if [ "$MAZE_ADDRESS" != "$MAZE_BIND" ]; then
    echo "host board: phones on this network open $URL (TV: ${URL}#watch); scan:" >&2
    "${PYTHON:-python3}" -c 'import segno, sys; segno.make(sys.argv[1]).terminal(compact=True)' \
        "$URL" >&2 2>/dev/null || true
else
    echo "host board: open $URL in this machine's browser (each tab is a player; ${URL}#watch" \
        "watches); make run LAN=1 lets phones on this network join" >&2
fi
cd "$FLASH"
# like the board's path ("", .frozen, /lib) with the code in firmware/ and the stand-ins first
MICROPYPATH="$ROOT/tools/hostboard:$ROOT/firmware:.frozen:$FLASH/lib"
PRELUDE=
if [ -n "${MAZE_PRELUDE:-}" ]; then  # tests only: its folder first on the path, then import it
    MICROPYPATH="$(dirname "$MAZE_PRELUDE"):$MICROPYPATH"
    PRELUDE=", $(basename "$MAZE_PRELUDE" .py)"
fi
export MICROPYPATH
# boot.py then main.py, as the board runs them: exec, so every signal (Ctrl-C, the chaos
# test's SIGKILL) reaches micropython itself.
exec "$MICROPYTHON" -X heapsize="$MAZE_HEAP" -c "import boot$PRELUDE, main; main.run()"
