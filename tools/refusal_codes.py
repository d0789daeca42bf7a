"""Every refusal code the board can send ({"t":"err","code":...}), from the one place each is
defined: the engine's names (game.rules.CODE_NAMES, without OK and EMPTY, which are never
sent), the gateway's (net.intents.GATEWAY_CODES) and the match host's (net.intents.HOST_CODES).
The page's build reads this table (its sentences must name only these codes), and
host_tests/net/test_refusal_codes.py checks that no firmware module spells a code itself."""

import _path  # noqa: F401  (firmware/ on sys.path)
from game import rules
from net import intents

ENGINE_NEVER_SENT = ("OK", "EMPTY")


def all_codes():
    """The codes in a fixed order: the engine's, the gateway's, the match host's."""
    engine = tuple(name for name in rules.CODE_NAMES if name not in ENGINE_NEVER_SENT)
    return engine + tuple(intents.GATEWAY_CODES) + tuple(intents.HOST_CODES)


if __name__ == "__main__":
    print("\n".join(all_codes()))
