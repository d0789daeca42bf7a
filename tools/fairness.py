# The fairness figure: for each preset, over N seeds, the shortest start -> key -> exit path of
# each player and the mean and maximum absolute difference between the two players.
# Usage: python tools/fairness.py [SEEDS]
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from game import rules
from game.engine import Match
from game.maze import distances


def path_length(m, seat):
    w, h = m.width, m.height
    key = m.obj_cell[seat - 1]
    return (
        distances(m.cells, w, h, m.start_cell[seat])[key]
        + distances(m.cells, w, h, key)[m.exit_cell(seat)]
    )


def figures(preset_entry, seeds):
    name, w, h, pairs, braid, cooldown, countdown = preset_entry
    total = 0
    worst = 0
    diff_sum = 0
    for seed in range(seeds):
        m = Match(seed, w, h, cooldown, countdown, pairs, braid)
        a = path_length(m, 1)
        b = path_length(m, 2)
        total += a + b
        diff_sum += abs(a - b)
        worst = max(worst, abs(a - b))
    return name, w, h, total / (2 * seeds), diff_sum / seeds, worst


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print("preset   size   mean path   mean |p1-p2|   max |p1-p2|   (%d seeds)" % seeds)
    for entry in rules.PRESETS:
        name, w, h, mean, diff, worst = figures(entry, seeds)
        print("%-8s %2dx%-2d  %9.1f   %12.2f   %11d" % (name, w, h, mean, diff, worst))


if __name__ == "__main__":
    main()
