# Rulesets as data (docs/rules.md, "Rulesets"): every number that changes play, by name. A
# ruleset is a tuple, never a dict, so nothing depends on iteration order:
#
#   (id, label, description, preset, cooldown ms, countdown ms, radius, vision radius,
#    vision moves, artifact pairs, compass 0/1, finish window ms, reconnect grace ms,
#    best of N, sight 0/1)
#
# preset names a maze of game.rules.PRESETS (size and braid); sight 1 is line of sight (walls
# block the view, game.projector.sight), 0 the square of seed 000. best of N: a series, won by
# the first to win N // 2 + 1 matches. Classic is seed 000 exactly and the default.
#
#   entry, code = find("sight")         # code: None, or UNKNOWN (then entry is classic)
#   m = new_match(seed, entry)          # a game.engine.Match playing it
#
# Checking a ruleset (clamped or refused, with coded reasons) is game.ruleset_check's: the
# registry is checked by the tests and by the board's settings at start, so the board keeps
# only this data and these few functions in its heap (docs/memory.md).
from game.compat import const
from game.engine import Match
from game.rules import preset

# A ruleset's fields, by name (consts: the image folds them into the numbers).
ID = const(0)
LABEL = const(1)
ABOUT = const(2)
PRESET = const(3)
COOLDOWN_MS = const(4)
COUNTDOWN_MS = const(5)
RADIUS = const(6)
VISION_RADIUS = const(7)
VISION_MOVES = const(8)
ARTIFACT_PAIRS = const(9)
COMPASS = const(10)
FINISH_MS = const(11)
GRACE_MS = const(12)
BEST_OF = const(13)
SIGHT = const(14)

DEFAULT = "classic"
RULESETS = (
    (
        "classic",
        "Classic",
        "The duel as specified: 15x15, you see 3 cells around you, 6 with an eye.",
        "classic",
        250,
        3000,
        3,
        6,
        10,
        2,
        1,
        200,
        30000,
        1,
        0,
    ),
    (
        "quick",
        "Quick",
        "9x9, short countdown, faster steps, you see 2 cells around you; best of 3.",
        "small",
        150,
        1500,
        2,
        3,
        6,
        1,
        1,
        200,
        15000,
        3,
        0,
    ),
    (
        "sight",
        "Line of sight",
        "Walls block the view: you see down open corridors, an eye sees over. Best of 3.",
        "classic",
        250,
        3000,
        4,
        4,
        10,
        2,
        1,
        200,
        30000,
        3,
        1,
    ),
)

UNKNOWN = "UNKNOWN_RULESET"  # find(): no ruleset has this id, classic instead


def find(ruleset_id):
    """(entry, None) for a known id; (classic, UNKNOWN) for anything else."""
    for entry in RULESETS:
        if entry[ID] == ruleset_id:
            return entry, None
    return RULESETS[0], UNKNOWN


def new_match(seed, entry, maze=None, cooldown=None, countdown=None, scratch=None):
    """A Match playing entry (a ruleset of RULESETS, or one game.ruleset_check.check() gave)
    on a new maze from seed. maze (a preset's name:
    its size, braid and artifacts), cooldown and countdown, when given, replace the ruleset's
    (a board's settings may fix them, net/settings.py). scratch: bytes the maze's generation
    may use (game.maze.Workspace)."""
    fixed = preset(maze)
    _, w, h, pairs, braid, _, _ = fixed or preset(entry[PRESET])
    return Match(
        seed,
        w,
        h,
        entry[COOLDOWN_MS] if cooldown is None else cooldown,
        entry[COUNTDOWN_MS] if countdown is None else countdown,
        pairs if fixed else entry[ARTIFACT_PAIRS],
        braid,
        (
            entry[RADIUS],
            entry[VISION_RADIUS],
            entry[VISION_MOVES],
            entry[FINISH_MS],
            entry[COMPASS],
            entry[SIGHT],
        ),
        scratch,
    )
