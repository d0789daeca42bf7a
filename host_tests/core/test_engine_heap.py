# The steady-state command path allocates nothing: enqueue + process under heap_lock
# (MicroPython unix port only; skipped on CPython).
from game import rules
from game.engine import FIRST_ARTIFACT_SLOT, KEY_SLOT
from game.rules import CMD_DROP, CMD_MOVE, E, W
from harness import heap_locked
from scenario import arena, give, put


def _burst(m, rounds):
    # Seat 1 walks E/W between two cells; seat 2 stands on one of them, so every other move
    # is a meeting that returns keys; drops, refusals (cooldown, wall, no key) and clock
    # advances mix in.
    t = m.now
    for i in range(rounds):
        t += 100
        m.enqueue(1, CMD_MOVE, E if i % 2 == 0 else W, t)
        m.enqueue(2, CMD_DROP, 0, t)
        m.enqueue(1, CMD_MOVE, E, t + 1)  # inside the cooldown
        m.enqueue(2, CMD_MOVE, 0, t + 1)  # north of seat 2 is closed in the test setup
        while m.queue.count:
            m.process()
        m.advance(t + 50)
    return t


def test_enqueue_and_process_of_moves_allocate_nothing_in_steady_state():
    m = arena(cooldown_ms=100)
    m.pos[1] = 3 * m.width + 3
    m.pos[2] = 3 * m.width + 4
    m.cells[m.pos[2]] &= ~rules.DIR_BITS[rules.N] & 0xFF
    give(m, 2, 1)
    put(m, KEY_SLOT[2], m.pos[2])
    put(m, FIRST_ARTIFACT_SLOT, m.pos[1] + 1)
    _burst(m, 4)  # warm up: every code path once
    meetings = m.meeting_seq
    seq = m.state_seq
    heap_locked(_burst, m, 200)
    assert m.meeting_seq > meetings + 50
    assert m.state_seq >= seq + 200  # every round has one accepted move


def test_a_full_queue_refusal_allocates_nothing():
    m = arena()

    def fill():
        for i in range(20):
            m.enqueue(1, CMD_MOVE, E, 10 + i)
        return m.queue.count

    assert heap_locked(fill) == rules.QUEUE_DEPTH
