# Fixtures for the phone client's end-to-end tests: real Chromium (Debian's /usr/bin/chromium,
# driven by Playwright) against the REAL firmware under the MicroPython unix port (started by
# tools/host_board.py through tools/run_host.sh, which serves the page built from firmware/web/,
# gzipped, as the board does).
#
#   def test_x(browser, board):         # board(): a fresh host board with the test settings
#       b = board(preset="classic")      # keyword arguments override settings.json fields
#       ann = Phone.open(browser, b.url) # a phone context (Galaxy S5: 360x640, touch)
#
# Chromium missing: these tests (and only these) skip, loudly, at the end of the run; with
# CI=true a missing browser fails them instead.
import json
import os

import pytest
from browser_ui import CHROMIUM, LAUNCH_ARGS, BrowserKit

from host_board import start_host_board, stop_host_board

# Settings for a quick but humanly paced match: a 9x9 maze, a 150 ms cooldown, a countdown long
# enough to press a button in, a short idle timeout (so the client's heartbeat is exercised),
# a grace period long enough to reconnect in.
BROWSER_SETTINGS = {
    "preset": "small",
    "cooldown_ms": 150,
    "countdown_ms": 2000,
    "reconnect_grace_ms": 20000,
    "idle_timeout_ms": 3000,
    "max_observers": 4,
    # the tests' own observer (browser_ui.observe) asks for the whole maze; the TV pages get
    # the default, both players' views, unless they ask
    "tv": "full",
}

_skipped = []


def browser_problem():
    """Why the browser tests cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return "no Chromium at %s (apt-get install chromium)" % CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (make venv)"
    return None


# One Chromium per test module, not per session: the sync Playwright API runs an asyncio loop in
# this thread while it is started, and the gateway tests after these call asyncio.run().
@pytest.fixture(scope="module")
def browser():
    problem = browser_problem()
    if problem is not None:
        message = "BROWSER TESTS NOT RUN: " + problem
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: a missing browser is a failure)", pytrace=False)
        _skipped.append(problem)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            yield BrowserKit(pw, chromium)
        finally:
            chromium.close()
    finally:
        pw.stop()


@pytest.fixture
def board(upy_binary, tmp_path):
    """board(**settings) -> a running host board (host_board.HostBoard); stopped afterwards,
    and checked for a crash or a Python traceback in its log."""
    started = []

    def start(restart=None, **overrides):
        """A board with BROWSER_SETTINGS and the overrides; restart=host stops that board
        and starts a fresh one (a power cycle: no seats, match 1) on the same port."""
        settings = dict(BROWSER_SETTINGS)
        settings.update(overrides)
        port = None
        if restart is not None:
            settings = restart.settings
            port = restart.http_port
            started.remove(restart)
            assert restart.alive(), "the board died:\n" + restart.log()
            stop_host_board(restart)
        # None: leave the field out (the ruleset's own value)
        settings = {k: v for k, v in settings.items() if v is not None}
        workdir = tmp_path / ("board%d" % len(list(tmp_path.iterdir())))
        workdir.mkdir()
        host = start_host_board(upy_binary, workdir, json.dumps(settings), http_port=port)
        host.settings = settings
        started.append(host)
        return host

    yield start
    for host in started:
        alive = host.alive()
        stop_host_board(host)
        assert alive, "the board died:\n" + host.log()
        assert "Traceback" not in host.log(), host.log()


def pytest_terminal_summary(terminalreporter):
    if _skipped:
        terminalreporter.write_sep("!", "BROWSER TESTS SKIPPED", red=True, bold=True)
        terminalreporter.write_line(
            "%s: the phone client was NOT tested end to end." % _skipped[0], red=True, bold=True
        )
        terminalreporter.write_line("(With CI=true a missing browser fails the run.)", red=True)
        terminalreporter.write_sep("!", red=True, bold=True)
