# The match log on the phones (docs/log.md): the page's own SHA-256 (the board's sha256.js,
# imported at a match's end) is SHA-256; a board killed in the middle of a match (SIGKILL) and
# started again on the same flash and address resumes it on both phones, which say that the
# board restarted; at the end the result screen shows the seed verified against its
# commitment and links the match log, which tools/replay.py's check verifies.
import hashlib
import json
import random

import pytest
from browser_ui import find_object, free_steps, observe

from host_board import start_host_board
from logbook import check

pytestmark = [pytest.mark.browser, pytest.mark.upy]

# conftest.py's BROWSER_SETTINGS with a short countdown (a board started by hand here: it is
# killed on purpose, which the `board` fixture would count as a crash)
SETTINGS = {
    "preset": "small",
    "cooldown_ms": 150,
    "countdown_ms": 300,
    "reconnect_grace_ms": 20000,
    "idle_timeout_ms": 3000,
    "max_observers": 4,
    "tv": "full",  # (the test's own observer steers by the whole maze: browser_ui.observe)
}


# how many times the page fetched the SHA-256 module (its own file of the board's web/)
LOADED = (
    "performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/sha256.js')).length"
)


def test_the_page_computes_sha256(browser, board):
    host = board()
    page = browser.phone(host.url).page
    try:
        page.wait_for_function("!!window.__md")
        # the hash is the board's sha256.js, imported when first needed (not part of the page):
        # the module the page imports, from the page's own origin
        assert page.evaluate(LOADED) == 0
        rng = random.Random(5)
        for size in (0, 1, 3, 31, 32, 55, 56, 63, 64, 65, 119, 120, 1000):
            data = bytes(rng.randrange(256) for _ in range(size))
            got = page.evaluate(
                "(a) => import('/sha256.js').then((m) => m.sha256(new Uint8Array(a)))", list(data)
            )
            assert got == hashlib.sha256(data).hexdigest(), size
        assert page.evaluate(LOADED) == 1
    finally:
        page.context.close()


@pytest.mark.slow
def test_a_restarted_board_resumes_and_the_result_proves_the_seed(browser, upy_binary, tmp_path):
    settings = json.dumps(SETTINGS)
    host = start_host_board(upy_binary, tmp_path, settings)
    ann = browser.phone(host.url)
    bob = browser.phone(host.url)
    tv = browser.screen(host.url)
    try:
        ann.join("Ann")
        bob.join("Bob")
        tv.join(role="watch")
        ann.ready()
        bob.ready()
        ann.wait_attr("phase", "active")
        maze = observe(host.ws_url, lambda v: v["ph"] == "active")
        keys = (find_object(maze, 0, 1)[1], find_object(maze, 0, 2)[1])
        for d in free_steps(maze, ann.pos(), keys, 3):
            ann.move(d, "pad")
        here = ann.pos()
        commit = ann.received("fair")[-1]["commit"]

        # power cut: the process is killed, then the board starts again on the same flash
        host.process.kill()
        host.process.wait()
        again = start_host_board(upy_binary, tmp_path, settings, http_port=host.http_port)
        try:
            for phone in (ann, bob):
                phone.wait_attr("restarted", "1", 30_000)  # welcome said: the board restarted
            ann.wait_toast("The board restarted; resuming")
            ann.wait_attr("phase", "active")
            assert ann.pos() == here and ann.attr("seat") == "1" and bob.attr("seat") == "2"
            assert ann.received("fair")[-1]["commit"] == commit  # the same match, the same seed
            maze = observe(again.ws_url, lambda v: v["ph"] == "active")
            step = free_steps(maze, here, keys, 1)
            # and it plays on. The match clock went on from the last logged time (Ann's last
            # step), so her cooldown may still run for up to 150 ms after both are back: the
            # board refuses the step (COOLDOWN) and the page sends it again on each refusal,
            # 50 ms after it, three times (over 150 ms of board time): the view of the new
            # cell is the event waited for.
            assert ann.move(step[0], "pad") != here
            assert ann.page.evaluate(LOADED) == 0  # the hash is loaded at the end, not before
            bob.page.once("dialog", lambda dialog: dialog.accept())  # "Leave the match?"
            bob.tap("#bLeave")  # bob gives up: ann wins, the match ends, the seed is shown
            for phone in (ann, tv):
                phone.wait_attr("fair", "ok", 20_000)
                # a player's result card (#end), the spectator's result line (#res)
                phone.wait_js(
                    "['end', 'res'].some((id) => "
                    "document.getElementById(id).textContent.includes('Fair: seed'))"
                )
            assert ann.page.evaluate(LOADED) == 1
            link = ann.page.locator("#end a[download]")
            href = link.get_attribute("href")
            data = ann.page.evaluate(
                "(u) => fetch(u).then((r) => r.arrayBuffer()).then((b) => [...new Uint8Array(b)])",
                href,
            )
            report = check(bytes(data))
            assert report["ok"] and report["finished"] and report["commit"] == commit
            assert report["result"] == "forfeit" and report["winner"] == 1
            assert report["checks"] == 2  # the resume's checkpoint, and the end's
            assert not (ann.errors or bob.errors or tv.errors)
        finally:
            alive = again.alive()
            again.process.kill()
            again.process.wait()
            assert alive and "Traceback" not in again.log(), again.log()
    finally:
        for phone in (ann, bob, tv):
            phone.close()
        if host.alive():
            host.process.kill()
