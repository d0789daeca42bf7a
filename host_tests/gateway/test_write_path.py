# The gateway's write path byte for byte (net/gateway.py: Session.write_due, _send_ctrl, _push;
# net/views.py: held and release), on CPython with the real Session, ViewPublisher and Match:
# sockets that take any number of bytes per write, None included (as a non-blocking socket
# does), mailbox frames whole and in pieces, and views that change between writes. What
# reaches a socket is every frame whole, in order: the mailbox's frames as posted, each view
# as the publisher made it (a view's rest is a copy, so the projector writing the next view
# cannot change it). With no heap for that copy the view is held: nobody's view is planned or
# written until the rest is out, then every session is due again. test_slow_reader.py does
# the same with real sockets on the unix port.
import asyncio
import json
import random

import pytest

import raw_ws
from game import rules
from net import gateway as gateway_module
from net.frames import frame, pieces
from net.gateway import Session
from net.settings import Settings
from net.wiring import make_game
from raw_ws import server_frames

OBSERVER = 0
SEAT = 1
N_OPEN = (1, 2, 4, 8)


class Sock:
    """A non-blocking socket's write: takes what its budget allows (None when nothing)."""

    def __init__(self, rng):
        self.rng = rng
        self.out = bytearray()
        self.budget = 0

    def write(self, data):
        n = min(len(data), self.budget)
        if n == 0:
            return None
        self.out += bytes(data[:n])
        self.budget -= n
        return n

    def allow(self, budget=None):
        self.budget = self.rng.choice((0, 1, 7, 60, 300, 5000)) if budget is None else budget


class Stream:
    def __init__(self, sock):
        self.s = sock


class _Scheduler:
    """What Session.flush needs of MicroPython's asyncio: the I/O queue to wait on (here the
    test resumes the flush itself); the rest is CPython's."""

    Event = asyncio.Event

    class core:
        class _io_queue:
            @staticmethod
            def queue_write(sock):
                return None


class World:
    """A gateway with two observers and seat 1's session, a running match, and what each
    session must receive: its mailbox frames in order and the views it was sent."""

    def __init__(self, seed, monkeypatch):
        monkeypatch.setattr(gateway_module, "asyncio", _Scheduler)
        self.rng = random.Random(seed)
        self.gw = make_game(Settings(), log=lambda line: None)
        self.views = self.gw.host.views
        self.match = self.views.match
        self.match.start(0)
        self.now = self.match.countdown_ms
        self.match.advance(self.now)
        self.sessions = []
        self.posted = {}
        self.sent_views = {}
        for role in (OBSERVER, OBSERVER, SEAT):  # (the observers share the projector's obs)
            session = Session(self.gw, Stream(Sock(self.rng)))
            self.gw.sessions.append(session)
            self.views.attach(session, role)
            self.sessions.append(session)
            self.posted[session] = []
            self.sent_views[session] = []
        self.planned = {}
        self.flushes = {}
        frames = self.views.frames

        def frames_recorded(session, ctrl):
            held = self.views.held
            data = frames(session, ctrl)
            if data is None:  # no view due (none while one is held)
                return None
            assert held is None, "a view planned while one is held"
            role = self.role(session)
            # (a player's view may carry the mailbox's frames in front: those are counted as
            # the mailbox's)
            whole, left = server_frames(bytes(data))
            assert left == b""
            self.planned[role] = b"".join(
                _framed(payload) for _, payload in whole if json.loads(payload)["t"] == "view"
            )
            return data

        self.views.frames = frames_recorded
        self.count = 0

    def role(self, session):
        return self.views.roles[self.views.sessions.index(session)]

    def sent_epoch(self, session):
        return self.views.sent_epochs[self.views.sessions.index(session)]

    def post(self, session):
        """A mailbox frame of a size around the socket budgets: whole, or in pieces (not past
        the mailbox's limit, which closes a session that stopped reading: test_hardening)."""
        if len(session.ctrl) >= 20:
            return
        self.count += 1
        text = json.dumps({"t": "x", "n": self.count, "pad": "." * self.rng.randrange(200)})
        self.posted[session].append(self.count)
        if self.rng.random() < 0.5:
            cut = self.rng.randrange(len(text))
            session.post(pieces(text[:cut], text[cut:]))
        else:
            session.post(frame(text))

    def move(self):
        """Seat 1 steps through an open side: the state changes, so does every view."""
        m = self.match
        self.now += m.cooldown_ms
        x, y = m.pos[SEAT] % m.width, m.pos[SEAT] // m.width
        inside = (y > 0, x < m.width - 1, y < m.height - 1, x > 0)  # (not out through an exit)
        open_sides = [d for d in range(4) if m.cells[m.pos[SEAT]] & N_OPEN[d] and inside[d]]
        assert m.enqueue(SEAT, rules.CMD_MOVE, self.rng.choice(open_sides), self.now) == 0
        assert m.process() == 0
        self.views.changed()

    def pump(self, budget=None):
        """The pump's round (Gateway.write_dirty) and the flush tasks' turns (the real
        Session.flush, resumed as the scheduler would when its socket is writable), with
        sockets that take what their budgets allow (random ones, or `budget` bytes)."""
        self.gw.views_due()  # (as write_dirty does first)
        for session in self.sessions:
            session.stream.s.allow(budget)
            if session in self.flushes:
                try:
                    self.flushes[session].send(None)
                except StopIteration:
                    del self.flushes[session]
            elif session in self.gw.dirty and not session.flushing:
                epoch = self.sent_epoch(session)
                if not session.write_due(self.views):
                    flush = self.flushes[session] = session.flush()
                    next(flush)  # (create_task: it runs to its first wait)
                    session.flushing = True
                if self.sent_epoch(session) != epoch:  # the view planned was written
                    self.sent_views[session].append(self.planned[self.role(session)])
                self.gw.dirty.remove(session)

    def finish(self):
        """Sockets that take everything until nothing is due."""
        for _ in range(10):
            self.pump(10**6)
        for session in self.sessions:
            assert session.rest is None and not session.flushing and not session.ctrl
        assert not self.flushes

    def check(self):
        for session in self.sessions:
            frames, left = server_frames(bytes(session.stream.s.out))
            assert left == b""
            mailbox, views = [], bytearray()
            for opcode, payload in frames:
                assert opcode == 1
                msg = json.loads(payload)
                if msg["t"] == "x":
                    mailbox.append(msg["n"])
                else:
                    assert msg["t"] == "view", msg
                    views += _framed(payload)
            assert mailbox == self.posted[session]
            assert bytes(views) == b"".join(self.sent_views[session])
            assert self.views.due(session) is False  # it has the newest view


def _framed(payload):
    return raw_ws.frame(1, payload, mask=False)


def _play(world, steps):
    for _ in range(steps):
        r = world.rng.random()
        if r < 0.35:
            world.post(world.rng.choice(world.sessions))
        elif r < 0.6:
            world.move()
        else:
            world.pump()


@pytest.mark.parametrize("seed", range(30))
def test_partial_writes_deliver_every_frame_whole_and_in_order(seed, monkeypatch):
    world = World(seed, monkeypatch)
    _play(world, 120)
    world.finish()
    world.check()


@pytest.mark.parametrize("seed", range(30))
def test_with_no_heap_for_a_views_rest_the_views_are_held_then_released(seed, monkeypatch):
    holds = []

    def no_heap(data, *args):
        if type(data) is memoryview:
            raise MemoryError("memory allocation failed")
        return bytes(data, *args)

    monkeypatch.setattr(gateway_module, "bytes", no_heap, raising=False)
    world = World(seed, monkeypatch)
    for _ in range(120):
        _play(world, 1)
        held = world.views.held
        if held is not None:
            holds.append(held)
            assert held.flushing and held.rest is not None  # its rest, in the projector
            for session in world.sessions:
                assert not world.views.due(session)
    world.finish()
    world.check()
    assert holds  # (not vacuous: every seed's run has a view the socket took part of)
