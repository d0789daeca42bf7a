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
    return m.rules[1] if m.vision[seat] > 0 else m.rules[0]


def sees(m, seat, cell, memo=None):
    """Whether seat may see cell: in its square and, under line of sight, in sight. Written
    again from docs/rules.md ("Line of sight"), apart from game/projector.py: the crossings of
    the line with the grid's lines sorted by where they happen, and a recursion over the cells
    the line passes through (memo: {cell: bool} for one seat and position)."""
    here = m.pos[seat]
    if chebyshev(m, here, cell) > radius(m, seat):
        return False
    if not m.rules[5] or m.vision[seat]:
        return True  # the square; under line of sight, an eye shows it over the walls
    return _in_sight(m.cells, m.width, here, cell, {} if memo is None else memo)


def _in_sight(cells, w, here, cell, memo):
    if cell == here:
        return True
    if cell in memo:
        return memo[cell]
    dx = cell % w - here % w
    dy = cell // w - here // w
    ax, ay = abs(dx), abs(dy)
    sx = 1 if dx > 0 else -1
    sy = w if dy > 0 else -w
    side_x = 2 if dx > 0 else 8  # E or W
    side_y = 4 if dy > 0 else 1  # S or N
    # where the line crosses a column line / a row line, in units of 1 / (2 * ax * ay)
    # (a straight line along a row or a column: its crossings one after another)
    crossings = [((2 * i + 1) * (ay or 1), "x") for i in range(ax)]
    crossings += [((2 * j + 1) * (ax or 1), "y") for j in range(ay)]
    crossings.sort()
    at = here
    k = 0
    result = True
    while k < len(crossings):
        corner = k + 1 < len(crossings) and crossings[k + 1][0] == crossings[k][0]
        if corner:
            b, c = at + sx, at + sy
            seen_b = _in_sight(cells, w, here, b, memo)
            seen_c = _in_sight(cells, w, here, c, memo)
            round_x = cells[at] & side_x and seen_b and cells[b] & side_y
            round_y = cells[at] & side_y and seen_c and cells[c] & side_x
            if not (round_x or round_y):
                result = False
                break
            at += sx + sy
            k += 2
        else:
            if not cells[at] & (side_x if crossings[k][1] == "x" else side_y):
                result = False
                break
            at += sx if crossings[k][1] == "x" else sy
            k += 1
        if at != cell and not _in_sight(cells, w, here, at, memo):
            result = False
            break
    memo[cell] = result
    return result


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
    memo = {}
    view["objects"] = [
        (m.obj_kind[s], m.obj_owner[s], m.obj_variant[s], m.obj_cell[s])
        for s in slots
        if m.obj_present[s] and sees(m, role, m.obj_cell[s], memo)
    ]
    st = _seat(m, role, False)
    st["res"] = RESULT_NAMES[m.result]
    st["win"] = m.winner
    other = 3 - role
    if not m.exited[other] and sees(m, role, m.pos[other], memo):
        st["opponent"] = {"p": m.pos[other], "k": m.inventory[other]}
    view["st"] = st
    return view


def visible_cells(m, role):
    """The cells role's view holds: all for an observer, else its square (under line of
    sight, those out of sight with flags 0)."""
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
    memo = {}
    for c in visible_cells(m, role):
        # line of sight: a cell of the square out of sight is sent as 0
        want = m.cells[c] if role == 0 or sees(m, role, c, memo) else 0
        assert cells.get(c) == want, ("cells", c, cells.get(c), want)
        count += 1
    assert len(cells) == count, ("cells", len(cells), count)
    return view
