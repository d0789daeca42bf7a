# The TV tells the story (issue 34): the result read from the sofa at 1920x1080 and 1280x720
# (the winner and why first, in the largest type on screen, the series under it, the figures
# and the seed's line below, everything inside the screen), the series score during play on
# the phones and the TV, and the result said in words by both players' live regions.
import pytest
from browser_ui import IPHONE, PIXEL, find_object, observe, walk

from qr_read import read_qr

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow(seconds=40)]

# everything the live region said (window.__said)
SAID = """
document.addEventListener("DOMContentLoaded", () => {
  const say = document.getElementById("say");
  window.__said = [];
  new MutationObserver(() => window.__said.push(say.textContent))
    .observe(say, { childList: true, characterData: true, subtree: true });
});"""

# A best-of-3 ruleset fixed by the settings, on its own maze, cooldown and grace.
QUICK = {
    "ruleset": "quick",
    "preset": None,
    "cooldown_ms": None,
    "reconnect_grace_ms": None,
    "countdown_ms": 600,
}

# Every element of the TV's result with its box, and the largest font on the page: the result's
# headline is the largest type on screen, then the series, then the figures and the seed's line.
RESULT_LAYOUT = """() => {
  const res = document.getElementById('res');
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const size = (el) => parseFloat(getComputedStyle(el).fontSize);
  const shown = [...document.querySelectorAll('body *')].filter((el) =>
    el.checkVisibility() && [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim()));
  const others = shown.filter((el) => !res.querySelector('h2').contains(el));
  return {
    vw: innerWidth, vh: innerHeight,
    parts: [...res.querySelectorAll('*')].filter((el) => el.checkVisibility())
      .map((el) => ({tag: el.tagName, text: el.textContent, box: box(el)})),
    order: ['h2', '#series', 'table', '.dim'].map((s) => box(res.querySelector(s)).y),
    h2: size(res.querySelector('h2')),
    series: size(res.querySelector('#series')),
    table: size(res.querySelector('td')),
    largestOther: Math.max(...others.map(size)),
  };
}"""


def _result_readable(tv, width, height):
    tv.page.set_viewport_size({"width": width, "height": height})
    tv.wait_js("innerWidth === %d && innerHeight === %d" % (width, height))
    layout = tv.page.evaluate(RESULT_LAYOUT)
    for part in layout["parts"]:
        b = part["box"]
        assert b["x"] >= 0 and b["y"] >= 0, (width, height, part)
        assert b["r"] <= layout["vw"] and b["b"] <= layout["vh"], (width, height, part)
    assert layout["order"] == sorted(layout["order"]), layout["order"]
    assert layout["h2"] > layout["largestOther"], layout
    assert layout["h2"] > layout["series"] > layout["table"], layout
    tv.shot("tv-result-%dx%d" % (width, height))


def test_the_tv_shows_the_result_first_and_large_and_the_series_all_along(browser, board):
    host = board(**QUICK)
    tv = browser.tv(host.url + "#watch", init_script=SAID)
    ann = browser.phone(host.url, PIXEL, init_script=SAID)
    bob = browser.phone(host.url, IPHONE, init_script=SAID)
    try:
        tv.wait_attr("screen", "watch")
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "active", timeout=20_000)
        # the series during play: on the phones' HUD and in the TV's panel
        series = "Ann 0 \u2013 0 Bob, best of 3"
        for phone in (ann, bob):
            phone.wait_js("document.getElementById('hSer').textContent === %r" % series)
        tv.wait_js("document.getElementById('res').textContent === %r" % series)

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
        tv.wait_attr("result", "Ann wins!", timeout=20_000)

        # both live regions say the result in words
        ann.wait_js("window.__said.includes('You got out first. You win!')")
        bob.wait_js("window.__said.includes('Ann got out first. Ann wins')")

        tv.skip_replay()  # the TV replays the match first (test_client_replay.py)
        # the TV: the headline, the series, the figures and the seed's line
        tv.wait_js("!!document.querySelector('#res .dim')")  # the seed checked
        assert tv.text("#res h2") == "Ann wins!"
        assert tv.text("#res #series") == "Ann 1 \u2013 0 Bob, best of 3"
        rows = tv.page.locator("#res tr").all_inner_texts()
        assert "Ann" in rows[0] and "out at" in rows[0] and "Bob" in rows[1], rows
        assert "inside" in rows[1], rows
        for width, height in ((1920, 1080), (1280, 720)):
            _result_readable(tv, width, height)
        assert tv.axe() == []
        for phone in (ann, bob):
            assert phone.text("#series") == "Ann 1 \u2013 0 Bob, best of 3"
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for screen in (ann, bob, tv):
            screen.close()


def test_a_player_whose_grace_period_runs_out_timed_out(browser, board):
    host = board(reconnect_grace_ms=1500)
    ann = browser.phone(host.url, init_script=SAID)
    bob = browser.phone(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "active", timeout=20_000)
        bob.close()  # his phone is gone: no leave, the grace period runs out
        ann.wait_attr("result", "Bob timed out: you win!", timeout=20_000)
        ann.wait_js(
            "document.getElementById('end').textContent.includes('did not come back in time')"
        )
        ann.wait_js(
            "window.__said.includes('Bob did not come back in time. Bob timed out: you win!')"
        )
        assert not ann.errors
    finally:
        ann.close()
        bob.close()


def test_the_tv_waiting_room_shows_the_wifi_and_both_codes_scan(browser, board):
    # a name and a password with every character the Wi-Fi format escapes
    host = board(ssid='Maze "Night";2', password="pa:ss\\word,1")
    tv = browser.tv(host.url + "#watch")
    try:
        tv.wait_js("!!document.querySelector('#ov .qr svg')")
        tv.wait_js("[...document.querySelectorAll('#ov .qr img')].every((i) => i.complete)")
        text = tv.text("#ov")
        assert 'Maze "Night";2' in text and "pa:ss\\word,1" in text and host.url in text
        figures = tv.page.locator("#ov .qr figure").all()
        codes = [figure.locator("svg, img").first for figure in figures]
        for code in codes:  # large enough to scan from the sofa
            assert code.bounding_box()["width"] >= 300
        wifi, url = (read_qr(code.screenshot()) for code in codes)
        assert wifi == ['WIFI:T:WPA;S:Maze \\"Night\\"\\;2;P:pa\\:ss\\\\word\\,1;;']
        assert url == [host.url]
        assert not [r for r in tv.requests if r.endswith(".svg") and "/url.svg" not in r]
        assert tv.axe() == []
        tv.shot("tv-waiting-wifi")
        assert not tv.errors
    finally:
        tv.close()
