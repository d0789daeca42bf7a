# tools/flaky.py (make flaky): reruns a test, counts every run, keeps the output of the
# failing ones, and exits 1 when any failed; --load runs a copy beside each run.
import subprocess
import sys

from hostenv import ROOT

FLAKY = ROOT / "tools" / "flaky.py"
# fails on every second run: a counter file beside the test
SOMETIMES = """
from pathlib import Path

def test_every_second_run_fails():
    counter = Path(__file__).with_suffix(".count")
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    assert n % 2 == 0, "run %d" % n
"""


def _flaky(tmp_path, source, *args):
    test = tmp_path / "test_sample.py"
    test.write_text(source)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, FLAKY, str(test), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, out


def test_a_steady_test_passes_every_run(tmp_path):
    done, out = _flaky(tmp_path, "def test_fine():\n    assert True\n", "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "1 passed, 0 failed"
    assert list(out.iterdir()) == []  # nothing kept of a passing run


def test_a_flaky_test_is_counted_and_its_failing_output_kept(tmp_path):
    done, out = _flaky(tmp_path, SOMETIMES, "--runs", "3")
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "2 passed, 1 failed"
    kept = sorted(p.name for p in out.iterdir())
    assert kept == ["2-0.log"]
    assert "run 1" in (out / "2-0.log").read_text()


def test_load_runs_a_second_copy_beside_each_run(tmp_path):
    done, _ = _flaky(tmp_path, "def test_fine():\n    assert True\n", "--runs", "1", "--load")
    assert done.returncode == 0, done.stdout
    assert done.stdout.count("(the copy beside it)") == 1
    assert done.stdout.splitlines()[-1] == "2 passed, 0 failed"


def test_a_missing_test_file_is_one_clear_line(tmp_path):
    done = subprocess.run(
        [sys.executable, FLAKY, str(tmp_path / "nope.py")], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "flaky: error: no such test file: %s" % (tmp_path / "nope.py")
