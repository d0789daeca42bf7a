# The core's own PRNG: xorshift32, masked to 32 bits, identical on CPython and MicroPython.
# Mazes and placement depend on nothing else, so a seed gives the same match everywhere.

_MASK = 0xFFFFFFFF


class Prng:
    def __init__(self, seed):
        self.seed(seed)

    def seed(self, seed):
        # Mix the seed (any int) so that small seeds and zero still give a good stream.
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
        """A uniform int in 0..n-1 (n >= 1), by rejection so there is no modulo bias."""
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next32()
            if x <= limit:
                return x % n
