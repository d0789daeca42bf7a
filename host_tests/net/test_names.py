# The board's rule for names (net/intents.py clean_name): the zero-width joiner stays, so an
# emoji made of several (a family) is not cut into separate people; every other invisible
# format or direction control goes.
import os

import pytest

from net.intents import clean_name

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


def test_a_family_emoji_stays_whole_and_direction_controls_go():
    assert clean_name(FAMILY + " Ann") == FAMILY + " Ann"
    assert clean_name("A\u200bB\u200eC\u202eD\u2066E") == "ABCDE"
    assert clean_name("x" * 40) == "x" * 12


def test_markup_and_lone_surrogates_go_and_names_are_cut_at_12_characters():
    assert clean_name("<b>Ann</b> & 'Bob'\ud800") == "bAnn/b  Bob"
    assert (
        clean_name("\u00e9t\u00e9 \u0627\u0644\u0639\u0628")
        == "\u00e9t\u00e9 \u0627\u0644\u0639\u0628"
    )
    assert clean_name("\U0001f600" * 20) == "\U0001f600" * 12


# On MicroPython a loop over a str makes each character a one-character string that is
# interned for good (a qstr: py/objstr.c's iterator). Names and tokens come from anyone on the
# network, so reading them that way let a stream of joins with new characters grow the qstr
# pool without end (each new pool twice the last one's size) until the board's heap was gone.
QSTR_SCRIPT = """
import micropython
from net import frames, intents

def qstrs():
    micropython.qstr_info()

def utf8(codes):  # (chr() would intern each character itself)
    out = bytearray()
    for c in codes:
        out += bytes((0xE0 | c >> 12, 0x80 | c >> 6 & 0x3F, 0x80 | c & 0x3F))
    return out.decode()

qstrs()
for k in range(300):
    chars = utf8(range(0x4E00 + 7 * k, 0x4E00 + 7 * k + 7))
    intents.clean_name(chars + "<>&")
    intents.valid_token(chars * 4 + "abcd")
    intents.valid_token("0123456789abcdef0123456789abcdef")
    frames.valid_utf8(chars.encode())  # every text frame a client sends
qstrs()
"""


@pytest.mark.upy
def test_reading_frames_names_and_tokens_interns_no_characters(run_upy, repo_root, monkeypatch):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    result = run_upy(QSTR_SCRIPT)
    assert result.returncode == 0, result.stdout + result.stderr
    before, after = [line for line in result.stdout.splitlines() if "n_qstr=" in line]
    count = [int(line.split("n_qstr=")[1].split(",")[0]) for line in (before, after)]
    # 2,100 distinct characters went through: not one of them is a qstr now
    assert count[1] == count[0], (before, after)
