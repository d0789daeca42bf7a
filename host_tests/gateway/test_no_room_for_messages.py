# A full heap never loses a match (net/match_host.py, _command and _after): when a message
# cannot be made (MemoryError), the move it answers is still applied, logged and shown in the
# views, and the end of a match still has its result, score and log; only messages are lost.
import pytest
import test_match_host
from test_match_host import Clock, FakeSession, make_host, seated_pair, send, walk_host

from bots import DIRS
from game import rules
from net import messages


class Fail:
    """A stand-in for a function that raises MemoryError `times` times, then is the real one."""

    def __init__(self, real, times=1):
        self.real = real
        self.times = times

    def __call__(self, *args):
        if self.times:
            self.times -= 1
            raise MemoryError("memory allocation failed, allocating 42 bytes")
        return self.real(*args)


def started(clock, log=None):
    host = make_host(clock, countdown_ms=0)
    if log is not None:
        host.log = log.append
    a, b = seated_pair(host)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')
    assert host.match.phase == rules.ACTIVE
    return host, a, b


def test_a_move_whose_ack_has_no_room_is_applied_logged_and_shown(monkeypatch):
    clock = Clock(0)
    host, a, b = started(clock)
    m = host.match
    seat = host.seats[1]
    d = next(d for d in range(4) if m.cells[m.pos[1]] & rules.DIR_BITS[d])
    where, seq, logged = m.pos[1], m.state_seq, host.journal.index
    epoch = host.views.epoch
    clock.wait(150)
    # the session frames the ack (net.gateway.Session.post_text; FakeSession does the same)
    monkeypatch.setattr(test_match_host, "framed", Fail(test_match_host.framed))
    with pytest.raises(MemoryError):  # the gateway closes this session (1011)
        send(host, a, '{"t":"move","c":2,"d":"%s"}' % DIRS[d])
    assert m.pos[1] != where and m.state_seq > seq  # applied
    assert host.journal.index == logged + 1  # and in the log
    assert seat.last_c == 2 and seat.accepted == 1 and host.moves[1] == 1
    assert host.views.epoch > epoch and host.views.due(b)  # everyone's view is due
    # the client reconnects and sends the move again: a repeat, not a second move
    a.frames.clear()
    send(host, a, '{"t":"move","c":2,"d":"%s"}' % DIRS[d])
    assert a.last() == {"t": "ack", "c": 2, "dup": True} and host.moves[1] == 1


def test_the_end_of_a_match_survives_events_with_no_room(monkeypatch):
    clock = Clock(0)
    log = []
    host, a, b = started(clock, log)
    obs = FakeSession()
    send(host, obs, '{"t":"join","role":"watch"}')
    m = host.match
    c, _ = walk_host(host, clock, a, 1, m.key_location(1)[0], 1, (m.key_location(2)[0],))
    while m.inventory[1] != 1:
        c, _ = walk_host(host, clock, a, 1, m.key_location(1)[0], c)
    c, _ = walk_host(host, clock, a, 1, m.exit_cell(1), c)
    clock.wait(150)
    send(host, a, '{"t":"move","c":%d,"d":"%s"}' % (c + 1, DIRS[m.exit_direction(1)]))
    assert m.phase == rules.ACTIVE and m.exited[1]  # the finish window runs
    for s in (a, b, obs):
        s.frames.clear()
    epoch = host.views.epoch
    # the finish window ends on the next tick: no room for its events (phase, result)
    monkeypatch.setattr(messages, "event", Fail(messages.event, times=99))
    clock.wait(201)
    host.tick()  # does not raise
    assert m.phase == rules.FINISHED and m.result == rules.RESULT_WIN and m.winner == 1
    assert host.score[1] == 1  # the series score
    assert host.journal.done  # the log has its end, and the seed may be shown
    assert host.views.epoch > epoch and host.views.due(obs)  # the final views are due
    assert any("MemoryError" in line for line in log)  # said, not hidden
    for s in (a, b, obs):
        assert not s.events()  # the events were lost ...
        assert s.last("maze") is not None  # ... the figures and the maze were not
        assert s.last("room")["sc"] == [1, 0] and s.last("fair")["pre"]
    # and the room plays on
    monkeypatch.undo()
    send(host, a, '{"t":"rematch","c":%d}' % (c + 2))
    send(host, b, '{"t":"rematch","c":2}')
    assert host.match.phase == rules.ACTIVE and host.match_no == 2


def test_no_room_to_open_the_log_pauses_the_match(monkeypatch, tmp_path):
    # no ack without the log (docs/log.md, "When the flash fails"): the match is paused
    from net import journal
    from net.resume import resume

    clock = Clock(0)
    log = []
    host = make_host(clock, countdown_ms=0)
    host.log = host.journal.log = log.append
    resume(host, str(tmp_path))
    a, b = seated_pair(host)
    monkeypatch.setattr(journal, "open", Fail(open), raising=False)
    send(host, a, '{"t":"ready","c":1}')
    send(host, b, '{"t":"ready","c":1}')  # the match starts: its log cannot be opened
    assert any("match log 1 failed" in line and "MemoryError" in line for line in log)
    assert a.last("err") == {"t": "err", "code": "LOG_FAILED"} and host.paused
    assert a.last("fair")["commit"] and "pre" not in a.last("fair")  # the seed stays secret
    refused = send(host, a, '{"t":"move","c":2,"d":"N"}')
    assert refused == {"t": "err", "c": 2, "code": "LOG_FAILED"}
