# Bad input through the engine API: a coded refusal, never an exception, nothing changed.
from game import rules
from game.engine import Match
from game.rules import CMD_DROP, CMD_MOVE, E
from scenario import arena, snapshot

WEIRD = (None, "1", 1.0, True, False, b"\x01", [1], (1,), -1, 2**40)


def test_unknown_command_kinds_are_bad_commands():
    m = arena()
    before = snapshot(m)
    for kind in (0, 3, 99, -1):
        assert m.enqueue(1, kind, 0, 10) == rules.BAD_COMMAND
    assert m.queue.count == 0 and snapshot(m) == before


def test_bad_directions_are_bad_commands():
    m = arena()
    for d in (-1, 4, 255, 1000):
        assert m.enqueue(1, CMD_MOVE, d, 10) == rules.BAD_COMMAND
    assert m.enqueue(1, CMD_DROP, 1, 10) == rules.BAD_COMMAND
    assert m.queue.count == 0


def test_wrong_player_ids_are_not_players():
    m = arena()
    for seat in (0, 3, -2, 99):
        assert m.enqueue(seat, CMD_MOVE, E, 10) == rules.NOT_PLAYER
        assert m.forfeit(seat, 10) == rules.NOT_PLAYER
    assert m.phase == rules.ACTIVE


def test_wrong_types_anywhere_are_bad_commands_and_never_raise():
    m = arena()
    before = snapshot(m)
    for value in WEIRD:
        if type(value) is int:
            continue
        assert m.enqueue(value, CMD_MOVE, E, 10) == rules.BAD_COMMAND
        assert m.enqueue(1, value, E, 10) == rules.BAD_COMMAND
        assert m.enqueue(1, CMD_MOVE, value, 10) == rules.BAD_COMMAND
        assert m.enqueue(1, CMD_MOVE, E, value) == rules.BAD_COMMAND
        assert m.advance(value) == rules.BAD_COMMAND
        assert m.start(value) == rules.BAD_COMMAND
        assert m.forfeit(value, 10) == rules.BAD_COMMAND
        assert m.forfeit(1, value) == rules.BAD_COMMAND
    assert m.queue.count == 0
    assert snapshot(m) == before


def test_timestamps_out_of_range_are_bad_commands():
    m = arena()
    for t in (-1, rules.CLOCK_LIMIT_MS + 1, 2**40):
        assert m.enqueue(1, CMD_MOVE, E, t) == rules.BAD_COMMAND
        assert m.advance(t) == rules.BAD_COMMAND
    assert m.enqueue(1, CMD_MOVE, E, rules.CLOCK_LIMIT_MS) == rules.OK


def test_clock_never_goes_back():
    m = arena()
    assert m.advance(500) == rules.OK
    before = snapshot(m)
    assert m.advance(499) == rules.OUT_OF_ORDER
    assert m.start(100) == rules.OUT_OF_ORDER
    assert m.forfeit(1, 100) == rules.OUT_OF_ORDER
    assert snapshot(m) == before and m.now == 500


def test_process_on_an_empty_queue_is_empty():
    m = arena()
    before = snapshot(m)
    assert m.process() == rules.EMPTY
    assert snapshot(m) == before


def test_start_twice_is_a_phase_refusal():
    m = Match(5, 9, 9, countdown_ms=1000)
    assert m.start(0) == rules.OK
    assert m.start(10) == rules.PHASE


def test_bad_settings_raise_value_error_at_construction_only():
    for kwargs in (
        {"width": 4},
        {"height": 33},
        {"cooldown_ms": -1},
        {"artifact_pairs": 5},
        {"width": "9"},
        {"braid_percent": 101},
    ):
        try:
            Match(1, **kwargs)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (kwargs,))
    try:
        Match("seed")
    except ValueError:
        pass
    else:
        raise AssertionError("accepted a str seed")


def test_every_code_has_a_name():
    assert len(rules.CODE_NAMES) == rules.EMPTY + 1
    assert rules.CODE_NAMES[rules.WALL] == "WALL"
    assert rules.CODE_NAMES[rules.QUEUE_FULL] == "QUEUE_FULL"
