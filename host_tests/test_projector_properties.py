# Property tests (hypothesis, CPython) of the view projector:
# - noninterference, for both visibility models (the square; line of sight, where "outside"
#   means out of sight, docs/rules.md): changing anything a player may not see (the opponent's
#   position or key while out of view, objects and cells outside what it sees, the seed,
#   the opponent's compass hint and effect counters, start cells, clocks, the queue) leaves
#   that player's records byte-identical; changing what it does see changes them;
# - random states of every size reassemble, through the decoder, into exactly the reference
#   projection, every record <= 512 bytes, and players never get an observer's members.
import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from driver import every, new_match, play
from game import rules
from game.projector import OBSERVER, Projector
from game.rules import RECORD_MAX
from projector_model import check_view, records, sees

pytestmark = pytest.mark.slow(seconds=50)  # (a tenth of it in make check)

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRESETS = ("small", "classic", "large", "huge")
HIDDEN = (
    "opp_pos",
    "opp_inventory",
    "opp_vision",
    "opp_compass",
    "opp_exit",
    "objects",
    "seed",
    "cells",
    "starts",
    "clocks",
    "carriers",
    "queue",
    "own_exit_time",
)

_POOL = []


def _collect(m, seed):
    _POOL.append(copy.deepcopy(m))
    play(m, seed, 400, every(20, lambda m: _POOL.append(copy.deepcopy(m))))
    _POOL.append(copy.deepcopy(m))


def pool():
    """Match states from driven matches of every preset (copied along the way)."""
    if not _POOL:
        for seed in range(6):
            for preset in PRESETS:
                _collect(new_match(seed * 7 + 1, preset, countdown_ms=0), seed)
    return _POOL


def _base(index):
    states = pool()
    return copy.deepcopy(states[index % len(states)])


def _sight(m, data):
    """The line-of-sight ruleset's radii on m, half of the time."""
    if data.draw(st.booleans()):
        m.rules = (5, data.draw(st.sampled_from((5, 8, 9))), 10, 200, 1, 1)


def hide_changes(data, m, seat):
    """Apply a random set of changes that seat may not see; returns their names."""
    other = 3 - seat
    n = m.width * m.height
    memo = {}
    seen = [sees(m, seat, c, memo) for c in range(n)]

    def _inside(m, seat, cell):
        return seen[cell]

    outside = [c for c in range(n) if not seen[c]]
    opp_hidden = m.exited[other] or not _inside(m, seat, m.pos[other])
    kinds = sorted(data.draw(st.sets(st.sampled_from(HIDDEN), min_size=1)))
    cell_out = st.sampled_from(outside) if outside else None
    for kind in kinds:
        if kind == "opp_pos" and opp_hidden:
            if m.exited[other]:
                m.pos[other] = data.draw(st.integers(0, n - 1))
            elif outside:
                m.pos[other] = data.draw(cell_out)
        elif kind == "opp_inventory" and opp_hidden:
            m.inventory[other] = data.draw(st.integers(0, 2))
        elif kind == "opp_vision":
            m.vision[other] = data.draw(st.integers(0, 10))
        elif kind == "opp_compass":
            m.compass[other] = data.draw(st.sampled_from((0, 1, 2, 3, 4, 5, 6, 7, 255)))
        elif kind == "opp_exit":
            m.exit_open[other] = data.draw(st.integers(0, 1))
            m.exit_time[other] = data.draw(st.integers(-1, rules.CLOCK_LIMIT_MS))
            if not _inside(m, seat, m.pos[other]):
                m.exited[other] = data.draw(st.integers(0, 1))
        elif kind == "objects":
            for slot in range(m.object_count()):
                here = m.obj_cell[slot]
                if m.obj_present[slot] and _inside(m, seat, here):
                    continue  # seen: must stay as it is
                if not m.obj_present[slot] and data.draw(st.booleans()):
                    m.obj_cell[slot] = data.draw(st.integers(0, n - 1))  # still off the ground
                elif outside and data.draw(st.booleans()):
                    m.obj_cell[slot] = data.draw(cell_out)
                    m.obj_present[slot] = data.draw(st.integers(0, 1))
        elif kind == "seed":
            m.seed = data.draw(st.integers(0, 2**32 - 1))
        elif kind == "cells" and outside:
            for cell in data.draw(st.lists(cell_out, min_size=1, max_size=40)):
                m.cells[cell] = data.draw(st.integers(0, 15))
        elif kind == "starts":
            m.start_cell = (0, data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1)))
        elif kind == "clocks":
            m.now = data.draw(st.integers(0, rules.CLOCK_LIMIT_MS))
            m.countdown_end = data.draw(st.integers(0, rules.CLOCK_LIMIT_MS))
            m.ready_at[1] = data.draw(st.integers(0, rules.CLOCK_LIMIT_MS))
            m.ready_at[2] = data.draw(st.integers(0, rules.CLOCK_LIMIT_MS))
            m.first_out = data.draw(st.integers(0, 2))
        elif kind == "carriers":
            m.key_carrier[1] = data.draw(st.integers(0, 2))
            m.key_carrier[2] = data.draw(st.integers(0, 2))
        elif kind == "queue":
            for _ in range(data.draw(st.integers(1, 4))):
                m.enqueue(
                    data.draw(st.integers(1, 2)),
                    rules.CMD_MOVE,
                    data.draw(st.integers(0, 3)),
                    data.draw(st.integers(0, rules.CLOCK_LIMIT_MS)),
                )
        elif kind == "own_exit_time":
            m.exit_time[seat] = data.draw(st.integers(-1, rules.CLOCK_LIMIT_MS))
    return kinds


@settings(max_examples=examples(4000), **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from((1, 2)), st.data())
def test_noninterference_hidden_changes_leave_records_identical(index, seat, data):
    m = _base(index)
    _sight(m, data)
    if data.draw(st.booleans()):
        m.vision[seat] = data.draw(st.integers(1, 10))  # radius 6 (or the ruleset's) too
    proj = Projector()
    before = records(proj, m, seat)
    kinds = hide_changes(data, m, seat)
    after = records(proj, m, seat)
    assert after == before, kinds


@settings(max_examples=examples(1500), **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from((1, 2)), st.data())
def test_visible_changes_change_records(index, seat, data):
    # The control for noninterference: what a player sees does reach its records.
    m = _base(index)
    _sight(m, data)
    proj = Projector()
    before = records(proj, m, seat)
    n = m.width * m.height

    def _inside(m, seat, cell):
        return sees(m, seat, cell)

    other = 3 - seat
    change = data.draw(st.sampled_from(("own_pos", "own_key", "cell", "opp_in", "compass")))
    if change == "own_pos":
        m.pos[seat] = data.draw(st.integers(0, n - 1).filter(lambda c: c != m.pos[seat]))
    elif change == "own_key":
        m.inventory[seat] = (m.inventory[seat] + data.draw(st.integers(1, 2))) % 3
    elif change == "cell":
        cell = data.draw(st.integers(0, n - 1).filter(lambda c: _inside(m, seat, c)))
        m.cells[cell] ^= data.draw(st.integers(1, 15))
    elif change == "opp_in":
        if m.exited[other] or not _inside(m, seat, m.pos[other]):
            m.exited[other] = 0
            m.pos[other] = m.pos[seat]
        else:
            m.inventory[other] = (m.inventory[other] + 1) % 3
    else:
        m.compass[seat] = 3 if m.compass[seat] != 3 else 4
    assert records(proj, m, seat) != before, change


STATE = st.fixed_dictionaries(
    {
        "index": st.integers(0, 10**6),
        "pos": st.tuples(st.integers(0, 1023), st.integers(0, 1023)),
        "inventory": st.tuples(st.integers(0, 2), st.integers(0, 2)),
        "vision": st.tuples(st.integers(0, 10), st.integers(0, 10)),
        "compass": st.tuples(st.sampled_from((0, 3, 7, 255)), st.sampled_from((0, 4, 255))),
        "exit_open": st.tuples(st.integers(0, 1), st.integers(0, 1)),
        "exited": st.tuples(st.integers(0, 1), st.integers(0, 1)),
        "exit_time": st.tuples(
            st.integers(-1, rules.CLOCK_LIMIT_MS), st.integers(-1, rules.CLOCK_LIMIT_MS)
        ),
        "present": st.lists(st.integers(0, 1), min_size=14, max_size=14),
        "obj_cells": st.lists(st.integers(0, 1023), min_size=14, max_size=14),
        "state_seq": st.one_of(st.integers(0, 99), st.integers(0, 2**30 - 1)),
        "meeting_seq": st.integers(0, 10**6),
        "phase": st.integers(0, 3),
        "result": st.integers(0, 3),
        "winner": st.integers(0, 2),
    }
)


def _arrange(s):
    m = _base(s["index"])
    n = m.width * m.height
    for seat in (1, 2):
        m.pos[seat] = s["pos"][seat - 1] % n
        for field in ("inventory", "vision", "compass", "exit_open", "exited", "exit_time"):
            getattr(m, field)[seat] = s[field][seat - 1]
    for slot in range(m.object_count()):
        m.obj_present[slot] = s["present"][slot]
        m.obj_cell[slot] = s["obj_cells"][slot] % n
    for field in ("state_seq", "meeting_seq", "phase", "result", "winner"):
        setattr(m, field, s[field])
    return m


@settings(max_examples=examples(2500), **SETTINGS)
@given(STATE)
def test_random_states_reassemble_into_the_projection(s):
    m = _arrange(s)
    if s["index"] % 2:
        # line of sight, at the square's radii and at larger ones
        m.rules = (3, 6, 10, 200, 1, 1) if s["index"] % 4 == 1 else (5, 8, 10, 200, 1, 1)
    proj = Projector()
    for role in (1, 2, OBSERVER):
        check_view(proj, m, role)  # every record <= 512 bytes, decoder == reference model
        # The planner's sizes are never short: writing every record leaves the 512-byte
        # buffer as it was (a slice written past its end would grow it on CPython).
        count = proj.begin(m, role)
        for i in range(count):
            assert proj.write(i) <= RECORD_MAX
        assert len(proj.buf) == RECORD_MAX
    for seat in (1, 2):
        joined = b"".join(records(proj, m, seat))
        assert b'"players"' not in joined and b'"xt"' not in joined


def test_pool_covers_every_phase_and_size():
    states = pool()
    assert {m.width for m in states} == {9, 15, 21, 32}
    assert {m.phase for m in states} >= {rules.ACTIVE, rules.FINISHED}
    assert any(m.inventory[1] or m.inventory[2] for m in states)
