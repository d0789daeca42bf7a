# The figures of each ruleset (docs/rules.md, "Rulesets"): placement fairness (for each
# ruleset's maze, over N seeds, the shortest start -> key -> exit path of each player and the
# mean and maximum absolute difference between the two), the share of the maze one vision
# effect reveals (the cells a player sees at the vision radius from an artifact's cell, mean
# and max, over every artifact of the seeds), and the median match length with two fog-of-war
# bots (tools/bots.py) playing from their own views.
# Usage: python tools/fairness.py [SEEDS] [--ruleset ID] [--bots MATCHES]
import random
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from bots import FogOfWar
from game import rules, rulesets
from game.engine import FIRST_ARTIFACT_SLOT
from game.maze import distances
from game.projector import Projector, visible
from view_decoder import decode


def path_length(m, seat):
    w, h = m.width, m.height
    key = m.obj_cell[seat - 1]
    return (
        distances(m.cells, w, h, m.start_cell[seat])[key]
        + distances(m.cells, w, h, key)[m.exit_cell(seat)]
    )


def figures(entry, seeds):
    """(name, w, h, mean path, mean |p1 - p2|, max |p1 - p2|) of a ruleset (or of a preset
    of game.rules.PRESETS, with its own artifacts) over seeds."""
    total = 0
    worst = 0
    diff_sum = 0
    for seed in range(seeds):
        m = _match(seed, entry)
        a = path_length(m, 1)
        b = path_length(m, 2)
        total += a + b
        diff_sum += abs(a - b)
        worst = max(worst, abs(a - b))
    return entry[0], m.width, m.height, total / (2 * seeds), diff_sum / seeds, worst


def _match(seed, entry, countdown=None):
    if len(entry) == len(rules.PRESETS[0]):  # a preset: the classic rules on its maze
        return rulesets.new_match(seed, rulesets.RULESETS[0], entry[0], None, countdown)
    return rulesets.new_match(seed, entry, None, None, countdown)


def vision_share(entry, seeds):
    """(mean, max) share of the maze a player sees at the vision radius from an artifact."""
    shares = []
    for seed in range(seeds):
        m = _match(seed, entry)
        n = m.width * m.height
        for slot in range(FIRST_ARTIFACT_SLOT, m.object_count()):
            m.pos[1] = m.obj_cell[slot]
            m.vision[1] = 1
            shares.append(sum(1 for c in range(n) if visible(m, 1, c)) / n)
    if not shares:
        return 0.0, 0.0
    return sum(shares) / len(shares), max(shares)


def bot_match(seed, entry, max_steps=4000):
    """Two fog-of-war bots play one match from their own views: (moves, match seconds,
    result name), moves counting both players' accepted moves."""
    m = _match(seed, entry, 0)
    proj = Projector()
    fogs = (None, FogOfWar(), FogOfWar())
    rng = random.Random(seed)
    m.start(0)
    t = 0
    moves = 0
    for _ in range(max_steps):
        if m.phase == rules.FINISHED:
            break
        t += m.cooldown_ms
        for seat in (1, 2):
            if m.exited[seat] or m.phase == rules.FINISHED:
                continue
            count = proj.begin(m, seat)
            view = decode([bytes(proj.record(i)) for i in range(count)])
            fogs[seat].see(view)
            d = fogs[seat].choose(view, seat, rng)
            if d is None:
                continue
            if m.enqueue(seat, rules.CMD_MOVE, d, t) == rules.OK and m.process() == rules.OK:
                moves += 1
        m.advance(t)
    m.advance(t + 1000)
    return moves, m.now / 1000, rules.RESULT_NAMES[m.result]


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def bot_figures(entry, matches):
    """(median moves, median seconds, share of matches that ended) over matches."""
    runs = [bot_match(seed, entry) for seed in range(matches)]
    ended = sum(1 for r in runs if r[2] != "none")
    return median([r[0] for r in runs]), median([r[1] for r in runs]), ended / len(runs)


def main():
    args = sys.argv[1:]
    seeds = 1000
    chosen = None
    matches = 0
    while args:
        arg = args.pop(0)
        if arg == "--ruleset":
            chosen = args.pop(0)
        elif arg == "--bots":
            matches = int(args.pop(0))
        else:
            seeds = int(arg)
    entries = rulesets.RULESETS
    if chosen is not None:
        entry, code = rulesets.find(chosen)
        if code is not None:
            known = ", ".join(e[0] for e in rulesets.RULESETS)
            print("unknown ruleset %r (%s): one of %s" % (chosen, code, known))
            sys.exit(2)
        entries = (entry,)
    print(
        "ruleset  size   mean path  mean|p1-p2|  max|p1-p2|  vision share mean/max"
        + ("  bots: median moves / s, ended" if matches else "")
        + "   (%d seeds)" % seeds
    )
    for entry in entries:
        name, w, h, mean, diff, worst = figures(entry, seeds)
        share, share_max = vision_share(entry, min(seeds, 200))
        line = "%-8s %2dx%-2d  %9.1f  %11.2f  %10d  %10.0f%% / %3.0f%%" % (
            name,
            w,
            h,
            mean,
            diff,
            worst,
            100 * share,
            100 * share_max,
        )
        if matches:
            moves, seconds, ended = bot_figures(entry, matches)
            line += "  %10d / %5.1f, %3.0f%%" % (moves, seconds, 100 * ended)
        print(line)


if __name__ == "__main__":
    main()
