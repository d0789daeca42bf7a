# The lobby's choice of ruleset, line-of-sight rendering and every shipped ruleset played end to
# end, on real Chromium against the real firmware (docs/rules.md "Rulesets", docs/protocol.md
# "Ruleset and lobby").
import pytest
from browser_ui import find_object, observe, walk

from game import rulesets
from game.engine import Match
from projector_model import sees

pytestmark = pytest.mark.slow(seconds=60)

# The ruleset's own maze, cooldown and grace (the browser settings fix a small maze otherwise).
OWN = {"preset": None, "cooldown_ms": None, "reconnect_grace_ms": None, "countdown_ms": 600}


def _label(rid):
    return rulesets.find(rid)[0][1]


def _ov_has(screen, text):
    screen.wait_js("document.getElementById('ov').textContent.includes(%r)" % text)


def test_the_first_player_chooses_the_ruleset_and_everyone_sees_it_live(browser, board):
    host = board(**OWN)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.screen(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        for screen in (ann, bob, tv):
            _ov_has(screen, "Classic: The duel as specified")
        # only the chooser gets the choices
        ann.wait_js(
            "document.querySelectorAll('#ov [data-rs]').length === %d" % len(rulesets.RULESETS)
        )
        assert bob.page.locator("[data-rs]").count() == 0
        bob.ready()
        _ov_has(ann, "\u2713 ready")
        ann.shot("lobby-choice")
        ann.tap("[data-rs=sight]")
        for screen in (ann, bob, tv):
            _ov_has(screen, "Line of sight: Walls block the view")
        # a choice asks both to confirm again
        assert "\u2713 ready" not in ann.text("#ov")
        tv.shot("lobby-chosen-spectator")
        # Bob cannot choose: the board refuses, the page says why
        reply = bob.page.evaluate(
            "() => new Promise((ok) => { const ws = new WebSocket(location.href.replace('http',"
            ' \'ws\') + \'ws\'); ws.onopen = () => ws.send(\'{"t":"join","role":"watch"}\');'
            " ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.t === 'rules') {"
            ' ws.send(\'{"t":"rules","c":1,"id":"quick"}\'); } if (m.t === \'err\') {'
            " ok(m.code); ws.close(); } }; })"
        )
        assert reply == "NOT_PLAYER"
        ann.ready()
        bob.ready()
        for screen in (ann, bob):
            screen.wait_attr("phase", "active", timeout=20_000)
        # Line of sight: the phone draws as in view exactly the cells in sight
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        w, h = maze["w"], maze["h"]
        m = Match(1, w, h, 250, 0, 0, 40, (4, 4, 10, 200, 1, 1))
        for c, f in maze["cells"].items():
            m.cells[c] = f
        for phone, seat in ((ann, 1), (bob, 2)):
            m.pos[seat] = int(phone.attr("pos"))
            expected = sum(1 for c in range(w * h) if sees(m, seat, c))
            phone.wait_attr("vis", str(expected))
            assert expected < 81  # the square of radius 4 would show more
        ann.shot("line-of-sight")
    finally:
        for screen in (ann, bob, tv):
            screen.close()


def _play_to_a_win(ann, bob, host):
    maze = observe(host.ws_url, lambda v: v["ph"] == "active", timeout=30)
    key1 = find_object(maze, 0, 1)[1]
    key2 = find_object(maze, 0, 2)[1]
    outward, exit1 = find_object(maze, 1, 1)
    walk(ann, maze, key1, avoid=(key2,))
    ann.wait_attr("key", "1")
    walk(ann, maze, exit1, avoid=(key2,))
    ann.wait_js("document.getElementById('hExit').textContent === 'OPEN'")
    ann.pad(outward)
    ann.wait_attr("result", "You win!", timeout=20_000)
    bob.wait_attr("result", "Ann wins", timeout=20_000)


def test_every_shipped_ruleset_plays_end_to_end(browser, board):
    for entry in rulesets.RULESETS:
        rid = entry[0]
        host = board(**OWN)
        ann = browser.phone(host.url)
        bob = browser.phone(host.url)
        try:
            ann.join("Ann")
            bob.join("Bob")
            if rid != "classic":
                _ov_has(ann, "Classic:")
                ann.tap("[data-rs=%s]" % rid)
            for phone in (ann, bob):
                _ov_has(phone, entry[1] + ":")
            ann.ready()
            bob.ready()
            ann.wait_attr("phase", "active", timeout=20_000)
            _play_to_a_win(ann, bob, host)
            if entry[13] > 1:  # a series: the score is on the result screen
                for phone in (ann, bob):
                    phone.wait_js(
                        "document.getElementById('series').textContent === "
                        "'Ann 1 \u2013 0 Bob, best of %d'" % entry[13]
                    )
                ann.shot("series-%s" % rid)
        finally:
            ann.close()
            bob.close()


def test_a_board_that_fixes_its_ruleset_shows_it_fixed(browser, board):
    host = board(ruleset="quick")
    ann = browser.phone(host.url)
    try:
        ann.join("Ann")
        _ov_has(ann, "Quick (fixed): 9x9")
        assert ann.page.locator("[data-rs]").count() == 0
    finally:
        ann.close()
