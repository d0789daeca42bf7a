# The soak's short form (tools/soak.py; `make soak` is the long one): the board image on a
# virtual board at its layout's heap (docs/memory.md), three matches back to back by the bot
# runner, a quiet one, one with chaos (players leaving and rejoining, dropping and coming back
# with their token, floods, stalls, junk connections), a quiet one. Asserted: the process never
# exits, no MemoryError or traceback in its log, every match ends with a result, and the heap
# in use after the quiet matches does not grow beyond soak.HEAP_GROWTH_BOUND. The latency
# ratio (a speed figure) is reported, never asserted here.
import pytest

import board_run
import hostenv
import soak

pytestmark = [pytest.mark.upy, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def _micropython(upy_binary):
    """Needs the unix port (skipped without it, a failure under CI=true)."""


@pytest.mark.parametrize("layout", ["romfs", "filesystem"])
def test_short_soak_at_the_board_heap(layout):
    report = soak.soak(matches=3, layout=layout, say=lambda *a: None)
    explain = "\n".join(report["failures"] + report["log_tail"])
    assert report["failures"] == [], explain
    assert report["alive"] and not report["memory_error"] and not report["traceback"]
    assert report["matches_started"] == report["matches_finished"] == 3, explain
    figures = report["bots"]
    assert figures["matches_with_result"] == 3 and figures["without_result"] == []
    chaos = sum(sum(row["chaos"].values()) for row in figures["bots"].values())
    assert chaos > 0 or figures["connections"]["junk"] > 0, "no chaos in the chaotic match"
    # a heap figure after every match, read from the firmware's own report
    heap = report["heap"]
    assert heap["all"]["matches"] == 3 and heap["quiet"]["matches"] == 2
    assert heap["all"]["min_largest_free"] > 0
    assert abs(heap["quiet"]["growth"]) <= soak.HEAP_GROWTH_BOUND
    # the honest player moved in both kinds of match; the figures exist (not judged here)
    latency = report["latency_ms"]
    assert latency["quiet"]["n"] > 0 and latency["chaos"]["n"] > 0


def test_log_parsing():
    log = "\n".join(
        [
            "vboard: built-in stand-ins 4096 bytes; reserved 10000; Python heap 1 (heapsize "
            "gives 1)",
            "game: match 1 starts",
            "mem: match 1 finished (heap used 110000, free 20000)",
            "mem: total=1, current=1, peak=1",
            "stack: 1 out of 2",
            "GC: total: 130000, used: 110000, free: 20000",
            " No. of 1-blocks: 9, 2-blocks: 4, max blk sz: 40, max free sz: 300",
            "game: match 2 starts",
            "mem: match 2 finished (heap used 110500, free 19500)",
            " No. of 1-blocks: 9, 2-blocks: 4, max blk sz: 40, max free sz: 200",
            "game: match 3 starts",
        ]
    )
    started, finished = board_run.match_heaps(log, bits=64)
    assert started == [1, 2, 3]
    assert finished == {
        1: {"used": 100000, "free": 20000, "largest_free": 300 * 32},
        2: {"used": 100500, "free": 19500, "largest_free": 200 * 32},
    }
    assert board_run.match_heaps(log, bits=32)[1][1]["largest_free"] == 300 * 16
    heap = soak.heap_figures(finished, lambda n: n % 2 == 1)
    assert heap["all"]["growth"] == 500 and heap["all"]["max"] == 100500
    assert heap["quiet"]["matches"] == 1 and heap["quiet"]["growth"] == 0


def test_heaps_of_the_layouts():
    assert soak.default_heap("romfs", 64) == "64wK"
    assert soak.default_heap("filesystem", 64) == "84wK"
    # On the 32-bit port the soak runs at make mem's budgets, in bytes (docs/memory.md), plus
    # room for the junk connections it adds to the full room.
    assert soak.default_heap("romfs", 32) == str(hostenv.BUDGET_ROMFS + soak.JUNK_ROOM)
    assert soak.default_heap("filesystem", 32) == str(hostenv.BUDGET_FS + soak.JUNK_ROOM)
    assert int(soak.default_heap("romfs", 32)) < int(soak.default_heap("filesystem", 32))
