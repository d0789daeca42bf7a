# A whole match in real Chromium against the real firmware: two phones (touch, 360x640) join,
# ready up and play to a result with the D-pad, swipes and keys; a laptop watches as the
# spectator and sees the result. Screenshots of every screen go to build/screenshots/.
import pytest
from browser_ui import find_object, free_steps, observe, walk

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]

ALL_WAYS = ("pad", "swipe", "arrow", "wasd")


# A tap during the countdown must reach the board before GO: a window of the board's own clock
# that no event can hold open, so it is long enough for the few page actions in it on a loaded
# machine (the browser settings' 2 s was not, with six browsers at once) and holds nothing slow.
COUNTDOWN_MS = 6000


def test_two_phones_play_a_match_to_a_win_and_the_spectator_sees_it(browser, board):
    host = board(countdown_ms=COUNTDOWN_MS)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.screen(host.url)
    late = None
    try:
        ann.shot("join")
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        assert ann.attr("seat") == "1" and bob.attr("seat") == "2"
        # The waiting room names both players; the spectator sees it too.
        for screen in (ann, bob, tv):
            screen.wait_js("document.getElementById('ov').textContent.includes('Bob')")
        assert "Ann" in ann.text("#who") and "Bob" in ann.text("#who")
        ann.shot("player-waiting")

        ann.ready()
        ann.wait_js("document.getElementById('ov').textContent.includes('\u2713 ready')")
        bob.ready()
        ann.wait_attr("phase", "countdown")
        # A move during the countdown is refused by the board; the phone says why, briefly.
        ann.page.locator("#pad button:not([disabled])").first.tap()
        assert ann.wait_toast("Wait for GO!") == "\u2715 Wait for GO!"  # a sentence, no code
        assert ann.attr("code") == "COUNTDOWN"
        ann.shot("player-countdown")
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "active")

        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        key1 = find_object(maze, 0, 1)[1]
        key2 = find_object(maze, 0, 2)[1]
        outward, exit1 = find_object(maze, 1, 1)

        # Bob takes a few steps by keyboard and a swipe, never onto a key.
        route = free_steps(maze, bob.pos(), (key1, key2), 3)
        assert route, "bob has no free step"
        for d, how in zip(route, ("arrow", "wasd", "swipe")):
            bob.move(d, how)

        # Ann fetches her key, every input method in turn.
        walk(ann, maze, key1, avoid=(key2,), methods=ALL_WAYS)
        ann.wait_attr("key", "1")
        assert ann.text("#hKey") == "your key"
        # A second spectator arrives after GO: it never saw the countdown event.
        late = browser.screen(host.url)
        late.join(role="watch")
        late.wait_attr("phase", "active")
        assert int(ann.attr("seen")) > 9  # cells seen on the way stay on her map
        ann.shot("player-active")
        tv.shot("spectator-active")

        # ... walks onto her exit (which opens), and steps out through it.
        walk(ann, maze, exit1, avoid=(key2,), methods=ALL_WAYS)
        ann.wait_js("document.getElementById('hExit').textContent === 'OPEN'")
        door = ann.pad_button(outward)
        assert door.is_enabled() and "out through your exit" in door.get_attribute("aria-label")
        ann.pad(outward)

        ann.wait_attr("result", "You win!")
        bob.wait_attr("result", "Ann wins")
        tv.wait_attr("result", "Ann wins!")
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "finished")
        assert "You win!" in ann.text("#end")
        assert ann.page.locator("#bReady").inner_text() == "Rematch"
        tv.wait_js("document.getElementById('c1').textContent.includes('Exit: out at')")
        assert "Ann wins!" in tv.text("#res")
        # Exit times count from GO for both spectators (welcome carries the countdown length).
        late.wait_js("document.getElementById('c1').textContent.includes('Exit: out at')")
        assert late.text("#c1") == tv.text("#c1"), (late.text("#c1"), tv.text("#c1"))
        ann.shot("player-result")
        bob.shot("opponent-result")
        tv.shot("spectator-result")

        # Both ask for a rematch: a new match (new maze) starts with a fresh map memory.
        ann.tap("#bReady")
        bob.wait_js("document.getElementById('end').textContent.includes('wants a rematch')")
        bob.tap("#bReady")
        for screen in (ann, bob, tv):
            screen.wait_attr("phase", "countdown")
        ann.wait_js("document.body.dataset.seen === document.body.dataset.vis")
        assert not (ann.errors or bob.errors or tv.errors or late.errors)
    finally:
        for screen in (ann, bob, tv, late):
            if screen is not None:
                screen.close()
