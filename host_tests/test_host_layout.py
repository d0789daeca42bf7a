# The host library's rules (docs/architecture.md, "Host tools"): imports go one way,
# host_tests -> tools -> firmware, and no code edits sys.path but the tools' one helper
# (tools/_path.py) and the MicroPython test runner. Scripts that a test or tool hands to
# micropython as text are the board's business and are not code here.
import ast
import subprocess
import sys

import pytest

from hostenv import BOARD_HEAP, FIRMWARE, ROOT, TOOLS

ALLOWED_PATH_EDITS = {"tools/_path.py", "tools/dev/_path.py", "tools/upytest.py"}
# The runner of host_tests/core under MicroPython loads the tests, and their harness's Skip.
TEST_RUNNER = "tools/upytest.py"


def sources(*folders):
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(), str(path))


def _is_sys_path(node):
    while isinstance(node, ast.Subscript):
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def path_edits(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("insert", "append", "extend") and _is_sys_path(node.func.value):
                yield node.lineno
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_sys_path(target) for target in targets):
                yield node.lineno


def imported(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module.split(".")[0]


def test_no_sys_path_edits_but_the_tools_entry_helper():
    found = [
        "%s:%d" % (name, line)
        for name, tree in sources(TOOLS, ROOT / "host_tests", FIRMWARE)
        if name not in ALLOWED_PATH_EDITS
        for line in path_edits(tree)
    ]
    assert found == []


def test_imports_go_one_way():
    tests = {path.stem for path in (ROOT / "host_tests").rglob("*.py")}
    tools = {path.stem for path in TOOLS.glob("*.py")}  # not hostboard/: built-in stand-ins
    back = [
        (name, module)
        for name, tree in sources(TOOLS)
        if name != TEST_RUNNER
        for module in imported(tree)
        if module in tests and module not in tools
    ]
    assert back == []
    up = [
        (name, module)
        for name, tree in sources(FIRMWARE)
        for module in imported(tree)
        if module in tools
    ]
    assert up == []


def run_elsewhere(cwd, *command):
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_tools_run_from_any_working_directory(tmp_path):
    heap = run_elsewhere(tmp_path, sys.executable, TOOLS / "hostenv.py", "heap")
    assert heap == BOARD_HEAP + "\n"  # what the Makefile and run_host.sh read
    assert "classic" in run_elsewhere(tmp_path, sys.executable, TOOLS / "fairness.py", "2")
    assert run_elsewhere(tmp_path, sys.executable, TOOLS / "projector_trace.py", "0", "1", "5")
    # a one-off regenerator in tools/dev/ finds tools/ and firmware/ too (its own _path.py)
    run_elsewhere(tmp_path, sys.executable, TOOLS / "dev" / "make_golden_views.py", "--check")


@pytest.mark.upy
def test_portable_tools_run_from_any_working_directory_on_micropython(tmp_path, upy_binary):
    cpython = run_elsewhere(tmp_path, sys.executable, TOOLS / "diff_trace.py", "0", "2", "20")
    assert run_elsewhere(tmp_path, upy_binary, TOOLS / "diff_trace.py", "0", "2", "20") == cpython
