# Meetings, on phone-sized touch screens and a 1080p TV: what each person is told says what
# happened to whose key (nothing, when nobody carried one), the two players on one cell are both
# drawn, side by side, each with its own key badge, and a meeting buzzes.
import pytest
from browser_ui import IPHONE, PIXEL, cells_of, find_object, free_steps, observe, walk

from bots import path

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]

BUZZ = (
    "navigator.vibrate = (p) => { (window.__buzz = window.__buzz || []).push(p); return true; };"
)

# Both pawns of a shared cell: seat 1 (a circle) on the left, seat 2 (a diamond) on the right.
SIDE_BY_SIDE = """(cell) => {
  const cv = document.getElementById('cv'), k = cv.width / cv.clientWidth, g = cv.getContext('2d');
  const w = +document.body.dataset.w, cs = cv.clientWidth / w, x = cell % w, y = (cell - x) / w;
  const at = (fx, fy) =>
    g.getImageData(Math.round((x + fx) * cs * k), Math.round((y + fy) * cs * k), 1, 1).data;
  const near = (d, c) => c.every((v, i) => Math.abs(v - d[i]) <= 24);
  return near(at(0.28, 0.68), [0x4c, 0xc3, 0xff]) && near(at(0.72, 0.68), [0xff, 0xb0, 0x3a]);
}"""


def log_has(tv, text):
    tv.wait_js("(t) => document.getElementById('log').textContent.includes(t)", text)


def plan(maze, ann_at, bob_at):
    """(key1, key2, Bob's step aside) when this match's maze lets the scenario be played
    without Ann crossing a key on the way (every board draws a new maze): a route from Ann to
    Bob around both keys, from there to Bob's key around Ann's, and a cell beside Bob off that
    route for him to step to, from which Ann can reach him again around her key; else None."""
    w, h, cells = maze["w"], maze["h"], maze["cells"]
    key1 = find_object(maze, 0, 1)[1]
    key2 = find_object(maze, 0, 2)[1]
    if path(cells, w, h, ann_at, bob_at, (key1, key2)) is None:
        return None
    to_key = path(cells, w, h, bob_at, key2, (key1,))
    if to_key is None:
        return None
    away = free_steps(maze, bob_at, (key1, key2, *cells_of(bob_at, to_key, w)), 1)
    if not away or path(cells, w, h, key2, cells_of(bob_at, away, w)[-1], (key1,)) is None:
        return None
    return key1, key2, away


def test_meetings_say_what_happened_to_whose_key(browser, board):
    for _ in range(8):  # boards until one's maze allows the scenario (most do)
        host = board()
        ann = browser.phone(host.url, PIXEL, init_script=BUZZ)
        bob = browser.phone(host.url, IPHONE)
        tv = browser.tv(host.url + "#watch")
        ann.join("Ann")
        bob.join("Bob")
        tv.wait_attr("conn", "on")
        ann.ready()
        bob.ready()
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        found = plan(maze, ann.pos(), bob.pos())
        if found:
            break
        for screen in (ann, bob, tv):
            screen.close()
    else:
        pytest.fail("no maze of 8 boards allowed the scenario")
    key1, key2, away = found
    try:
        # 1. Ann walks into Bob, neither carries a key: nothing changed, and they say so.
        here = walk(ann, maze, bob.pos(), avoid=(key1, key2))
        quiet = "Nobody carried a key: nothing changed."
        assert ann.wait_toast("You met Bob.") == "You met Bob. " + quiet
        assert bob.wait_toast("You met Ann.") == "You met Ann. " + quiet
        log_has(tv, "Ann met Bob. " + quiet)
        # Both pawns are drawn on the shared cell, side by side.
        ann.wait_js(SIDE_BY_SIDE, here)
        bob.wait_js(SIDE_BY_SIDE, here)
        assert [60, 40, 60] in ann.page.evaluate("window.__buzz")

        # 2. Bob steps aside; Ann picks up Bob's key and walks into him with it. (The toasts of
        # the first meeting are in the pages' history: only those shown from here on count.)
        ann_mark, bob_mark = ann.toast_mark(), bob.toast_mark()
        bob.move(away[0], "pad")
        walk(ann, maze, key2, avoid=(key1, bob.pos()), drop_foreign=False)
        ann.wait_attr("key", "2")
        assert "You picked up Bob's key" in ann.wait_toast("picked up", ann_mark)
        walk(ann, maze, bob.pos(), avoid=(key1,), drop_foreign=False)
        took = "You had Bob's key: it went back to Bob."
        back = "Your key is back with you!"
        assert ann.wait_toast("You met Bob.", ann_mark) == "You met Bob. " + took
        assert bob.wait_toast("You met Ann.", bob_mark) == "You met Ann. " + back
        log_has(tv, "Ann met Bob. Ann had Bob's key: it went back to Bob.")
        bob.wait_attr("key", "2")
        ann.wait_attr("key", "0")
        assert bob.text("#hKey") == "your key"
        ann.shot("party-meeting")
        tv.shot("party-tv-meeting")
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for screen in (ann, bob, tv):
            screen.close()
