# Prints the digest after every command of seeded driven matches, one line per match:
# "seed preset d1 d2 ...". Runs unchanged under CPython and MicroPython; the differential test
# runs it on both and compares the outputs line by line.
# Usage: diff_trace.py FIRST_SEED COUNT STEPS
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from driver import digest_trace, preset_of


def main(argv):
    first = int(argv[1])
    count = int(argv[2])
    steps = int(argv[3])
    for seed in range(first, first + count):
        preset = preset_of(seed)
        trace = digest_trace(seed, preset, steps)
        print(seed, preset, " ".join(str(d) for d in trace))


if __name__ == "__main__":
    main(sys.argv)
