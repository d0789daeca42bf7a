# Shared pytest fixtures (CPython only): the repo root and running the MicroPython unix port.
# Paths, the board heap and the binaries come from tools/hostenv.py, as for every host tool.
import gc
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from hostenv import BOARD_HEAP, ROOT, find_micropython, locate_micropython32

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


# Why the tests that need the 32-bit unix port were skipped (None: it was found, or no test
# asked); printed again, loudly, at the end of the session.
_NO_MICROPY32 = []


@pytest.fixture(scope="session")
def upy32_binary():
    """The 32-bit unix port (hostenv.find_micropython32: $MICROPY32, micropython-32 on PATH or
    in .venv/bin), the board's word size. Without one the test is skipped, even under CI=true
    (CI may not have it), with a warning and a banner at the end of the run."""
    path, why = locate_micropython32()
    if path is None:
        _NO_MICROPY32.append(why)
        warnings.warn("32-bit tests skipped: %s" % why, stacklevel=1)
        pytest.skip(why)
    return path


# What a test needs, marked by construction from the fixtures it uses (a test marked by hand
# could forget): `upy` (a MicroPython process: the unix port, a host board, a virtual board)
# and `browser` (Chromium). `make check` runs what is neither.
_NEEDS = (
    ("upy", ("upy_binary", "upy32_binary")),
    ("browser", ("browser",)),
)


def _seconds(slow):
    if slow is None:
        return 0
    return slow.kwargs.get("seconds", 10)


def pytest_collection_modifyitems(config, items):
    # The longest tests first (a stable sort: each module's order stays), so the workers start
    # them while there is time to fill in the short ones beside them, instead of one worker
    # ending the run alone on a two-minute test that started last: `slow(seconds=N)` says
    # about how long a test takes, a bare `slow` counts as 10 s, everything else as 0.
    items.sort(key=lambda item: -_seconds(item.get_closest_marker("slow")))
    for item in items:
        used = set(item.fixturenames)
        for marker, fixtures in _NEEDS:
            if used.intersection(fixtures):
                item.add_marker(marker)
        # A module whose tests share a fixture wider than one test (a Chromium, a built
        # image, a virtual board) runs whole on one xdist worker (`--dist loadgroup`), so the
        # fixture is made once; every other test may go to any worker.
        defs = getattr(item, "_fixtureinfo", None)
        if defs is not None and any(
            d[-1].scope in ("module", "package", "class") for d in defs.name2fixturedefs.values()
        ):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


# The firmware calls gc.collect() where the board needs its heap back (a join, a new match,
# a log write). Under CPython each call walks every object pytest and hypothesis hold, ~20 ms
# apiece: 4 of 5 seconds of the in-process host tests went there. So before each test module
# the objects alive then are collected once and frozen (gc.freeze: the collector skips them),
# and the firmware's collections walk only what the tests themselves made. What a collection
# does for the code under test is unchanged.
_frozen_for = []


def pytest_runtest_setup(item):
    module = item.nodeid.split("::")[0]
    if _frozen_for[-1:] != [module]:
        _frozen_for[:] = [module]
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def pytest_terminal_summary(terminalreporter):
    if _NO_MICROPY32:
        terminalreporter.section("NO 32-BIT MICROPYTHON", sep="!", red=True, bold=True)
        terminalreporter.write_line(_NO_MICROPY32[0], red=True, bold=True)
        terminalreporter.write_line(
            "The board's word size was not tested: the 32-bit core tests and memory budgets "
            "were skipped. Set MICROPY32 to a 32-bit unix port (docs/memory.md, "
            '"Building the 32-bit unix port").',
            red=True,
            bold=True,
        )


@pytest.fixture
def run_upy(upy_binary):
    """run_upy(script_or_code, heapsize=..., cwd=..., args=(), timeout=60, binary=None)
    -> CompletedProcess.

    A Path, or a str naming an existing .py file, runs as a script; any other str runs as
    `-c` code. cwd defaults to the repo root; stdout and stderr are captured as text. `binary`
    runs another unix port (the 32-bit one, upy32_binary) instead of the default.
    """

    def run(
        script_or_code,
        heapsize=DEFAULT_HEAPSIZE,
        cwd=REPO_ROOT,
        args=(),
        timeout=60,
        binary=None,
    ):
        is_path = isinstance(script_or_code, os.PathLike) or (
            str(script_or_code).endswith(".py") and Path(cwd, script_or_code).is_file()
        )
        command = [binary or upy_binary, "-X", f"heapsize={heapsize}"]
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
