# Shared pytest fixtures (CPython only): the repo root and running the MicroPython unix port.
# Paths, the board heap and the binary come from tools/hostenv.py, as for every host tool.
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostenv import BOARD_HEAP, ROOT, find_micropython

REPO_ROOT = ROOT
# The board heap (hostenv.BOARD_HEAP), or `make`'s UPY_HEAP when set, so both runs agree.
DEFAULT_HEAPSIZE = os.environ.get("UPY_HEAP", BOARD_HEAP)


@pytest.fixture(scope="session")
def repo_root():
    return REPO_ROOT


@pytest.fixture(scope="session")
def upy_binary():
    """The unix port binary every micropython run uses, tools/virtual_board.py's too (skip
    without it, or fail under CI=true)."""
    binary = find_micropython()
    if binary is None:
        message = "no micropython binary (run `make venv`, or put micropython on PATH)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


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
