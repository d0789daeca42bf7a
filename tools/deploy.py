"""Copy the board image (build/image/, made by tools/build_image.py) to a board over USB.

    python tools/deploy.py --port /dev/ttyUSB0 [--image build/image] [--resume] [--romfs|--auto]

Steps, each through mpremote (`python -m mpremote` from this interpreter):
 1. the board answers on PORT, and one script on it reports its .mpy version
    (sys.implementation._mpy), the free flash (os.statvfs) and the size and sha256 of every
    file named in MANIFEST.txt;
 2. every .mpy of the image must load on that board (same .mpy version; native code also needs
    the same sub-version and architecture), else nothing is copied;
 3. only files whose hash differs are copied (folders created first), after checking they fit;
 4. the board is hard-reset so it starts the new firmware; with --resume (the virtual board,
    whose unix process would end on a reset) every mpremote call uses `resume` and no reset
    is done.
Files on the board that are not in the image (settings.json, old files) are left alone: after
a switch between a short-named image (flat modules, a.mpy, b.mpy, ...) and a --readable one or
one built before short module names (game/, net/, lib/microdot/), the other layout's files stay
on the flash, never imported; remove them by hand (mpremote rm) to free the flash.

With --auto (what `make deploy` passes) the board decides: the probe of step 1 also reads its
ROMFS partition 0 (vfs.rom_ioctl), and the ROMFS layout below is taken when the firmware has
ROMFS and a partition the code fits in (<image>.romfs is built from the image when missing),
else the filesystem layout; one line says which and why. ROMFS support arrived in MicroPython
v1.25; the stock ESP32 firmware has no ROMFS partition (docs/hardware.md, "ROMFS").

With --romfs (make deploy ROMFS=1) the code (the flat .mpy modules, or the game/, net/ and lib/
folders) goes into the board's ROMFS partition as one image (build/image.romfs, written by
`mpremote romfs deploy` unless the partition already holds exactly it) and the filesystem gets
only boot.py, main.py and web/; copies of the code left on the filesystem by an earlier deploy
are removed, so only the ROMFS code can be imported. The firmware must have ROMFS support and a
ROMFS partition (docs/hardware.md, "ROMFS"), else nothing is changed.

Each failure prints one line `deploy: error: ...` and exits non-zero:
    2 bad arguments or image   3 no board / board not answering   4 .mpy version mismatch
    5 flash full (or ROMFS partition too small)   6 no ROMFS on the board (--romfs)
    1 any other failure of a copy or reset
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

from build_image import (
    DEFAULT_OUT,
    MANIFEST_NAME,
    MPY_ARCHES,
    SOURCE_FILES,
    BuildError,
    build_romfs,
    in_romfs,
    read_manifest,
    romfs_path,
)

EXIT_FAILED, EXIT_IMAGE, EXIT_NO_BOARD, EXIT_MPY, EXIT_FULL, EXIT_NO_ROMFS = 1, 2, 3, 4, 5, 6

_PROBE_TIMEOUT_S = 30  # a board that runs MicroPython answers in a few seconds
_COPY_TIMEOUT_S = 120  # plus one second per KB copied; a 921600-baud board does ~10 KB/s
# mpremote's complaints when the port vanishes under it, as a board's native USB does on reset.
_DROPPED = re.compile(r"Errno 5|Input/output error|device disconnected|device reports readiness")
_MARK = "@@deploy"  # prefix of the probe's lines, so stray board output is ignored
# Space kept free beyond the files (littlefs needs spare blocks to write copy-on-write).
_SPARE_BLOCKS = 2

# MicroPython releases by .mpy version (docs.micropython.org reference/mpyfiles).
_MPY_RELEASES = {6: "v1.19 or newer", 5: "v1.12-v1.18", 4: "v1.11", 3: "v1.9.3-v1.10"}
# Sub-version of .mpy v6 that native code needs (only native code checks it).
_MPY6_SUB_RELEASES = {0: "v1.19", 1: "v1.20-v1.21", 2: "v1.22", 3: "v1.23 or newer"}

# Runs on the board. Prints the .mpy version, free flash, its ROMFS partition 0 (state: 0 no
# ROMFS support, < 0 no partition, 1 found; its size; the sha256 of its first R bytes when it
# is memory-mapped) and, for each path of FILES, its size and sha256 (or '-' when missing).
# Only MicroPython built-ins; reads files in small chunks.
_PROBE = """\
import os, sys
try:
    import hashlib, binascii
except ImportError:
    hashlib = None
M = %r
R = %d
print(M, 'mpy', getattr(sys.implementation, '_mpy', -1))
try:
    import vfs
    d = vfs.rom_ioctl(2, 0)
    if isinstance(d, int):
        print(M, 'romfs', min(d, -1), 0, '-')
    elif hasattr(d, 'ioctl'):
        print(M, 'romfs', 1, d.ioctl(4, 0) * d.ioctl(5, 0), '-')
    else:
        g = '-'
        if hashlib and 0 < R <= len(d):
            g = binascii.hexlify(hashlib.sha256(memoryview(d)[:R]).digest()).decode()
        print(M, 'romfs', 1, len(d), g)
    del d
except (ImportError, AttributeError):
    print(M, 'romfs', 0, 0, '-')
try:
    s = os.statvfs(os.getcwd())
    print(M, 'free', s[1], s[4])
except Exception:
    print(M, 'free', 0, -1)
b = bytearray(512)
for p in %r:
    try:
        n = os.stat(p)[6]
    except OSError:
        print(M, 'file', p, '-', '-')
        continue
    d = '?'
    if hashlib:
        h = hashlib.sha256()
        with open(p, 'rb') as f:
            while True:
                k = f.readinto(b)
                if not k:
                    break
                h.update(memoryview(b)[:k])
        d = binascii.hexlify(h.digest()).decode()
    print(M, 'file', p, n, d)
"""

# Runs on the board: create the folders of FILES (parents first), ignoring those that exist.
_MKDIRS = """\
import os
for d in %r:
    try:
        os.mkdir(d)
    except OSError:
        pass
"""


class DeployError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def mpremote(port, args, resume, timeout):
    """Run `python -m mpremote connect PORT [resume] ARGS`; (returncode, combined output)."""
    argv = [sys.executable, "-m", "mpremote", "connect", port]
    if resume:
        argv.append("resume")
    try:
        result = subprocess.run(
            argv + args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise DeployError(
            EXIT_NO_BOARD,
            f"the board on {port} does not answer (no reply from its MicroPython REPL in "
            f"{timeout}s): press its reset button and retry",
        )
    return result.returncode, result.stdout + result.stderr


def _last_line(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def check_port(port):
    if port.startswith("/dev/") and not os.path.exists(port):
        raise DeployError(EXIT_NO_BOARD, f"no board on {port} (the port does not exist)")
    if port.startswith("/dev/") and not os.access(port, os.R_OK | os.W_OK):
        raise DeployError(
            EXIT_NO_BOARD,
            f"no permission to open {port}: add yourself to the dialout group "
            "(sudo usermod -aG dialout $USER) and log in again",
        )


class Board:
    """What the probe learned: .mpy version, free flash, files, ROMFS partition 0."""

    def __init__(self):
        self.mpy = None
        self.free = None  # bytes, None when unknown
        self.block = 4096
        self.files = {}  # path -> (size, sha256) or None when missing
        self.romfs_state = 0  # 0 no ROMFS support, < 0 no partition, 1 partition found
        self.romfs_size = 0
        self.romfs_digest = None  # sha256 of its first len(image) bytes, when readable


def probe(port, paths, resume, romfs_bytes=0):
    """Ask the board (one mpremote exec); returns a Board."""
    script = _PROBE % (_MARK, romfs_bytes, list(paths))
    code, out = mpremote(port, ["exec", script], resume, _PROBE_TIMEOUT_S)
    if code != 0:
        if "failed to access" in out or "no device found" in out:
            raise DeployError(EXIT_NO_BOARD, f"no board on {port} (cannot open the port)")
        lowered = out.lower()
        if "raw repl" in lowered or "transporterror" in lowered or "serialexception" in lowered:
            raise DeployError(
                EXIT_NO_BOARD,
                f"the board on {port} does not answer the MicroPython REPL: {_last_line(out)}",
            )
        raise DeployError(EXIT_FAILED, f"cannot read the board on {port}: {_last_line(out)}")
    board = Board()
    for line in out.splitlines():
        parts = line.split()
        if not parts or parts[0] != _MARK:
            continue
        if parts[1] == "mpy":
            board.mpy = int(parts[2])
        elif parts[1] == "free":
            board.free = int(parts[2]) * int(parts[3]) if int(parts[3]) >= 0 else None
            board.block = int(parts[2]) or 4096
        elif parts[1] == "romfs":
            board.romfs_state, board.romfs_size = int(parts[2]), int(parts[3])
            board.romfs_digest = None if parts[4] == "-" else parts[4]
        elif parts[1] == "file":
            board.files[parts[2]] = None if parts[3] == "-" else (int(parts[3]), parts[4])
    if board.mpy is None:
        raise DeployError(EXIT_NO_BOARD, f"unexpected answer from the board on {port}")
    return board


def _arch_name(number):
    return MPY_ARCHES[number] if number < len(MPY_ARCHES) else str(number)


def _release(version, sub):
    if version == 6:
        return "MicroPython " + _MPY6_SUB_RELEASES.get(sub, "v1.23 or newer")
    return "MicroPython " + _MPY_RELEASES.get(version, "of an unknown release")


def check_mpy(port, board_mpy, image, entries, header):
    """Refuse the image if one of its .mpy files would not import on the board.

    The board's rule (py/persistentcode.c): the .mpy version must be equal; native code must
    also match the sub-version and the architecture; bytecode-only files ignore both.
    """
    if board_mpy < 0:
        raise DeployError(
            EXIT_MPY,
            f"the board on {port} cannot import .mpy files (no sys.implementation._mpy): "
            "flash an official MicroPython >= 1.23 (docs/hardware.md)",
        )
    b_ver, b_sub, b_arch = board_mpy & 0xFF, (board_mpy >> 8) & 3, _arch_name(board_mpy >> 10)
    board_text = f".mpy v{b_ver}.{b_sub} {b_arch} ({_release(b_ver, b_sub)})"
    built = f".mpy v{header.get('mpy-version', '?')} march {header.get('march', '?')}"
    for path, _, _ in entries:
        if not path.endswith(".mpy"):
            continue
        head = (Path(image) / path).read_bytes()[:4]
        ver, sub, arch = head[1], head[2] & 3, _arch_name(head[2] >> 2)
        if ver != b_ver:
            raise DeployError(
                EXIT_MPY,
                f".mpy version mismatch: the image is {built} ({path}: .mpy v{ver}), the board "
                f"on {port} runs {board_text}; fix: flash MicroPython >= 1.23 "
                "(docs/hardware.md), or rebuild the image with an mpy-cross of the board's "
                f".mpy v{b_ver}",
            )
        if arch != "none" and (sub != b_sub or arch != b_arch):
            raise DeployError(
                EXIT_MPY,
                f".mpy version mismatch: {path} holds native code for .mpy v{ver}.{sub} {arch} "
                f"(image {built}), the board on {port} runs {board_text}; fix: rebuild with "
                f"make build MARCH={b_arch if b_arch != 'none' else ''} (or no MARCH for "
                "portable bytecode), or flash the MicroPython release that matches",
            )


def _blocks(size, block):
    return -(-size // block) if size else 0


def plan_copies(entries, board_files):
    """Paths of the image whose size or sha256 differ from the board's copy."""
    return [
        path
        for path, size, digest in entries
        if board_files.get(path) is None or board_files[path] != (size, digest)
    ]


def check_space(port, entries, board_files, todo, free, block):
    """Refuse to start copying when the changed files cannot fit in the free flash."""
    if free is None:
        return
    sizes = {path: size for path, size, _ in entries}
    need = 0
    for path in todo:
        old = board_files.get(path)
        need += _blocks(sizes[path], block) - (_blocks(old[0], block) if old else 0)
    need = (need + _SPARE_BLOCKS) * block
    if need > free:
        raise DeployError(
            EXIT_FULL,
            f"flash full: the changed files need {need // 1024} KB but the board on {port} "
            f"has {free // 1024} KB free; remove unused files (mpremote rm), or erase and "
            "reflash (docs/hardware.md), or freeze the code into the firmware (manifest.py)",
        )


def chained(commands):
    """mpremote arguments that run several commands in one session: A + B + C."""
    args = []
    for command in commands:
        if args:
            args.append("+")
        args += command
    return args


def copy_files(port, image, todo, sizes, resume):
    dirs = set()
    for path in todo:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    commands = []
    if dirs:
        commands.append(["exec", _MKDIRS % sorted(dirs, key=lambda d: (d.count("/"), d))])
    commands += [["fs", "cp", "-f", str(Path(image) / path), ":" + path] for path in todo]
    args = chained(commands)
    timeout = _COPY_TIMEOUT_S + sum(sizes[p] for p in todo) // 1024
    code, out = mpremote(port, args, resume, timeout)
    if code != 0:
        if "ENOSPC" in out or "Errno 28" in out or "No space left" in out:
            raise DeployError(
                EXIT_FULL,
                f"flash full while copying to the board on {port}: {_last_line(out)}; remove "
                "unused files (mpremote rm) or freeze the code into the firmware (manifest.py)",
            )
        raise DeployError(EXIT_FAILED, f"copy to the board on {port} failed: {_last_line(out)}")


def verify_image(image, entries):
    """The image must be the one its MANIFEST describes (no edit since make build)."""
    for path, size, digest in entries:
        file = Path(image) / path
        if not file.is_file():
            raise DeployError(EXIT_IMAGE, f"{file} is in {MANIFEST_NAME} but missing: make build")
        data = file.read_bytes()
        if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
            raise DeployError(EXIT_IMAGE, f"{file} changed since the build: make build")


def check_romfs(port, board, romfs_file):
    """Refuse a ROMFS deploy the board cannot take; True when the partition needs writing."""
    size = romfs_file.stat().st_size
    if board.romfs_state == 0:
        raise DeployError(
            EXIT_NO_ROMFS,
            f"the MicroPython on {port} has no ROMFS support (no vfs.rom_ioctl): deploy "
            "without ROMFS=1, or flash a firmware built with ROMFS (docs/hardware.md, ROMFS)",
        )
    if board.romfs_state < 0:
        raise DeployError(
            EXIT_NO_ROMFS,
            f"the firmware on {port} supports ROMFS but its partition table has no ROMFS "
            "partition: deploy without ROMFS=1, or flash a firmware whose partition table "
            "has one (docs/hardware.md, ROMFS)",
        )
    if size > board.romfs_size:
        raise DeployError(
            EXIT_FULL,
            f"the ROMFS image ({size} bytes) does not fit the ROMFS partition of the board on "
            f"{port} ({board.romfs_size} bytes)",
        )
    digest = hashlib.sha256(romfs_file.read_bytes()).hexdigest()
    return board.romfs_digest != digest


def write_romfs(port, romfs_file, resume):
    timeout = _COPY_TIMEOUT_S + romfs_file.stat().st_size // 1024
    code, out = mpremote(port, ["romfs", "deploy", str(romfs_file)], resume, timeout)
    if code != 0:
        raise DeployError(
            EXIT_FAILED,
            f"writing the ROMFS partition of the board on {port} failed: " + _last_line(out),
        )


def module_twins(paths):
    """For every module file of an image (x.mpy; x.py, compiled by the board: viper code in
    an image built without --march), the other file of the same module, when the image does
    not have it too: the paths that must not stay on the board."""
    paths = set(paths)
    twins = []
    for path in sorted(paths):
        if path in SOURCE_FILES or path.startswith("web/"):
            continue
        if path.endswith(".mpy"):
            twin = path[:-4] + ".py"
        elif path.endswith(".py"):
            twin = path[:-3] + ".mpy"
        else:
            continue
        if twin not in paths:
            twins.append(twin)
    return twins


def remove_files(port, paths, resume):
    args = chained([["fs", "rm", ":" + path] for path in paths])
    code, out = mpremote(port, args, resume, _PROBE_TIMEOUT_S + len(paths))
    if code != 0:
        raise DeployError(
            EXIT_FAILED,
            f"removing old code files on the board on {port} failed: " + _last_line(out),
        )


def choose_layout(board, romfs_bytes):
    """(True for ROMFS, the reason in words) for `make deploy`'s automatic choice: the ROMFS
    layout when the board's firmware has ROMFS and a partition the image fits in (the code runs
    in place from flash: a full room needs 56 KB of heap, not 88 KB), else the filesystem."""
    if board.romfs_state == 0:
        return False, "the firmware has no ROMFS support (no vfs.rom_ioctl)"
    if board.romfs_state < 0:
        return False, "the firmware supports ROMFS but has no ROMFS partition"
    if romfs_bytes > board.romfs_size:
        return False, "the ROMFS image (%d bytes) does not fit its ROMFS partition (%d bytes)" % (
            romfs_bytes,
            board.romfs_size,
        )
    return True, "the firmware has a ROMFS partition of %d bytes" % board.romfs_size


def ensure_romfs(image):
    """<image>.romfs, built from the image when missing or older than its manifest."""
    romfs_file = romfs_path(image)
    manifest = Path(image) / MANIFEST_NAME
    if not romfs_file.is_file() or romfs_file.stat().st_mtime < manifest.stat().st_mtime:
        try:
            build_romfs(image, romfs_file)
        except BuildError as err:
            raise DeployError(EXIT_IMAGE, f"cannot build the ROMFS image: {err}") from None
    return romfs_file


def deploy(
    port, image=DEFAULT_OUT, resume=False, space_check=True, log=print, romfs=False, auto=False
):
    """Deploy `image` to the board on `port`; returns the list of copied paths. With `romfs`
    the code folders go to the ROMFS partition as `<image>.romfs` (tools/build_image.py); with
    `auto` (make deploy) the board decides: ROMFS when its firmware has a partition the code
    fits in, else the filesystem, and the log says which and why."""
    image = Path(image)
    if not (image / MANIFEST_NAME).is_file():
        raise DeployError(EXIT_IMAGE, f"no {MANIFEST_NAME} in {image}: run make build first")
    header, entries = read_manifest(image)
    verify_image(image, entries)
    can_romfs = header.get("frozen") != "yes"
    if auto and can_romfs:
        romfs_file = ensure_romfs(image)
    else:
        romfs_file = romfs_path(image) if romfs else None
    if romfs_file is not None and not romfs_file.is_file():
        raise DeployError(EXIT_IMAGE, f"no ROMFS image at {romfs_file}: make build ROMFS=1")
    check_port(port)
    romfs_bytes = romfs_file.stat().st_size if romfs_file is not None else 0
    twins = module_twins(p for p, _, _ in entries)
    board = probe(port, [p for p, _, _ in entries] + twins, resume, romfs_bytes)
    check_mpy(port, board.mpy, image, entries, header)
    if auto:
        if not can_romfs:
            use, why = False, "the image is for a firmware with the code frozen in"
        else:
            use, why = choose_layout(board, romfs_bytes)
        if use:
            log(f"layout: ROMFS ({why}): the code goes to /rom, 56 KB of heap for a full room")
        else:
            log(f"layout: filesystem ({why}): the code goes to the flash's file system")
            romfs_file = None
    # A module's other file from an earlier image (x.py beside this image's x.mpy, or x.mpy
    # beside its x.py): MicroPython imports x.py first, so one left there would be run instead.
    shadows = [p for p in twins if board.files.get(p) is not None]
    if shadows:
        log(f"removing {len(shadows)} module files of an earlier image: " + " ".join(shadows))
        remove_files(port, shadows, resume)
    files = entries
    if romfs_file is not None:
        rom_todo = check_romfs(port, board, romfs_file)
        files = [e for e in entries if not in_romfs(e[0])]
        stale = [p for p, _, _ in entries if in_romfs(p) and board.files.get(p) is not None]
        if rom_todo:
            log(f"writing the ROMFS partition ({romfs_bytes} bytes: the code)")
            write_romfs(port, romfs_file, resume)
        else:
            log("the ROMFS partition already holds this image")
        if stale:
            log(f"removing {len(stale)} code files from the filesystem (the code runs from /rom)")
            remove_files(port, stale, resume)
    todo = plan_copies(files, board.files)
    if not todo:
        log(f"board on {port} is up to date ({len(files)} files)")
    else:
        if space_check:
            check_space(port, files, board.files, todo, board.free, board.block)
        sizes = {path: size for path, size, _ in files}
        log(f"copying {len(todo)} of {len(files)} files ({sum(sizes[p] for p in todo)} bytes)")
        copy_files(port, image, todo, sizes, resume)
        for path in todo:
            log("  " + path)
    if resume:
        log("not reset (--resume): start the firmware yourself (VirtualBoard.boot())")
    else:
        # Always: entering the raw REPL soft-reset the board, which stopped main.py.
        code, out = mpremote(port, ["reset"], False, _PROBE_TIMEOUT_S)
        if code != 0 and not _DROPPED.search(out):
            raise DeployError(
                EXIT_FAILED, f"reset of the board on {port} failed: {_last_line(out)}"
            )
        # A native-USB board (ESP32-S3) drops its port while it restarts: that is a reset too.
        log("board reset: the game starts in a few seconds")
    return todo


def main(argv=None):
    parser = argparse.ArgumentParser(description="Copy the board image to a board (mpremote).")
    parser.add_argument("--port", help="serial port of the board, e.g. /dev/ttyUSB0")
    parser.add_argument("--image", default=str(DEFAULT_OUT), help="image folder (make build)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="never soft/hard reset (the virtual board: its unix process would end)",
    )
    parser.add_argument(
        "--romfs",
        action="store_true",
        help="code folders into the board's ROMFS partition (<image>.romfs, make build ROMFS=1)",
    )
    parser.add_argument(
        "--auto",
        action="store_true",
        help="pick the layout from the board: ROMFS when its firmware has a ROMFS partition the "
        "code fits in (building <image>.romfs if needed), else the filesystem (make deploy)",
    )
    parser.add_argument(
        "--no-space-check",
        action="store_true",
        help="skip the free-flash check before copying (a full flash is still reported)",
    )
    args = parser.parse_args(argv)
    if not args.port:
        print(
            "deploy: error: no port given: --port /dev/ttyUSB0 (make deploy PORT=...)",
            file=sys.stderr,
        )
        return EXIT_IMAGE
    try:
        deploy(
            args.port,
            args.image,
            args.resume,
            not args.no_space_check,
            romfs=args.romfs,
            auto=args.auto and not args.romfs,
        )
    except DeployError as err:
        print(f"deploy: error: {err}", file=sys.stderr)
        return err.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
