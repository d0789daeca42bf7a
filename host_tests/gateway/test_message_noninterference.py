# Noninterference for every message a player receives, not only its view records: acks,
# refusals, events and room messages. Two hosts play the same match (same seed, same clock,
# same commands of both seats); in the second, seat 2 also sends commands the board refuses
# (a wall, its cooldown, the countdown, a drop with empty hands, a repeat). Seat 1 must
# receive exactly the same messages in both: nothing it is told depends on the opponent's
# refused actions. (Its view records are covered by host_tests/test_projector_properties.py.)
# CPython, the real net.match_host with fake sessions and a fake tick clock.
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from game import rules
from net import intents
from net.frames import framed
from net.match_host import MatchHost
from net.settings import Settings
from net.views import ViewPublisher


class Clock:
    def __init__(self):
        self.t = 1000

    def ticks_ms(self):
        return self.t


class Phone:
    """A fake session that keeps every frame it is posted, decoded."""

    def __init__(self):
        self.got = []

    def post_text(self, message, data=None):  # as net.gateway.Session frames it
        if data is None:
            data = framed(message)
        self.post(data)
        return data

    def post(self, data):
        if type(data) is list:  # a frame in pieces (net.frames.pieces)
            data = b"".join(bytes(piece) for piece in data)
        n, head = data[1], 2
        if n == 126:
            n, head = (data[2] << 8) | data[3], 4
        message = json.loads(data[head : head + n].decode())
        if "token" in message:
            message["token"] = "(random)"  # a fresh secret in every world
        for key in ("commit", "pre"):  # the seed commitment: fresh random bytes in each world
            if key in message:
                message[key] = "(random)"
        if "boot" in message:
            message["boot"] = "(random)"  # and a fresh board run
        self.got.append(message)

    def wake(self):
        pass

    def kill(self, code, reason):
        self.got.append({"killed": code})


def _host(seed, clock):
    config = Settings()
    config.preset = "small"
    config.cooldown_ms = 100
    config.countdown_ms = 200
    host = MatchHost(config, ViewPublisher(), log=lambda *a: None, ticks_ms=clock.ticks_ms)
    host.match.reset(seed)
    return host


def _send(host, phone, obj):
    host.handle(phone, intents.parse(json.dumps(obj)))


def _wall_of(match, seat):
    here = match.pos[seat]
    for d in range(4):
        if not match.cells[here] & rules.DIR_BITS[d]:
            return "NESW"[d]
    return None


STEP = st.tuples(
    st.sampled_from(("move1", "move2", "drop1", "drop2", "ping1", "sync1", "wait")),
    st.integers(0, 3),
    st.integers(0, 3),  # which refusal seat 2 adds in the second world (0: none)
)


def _play(seed, steps, noisy):
    clock = Clock()
    host = _host(seed, clock)
    p1, p2 = Phone(), Phone()
    _send(host, p1, {"t": "join", "role": "play", "name": "ann"})
    _send(host, p2, {"t": "join", "role": "play", "name": "bob"})
    c = [0, 0, 0]

    def intent(seat, phone, obj):
        c[seat] += 1
        obj["c"] = c[seat]
        _send(host, phone, obj)

    intent(1, p1, {"t": "ready"})
    intent(2, p2, {"t": "ready"})
    if noisy:  # refused during the countdown
        intent(2, p2, {"t": "move", "d": "N"})
    for kind, d, extra in steps:
        clock.t += 60
        host.tick()
        if kind == "move1":
            intent(1, p1, {"t": "move", "d": "NESW"[d]})
        elif kind == "move2":
            intent(2, p2, {"t": "move", "d": "NESW"[d]})
        elif kind == "drop1":
            intent(1, p1, {"t": "drop"})
        elif kind == "drop2":
            intent(2, p2, {"t": "drop"})
        elif kind == "ping1":
            intent(1, p1, {"t": "ping"})
        elif kind == "sync1":
            intent(1, p1, {"t": "sync"})
        if noisy and extra and host.match.phase == rules.ACTIVE:
            if extra == 1:  # into a wall
                wall = _wall_of(host.match, 2)
                if wall is not None and not host.match.exited[2]:
                    intent(2, p2, {"t": "move", "d": wall})
            elif extra == 2 and not host.match.inventory[2]:  # a drop with empty hands
                intent(2, p2, {"t": "drop"})
            elif extra == 3:  # a repeat of an earlier sequence: ack dup
                _send(host, p2, {"t": "move", "c": 1, "d": "N"})
    return p1.got, p2.got


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**30 - 1), st.lists(STEP, min_size=5, max_size=60))
def test_seat_1_hears_the_same_whatever_seat_2_was_refused(seed, steps):
    quiet, _ = _play(seed, steps, noisy=False)
    noisy, refused = _play(seed, steps, noisy=True)
    assert noisy == quiet
    # the second world really had refusals for seat 2 to hide
    assert any(m.get("t") == "err" for m in refused)


def test_the_property_can_fail_an_engine_wide_counter_would_show():
    # The control: the message stream that an engine-wide command sequence would give seat 1
    # differs between the worlds (what the ack's "cs" used to be).
    seed, steps = 7, [("move1", d, 1) for d in (0, 1, 2, 3)] * 4
    counts = []
    for noisy in (False, True):
        clock = Clock()
        host = _host(seed, clock)
        _play_into(host, clock, steps, noisy)
        counts.append(host.match.queue.last_seq)
    assert counts[0] != counts[1]


def _play_into(host, clock, steps, noisy):
    p1, p2 = Phone(), Phone()
    _send(host, p1, {"t": "join", "role": "play"})
    _send(host, p2, {"t": "join", "role": "play"})
    _send(host, p1, {"t": "ready", "c": 1})
    _send(host, p2, {"t": "ready", "c": 1})
    c = [0, 1, 1]
    for _kind, d, extra in steps:
        clock.t += 300
        host.tick()
        c[1] += 1
        _send(host, p1, {"t": "move", "c": c[1], "d": "NESW"[d]})
        if noisy and extra:
            wall = _wall_of(host.match, 2)
            if wall is not None:
                c[2] += 1
                _send(host, p2, {"t": "move", "c": c[2], "d": wall})
