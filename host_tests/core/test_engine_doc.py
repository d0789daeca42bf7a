# Written only from docs/engine.md: if this breaks, the doc or the engine is wrong.
from game import rules
from game.engine import Match


def test_the_documented_walkthrough_works():
    m = Match(seed=42, width=15, height=15, cooldown_ms=250, countdown_ms=3000,
              artifact_pairs=2, braid_percent=40)  # fmt: skip
    assert m.phase == rules.WAITING and m.state_seq == 0
    assert m.start(0) == rules.OK and m.phase == rules.COUNTDOWN
    assert m.advance(3000) == rules.OK and m.phase == rules.ACTIVE
    # Find an open side of seat 1's cell from the documented flags (N=1 E=2 S=4 W=8).
    flags = m.cells[m.pos[1]]
    d = [rules.N, rules.E, rules.S, rules.W][[1, 2, 4, 8].index(flags & -flags)]
    assert m.enqueue(1, rules.CMD_MOVE, d, 3000) == rules.OK
    assert m.queue.last_seq == 1
    assert m.process() == rules.OK
    assert m.done_seq == 1 and m.done_player == 1 and m.done_kind == rules.CMD_MOVE
    names = [rules.EVENT_NAMES[m.ev_kind[i]] for i in range(m.ev_count)]
    assert names[0] == "moved" and m.ev_a[0] == 1 and m.ev_b[0] == m.pos[1]
    assert 0 <= m.digest() <= 0xFFFFFFFF


def test_the_documented_refusals_and_queries():
    m = Match(seed=42, width=15, height=15, countdown_ms=0)
    assert m.enqueue(0, rules.CMD_MOVE, rules.N, 0) == rules.NOT_PLAYER
    assert m.process() == rules.EMPTY
    assert m.enqueue(1, rules.CMD_DROP, 0, 0) == rules.OK
    assert m.process() == rules.PHASE  # still WAITING
    m.start(10)
    assert m.phase == rules.ACTIVE  # countdown 0 goes active at once
    assert m.radius(1) == 3
    cell, carrier = m.key_location(2)
    assert cell >= 0 and carrier == 0
    assert 0 <= m.exit_direction(1) <= 3
    assert m.exit_cell(1) != m.exit_cell(2)
    assert m.object_count() == 6 + 2 * 2
    assert rules.preset("classic")[1:3] == (15, 15)
    assert m.forfeit(1, 20) == rules.OK and m.winner == 2
    assert m.result == rules.RESULT_FORFEIT
