# Differential check: the same seeded matches on CPython and on the real MicroPython unix port,
# compared digest by digest after every command (MicroPython's own tests work the same way).
import subprocess
import sys

SEEDS = 120
STEPS = 400


def _trace(cmd, repo_root):
    out = subprocess.run(
        cmd, cwd=repo_root, capture_output=True, text=True, timeout=600, check=True
    ).stdout
    return out.splitlines()


def test_cpython_and_micropython_agree_after_every_command(repo_root, upy_binary):
    args = ["tools/diff_trace.py", "0", str(SEEDS), str(STEPS)]
    cpython = _trace([sys.executable, *args], repo_root)
    upy = _trace([upy_binary, "-X", "heapsize=128wK", *args], repo_root)
    assert len(cpython) == SEEDS
    assert len(upy) == SEEDS
    compared = 0
    for a, b in zip(cpython, upy):
        da = a.split()
        db = b.split()
        assert da[:2] == db[:2]
        assert len(da) == len(db), da[:2]
        for i in range(2, len(da)):
            assert da[i] == db[i], "seed %s differs after command %d" % (da[0], i - 2)
            compared += 1
    assert compared > SEEDS * 100
