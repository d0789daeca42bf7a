#!/usr/bin/env bash
# Build the 32-bit MicroPython unix port (the board's word size) and install it as
# .venv/bin/micropython-32, where tools/hostenv.py finds it (docs/memory.md, "Building the
# 32-bit unix port"). `make micropython32` runs this; .ci/run runs it best-effort.
#
#   tools/build_micropython32.sh [--source DIR] [--dest FILE] [--jobs N] [--force]
#
# By default it fetches MicroPython at the pinned commit below, and the two submodules the
# build needs (lib/micropython-lib: the frozen asyncio; lib/mbedtls: hashlib.sha1 for the
# WebSocket handshake; only its include/ and library/) at the commits that commit records, each
# a shallow fetch of exactly that commit, into build/micropython32/micropython (a re-run fetches
# nothing it already has).
# It then builds mpy-cross and ports/unix (VARIANT=standard, gcc -m32, no ffi, no btree),
# checks the binary (32-bit words, the modules the tools use) and only then installs it,
# printing its sha256. A binary already at the destination that passes the same check and was
# built from the same commit is kept: nothing is fetched or built (--force rebuilds).
#
#   --source DIR  build an existing MicroPython checkout instead (its lib/micropython-lib and
#                 lib/mbedtls filled in); nothing is fetched. Build output goes into DIR.
#   --dest FILE   where to install (default: .venv/bin/micropython-32 of this repository)
#   --jobs N      make -j (default: nproc)
#   --force       fetch (if needed) and build even if the destination already has the binary
#
# Environment (fetch sources: a URL or a local path/mirror; defaults are GitHub's):
#   MICROPYTHON_SRC        the same as --source DIR
#   MICROPYTHON32_TIMEOUT  seconds the whole run may take, fetch and build (default 1200);
#                          past that it is stopped and fails
#   MICROPYTHON_REPO       MicroPython (https://github.com/micropython/micropython.git)
#   MICROPYTHON_COMMIT     the commit to build (default: the pinned one; a full 40-hex hash)
#   MICROPYTHON_LIB_REPO   lib/micropython-lib (default: its URL in MicroPython's .gitmodules)
#   MBEDTLS_REPO           lib/mbedtls (default: its URL in MicroPython's .gitmodules)
#   SOURCE_DATE_EPOCH      the build date in the version line (default: the commit's date, so
#                          the same source and compiler give the same binary)
#
# Needs git, make, python3 and a gcc that builds 32-bit x86 (Debian: apt-get install
# gcc-multilib, which brings libc6-i386 to run the result). About 40 s on 2 cores.
set -euo pipefail

# The time limit: the whole script runs again under timeout(1), once.
if [ -z "${_BUILD_MICROPYTHON32_TIMED:-}" ] && command -v timeout >/dev/null; then
    export _BUILD_MICROPYTHON32_TIMED=${MICROPYTHON32_TIMEOUT:-1200}
    status=0
    timeout "$_BUILD_MICROPYTHON32_TIMED" bash "$0" "$@" || status=$?
    [ "$status" -ne 124 ] || echo "build_micropython32: error: stopped after ${_BUILD_MICROPYTHON32_TIMED} s (MICROPYTHON32_TIMEOUT)" >&2
    exit "$status"
fi

PINNED_COMMIT=13303f8d293f7bc33b865feb7ef4974fb307cabd # v1.29.0-preview, 2026-07-05
SUBMODULES=(lib/micropython-lib lib/mbedtls)
MAKE_ARGS=(VARIANT=standard BUILD=build-x86 "CC=gcc -m32" MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$ROOT/build/micropython32
SOURCE=${MICROPYTHON_SRC:-}
DEST=$ROOT/.venv/bin/micropython-32
JOBS=$(nproc 2>/dev/null || echo 2)
FORCE=

say() { echo "build_micropython32: $*" >&2; }
die() {
    say "error: $*"
    exit 1
}

while [ $# -gt 0 ]; do
    case $1 in
    --source) SOURCE=${2:?--source needs a directory}; shift 2 ;;
    --dest) DEST=${2:?--dest needs a file}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs a number}; shift 2 ;;
    --force) FORCE=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
    esac
done

COMMIT=${MICROPYTHON_COMMIT:-$PINNED_COMMIT}
REPO=${MICROPYTHON_REPO:-https://github.com/micropython/micropython.git}

# ---- the check: what the tools rely on ---------------------------------------------------
# check_binary FILE: FILE runs, has 32-bit words and the modules the tools use (prints a line).
check_binary() {
    "$1" -X heapsize=64K -c '
import sys, gc, asyncio, hashlib, micropython, select, socket, vfs
assert sys.maxsize < 2**32, "not 32-bit: sys.maxsize %d" % sys.maxsize
assert vfs.VfsRom and micropython.heap_lock and asyncio.sleep_ms
assert hashlib.sha1(b"abc").digest()[:4] == b"\xa9\x99\x3e\x36", "hashlib.sha1"
assert hashlib.sha256 and select.poll and socket.socket
heap = gc.mem_free() + gc.mem_alloc()
assert 60000 < heap <= 65536, "-X heapsize=64K gave %d bytes" % heap
print("ok", sys.maxsize, heap)
' 2>&1
}

# ---- already there? ------------------------------------------------------------------------
# The version line of a binary this script built names its commit (vX.Y.Z-preview.g<10 hex>).
want=$COMMIT
[ -z "$SOURCE" ] || want=$(git -C "$SOURCE" rev-parse -q --verify HEAD 2>/dev/null || true)
if [ -z "$FORCE" ] && [ -n "$want" ] && [ -x "$DEST" ] &&
    "$DEST" --version 2>/dev/null | grep -q "\.g${want:0:10} " && check_binary "$DEST" >/dev/null; then
    say "$DEST is already MicroPython ${want:0:10} and works: kept (--force rebuilds)"
    say "sha256 $(sha256sum "$DEST" | cut -d' ' -f1)"
    exit 0
fi

# ---- what the build needs ----------------------------------------------------------------
for tool in git make python3 gcc; do
    command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install git make python3 gcc-multilib)"
done
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stdio.h>\nint main(void) { return sizeof(void *) == 4 ? 0 : 1; }\n' >"$probe/m32.c"
gcc -m32 "$probe/m32.c" -o "$probe/m32" 2>"$probe/m32.err" ||
    die "gcc -m32 cannot build a 32-bit program (Debian: apt-get install gcc-multilib): $(tail -n 1 "$probe/m32.err")"
"$probe/m32" 2>/dev/null || die "a 32-bit program cannot run here (Debian: apt-get install libc6-i386)"

# ---- the source --------------------------------------------------------------------------
# fetch_commit DIR URL COMMIT [DIRS...]: DIR is a git work tree at COMMIT, fetched from URL if
# needed (shallow, just that commit; a full fetch if the server refuses a commit by its hash).
# With DIRS, only those folders (and the top-level files) are checked out, and only their files
# are fetched: a partial clone, whose missing files its remote `origin` (URL) supplies on demand.
# (A local path works as URL too; its upload-pack is then told to allow both.)
fetch_commit() {
    local dir=$1 url=$2 commit=$3
    shift 3
    # (Only a repository of DIR's own: rev-parse in a bare folder asks the one around it.)
    if [ -e "$dir/.git" ] &&
        [ "$(git -C "$dir" rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null)" = "$commit" ]; then
        say "$dir: at $commit"
        return
    fi
    [ -e "$dir/.git" ] || git init -q "$dir"
    git -C "$dir" remote remove origin 2>/dev/null || true
    git -C "$dir" remote add origin "$url"
    git -C "$dir" config remote.origin.uploadpack \
        'git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack'
    local filter=()
    if [ $# -gt 0 ]; then
        filter=(--filter=blob:none)
        git -C "$dir" config remote.origin.promisor true
        git -C "$dir" config remote.origin.partialclonefilter blob:none
        git -C "$dir" sparse-checkout set "$@"
    fi
    # (Always fetched: asking a partial clone whether it has the commit would fetch it alone.)
    say "fetching $commit from $url${1:+ (only $*)}"
    git -C "$dir" fetch -q --depth 1 "${filter[@]}" origin "$commit" ||
        git -C "$dir" fetch -q "${filter[@]}" origin '+refs/heads/*:refs/remotes/origin/*' ||
        die "cannot fetch from $url"
    git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null || die "$url has no commit $commit"
    git -C "$dir" checkout -q --force --detach "$commit" || die "cannot check out $commit from $url"
}

if [ -n "$SOURCE" ]; then
    SRC=$(cd "$SOURCE" && pwd) || die "no directory $SOURCE"
    [ -f "$SRC/ports/unix/Makefile" ] || die "$SRC is not a MicroPython checkout"
    for sub in "${SUBMODULES[@]}"; do
        [ -n "$(ls -A "$SRC/$sub" 2>/dev/null)" ] ||
            die "$SRC/$sub is empty (git -C $SRC submodule update --init ${SUBMODULES[*]})"
    done
    head=$(git -C "$SRC" rev-parse -q --verify HEAD 2>/dev/null || echo "unknown (not a git checkout)")
    [ "$head" = "$PINNED_COMMIT" ] || say "warning: $SRC is at $head, not the pinned $PINNED_COMMIT"
else
    case $COMMIT in
    *[!0-9a-f]* | "") die "MICROPYTHON_COMMIT must be a full 40-hex commit hash, not '$COMMIT'" ;;
    esac
    [ ${#COMMIT} -eq 40 ] || die "MICROPYTHON_COMMIT must be a full 40-hex commit hash, not '$COMMIT'"
    SRC=$WORK/micropython
    mkdir -p "$SRC"
    fetch_commit "$SRC" "$REPO" "$COMMIT"
    for sub in "${SUBMODULES[@]}"; do
        # The commit MicroPython records for the submodule, from the URL it names unless overridden.
        sub_commit=$(git -C "$SRC" rev-parse "HEAD:$sub")
        case $sub in
        lib/micropython-lib) override=${MICROPYTHON_LIB_REPO:-} ;;
        lib/mbedtls) override=${MBEDTLS_REPO:-} ;;
        esac
        url=${override:-$(git config -f "$SRC/.gitmodules" "submodule.$sub.url")}
        # mbedtls: the build compiles library/ with include/; its tests and their data (most of
        # the repository) are not fetched.
        case $sub in
        lib/mbedtls) fetch_commit "$SRC/$sub" "$url" "$sub_commit" include library ;;
        *) fetch_commit "$SRC/$sub" "$url" "$sub_commit" ;;
        esac
    done
fi

# ---- the build ---------------------------------------------------------------------------
head=$(git -C "$SRC" rev-parse -q --verify HEAD 2>/dev/null || true)
if [ -n "$head" ]; then
    # The version line: upstream's `git describe` when the checkout has the release tags, else
    # mpconfig.h's version and the commit (a shallow fetch has no tags).
    if [ -z "${MICROPY_GIT_TAG:-}" ] &&
        ! git -C "$SRC" describe --tags --match 'v[1-9].*' >/dev/null 2>&1; then
        version=$(cd "$SRC/py" && python3 -c \
            'import makeversionhdr as m; print(m.get_version_info_from_mpconfig(".."))' 2>/dev/null)
        MICROPY_GIT_TAG="$version.g$(git -C "$SRC" rev-parse --short=10 HEAD)"
        export MICROPY_GIT_TAG
        export MICROPY_GIT_HASH=${head:0:10}
    fi
    if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
        SOURCE_DATE_EPOCH=$(git -C "$SRC" show -s --format=%ct HEAD)
        export SOURCE_DATE_EPOCH
    fi
fi
for sub in "${SUBMODULES[@]}"; do
    say "$sub: $(git -C "$SRC/$sub" rev-parse -q --verify HEAD 2>/dev/null || echo '?')"
done
say "building $SRC (MicroPython ${head:-?}) with make -j$JOBS ${MAKE_ARGS[*]}"
started=$SECONDS
make -C "$SRC/mpy-cross" -j"$JOBS" >&2
# (The source folder's path out of the debug info, which the build ID is a hash of: the same
# source and compiler give the same binary wherever they are.)
make -C "$SRC/ports/unix" -j"$JOBS" "${MAKE_ARGS[@]}" "CFLAGS_EXTRA=-ffile-prefix-map=$SRC/=" >&2
BUILT=$SRC/ports/unix/build-x86/micropython
say "built $BUILT in $((SECONDS - started)) s"

out=$(check_binary "$BUILT") || die "the built binary fails its check: $out"
say "check: $out"

mkdir -p "$(dirname "$DEST")"
install -m 755 "$BUILT" "$DEST.tmp"
mv -f "$DEST.tmp" "$DEST"
say "installed $DEST: $("$DEST" --version)"
say "sha256 $(sha256sum "$DEST" | cut -d' ' -f1)"
