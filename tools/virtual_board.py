"""A virtual board: the MicroPython unix port on a pseudo-terminal, a folder playing the flash.

mpremote talks to it as to a USB serial port (always with `resume`: a soft reset would end
the unix process):

    python tools/virtual_board.py --flash build/vflash      # prints /dev/pts/N, Ctrl-C stops
    python -m mpremote connect /dev/pts/N resume fs ls
    python tools/deploy.py --port /dev/pts/N --resume

From tests:

    with VirtualBoard(flash_dir) as board:    # heapsize: hostenv.BOARD_HEAP
        subprocess.run([..., "mpremote", "connect", board.port, "resume", "fs", "ls"])
        app = board.boot()            # like a reset: boot.py then main.py from the flash
        board.wait_listening(8080)

How it is wired (the pty quirks):
- `micropython` runs its REPL with stdin/stdout/stderr on the pty *master*; mpremote opens the
  *slave* path. (With both on the slave they steal each other's bytes.)
- The slave is put in raw mode (no echo, no signal characters) before anyone opens it.
- This process keeps its own slave fd open for the board's lifetime: when the last slave fd
  closes, the master reads EIO, and the REPL does not exit but spins on it at full CPU. Without
  that fd the board would break as soon as the first mpremote disconnects. For the same reason
  the children get PR_SET_PDEATHSIG (SIGTERM when this process dies), and the CLI turns
  SIGTERM/SIGHUP/SIGINT into the same clean stop.
- The REPL's output between mpremote sessions piles up in the slave's input queue; mpremote
  flushes it when it enters the raw REPL. Nothing else reads the slave.
- After boot() the pty has no REPL behind it (the app's output goes to a log file). mpremote
  reads a pty without a timeout, so a command sent then hangs until killed (deploy.py gives up
  after its own timeout); call start_repl() first.
- The unix port's `os.ilistdir` gives no sizes, so `mpremote fs ls` shows 0 bytes for every
  file; use `mpremote sha256sum` or os.stat to check contents.
- sys.path mimics an ESP32 (['', '.frozen', '/lib']) with the flash folder as working directory:
  MICROPYPATH = '' : tools/hostboard (host stand-ins for the built-in `network` and `machine`;
  they never go into the image) : .frozen (the port's asyncio) : <flash>/lib.

The heap of a booted board is the board's: what a real board keeps outside its Python heap
is loaded by a prologue before boot.py into a heap enlarged for it, and pinned; the rest is
padded so that the firmware gets exactly the GC heap `heapsize` alone gives. The log's first
line says what was reserved ("vboard: ...; reserved N; Python heap H (heapsize gives H)"), and
tools/board_run.py subtracts N from every "in use" figure. Two things are reserved:
- the stand-ins of the built-in `network` and `machine` modules (on a board, firmware code that
  takes no heap), imported before boot.py;
- a ROMFS partition (`VirtualBoard(..., romfs="build/image.romfs")`, `--romfs`): the image is
  mounted at /rom with the unix port's own `vfs.VfsRom`, and '/rom', '/rom/lib' go first on
  sys.path, as firmware with ROMFS does at start-up. Imports from it run the bytecode in place,
  exactly as from memory-mapped flash on a board.
The REPL (mpremote) has neither: plain `heapsize`, no /rom. `mpremote romfs deploy` needs a
board with a ROMFS partition (`vfs.rom_ioctl`), which the unix port does not emulate.
"""

import argparse
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

from hostenv import (
    BOARD_HEAP,
    HOSTBOARD,
    BinaryError,
    NotListening,
    find_micropython,
    heap_bytes,
    wait_port,
    word_bits,
)

_BANNER_TIMEOUT_S = 15.0

# What a real board does after reset: run boot.py, then main.py, in one __main__ namespace.
# A failing boot.py is reported and main.py still runs, as on the ESP32 port.
_BOOT_SCRIPT = """\
import os, sys
for _f in ('boot.py', 'main.py'):
    try:
        os.stat(_f)
    except OSError:
        continue
    with open(_f) as _s:
        _c = compile(_s.read(), _f, 'exec')
    if _f == 'boot.py':
        try:
            exec(_c)
        except Exception as _e:
            sys.print_exception(_e)
    else:
        exec(_c)
"""


# Runs before boot.py when the board has a heapsize (see the module docstring): what a board
# keeps outside its Python heap is put here and pinned, then the heap is padded down so that
# the firmware gets exactly the GC heap `heapsize` alone gives ({target} bytes).
_PROLOGUE_START = """\
import gc, micropython, sys
_vb_b = 32 if sys.maxsize > 2**32 else 16
_vb_a = _vb_builtins = _vb_rom = _vb_pad = None  # _vb_a: scratch (a count, then a file)
_vb_r = 0
_vb_what = []
"""
# The host stand-ins of the board's built-in modules: on a board they live in the firmware.
_PROLOGUE_BUILTINS = """\
gc.collect()
_vb_a = gc.mem_alloc()
import network, machine
_vb_builtins = (network, machine)
del network, machine
gc.collect()
_vb_a = gc.mem_alloc() - _vb_a
_vb_r += _vb_a
_vb_what.append('built-in stand-ins %d bytes' % _vb_a)
"""
# {path}, {size}: the ROMFS image file and its bytes (memory-mapped flash on a board).
_PROLOGUE_ROMFS = """\
import vfs
_vb_rom = bytearray({size})
with open({path!r}, 'rb') as _vb_a:
    _vb_a.readinto(_vb_rom)
vfs.mount(vfs.VfsRom(_vb_rom), '/rom')
sys.path[0:0] = ['/rom', '/rom/lib']
del vfs
_vb_r += _vb_b + ({size} + _vb_b - 1) // _vb_b * _vb_b
_vb_what.insert(0, 'ROMFS {size} bytes mounted at /rom')
"""
# The padding is many small blocks (16 GC blocks of data each, in one list), not one large one, so
# that the largest allocated block micropython.mem_info() reports is the firmware's, not the
# padding's (a ROMFS image is one block, though: it stays the largest). The line and the
# mem_info() block that follow it describe the heap the firmware starts with.
_PROLOGUE_END = """\
gc.collect()
_vb_a = gc.mem_free() + gc.mem_alloc() - _vb_r - {target}
_vb_what.append('padding %d bytes' % max(0, _vb_a))
_vb_c = gc.mem_alloc()
_vb_a += _vb_c
_vb_pad = [None] * ((_vb_a - _vb_c) // (17 * _vb_b) + 3)
_vb_i = 0
gc.collect()  # the temporary [None]
while _vb_a - gc.mem_alloc() >= 2 * _vb_b and _vb_i < len(_vb_pad) - 1:
    _vb_pad[_vb_i] = bytearray(min(16 * _vb_b, _vb_a - gc.mem_alloc() - _vb_b))
    _vb_i += 1
if _vb_a - gc.mem_alloc() >= _vb_b:
    _vb_pad[_vb_i] = (_vb_i, _vb_i)  # the last block
gc.collect()
_vb_r += gc.mem_alloc() - _vb_c
print('vboard: %s; reserved %d; Python heap %d (heapsize gives %d)'
      % (', '.join(_vb_what), _vb_r, gc.mem_free() + gc.mem_alloc() - _vb_r, {target}))
micropython.mem_info()
del _vb_a, _vb_b, _vb_c, _vb_i, _vb_r, _vb_what
"""
_RESERVED_LINE = "vboard: "
# Room for what the prologue pins besides a ROMFS image (the stand-ins take ~5 KB).
_PROLOGUE_ROOM = 32 * 1024


class VirtualBoardError(Exception):
    pass


def reserved_bytes(log_text):
    """Bytes the boot prologue pinned outside the firmware's heap (ROMFS image, built-in
    stand-ins, padding); 0 when there was no prologue."""
    for line in log_text.splitlines():
        if line.startswith(_RESERVED_LINE) and "; reserved " in line:
            return int(line.split("; reserved ", 1)[1].split(";", 1)[0])
    return 0


def _die_with_parent():
    # Runs in the child before exec (Linux): SIGTERM it when this process dies. Without it an
    # orphaned REPL whose pty slave has closed spins at 100% CPU reading EIO, and an orphaned
    # app keeps its ports.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def board_path(flash_dir, hostboard=True):
    """MICROPYPATH giving sys.path ['', <hostboard>, '.frozen', <flash>/lib].

    The board's own path is ['', '.frozen', '/lib']; the stand-ins come first as the built-in
    modules they replace would.
    """
    parts = [""] + ([str(HOSTBOARD)] if hostboard else [])
    return ":".join(parts + [".frozen", str(Path(flash_dir).resolve() / "lib")])


class VirtualBoard:
    """A MicroPython unix process on a pty whose working directory plays the board's flash."""

    def __init__(
        self, flash_dir, heapsize=BOARD_HEAP, micropython=None, hostboard=True, romfs=None
    ):
        self.flash_dir = Path(flash_dir).resolve()
        self.heapsize = heapsize
        self.romfs = Path(romfs).resolve() if romfs else None
        self.micropython = micropython or find_micropython()
        if self.micropython is None:
            raise VirtualBoardError("micropython (unix port) not found: run `make venv`")
        if os.sep in str(self.micropython):  # it runs in the flash folder
            self.micropython = os.path.abspath(self.micropython)
        self.hostboard = hostboard
        self.port = None
        self.process = None  # the REPL, or the booted app after boot()
        self.booted = False
        self.log_path = None
        self._master = None
        self._slave = None
        self._log_dir = None
        self._log_file = None

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        """Open the pty and start the REPL on it; returns the port path."""
        if self.port is not None:
            return self.port
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self.start_repl()
        return self.port

    def _env(self, extra=None):
        env = dict(os.environ)
        env["MICROPYPATH"] = board_path(self.flash_dir, self.hostboard)
        if extra:
            env.update(extra)
        return env

    def _argv(self, heapsize=None):
        argv = [self.micropython]
        heapsize = heapsize or self.heapsize
        if heapsize:
            argv += ["-X", "heapsize=" + str(heapsize)]
        return argv

    def gc_heap_total(self, heapsize=None):
        """The GC heap (free + allocated bytes) the unix port gets from `heapsize`."""
        out = subprocess.run(
            self._argv(heapsize) + ["-c", "import gc; print(gc.mem_free() + gc.mem_alloc())"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if out.returncode != 0:
            raise VirtualBoardError(f"micropython failed: {out.stderr.strip()}")
        return int(out.stdout.split()[-1])

    def _boot_command(self, program=_BOOT_SCRIPT):
        """argv and script of a reset: the prologue (built-ins and ROMFS outside the heap),
        then `program` (boot.py and main.py)."""
        if self.romfs is not None and not self.romfs.is_file():
            raise VirtualBoardError(f"no ROMFS image at {self.romfs}")
        if not self.heapsize:
            if self.romfs is not None:
                raise VirtualBoardError("a ROMFS board needs an explicit heapsize")
            return self._argv(), program
        prologue = _PROLOGUE_START
        room = _PROLOGUE_ROOM
        if self.hostboard:
            prologue += _PROLOGUE_BUILTINS
        if self.romfs is not None:
            size = self.romfs.stat().st_size
            prologue += _PROLOGUE_ROMFS.format(path=str(self.romfs), size=size)
            room += size
        prologue += _PROLOGUE_END.format(target=self.gc_heap_total())
        # the pinned bytes, plus the GC's own tables for them (~1.2%)
        try:
            word_bytes = word_bits(self.micropython) // 8
        except BinaryError as err:
            raise VirtualBoardError(str(err))
        grown = heap_bytes(self.heapsize, word_bytes) + room * 102 // 100
        return self._argv(grown), prologue + program

    def start_repl(self):
        """(Re)start the REPL on the pty, ending a booted app first (like a reset)."""
        self._end_process()
        self.booted = False
        self.process = subprocess.Popen(
            self._argv(),
            stdin=self._master,
            stdout=self._master,
            stderr=self._master,
            cwd=self.flash_dir,
            env=self._env(),
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self._wait_banner()

    def _wait_banner(self):
        # Read the slave until the first prompt: then the REPL reads input, and nothing an
        # mpremote sends early is lost to the interpreter's start-up.
        seen = b""
        deadline = time.monotonic() + _BANNER_TIMEOUT_S
        while b">>> " not in seen:
            if self.process.poll() is not None:
                raise VirtualBoardError(
                    f"micropython exited ({self.process.returncode}): {seen!r}"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise VirtualBoardError(
                    f"no REPL prompt from micropython on {self.port}: {seen!r}"
                )
            ready, _, _ = select.select([self._slave], [], [], min(left, 0.2))
            if ready:
                seen += os.read(self._slave, 4096)

    def boot(self, env=None, program=_BOOT_SCRIPT):
        """Reset into the deployed firmware: boot.py then main.py from the flash folder (or
        `program`, MicroPython source run in their place, after the same prologue).

        The REPL ends (the port answers nobody until start_repl()); the app's output goes to
        self.log_path. Returns the app's Popen.
        """
        if self.port is None:
            self.start()
        self._end_process()
        if self._log_dir is None:
            self._log_dir = tempfile.mkdtemp(prefix="vboard-log-")
        self.log_path = Path(self._log_dir) / "app.log"
        argv, script = self._boot_command(program)
        self._log_file = open(self.log_path, "wb")  # closed in _end_process
        self.process = subprocess.Popen(
            argv + ["-c", script],
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            cwd=self.flash_dir,
            env=self._env(env),
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.booted = True
        return self.process

    def read_log(self):
        """What the booted app has printed so far ('' before boot())."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def wait_listening(self, port, host="127.0.0.1", timeout=20.0):
        """Wait until the booted app accepts TCP connections on host:port."""
        if self.process is None:
            raise VirtualBoardError("wait_listening before boot()")
        try:
            wait_port(port, host, timeout, self.process)
        except NotListening as err:
            raise VirtualBoardError(f"{err}:\n{self.read_log()}")

    def _end_process(self):
        proc, self.process = self.process, None
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def stop(self):
        """End the board's process and close the pty (the log stays readable until then)."""
        self._end_process()
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.port = None
        if self._log_dir is not None:
            shutil.rmtree(self._log_dir, ignore_errors=True)
            self._log_dir = None
            self.log_path = None


def _follow(board, echo_log):
    """Wait while the board's process runs, copying the app log to stdout when asked."""
    with open(board.log_path if echo_log else os.devnull, "rb") as log:
        while True:
            running = board.process.poll() is None
            if echo_log:
                sys.stdout.buffer.write(log.read())
                sys.stdout.flush()
            if not running:
                return
            time.sleep(0.2)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Run a virtual board on a pty until Ctrl-C.")
    parser.add_argument("--flash", required=True, help="folder playing the board's flash")
    parser.add_argument("--heapsize", default=BOARD_HEAP, help="micropython -X heapsize")
    parser.add_argument(
        "--boot", action="store_true", help="run boot.py + main.py instead of the REPL"
    )
    parser.add_argument(
        "--romfs", help="a ROMFS image (build/image.romfs) mounted at /rom before boot.py"
    )
    args = parser.parse_args(argv)
    # `kill`, a closed terminal and Ctrl-C all stop the board cleanly (the finally below), even
    # when a shell started this in the background with SIGINT ignored.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.default_int_handler)
    board = VirtualBoard(args.flash, heapsize=args.heapsize, romfs=args.romfs)
    try:
        board.start()
        if args.boot:
            board.boot()
            print(f"virtual board booted from {board.flash_dir}; its output follows", flush=True)
        else:
            print(board.port, flush=True)
            print(
                f"virtual board on {board.port} (flash: {board.flash_dir}); use "
                f"`mpremote connect {board.port} resume ...` or deploy.py --resume; Ctrl-C stops",
                file=sys.stderr,
                flush=True,
            )
        _follow(board, echo_log=args.boot)
        print(f"board process ended ({board.process.returncode})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except VirtualBoardError as err:
        print(f"virtual_board: error: {err}", file=sys.stderr)
        return 1
    finally:
        board.stop()


if __name__ == "__main__":
    sys.exit(main())
