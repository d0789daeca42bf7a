# A projector that keeps its views between calls (records written in place, a moved player's
# record written again from its status on, a seat's status members written again only where
# they changed) gives exactly the bytes of a projector that starts from nothing: one projector
# through driven matches of every maze size and ruleset (line of sight, compasses, radius 2),
# the roles asked in changing orders, sometimes one role left out (its next view is two states
# behind), with and without frame headroom. Both interpreters.
from driver import new_match, play
from game import rulesets
from game.projector import OBSERVER, Projector

ORDERS = ((1, 2, OBSERVER), (OBSERVER, 2, 1), (2, OBSERVER, 1))


def _gap(n):
    return 2 if n < 126 else 4


def _views(proj, m, role):
    return [bytes(proj.record(i)) for i in range(proj.begin(m, role))]


def _drive(proj, m, seed, steps, headroom, gap):
    count = [0]

    def on_step(m, kind, seat, arg, t, code):
        count[0] += 1
        n = count[0]
        if n % 29 == 0:
            m.vision[1 + n % 2] = 3  # a vision effect: radius 6 for a few moves
        for role in ORDERS[n % 3]:
            if n % 7 == 0 and role == 1 + n % 2:
                continue
            kept = _views(proj, m, role)
            assert kept == _views(Projector(headroom, gap), m, role), (seed, n, role)

    play(m, seed, steps, on_step)
    return count[0]


def _matches(seed):
    yield new_match(seed, "classic", countdown_ms=0), 90
    yield new_match(seed, "small", countdown_ms=0), 60
    yield new_match(seed, "huge", countdown_ms=0), 40
    yield rulesets.new_match(seed, rulesets.RULESETS[2], countdown=0), 60  # line of sight
    yield rulesets.new_match(seed, rulesets.RULESETS[1], countdown=0), 60  # quick: radius 2


def _check(headroom, gap):
    proj = Projector(headroom, gap)
    steps = 0
    for seed in range(2):
        for m, n in _matches(seed):
            steps += _drive(proj, m, seed, n, headroom, gap)
    assert steps > 400


def test_kept_views_equal_fresh_ones():
    _check(0, None)


def test_kept_views_equal_fresh_ones_with_frame_room():
    _check(48, _gap)
