"""A virtual board: the MicroPython unix port on a pseudo-terminal, a folder playing the flash.

mpremote talks to it as to a USB serial port (always with `resume`: a soft reset would end
the unix process):

    python tools/virtual_board.py --flash build/vflash      # prints /dev/pts/N, Ctrl-C stops
    python -m mpremote connect /dev/pts/N resume fs ls
    python tools/deploy.py --port /dev/pts/N --resume

From tests:

    with VirtualBoard(flash_dir, heapsize="112wK") as board:
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
"""

import argparse
import os
import pty
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
HOSTBOARD = TOOLS / "hostboard"
# An ESP32's Python heap after one growth (platform.md); `w` scales to 32-bit words.
DEFAULT_HEAPSIZE = "112wK"
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


class VirtualBoardError(Exception):
    pass


def _die_with_parent():
    # Runs in the child before exec (Linux): SIGTERM it when this process dies. Without it an
    # orphaned REPL whose pty slave has closed spins at 100% CPU reading EIO, and an orphaned
    # app keeps its ports.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def find_micropython():
    """The unix port binary: $MICROPY_MICROPYTHON, next to this Python, .venv, then PATH."""
    override = os.environ.get("MICROPY_MICROPYTHON")
    if override:
        return override
    for candidate in (
        Path(sys.executable).parent / "micropython",
        TOOLS.parent / ".venv" / "bin" / "micropython",
    ):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("micropython")
    if found is None:
        raise VirtualBoardError("micropython (unix port) not found: run `make venv`")
    return found


def board_path(flash_dir, hostboard=True):
    """MICROPYPATH giving sys.path ['', <hostboard>, '.frozen', <flash>/lib].

    The board's own path is ['', '.frozen', '/lib']; the stand-ins come first as the built-in
    modules they replace would.
    """
    parts = [""] + ([str(HOSTBOARD)] if hostboard else [])
    return ":".join(parts + [".frozen", str(Path(flash_dir).resolve() / "lib")])


class VirtualBoard:
    """A MicroPython unix process on a pty whose working directory plays the board's flash."""

    def __init__(self, flash_dir, heapsize=DEFAULT_HEAPSIZE, micropython=None, hostboard=True):
        self.flash_dir = Path(flash_dir).resolve()
        self.heapsize = heapsize
        self.micropython = micropython or find_micropython()
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

    def _argv(self):
        argv = [self.micropython]
        if self.heapsize:
            argv += ["-X", "heapsize=" + str(self.heapsize)]
        return argv

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

    def boot(self, env=None):
        """Reset into the deployed firmware: boot.py then main.py from the flash folder.

        The REPL ends (the port answers nobody until start_repl()); the app's output goes to
        self.log_path. Returns the app's Popen.
        """
        if self.port is None:
            self.start()
        self._end_process()
        if self._log_dir is None:
            self._log_dir = tempfile.mkdtemp(prefix="vboard-log-")
        self.log_path = Path(self._log_dir) / "app.log"
        self._log_file = open(self.log_path, "wb")  # closed in _end_process
        self.process = subprocess.Popen(
            self._argv() + ["-c", _BOOT_SCRIPT],
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
        deadline = time.monotonic() + timeout
        while True:
            if self.process is None or self.process.poll() is not None:
                code = None if self.process is None else self.process.returncode
                raise VirtualBoardError(
                    f"app exited ({code}) before listening:\n{self.read_log()}"
                )
            try:
                with socket.create_connection((host, port), timeout=0.5):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise VirtualBoardError(
                        f"nothing listens on {host}:{port} after {timeout}s:\n{self.read_log()}"
                    )
                time.sleep(0.1)

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
    parser.add_argument("--heapsize", default=DEFAULT_HEAPSIZE, help="micropython -X heapsize")
    parser.add_argument(
        "--boot", action="store_true", help="run boot.py + main.py instead of the REPL"
    )
    args = parser.parse_args(argv)
    # `kill`, a closed terminal and Ctrl-C all stop the board cleanly (the finally below), even
    # when a shell started this in the background with SIGINT ignored.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.default_int_handler)
    board = VirtualBoard(args.flash, heapsize=args.heapsize)
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
