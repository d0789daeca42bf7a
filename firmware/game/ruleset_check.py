# Checking a ruleset (game.rulesets): every parameter clamped into its bounds or refused, each
# with a coded reason. Used by the tests, the tools and the board's settings at start (then
# dropped with them: docs/memory.md), never in play.
#
#   entry, problems = check(entry)      # clamped; problems: ((member, code), ...)
from game.compat import const
from game.rules import preset
from game.rulesets import ID, RULESETS

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

# Codes of check().
CLAMPED = "CLAMPED"  # a number outside its bounds: the nearest bound instead
BAD = "BAD_VALUE"  # not a whole number, or a text or preset that is not one: classic's instead


def ids():
    return tuple(entry[ID] for entry in RULESETS)


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
