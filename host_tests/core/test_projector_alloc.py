# The steady state of the projector allocates nothing: begin() and write() of every record of a
# view run under micropython.heap_lock() (unix port), and leave gc.mem_alloc() unchanged.
# Skipped on CPython.
import gc

from driver import new_match, play
from game.projector import OBSERVER, Projector
from harness import heap_locked, skip


def _project_all(proj, m, role):
    total = 0
    for i in range(proj.begin(m, role)):
        total += proj.write(i)
    return total


def _match(vision):
    m = new_match(4, "classic", countdown_ms=0)
    play(m, 4, 40)
    if vision:
        m.vision[1] = 10
        m.vision[2] = 10
    return m


def _check(role, vision):
    proj = Projector()
    m = _match(vision)
    expected = _project_all(proj, m, role)  # the first call: nothing is created lazily
    assert heap_locked(_project_all, proj, m, role) == expected


def test_player_view_radius_3_allocates_nothing():
    _check(1, False)
    _check(2, False)


def test_player_view_radius_6_allocates_nothing():
    _check(1, True)


def test_observer_view_allocates_nothing():
    _check(OBSERVER, False)


def test_no_garbage_either():
    # heap_lock proves nothing is allocated that must succeed; mem_alloc also catches
    # allocations that MicroPython would have tried and quietly replaced by the C stack.
    if not hasattr(gc, "mem_alloc"):
        skip("gc.mem_alloc needs MicroPython")
    proj = Projector()
    m = _match(False)
    for role in (1, 2, OBSERVER):
        _project_all(proj, m, role)
        gc.collect()
        gc.disable()
        try:
            before = gc.mem_alloc()
            _project_all(proj, m, role)
            after = gc.mem_alloc()
        finally:
            gc.enable()
        assert after == before, (role, after - before)
