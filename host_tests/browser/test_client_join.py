# The join screen and the seat: names are cleaned (and never become markup), a full room says
# so and why, a seat the board no longer knows sends the player back to the join screen, and a
# seat opened in a second window is handed over without the two fighting over it.
import json

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def test_names_a_full_room_and_a_full_audience(browser, board):
    host = board(max_observers=1)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    carl = browser.phone(host.url)
    tv = browser.screen(host.url)
    try:
        ann.join("<i>Zoë</i>&")
        bob.join("Maximilianus Rex")
        # Markup characters are dropped, names are cut to 12 characters, visibly (an ellipsis);
        # shown as text only.
        bob.wait_js("document.getElementById('who').textContent.includes('iZoë/i')")
        assert "Maximilianu\u2026" in bob.text("#who") and "Rex" not in bob.text("#who")
        assert bob.page.input_value("#nm") == "Maximilianu\u2026"
        assert bob.page.locator("#who i, #ov i").count() == 0

        # A third phone asks to play: both seats are taken, and it is told so, and why.
        carl.tap("#bPlay")
        carl.wait_js("document.getElementById('jmsg').textContent.includes('Both seats')")
        assert "watch instead" in carl.text("#jmsg")
        assert carl.attr("screen") == "join"
        carl.shot("join-room-full")
        # Watching works; then the only spectator place is taken for the next one.
        carl.tap("#bWatch")
        carl.wait_attr("screen", "watch")
        carl.wait_js("document.getElementById('c1').textContent.includes('iZoë/i')")
        assert carl.page.locator("#c1 i").count() == 0
        tv.tap("#bWatch")
        tv.wait_js("document.getElementById('jmsg').textContent.includes('spectator places')")
        assert tv.attr("screen") == "join"
        for phone in (ann, bob, carl, tv):
            assert not phone.errors, phone.errors
    finally:
        for phone in (ann, bob, carl, tv):
            phone.close()


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 7 code points
SARA = "\u0633\u0627\u0631\u0629"  # an Arabic name, right to left


def test_names_are_cut_between_graphemes_and_isolated(browser, board):
    host = board()
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.screen(host.url)
    try:
        ann.join(FAMILY * 2)  # 14 code points: the second family does not fit, and is not split
        bob.join(SARA)
        tv.join(role="watch")
        ann.wait_js("document.querySelectorAll('#who bdi').length === 2")
        names = ann.page.evaluate(
            "[...document.querySelectorAll('#who bdi')].map((b) => b.textContent)"
        )
        assert names == [FAMILY + "\u2026", SARA]
        assert " vs " in ann.text("#who")
        # every place a name shows isolates it: the waiting room, the TV's cards
        for screen in (ann, tv):
            screen.wait_js("document.querySelectorAll('#ov bdi').length >= 2")
        tv.wait_js("document.querySelectorAll('#c1 bdi, #c2 bdi').length === 2")
        assert not (ann.errors or bob.errors or tv.errors)
    finally:
        for phone in (ann, bob, tv):
            phone.close()


def test_an_unknown_seat_token_goes_back_to_the_join_screen(browser, board):
    host = board()
    eve = browser.phone(host.url)
    try:
        # a seat stored by the page of an older firmware (one identity per browser, "md")
        eve.page.evaluate(
            "localStorage.setItem('md', JSON.stringify({role: 'play', tok: '%s', name: 'Eve'}))"
            % ("0" * 32)
        )
        eve.page.reload()
        eve.wait_js("document.getElementById('jmsg').textContent.includes('seat was given up')")
        assert eve.attr("screen") == "join"
        assert eve.seat_token() is None and eve.stored_seats() == {}
        eve.join("Eve")  # and joining again gets a fresh seat
        assert eve.attr("seat") == "1"
    finally:
        eve.close()


def test_a_seat_opened_in_a_second_window_is_handed_over(browser, board):
    host = board()
    ann = browser.phone(host.url)
    try:
        ann.join("Ann")
        # The same player in a laptop browser with the phone's storage, as if the phone's tab
        # had been frozen in the background long enough for its seat to look free: the same
        # seat token. (A tab that is alive keeps its seat to itself: test_client_party.py.)
        state = ann.context.storage_state()
        for origin in state["origins"]:
            for item in origin["localStorage"]:
                if item["name"].startswith("md:"):
                    item["value"] = json.dumps(dict(json.loads(item["value"]), at=1))
        twin = browser.screen(host.url, storage_state=state)
        try:
            twin.wait_attr("conn", "on")
            assert twin.attr("screen") == "play" and twin.attr("seat") == "1"
            # The old window is told, and does not grab the seat back by itself.
            ann.wait_js("document.getElementById('ov').textContent.includes('Opened elsewhere')")
            assert ann.attr("conn") == "off"
            ann.tap("#bBack")
            ann.wait_attr("conn", "on")
            twin.wait_js("document.getElementById('ov').textContent.includes('Opened elsewhere')")
            twin.shot("player-desktop")
            assert twin.attr("conn") == "off" and ann.attr("seat") == "1"
            assert host.log().count("game: seat 1 resumed") == 2
            assert "seat 2" not in host.log()
        finally:
            twin.close()
        # Leaving gives the seat back at once.
        ann.tap("#bLeave")
        ann.wait_attr("screen", "join")
        assert ann.seat_token() is None and ann.stored_seats() == {}
        ann.wait_for(lambda: "game: seat 1 free" in host.log(), "the seat freed")
    finally:
        ann.close()
