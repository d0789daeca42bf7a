# The instant replay (issue 34, item 4; docs/client.md "Instant replay"): the board's replay.js
# run in Chromium, on its own and in the page.
#
# On its own: the module (as the board image holds it) reads match logs and makes their mazes
# and objects again from the seed; for logs of seeded driver matches on every preset and
# ruleset (tools/logbook.py: refused, late and clock-only steps included, drops, meetings, an
# exit, forfeits) it must read the same header and entries as firmware/game/replay.py, make the
# same maze, start cells and objects as the engine, and reach the engine's final state (every
# position, carried key, key on the ground, exit, and each seat's moves).
#
# In the page: a real match on the host board; when it ends the TV replays it (both paths drawn
# to the end, the events marked), it can be skipped (button and key) and then shows the result;
# a phone's "Watch the replay" plays the same replay; axe-core finds nothing.
import base64

import pytest
from browser_ui import IPHONE, PIXEL, find_object, free_steps, observe, walk

from build_image import REPLAY_MODULE, web_files
from game import rules, rulesets
from game.replay import Replay
from logbook import driven_log, entries

pytestmark = [pytest.mark.browser]

MOVE, DROP, CHECK = 1, 2, 5


@pytest.fixture(scope="module")
def module_page(browser):
    """A blank page with the board's replay.js imported as window.rp."""
    context = browser.chromium.new_context()
    page = context.new_page()
    source = web_files()[REPLAY_MODULE]
    url = "data:text/javascript;base64," + base64.b64encode(source).decode()
    page.evaluate("(url) => import(url).then((m) => { window.rp = m; })", url)
    yield page
    context.close()


RUN = """(bytes) => {
  const log = window.rp.parse(new Uint8Array(bytes));
  const match = log && window.rp.build(log);
  const last = match && (match.steps.length ? match.steps[match.steps.length - 1] : match.first);
  return log && {
    head: [log.w, log.h, log.pairs, log.braid, log.cool, log.cd, log.rs, log.seed, log.mn,
      log.names],
    e: log.e,
    ok: !!match,
    cells: match && Array.from(match.cells),
    start: match && match.start,
    objects: match && match.objects,
    last: last && {p: last.p, k: last.k, g: last.g, x: last.x, o: last.o},
    moves: match && [1, 2].map((n) => match.steps.filter((s) => s.moved === n).length),
    marks: match && match.steps.filter((s) => s.mark).map((s) => s.mark[0]),
  };
}"""


def _python(data):
    head = Replay.head(data)
    found = entries(data, 208, (len(data) - 208) // 8)
    replay = Replay(head)
    fresh = Replay(head).match  # the match as placed, before any entry
    for entry in found:
        replay.take(entry)
    return head, found, fresh, replay


SEEDS = (1, 7, 42, 1234, 99991)
CASES = [(seed, preset, None) for seed in SEEDS for preset in ("small", "classic")]
CASES += [(seed, "large", None) for seed in (3, 5)] + [(11, "huge", None)]
CASES += [(seed, None, k) for seed in (2, 8) for k in range(len(rulesets.RULESETS))]


@pytest.mark.parametrize("seed,preset,ruleset", CASES)
def test_the_module_reads_and_replays_a_log_as_the_firmware_does(
    module_page, seed, preset, ruleset
):
    data, _ = driven_log(seed, preset or "small", 500, ruleset=ruleset)
    head, found, fresh, replay = _python(data)
    assert replay.reason is None and replay.done
    got = module_page.evaluate(RUN, list(data))
    w, h, pairs, braid, cooldown, countdown = head.params
    s = head.seed
    assert got["head"] == [
        w,
        h,
        pairs,
        braid,
        cooldown,
        countdown,
        head.series[0],
        (s[0] & 0x3F) << 24 | s[1] << 16 | s[2] << 8 | s[3],
        head.match_no,
        ["", head.players[1], head.players[2]],
    ]
    # the entries: kind, seat, arg and time (a check's digest is not read)
    assert got["e"] == [[k, seat, arg, 0 if k == CHECK else t] for k, seat, arg, _, t in found]
    # the maze, the start cells and the objects, as the engine placed them
    assert got["ok"]
    assert got["cells"] == list(fresh.cells)
    assert got["start"] == [0, fresh.start_cell[1], fresh.start_cell[2]]
    f = fresh
    assert got["objects"] == [
        [f.obj_kind[i], f.obj_owner[i], f.obj_variant[i], f.obj_cell[i]]
        for i in range(len(f.obj_cell))
    ]
    # the end: positions, carried keys, keys on the ground, exits open and out
    m = replay.match
    last = got["last"]
    assert last["p"][1:] == [m.pos[1], m.pos[2]]
    assert last["k"][1:] == [m.inventory[1], m.inventory[2]]
    on_ground = [m.obj_cell[o - 1] if m.obj_present[o - 1] else -1 for o in (1, 2)]
    assert last["g"][1:] == on_ground
    assert last["x"][1:] == [m.exited[1], m.exited[2]]
    assert last["o"][1:] == [m.exit_open[1], m.exit_open[2]]
    moves = [sum(1 for e in found if e[0] == MOVE and e[1] == n) for n in (1, 2)]
    assert got["moves"] == moves
    assert got["marks"][-1] == "end"


def test_the_driven_logs_cover_what_the_replay_marks(module_page):
    # across the cases above: key pickups, drops, meetings, eyes, exits opened and left
    seen = set()
    for seed, preset, ruleset in CASES:
        data, _ = driven_log(seed, preset or "small", 500, ruleset=ruleset)
        seen.update(module_page.evaluate(RUN, list(data))["marks"])
    assert {"key", "drop", "meet", "eye", "open", "end"} <= seen, seen


def test_the_module_refuses_what_is_not_a_log_it_can_replay(module_page):
    data, _ = driven_log(5, "small", 300)
    assert module_page.evaluate(RUN, list(b"garbage" * 40)) is None
    assert module_page.evaluate(RUN, list(data[:200])) is None
    damaged = bytearray(data)
    damaged[7] ^= 1  # the header's check fails
    assert module_page.evaluate(RUN, list(damaged)) is None
    # a torn tail: the entries up to it, as game.replay reads them
    cut = bytearray(data)
    cut[208 + 8 * 3 + 2] ^= 0x10
    got = module_page.evaluate(RUN, list(cut))
    assert len(got["e"]) == 3
    # a maze other than its seed's (another rules version would be): no replay
    other = bytearray(data)
    other[9] = 0 if other[9] else 40  # the braid
    other[206:208] = _fletcher(other[:206]).to_bytes(2, "big")
    assert module_page.evaluate(RUN, list(other))["ok"] is False


def _fletcher(data):
    a = b = 0
    for byte in data:
        a = (a + byte) % 255
        b = (b + a) % 255
    return b << 8 | a


def test_every_ruleset_has_compasses():
    # replay.js draws both compasses: a ruleset without them (never on the ground) would need
    # the module to learn it from the log's ruleset index
    assert all(entry[rulesets.COMPASS] for entry in rulesets.RULESETS)
    assert rules.RESULT_DRAW == 2


# ---- in the page, after a real match ------------------------------------------------------------

QUICK_MATCH = {"countdown_ms": 600}
DIALOG = "[role=dialog][aria-label='Replay of the match']"


def _dataset(screen):
    return screen.page.evaluate("() => ({...document.body.dataset})")


@pytest.mark.upy
@pytest.mark.slow(seconds=40)
def test_the_tv_replays_the_match_and_a_phone_can_watch_it(browser, board):
    host = board(**QUICK_MATCH)
    tv = browser.tv(host.url + "#watch")
    ann = browser.phone(host.url, PIXEL)
    bob = browser.phone(host.url, IPHONE)
    try:
        tv.wait_attr("screen", "watch")
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active", timeout=30)
        key1 = find_object(maze, 0, 1)[1]
        key2 = find_object(maze, 0, 2)[1]
        outward, exit1 = find_object(maze, 1, 1)
        # Bob takes a few steps, Ann fetches her key and leaves through her exit
        for d in free_steps(maze, bob.pos(), {key1, key2}, 3):
            bob.pad(d)
        walk(ann, maze, key1, avoid=(key2,))
        ann.wait_attr("key", "1")
        walk(ann, maze, exit1, avoid=(key2,))
        ann.wait_js("document.getElementById('hExit').textContent === 'OPEN'")
        ann.pad(outward)
        tv.wait_attr("result", "Ann wins!", timeout=20_000)

        # the TV replays it at once: the whole maze, nothing drawn yet but the start
        tv.wait_attr("rp", "playing", timeout=20_000)
        assert tv.page.locator(DIALOG).is_visible()
        moves = tv.received("maze")[0]["mv"]  # the board's own count of each seat's moves
        data = _dataset(tv)
        assert data["rpOf"] == "%d,%d" % tuple(moves) and min(moves) > 0, (data, moves)
        assert 15_000 <= int(data["rpMs"]) <= 30_000, data
        assert tv.axe() == []
        # half way: part of the paths; at the end (the last state held): both paths whole and
        # the key, the exit opened and the step out marked
        tv.replay_at(int(data["rpMs"]) // 2)
        tv.wait_js("document.body.dataset.rpSteps !== '0,0'")
        assert tv.attr("rpSteps") != data["rpOf"]
        tv.replay_at(int(data["rpMs"]) - 700)
        tv.wait_attr("rpSteps", data["rpOf"])
        assert int(_dataset(tv)["rpMarks"]) >= 3
        assert tv.attr("rp") == "playing"
        tv.shot("tv-replay")
        # skipped with its key: gone, and the result shows (the largest type on screen)
        tv.page.keyboard.press("Escape")
        tv.wait_attr("rp", "skipped")
        assert tv.page.locator(DIALOG).count() == 0
        assert tv.page.locator("#res h2").is_visible() and tv.text("#res h2") == "Ann wins!"

        # a phone: Watch the replay on its result card, the same replay, skipped with its button
        for phone in (ann, bob):
            phone.wait_js("!!document.getElementById('bRp')", timeout=20_000)
        assert ann.attr("rp") is None  # a phone replays only when asked
        ann.tap("#bRp")
        ann.wait_attr("rp", "playing")
        assert _dataset(ann)["rpOf"] == data["rpOf"]
        assert ann.axe() == []
        ann.shot("phone-replay")
        ann.tap(DIALOG + " button")
        ann.wait_attr("rp", "skipped")
        assert ann.page.locator("#end").is_visible()
        assert ann.page.evaluate("document.activeElement.id") == "bRp"  # focus back
        # ... and one played to its end: the result card again
        bob.tap("#bRp")
        bob.wait_attr("rp", "playing")
        bob.replay_at(30_000)
        bob.wait_attr("rp", "done")
        assert bob.attr("rpSteps") == data["rpOf"]
        assert bob.page.locator("#end").is_visible() and bob.page.locator(DIALOG).count() == 0
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for screen in (ann, bob, tv):
            screen.close()


@pytest.mark.upy
@pytest.mark.slow(seconds=30)
def test_a_rematch_ends_the_replay(browser, board):
    # the replay belongs to the finished match: the next one's countdown takes the screen back
    host = board(**QUICK_MATCH)
    tv = browser.tv(host.url + "#watch")
    ann = browser.phone(host.url, PIXEL)
    bob = browser.phone(host.url, IPHONE)
    try:
        tv.wait_attr("screen", "watch")
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active", timeout=30)
        keys = {find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1]}
        for d in free_steps(maze, ann.pos(), keys, 2):
            ann.pad(d)
        ann.wait_js("document.body.dataset.pos !== undefined")
        bob.page.once("dialog", lambda dialog: dialog.accept())  # "Leave the match?"
        bob.tap("#bLeave")  # a forfeit: Ann wins
        tv.wait_attr("rp", "playing", timeout=20_000)
        assert tv.attr("rpOf").endswith(",0")
        # a new player and a rematch: the countdown ends the replay
        cid = browser.phone(host.url, IPHONE)
        try:
            cid.join("Cid")
            cid.ready()
            ann.tap("#bReady")
            tv.wait_attr("rp", "stopped", timeout=20_000)
            assert tv.page.locator(DIALOG).count() == 0
        finally:
            cid.close()
    finally:
        for screen in (ann, bob, tv):
            screen.close()
