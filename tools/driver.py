# A seeded, deterministic match driver for golden, differential and property tests and for
# benchmarks: two scripted players that mostly head for their goals (own key, then own exit,
# then out), with random moves, drops, clock jumps, early and out-of-order timestamps mixed in.
# It uses only the core's PRNG, so the same seed drives the same match on both interpreters.
# A library (no sys.path edits): the core tests import it under pytest and tools/upytest.py,
# the tools after `import _path`.
from game import rules
from game.engine import Match
from game.maze import distances, neighbour
from game.prng import Prng
from game.rules import CMD_DROP, CMD_MOVE, DIR_BITS

# The presets that seeded runs over many seeds take in turn (seed % 4): preset_of(seed).
PRESET_CYCLE = ("small", "classic", "large", "huge")


def preset_of(seed):
    return PRESET_CYCLE[seed % len(PRESET_CYCLE)]


def goal_direction(m, seat):
    """The first step of a shortest path toward what this seat needs next, or -1."""
    w = m.width
    h = m.height
    if m.exit_open[seat]:
        target = m.exit_cell(seat)
        if m.pos[seat] == target:
            return m.exit_direction(seat)
    elif m.inventory[seat] == seat:
        target = m.exit_cell(seat)
    else:
        cell, carrier = m.key_location(seat)
        target = cell if carrier == 0 else m.pos[carrier]
    here = m.pos[seat]
    if here == target:
        return -1
    dist = distances(m.cells, w, h, target)
    for d in range(4):
        if m.cells[here] & DIR_BITS[d]:
            if dist[neighbour(here, d, w, h)] < dist[here]:
                return d
    return -1


def new_match(seed, preset_name="small", countdown_ms=None):
    _, w, h, pairs, braid, cooldown, countdown = rules.preset(preset_name)
    if countdown_ms is not None:
        countdown = countdown_ms
    return Match(seed, w, h, cooldown, countdown, pairs, braid)


def play(m, seed, steps, on_step=None, smart=85):
    """Drive m for up to steps commands. on_step(m, kind, seat, arg, t, code) is called after
    every enqueue+process (kind 0 = a clock advance). Returns the number of steps taken."""
    rng = Prng(seed ^ 0x5EED)
    t = m.now
    if m.phase == rules.WAITING:
        m.start(t)
        if on_step:
            on_step(m, 0, 0, 0, t, rules.OK)
    taken = 0
    while taken < steps:
        taken += 1
        roll = rng.below(100)
        if roll < 4:
            t += rng.below(400)
            code = m.advance(t)
            if on_step:
                on_step(m, 0, 0, 0, t, code)
            continue
        t += rng.below(m.cooldown_ms + 60)
        stamp = t
        if rng.below(40) == 0:
            stamp = t - 1 - rng.below(30)  # late packet: out of order unless the clock lags
            if stamp < 0:
                stamp = 0
        seat = 1 + rng.below(2)
        kind = CMD_MOVE
        arg = rng.below(4)
        if roll < 8:
            kind = CMD_DROP
            arg = 0
        elif roll < 8 + smart:
            d = goal_direction(m, seat)
            if d >= 0:
                arg = d
        code = m.enqueue(seat, kind, arg, stamp)
        if code == rules.OK:
            code = m.process()
        if on_step:
            on_step(m, kind, seat, arg, stamp, code)
        if m.phase == rules.FINISHED and rng.below(8) == 0:
            break
    return taken


def every(n, fn):
    """An on_step callback for play() that calls fn(m) after every n-th command."""
    count = [0]

    def on_step(m, kind, seat, arg, t, code):
        count[0] += 1
        if count[0] % n == 0:
            fn(m)

    return on_step


def digest_trace(seed, preset_name, steps, period=1):
    """Digests after every `period`-th step of a driven match, plus the final one."""
    m = new_match(seed, preset_name)
    trace = []
    play(m, seed, steps, every(period, lambda m: trace.append(m.digest())))
    trace.append(m.digest())
    return trace
