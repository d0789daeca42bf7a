# Shared pytest fixtures (CPython only): the repo root and running the MicroPython unix port.
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# A board-like Python heap: `w` scales to 32-bit-equivalent bytes (128wK is 256 KB on 64-bit).
# `make` passes its UPY_HEAP here so both runs use the same figure.
DEFAULT_HEAPSIZE = os.environ.get("UPY_HEAP", "128wK")


def find_upy_binary():
    """The micropython binary to test with, or None: $MICROPY_MICROPYTHON, .venv, then PATH."""
    override = os.environ.get("MICROPY_MICROPYTHON")
    if override:
        return override
    venv_binary = REPO_ROOT / ".venv" / "bin" / "micropython"
    if venv_binary.is_file():
        return str(venv_binary)
    return shutil.which("micropython")


@pytest.fixture(scope="session")
def repo_root():
    return REPO_ROOT


@pytest.fixture(scope="session")
def upy_binary():
    binary = find_upy_binary()
    if binary is None:
        message = "no micropython binary (run `make venv`, or put micropython on PATH)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture(scope="module")
def virtual_board_binary():
    """The micropython binary tools/virtual_board.py will run (skip, or fail under CI=true)."""
    from virtual_board import VirtualBoardError, find_micropython

    try:
        return find_micropython()
    except VirtualBoardError as err:
        if os.environ.get("CI") == "true":
            pytest.fail(str(err))
        pytest.skip(str(err))


@pytest.fixture
def run_upy(upy_binary):
    """run_upy(script_or_code, heapsize=..., cwd=..., args=(), timeout=60) -> CompletedProcess.

    A Path, or a str naming an existing .py file, runs as a script; any other str runs as
    `-c` code. cwd defaults to the repo root; stdout and stderr are captured as text.
    """

    def run(script_or_code, heapsize=DEFAULT_HEAPSIZE, cwd=REPO_ROOT, args=(), timeout=60):
        is_path = isinstance(script_or_code, os.PathLike) or (
            str(script_or_code).endswith(".py") and Path(cwd, script_or_code).is_file()
        )
        command = [upy_binary, "-X", f"heapsize={heapsize}"]
        if is_path:
            command.append(str(script_or_code))
        else:
            command += ["-c", script_or_code]
        command += [str(a) for a in args]
        return subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    return run


@pytest.fixture
def run_both(upy_binary):
    """run_both(script, *args) -> (CPython's stdout lines, MicroPython's stdout lines): the same
    script under both interpreters from the repo root, for differential tests."""

    def run(script, *args, heapsize=DEFAULT_HEAPSIZE, timeout=600):
        outputs = []
        for command in (
            [sys.executable, script, *map(str, args)],
            [upy_binary, "-X", f"heapsize={heapsize}", script, *map(str, args)],
        ):
            done = subprocess.run(
                command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout
            )
            assert done.returncode == 0, " ".join(command) + "\n" + done.stderr
            outputs.append(done.stdout.splitlines())
        return outputs[0], outputs[1]

    return run
