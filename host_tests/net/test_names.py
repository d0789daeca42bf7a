# The board's rule for names (net/intents.py clean_name): the zero-width joiner stays, so an
# emoji made of several (a family) is not cut into separate people; every other invisible
# format or direction control goes.
from net.intents import clean_name

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


def test_a_family_emoji_stays_whole_and_direction_controls_go():
    assert clean_name(FAMILY + " Ann") == FAMILY + " Ann"
    assert clean_name("A\u200bB\u200eC\u202eD\u2066E") == "ABCDE"
    assert clean_name("x" * 40) == "x" * 12
