# The match log's pure half (game/matchlog.py, game/replay.py, docs/log.md) on both
# interpreters: entries and headers round-trip, a changed byte or an entry out of its place is
# refused, writing an entry allocates nothing, and the replay rebuilds driven matches bit for
# bit (refused commands and clock-only steps included: what they change is logged as clock
# advances).
from game import rules
from game.engine import Match
from game.matchlog import Header
from game.replay import Replay
from harness import heap_locked, is_micropython, raises
from logbook import (
    CHECK,
    CLOCK,
    DIGEST,
    DROP,
    END,
    ENTRY,
    FORFEIT,
    HEADER,
    MOVE,
    RESULT,
    check,
    driven_log,
    engine_seed,
    read,
    seed_bytes_for,
)

BIG_T = rules.CLOCK_LIMIT_MS


def _entry(index, kind, seat, arg, aux, value):
    buf = bytearray(ENTRY)
    Header.record(buf, 0, index, kind, seat, arg, aux, value)
    return buf


def test_entries_round_trip_at_the_limits_of_each_field():
    cases = (
        (0, MOVE, 1, 3, 0, 0),
        (1, MOVE, 2, 0, 1023, BIG_T),
        (2, DROP, 1, 0, 511, 123456),
        (3, CLOCK, 0, 0, 0, 3000),
        (70000, FORFEIT, 2, 0, 0, BIG_T),
        (5, CHECK, 0, 1, 255, 0xFFFFFFFF),
        (6, CHECK, 0, 0, 0, 0),
        (7, END, 2, rules.RESULT_FORFEIT, 0, 29938),
        (8, END, 0, 0, 0, 0),
    )
    for case in cases:
        buf = _entry(*case)
        assert Replay.read(buf, 0, case[0]) == case[1:], case


def test_a_changed_bit_or_an_entry_out_of_its_place_is_refused():
    buf = _entry(41, MOVE, 1, 2, 17, 98765)
    assert Replay.read(buf, 0, 41) is not None
    for i in range(ENTRY):
        for bit in range(8):
            bad = bytearray(buf)
            bad[i] ^= 1 << bit
            assert Replay.read(bad, 0, 41) is None, (i, bit)
    for other in (0, 40, 42, 41 + 256, 41 + 65536 - 1):
        assert Replay.read(buf, 0, other) is None, other
    assert Replay.read(bytearray(ENTRY), 0, 0) is None  # zeros: no kind
    assert Replay.read(b"\xff" * ENTRY, 0, 0) is None  # erased flash


def test_a_header_round_trips_and_a_damaged_one_is_refused():
    h = Header((21, 21, 3, 40, 250, 3000), bytes(range(16)))
    h.digest = bytes(range(100, 132))
    h.match_no = 7
    h.last_c = [0, 1073741823, 5]
    h.token_hash = [b"", b"A" * 16, b"B" * 16]
    h.players = ["", "Ann\u00e9e \U0001f600", "b" * 12]
    raw = h.write(bytearray(HEADER))
    back = Replay.head(raw)
    assert back.params == (21, 21, 3, 40, 250, 3000)
    assert back.seed == h.seed and back.digest == h.digest and back.match_no == 7
    assert back.last_c == h.last_c and back.token_hash[1:] == h.token_hash[1:]
    assert back.players == h.players
    assert engine_seed(raw[16:]) == engine_seed(h.seed) == 0x00010203
    for i in (0, 4, 6, 20, 100, HEADER - 1):
        bad = bytearray(raw)
        bad[i] ^= 0x10
        raises(ValueError, Replay.head, bad)
    raises(ValueError, Replay.head, raw[: HEADER - 1])
    for damage, why in ((b"MDLX", "not a match log"), (b"MDLG\x02", "format 2")):
        bad = damage + raw[len(damage) :]
        assert why in str(raises(ValueError, read, bad + bytes(8)))


def test_the_engine_seed_is_30_bits_of_the_seed():
    assert engine_seed(b"\xff" * 16) == 0x3FFFFFFF
    assert engine_seed(seed_bytes_for(123456789)) == 123456789
    params = (9, 9, 1, 40, 250, 3000)
    for seed in (b"\xff" * 16, seed_bytes_for(123456789), bytes(range(16))):
        assert Replay(Header(params, seed)).match.seed == engine_seed(seed)  # the firmware's


def test_writing_an_entry_allocates_nothing():
    buf = bytearray(8 * ENTRY)

    def burst(n):
        for i in range(n):
            Header.record(buf, 8 * (i & 7), i, MOVE, 1 + (i & 1), i & 3, i & 1023, i * 97)
        return n

    assert heap_locked(burst, 300) == 300
    assert Replay.read(buf, 8 * (299 & 7), 299) == (MOVE, 2, 3, 299, 299 * 97)


def _replays_exactly(seed, preset, steps):
    data, m = driven_log(seed, preset, steps)
    head, entries, dropped = read(data)
    assert dropped == 0
    rep = Replay(head)
    for entry in entries:
        assert rep.take(entry), (seed, rep.reason)
    assert rep.done and rep.reason is None
    assert rep.match.digest() == m.digest() and rep.match.state_seq == m.state_seq
    assert (rep.match.result, rep.match.winner) == (m.result, m.winner)
    return m, entries


def test_replay_rebuilds_driven_matches_bit_for_bit():
    seeds = range(3) if is_micropython() else range(24)
    kinds = set()
    results = set()
    for seed in seeds:
        preset = ("small", "classic", "large", "huge")[seed % 4]
        m, entries = _replays_exactly(seed * 7919 + 1, preset, 300)
        kinds.update(e[0] for e in entries)
        results.add(m.result)
    assert {MOVE, DROP, CLOCK, CHECK, END} <= kinds
    if not is_micropython():
        assert {rules.RESULT_WIN, rules.RESULT_FORFEIT} <= results


def test_replay_onto_an_existing_match_resets_it():
    data, m = driven_log(5, "small", 200)
    head, entries, _ = read(data)
    other = Match(999, 9, 9, 250, 3000, 1, 40)
    rep = Replay(head, other)
    for entry in entries:
        rep.take(entry)
    assert rep.match is other and other.digest() == m.digest()


def test_replay_reports_a_wrong_digest_a_wrong_result_and_an_impossible_command():
    data, m = driven_log(11, "small", 300)
    head, entries, _ = read(data)
    last = len(entries) - 1
    check_at = last - 1
    assert entries[check_at][0] == CHECK and entries[last][0] == END

    def first_problem(changed):
        rep = Replay(head)
        for entry in changed:
            rep.take(entry)
        return rep.reason

    kind, seat, arg, aux, digest = entries[check_at]
    wrong = list(entries)
    wrong[check_at] = (kind, seat, arg, aux, digest ^ 1)
    assert first_problem(wrong) == (check_at, DIGEST, digest ^ 1, digest)
    kind, seat, arg, aux, t = entries[last]
    wrong = list(entries)
    wrong[last] = (kind, 3 - seat if seat else 1, arg or rules.RESULT_WIN, aux, t)
    assert first_problem(wrong)[:2] == (last, RESULT)
    moves = [i for i, e in enumerate(entries) if e[0] == MOVE]
    i = moves[len(moves) // 2]
    kind, seat, arg, aux, t = entries[i]
    wrong = list(entries)
    wrong[i] = (kind, seat, arg, aux, entries[i - 1][4] - 1 if i else 0)  # back in time
    assert first_problem(wrong) is not None
    assert first_problem(entries) is None


def test_a_torn_or_garbage_tail_is_dropped_never_replayed():
    data, m = driven_log(3, "classic", 250)
    full = check(data)
    assert full["ok"] and full["dropped_bytes"] == 0 and full["digest"] == "%08x" % m.digest()
    entries = full["entries"]
    for cut in (1, 3, 7):  # an entry cut short
        torn = check(data[:-cut])
        assert torn["entries"] == entries - 1 and torn["dropped_bytes"] == ENTRY - cut
        assert not torn["finished"] and not torn["ok"] and torn["problem"] is None
    garbage = data[: -2 * ENTRY] + bytes(range(200, 216))
    report = check(garbage)
    assert report["entries"] == entries - 2 and report["dropped_bytes"] == 16
    assert report["problem"] is None  # dropped, not replayed as garbage


def test_a_log_names_its_ruleset_and_series_and_replays_in_it():
    from game import rulesets

    for index in range(len(rulesets.RULESETS)):
        entry = rulesets.RULESETS[index]
        data, m = driven_log(5 + index, ruleset=index, score=(1, 0), steps=300)
        head, entries, dropped = read(data)
        assert head.series == (index, entry[13] // 2, 1, 0)
        rep = Replay(head)
        for e in entries:
            assert rep.take(e), (entry[0], rep.reason)
        assert rep.match.rules == m.rules and rep.match.digest() == m.digest(), entry[0]
    # classic's header is as before the rulesets: bytes 14 and 15 are 0
    data, _ = driven_log(3, "classic", 50)
    assert data[14] == 0 and data[15] == 0
    # an index no ruleset has is refused
    bad = bytearray(data)
    bad[14] = 0xF0
    bad[206:208] = bytes(
        ((Header.sum(bad, 0, 206, 0, 0) >> 8), Header.sum(bad, 0, 206, 0, 0) & 255)
    )
    assert raises(ValueError, Replay.head, bad)
