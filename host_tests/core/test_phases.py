# Match phases: waiting -> countdown -> active -> finished, driven only by the clock argument.
from game import rules
from game.engine import Match
from game.rules import OK, E
from scenario import move


def test_phases_run_waiting_countdown_active_finished():
    m = Match(21, 9, 9, countdown_ms=3000)
    assert m.phase == rules.WAITING
    assert m.start(1000) == OK
    assert m.phase == rules.COUNTDOWN and m.countdown_end == 4000
    assert m.advance(3999) == OK and m.phase == rules.COUNTDOWN
    assert m.advance(4000) == OK and m.phase == rules.ACTIVE
    assert m.forfeit(2, 5000) == OK and m.phase == rules.FINISHED


def test_every_phase_change_advances_the_state_sequence_and_emits_an_event():
    m = Match(21, 9, 9, countdown_ms=3000)
    m.start(0)
    assert m.state_seq == 1 and (rules.EV_PHASE, rules.COUNTDOWN, 0) == (
        m.ev_kind[0],
        m.ev_a[0],
        m.ev_b[0],
    )
    m.advance(3000)
    assert m.state_seq == 2 and m.ev_kind[0] == rules.EV_PHASE and m.ev_a[0] == rules.ACTIVE


def test_a_zero_countdown_goes_active_at_once():
    m = Match(21, 9, 9, countdown_ms=0)
    assert m.start(50) == OK
    assert m.phase == rules.ACTIVE


def test_a_command_stamped_at_the_end_of_the_countdown_is_accepted():
    m = Match(21, 9, 9, countdown_ms=3000)
    m.start(0)
    for d in range(4):
        if m.cells[m.pos[1]] & rules.DIR_BITS[d]:
            break
    assert move(m, 1, d, 3000) == OK
    assert m.phase == rules.ACTIVE


def test_the_engine_never_reads_a_clock():
    # Nothing moves without a time argument: the countdown stays put however long we wait.
    m = Match(21, 9, 9, countdown_ms=10)
    m.start(0)
    for _ in range(1000):
        m.process()
    assert m.phase == rules.COUNTDOWN and m.now == 0
    assert move(m, 1, E, 5) == rules.COUNTDOWN_REFUSED
