# Property tests (hypothesis) over random command streams through the engine API.
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from driver import goal_direction
from game import rules
from game.engine import KEY_SLOT, Match

STEP = st.tuples(
    st.sampled_from(("move", "goal", "goal", "goal", "drop", "advance", "forfeit")),
    st.integers(min_value=-1, max_value=3),  # seat (0 = observer, -1/3 = nonsense)
    st.integers(min_value=-1, max_value=4),  # direction (-1 and 4 are bad)
    st.integers(min_value=-40, max_value=400),  # time step; negative = out of order
)

SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def check_keys(m):
    for owner in (1, 2):
        ground = m.obj_present[KEY_SLOT[owner]]
        carriers = sum(1 for s in (1, 2) if m.inventory[s] == owner)
        assert ground + carriers == 1
        cell, carrier = m.key_location(owner)
        assert (cell >= 0) != (carrier > 0)
        if carrier:
            assert m.inventory[carrier] == owner


def run(seed, side, steps, observe):
    m = Match(seed, side, side, cooldown_ms=100, countdown_ms=200, artifact_pairs=2)
    m.start(0)
    t = 0
    for action, seat, direction, dt in steps:
        t = max(0, t + dt)
        if action == "advance":
            observe(m, "advance", m.advance(t), None)
            continue
        if action == "forfeit":
            if seat in (1, 2) and dt % 7 == 0:  # rarely: a forfeit ends everything
                observe(m, "forfeit", m.forfeit(seat, t), None)
            continue
        if t >= m.now:
            m.advance(t)  # the clock part of processing, separated so refusals can be checked
        before = (m.digest(), m.state_seq, m.meeting_seq)
        other_before = m.pos[3 - seat] if seat in (1, 2) else -1
        if action == "drop":
            code = m.enqueue(seat, rules.CMD_DROP, 0, t)
        else:
            if action == "goal" and seat in (1, 2):
                d = goal_direction(m, seat)
                direction = d if d >= 0 else direction
            code = m.enqueue(seat, rules.CMD_MOVE, direction, t)
        if code == rules.OK:
            code = m.process()
        observe(m, action, code, (before, seat, other_before))
    return m


@SETTINGS
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    side=st.sampled_from((5, 7, 9, 15)),
    steps=st.lists(STEP, max_size=250),
)
def test_random_command_streams_keep_every_invariant(seed, side, steps):
    state = {"meeting_moves": 0, "state_seq": 0, "cmd_seq": 0}

    def observe(m, action, code, info):
        check_keys(m)
        assert m.state_seq >= state["state_seq"]  # never goes back
        assert m.queue.last_seq >= state["cmd_seq"]
        if info is not None:
            (digest, seq, meetings), seat, other_before = info
            if code != rules.OK:
                # Refused commands never change the digest or the state sequence.
                assert (m.digest(), m.state_seq, m.meeting_seq) == (digest, seq, meetings)
            else:
                assert m.state_seq > seq  # accepted: strictly increases
                assert m.queue.last_seq > state["cmd_seq"]
                state["cmd_seq"] = m.queue.last_seq
                kinds = [m.ev_kind[i] for i in range(m.ev_count)]
                met = (
                    action != "drop"
                    and not m.exited[seat]
                    and not m.exited[3 - seat]
                    and m.pos[seat] == m.pos[3 - seat]
                    and rules.EV_MOVED in kinds
                )
                assert kinds.count(rules.EV_MEETING) == (1 if met else 0)
                if met:
                    state["meeting_moves"] += 1
        state["state_seq"] = m.state_seq
        # The meeting sequence equals the number of meeting moves.
        assert m.meeting_seq == state["meeting_moves"]

    run(seed, side, steps, observe)


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**31), steps=st.lists(STEP, max_size=150))
def test_a_match_is_a_pure_function_of_its_inputs(seed, steps):
    digests = []
    for _ in range(2):
        trace = []
        digests.append(trace)
        run(seed, 9, steps, lambda m, a, c, i, out=trace: out.append((c, m.digest())))
    assert digests[0] == digests[1]


@SETTINGS
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    junk=st.lists(
        st.one_of(
            st.none(),
            st.booleans(),
            st.text(max_size=3),
            st.floats(allow_nan=True),
            st.integers(min_value=-(2**70), max_value=2**70),
            st.lists(st.integers(), max_size=2),
        ),
        min_size=4,
        max_size=4,
    ),
)
def test_junk_through_the_api_is_refused_with_a_code_and_changes_nothing(seed, junk):
    m = Match(seed, 9, 9, countdown_ms=0)
    m.start(0)
    before = (m.digest(), m.state_seq)
    code = m.enqueue(*junk)
    assert code in (rules.OK, rules.BAD_COMMAND, rules.NOT_PLAYER)
    if code != rules.OK:
        assert m.queue.count == 0
    assert (m.digest(), m.state_seq) == before
    for call in (m.advance, m.start):
        assert isinstance(call(junk[0]), int)
    assert isinstance(m.forfeit(junk[0], junk[1]), int)
