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
#   entry, problems = check(entry)      # clamped; problems: ((field, code), ...)
#   m = new_match(seed, entry)          # a game.engine.Match playing it
from game.compat import const
from game.engine import Match
from game.rules import preset

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
        "21x21, walls block your view: you see along open corridors; best of 3.",
        "large",
        250,
        3000,
        5,
        8,
        10,
        3,
        1,
        200,
        30000,
        3,
        1,
    ),
)

# Where each number is in an entry, and its bounds (lo, hi): a value outside them is clamped
# (CLAMPED), one that is not a whole number refused (BAD: the classic value is used).
FIELDS = (
    "id",
    "label",
    "desc",
    "preset",
    "cool",
    "cd",
    "rad",
    "vrad",
    "vm",
    "art",
    "cp",
    "fw",
    "grace",
    "bo",
    "sight",
)
_FIRST_NUMBER = const(4)
LIMITS = (
    (100, 2000),  # cooldown (the settings' bounds)
    (0, 10000),  # countdown
    (1, 9),  # radius (rules.MAX_RADIUS)
    (1, 9),  # vision radius (and at least the radius)
    (0, 99),  # vision moves
    (0, 4),  # artifact pairs (rules.MAX_ARTIFACT_PAIRS)
    (0, 1),  # compass
    (0, 5000),  # finish window
    (0, 300000),  # reconnect grace
    (1, 9),  # best of (odd: an even N is made odd, CLAMPED)
    (0, 1),  # sight
)

# Codes of check() and find().
UNKNOWN = "UNKNOWN_RULESET"  # no ruleset has this id: classic instead
CLAMPED = "CLAMPED"  # a number outside its bounds: the nearest bound instead
BAD = "BAD_VALUE"  # not a whole number, or a text or preset that is not one: classic's instead


def find(ruleset_id):
    """(entry, None) for a known id; (classic, UNKNOWN) for anything else."""
    for entry in RULESETS:
        if entry[0] == ruleset_id:
            return entry, None
    return RULESETS[0], UNKNOWN


def ids():
    return tuple(entry[0] for entry in RULESETS)


def check(entry):
    """entry normalised: (entry, problems), problems a tuple of (field name, code). A tuple
    of the wrong length, or with no usable id, is refused whole: (classic, (("id", BAD),))."""
    classic = RULESETS[0]
    if type(entry) is not tuple or len(entry) != len(classic):
        return classic, (("id", BAD),)
    out = list(entry)
    problems = []
    for i in range(_FIRST_NUMBER):
        if type(out[i]) is not str or not out[i] or len(out[i]) > 80:
            if i == 0:
                return classic, (("id", BAD),)
            out[i] = classic[i]
            problems.append((FIELDS[i], BAD))
    if preset(out[3]) is None:
        out[3] = classic[3]
        problems.append((FIELDS[3], BAD))
    for i in range(_FIRST_NUMBER, len(out)):
        lo, hi = LIMITS[i - _FIRST_NUMBER]
        if i == 7:
            lo = out[6]  # the vision radius is at least the radius
        value = out[i]
        if type(value) is not int:
            out[i] = classic[i]
            problems.append((FIELDS[i], BAD))
            continue
        if value < lo or value > hi or (i == 13 and not value % 2):
            out[i] = lo if value < lo else (hi if value > hi else value + 1)
            problems.append((FIELDS[i], CLAMPED))
    return tuple(out), tuple(problems)


def new_match(seed, entry, maze=None, cooldown=None, countdown=None):
    """A Match playing entry (checked first) on a new maze from seed. maze (a preset's name),
    cooldown and countdown, when given, replace the ruleset's (a board's settings may fix
    them, net/settings.py)."""
    entry = check(entry)[0]
    _, w, h, _, braid, _, _ = preset(maze) or preset(entry[3])
    return Match(
        seed,
        w,
        h,
        entry[4] if cooldown is None else cooldown,
        entry[5] if countdown is None else countdown,
        entry[9],
        braid,
        entry[6],
        entry[7],
        entry[8],
        entry[11],
        entry[10],
        entry[14],
    )


def wins_needed(entry):
    """Matches one seat must win to take the series (1 for a single match)."""
    return entry[13] // 2 + 1
