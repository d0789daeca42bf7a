# Differential check: the same seeded matches on CPython and on the real MicroPython unix port,
# compared digest by digest after every command (MicroPython's own tests work the same way).
import pytest

pytestmark = pytest.mark.slow(seconds=90)

SEEDS = 120
STEPS = 400


def test_cpython_and_micropython_agree_after_every_command(run_both):
    cpython, upy = run_both("tools/diff_trace.py", 0, SEEDS, STEPS)
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
