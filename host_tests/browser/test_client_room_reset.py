# A room that resets (issue 34), as people use it: a match ends, its players leave, and two new
# people who come to the board see a fresh waiting room (no result, no "Rematch", cards with no
# moves), while the TV shows the join code whenever a seat is free: small beside the finished
# match, large again in the waiting room.
import pytest
from browser_ui import IPHONE, PIXEL

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


BIG = "!!document.querySelector('#ov .qr img')"  # the waiting room's join codes, over the maze
SMALL = "!!document.querySelector('#jn img')"  # the join code beside the match


def qr(tv):
    """Which join code the TV shows: "big", "small" or ""."""
    big, small = tv.page.evaluate("[%s, %s]" % (BIG, SMALL))
    return "big" if big else "small" if small else ""


def leave(phone):
    phone.page.on("dialog", lambda dialog: dialog.accept())
    phone.tap("#bLeave")
    phone.wait_attr("screen", "join")


def test_two_new_people_after_a_finished_match_see_a_fresh_waiting_room(browser, board):
    host = board()
    phones = []
    try:
        tv = browser.tv(host.url)
        phones.append(tv)
        tv.join(role="watch")
        tv.wait_js(BIG)
        ann = browser.phone(host.url, PIXEL)
        bob = browser.phone(host.url, IPHONE)
        phones += [ann, bob]
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "countdown")
        tv.wait_attr("phase", "countdown")
        assert qr(tv) == ""  # both seats taken: no join code during the match
        # Bob gives up: Ann wins; the TV shows the result and, a seat being free, a small code
        leave(bob)
        ann.wait_attr("result", "Bob gave up: you win!")
        tv.wait_attr("phase", "finished")
        tv.wait_js(SMALL)
        assert qr(tv) == "small" and tv.page.locator("#jn img").is_visible()
        # Ann leaves too: the room is a fresh waiting room, its join code large again
        leave(ann)
        tv.wait_attr("phase", "waiting")
        tv.wait_js(BIG)
        assert qr(tv) == "big" and tv.attr("result") == ""
        assert tv.page.locator("#ov .qr img").first.is_visible()
        assert "moves" not in tv.text("#cards")
        # Two new people: a waiting room, a Ready button, no result of anyone's
        cid = browser.phone(host.url, PIXEL)
        dee = browser.phone(host.url, IPHONE)
        phones += [cid, dee]
        cid.join("Cid")
        dee.join("Dee")
        for phone in (cid, dee):
            phone.wait_attr("phase", "waiting")
            phone.wait_js("document.getElementById('who').textContent.includes('vs')")
            assert phone.attr("result") == ""
            assert phone.text("#bReady") == "Ready" and phone.page.locator("#bReady").is_visible()
            assert phone.page.locator("#end").is_hidden()
            text = phone.page.locator("body").inner_text()
            for stale in ("win", "Finished", "Rematch", "gave up", "forfeit", "Ann", "Bob"):
                assert stale not in text, (stale, text)
        tv.wait_js("document.getElementById('c2').textContent.includes('Dee')")
        assert "moves" not in tv.text("#cards") and qr(tv) == "big"
        # each has a minute to tap Ready, counted down where both (and the TV) see it
        tv.wait_js("/Cid.*not ready \\(\\d+ s\\)/.test(document.getElementById('ov').textContent)")
        cid.wait_js(
            "/Dee.*not ready \\(\\d+ s\\)/.test(document.getElementById('ov').textContent)"
        )
        for name in ("Ann", "Bob"):
            assert name not in tv.text("#cards")
        # and they play their own match from its start
        cid.ready()
        dee.ready()
        cid.wait_attr("phase", "countdown")
        assert tv.axe() == []
        for phone in phones:
            assert not phone.errors, phone.errors
    finally:
        for phone in phones:
            phone.close()
