"""How many times a request's path changes module in the firmware: a move, a join and a
resume, run on CPython through the real gateway, host, views and journal, traced with
sys.setprofile. Every Python call and return inside firmware modules (game.*, net.*) is an
event (but in game.compat and net.compat, CPython's stand-ins for MicroPython's built-ins);
a module change is an event in another module than the one before. The figures are
docs/architecture.md's ("The paths"); host_tests/gateway/test_traced_paths.py checks that the
doc says what this measures.

    python tools/trace_path.py            # the table's rows: path, modules, changes, modules
"""

import json
import random
import sys
import tempfile

import _path  # noqa: F401  (firmware/ on sys.path)
from game.rules import DIR_NAMES
from net import frames, intents, journal
from net.gateway import Session
from net.resume import resume
from net.wiring import make_game

FIRMWARE = ("game", "net")
# CPython's stand-ins for MicroPython's built-ins (const, ptr8, ticks_ms, ...): on the board
# these are C functions, no module change, so they are not counted here either
STAND_INS = ("game.compat", "net.compat")


class _Socket:
    """Takes every byte written (a socket with room)."""

    def __init__(self):
        self.sent = 0

    def write(self, data):
        self.sent += len(data)
        return len(data)


class _Stream:
    def __init__(self):
        self.s = _Socket()


class _Settings:
    preset = "small"
    cooldown_ms = 100
    countdown_ms = 300
    reconnect_grace_ms = 1500
    idle_timeout_ms = 60000
    max_observers = 4
    log_keep = 8
    max_moves = 2000
    ruleset = None


class _Clock:
    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now


def trace(function):
    """(the firmware modules function ran in, in order of first use; module changes)."""
    seen = []
    changes = [0, None]

    def profile(frame, event, arg):
        if event not in ("call", "return"):
            return
        name = frame.f_globals.get("__name__", "")
        if name.split(".")[0] not in FIRMWARE or name in STAND_INS:
            return
        if name not in seen:
            seen.append(name)
        if changes[1] is not None and changes[1] != name:
            changes[0] += 1
        changes[1] = name

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return seen, changes[0]


def _message(game, session, obj, write=True):
    """What a session's reader does with one text frame (net.gateway.Session.serve): unmask
    it into the host's scratch, check it, parse it, hand it to the host, write what is due."""
    payload = json.dumps(obj).encode()
    scratch = game.host.scratch
    frames.unmask(scratch, payload, b"\0\0\0\0")
    data = memoryview(scratch)[: len(payload)]
    if not frames.valid_utf8(data):
        raise AssertionError("not UTF-8")
    game.host.handle(session, intents.parse(data))
    if write:
        game.write_dirty()


def _room(folder=None):
    clock = _Clock()
    game = make_game(_Settings(), log=lambda *a: None, ticks_ms=clock.ticks_ms)
    if folder is not None:
        resume(game.host, folder)
    a, b = Session(game, _Stream()), Session(game, _Stream())
    return game, clock, a, b


def _open_direction(match, seat):
    cell = match.pos[seat]
    for d in range(4):
        if match.cells[cell] & (1 << d):
            return DIR_NAMES[d]
    raise AssertionError("a cell with no open side")


def _running(folder=None):
    """Two players joined and ready, the countdown over: a running match."""
    game, clock, a, b = _room(folder)
    _message(game, a, {"t": "join", "c": 1, "role": "play", "name": "Ann"})
    _message(game, b, {"t": "join", "c": 1, "role": "play", "name": "Bob"})
    _message(game, a, {"t": "ready", "c": 2})
    _message(game, b, {"t": "ready", "c": 2})
    clock.now += 1000
    game.host.tick()
    game.write_dirty()
    return game, clock, a, b


def move_path(write=False):
    """A move by seat 1 in a running match (two players, no observers): from the reader's
    frame to the ack, the events and the views due (write False), or on to both players'
    views written by the pump (write True)."""
    game, clock, a, _ = _running()
    clock.now += 500
    direction = _open_direction(game.host.match, 1)
    return trace(lambda: _message(game, a, {"t": "move", "c": 3, "d": direction}, write))


def move_written_path():
    return move_path(True)


def join_path():
    game, _, a, _ = _room()
    return trace(lambda: _message(game, a, {"t": "join", "c": 1, "role": "play", "name": "Ann"}))


def resume_path():
    """A board restarted in a running match: resume() at boot, from its log."""
    folder = tempfile.mkdtemp(prefix="trace-resume-")
    game, clock, a, _ = _running(folder)
    clock.now += 500
    _message(game, a, {"t": "move", "c": 3, "d": _open_direction(game.host.match, 1)})
    clock2 = _Clock()
    again = make_game(_Settings(), log=lambda *a: None, ticks_ms=clock2.ticks_ms)
    result = []
    seen, changes = trace(lambda: result.append(resume(again.host, folder)))
    assert result[0] > 0, "the match was not resumed"
    return seen, changes


PATHS = (
    ("move", move_path),
    ("move, views written", move_written_path),
    ("join", join_path),
    ("resume", resume_path),
)


class _SeededOs:
    """os for net.journal while tracing: its urandom from a seeded generator, so every run
    plays the same maze (a resume replays it: its figure depends on the maze)."""

    def __init__(self, real, seed):
        self.real = real
        self.random = random.Random(seed)

    def urandom(self, n):
        return bytes(self.random.randrange(256) for _ in range(n))

    def __getattr__(self, name):
        return getattr(self.real, name)


def measure(seed=1):
    """{path: (modules, module changes)}, on the same mazes every run."""
    real = journal.os
    journal.os = _SeededOs(real, seed)
    try:
        return {name: path() for name, path in PATHS}
    finally:
        journal.os = real


if __name__ == "__main__":
    for name, (modules, changes) in measure().items():
        print("| %s | %d | %d |" % (name, len(modules), changes))
