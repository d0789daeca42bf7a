# Host stand-in for MicroPython's `machine` module (unix port only; never uploaded to a board).
# Only what the firmware uses: CPU frequency, the board's unique id (its MAC), reset, and a
# watchdog that reports what it was asked; it never resets the host process.

import sys

_freq = [160_000_000]  # stock ESP32 builds start at 160 MHz


def freq(hz=None):
    if hz is None:
        return _freq[0]
    if hz not in (80_000_000, 160_000_000, 240_000_000):
        raise ValueError("frequency must be 80MHz, 160MHz or 240MHz")
    _freq[0] = hz
    return None


def unique_id():
    return b"\x24\x6f\x28\x12\xab\xcd"  # a fixed, ESP32-looking MAC


def reset():
    print("machine.reset()")
    sys.exit(0)


def soft_reset():
    reset()


def idle():
    pass


class WDT:
    """Records instead of resetting: prints when armed and after the 1st, 10th, 100th, ...
    feed, so a test reading the board's log sees that the firmware keeps feeding it."""

    def __init__(self, id=0, timeout=5000):
        if timeout < 1:
            raise ValueError("timeout must be at least 1 ms")
        self.timeout = timeout
        self.feeds = 0
        print("machine.WDT: armed, timeout %d ms" % timeout)

    def feed(self):
        self.feeds += 1
        n = self.feeds
        while n % 10 == 0:
            n //= 10
        if n == 1:
            print("machine.WDT: fed %d times" % self.feeds)
