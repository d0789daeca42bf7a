# Prints, for seeded driven matches, a SHA-256 over every record of every role's view after
# every command, one line per match: "seed preset views records bytes sha256". Runs unchanged
# under CPython and MicroPython; host_tests/test_projector_differential.py runs it on both and
# compares the lines (byte-identical records on both interpreters).
# Usage: projector_trace.py FIRST_SEED COUNT STEPS [--dump]   (--dump prints every record)
import hashlib
import sys
from binascii import hexlify

import _path  # noqa: F401  (firmware/ on sys.path)
from driver import new_match, play, preset_of
from game.projector import OBSERVER, Projector


def trace(seed, preset, steps, dump=False):
    proj = Projector()
    digest = hashlib.sha256()
    tally = [0, 0, 0]  # views, records, bytes

    def on_step(m, kind, seat, arg, t, code):
        for role in (1, 2, OBSERVER):
            count = proj.begin(m, role)
            tally[0] += 1
            tally[1] += count
            for i in range(count):
                rec = proj.record(i)
                digest.update(rec)
                tally[2] += len(rec)
                if dump:
                    print(str(bytes(rec), "utf-8"))

    m = new_match(seed, preset)
    on_step(m, 0, 0, 0, 0, 0)  # the waiting view
    play(m, seed, steps, on_step)
    return "%d %s %d %d %d %s" % (
        seed,
        preset,
        tally[0],
        tally[1],
        tally[2],
        str(hexlify(digest.digest()), "ascii"),
    )


def main(argv):
    first = int(argv[1])
    count = int(argv[2])
    steps = int(argv[3])
    dump = "--dump" in argv
    for seed in range(first, first + count):
        print(trace(seed, preset_of(seed), steps, dump))


if __name__ == "__main__":
    main(sys.argv)
