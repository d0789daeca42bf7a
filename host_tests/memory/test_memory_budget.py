# The memory budget of the deployed board image (docs/memory.md): the image, built and copied
# to a virtual board as `make deploy` would, boots under the MicroPython unix port with a fixed
# heap and serves 2 players + 4 observers through a scripted match of 2,000 accepted moves
# (rematches included) without a MemoryError. tools/mem_budget.py does the work; `make mem`
# finds the smallest heap of both layouts by bisection.
#
# The goal of the issue is 64wK (64 KB on a 32-bit board, the ESP32's first heap).
# - With the code in a ROMFS partition (`make deploy ROMFS=1`: the same .mpy files, their
#   bytecode run in place from flash) the image serves the full room at 64wK: asserted.
# - With the .mpy files on the filesystem (`make deploy`, what stock firmware allows) every
#   import copies its bytecode into the heap: BUDGET_WK is the smallest heap it passes at,
#   measured, and test_filesystem_image_at_the_goal_heap is a strict xfail at 64wK, so the
#   day that layout fits too, the suite says so.

import pytest

import build_image
import mem_budget

pytestmark = [pytest.mark.upy, pytest.mark.slow]

GOAL_WK = 64  # the target
BUDGET_WK = 84  # the filesystem layout's smallest passing heap (make mem, docs/memory.md)
MOVES = 2000


@pytest.fixture(scope="module", autouse=True)
def _micropython(upy_binary):
    """Every test here needs the unix port (skipped without it, a failure under CI=true)."""


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    out = tmp_path_factory.mktemp("mem") / "image"
    mem_budget.build(out)
    return out


@pytest.fixture(scope="module")
def romfs(image):
    return build_image.build_romfs(image)


def explain(result):
    return "%s\n%s" % (mem_budget.describe(result), "\n".join(result.get("log_tail", ())))


def assert_full_room_served(result):
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


def test_romfs_image_serves_a_full_room_for_2000_moves_at_64wK(image, romfs):
    result = mem_budget.run_once(image, GOAL_WK, MOVES, romfs=romfs)
    assert_full_room_served(result)
    # the code really ran from /rom, with the image's bytes outside the 64wK heap
    assert "code: net.gateway from /rom/net/gateway.mpy" in result["boot_log"]
    assert result["reserved"] > romfs.stat().st_size


def test_filesystem_image_serves_a_full_room_for_2000_moves_at_its_budget(image):
    result = mem_budget.run_once(image, BUDGET_WK, MOVES)
    assert_full_room_served(result)
    assert "code: net.gateway from net/gateway.mpy" in result["boot_log"]
    # no ROMFS: only the built-in stand-ins (and padding) were held outside the heap
    assert any(line.startswith("vboard: built-in stand-ins ") for line in result["boot_log"])
    assert result["reserved"] > 0


@pytest.mark.xfail(strict=True, reason="the .mpy files on the filesystem need %dwK" % BUDGET_WK)
def test_filesystem_image_at_the_goal_heap(image):
    result = mem_budget.run_once(image, GOAL_WK, MOVES)
    assert result["ok"], explain(result)


def test_parts_are_measured_through_main_wiring(image, romfs):
    """`mem_budget.py --parts` runs main.wire() itself: one row per step of the wiring, in its
    order, for both layouts (the code from /rom costs less)."""
    layouts = [dict(mem_budget.parts(image)), dict(mem_budget.parts(image, romfs=romfs))]
    for rows in layouts:
        names = list(rows)
        steps = ["asyncio", "microdot", "game.engine", "net.gateway", "routes (5) and handlers"]
        assert [name for name in names if name in steps] == steps, names
        assert names[-2] == "routes (5) and handlers"
        assert names[-1].startswith("(qstr pool: ")
        assert rows["net.gateway"] > 0
    filesystem, rom = layouts
    assert rom["microdot"] < filesystem["microdot"]
