# Seed 000, "Command processing": one test (or more) per sentence, named after it.
from game import rules
from game.rules import CMD_DROP, CMD_MOVE, OK, QUEUE_DEPTH, E, N, S, W
from scenario import arena, at, close, drop, event_kinds, move, snapshot


def test_move_commands_enter_a_fixed_16_entry_fifo():
    m = arena()
    for i in range(QUEUE_DEPTH):
        assert m.enqueue(1, CMD_MOVE, E, 1000 + i) == OK
    assert QUEUE_DEPTH == 16
    assert m.enqueue(1, CMD_MOVE, E, 2000) == rules.QUEUE_FULL
    assert m.enqueue(2, CMD_DROP, 0, 2000) == rules.QUEUE_FULL
    assert m.queue.count == 16
    m.process()
    assert m.enqueue(1, CMD_MOVE, E, 2000) == OK  # one slot freed, one accepted
    assert m.enqueue(1, CMD_MOVE, E, 2001) == rules.QUEUE_FULL


def test_fifo_ring_wraps_around_many_times_without_losing_order():
    m = arena(cooldown_ms=0)
    t = 1
    expected = []
    for _ in range(10):
        for d in (E, W, E):
            assert m.enqueue(1, CMD_MOVE, d, t) == OK
            expected.append(m.queue.last_seq)
            t += 1
        while m.queue.count:
            m.process()
            assert m.done_seq == expected.pop(0)
    assert m.queue.last_seq == 30


def test_server_assigns_monotonically_increasing_command_sequence_on_acceptance():
    m = arena()
    seen = []
    for t in (10, 20, 30):
        assert m.enqueue(1, CMD_MOVE, E, t) == OK
        seen.append(m.queue.last_seq)
    # A refused enqueue does not take a sequence number.
    assert m.enqueue(0, CMD_MOVE, E, 40) == rules.NOT_PLAYER
    assert m.enqueue(1, CMD_MOVE, 9, 40) == rules.BAD_COMMAND
    assert m.queue.last_seq == seen[-1]
    assert m.enqueue(2, CMD_MOVE, W, 50) == OK
    seen.append(m.queue.last_seq)
    assert seen == [1, 2, 3, 4]
    # Processing never reassigns: each processed entry reports the sequence it got.
    done = []
    while m.queue.count:
        m.process()
        done.append(m.done_seq)
    assert done == seen


def test_sequence_is_assigned_at_acceptance_not_at_processing():
    m = arena()
    assert m.enqueue(2, CMD_MOVE, W, 5) == OK
    first = m.queue.last_seq
    assert m.enqueue(1, CMD_MOVE, E, 6) == OK
    assert m.queue.last_seq == first + 1
    m.process()
    assert m.done_seq == first and m.done_player == 2


def test_entries_are_processed_one_at_a_time_in_order():
    m = arena()
    start = m.pos[1]
    assert m.enqueue(1, CMD_MOVE, E, 100) == OK
    assert m.enqueue(1, CMD_MOVE, E, 200) == OK
    assert m.pos[1] == start  # nothing happens at enqueue time
    assert m.process() == OK
    assert m.pos[1] == start + 1 and m.queue.count == 1
    assert m.process() == OK
    assert m.pos[1] == start + 2 and m.queue.count == 0
    assert m.process() == rules.EMPTY


def test_accepted_move_crosses_exactly_one_open_passage_in_each_direction():
    m = arena(cooldown_ms=0)
    here = at(m, 4, 4)
    m.pos[1] = here
    t = 1
    for d, target in ((N, at(m, 4, 3)), (S, here), (E, at(m, 5, 4)), (W, here)):
        before = m.state_seq
        assert move(m, 1, d, t) == OK
        assert m.pos[1] == target
        assert m.state_seq == before + 1
        t += 1


def test_countdown_commands_leave_state_and_state_sequence_unchanged():
    m = arena(countdown_ms=3000)
    assert m.phase == rules.COUNTDOWN
    before = snapshot(m)
    assert move(m, 1, E, 100) == rules.COUNTDOWN_REFUSED
    assert move(m, 2, W, 2999) == rules.COUNTDOWN_REFUSED
    assert drop(m, 1, 2999) == rules.COUNTDOWN_REFUSED
    assert snapshot(m) == before
    # At the end of the countdown the same command is accepted.
    assert move(m, 1, E, 3000) == OK


def test_closed_wall_moves_leave_state_and_state_sequence_unchanged():
    m = arena()
    close(m, m.pos[1], E)
    before = snapshot(m)
    assert move(m, 1, E, 500) == rules.WALL
    assert snapshot(m) == before
    # The border is a wall too.
    m.pos[1] = at(m, 0, 4)
    before = snapshot(m)
    assert move(m, 1, W, 600) == rules.WALL
    assert snapshot(m) == before


def test_out_of_order_timestamps_leave_state_and_state_sequence_unchanged():
    m = arena()
    assert move(m, 1, E, 1000) == OK
    before = snapshot(m)
    assert move(m, 2, W, 999) == rules.OUT_OF_ORDER
    assert drop(m, 1, 500) == rules.OUT_OF_ORDER
    assert snapshot(m) == before
    assert m.now == 1000
    assert m.advance(1500) == OK
    assert move(m, 2, W, 1400) == rules.OUT_OF_ORDER  # behind an explicit clock advance too
    assert move(m, 2, W, 1500) == OK  # the same timestamp as the clock is in order


def test_commands_inside_the_per_player_cooldown_leave_state_unchanged():
    m = arena(cooldown_ms=250)
    assert move(m, 1, E, 1000) == OK
    before = snapshot(m)
    assert move(m, 1, E, 1001) == rules.COOLDOWN
    assert move(m, 1, E, 1249) == rules.COOLDOWN
    assert snapshot(m) == before
    assert move(m, 1, E, 1250) == OK  # exactly one cooldown later is allowed


def test_each_player_has_an_independent_cooldown_clock():
    m = arena(cooldown_ms=250)
    assert move(m, 1, E, 1000) == OK
    assert move(m, 2, W, 1001) == OK  # seat 1's cooldown does not hold seat 2
    assert move(m, 1, E, 1100) == rules.COOLDOWN
    assert move(m, 2, W, 1200) == rules.COOLDOWN
    assert move(m, 1, E, 1250) == OK
    assert move(m, 2, W, 1251) == OK


def test_player_positions_never_block_one_another():
    m = arena()
    m.pos[2] = at(m, 2, 1)
    assert move(m, 1, E, 100) == OK  # onto seat 2's cell
    assert m.pos[1] == m.pos[2]
    assert move(m, 2, S, 200) == OK  # and away again, through nobody
    assert move(m, 1, S, 300) == OK  # onto seat 2 once more
    assert m.pos[1] == m.pos[2] == at(m, 2, 2)


def test_meeting_move_emits_exactly_one_meeting_event_and_advances_the_meeting_sequence():
    m = arena()
    m.pos[2] = at(m, 2, 1)
    assert m.meeting_seq == 0
    assert move(m, 1, E, 100) == OK
    assert event_kinds(m).count(rules.EV_MEETING) == 1
    assert m.meeting_seq == 1
    # Moving off is not a meeting; moving on again is the second one.
    assert move(m, 1, W, 200) == OK
    assert rules.EV_MEETING not in event_kinds(m)
    assert m.meeting_seq == 1
    assert move(m, 2, W, 300) == OK
    assert event_kinds(m).count(rules.EV_MEETING) == 1
    assert m.meeting_seq == 2


def test_moves_that_do_not_end_on_the_other_player_are_not_meetings():
    m = arena()
    m.pos[2] = at(m, 3, 1)
    assert move(m, 1, E, 100) == OK  # next to seat 2, not on it
    assert m.meeting_seq == 0 and rules.EV_MEETING not in event_kinds(m)


def test_refused_move_onto_the_other_player_is_not_a_meeting():
    m = arena(cooldown_ms=250)
    m.pos[2] = at(m, 3, 1)
    assert move(m, 1, E, 100) == OK
    assert move(m, 1, E, 150) == rules.COOLDOWN
    assert m.meeting_seq == 0


def test_observers_cannot_enqueue_commands():
    m = arena()
    before = snapshot(m)
    for seat in (0, 3, -1, 255):
        assert m.enqueue(seat, CMD_MOVE, E, 100) == rules.NOT_PLAYER
        assert m.enqueue(seat, CMD_DROP, 0, 100) == rules.NOT_PLAYER
    assert m.queue.count == 0 and m.queue.last_seq == 0
    assert snapshot(m) == before


def test_waiting_and_finished_matches_refuse_commands_with_phase():
    from game.engine import Match

    m = Match(3, 9, 9)
    assert m.phase == rules.WAITING
    before = snapshot(m)
    assert move(m, 1, E, 10) == rules.PHASE
    assert snapshot(m) == before
    m = arena()
    assert m.forfeit(2, 50) == OK
    before = snapshot(m)
    assert move(m, 1, E, 100) == rules.PHASE
    assert snapshot(m) == before
