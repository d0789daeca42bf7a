"""Every refusal code the board can send ({"t":"err","code":...}), from the one place each is
defined: the engine's names (game.rules.CODE_NAMES, without OK and EMPTY, which are never
sent), the gateway's and the match host's (every `NAME = "NAME"` of net.intents, in the order
defined there) and the unknown ruleset's (game.rulesets.UNKNOWN).
The page's build reads this table (its sentences must name only these codes), and
host_tests/net/test_refusal_codes.py checks that no firmware module spells a code itself."""

import _path  # noqa: F401  (firmware/ on sys.path)
from game import rules, rulesets
from net import intents

ENGINE_NEVER_SENT = ("OK", "EMPTY")


def all_codes():
    """The codes in a fixed order: the engine's, net.intents' (the gateway's, then the match
    host's), the unknown ruleset's."""
    engine = tuple(name for name in rules.CODE_NAMES if name not in ENGINE_NEVER_SENT)
    return engine + intents_codes() + (rulesets.UNKNOWN,)


def intents_codes():
    """net.intents' codes: its module-level names whose value is the name itself."""
    return tuple(value for name, value in vars(intents).items() if value == name)


if __name__ == "__main__":
    print("\n".join(all_codes()))
