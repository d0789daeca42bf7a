# Arranging exact situations for rule tests, on both interpreters: an open maze (every inner
# passage open) where moves are predictable, objects put on chosen cells, seats placed.
from game import rules
from game.engine import Match
from game.maze import neighbour
from game.rules import CMD_DROP, CMD_MOVE, DIR_BITS


def open_all(m):
    """Open every passage inside the map (the border stays closed)."""
    w = m.width
    h = m.height
    for cell in range(w * h):
        flags = 0
        for d in range(4):
            if neighbour(cell, d, w, h) >= 0:
                flags |= DIR_BITS[d]
        m.cells[cell] = flags


def close(m, cell, d):
    """Close the wall on side d of cell (both faces)."""
    other = neighbour(cell, d, m.width, m.height)
    m.cells[cell] &= ~DIR_BITS[d] & 0xFF
    if other >= 0:
        m.cells[other] &= ~DIR_BITS[rules.DIR_OPPOSITE[d]] & 0xFF


def at(m, x, y):
    return y * m.width + x


def park_objects(m):
    """Take every object off the ground so that only what a test puts back matters."""
    for slot in range(m.object_count()):
        m.obj_present[slot] = 0


def put(m, slot, cell):
    m.obj_cell[slot] = cell
    m.obj_present[slot] = 1


def arena(seed=7, side=9, cooldown_ms=100, countdown_ms=0, artifact_pairs=1):
    """An ACTIVE match at t=0 on an open maze with no objects on the ground; seat 1 at (1,1),
    seat 2 at (7,7) on a 9x9 map. Exits stay where placement put them (they are parked, but
    exits are put on the border with put_exit; keys on the top and bottom rows)."""
    m = Match(
        seed,
        width=side,
        height=side,
        cooldown_ms=cooldown_ms,
        countdown_ms=countdown_ms,
        artifact_pairs=artifact_pairs,
    )
    open_all(m)
    park_objects(m)
    # Exits live on the border; put them where no test walks by accident.
    put_exit(m, 1, at(m, 0, side - 1), rules.W)
    put_exit(m, 2, at(m, side - 1, 0), rules.E)
    # Keys stay on the ground (each key always has a location), out of the way of the tests.
    put(m, 0, at(m, side // 2, 0))
    put(m, 1, at(m, side // 2, side - 1))
    m.pos[1] = at(m, 1, 1)
    m.pos[2] = at(m, side - 3, side - 3)
    assert m.start(0) == rules.OK
    assert m.phase == (rules.ACTIVE if countdown_ms == 0 else rules.COUNTDOWN)
    return m


def put_exit(m, owner, cell, outward):
    slot = 1 + owner  # slots 2 and 3
    m.obj_cell[slot] = cell
    m.obj_variant[slot] = outward
    m.obj_present[slot] = 1


def give(m, seat, owner):
    """Put owner's key into seat's inventory slot (taking it off the ground)."""
    m.obj_present[owner - 1] = 0
    m.inventory[seat] = owner
    m.key_carrier[owner] = seat


def move(m, seat, d, t):
    """Enqueue one move and process it; the processing code (or the enqueue refusal)."""
    code = m.enqueue(seat, CMD_MOVE, d, t)
    if code != rules.OK:
        return code
    return m.process()


def drop(m, seat, t):
    code = m.enqueue(seat, CMD_DROP, 0, t)
    if code != rules.OK:
        return code
    return m.process()


def events(m):
    """The events of the last call as a list of (kind, a, b) tuples."""
    return [(m.ev_kind[i], m.ev_a[i], m.ev_b[i]) for i in range(m.ev_count)]


def event_kinds(m):
    return [m.ev_kind[i] for i in range(m.ev_count)]


def snapshot(m):
    """Everything observable about the authoritative state, for before/after comparisons."""
    return (
        m.digest(),
        m.state_seq,
        m.phase,
        m.meeting_seq,
        bytes(m.cells),
        list(m.pos),
        bytes(m.inventory),
        bytes(m.key_carrier),
        bytes(m.vision),
        bytes(m.compass),
        list(m.ready_at),
        bytes(m.exit_open),
        bytes(m.exited),
        list(m.exit_time),
        list(m.obj_cell),
        bytes(m.obj_present),
        m.result,
        m.winner,
    )
