# Projector figures: records and bytes per view for a player at radius 3 and 6 and for an
# observer at 15x15, 21x21 and 32x32, and microseconds per view (begin() + record(i) for every
# record) on CPython and on the MicroPython unix port: the view written whole, a player's view
# as after its own move (proj.forget_square(): its record written again from its status on, the
# envelope kept; an observer's is written whole), and the same state again (what the projector
# updates in place: the state sequence and the status). States come from seeded driven matches.
#
#   python tools/bench_projector.py [--json] [--no-upy]   table (or JSON) for both interpreters
#   micropython tools/bench_projector.py --raw            one JSON line per scenario (used above)
#
# Runs under both interpreters; the CPython run starts the micropython binary for its column.
import json
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from benchclock import elapsed_us, now_us
from driver import every, new_match, play
from game.projector import OBSERVER, Projector

# (name, preset, roles, vision moves set on both seats: 0 = radius 3, 10 = radius 6)
SCENARIOS = (
    ("player r3 15x15", "classic", (1, 2), 0),
    ("player r6 15x15", "classic", (1, 2), 10),
    ("player r3 32x32", "huge", (1, 2), 0),
    ("player r6 32x32", "huge", (1, 2), 10),
    ("observer 15x15", "classic", (OBSERVER,), 0),
    ("observer 21x21", "large", (OBSERVER,), 0),
    ("observer 32x32", "huge", (OBSERVER,), 0),
)
SEEDS = 4
STEPS = 160
EVERY = 4  # sample a state every this many commands
REPEAT = 7  # timed projections of each sampled view (the fastest counts)
# ESP32 time is estimated as unix-port time x 200: MicroPython on an ESP32 at 240 MHz runs about
# 150-250x slower than the unix port on a modern x86 core (pystone and chaos from MicroPython's
# performance suite; sources in docs/platform.md, "Speed"). tools/bench.py uses this one too.
ESP32_FACTOR = 200


def _project(proj, m, role):
    count = proj.begin(m, role)
    size = 0
    for i in range(count):
        size += len(proj.record(i))
    return count, size


def measure(name, preset, roles, vision):
    proj = Projector()
    stats = [0, 0, 0, 0, 0, 0.0, 0.0, 0.0]  # views, records, bytes, max records/bytes, us x3

    def sample(m):
        saved1 = m.vision[1]
        saved2 = m.vision[2]
        m.vision[1] = vision  # 0: radius 3, >0: radius 6, whatever the match did
        m.vision[2] = vision
        for role in roles:
            count, size = _project(proj, m, role)
            stats[0] += 1
            stats[1] += count
            stats[2] += size
            stats[3] = max(stats[3], count)
            stats[4] = max(stats[4], size)
            # The view written whole (proj.forget(): nothing kept from the last one), as after
            # a move (proj.forget_square()), then the same state again (the records updated
            # in place); the fastest of a few runs each: the least disturbed one.
            for k in (5, 7, 6):
                best = None
                for _ in range(REPEAT):
                    if k == 5:
                        proj.forget()
                    elif k == 7:
                        proj.forget_square()
                    start = now_us()
                    _project(proj, m, role)
                    us = elapsed_us(start)
                    if best is None or us < best:
                        best = us
                stats[k] += best
        m.vision[1] = saved1
        m.vision[2] = saved2

    for seed in range(SEEDS):
        play(new_match(seed, preset, countdown_ms=0), seed, STEPS, every(EVERY, sample))
    views = stats[0]
    return {
        "name": name,
        "views": views,
        "records_total": stats[1],
        "bytes_total": stats[2],
        "records_mean": round(stats[1] / views, 2),
        "records_max": stats[3],
        "bytes_mean": round(stats[2] / views, 1),
        "bytes_max": stats[4],
        "us_per_view": round(stats[5] / views, 1),
        "us_per_update": round(stats[6] / views, 1),
        "us_per_moved": round(stats[7] / views, 1),
    }


def run_all():
    return [measure(*scenario) for scenario in SCENARIOS]


def _upy_rows():
    # CPython only (hostenv is): the same measurements under the micropython binary.
    import subprocess

    from hostenv import ROOT, find_micropython

    binary = find_micropython()
    if not binary:
        return None
    out = subprocess.run(
        [binary, "-X", "heapsize=2wM", "tools/bench_projector.py", "--raw"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    return {row["name"]: row for row in map(json.loads, out.splitlines())}


def main(argv):
    if "--raw" in argv:
        for row in run_all():
            print(json.dumps(row))
        return
    rows = run_all()
    upy = None if "--no-upy" in argv else _upy_rows()
    for row in rows:
        row["us_per_view_cpython"] = row.pop("us_per_view")
        row["us_per_update_cpython"] = row.pop("us_per_update")
        row["us_per_moved_cpython"] = row.pop("us_per_moved")
        if upy is not None:
            us = upy[row["name"]]["us_per_view"]
            row["us_per_view_upy"] = us
            row["us_per_update_upy"] = upy[row["name"]]["us_per_update"]
            row["us_per_moved_upy"] = upy[row["name"]]["us_per_moved"]
            row["esp32_ms_estimate"] = round(us * ESP32_FACTOR / 1000, 1)
            # The same records on both interpreters (the differential test checks the bytes).
            assert upy[row["name"]]["bytes_total"] == row["bytes_total"]
    if "--json" in argv:
        print(json.dumps(rows, indent=2))
        return
    header = (
        "view",
        "views",
        "rec mean",
        "rec max",
        "bytes mean",
        "bytes max",
        "us CPython",
        "us unix",
        "us unix moved",
        "us unix again",
        "ms ESP32*",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = (
            row["name"],
            row["views"],
            row["records_mean"],
            row["records_max"],
            row["bytes_mean"],
            row["bytes_max"],
            row["us_per_view_cpython"],
            row.get("us_per_view_upy", "-"),
            row.get("us_per_moved_upy", "-"),
            row.get("us_per_update_upy", "-"),
            row.get("esp32_ms_estimate", "-"),
        )
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print("* estimate: unix port time x %d (docs/platform.md, Speed)" % ESP32_FACTOR)


if __name__ == "__main__":
    main(sys.argv)
