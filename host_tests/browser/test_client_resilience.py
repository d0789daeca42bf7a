# Resilience of the phone client: a page reload resumes the seat (token in the tab's
# sessionStorage, seen cells remembered); a dropped socket, a socket that goes silent, and a
# lost move or a lost answer all end with the same seat and the right position; a missing or
# out-of-order view record brings a fresh view (the "sync" intent) instead of a wrong picture.
import json

import pytest
from browser_ui import find_object, free_steps, observe, step, two_free_steps
from ws_proxy import WsProxy

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def start_match(ann, bob):
    ann.join("Ann")
    bob.join("Bob")
    ann.ready()
    bob.ready()
    ann.wait_attr("phase", "active")
    bob.wait_attr("phase", "active")


def key_cells(maze):
    return (find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1])


def syncs(screen):
    """How many times the page asked the board for a fresh view (data-syncs)."""
    return int(screen.attr("syncs") or 0)


def test_a_reload_mid_match_resumes_the_seat_and_the_map(browser, board):
    host = board()
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    try:
        start_match(ann, bob)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        for d in free_steps(maze, ann.pos(), key_cells(maze), 3):
            ann.move(d, "pad")
        here, seen = ann.pos(), int(ann.attr("seen"))
        token = ann.seat_token()
        assert len(token) == 32

        ann.page.reload()
        ann.wait_attr("conn", "on")
        ann.wait_attr("phase", "active")
        ann.wait_attr("pos", here)
        assert ann.attr("screen") == "play" and ann.attr("seat") == "1"
        assert int(ann.attr("seen")) == seen  # the map seen before the reload is still drawn
        welcome = ann.welcomes()[-1][1]
        assert welcome["resumed"] is True and welcome["seat"] == 1
        assert ann.seat_token() == token and list(ann.stored_seats()) == [token]
        assert "game: seat 1 resumed" in host.log()
        # ... and she plays on from where she stood.
        d = next(d for d in range(4) if maze["cells"][here] & (1, 2, 4, 8)[d])
        ann.move(d, "pad")
        ann.shot("player-after-reload")
        assert not ann.errors, ann.errors
    finally:
        ann.close()
        bob.close()


def test_dropped_and_silent_sockets_reconnect_and_resend_what_was_lost(browser, board):
    host = board()
    proxy = WsProxy(host.http_port)
    ann = browser.phone(proxy.url)  # Ann's Wi-Fi is the proxy: the test can break it
    bob = browser.phone(host.url)
    try:
        start_match(ann, bob)
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        w = maze["w"]

        def reconnected(n):
            ann.wait_for(
                lambda: any(k == n for k, _ in ann.welcomes()), "welcome on socket %d" % n
            )
            assert ann.welcomes()[-1][1]["resumed"] is True
            ann.wait_attr("conn", "on")

        # 1. The connection is reset both ways: the phone reconnects alone, same seat.
        proxy.cut()
        reconnected(2)
        assert ann.attr("seat") == "1"

        # 2. A move lost on its way to the board is sent again, with its sequence, after the
        # reconnect, and made once.
        route = two_free_steps(maze, ann.pos(), key_cells(maze))
        assert len(route) == 2, "no free step from %d (keys %r)" % (ann.pos(), key_cells(maze))
        here = ann.pos()
        proxy.up = lambda text: [] if '"move"' in text else [text]
        ann.pad(route[0])
        ann.wait_for(lambda: ann.sent_on(2, "move"), "the move leaving")
        lost = ann.sent_on(2, "move")[-1]
        assert ann.pos() == here
        proxy.up = None
        proxy.cut()
        reconnected(3)
        here = step(here, route[0], w)
        ann.wait_attr("pos", here)
        assert lost in ann.sent_on(3, "move")
        assert ann.welcomes()[-1][1]["last"] < lost["c"]

        # 3. The board's answer is lost: after the reconnect the phone learns from the welcome
        # that the move was applied, and does not send it again.
        proxy.down = lambda text: [] if '"ack"' in text else [text]
        ann.pad(route[1])
        here = step(here, route[1], w)
        ann.wait_attr("pos", here)
        applied = ann.sent_on(3, "move")[-1]
        proxy.down = None
        proxy.cut()
        reconnected(4)
        assert ann.welcomes()[-1][1]["last"] >= applied["c"]
        assert ann.sent_on(4, "move") == []
        ann.wait_attr("pos", here)
        back = (route[1] + 2) % 4  # and the next move goes through as usual
        ann.move(back, "pad")

        # 4. The socket goes silent without closing (a phone out of range): the heartbeat
        # notices, and the phone reconnects.
        proxy.stall()
        reconnected(5)
        assert host.log().count("game: seat 1 resumed") == 4
        assert "game: seat 1 away" in host.log()  # the board timed the silent socket out
        assert not ann.errors, ann.errors
    finally:
        ann.close()
        bob.close()
        proxy.close()


def test_a_missing_or_out_of_order_record_brings_a_fresh_view(browser, board):
    host = board(preset="classic")  # a 15x15 maze: the spectator's view takes two records
    proxy = WsProxy(host.http_port)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.screen(proxy.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        # the whole maze (the board allows it): a view of two records, whose second is lost
        tv.tap("#bView")
        tv.wait_js("document.getElementById('bView').textContent === \"Players' views\"")
        tv.wait_for(lambda: tv.sockets == 2, "the switch's new socket")
        tv.wait_attr("conn", "on")
        sockets = tv.sockets  # (the switch joined again, on a new socket)

        # 1. The second record of a view never arrives.
        lost = []

        def lose_second(text):
            rec = json.loads(text)
            if rec.get("t") == "view" and rec["i"] == 1 and not lost:
                lost.append(rec)
                return []
            return [text]

        proxy.down = lose_second
        ann.ready()
        bob.ready()
        tv.wait_for(lambda: lost, "a lost record")
        tv.wait_for(lambda: syncs(tv) >= 1, "the spectator asking for a fresh view")
        proxy.down = None
        tv.wait_attr("phase", "active")
        assert int(tv.attr("s")) >= lost[0]["s"]

        # 2. Two records of a view arrive swapped.
        swapped = []

        def swap(text):
            rec = json.loads(text)
            if rec.get("t") != "view" or (swapped and swapped[0] == "sent"):
                return [text]
            if rec["i"] == 0 and not swapped:
                swapped.append(text)
                return []
            if rec["i"] == 1 and swapped:
                first = swapped.pop()
                swapped.append("sent")
                return [text, first]
            return [text]

        proxy.down = swap
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        d = next(d for d in range(4) if maze["cells"][ann.pos()] & (1, 2, 4, 8)[d])
        ann.move(d, "pad")
        tv.wait_for(lambda: swapped == ["sent"], "swapped records")
        tv.wait_attr("why", "gap")
        tv.wait_for(lambda: syncs(tv) >= 2, "the spectator asking for a fresh view")
        now = observe(host.ws_url)
        tv.wait_attr("s", now["s"])
        assert int(tv.attr("rejected")) >= 1
        # Both fresh views came through the "sync" intent on the same socket, no reconnect.
        assert tv.sockets == sockets
        sent = [m for _, _, way, m in tv.frames if way == "sent" and m and m.get("t") == "sync"]
        assert len(sent) == syncs(tv)
        assert not tv.errors, tv.errors
    finally:
        for screen in (ann, bob, tv):
            screen.close()
        proxy.close()
