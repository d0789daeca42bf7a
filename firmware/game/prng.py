# The core's own PRNG: xorshift32 (13, 17, 5), identical on CPython and MicroPython, so a seed
# gives the same maze everywhere. The 32-bit state is kept as two 16-bit halves: on a 32-bit
# board an int of 2**30 or more is a heap object, and every value here stays below 2**30, so
# drawing numbers allocates nothing (host_tests/core/test_prng.py proves it under heap_lock).

_M16 = 0xFFFF
_MAX_BELOW = 1 << 14  # below(n) keeps (n - 1) * 65536 under 2**30


class Prng:
    def __init__(self, seed):
        self.seed(seed)

    def seed(self, seed):
        """Mix seed (any int; only its low 32 bits count) so that small seeds and zero still
        give a good stream: s = ((seed ^ 0x9E3779B9) * 0x85EBCA6B) mod 2**32; s ^= s >> 13."""
        hi = ((seed >> 16) & _M16) ^ 0x9E37
        lo = (seed & _M16) ^ 0x79B9
        # (hi, lo) * 0x85EBCA6B mod 2**32, every intermediate below 2**25
        low = lo * 0x6B  # lo * (0xCA6B & 0xFF)
        mid = lo * 0xCA  # lo * (0xCA6B >> 8)
        sum_lo = (low & _M16) + ((mid & 0xFF) << 8)
        carry = (low >> 16) + (mid >> 8) + (sum_lo >> 16)
        hi = (carry + _mul_lo16(hi, 0xCA6B) + _mul_lo16(lo, 0x85EB)) & _M16
        lo = sum_lo & _M16
        lo ^= ((hi << 3) & _M16) | (lo >> 13)
        hi ^= hi >> 13
        if not hi and not lo:
            hi = 0x6D2B
            lo = 0x79F5
        self.hi = hi
        self.lo = lo

    def _step(self):
        hi = self.hi
        lo = self.lo
        # x ^= x << 13
        hi ^= ((hi << 13) | (lo >> 3)) & _M16
        lo ^= (lo << 13) & _M16
        # x ^= x >> 17
        lo ^= hi >> 1
        # x ^= x << 5
        hi ^= ((hi << 5) | (lo >> 11)) & _M16
        lo ^= (lo << 5) & _M16
        self.hi = hi
        self.lo = lo

    def next32(self):
        """The next 32-bit value as one int (may be a heap int on a 32-bit board: for tests
        and tools; the core draws with below())."""
        self._step()
        return (self.hi << 16) | self.lo

    def below(self, n):
        """A uniform int in 0..n-1 (1 <= n <= 16384), by rejection so there is no modulo
        bias: the draws 2**32 - (2**32 % n) and above are thrown away."""
        if n < 1 or n > _MAX_BELOW:
            raise ValueError("below(n) needs 1 <= n <= 16384")
        r = (65536 % n) * (65536 % n) % n  # 2**32 % n
        while True:
            self._step()
            hi = self.hi
            lo = self.lo
            if r and hi == _M16 and lo >= 65536 - r:
                continue
            return ((hi % n) * 65536 + lo) % n


def _mul_lo16(a, b):
    """The low 16 bits of a * b for 16-bit a and b, every intermediate below 2**25."""
    return (a * (b & 0xFF) + (((a * (b >> 8)) & 0xFF) << 8)) & _M16
