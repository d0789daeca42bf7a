# A fair TV (issue 34, item 2; docs/protocol.md "The TV's view"): noninterference for the
# observer role. In the default "players" mode every view record a TV receives is, byte for
# byte, a record the matching player received (the TV learns nothing neither player sees), and
# every event it hears one of the players heard; no observer ("obs") record reaches a TV unless
# the settings allow the full view and the TV asked for it; and no view at all reaches a TV
# while the match waits for its players (the coming match's maze stays on the board).
#
# CPython, the real gateway write path (net.gateway.Session.write_due, flush), publisher
# (net.views) and host (net.match_host) on a fake tick clock, with sockets that take any number
# of bytes per write (None included), so a TV's two halves are also split by partial writes
# and by state changes between them.
import asyncio
import json
import random

import pytest

from game import rules
from game.projector import Projector
from net import gateway as gateway_module
from net import intents
from net.gateway import Session
from net.settings import Settings
from net.wiring import make_game
from raw_ws import server_frames


class Clock:
    def __init__(self):
        self.t = 1000

    def ticks_ms(self):
        return self.t


class Sock:
    """A non-blocking socket's write: takes what its budget allows (None when nothing)."""

    def __init__(self):
        self.out = bytearray()
        self.budget = 10**6

    def write(self, data):
        n = min(len(data), self.budget)
        if n == 0:
            return None
        self.out += bytes(data[:n])
        self.budget -= n
        return n


class Stream:
    def __init__(self):
        self.s = Sock()


class _Scheduler:
    """What Session.flush needs of MicroPython's asyncio (the test resumes flushes itself)."""

    Event = asyncio.Event

    class core:
        class _io_queue:
            @staticmethod
            def queue_write(sock):
                return None


class Room:
    """Two players and TVs on one gateway; `pump()` writes what is due, the way the gateway's
    pump and flush tasks do, with socket budgets from `rng` (None: everything at once)."""

    def __init__(self, monkeypatch, tv="players", watchers=("players",), rng=None):
        monkeypatch.setattr(gateway_module, "asyncio", _Scheduler)
        self.rng = rng
        self.clock = Clock()
        config = Settings()
        config.preset = "small"
        config.cooldown_ms = 100
        config.countdown_ms = 200
        config.tv = tv
        self.gw = make_game(config, log=lambda line: None, ticks_ms=self.clock.ticks_ms)
        self.host = self.gw.host
        self.flushes = {}
        self.tv_flushes = 0  # TV writes the socket did not take whole
        self.c = [0, 0, 0]
        # every record of each seat's view of every state the match went through, from a
        # projector of the test's own: what the seat's phone could be sent
        self.seen = {"p1": set(), "p2": set()}
        self.proj = Projector()
        self.p1 = self.session({"t": "join", "role": "play", "name": "ann"})
        self.p2 = self.session({"t": "join", "role": "play", "name": "bob"})
        self.tvs = []
        for view in watchers:
            join = {"t": "join", "role": "watch"}
            if view is not None:
                join["view"] = view
            self.tvs.append(self.session(join))
        self.pump()

    def session(self, join):
        session = Session(self.gw, Stream())
        self.gw.sessions.append(session)
        self.host.handle(session, intents.parse(json.dumps(join)))
        return session

    def seat(self, n):
        return self.p1 if n == 1 else self.p2

    def intent(self, seat, obj):
        self.c[seat] += 1
        obj["c"] = self.c[seat]
        self.host.handle((None, self.p1, self.p2)[seat], intents.parse(json.dumps(obj)))
        self.pump()

    def wait(self, ms):
        self.clock.t += ms
        self.host.tick()
        self.pump()

    def pump(self):
        gw = self.gw
        for seat in (1, 2):
            for i in range(self.proj.begin(self.host.match, seat)):
                self.seen["p%d" % seat].add(bytes(self.proj.record(i)))
        gw.views_due()
        for session in list(gw.sessions):
            # (the players' sockets take everything: each is sent every state a TV may be)
            session.stream.s.budget = (
                self.rng.choice((0, 1, 9, 80, 400, 5000))
                if self.rng is not None and session in self.tvs
                else 10**6
            )
            if session in self.flushes:
                try:
                    self.flushes[session].send(None)
                except StopIteration:
                    del self.flushes[session]
            elif session in gw.dirty and not session.flushing:
                if not session.write_due(gw.views):
                    self.tv_flushes += session in self.tvs
                    flush = self.flushes[session] = session.flush()
                    next(flush)
                    session.flushing = True
                gw.dirty.remove(session)

    def finish(self):
        rng, self.rng = self.rng, None
        for _ in range(10):
            self.pump()
        self.rng = rng
        assert not self.flushes

    def play(self, rng, steps):
        """Random moves of both seats (refusals too), the clock running."""
        for _ in range(steps):
            seat = rng.choice((1, 2))
            self.clock.t += rng.choice((10, 60, 120))
            self.host.tick()
            self.intent(seat, {"t": "move", "d": rng.choice("NESW")})
            if self.host.match.phase == rules.FINISHED:
                break

    def start(self):
        self.intent(1, {"t": "ready"})
        self.intent(2, {"t": "ready"})
        self.wait(250)  # past the countdown
        assert self.host.match.phase == rules.ACTIVE


def received(session):
    """Every message a session's socket got: (raw payload, decoded)."""
    frames, left = server_frames(bytes(session.stream.s.out))
    assert left == b""
    # (text frames: a session the random budgets starved is closed, 4008)
    return [(payload, json.loads(payload)) for op, payload in frames if op == 1]


def views_of(session):
    return [(raw, m) for raw, m in received(session) if m.get("t") == "view"]


def events_of(session):
    return [raw for raw, m in received(session) if m.get("t") == "ev"]


def check_fair(room):
    """Noninterference for the TVs of the players mode: every view record is one the matching
    player's own socket received, byte for byte, and one of the projections of that seat the
    test made itself; every event one a player heard; no observer record."""
    mine = {"p%d" % n: {raw for raw, _ in views_of(room.seat(n))} for n in (1, 2)}
    heard = set(events_of(room.p1)) | set(events_of(room.p2))
    for tv in room.tvs:
        records = views_of(tv)
        assert records, "the TV was sent no view at all"
        for raw, m in records:
            assert m["r"] in ("p1", "p2"), m["r"]
            assert raw in mine[m["r"]], "a TV record the player was not sent"
            assert raw in room.seen[m["r"]], "a TV record that is not the player's view"
            assert m["ph"] != "waiting"
        for raw in events_of(tv):
            assert raw in heard, raw
        # both players' views, in pairs: seat 1's, then seat 2's, at one state each time
        roles = [m["r"] for _, m in records if m["i"] == 0]
        assert roles[::2] == ["p1"] * len(roles[::2]) and roles[1::2] == ["p2"] * len(roles[1::2])


@pytest.mark.parametrize("seed", range(12))
def test_a_tv_of_the_players_mode_gets_exactly_what_the_players_get(seed, monkeypatch):
    rng = random.Random(seed)
    partial = seed % 2 == 1
    room = Room(
        monkeypatch,
        tv=rng.choice(("players", "full")),
        watchers=("players", None, "players"),
        rng=random.Random(seed + 100) if partial else None,
    )
    room.start()
    room.play(rng, 150)
    room.finish()
    check_fair(room)
    assert room.tv_flushes if partial else not room.tv_flushes
    # the TV's last pair shows the state the players' last views show
    last = {m["r"]: raw for raw, m in views_of(room.tvs[0]) if m["i"] == 0}
    assert last["p1"] == [raw for raw, m in views_of(room.p1) if m["i"] == 0][-1]
    assert last["p2"] == [raw for raw, m in views_of(room.p2) if m["i"] == 0][-1]


def test_a_tv_that_asks_for_the_full_view_gets_it_only_where_the_settings_allow(monkeypatch):
    for tv, full in (("players", False), ("full", True)):
        room = Room(monkeypatch, tv=tv, watchers=("full", "players"))
        room.start()
        room.play(random.Random(1), 30)
        room.finish()
        welcome = [m for _, m in received(room.tvs[0]) if m["t"] == "welcome"][0]
        assert welcome["view"] == ("full" if full else "players") and welcome["full"] is full
        asked = {m["r"] for _, m in views_of(room.tvs[0])}
        assert asked == ({"obs"} if full else {"p1", "p2"})
        # a TV that did not ask gets the players' views, whatever the settings
        assert {m["r"] for _, m in views_of(room.tvs[1])} == {"p1", "p2"}
        welcome = [m for _, m in received(room.tvs[1]) if m["t"] == "welcome"][0]
        assert welcome["view"] == "players" and welcome["full"] is full


def test_no_view_reaches_a_tv_while_the_match_waits(monkeypatch):
    room = Room(monkeypatch, tv="full", watchers=("players", "full"))
    # the waiting room: the players see their own squares; the TVs nothing of the maze, also
    # when the state changes (a ruleset chosen makes another maze)
    room.intent(1, {"t": "rules", "id": "quick"})
    room.intent(1, {"t": "ready"})
    assert views_of(room.p1) and views_of(room.p2)
    for tv in room.tvs:
        assert views_of(tv) == []
        assert room.gw.views.due(tv) is False
    # the countdown starts: the TVs are sent the views
    room.intent(2, {"t": "ready"})
    assert room.host.match.phase == rules.COUNTDOWN
    assert {m["r"] for _, m in views_of(room.tvs[0])} == {"p1", "p2"}
    assert {m["r"] for _, m in views_of(room.tvs[1])} == {"obs"}


def test_a_join_asking_for_an_unknown_view_is_refused():
    intent = intents.parse('{"t":"join","role":"watch","view":"maze"}')
    assert intent.kind == intents.ERROR and intent.code == intents.BAD_VALUE
    assert intents.parse('{"t":"join","role":"watch","view":"full"}').role == intents.ROLE_FULL
    assert intents.parse('{"t":"join","role":"watch"}').role == intents.ROLE_WATCH
    assert intents.parse('{"t":"join","role":"watch","view":"players"}').role == intents.ROLE_WATCH
