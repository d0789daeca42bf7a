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


def _fnv1a_reference(m):
    # The digest as documented (docs/engine.md, "Digest and determinism"): 32-bit FNV-1a over
    # the little-endian two's complement bytes of every field, in this order; whole numbers.
    h = 0x811C9DC5
    fields = [
        (m.width, m.height, m.phase, m.state_seq, m.meeting_seq, m.countdown_end, m.first_out),
        (m.result, m.winner),
    ]
    fields += [m.cells, m.obj_kind, m.obj_owner, m.obj_variant, m.obj_present, m.inventory]
    fields += [m.key_carrier, m.vision, m.compass, m.exit_open, m.exited]
    fields += [m.obj_cell, m.pos, m.ready_at, m.exit_time]
    for values in fields:
        for value in values:
            value &= 0xFFFFFFFF
            for _ in range(4):
                h = ((h ^ (value & 0xFF)) * 0x01000193) & 0xFFFFFFFF
                value >>= 8
    return h


def test_the_digest_is_fnv1a_and_makes_no_big_integers_on_the_way():
    # The digest works in 16-bit halves: on a 32-bit board a whole 32-bit hash at each step
    # would be a heap big integer (65,584 bytes of garbage a digest, measured). Only the two
    # tuples of fields and the result (a big integer there when >= 2 ** 30) may be allocated.
    m = arena(cooldown_ms=100)
    m.pos[1] = 3 * m.width + 3
    m.pos[2] = 3 * m.width + 4
    m.exit_time[1] = -1  # a negative field: its two's complement bytes
    _burst(m, 5)
    assert m.digest() == _fnv1a_reference(m)
    try:
        import gc

        gc.mem_alloc  # noqa: B018 - MicroPython only
    except (ImportError, AttributeError):
        return  # CPython: the value is what is checked
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        m.digest()
        used = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert used <= 256, used  # the two tuples (and the result) only
