# tools/mem_budget.py's heaps (tools/board_run.py's) and bisection, without running a board:
# heaps in bytes of the binary that runs (plain bytes to a 32-bit port, NwK kept for the 64-bit
# one), and a bisection that starts at the budget (an unchanged image takes two runs) and still
# finds the smallest passing heap, in 2 KB steps on 32-bit and 4wK on 64-bit, wherever it has
# moved.
import pytest

import board_run
import mem_budget
from hostenv import BUDGET_FS, BUDGET_FS_64, BUDGET_ROMFS, Binary

BITS32 = Binary("/bin/micropython-32", 32, "MicroPython test 32")
BITS64 = Binary("/bin/micropython", 64, "MicroPython test 64")


def test_heaps_are_bytes_of_the_binary():
    assert board_run.heap_spec("88K", 32) == ("90112", 90112)
    assert board_run.heap_spec("88wK", 32) == ("90112", 90112)  # w: 4-byte words
    assert board_run.heap_spec(90112, 32) == ("90112", 90112)
    assert board_run.heap_spec("90112", 32) == ("90112", 90112)
    assert board_run.heap_spec("84wK", 64) == ("84wK", 172032)
    assert board_run.heap_spec("92K", 64) == ("94208", 94208)
    assert board_run.heap_label("94208", 94208) == "94,208 bytes (92K)"
    assert board_run.heap_label("84wK", 172032) == "172,032 bytes (84wK)"
    assert board_run.heap_label("90000", 90000) == "90,000 bytes"


def test_budgets_and_json_names_follow_the_word_size():
    assert board_run.budget_heap(32, romfs=False) == BUDGET_FS
    assert board_run.budget_heap(32, romfs=True) == BUDGET_ROMFS
    assert board_run.budget_heap(64, romfs=False) == BUDGET_FS_64
    assert mem_budget.default_json(32, False).name == "mem.json"
    assert mem_budget.default_json(32, True).name == "mem-romfs.json"
    assert mem_budget.default_json(64, False).name == "mem-64.json"
    assert mem_budget.default_json(64, True).name == "mem-64-romfs.json"


@pytest.fixture
def board_that_needs(monkeypatch):
    """bisect() against a pretend board that passes from `needs` bytes up; the trials made."""
    trials = []

    def use(needs):
        def run_once(image, heap, moves, say, romfs=None, binary=None):
            spec, size = board_run.heap_spec(heap, binary.word_bits)
            trials.append(spec)
            ok = size >= needs
            return {
                "ok": ok,
                "heap_bytes": size,
                "stage": "done" if ok else "booted",
                "error": None if ok else "RunFailed: pretend",
                "moves": 2000,
                "acks": {"p1": 1000, "p2": 1000},
                "matches": 18,
                "log_tail": [],
            }

        monkeypatch.setattr(mem_budget, "run_once", run_once)
        return trials

    return use


def bisect(binary, hint):
    return mem_budget.bisect(None, 2000, lambda *a: None, binary, hint=hint)


def test_an_image_at_or_a_step_below_its_budget_takes_two_or_three_runs(board_that_needs):
    trials = board_that_needs(92 * 1024)
    smallest, results = bisect(BITS32, 92 * 1024)
    assert smallest == str(92 * 1024)
    assert trials == [str(92 * 1024), str(90 * 1024)]
    assert not results[str(90 * 1024)]["ok"]
    trials.clear()
    board_that_needs(90 * 1024)
    smallest, _ = bisect(BITS32, 92 * 1024)
    assert smallest == str(90 * 1024)
    assert trials == [str(k * 1024) for k in (92, 90, 88)]


@pytest.mark.parametrize("needs_k", [90, 77, 100, 127, 160, 48, 40])
def test_the_smallest_passing_heap_in_2k_steps(board_that_needs, needs_k):
    trials = board_that_needs(needs_k * 1024)
    smallest, results = bisect(BITS32, 92 * 1024)
    expect = max(48, needs_k + needs_k % 2)  # 2 KB steps; 48 KB is the floor, checked
    assert smallest == str(expect * 1024), trials
    assert len(trials) == len(set(trials)) <= 10  # never the same heap twice
    if expect > 48:
        assert not results[str((expect - 2) * 1024)]["ok"]  # the step below was run: it fails


def test_64bit_bisection_in_4wk_steps(board_that_needs):
    trials = board_that_needs(80 * 2048 + 1)  # just above 80wK: 84wK is the answer
    smallest, _ = bisect(BITS64, BUDGET_FS_64)
    assert smallest == "84wK"
    assert trials[:2] == ["84wK", "80wK"]
    assert all(t.endswith("wK") and int(t[:-2]) % 4 == 0 for t in trials)
