# Seed 000, "Exits and results": opening, the outward move, the 200 ms window, opponent exits.
from game import rules
from game.engine import KEY_SLOT
from game.rules import OK, E, N, S, W
from scenario import arena, at, drop, event_kinds, events, give, move, snapshot


def at_own_exit(m, seat, with_key=True, opened=True):
    """Put seat on its own exit cell (border) carrying its key, exit opened by entering it."""
    exit_cell = m.exit_cell(seat)
    inner = {rules.W: 1, rules.E: -1, rules.N: m.width, rules.S: -m.width}[m.exit_direction(seat)]
    m.pos[seat] = exit_cell + inner
    if with_key:
        give(m, seat, seat)
    back = {1: W, -1: E, m.width: N, -m.width: S}[inner]
    return back


def test_entering_own_exit_with_the_matching_key_opens_it_but_does_not_finish():
    m = arena()
    back = at_own_exit(m, 1)
    assert move(m, 1, back, 100) == OK
    assert m.pos[1] == m.exit_cell(1)
    assert m.exit_open[1] == 1
    assert (rules.EV_EXIT_OPENED, 1, 0) in events(m)
    assert m.phase == rules.ACTIVE and m.exited[1] == 0 and m.result == rules.RESULT_NONE


def test_entering_own_exit_without_the_key_does_not_open_it():
    m = arena()
    back = at_own_exit(m, 1, with_key=False)
    assert move(m, 1, back, 100) == OK
    assert m.exit_open[1] == 0
    assert move(m, 1, m.exit_direction(1), 300) == rules.EXIT_CLOSED


def test_entering_own_exit_with_the_opponents_key_does_not_open_it():
    m = arena()
    back = at_own_exit(m, 1, with_key=False)
    give(m, 1, 2)
    assert move(m, 1, back, 100) == OK
    assert m.exit_open[1] == 0


def test_player_must_issue_another_move_pointing_out_of_the_map_from_the_open_exit():
    m = arena()
    back = at_own_exit(m, 1)
    assert move(m, 1, back, 100) == OK
    out = m.exit_direction(1)
    assert m.exited[1] == 0
    before = m.state_seq
    assert move(m, 1, out, 200) == OK
    assert m.exited[1] == 1 and m.exit_time[1] == 200
    assert m.state_seq == before + 1
    assert (rules.EV_EXITED, 1, 0) in events(m)
    assert m.phase == rules.ACTIVE  # the window is open; nothing decided yet


def test_other_moves_from_an_open_exit_are_ordinary_moves():
    m = arena()
    back = at_own_exit(m, 1)
    assert move(m, 1, back, 100) == OK
    # Moving back inside is allowed and does not leave the maze.
    assert move(m, 1, rules.DIR_OPPOSITE[back], 200) == OK
    assert m.exited[1] == 0 and m.exit_open[1] == 1


def test_the_exit_stays_open_after_the_key_is_dropped():
    m = arena()
    back = at_own_exit(m, 1)
    assert move(m, 1, back, 100) == OK
    assert drop(m, 1, 150) == OK
    assert move(m, 1, m.exit_direction(1), 200) == OK
    assert m.exited[1] == 1


def test_outward_move_respects_the_cooldown():
    m = arena(cooldown_ms=250)
    back = at_own_exit(m, 1)
    assert move(m, 1, back, 100) == OK
    before = snapshot(m)
    assert move(m, 1, m.exit_direction(1), 200) == rules.COOLDOWN
    assert snapshot(m) == before


def exit_both(m, t1):
    for seat in (1, 2):
        back = at_own_exit(m, seat)
        assert move(m, seat, back, t1 - 300) == OK
    assert move(m, 1, m.exit_direction(1), t1) == OK


def test_first_accepted_outward_move_starts_a_200_ms_finish_window():
    m = arena()
    exit_both(m, 1000)
    assert m.first_out == 1
    assert m.advance(1200) == OK
    assert m.phase == rules.ACTIVE and m.result == rules.RESULT_NONE  # +200: still open


def test_other_player_exiting_at_the_same_timestamp_is_a_draw():
    m = arena()
    exit_both(m, 1000)
    assert move(m, 2, m.exit_direction(2), 1000) == OK
    assert m.phase == rules.FINISHED
    assert m.result == rules.RESULT_DRAW and m.winner == 0
    assert event_kinds(m)[-2:] == [rules.EV_RESULT, rules.EV_PHASE]


def test_other_player_exiting_up_to_and_including_200_ms_later_is_a_draw():
    for delay in (1, 199, 200):
        m = arena()
        exit_both(m, 1000)
        assert move(m, 2, m.exit_direction(2), 1000 + delay) == OK
        assert m.result == rules.RESULT_DRAW, delay


def test_once_time_is_strictly_more_than_200_ms_later_advancing_finalizes_the_winner():
    m = arena()
    exit_both(m, 1000)
    assert m.advance(1200) == OK
    assert m.result == rules.RESULT_NONE
    before = m.state_seq
    assert m.advance(1201) == OK
    assert m.phase == rules.FINISHED
    assert m.result == rules.RESULT_WIN and m.winner == 1
    assert m.state_seq == before + 1
    assert (rules.EV_RESULT, rules.RESULT_WIN, 1) in events(m)


def test_second_exit_201_ms_later_comes_after_the_win_and_is_refused():
    m = arena()
    exit_both(m, 1000)
    assert move(m, 2, m.exit_direction(2), 1201) == rules.PHASE
    assert m.result == rules.RESULT_WIN and m.winner == 1
    assert m.exited[2] == 0


def test_the_window_is_not_finalised_without_a_clock_advance():
    m = arena()
    exit_both(m, 1000)
    assert m.phase == rules.ACTIVE  # no time has passed on the authoritative clock


def test_opponent_exit_never_opens_for_the_wrong_player():
    m = arena()
    # Seat 1 enters seat 2's exit carrying seat 2's key, then its own key: never opens.
    for carried in (2, 1):
        m = arena()
        back = at_own_exit(m, 2, with_key=False)
        m.pos[1] = m.pos[2]
        m.pos[2] = at(m, 4, 4)
        give(m, 1, carried)
        assert move(m, 1, back, 100) == OK
        assert m.pos[1] == m.exit_cell(2)
        assert m.exit_open[2] == 0 and m.exit_open[1] == 0


def test_opponent_exit_never_permits_an_outward_move_for_the_wrong_player():
    m = arena()
    m.exit_open[2] = 1  # even when it is open for its owner
    m.pos[1] = m.exit_cell(2)
    before = snapshot(m)
    assert move(m, 1, m.exit_direction(2), 100) == rules.NOT_YOUR_EXIT
    assert snapshot(m) == before


def test_an_exited_player_can_do_nothing_more():
    m = arena()
    exit_both(m, 1000)
    before = snapshot(m)
    assert move(m, 1, E, 1100) == rules.EXITED
    assert drop(m, 1, 1100) == rules.EXITED
    assert m.forfeit(1, 1100) == rules.EXITED
    assert snapshot(m) == before


def test_an_exited_player_cannot_be_met():
    m = arena()
    exit_both(m, 1000)
    cell = m.exit_cell(1)
    assert cell == at(m, 0, 8) and m.exit_direction(1) == W  # where arena() puts it
    m.pos[2] = at(m, 1, 8)
    assert move(m, 2, W, 1100) == OK  # onto the cell seat 1 left the maze from
    assert m.pos[2] == cell
    assert m.meeting_seq == 0 and rules.EV_MEETING not in event_kinds(m)


def test_forfeit_ends_the_match_and_the_other_seat_wins():
    m = arena()
    assert m.forfeit(1, 500) == OK
    assert m.phase == rules.FINISHED
    assert m.result == rules.RESULT_FORFEIT and m.winner == 2
    assert m.forfeit(2, 600) == rules.PHASE


def test_a_key_carried_out_through_the_exit_keeps_one_location():
    m = arena()
    exit_both(m, 1000)
    assert m.exited[1] == 1
    assert m.key_location(1) == (-1, 1)  # still carried, by the seat outside the maze
    assert m.key_location(2) == (-1, 2)
    assert m.obj_present[KEY_SLOT[1]] == 0 and m.inventory[1] == 1
