# Differential check of the projector: the records of every role's view after every command of
# seeded driven matches are byte-identical on CPython and on the MicroPython unix port
# (tools/projector_trace.py hashes them; both interpreters must print the same lines).
import subprocess
import sys

SEEDS = 40
STEPS = 250


def _trace(cmd, repo_root):
    out = subprocess.run(
        cmd, cwd=repo_root, capture_output=True, text=True, timeout=600, check=True
    ).stdout
    return out.splitlines()


def test_records_identical_on_cpython_and_micropython(repo_root, upy_binary):
    args = ["tools/projector_trace.py", "0", str(SEEDS), str(STEPS)]
    cpython = _trace([sys.executable, *args], repo_root)
    upy = _trace([upy_binary, "-X", "heapsize=128wK", *args], repo_root)
    assert len(cpython) == SEEDS
    assert upy == cpython
    views = sum(int(line.split()[2]) for line in cpython)
    records = sum(int(line.split()[3]) for line in cpython)
    assert views > SEEDS * 100 * 3
    assert records > views
