# The controls on a touch phone: walls the phone knows grey the D-pad out, a move into a wall
# is refused on the phone with its reason, holding a direction repeats at the board's cooldown
# with at most one move waiting for its answer and stops quietly at a wall, a held button looks
# pressed, and a refused move stops a held direction.
import pytest
from browser_ui import find_object, observe, straight_run

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def replies_in_order(phone):
    """(kind, c) for the moves sent and the answers to them, in the order the page saw them."""
    moves = {m["c"] for m in phone.sent("move")}
    out = []
    for _, _, way, msg in phone.frames:
        if not msg or msg.get("t") not in ("move", "ack", "err") or msg.get("c") not in moves:
            continue
        if way == "sent":
            out.append(("move", msg["c"]))
        elif msg.get("t") in ("ack", "err"):
            out.append((msg["t"] + ":" + msg.get("code", ""), msg["c"]))
    return out


def test_dpad_walls_and_hold_to_repeat(browser, board):
    # the hold below must reach the board before GO: a window of the board's clock that no
    # event can hold open, long enough for the page actions in it on a loaded machine
    host = board(countdown_ms=6000)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "countdown")

        # Holding a direction during the countdown: one move, refused, and the hold stops there
        # instead of hammering the board.
        free = int(ann.page.locator("#pad button:not([disabled])").first.get_attribute("data-d"))
        ann.hold(free)
        ann.wait_toast("Wait for GO!")
        ann.wait_attr("phase", "active")
        ann.release()
        assert [kind for kind, _ in replies_in_order(ann)] == ["move", "err:COUNTDOWN"]

        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        cells = maze["cells"]
        outward, exit1 = find_object(maze, 1, 1)

        # Hold the D-pad along the longest straight corridor: one step per cooldown, until the
        # wall at its end stops the repeat by itself (or, should the corridor end at Ann's own
        # closed exit, the board refuses the step out).
        here = ann.pos()
        d, run = max(((d, straight_run(maze, here, d)) for d in range(4)), key=lambda x: len(x[1]))
        end = run[-1]
        out_of_exit = end == exit1 and d == outward
        mark = ann.toast_mark()
        ann.hold(d)
        ann.wait_attr("pos", end)
        if out_of_exit:
            ann.wait_toast("Your exit is still closed", mark)
        else:
            # the hold ends at the wall by itself, quietly: no error toast, nothing sent
            ann.wait_attr("held", "-1")
            assert not [t for t in ann.toasts(mark) if "\u2715" in t], ann.toasts(mark)
            assert ann.attr("code") == "COUNTDOWN"  # the last refusal is still the countdown's
        # the finger is still down: the button shows it is pressed
        assert "on" in ann.pad_button(d).get_attribute("class")
        ann.release()
        ann.wait_js("!document.querySelector('#pad .on')")
        held = replies_in_order(ann)[2:]
        if out_of_exit:
            assert held[-1][0] == "err:EXIT_CLOSED"
            held = held[:-2]
        # every move answered before the next one left (no flood), one accepted per cell of the
        # corridor. The page paces the repeat by its own clock and the board counts the cooldown
        # from its receipt, so jitter on a loaded machine may make the board refuse one COOLDOWN:
        # the page then sends the step again (quietly), which is the design, not a flood.
        assert [kind for kind, _ in held[::2]] == ["move"] * (len(held) // 2), held
        assert [c for _, c in held[::2]] == [c for _, c in held[1::2]], held
        answers = [kind for kind, _ in held[1::2]]
        assert answers.count("ack:") == len(run), held
        assert set(answers) <= {"ack:", "err:COOLDOWN"}, held

        # The D-pad greys out exactly the walls around the player, and says so to screen
        # readers; the step out of the own exit is not a wall.
        for k in range(4):
            button = ann.pad_button(k)
            is_wall = not cells[end] & (1, 2, 4, 8)[k] and not (end == exit1 and k == outward)
            assert button.is_disabled() == is_wall, (k, cells[end])
            assert ("(wall)" in button.get_attribute("aria-label")) == is_wall
        # A key pressed toward a known wall is answered on the phone: nothing is sent.
        if not out_of_exit:
            mark = ann.toast_mark()
            sent = len(ann.sent("move"))
            ann.key(d)
            assert ann.wait_toast("A wall is in the way.", mark) == "\u2715 A wall is in the way."
            assert len(ann.sent("move")) == sent
        ann.shot("player-after-hold")
        assert not ann.errors, ann.errors
    finally:
        ann.close()
        bob.close()
