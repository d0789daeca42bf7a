# Core benchmark, the same script on CPython and on the MicroPython unix port: a fixed seeded
# workload (a driven classic match, commands recorded first), then replayed with the timer on.
# Per accepted move it costs: the engine (enqueue + process) and the views of both players and
# one observer (projector plan + every record written). Prints one JSON line.
# Usage: bench_core.py [--moves N] [--preset NAME] [--no-views] [--roles 1,2,0] [--resets-only]
#                      [--save FILE | --load FILE]
# --roles: the views of these roles only (0: the observer), e.g. --roles 0 for one view per
# move as an observer's connection sees them in play (tools/bench.py, "views in play").
# --save writes the recorded workload (native-endian uint32 pairs) and exits; --load replays a
# saved one, so that an instruction count (callgrind) covers the replay and not the recording;
# --resets-only repeats only the resets between games, the baseline that count subtracts.
import gc
import sys
from array import array

import _path  # noqa: F401  (firmware/ on sys.path)
from benchclock import elapsed_us, now_us
from driver import new_match, play
from game import rules
from game.projector import OBSERVER, Projector


def record_workload(seed, preset, moves):
    """The accepted commands of driven matches, packed as seat << 24 | kind << 16 | arg << 8
    in one array and their timestamps in another (a list of tuples would not fit the heap)."""
    m = new_match(seed, preset)
    commands = Workload()

    def keep(m, kind, seat, arg, t, code):
        if kind and code == rules.OK and len(commands) < moves:
            commands.append(seat, kind, arg, t)

    seed_now = seed
    while len(commands) < moves:
        play(m, seed_now, 2000, keep)
        m.reset(seed)  # replay starts from the same maze whichever game produced the moves
        seed_now += 1
        if seed_now > seed + 50:
            break
    return commands


class Workload:
    def __init__(self):
        self.packed = array("I")
        self.times = array("I")

    def __len__(self):
        return len(self.packed)

    def append(self, seat, kind, arg, t):
        self.packed.append(seat << 24 | kind << 16 | arg << 8)
        self.times.append(t)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(bytes(self.packed))
            f.write(bytes(self.times))

    @classmethod
    def load(cls, path, moves):
        with open(path, "rb") as f:
            data = f.read()
        half = len(data) // 2
        w = cls()
        w.packed = array("I", data[:half])
        w.times = array("I", data[half:])
        if moves < len(w.packed):
            w.packed = w.packed[:moves]
            w.times = w.times[:moves]
        return w


ROLES = (1, 2, OBSERVER)  # built once: a tuple display with a name in it allocates


def mem_alloc():
    try:
        return gc.mem_alloc()  # MicroPython: bytes in use on the heap
    except AttributeError:  # CPython has no such figure
        return 0


class Totals:
    def __init__(self):
        self.accepted = 0
        self.us = 0
        self.alloc = 0


def replay(m, commands, limit, proj, roles, totals, moves=True):
    # Commands come from several consecutive games; between games the match is reset, which
    # generates a maze (that allocates, and is not a move), so time and allocation are measured
    # per segment between resets, with the collector off inside a segment.
    packed = commands.packed
    times = commands.times
    gc.collect()
    gc.disable()
    mark = mem_alloc()
    start = now_us()
    for j in range(limit):
        word = packed[j]
        t = times[j]
        if t < m.now:
            totals.us += elapsed_us(start)
            totals.alloc += mem_alloc() - mark
            gc.enable()
            m.reset(m.seed)
            m.start(0)
            gc.collect()
            gc.disable()
            mark = mem_alloc()
            start = now_us()
        if not moves:  # --resets-only: the same resets, no move work (instruction baseline)
            m.now = t
            continue
        m.enqueue(word >> 24, word >> 16 & 0xFF, word >> 8 & 0xFF, t)
        if m.process() == 0:
            totals.accepted += 1
        if roles:  # () with --no-views
            for role in roles:
                # as the gateway does (net.views): each record's length read from lens
                n = proj.begin(m, role)
                lens = proj.lens
                for i in range(n):
                    lens[i]
    totals.us += elapsed_us(start)
    totals.alloc += mem_alloc() - mark
    gc.enable()


def main(argv):
    moves = 2000
    preset = "classic"
    roles = ROLES
    save = None
    load = None
    moves_on = True
    i = 1
    while i < len(argv):
        if argv[i] == "--moves":
            moves = int(argv[i + 1])
            i += 1
        elif argv[i] == "--preset":
            preset = argv[i + 1]
            i += 1
        elif argv[i] == "--no-views":
            roles = ()
        elif argv[i] == "--roles":
            roles = tuple(int(r) for r in argv[i + 1].split(","))
            i += 1
        elif argv[i] == "--resets-only":
            moves_on = False
        elif argv[i] == "--save":
            save = argv[i + 1]
            i += 1
        elif argv[i] == "--load":
            load = argv[i + 1]
            i += 1
        i += 1
    if load:
        commands = Workload.load(load, moves)
    else:
        commands = record_workload(7, preset, moves)
    if save:
        commands.save(save)
        print('{"saved":%d}' % len(commands))
        return
    m = new_match(7, preset)
    m.start(0)
    proj = Projector()
    replay(m, commands, 50, proj, roles, Totals())  # warm up every path
    m.reset(7)
    m.start(0)
    totals = Totals()
    replay(m, commands, len(commands), proj, roles, totals, moves_on)
    accepted = totals.accepted
    took = totals.us
    alloc_per_move = (
        totals.alloc / len(commands) if sys.implementation.name == "micropython" else -1
    )
    impl = sys.implementation.name
    print(
        '{"impl":"%s","preset":"%s","views":%s,"roles":"%s","commands":%d,"accepted":%d,'
        '"us_per_move":%.2f,"alloc_bytes_per_move":%.1f}'
        % (
            impl,
            preset,
            "true" if roles else "false",
            ",".join(str(r) for r in roles),
            len(commands),
            accepted,
            took / len(commands),
            alloc_per_move,
        )
    )


if __name__ == "__main__":
    main(sys.argv)
