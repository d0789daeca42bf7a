# A whole party match: a 1080p TV shows how to join (both QR codes, the address), then the match
# (centred maze, a clock, each player's square outlined, large text, nothing over the maze); two
# phones (Pixel 7, iPhone 13 sized, touch) play it: the map keeps what was seen (objects as last
# seen, the compass's last reading), pickups and the exit buzz, and the result shows both
# players' times and moves, the whole maze with both paths and the series score; the rematch
# counts down from GO's real time.
import re

import pytest
from browser_ui import (
    IPHONE,
    PIXEL,
    find_object,
    free_steps,
    observe,
    path,
    two_free_steps,
    walk,
)

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]

# navigator.vibrate as a recorder (window.__buzz), and everything the live region said
# (window.__said)
BUZZ = """
navigator.vibrate = (p) => { (window.__buzz = window.__buzz || []).push(p); return true; };
document.addEventListener("DOMContentLoaded", () => {
  const say = document.getElementById("say");
  window.__said = [];
  new MutationObserver(() => window.__said.push(say.textContent))
    .observe(say, { childList: true, characterData: true, subtree: true });
});"""
P1 = (0x4C, 0xC3, 0xFF)  # seat 1's colour on the map


def pixel_share(phone, colour, points):
    """The share of canvas points (CSS px in the canvas) whose colour is within 24 of colour."""
    return phone.page.evaluate(
        """([colour, points]) => {
             const cv = document.getElementById('cv'), k = cv.width / cv.clientWidth;
             const g = cv.getContext('2d');
             let hits = 0;
             for (const [x, y] of points) {
               const d = g.getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data;
               if (colour.every((c, i) => Math.abs(c - d[i]) <= 24)) hits++;
             }
             return hits / points.length;
           }""",
        [list(colour), points],
    )


def cell_size(phone, cells_across):
    return phone.box("#cv")["width"] / cells_across


def cells_stood_on(phone):
    """Every cell the phone's views put it on (chunk 0 of each view record)."""
    return {
        m["st"]["p"]
        for _, _, way, m in phone.frames
        if way == "recv" and m and m.get("t") == "view" and m["i"] == 0
    }


def moves_accepted(phone):
    moves = {m["c"] for m in phone.sent("move")}
    return sum(
        1
        for _, _, way, m in phone.frames
        if way == "recv" and m and m.get("t") == "ack" and m.get("c") in moves and "cs" in m
    )


def test_a_party_match_on_two_phones_and_a_tv(browser, board):
    host = board(ssid="Party Maze", countdown_ms=4000)
    tv = browser.tv(host.url + "#watch")  # a TV opens the page with #watch: it watches at once
    ann = browser.phone(host.url, PIXEL, init_script=BUZZ)
    bob = browser.phone(host.url, IPHONE, init_script=BUZZ)
    try:
        tv.wait_attr("screen", "watch")
        tv.wait_attr("conn", "on")
        # The waiting room on the TV: both QR codes, large (the Wi-Fi's drawn by the page), the
        # network, its password and the address.
        tv.wait_js(
            "[...document.querySelectorAll('#ov .qr img')].filter((i) => i.complete &&"
            " i.naturalWidth > 0).length === 1 && !!document.querySelector('#ov .qr svg')"
        )
        for code in tv.page.locator("#ov .qr img, #ov .qr svg").all():
            assert code.bounding_box()["width"] >= 250
        tv.wait_js("document.getElementById('ov').textContent.includes('password mazeduel')")
        tv.wait_js("document.getElementById('ov').textContent.includes('Party Maze')")
        assert host.url in tv.text("#ov")
        assert tv.axe() == []
        ann.join("Ann")
        bob.join("Bob")
        tv.wait_js("document.getElementById('ov').textContent.includes('Bob')")
        tv.shot("party-tv-waiting")

        ann.ready()
        bob.ready()
        # The countdown: a number on the phones, nothing over the maze on the TV.
        ann.wait_attr("phase", "countdown")
        ann.wait_js("/^[1-9]$/.test((document.querySelector('#ov .big') || {}).textContent)")
        tv.wait_js("document.getElementById('res').textContent.includes('Starting in')")
        assert tv.page.locator("#ov").is_hidden()
        for phone in (ann, bob, tv):
            phone.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        w, h = maze["w"], maze["h"]
        key1 = find_object(maze, 0, 1)[1]
        key2 = find_object(maze, 0, 2)[1]
        outward, exit1 = find_object(maze, 1, 1)
        compass1 = find_object(maze, 2, 1)[1]
        keys = (key1, key2)

        # The TV: the maps centred in their area, a running clock, large text, and (the fair
        # TV's default) each player's own map in a frame of the player's colour.
        stage, canvas = tv.box("#stage"), tv.box("#cv")
        assert abs((stage["x"] + stage["width"] / 2) - (canvas["x"] + canvas["width"] / 2)) <= 2
        assert abs((stage["y"] + stage["height"] / 2) - (canvas["y"] + canvas["height"] / 2)) <= 2
        first = tv.text("#clk")
        assert re.fullmatch(r"\d+:\d\d", first)
        tv.wait_js("(t) => document.getElementById('clk').textContent !== t", first)
        size = tv.page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('#c1 p')).fontSize)"
        )
        assert size >= 24, size
        assert tv.page.locator("#ov").is_hidden()
        tv.wait_attr("panes", "2")
        cs = cell_size(tv, 2 * w + 1)  # two maps, a column apart
        edges = [[x, y] for x in (1, (w + 1) * cs + 1) for y in range(4, int(h * cs) - 4)]
        assert pixel_share(tv, P1, edges[: len(edges) // 2]) > 0.9
        assert pixel_share(tv, (0xFF, 0xB0, 0x3A), edges[len(edges) // 2 :]) > 0.9

        # Each phone tells its player whose key came into sight first, and says so when it is
        # the other player's (the usual first surprise).
        for phone, seat in ((ann, 1), (bob, 2)):
            first_key = next(
                (
                    o[1]
                    for _, _, way, m in phone.frames
                    if way == "recv" and m and m.get("t") == "view"
                    for o in m.get("o", [])
                    if o[0] == 0
                ),
                None,
            )
            if first_key is not None:
                phone.wait_attr("hint", first_key)
                hint = "That key is the other player's. Yours shows a %d." % seat
                assert (hint in phone.page.evaluate("window.__said")) == (first_key != seat)
        # Bob takes two steps (his moves are counted at the end): one there and back when a key
        # boxes his start in (free_steps then finds one step only: CI, 2026-12-03, "1 moves").
        for d in two_free_steps(maze, bob.pos(), keys):
            bob.move(d, "pad")
        bob_cells = cells_stood_on(bob)
        # Ann reads her compass; the reading stays (as the last one) after she walks on. She
        # keeps off the vision artifacts where she can: one would show her the whole maze.
        # (The compass's toast is followed by the view of its cell at once: a key first seen
        # there replaces it with its own in the same instant. wait_toast reads the page's
        # history of toasts.)
        arts = tuple(o[3] for o in maze["objects"] if o[0] == 3)
        mark = ann.toast_mark()
        walk(ann, maze, compass1, avoid=keys + arts)
        reading = ann.wait_toast("Compass: your exit lies", mark)
        bearing = re.search(r"exit lies (\w+)", reading).group(1)
        assert re.fullmatch(r"[NESW]{1,2}", bearing)

        # ... far enough that the compass is out of sight: it stays on her map where it was.
        # (the farthest cell she can reach without a key: on some mazes a key closes the
        # corridor to the farthest of all; and when keys box her in where she stands (CI,
        # 2026-12-03: the farthest such cell was her own), the farthest she can reach at all,
        # a foreign key picked up on the way dropped by the walk)
        def farthest(avoid):
            return next(
                (
                    c
                    for c in sorted(
                        (c for c in range(w * h) if c not in keys),
                        key=lambda c: (
                            max(abs(c % w - compass1 % w), abs(c // w - compass1 // w)),
                            -c,
                        ),
                        reverse=True,
                    )
                    if c != ann.pos()
                    and path(maze["cells"], w, h, ann.pos(), c, avoid) is not None
                ),
                None,
            )

        far = farthest(keys) or farthest(())
        assert far is not None and far != ann.pos()
        walk(ann, maze, far, avoid=keys + arts)
        # a vision artifact taken on the way (radius 6 for 10 moves) may still show the
        # compass: out and back again until it has worn off
        out = free_steps(maze, far, keys + arts, 1) or free_steps(maze, far, keys, 1)
        for _ in range(6):
            seen = observe(host.ws_url, lambda v: v["ph"] == "active")
            if seen["st"]["players"][0]["rad"] <= 3:
                break
            ann.move(out[0], "pad")
            ann.move((out[0] + 2) % 4, "pad")
        assert ann.text("#hCmp").endswith(bearing + " (last reading)")
        assert int(ann.attr("om")) >= 1  # objects drawn as last seen
        cs = cell_size(ann, w)
        centre = [(compass1 % w + 0.5) * cs, (compass1 // w + 0.5) * cs]
        assert pixel_share(ann, P1, [centre]) == 1  # the compass's needle, in her colour
        ann.shot("party-play")
        tv.shot("party-tv-play")
        # Her key (a buzz), her exit (it opens: a buzz), out (a buzz): she wins.
        walk(ann, maze, key1, avoid=(key2,))
        ann.wait_attr("key", "1")
        walk(ann, maze, exit1, avoid=(key2,))
        ann.wait_js("document.getElementById('hExit').textContent === 'OPEN'")
        ann.pad(outward)
        ann.wait_attr("result", "You win!")
        bob.wait_attr("result", "Ann wins")
        tv.wait_attr("result", "Ann wins!")
        buzzes = ann.page.evaluate("window.__buzz")
        assert 60 in buzzes and 80 in buzzes and [100, 50, 100] in buzzes, buzzes

        # The result: both players' times and moves, the series score, the whole maze and
        # both paths, for the winner and the loser alike.
        ann_cells = cells_stood_on(ann)
        for phone in (ann, bob):
            phone.wait_attr("end", "1")
            phone.wait_attr("rv", str(w * h))
            phone.wait_attr("path", "%d,%d" % (len(ann_cells), len(bob_cells)))
            phone.wait_js(
                "document.getElementById('end').textContent.includes('Ann 1 \u2013 0 Bob')"
            )
            rows = phone.page.locator("#end tr").all_inner_texts()
            ann_row = next(r for r in rows if "Ann" in r)
            bob_row = next(r for r in rows if "Bob" in r)
            assert re.search(r"out at \d+\.\d s", ann_row), rows
            assert "%d moves" % moves_accepted(ann) in ann_row, rows
            assert "inside" in bob_row and "2 moves" in bob_row, rows
            assert re.fullmatch(r"\d+:\d\d", phone.text("#clk"))
            assert (
                phone.text("#bReady") == "Rematch" and phone.page.locator("#bReady").is_visible()
            )
        tv.wait_attr("path", "%d,%d" % (len(ann_cells), len(bob_cells)))
        tv.wait_js("document.getElementById('res').textContent.includes('Ann 1 \u2013 0 Bob')")
        assert tv.page.locator("#ov").is_hidden()
        ann.shot("party-result")
        bob.shot("party-result-loser")
        tv.shot("party-tv-result")
        for screen in (ann, bob, tv):
            assert screen.axe() == [], screen.axe()

        # The rematch counts down from its real start (the countdown event comes before the
        # room line of the new match).
        ann.tap("#bReady")
        bob.wait_js("document.getElementById('end').textContent.includes('wants a rematch')")
        bob.tap("#bReady")
        for phone in (ann, bob):
            phone.wait_attr("phase", "countdown")
            phone.wait_js("/^[1-9]$/.test((document.querySelector('#ov .big') || {}).textContent)")
        ann.wait_js("document.body.dataset.seen === document.body.dataset.vis")
        assert ann.attr("om") == "0" and ann.text("#hCmp") == "none"  # a new map
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for screen in (ann, bob, tv):
            screen.close()
