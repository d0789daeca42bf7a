# A board restarted in the middle of a party (unplugged, reset): the TV (1080p) starts afresh
# on the new board run, with no event of the old match left in its list, and a player's phone
# (Pixel 7 sized, touch) goes back to the join screen, its seat gone with the old run.
import pytest
from browser_ui import PIXEL, find_object, observe, walk

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def test_a_restarted_board_leaves_nothing_of_the_old_match_on_the_tv(browser, board):
    host = board()
    tv = browser.tv(host.url + "#watch")
    ann = browser.phone(host.url, PIXEL)
    bob = browser.phone(host.url, PIXEL)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.wait_attr("conn", "on")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "active", timeout=20_000)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        keys = (find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1])
        walk(ann, maze, find_object(maze, 2, 1)[1], avoid=keys)
        tv.wait_js("document.getElementById('log').textContent.includes('Ann read a compass')")
        boot = tv.welcomes()[-1][1]["boot"]

        host = board(restart=host)  # the same address, a new run: match 1, nobody seated
        tv.wait_for(lambda: tv.welcomes()[-1][1]["boot"] != boot, "the TV on the new board")
        tv.wait_attr("phase", "waiting")
        tv.wait_js("document.getElementById('log').textContent === ''")
        tv.wait_js("document.getElementById('c1').textContent.includes('free seat')")
        assert "read a compass" not in tv.page.locator("body").inner_text()
        ann.wait_js("document.getElementById('jmsg').textContent.includes('seat was given up')")
        assert not (tv.errors or ann.errors or bob.errors)
    finally:
        for screen in (tv, ann, bob):
            screen.close()
