# Joining and leaving at a party, on phone-sized touch screens (Pixel 7, iPhone 13): every tab is
# its own player (a reload keeps it, a closed browser resumes its seat, but no tab takes another
# open tab's seat), the join screen teaches the game and keeps its line current, refusals are
# sentences (the codes show in the #debug view), the opponent's absence is shown with the time
# it has to come back, and a match given up ends with names, not "nobody", and no rematch
# against an empty seat.
import re

import pytest
from browser_ui import IPHONE, PIXEL, SLOW_MS

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def welcomes_of(phone):
    return [m for _, m in phone.welcomes()]


def test_every_tab_is_its_own_player_and_a_closed_browser_resumes(browser, board):
    host = board()
    ann = browser.phone(host.url, PIXEL)
    tabs = []
    try:
        ann.join("Ann")
        assert ann.attr("seat") == "1"
        # A second tab of the same browser does not take Ann's seat: it is a new player.
        bob = ann.tab()
        tabs.append(bob)
        bob.wait_js("document.getElementById('jinfo').textContent.includes('1 of 2 seats')")
        assert bob.attr("screen") == "join" and bob.sockets == 0
        bob.join("Bob")
        assert bob.attr("seat") == "2" and bob.seat_token() != ann.seat_token()
        # ... and a third one can watch, without either player being thrown out.
        tv = ann.tab()
        tabs.append(tv)
        tv.join(role="watch")
        for phone in (ann, bob):
            assert phone.attr("conn") == "on" and len(phone.welcomes()) == 1
        assert "seat taken over" not in host.log()
        # A reload keeps the tab's own seat.
        token = ann.seat_token()
        ann.page.reload()
        ann.wait_attr("conn", "on")
        assert ann.attr("seat") == "1" and ann.seat_token() == token
        assert welcomes_of(ann)[-1]["resumed"] is True
        # Bob closes his tab (or the whole browser): the next tab opened resumes his seat.
        bob_token = bob.seat_token()
        assert set(ann.stored_seats()) == {token, bob_token}
        bob.page.close()
        again = ann.tab()
        tabs.append(again)
        again.wait_attr("conn", "on")
        assert again.attr("screen") == "play" and again.attr("seat") == "2"
        assert again.seat_token() == bob_token and welcomes_of(again)[-1]["resumed"] is True
        assert host.log().count("game: seat 2 resumed") == 1
        for phone in (ann, tv, again):
            assert not phone.errors, phone.errors
    finally:
        for tab in tabs:
            tab.close()
        ann.close()


def test_a_closing_tab_keeps_its_seat_free_for_the_next_one(browser, board):
    # pagehide marks the tab's stored seat free (its time 0) for the next tab; what the page
    # still runs after it (a message, the heartbeat: its socket outlives pagehide by a moment)
    # must not mark it as used again, or a new tab within 15 s stays on the join screen.
    host = board()
    bob = browser.phone(host.url, IPHONE)
    try:
        bob.join("Bob")
        token = bob.seat_token()
        assert bob.stored_seats()[token]["at"] > 0  # in use by this tab
        bob.page.evaluate("dispatchEvent(new PageTransitionEvent('pagehide'))")
        assert bob.stored_seats()[token]["at"] == 0
        # the heartbeat saves the tab's state after every ping
        pings = len(bob.sent("ping"))
        bob.wait_for(lambda: len(bob.sent("ping")) > pings + 1, "two heartbeats", SLOW_MS)
        assert bob.stored_seats()[token]["at"] == 0
        # back from the back-forward cache, the tab holds its seat again
        bob.page.evaluate("dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
        pings = len(bob.sent("ping"))
        bob.wait_for(lambda: len(bob.sent("ping")) > pings, "a heartbeat", SLOW_MS)
        assert bob.stored_seats()[token]["at"] > 0
        assert not bob.errors, bob.errors
    finally:
        bob.close()


def test_the_help_says_so_when_the_board_does_not_answer_and_loads_next_time(browser, board):
    host = board()
    carl = browser.phone(host.url, IPHONE)
    try:
        carl.wait_attr("screen", "join")
        carl.page.route("**/help.html", lambda route: route.abort())
        carl.tap("#join .help")
        carl.wait_js("document.getElementById('help').open")
        assert "The board did not answer" in carl.text("#help")
        carl.tap("#help button[aria-label='Close']")
        carl.page.unroute("**/help.html")
        carl.tap("#join .help")  # asked again: the text this time
        carl.wait_js("document.getElementById('help').textContent.includes('Carry your key')")
        assert "did not answer" not in carl.text("#help")
        assert not carl.errors, carl.errors
    finally:
        carl.close()


def test_the_join_screen_teaches_and_keeps_its_line_current(browser, board):
    host = board()
    carl = browser.phone(host.url, IPHONE)
    ann = browser.phone(host.url, PIXEL)
    try:
        carl.wait_js("document.getElementById('jinfo').textContent.includes('0 of 2 seats')")
        carl.shot("party-join")
        assert carl.axe() == []
        # How to play: one screen, reachable from the join screen, with a drawn legend. Its
        # text is not part of the page: the board's help.html, fetched when first opened.
        fetched = (
            "performance.getEntriesByType('resource')"
            ".filter((e) => e.name.endsWith('/help.html')).length"
        )
        assert carl.page.evaluate(fetched) == 0
        carl.tap("#join .help")
        carl.wait_js("document.getElementById('help').open")
        assert carl.page.evaluate(fetched) == 1
        help_box = carl.box("#help")
        assert help_box["height"] <= carl.page.viewport_size["height"]
        assert "Carry your key onto your exit" in carl.text("#help")
        drawn = carl.page.evaluate(
            """[...document.querySelectorAll('#leg canvas')].map((c) => {
                 const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                 const seen = new Set();
                 for (let i = 0; i < d.length; i += 4) {
                   seen.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]);
                 };
                 return [c.dataset.l, seen.size]; })"""
        )
        assert len(drawn) == 10 and all(colours > 1 for _, colours in drawn), drawn
        carl.shot("party-help")
        assert carl.axe() == []
        carl.tap("#help button[aria-label='Close']")
        carl.wait_js("!document.getElementById('help').open")
        carl.tap("#join .help")  # again: the text it has, drawn for the reader again
        carl.wait_js("document.getElementById('help').open")
        assert carl.page.evaluate(fetched) == 1 and "Carry your key" in carl.text("#help")
        carl.tap("#help button[aria-label='Close']")
        carl.wait_js("!document.getElementById('help').open")
        # Someone takes a seat: the line on the join screen follows without a reload.
        ann.join("Ann")
        carl.wait_js("document.getElementById('jinfo').textContent.includes('1 of 2 seats')")
        # The waiting room offers the same help.
        ann.tap("#ov .help")
        ann.wait_js("document.getElementById('help').open")
        assert ann.axe() == []
        assert not (carl.errors or ann.errors)
    finally:
        carl.close()
        ann.close()


def test_refusals_an_absent_opponent_and_a_match_given_up(browser, board):
    host = board()
    ann = browser.phone(host.url + "#debug", PIXEL)  # the debug view: codes in the toasts
    bob = phone_of_bob = browser.phone(host.url, IPHONE)
    carl = None
    try:
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        for phone in (ann, bob):
            phone.wait_attr("phase", "countdown")
            phone.page.locator("#pad button:not([disabled])").first.tap()
        # A refusal is a sentence; its code shows only in the debug view.
        assert bob.wait_toast("Wait for GO!") == "\u2715 Wait for GO!"
        assert ann.wait_toast("Wait for GO!") == "\u2715 Wait for GO! (COUNTDOWN)"
        ann.wait_attr("phase", "active")

        # Bob's phone drops out: Ann is told at once, with the time he has to come back.
        bob.page.close()
        ann.wait_js("document.getElementById('away').textContent.includes('Bob disconnected')")
        assert ann.page.locator("#away").is_visible()  # over the maze, where she looks
        first = int(re.search(r"(\d+) s to return", ann.text("#away")).group(1))
        assert 0 < first <= 20  # the board's 20 s grace period
        ann.wait_js(
            "(n) => +(/(\\d+) s to return/.exec(document.getElementById('away').textContent)"
            " || [0, 99])[1] < n",
            first,
        )
        ann.shot("party-opponent-away")
        # He comes back in a new tab of his browser: the seat is his again, the banner goes.
        bob = bob.tab()
        bob.wait_attr("conn", "on")
        assert bob.attr("seat") == "2"
        ann.wait_js("document.getElementById('away').hidden")

        # Bob gives up: Ann wins, and every line names him, never "nobody".
        bob.page.on("dialog", lambda dialog: dialog.accept())
        bob.tap("#bLeave")
        bob.wait_attr("screen", "join")
        ann.wait_attr("result", "Bob gave up: you win!")
        ann.wait_js("document.getElementById('who').textContent.includes('waiting for an')")
        ann.wait_js("document.getElementById('end').textContent.includes('Bob left')")
        assert "nobody" not in ann.page.locator("body").inner_text().lower()
        assert ann.page.locator("#bReady").is_hidden()  # no rematch against an empty seat
        ann.shot("party-forfeit")
        assert ann.axe() == []
        # Someone new sits down: a fresh waiting room, where Carl is never named in Bob's
        # result (no "Carl gave up"), and a match of their own to be ready for.
        carl = browser.phone(host.url, IPHONE)
        carl.join("Carl")
        ann.wait_js("document.getElementById('who').textContent.includes('vs Carl')")
        ann.wait_attr("phase", "waiting")
        ann.wait_js("!document.getElementById('bReady').hidden")
        assert ann.text("#bReady") == "Ready" and ann.attr("result") == ""
        assert carl.attr("phase") == "waiting" and carl.attr("result") == ""
        assert "gave up" not in ann.page.locator("body").inner_text()
        assert not (ann.errors or bob.errors or carl.errors)
    finally:
        for phone in (ann, bob, phone_of_bob, carl):
            if phone is not None:
                phone.close()
