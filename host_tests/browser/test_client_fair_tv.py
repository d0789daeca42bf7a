# The fair TV in Chromium (issue 34, item 2; docs/client.md "The TV"): by default the TV draws
# both players' own views side by side, and its socket is sent nothing else: no observer
# record, and no view at all while the match waits. Where the board allows it, the TV's button
# switches to the whole maze and back.
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def _view_roles(screen):
    return {m["r"] for m in screen.received("view")}


def test_the_tv_shows_both_players_views_and_receives_nothing_else(browser, board):
    host = board()
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.tv(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        tv.wait_js("document.getElementById('ov').textContent.includes('Bob')")
        assert tv.received("view") == []  # the waiting room: no maze of the coming match
        ann.ready()
        bob.ready()
        tv.wait_attr("phase", "active")
        tv.wait_attr("panes", "2")  # two maps, one per player
        assert _view_roles(tv) == {"p1", "p2"}
        assert "Both players' views" in tv.page.locator("#cv").get_attribute("aria-label")
        # the canvas holds two 9x9 maps a column apart: 19 cells across, 9 down
        box = tv.box("#cv")
        assert abs(box["width"] / box["height"] - 19 / 9) < 0.05, box
        tv.shot("tv-players")
        # the board allows the whole maze here ("tv": "full"): the TV's button asks for it
        tv.tap("#bView")
        tv.wait_js("document.getElementById('cv').getAttribute('aria-label').startsWith('Whole')")
        assert "obs" in _view_roles(tv)
        assert tv.text("#bView") == "Players' views"
        tv.shot("tv-full")
    finally:
        for screen in (ann, bob, tv):
            screen.close()


def test_a_tv_cannot_have_the_whole_maze_where_the_board_does_not_allow_it(browser, board):
    host = board(tv="players")
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.tv(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        assert tv.page.locator("#bView").is_hidden()
        ann.ready()
        bob.ready()
        tv.wait_attr("panes", "2")
        assert _view_roles(tv) == {"p1", "p2"}
    finally:
        for screen in (ann, bob, tv):
            screen.close()
