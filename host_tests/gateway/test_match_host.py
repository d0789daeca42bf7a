# net.match_host without sockets (CPython, fast): the wrapping tick clock, grace periods, tokens,
# client sequences and who hears which event, with fake sessions and a fake 30-bit tick clock.
import json

import pytest

from bots import DIRS, path
from game import rules
from net import intents, messages
from net.compat import ticks_diff
from net.frames import framed
from net.match_host import NO_ROLE, OBSERVER, MatchHost
from net.settings import Settings
from net.views import ViewPublisher

PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here on every port
# the characters of the revealed maze, by value (docs/protocol.md, "End of a match"): from #
# to c, without the backslash
CELL = "".join(chr(c) for c in range(ord("#"), ord("d")) if c != ord("\\"))


class Clock:
    def __init__(self, start):
        self.t = start % PERIOD

    def ticks_ms(self):
        return self.t

    def wait(self, ms):
        self.t = (self.t + ms) % PERIOD


class FakeSession:
    addr = None  # (net.gateway.Session's: the client's source address)

    def __init__(self):
        self.frames = []
        self.wakes = 0
        self.killed = None

    def post_text(self, message, data=None):  # as net.gateway.Session frames it
        if data is None:
            data = framed(message)
        self.post(data)
        return data

    def post(self, data):
        if type(data) is list:  # a frame in pieces (net.frames.pieces)
            data = b"".join(bytes(piece) for piece in data)
        assert data[0] == 0x81  # one final, unmasked text frame
        n, head = data[1], 2
        if n == 126:
            n, head = (data[2] << 8) | data[3], 4
        assert len(data) == head + n
        self.frames.append(json.loads(data[head:].decode()))

    def wake(self):
        self.wakes += 1

    def kill(self, code, reason):
        self.killed = (code, reason)

    def last(self, t=None):
        for msg in reversed(self.frames):
            if t is None or msg["t"] == t:
                return msg
        return None

    def events(self):
        return [m for m in self.frames if m["t"] == "ev"]


def make_host(clock, **changes):
    settings = Settings()
    settings.preset = "small"
    settings.countdown_ms = 3000
    settings.cooldown_ms = 100
    settings.reconnect_grace_ms = 30000
    for name, value in changes.items():
        setattr(settings, name, value)
    return MatchHost(settings, ViewPublisher(), log=lambda *a: None, ticks_ms=clock.ticks_ms)


def send(host, session, text):
    host.handle(session, intents.parse(text))
    return session.frames[-1] if session.frames else None


def seated_pair(host):
    a, b = FakeSession(), FakeSession()
    send(host, a, '{"t":"join","role":"play","name":"ann"}')
    send(host, b, '{"t":"join","role":"play","name":"bob"}')
    return a, b


def route_one_event(host, sessions, kind, a_arg, b_arg):
    """Forget what the sessions were sent, then route one engine event as if the match had
    just emitted it."""
    for s in sessions:
        s.frames.clear()
    m = host.match
    m.ev_kind[0] = kind
    m.ev_a[0] = a_arg
    m.ev_b[0] = b_arg
    m.ev_count = 1
    host._route_events()


def test_ticks_diff_is_wrap_safe():
    assert ticks_diff(5, PERIOD - 5) == 10
    assert ticks_diff(PERIOD - 5, 5) == -10
    assert ticks_diff(1000, 400) == 600


def test_match_clock_runs_through_the_tick_wrap():
    clock = Clock(PERIOD - 1500)  # the board's counter wraps 1.5 s into the countdown
    host = make_host(clock)
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    m = host.match
    assert m.phase == rules.COUNTDOWN and m.countdown_end == 3000
    clock.wait(2999)
    host.tick()
    assert m.phase == rules.COUNTDOWN and m.now == 2999  # small, monotonic engine time
    clock.wait(1)
    host.tick()
    assert m.phase == rules.ACTIVE and m.now == 3000
    assert a.events()[-1] == {"t": "ev", "e": "phase", "s": 2, "ph": "active"}


def test_grace_period_across_the_wrap_then_forfeit():
    clock = Clock(PERIOD - 10000)
    host = make_host(clock, countdown_ms=0)
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    assert host.match.phase == rules.ACTIVE
    host.detach(b)  # the phone is gone; 30 s of grace, the counter wraps after 10
    clock.wait(29999)
    host.tick()
    assert host.match.phase == rules.ACTIVE and host.seats[2].token is not None
    clock.wait(1)
    host.tick()
    assert host.match.result == rules.RESULT_FORFEIT and host.match.winner == 1
    assert {"t": "ev", "e": "result", "s": 3, "result": "forfeit", "winner": 1} in a.events()
    assert host.seats[2].token is None  # freed: the old token is dead
    late = FakeSession()
    assert send(host, late, '{"t":"join","role":"play","token":"%s"}' % ("0" * 32))["code"] == (
        "BAD_TOKEN"
    )


def test_tokens_takeover_and_stale_detach():
    clock = Clock(0)
    host = make_host(clock)
    a, b = seated_pair(host)
    token = a.last("welcome")["token"]
    assert len(token) == 32 and int(token, 16) >= 0
    assert token != b.last("welcome")["token"]
    fresh = FakeSession()
    welcome = send(host, fresh, '{"t":"join","role":"play","token":"%s"}' % token)
    assert fresh.last("welcome")["resumed"] is True and host.role_of(fresh) == 1
    assert welcome["t"] == "room" and welcome["p"][0]["on"] is True
    assert a.killed == (4001, "seat taken over by a newer connection")
    assert host.role_of(a) == NO_ROLE
    host.detach(a)  # the stale socket ends: nothing changes for the seat
    assert host.seats[1].session is fresh
    # whatever the stale session still sends is not a seat's command any more
    assert send(host, a, '{"t":"ready","c":9}')["code"] == "NOT_JOINED"
    assert host.seats[1].last_c == 0


def test_client_sequence_repeats_are_acknowledged_not_applied():
    clock = Clock(0)
    host = make_host(clock, countdown_ms=0)
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    codes = {}
    for d in "NESW":
        clock.wait(200)
        reply = send(host, a, '{"t":"move","c":%d,"d":"%s"}' % (2 + "NESW".index(d), d))
        codes[d] = reply
        if reply["t"] == "ack":
            break
    c = max(r["c"] for r in codes.values() if r["t"] == "ack")
    seq = host.match.state_seq
    clock.wait(200)
    assert send(host, a, '{"t":"move","c":%d,"d":"N"}' % c) == {"t": "ack", "c": c, "dup": True}
    assert send(host, a, '{"t":"move","c":1,"d":"N"}') == {"t": "ack", "c": 1, "dup": True}
    assert host.match.state_seq == seq
    # refused intents are not applied: their sequence can be used again
    assert host.seats[1].last_c == c


@pytest.mark.parametrize(
    "kind, a_arg, b_arg, private",
    [
        (rules.EV_COMPASS, 1, 3, True),
        (rules.EV_VISION, 1, 6, True),
        (rules.EV_KEY_PICKED, 1, 2, False),
        (rules.EV_KEY_DROPPED, 1, 1, False),
        (rules.EV_EXIT_OPENED, 1, 0, False),
        (rules.EV_EXITED, 1, 0, False),
    ],
)
def test_who_hears_an_event(kind, a_arg, b_arg, private):
    clock = Clock(0)
    host = make_host(clock)
    p1, p2 = seated_pair(host)
    obs = FakeSession()
    send(host, obs, '{"t":"join","role":"watch"}')
    assert host.role_of(obs) == OBSERVER
    m = host.match
    w = m.width
    for near in (False, True):
        m.pos[1] = 0  # the event happens in the top-left corner
        # seat 2 three steps away diagonally (inside its radius-3 square), or in the far corner
        m.pos[2] = 3 * w + 3 if near else w * m.height - 1
        route_one_event(host, (p1, p2, obs), kind, a_arg, b_arg)
        name = rules.EVENT_NAMES[kind]
        assert [e["e"] for e in p1.events()] == [name]
        assert [e["e"] for e in obs.events()] == [name]
        expected = [name] if near and not private else []
        assert [e["e"] for e in p2.events()] == expected, (near, name)


def test_public_events_reach_everyone():
    clock = Clock(0)
    host = make_host(clock)
    p1, p2 = seated_pair(host)
    obs = FakeSession()
    send(host, obs, '{"t":"join","role":"watch"}')
    m = host.match
    for kind, a_arg, b_arg in (
        (rules.EV_MEETING, 1, 1),
        (rules.EV_KEY_RETURNED, 2, 1),
        (rules.EV_RESULT, rules.RESULT_DRAW, 0),
        (rules.EV_PHASE, rules.FINISHED, 0),
    ):
        route_one_event(host, (p1, p2, obs), kind, a_arg, b_arg)
        for s in (p1, p2, obs):
            assert [e["e"] for e in s.events()] == [rules.EVENT_NAMES[kind]]
    m.ev_kind[0] = rules.EV_MOVED
    host._route_events()
    assert all(e["e"] != "moved" for s in (p1, p2, obs) for e in s.events())


def test_room_full_refusals_close_with_4003():
    clock = Clock(0)
    host = make_host(clock, max_observers=1)
    seated_pair(host)
    third = FakeSession()
    assert send(host, third, '{"t":"join","role":"play"}') == {"t": "err", "code": "ROOM_FULL"}
    assert third.killed == (4003, "room full") and host.role_of(third) == NO_ROLE
    o1, o2 = FakeSession(), FakeSession()
    send(host, o1, '{"t":"join","role":"watch"}')
    assert send(host, o2, '{"t":"join","role":"watch"}')["code"] == "ROOM_FULL"
    assert o2.killed[0] == 4003


# ---- the end of a match, the series score, presence (docs/protocol.md, "End of a match") ----


def walk_host(host, clock, session, seat, goal, c, avoid=()):
    """Walk seat to goal with move intents (the engine's maze, bots.path); returns (c, cells
    stood on)."""
    m = host.match
    cells = dict(enumerate(m.cells))
    route = path(cells, m.width, m.height, m.pos[seat], goal, avoid) or path(
        cells, m.width, m.height, m.pos[seat], goal
    )
    stood = []
    for d in route:
        clock.wait(150)
        c += 1
        send(host, session, '{"t":"move","c":%d,"d":"%s"}' % (c, DIRS[d]))
        assert [f["t"] for f in session.frames if f.get("c") == c] == ["ack"]
        stood.append(m.pos[seat])
        if m.inventory[seat] not in (0, seat):
            c += 1
            send(host, session, '{"t":"drop","c":%d}' % c)
    return c, stood


def test_end_of_a_win_figures_maze_paths_and_series_score():
    clock = Clock(0)
    host = make_host(clock, countdown_ms=0)
    a, b = seated_pair(host)
    obs = FakeSession()
    send(host, obs, '{"t":"join","role":"watch"}')
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    m = host.match
    start = m.pos[1]
    c, stood = walk_host(host, clock, a, 1, m.key_location(1)[0], 1, (m.key_location(2)[0],))
    while m.inventory[1] != 1:  # a meeting could have sent it back to where it was picked up
        c, more = walk_host(host, clock, a, 1, m.key_location(1)[0], c)
        stood += more
    c, more = walk_host(host, clock, a, 1, m.exit_cell(1), c)
    stood += more
    clock.wait(150)
    c += 1
    send(host, a, '{"t":"move","c":%d,"d":"%s"}' % (c, DIRS[m.exit_direction(1)]))
    moves = len(stood) + 1  # the step out counts too
    clock.wait(201)
    host.tick()
    assert m.result == rules.RESULT_WIN and m.winner == 1
    for s in (a, b, obs):
        runs = [f for f in s.frames if f["t"] == "maze"]
        # the figures come with every run: exit times and the end in match ms, moves
        for run in runs:
            assert run["mn"] == 1 and run["xt"] == [m.exit_time[1], -1]
            assert run["mv"] == [moves, 0] and run["end"] == m.now
        # the whole maze and both paths, one character per cell, in runs under 512 bytes
        text = "".join(f["c"][1] for f in runs)
        assert [f["c"][0] for f in runs] == list(range(0, len(text), 256))
        values = [CELL.index(ch) for ch in text]
        assert [v & 15 for v in values] == list(m.cells)
        assert [i for i, v in enumerate(values) if v & 16] == sorted(set(stood + [start]))
        assert [i for i, v in enumerate(values) if v & 32] == [m.start_cell[2]]
        assert all(v < 64 for v in values)
        order = [f["t"] for f in s.frames]
        assert order.index("maze") > max(i for i, f in enumerate(s.frames) if f["t"] == "ev")
    # a room line right after the end: the series score, the phase
    assert a.last("room")["sc"] == [1, 0] and a.last("room")["ph"] == "finished"
    assert [f["t"] for f in a.frames][-1] == "room"
    # the rematch: a fresh count of moves, the score kept
    send(host, a, '{"t":"rematch","c":%d}' % (c + 1))
    send(host, b, '{"t":"rematch","c":2}')
    assert m.phase == rules.ACTIVE and host.match_no == 2
    assert a.last("room")["sc"] == [1, 0] and a.last("room")["mn"] == 2
    assert host.moves == [0, 0, 0]
    # a late spectator joining a running match is told the match clock
    clock.wait(1234)
    late = FakeSession()
    send(host, late, '{"t":"join","role":"watch"}')
    assert late.last("welcome")["at"] == 1234 and late.last("maze") is None
    assert a.last("welcome")["at"] == 0  # (ann joined before the first match began)
    assert late.last("welcome")["boot"] == a.last("welcome")["boot"]
    assert isinstance(a.last("welcome")["boot"], int)


def test_a_forfeit_frees_the_seat_and_a_late_joiner_gets_a_fresh_room():
    clock = Clock(0)
    host = make_host(clock, countdown_ms=0)
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    assert send(host, b, '{"t":"leave","c":2}') == {"t": "ack", "c": 2}
    host.detach(b)
    host.tick()
    assert host.match.result == rules.RESULT_FORFEIT
    assert a.last("maze")["mv"] == [0, 0]
    room = a.last("room")
    assert room["p"][1] is None and room["sc"] == [0, 0]  # a freed seat ends the series
    carl = FakeSession()
    send(host, carl, '{"t":"join","role":"play","name":"carl"}')
    kinds = [f["t"] for f in carl.frames]
    # the welcome, the rules line (docs/protocol.md, "Ruleset and lobby") and the commitment
    # of the next match: a newcomer never gets the end of a match played before it came
    # (host_tests/gateway/test_room_reset.py)
    assert kinds[:3] == ["welcome", "rules", "fair"] and "maze" not in kinds
    assert "pre" not in carl.frames[2] and host.match.phase == rules.WAITING


def test_an_away_player_s_grace_shows_in_the_room_line():
    clock = Clock(0)
    host = make_host(clock, countdown_ms=0)
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    host.detach(b)
    assert a.last("room")["p"][1]["on"] is False and a.last("room")["p"][1]["left"] == 30000
    assert "left" not in a.last("room")["p"][0]
    clock.wait(12000)
    send(host, FakeSession(), '{"t":"join","role":"watch"}')  # anything that sends a room line
    assert a.last("room")["p"][1]["left"] == 18000


def test_every_maze_head_has_the_same_length():
    # the frames of the maze messages are made once: their head never changes length
    # (in two halves, each written into its own place)
    for values in ((1, -1, -1, 0, 0, 0, 0), (2**31 - 1,) * 6 + (9999,), (-1,) * 7):
        assert len(messages._MAZE % values[:3]) == messages._HALF
        assert len(messages._MAZE_END % values[3:]) == messages._HEAD - messages._HALF
