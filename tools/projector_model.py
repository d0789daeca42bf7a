# A reference model of the view projection, written straight from seed 000 ("Projection
# boundary", "Exits and results") and docs/protocol.md with plain dicts and lists, independent of
# game/projector.py. Tests compare what the projector's records decode to (tools/view_decoder.py)
# with expected_view(). Runs on CPython and MicroPython.
from game.rules import NO_BEARING, PHASE_NAMES, RESULT_NAMES
from view_decoder import decode

ROLE_NAMES = ("obs", "p1", "p2")


def chebyshev(m, a, b):
    w = m.width
    return max(abs(a % w - b % w), abs(a // w - b // w))


def radius(m, seat):
    return 6 if m.vision[seat] > 0 else 3


def _seat(m, seat, with_time):
    st = {
        "p": m.pos[seat],
        "k": m.inventory[seat],
        "vm": m.vision[seat],
        "rad": radius(m, seat),
        "cp": -1 if m.compass[seat] == NO_BEARING else m.compass[seat],
        "xo": m.exit_open[seat],
        "xd": m.exited[seat],
    }
    if with_time:
        st["xt"] = m.exit_time[seat]
    return st


def expected_view(m, role):
    """The view of role (0 observer, 1/2 seat) as the decoder returns it, minus "n" and
    "cells" (visible_cells(): a 32x32 map as a dict would take a board heap's largest block)."""
    view = {
        "v": 1,
        "s": m.state_seq,
        "r": ROLE_NAMES[role],
        "ph": PHASE_NAMES[m.phase],
        "w": m.width,
        "h": m.height,
        "m": m.meeting_seq,
    }
    slots = range(len(m.obj_kind))
    if role == 0:
        view["objects"] = [
            (m.obj_kind[s], m.obj_owner[s], m.obj_variant[s], m.obj_cell[s])
            for s in slots
            if m.obj_present[s]
        ]
        view["st"] = {
            "players": [_seat(m, 1, True), _seat(m, 2, True)],
            "res": RESULT_NAMES[m.result],
            "win": m.winner,
        }
        return view
    here = m.pos[role]
    r = radius(m, role)
    view["objects"] = [
        (m.obj_kind[s], m.obj_owner[s], m.obj_variant[s], m.obj_cell[s])
        for s in slots
        if m.obj_present[s] and chebyshev(m, m.obj_cell[s], here) <= r
    ]
    st = _seat(m, role, False)
    st["res"] = RESULT_NAMES[m.result]
    st["win"] = m.winner
    other = 3 - role
    if not m.exited[other] and chebyshev(m, m.pos[other], here) <= r:
        st["opponent"] = {"p": m.pos[other], "k": m.inventory[other]}
    view["st"] = st
    return view


def visible_cells(m, role):
    """The cells role's view holds: all for an observer, else its square."""
    if role == 0:
        return range(m.width * m.height)
    here = m.pos[role]
    r = radius(m, role)
    return [c for c in range(m.width * m.height) if chebyshev(m, c, here) <= r]


def records(proj, m, role):
    """All records of role's view of m, as bytes."""
    count = proj.begin(m, role)
    return [bytes(proj.record(i)) for i in range(count)]


def check_view(proj, m, role):
    """Project, check every record's bound and the reassembly against the model; returns the
    decoded view."""
    recs = records(proj, m, role)
    assert len(recs) >= 1
    for rec in recs:
        assert len(rec) <= 512, len(rec)
    view = decode(recs)
    assert view["n"] == len(recs)
    recs = None
    expected = expected_view(m, role)
    for key in ("v", "s", "r", "ph", "w", "h", "m", "st", "objects"):
        assert view[key] == expected[key], (key, view[key], expected[key])
    expected = None
    cells = view["cells"]
    count = 0
    for c in visible_cells(m, role):
        assert cells.get(c) == m.cells[c], ("cells", c, cells.get(c), m.cells[c])
        count += 1
    assert len(cells) == count, ("cells", len(cells), count)
    return view
