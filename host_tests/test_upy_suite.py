# Runs tools/upytest.py under the real micropython binaries, so a plain `pytest` also covers the
# portable core tests on MicroPython, on the 64-bit unix port and on the 32-bit one (the board's
# word size: 31-bit small ints, 4-byte words; skipped when there is none, see conftest.py); and
# checks that the runner itself reports honestly. The core suite runs with the test heap
# (hostenv.CORE_TEST_HEAP, make test-upy's too), not the board's: the reference models the tests
# compare the core with hold more than the board does.
import re
import shutil

import pytest

from hostenv import CORE_TEST_HEAP, word_bits

pytestmark = pytest.mark.upy

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$", re.MULTILINE)

SAMPLE_TESTS = """\
from harness import skip


def test_b_passes():
    assert 1 + 1 == 2


def test_a_fails():
    assert 1 + 1 == 3, "arithmetic"


def test_c_skips():
    skip("not here")


def helper_not_collected():
    raise RuntimeError("never called")
"""


def summary(result):
    found = SUMMARY.findall(result.stdout)
    assert found, f"no summary line in:\n{result.stdout}\n{result.stderr}"
    return tuple(int(n) for n in found[-1])


@pytest.fixture
def fake_root(tmp_path, repo_root):
    # A minimal repo tree: the real harness plus a sample test module.
    core = tmp_path / "host_tests" / "core"
    core.mkdir(parents=True)
    (tmp_path / "firmware").mkdir()
    shutil.copy(repo_root / "host_tests" / "core" / "harness.py", core)
    (core / "test_sample.py").write_text(SAMPLE_TESTS)
    return tmp_path


@pytest.fixture(params=[64, 32], ids=["64-bit", "32-bit"])
def core_binary(request, upy_binary):
    """The unix port of each word size: the default one (64-bit from PyPI) and the 32-bit."""
    binary = upy_binary if request.param == 64 else request.getfixturevalue("upy32_binary")
    assert word_bits(binary) == request.param, binary
    return binary


def test_core_suite_passes_under_micropython(run_upy, repo_root, core_binary):
    result = run_upy(
        repo_root / "tools" / "upytest.py",
        heapsize=CORE_TEST_HEAP,
        timeout=300,
        binary=core_binary,
    )
    passed, failed, skipped = summary(result)
    assert failed == 0 and result.returncode == 0, result.stdout + result.stderr
    assert passed > 0
    # The summary is the last line, as CI reads it.
    assert (
        result.stdout.rstrip().splitlines()[-1] == f"{passed} passed, 0 failed, {skipped} skipped"
    )


def test_runner_reports_failures_and_skips(run_upy, repo_root, fake_root):
    (fake_root / "host_tests" / "core" / "test_broken.py").write_text("import no_such_module\n")
    result = run_upy(repo_root / "tools" / "upytest.py", args=["--root", fake_root])
    assert result.returncode == 1
    assert summary(result) == (1, 2, 1)
    assert "FAIL test_broken (import)" in result.stdout
    assert "FAIL test_sample.test_a_fails" in result.stdout
    assert "AssertionError: arithmetic" in result.stdout
    assert "SKIP test_sample.test_c_skips: not here" in result.stdout
    assert "test_b_passes" not in result.stdout  # passes stay quiet


def test_runner_runs_selected_tests(run_upy, repo_root, fake_root):
    result = run_upy(
        repo_root / "tools" / "upytest.py", args=["--root", fake_root, "test_sample.test_b_passes"]
    )
    assert result.returncode == 0, result.stdout
    assert summary(result) == (1, 0, 0)


def test_runner_fails_when_it_finds_no_tests(run_upy, repo_root, tmp_path):
    (tmp_path / "host_tests" / "core").mkdir(parents=True)
    result = run_upy(repo_root / "tools" / "upytest.py", args=["--root", tmp_path])
    assert result.returncode == 1
    assert summary(result) == (0, 0, 0)
