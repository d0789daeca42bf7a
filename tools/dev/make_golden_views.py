# Regenerates host_tests/golden_views/*.txt: sequences of view records with the verdict every
# decoder must reach on them (format and verdicts: tools/golden_views.py). Both decoders read
# them: tools/view_decoder.py (host_tests/core/test_golden_views.py) and the phone client
# (host_tests/browser/test_client_golden_views.py).
#
# The valid sequences are real records: seeded driven matches (tools/driver.py) and the real
# projector; their expected summary comes from the reference model (tools/projector_model.py),
# not from a decoder. Each invalid sequence is derived from
# a valid one by one edit, with its verdict written here by hand.
#
#   python tools/dev/make_golden_views.py           # rewrite the files
#   python tools/dev/make_golden_views.py --check   # exit 1 if the files differ from what it makes
import json
import os
import sys

import _path  # noqa: F401  (tools/ and firmware/ on sys.path)
from driver import new_match, play
from game import rules
from game.projector import OBSERVER, Projector
from golden_views import summary
from hostenv import ROOT
from projector_model import expected_view, records, visible_cells

OUT = os.path.join(ROOT, "host_tests", "golden_views")
RECORD_MAX = 512
ROLES = {1: "player 1", 2: "player 2", OBSERVER: "the observer"}
_proj = Projector()


class _Found(Exception):
    pass


class View:
    """One role's view of one state: its records (str) and the expected verdict."""

    def __init__(self, m, role, how):
        self.recs = [r.decode("utf-8") for r in records(_proj, m, role)]
        for rec in self.recs:
            assert _text(_doc(rec)) == rec, "records must survive a JSON round trip"
        model = expected_view(m, role)
        model["cells"] = {c: m.cells[c] for c in visible_cells(m, role)}
        model["n"] = len(self.recs)
        self.verdict = "ok " + summary(model)
        side = "%dx%d" % (m.width, m.height)
        self.about = "%s, %s's view (%s, %s), state s=%d: %d record%s" % (
            how,
            ROLES[role],
            side,
            rules.PHASE_NAMES[m.phase],
            m.state_seq,
            len(self.recs),
            "" if len(self.recs) == 1 else "s",
        )


def drive(seed, preset, *conditions):
    """Views of every role at the first state of a driven match that meets each condition in
    turn (a condition is tested after every step, and only once the previous one was met)."""
    m = new_match(seed, preset)
    how = "seed %d, preset %s" % (seed, preset)
    found = []

    def on_step(m, kind, seat, arg, t, code):
        if conditions[len(found)](m):
            found.append({role: View(m, role, how) for role in ROLES})
            if len(found) == len(conditions):
                raise _Found

    try:
        play(m, seed, 3000, on_step)
    except _Found:
        return m, found
    raise AssertionError("%s: a condition was never met" % how)


def _doc(rec):
    return json.loads(rec)


def _text(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def edit(rec, **members):
    """rec with members replaced (in place) or added (at the end); None removes a member."""
    doc = _doc(rec)
    for key, value in members.items():
        if value is None:
            del doc[key]
        else:
            doc[key] = value
    return _text(doc)


def set_null(rec, key):
    doc = _doc(rec)
    doc[key] = None
    return _text(doc)


def with_status(rec, st):
    """rec with a status right after the envelope, where chunk 0 has it."""
    doc = _doc(rec)
    out = {}
    for key, value in doc.items():
        out[key] = value
        if key == "n":
            out["st"] = st
    return _text(out)


def padded(rec, size, char="x"):
    """rec with an unknown member "zz" (decoders ignore it) making it size characters long."""
    room = size - len(rec) - len(',"zz":""')
    assert room > 0
    return rec[:-1] + ',"zz":"' + char * room + '"}'


def status_of(rec):
    return _doc(rec)["st"]


def build():
    """{file name: text} of every golden file."""

    def on(m):
        return m.phase == rules.ACTIVE

    def fin(m):
        return m.phase == rules.FINISHED

    # The states the cases come from.
    waiting = new_match(1, "small")
    w_p1 = View(waiting, 1, "seed 1, preset small, before the start")
    w_obs = View(waiting, OBSERVER, "seed 1, preset small, before the start")
    countdown = new_match(3, "classic")
    countdown.start(0)
    cd_p2 = View(countdown, 2, "seed 3, preset classic, just after the start")
    _, (act,) = drive(3, "classic", lambda m: on(m) and m.state_seq >= 12)
    _, (opp,) = drive(4, "classic", lambda m: on(m) and _proj.opponent_visible(m, 1))
    _, (vis9,) = drive(3, "small", lambda m: m.vision[1] > 0)
    _, (vis15,) = drive(5, "classic", lambda m: m.vision[1] > 0 and _proj.begin(m, 1) == 2)
    _, (vis32,) = drive(3, "huge", lambda m: m.vision[2] > 0 and _proj.begin(m, 2) == 2)
    _, (cpk,) = drive(4, "huge", lambda m: m.compass[2] != rules.NO_BEARING and m.inventory[2])
    _, (meet,) = drive(5, "large", lambda m: m.meeting_seq > 0)
    _, (obs15,) = drive(1, "classic", lambda m: on(m) and m.state_seq >= 20)
    m32, (a32, b32) = drive(
        2, "huge", lambda m: on(m) and m.state_seq >= 20, lambda m: m.state_seq >= 23
    )
    _, (won,) = drive(3, "classic", fin)
    _, (draw,) = drive(1, "small", fin)
    forfeit = new_match(4, "small")
    play(forfeit, 4, 30)
    assert forfeit.phase == rules.ACTIVE and forfeit.forfeit(2, forfeit.now) == rules.OK
    fft = View(forfeit, 1, "seed 4, preset small, 30 commands, then player 2 forfeits")
    assert draw[1].verdict.find("ph=finished") > 0
    assert _doc(draw[1].recs[0])["st"]["res"] == "draw"
    assert _doc(won[OBSERVER].recs[0])["st"]["res"] == "win"
    assert "opponent" in _doc(opp[1].recs[0])["st"]

    p1 = act[1]  # one record, room to grow
    o32 = a32[OBSERVER]  # four records
    r6 = vis15[1]  # player 1 at radius 6: two records
    assert len(p1.recs) == 1 and len(o32.recs) == 4 and len(r6.recs) == 2
    assert len(b32[OBSERVER].recs) == 4 and len(obs15[OBSERVER].recs) == 2
    c0, c1, c2, c3 = o32.recs
    one = p1.recs[0]
    n15 = _doc(one)["w"] * _doc(one)["h"]
    n32 = m32.width * m32.height

    cases = []

    def case(name, about, verdict, recs):
        cases.append((name, about, verdict, recs))

    def ok(name, view, about=""):
        case(name, view.about + about, view.verdict, view.recs)

    # ---- valid views ---------------------------------------------------------------------------
    ok("ok-p1-waiting-9x9", w_p1)
    ok("ok-obs-waiting-9x9", w_obs)
    ok("ok-p2-countdown-15x15", cd_p2)
    ok("ok-p1-active-15x15", act[1])
    ok("ok-p2-active-15x15", act[2])
    ok("ok-p1-opponent-in-sight", opp[1], "; the opponent is in sight")
    ok("ok-p1-vision-radius-6-9x9", vis9[1], "; radius 6 covers the map: one run")
    ok("ok-p1-vision-radius-6-two-records", vis15[1])
    ok("ok-p2-vision-radius-6-32x32", vis32[2])
    ok("ok-p2-compass-and-key-32x32", cpk[2])
    ok("ok-obs-15x15-two-records", obs15[OBSERVER])
    ok("ok-obs-32x32-four-records", o32)
    ok("ok-obs-after-a-meeting-21x21", meet[OBSERVER])
    ok("ok-p1-after-a-meeting", meet[1])
    ok("ok-p1-finished-lost", won[1])
    ok("ok-p2-finished-won", won[2])
    ok("ok-obs-finished-won", won[OBSERVER])
    ok("ok-p1-finished-draw", draw[1])
    ok("ok-p1-finished-forfeit", fft)
    b = b32[OBSERVER]
    case(
        "ok-chunk-0-abandons-an-unfinished-view",
        "%s; then %s" % (o32.about, b.about)
        + ": the first two records of the older view, then the newer view (the board does this)",
        b.verdict,
        [c0, c1] + b.recs,
    )
    case(
        "ok-repeated-chunk-0-starts-over",
        o32.about + "; chunk 0 twice, then the rest",
        o32.verdict,
        [c0, c0, c1, c2, c3],
    )
    case(
        "ok-two-views-in-a-row",
        "%s; then %s" % (a32[1].about, b32[1].about),
        b32[1].verdict,
        a32[1].recs + b32[1].recs,
    )
    case(
        "ok-exactly-512-bytes",
        p1.about + '; padded to 512 bytes with an unknown member "zz" (ignored)',
        p1.verdict,
        [padded(one, RECORD_MAX)],
    )

    # ---- rejected sequences: one edit each ---------------------------------------------------
    def bad(name, base, change, verdict, recs):
        case(name, base.about + "; " + change, verdict, recs)

    bad("size-513-bytes", p1, "padded to 513 bytes", "error size at 0", [padded(one, 513)])
    bad(
        "size-utf8-over-512-bytes",
        p1,
        'padded with "\u00e9" to 512 characters, more than 512 bytes in UTF-8',
        "error size at 0",
        [padded(one, RECORD_MAX, "\u00e9")],
    )
    bad(
        "size-in-chunk-2",
        o32,
        "chunk 2 padded past 512 bytes",
        "error size at 2",
        [c0, c1, padded(c2, max(513, len(c2) + 9)), c3],
    )
    bad("json-truncated", p1, "cut in half", "error json at 0", [one[: len(one) // 2]])
    bad("json-trailing-brace", p1, "one } too many", "error json at 0", [one + "}"])
    bad("json-not-an-object", p1, "wrapped in an array", "error json at 0", ["[" + one + "]"])
    bad(
        "json-chunk-1-truncated",
        o32,
        "chunk 1 cut short",
        "error json at 1",
        [c0, c1[:300], c2, c3],
    )
    bad("version-2", p1, '"v":2', "error version at 0", [edit(one, v=2)])
    bad(
        "version-0-in-chunk-1",
        o32,
        'chunk 1 with "v":0',
        "error version at 1",
        [c0, edit(c1, v=0), c2, c3],
    )
    bad("version-as-string", p1, '"v":"1"', "error version at 0", [edit(one, v="1")])
    bad("version-missing", p1, "no v member", "error version at 0", [edit(one, v=None)])
    bad("type-not-view", p1, '"t":"vue"', "error type at 0", [edit(one, t="vue")])
    bad("type-missing", p1, "no t member", "error type at 0", [edit(one, t=None)])
    bad("envelope-no-m", p1, "no m member", "error envelope at 0", [edit(one, m=None)])
    bad("envelope-negative-index", p1, '"i":-1', "error envelope at 0", [edit(one, i=-1)])
    bad(
        "envelope-s-as-string",
        p1,
        '"s" a string',
        "error envelope at 0",
        [edit(one, s=str(_doc(one)["s"]))],
    )
    bad("envelope-unknown-role", p1, '"r":"p3"', "error envelope at 0", [edit(one, r="p3")])
    bad(
        "envelope-unknown-phase",
        p1,
        '"ph":"paused"',
        "error envelope at 0",
        [edit(one, ph="paused")],
    )
    bad(
        "envelope-width-33",
        p1,
        '"w":33 (sizes are 5..32)',
        "error envelope at 0",
        [edit(one, w=33)],
    )
    bad(
        "envelope-height-4", p1, '"h":4 (sizes are 5..32)', "error envelope at 0", [edit(one, h=4)]
    )
    bad("gap-chunk-1-missing", o32, "chunk 1 lost", "error gap at 1", [c0, c2, c3])
    bad("gap-chunks-swapped", o32, "chunks 1 and 2 swapped", "error gap at 1", [c0, c2, c1, c3])
    bad("gap-no-chunk-0", o32, "chunk 0 lost", "error gap at 0", [c1, c2, c3])
    bad("gap-duplicated-chunk", o32, "chunk 1 twice", "error gap at 2", [c0, c1, c1, c2, c3])
    bad("gap-after-the-last-chunk", o32, "chunk 3 twice", "error gap at 4", [c0, c1, c2, c3, c3])
    bad(
        "count-changed-in-chunk-1",
        o32,
        'chunk 1 with "n":5',
        "error count at 1",
        [c0, edit(c1, n=5), c2, c3],
    )
    bad("count-index-beyond", p1, '"i":1,"n":1', "error count at 0", [edit(one, i=1)])
    bad("count-zero", p1, '"n":0', "error count at 0", [edit(one, n=0)])
    bad(
        "count-index-beyond-in-chunk-1",
        o32,
        'chunk 1 with "i":4',
        "error count at 1",
        [c0, edit(c1, i=4), c2, c3],
    )
    bad(
        "mismatch-state",
        o32,
        "then chunk 1 of the state s=%d (records of two views mixed)" % _doc(b.recs[1])["s"],
        "error mismatch at 1",
        [c0, b.recs[1], b.recs[2], b.recs[3]],
    )
    bad(
        "mismatch-role",
        o32,
        'chunk 2 with "r":"p1"',
        "error mismatch at 2",
        [c0, c1, edit(c2, r="p1"), c3],
    )
    bad(
        "mismatch-phase",
        o32,
        'chunk 3 with "ph":"finished"',
        "error mismatch at 3",
        [c0, c1, c2, edit(c3, ph="finished")],
    )
    bad(
        "mismatch-width",
        o32,
        'chunk 1 with "w":31',
        "error mismatch at 1",
        [c0, edit(c1, w=31), c2, c3],
    )
    bad(
        "mismatch-meeting",
        o32,
        'chunk 1 with "m":7',
        "error mismatch at 1",
        [c0, edit(c1, m=7), c2, c3],
    )
    bad("status-missing-in-chunk-0", p1, "no st member", "error status at 0", [edit(one, st=None)])
    bad("status-not-an-object", p1, '"st":[]', "error status at 0", [edit(one, st=[])])
    bad("status-null", p1, '"st":null', "error status at 0", [set_null(one, "st")])
    bad(
        "status-in-chunk-3",
        o32,
        "chunk 3 repeats chunk 0's status",
        "error status at 3",
        [c0, c1, c2, with_status(c3, status_of(c0))],
    )
    q0, q1 = r6.recs
    bad(
        "status-in-chunk-1",
        r6,
        "chunk 1 repeats chunk 0's status",
        "error status at 1",
        [q0, with_status(q1, status_of(q0))],
    )
    bad(
        "objects-three-members",
        p1,
        "an object [0,1,0]",
        "error objects at 0",
        [edit(one, o=[[0, 1, 0]])],
    )
    bad(
        "objects-negative",
        p1,
        "an object [0,1,0,-1]",
        "error objects at 0",
        [edit(one, o=[[0, 1, 0, -1]])],
    )
    bad(
        "objects-outside-the-maze",
        p1,
        "an object on cell w*h",
        "error objects at 0",
        [edit(one, o=[[0, 1, 0, n15]])],
    )
    bad(
        "objects-string-member",
        p1,
        'an object [0,"1",0,5]',
        "error objects at 0",
        [edit(one, o=[[0, "1", 0, 5]])],
    )
    bad(
        "objects-boolean-member",
        p1,
        "an object [0,true,0,5]",
        "error objects at 0",
        [edit(one, o=[[0, True, 0, 5]])],
    )
    bad("objects-not-a-list", p1, '"o":{}', "error objects at 0", [edit(one, o={})])
    bad("objects-null", p1, '"o":null', "error objects at 0", [set_null(one, "o")])
    bad(
        "objects-in-chunk-3",
        o32,
        "chunk 3 with an object off the maze",
        "error objects at 3",
        [c0, c1, c2, edit(c3, o=[[3, 0, 0, n32]])],
    )
    runs = _doc(one)["c"]
    bad(
        "cells-bad-hex-digit",
        p1,
        'a run with the digit "g"',
        "error cells at 0",
        [edit(one, c=[[runs[0][0], "g" + runs[0][1][1:]]] + runs[1:])],
    )
    bad(
        "cells-uppercase-hex",
        p1,
        'a run with the digit "A"',
        "error cells at 0",
        [edit(one, c=[[runs[0][0], "A" + runs[0][1][1:]]] + runs[1:])],
    )
    bad(
        "cells-outside-the-maze",
        p1,
        "a run past the last cell",
        "error cells at 0",
        [edit(one, c=runs + [[n15 - 1, "55"]])],
    )
    bad(
        "cells-negative-index",
        p1,
        "a run at -1",
        "error cells at 0",
        [edit(one, c=[[-1, "5"]] + runs)],
    )
    bad(
        "cells-sent-twice",
        p1,
        "the first run twice",
        "error cells at 0",
        [edit(one, c=runs[:1] + runs)],
    )
    bad("cells-empty-run", p1, 'a run [5,""]', "error cells at 0", [edit(one, c=[[5, ""]] + runs)])
    bad(
        "cells-three-members",
        p1,
        'a run [5,"1",0]',
        "error cells at 0",
        [edit(one, c=[[5, "1", 0]])],
    )
    bad("cells-not-a-list", p1, '"c":"5"', "error cells at 0", [edit(one, c="5")])
    bad("cells-null", p1, '"c":null', "error cells at 0", [set_null(one, "c")])
    first = _doc(q0)["c"][0]
    bad(
        "cells-twice-across-chunks",
        r6,
        "chunk 1 repeats chunk 0's first run",
        "error cells at 1",
        [q0, edit(q1, c=[first] + _doc(q1)["c"])],
    )
    bad("incomplete-last-chunk-missing", o32, "chunk 3 lost", "incomplete", [c0, c1, c2])
    bad("incomplete-chunk-0-only", r6, "chunk 1 lost", "incomplete", [q0])

    files = {}
    for name, about, verdict, recs in cases:
        assert name + ".txt" not in files, name
        if not verdict.startswith("error size"):
            for rec in recs:  # no case may trip over the size limit by accident
                assert len(rec.encode("utf-8")) <= RECORD_MAX, (name, len(rec))
        for rec in recs:
            assert "\n" not in rec and "\r" not in rec, name
        lines = [
            "# Written by tools/make_golden_views.py (format: host_tests/core/golden_views.py)",
            "# " + about,
            "case " + name,
            "expect " + verdict,
        ]
        files[name + ".txt"] = "\n".join(lines + recs) + "\n"
    return files


def main():
    files = build()
    old = sorted(n for n in os.listdir(OUT) if n.endswith(".txt")) if os.path.isdir(OUT) else []
    if "--check" in sys.argv[1:]:
        stale = sorted(set(old) ^ set(files))
        for name in sorted(files):
            if name in old:
                with open(os.path.join(OUT, name), encoding="utf-8") as f:
                    if f.read() != files[name]:
                        stale.append(name)
        for name in stale:
            print("differs:", name)
        sys.exit(1 if stale else 0)
    os.makedirs(OUT, exist_ok=True)
    for name in old:
        if name not in files:
            os.remove(os.path.join(OUT, name))
    for name, text in sorted(files.items()):
        with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    print("wrote %d files to %s" % (len(files), os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
