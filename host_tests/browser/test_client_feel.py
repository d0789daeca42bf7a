# How the controls feel and who can use them, on phone-sized touch screens (Pixel 7, iPhone 13)
# and the small Galaxy S5: a tap that has to wait for its turn shows on its button, a step
# slides the pawn and is said aloud (a live region), every button is at least 44x44 px, the
# screen has no empty bands from 360 to 430 px wide in portrait, the spectator's event list
# stays on a small screen, and the map's colours keep WCAG's 3:1 for graphics (axe-core checks
# the text).
import pytest
from browser_ui import IPHONE, PHONE, PIXEL, find_object, observe, two_free_steps, walk
from ws_proxy import WsProxy

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]

PORTRAITS = [(360, 640), (390, 844), (412, 915), (430, 932)]
BAND = 48  # px: the largest empty horizontal band allowed between parts of the screen

# The vertical extent of what shows on the play screen, merged: the empty bands between parts
# and at the bottom, and how far the parts overflow the screen.
BANDS = """(ids) => {
  const spans = ids.map((id) => document.getElementById(id).getBoundingClientRect())
    .filter((r) => r.height > 0).map((r) => [r.top, r.bottom]).sort((a, b) => a[0] - b[0]);
  const gaps = [];
  let end = 0;
  for (const [top, bottom] of spans) {
    gaps.push(top - end);
    end = Math.max(end, bottom);
  }
  gaps.push(innerHeight - end);
  return { gaps, overflow: end - innerHeight, canvas: document.getElementById('cv').clientWidth };
}"""

SMALL_BUTTONS = """() => [...document.querySelectorAll('button')].filter((b) => b.offsetParent)
  .map((b) => [b.textContent.trim() || b.getAttribute('aria-label'), b.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 44)
  .map(([t, r]) => t + ' ' + r.width + 'x' + r.height)"""


def luminance(colour):
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_queued_taps_slides_live_region_and_big_enough_buttons(browser, board):
    host = board()
    proxy = WsProxy(host.http_port)
    ann = browser.phone(proxy.url, PIXEL)  # Ann's Wi-Fi is the proxy: it can hold answers back
    bob = browser.phone(host.url, IPHONE)
    try:
        assert ann.page.evaluate(SMALL_BUTTONS) == []  # the join screen
        ann.join("Ann")
        bob.join("Bob")
        assert ann.page.evaluate(SMALL_BUTTONS) == []  # the waiting room, Leave and ? included
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        keys = (find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1])
        route = two_free_steps(maze, ann.pos(), keys)
        assert len(route) == 2, "no free step"
        assert ann.page.evaluate(SMALL_BUTTONS) == []  # the D-pad, Drop key

        # The board's answer to the first tap is held back: a second tap waits for its turn,
        # and its button says so, until the answer comes and the move goes out.
        held = []
        proxy.down = lambda text: (held.append(text), [])[1] if '"ack"' in text else [text]
        slides = int(ann.attr("anim") or 0)
        ann.pad(route[0])
        ann.wait_for(lambda: held, "the answer held back")
        ann.pad(route[1])
        ann.wait_js("(d) => document.querySelector('#pad .q')?.dataset.d === String(d)", route[1])
        assert len(ann.sent("move")) == 1

        def release(text):  # the held answer goes first, with the next message (a pong)
            out = held + [text]
            held.clear()
            return out

        proxy.down = release
        start = maze["st"]["players"][0]["p"]
        w = maze["w"]
        second = start + [-w, 1, w, -1][route[0]] + [-w, 1, w, -1][route[1]]
        ann.wait_attr("pos", second)
        ann.wait_js("!document.querySelector('#pad .q')")
        assert len(ann.sent("move")) == 2
        # Each step slid the pawn, and was said in the live region.
        ann.wait_for(lambda: int(ann.attr("anim") or 0) >= slides + 2, "two slides")
        said = ann.text("#say")
        assert said.startswith("Moved " + ("north", "east", "south", "west")[route[1]]), said
        assert ann.page.locator("#say").get_attribute("aria-live") == "polite"
        assert ann.axe() == []
        assert not (ann.errors or bob.errors)
    finally:
        ann.close()
        bob.close()
        proxy.close()


def test_no_empty_bands_on_portrait_phones_and_the_map_colours(browser, board):
    host = board()
    ann = browser.phone(host.url, PIXEL)
    bob = browser.phone(host.url, IPHONE)
    tv = browser.phone(host.url, PHONE)  # a spectator on the smallest phone
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "active", timeout=20_000)
        for width, height in PORTRAITS:
            ann.page.set_viewport_size({"width": width, "height": height})
            ann.wait_js(
                "(w) => document.getElementById('cv').clientWidth > 0 && innerWidth === w", width
            )
            ann.page.evaluate("new Promise((done) => requestAnimationFrame(() => done()))")
            bands = ann.page.evaluate(BANDS, ["top", "cv", "hud", "acts", "pad"])
            assert bands["overflow"] <= 1, (width, height, bands)
            assert max(bands["gaps"]) <= BAND, (width, height, bands)
            assert bands["canvas"] >= 0.85 * width, (width, height, bands)
            ann.shot("party-portrait-%dx%d" % (width, height))
        # The spectator's list of events is on the small screen, not below it.
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        keys = (find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1])
        compass = find_object(maze, 2, 2)[1]
        walk(bob, maze, compass, avoid=keys)
        tv.wait_js("document.getElementById('log').textContent.includes('read a compass')")
        log = tv.box("#log li:first-child")  # the newest event (the list may hold more)
        assert log["y"] + log["height"] <= 640
        assert tv.axe() == []
        # The map's colours: walls against their floor, in sight and remembered, the dots of
        # unseen cells, and the players' and the eye's colours on both floors: 3:1 at least.
        pal = ann.page.evaluate("window.__md.PAL")
        assert contrast(pal["wl"], pal["fl"]) >= 3
        assert contrast(pal["wm"], pal["fm"]) >= 3
        assert contrast(pal["dot"], pal["bg"]) >= 3
        for colour in ("#4cc3ff", "#ffb03a", "#d9f99d"):
            assert contrast(colour, pal["fl"]) >= 3 and contrast(colour, pal["fm"]) >= 3
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for screen in (ann, bob, tv):
            screen.close()
