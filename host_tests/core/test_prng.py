# The PRNG is xorshift32 exactly (checked against the textbook form on full 32-bit ints), and
# drawing numbers and starting a match allocate nothing, on a 32-bit board too, where ints of
# 2**30 and above would be heap objects (heap_lock: MicroPython unix port only).
from game.engine import Match
from game.prng import Prng
from harness import heap_locked, raises

_MASK = 0xFFFFFFFF


class Reference:
    """xorshift32 (13, 17, 5) and its seed mixing written on whole 32-bit ints."""

    def __init__(self, seed):
        s = (seed ^ 0x9E3779B9) & _MASK
        s = (s * 0x85EBCA6B) & _MASK
        s ^= s >> 13
        self.state = s or 0x6D2B79F5

    def next32(self):
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        self.state = x
        return x

    def below(self, n):
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next32()
            if x <= limit:
                return x % n


SEEDS = (0, 1, 2, 3, 0x5EED, 12345, 0x3FFFFFFF, 0x40000000, 0x9E3779B9, _MASK, 1 << 40, -5)
BOUNDS = (1, 2, 3, 7, 100, 225, 441, 1000, 1024, 4099, 16384)


def test_same_stream_as_the_textbook_xorshift32():
    for seed in SEEDS:
        ours = Prng(seed)
        ref = Reference(seed)
        for _ in range(20):
            assert ours.next32() == ref.next32(), seed
        for n in BOUNDS:
            for _ in range(30):
                assert ours.below(n) == ref.below(n), (seed, n)


def test_same_stream_from_the_all_ones_state():
    # the top of the range, where the halves carry and the rejection of below() acts
    ours = Prng(0)
    ours.hi = 0xFFFF
    ours.lo = 0xFFFF
    ref = Reference(0)
    ref.state = _MASK
    for _ in range(50):
        assert ours.below(3) == ref.below(3)


def test_below_refuses_bounds_it_cannot_draw_without_big_ints():
    raises(ValueError, Prng(1).below, 0)
    raises(ValueError, Prng(1).below, 16385)


def _draws(rng):
    i = 0
    while i < 300:
        rng.below(225)
        rng.below(100)
        rng.below(7)
        i += 1


def test_drawing_allocates_nothing():
    rng = Prng(99)
    _draws(rng)
    heap_locked(_draws, rng)


def test_starting_a_new_maze_allocates_nothing():
    for width, pairs in ((9, 1), (15, 2), (32, 4)):
        m = Match(1, width, width, 250, 3000, pairs, 40)
        heap_locked(m.reset, 2)
        heap_locked(m.reset, 0x3FFFFFFF)
        assert m.digest() == Match(0x3FFFFFFF, width, width, 250, 3000, pairs, 40).digest()
