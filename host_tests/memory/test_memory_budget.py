# The memory budget of the deployed board image (docs/memory.md): the image, built and copied
# to a virtual board as `make deploy` would, boots under the MicroPython unix port with a fixed
# heap and serves 2 players + 4 observers through a scripted match of 2,000 accepted moves
# (rematches included) without a MemoryError. tools/mem_budget.py does the work; `make mem`
# finds the smallest heap by bisection.
#
# The goal of the issue is 64wK (64 KB on a 32-bit board, the ESP32's first heap). The .mpy
# image does not reach it yet: BUDGET_WK is the smallest heap it passes at, measured, and
# test_goal_heap is a strict xfail at 64wK, so the day the image fits, the suite says so.

import pytest

import mem_budget

pytestmark = [pytest.mark.upy, pytest.mark.slow]

GOAL_WK = 64  # the target
BUDGET_WK = 88  # the smallest heap it passes at (make mem, docs/memory.md): lower it as it shrinks
MOVES = 2000


@pytest.fixture(scope="module", autouse=True)
def _micropython(virtual_board_binary):
    """Every test here needs the unix port (skipped without it, a failure under CI=true)."""


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    out = tmp_path_factory.mktemp("mem") / "image"
    mem_budget.build(out)
    return out


def explain(result):
    return "%s\n%s" % (mem_budget.describe(result), "\n".join(result.get("log_tail", ())))


def test_image_serves_a_full_room_for_2000_moves_at_the_budget_heap(image):
    result = mem_budget.run_once(image, BUDGET_WK, MOVES)
    assert result["ok"], explain(result)
    assert result["alive"] and not result["memory_error"] and not result["traceback"]
    # every move counted was acknowledged by the board, and both players moved
    acks = result["acks"]
    assert sum(acks.values()) >= MOVES
    assert min(acks.values()) >= MOVES // 4, acks
    assert result["matches"] >= 2, "no rematch: the maze was never generated again"
    # all four observers were served views throughout, up to the final state
    views = result["views"]
    assert len(views) == 6
    assert min(views[name] for name in views if name.startswith("obs")) >= MOVES // 4, views
    # the heap figures: printed at boot, served on /status
    assert any(line.startswith("mem: ready: heap used ") for line in result["boot_log"])
    for stage in ("boot", "six_clients", "end"):
        figures = result[stage]
        assert figures["mem_alloc"] > 0 and figures["mem_free"] > 0, (stage, figures)


@pytest.mark.xfail(strict=True, reason="the .mpy image needs %dwK (docs/memory.md)" % BUDGET_WK)
def test_goal_heap(image):
    result = mem_budget.run_once(image, GOAL_WK, MOVES)
    assert result["ok"], explain(result)
