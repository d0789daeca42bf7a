# Differential check of the projector: the records of every role's view after every command of
# seeded driven matches are byte-identical on CPython and on the MicroPython unix port
# (tools/projector_trace.py hashes them; both interpreters must print the same lines).
import pytest

pytestmark = pytest.mark.slow(seconds=15)
SEEDS = 40
STEPS = 250


def test_records_identical_on_cpython_and_micropython(run_both):
    cpython, upy = run_both("tools/projector_trace.py", 0, SEEDS, STEPS)
    assert len(cpython) == SEEDS
    assert upy == cpython
    views = sum(int(line.split()[2]) for line in cpython)
    records = sum(int(line.split()[3]) for line in cpython)
    assert views > SEEDS * 100 * 3
    assert records > views
