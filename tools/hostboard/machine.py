# Host stand-in for MicroPython's `machine` module (unix port only; never uploaded to a board).
# Only what the firmware uses: CPU frequency, the board's unique id (its MAC), reset.

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
