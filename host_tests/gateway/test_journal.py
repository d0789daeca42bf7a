# The match log on flash (net/journal.py, docs/log.md) with the real net.match_host, fake
# sessions and a fake tick clock (CPython, fast): every accepted command on flash before its
# ack, the seed committed before play and revealed after, a crash at every point of a match
# resumed to the same digest, torn tails dropped, pruning, and an abandoned resume.
import hashlib
import os
import random
import shutil

from test_match_host import Clock, FakeSession, make_host, send

from game import rules
from game.matchlog import Header
from logbook import CHECK, END, ENTRY, HEADER, check, client_sequences, durable
from net.resume import resume


class _Any:
    def __eq__(self, other):
        return True


ANY = _Any()


def _files(folder):
    """The log files in folder (the room file beside them is test_room_file's)."""
    return sorted(n for n in os.listdir(folder) if n[:4] != "room")


def _durable(folder, n):
    main = (folder / ("match-%d.log" % n)).read_bytes()
    tail_path = folder / ("match-%d.tail" % n)
    return durable(main, tail_path.read_bytes() if tail_path.exists() else b"")


class Room:
    """A host on a log folder with two seated players, ann (seat 1) and bob (seat 2)."""

    def __init__(self, folder, clock=None, **settings):
        self.folder = folder
        self.clock = clock or Clock(1000)
        settings.setdefault("countdown_ms", 300)
        self.host = make_host(self.clock, **settings)
        self.resumed = resume(self.host, str(folder))
        self.rng = random.Random(7)

    def seat(self):
        self.a, self.b = FakeSession(), FakeSession()
        send(self.host, self.a, '{"t":"join","role":"play","name":"ann"}')
        send(self.host, self.b, '{"t":"join","role":"play","name":"bob"}')
        self.tokens = (None, self.a.last("welcome")["token"], self.b.last("welcome")["token"])
        return self

    def start(self):
        send(self.host, self.a, '{"t":"ready","c":1}')
        send(self.host, self.b, '{"t":"ready","c":1}')
        self.clock.wait(400)
        self.host.tick()
        assert self.host.match.phase == rules.ACTIVE
        return self

    def step(self, on_ack=None):
        """Both players try one move (a random direction), then the timer ticks."""
        self.clock.wait(110)
        for number, session in ((1, self.a), (2, self.b)):
            c = self.host.seats[number].last_c + 1
            d = self.rng.choice("NESW")
            send(self.host, session, '{"t":"move","c":%d,"d":"%s"}' % (c, d))
            if on_ack and session.last("ack") == {"t": "ack", "c": c, "cs": ANY}:
                on_ack(number, c)
        self.host.tick()

    def finish(self):
        """Seat 2 gives up (leave): the match ends by forfeit."""
        send(self.host, self.b, '{"t":"leave","c":%d}' % (self.host.seats[2].last_c + 1))
        self.host.detach(self.b)
        self.host.tick()
        assert self.host.match.phase == rules.FINISHED


def test_a_match_is_logged_then_its_seed_revealed(tmp_path):
    room = Room(tmp_path).seat()
    commit = room.a.last("fair")["commit"]
    assert room.a.last("fair") == {"t": "fair", "mn": 1, "commit": commit}
    assert room.b.last("fair")["commit"] == commit and len(commit) == 64
    obs = FakeSession()
    send(room.host, obs, '{"t":"join","role":"watch"}')
    assert obs.last("fair")["commit"] == commit
    room.start()
    # the commitment went to everyone again when the countdown started, before any move
    fair_at = [i for i, f in enumerate(room.a.frames) if f["t"] == "fair"]
    assert len(fair_at) == 2 and room.a.frames[fair_at[1]]["commit"] == commit
    assert _files(tmp_path) == ["match-1.log", "match-1.tail"]
    acks = []
    for _ in range(60):
        room.step(lambda seat, c: acks.append((seat, c)))
    assert len(acks) > 40
    room.finish()
    assert _files(tmp_path) == ["match-1.log"]  # the tail folded into the log, then removed
    data = (tmp_path / "match-1.log").read_bytes()
    report = check(data)
    assert report["ok"] and report["finished"] and report["result"] == "forfeit"
    assert report["digest"] == "%08x" % room.host.match.digest()
    assert [s["name"] for s in report["seats"]] == ["ann", "bob"]
    token_hash = hashlib.sha256(room.tokens[1].encode()).hexdigest()[:32]
    assert report["seats"][0]["token_hash"] == token_hash
    head, entries = _durable(tmp_path, 1)
    assert client_sequences(head, entries) == acks  # every accepted command, nothing else
    assert len(data) == HEADER + ENTRY * len(entries)
    # the reveal: the committed bytes hash to the commitment, the seed is the log's
    for session in (room.a, obs):
        reveal = session.last("fair")
        pre = bytes.fromhex(reveal["pre"])
        assert reveal["commit"] == commit and reveal["log"] == 1
        assert hashlib.sha256(pre).hexdigest() == commit
        assert pre.hex()[32:] == report["seed"] and pre[6:8] == bytes((9, 9))
    late = FakeSession()
    send(room.host, late, '{"t":"join","role":"watch"}')
    assert late.last("fair")["pre"] == reveal["pre"]  # joined after the end: told at once
    # the rematch (with a new player 2): a new seed, a new commitment, a new log
    cy = FakeSession()
    send(room.host, cy, '{"t":"join","role":"play","name":"cy"}')
    send(room.host, cy, '{"t":"ready","c":1}')
    send(room.host, room.a, '{"t":"rematch","c":%d}' % (room.host.seats[1].last_c + 1))
    assert room.host.match.phase == rules.COUNTDOWN and room.host.match_no == 2
    assert room.a.last("fair")["commit"] != commit and "pre" not in room.a.last("fair")
    assert _files(tmp_path) == ["match-1.log", "match-2.log", "match-2.tail"]


def test_every_ack_follows_its_entry_on_flash(tmp_path):
    room = Room(tmp_path).seat().start()
    checked = []

    def on_post(seat):
        def post(data):
            FakeSession.post(session, data)
            msg = session.frames[-1]
            if msg["t"] == "ack" and "cs" in msg:
                head, entries = _durable(tmp_path, 1)
                assert (seat, msg["c"]) in client_sequences(head, entries)
                checked.append(msg["c"])

        session = room.a if seat == 1 else room.b
        return post

    room.a.post = on_post(1)
    room.b.post = on_post(2)
    for _ in range(40):
        room.step()
    assert len(checked) > 25


def _snapshot(folder, into):
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(folder, into)
    return into


def test_a_crash_at_any_point_resumes_the_same_match(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    room = Room(live).seat().start()
    points = []
    for i in range(70):  # every state of the two files: tail filling, group moved, overlap
        room.step()
        host = room.host
        seats = host.seats
        points.append(
            (
                _snapshot(live, tmp_path / ("at%d" % i)),
                host.match.digest(),
                host.match.state_seq,
                host.match.now,
                (seats[1].last_c, seats[2].last_c),
                (seats[1].accepted, seats[2].accepted),
            )
        )
    tokens = room.tokens
    for folder, digest, seq, now, last_c, accepted in points:
        back = Room(folder, Clock(123456))
        host = back.host
        assert back.resumed == 1 and host.paused
        assert host.match.digest() == digest and host.match.state_seq == seq
        assert (host.seats[1].last_c, host.seats[2].last_c) == last_c
        assert (host.seats[1].accepted, host.seats[2].accepted) == accepted
        assert _files(folder) == ["match-1.log", "match-1.tail"]
        head, entries = _durable(folder, 1)
        assert entries[-1][:3] == (CHECK, 0, 1) and entries[-1][4] == digest
        # the clock goes on from the last logged time (advances that changed nothing are
        # not logged: the state is the same at that time as at the crash)
        logged = max([0] + [e[4] for e in entries if e[0] not in (CHECK, END)])
        assert host.now_ms() == host.match.now == logged <= now
    # the last one plays on: the players come back with their tokens
    a, b = FakeSession(), FakeSession()
    welcome = send(host, a, '{"t":"join","role":"play","token":"%s"}' % tokens[1])
    assert a.last("welcome")["restarted"] is True and a.last("welcome")["resumed"] is True
    assert welcome["t"] == "room" and host.paused
    c = last_c[0]
    assert send(host, a, '{"t":"move","c":%d,"d":"N"}' % c) == {"t": "ack", "c": c, "dup": True}
    refused = send(host, a, '{"t":"move","c":%d,"d":"N"}' % (c + 1))
    assert refused == {"t": "err", "c": c + 1, "code": "RESTART_PAUSE"}
    back.clock.wait(5000)  # the match clock stands still while it waits
    assert host.now_ms() == logged
    send(host, b, '{"t":"join","role":"play","token":"%s"}' % tokens[2])
    assert not host.paused and "restarted" not in a.frames[-1]
    back.clock.wait(150)
    assert host.now_ms() == logged + 150  # ... and goes on once both are back
    again = FakeSession()
    send(host, again, '{"t":"join","role":"play","token":"%s"}' % tokens[1])
    assert "restarted" not in again.last("welcome")  # said once, after the restart
    back.a, back.b = again, b
    for _ in range(20):
        back.step()
    back.finish()
    report = check((folder / "match-1.log").read_bytes())
    assert report["ok"] and report["checks"] == 2  # the resume's checkpoint and the end's
    assert report["digest"] == "%08x" % host.match.digest()


def test_torn_or_garbage_tails_are_dropped_at_boot(tmp_path):
    room = Room(tmp_path).seat().start()
    for _ in range(25):
        room.step()
    digest = room.host.match.digest()
    head, entries = _durable(tmp_path, 1)
    with open(tmp_path / "match-1.log", "ab") as f:
        f.write(b"\x17\x00\x01")  # an entry cut short
    tail = bytearray((tmp_path / "match-1.tail").read_bytes())
    count = tail[4]
    tail[8 + 8 * count : 16 + 8 * count] = b"\xa5" * 8  # garbage where the next entry goes
    tail[4] = count + 1
    tail[6:8] = Header.sum(tail, 0, 6, 0, 0).to_bytes(2, "big")
    (tmp_path / "match-1.tail").write_bytes(tail)
    back = Room(tmp_path)
    assert back.resumed == 1 and back.host.match.digest() == digest
    head2, entries2 = _durable(tmp_path, 1)
    assert entries2[:-1] == entries  # the same entries, then the resume's checkpoint
    data = (tmp_path / "match-1.log").read_bytes()
    assert (len(data) - HEADER) % ENTRY == 0 and check(data)["problem"] is None


def test_an_unreadable_log_is_kept_aside(tmp_path):
    cut = b"MDLG\x01" + b"\x00" * 40
    (tmp_path / "match-3.log").write_bytes(cut)  # cut inside its header
    room = Room(tmp_path)
    assert room.resumed == 0 and _files(tmp_path) == ["match-3.bad"]  # kept, never replayed
    assert (tmp_path / "match-3.bad").read_bytes() == cut
    room.seat().start()
    assert _files(tmp_path) == ["match-3.bad", "match-4.log", "match-4.tail"]  # numbers go on


def test_a_resume_nobody_comes_back_to_is_abandoned(tmp_path):
    room = Room(tmp_path, reconnect_grace_ms=5000).seat().start()
    for _ in range(10):
        room.step()
    back = Room(tmp_path, Clock(0), reconnect_grace_ms=5000)
    host = back.host
    obs = FakeSession()
    send(host, obs, '{"t":"join","role":"watch"}')
    assert host.paused
    back.clock.wait(4999)
    host.tick()
    assert host.paused and host.seats[1].token is not None
    back.clock.wait(1)
    host.tick()  # both graces ran out together: nobody wins, the room starts afresh
    assert not host.paused and host.match.phase == rules.WAITING and host.match_no == 2
    assert host.seats[1].token is None and host.seats[2].token is None
    assert obs.last("room")["p"] == [None, None]
    report = check((tmp_path / "match-1.log").read_bytes())
    assert report["finished"] and report["abandoned"] and report["ok"]
    assert _files(tmp_path) == ["match-1.log"]


def test_one_player_back_the_other_forfeits_after_the_grace(tmp_path):
    room = Room(tmp_path, reconnect_grace_ms=5000).seat().start()
    for _ in range(10):
        room.step()
    back = Room(tmp_path, Clock(0), reconnect_grace_ms=5000)
    a = FakeSession()
    send(back.host, a, '{"t":"join","role":"play","token":"%s"}' % room.tokens[1])
    back.clock.wait(5000)
    back.host.tick()
    assert back.host.match.result == rules.RESULT_FORFEIT and back.host.match.winner == 1
    report = check((tmp_path / "match-1.log").read_bytes())
    assert report["ok"] and report["result"] == "forfeit" and report["winner"] == 1


def test_other_settings_abandon_the_old_match(tmp_path):
    room = Room(tmp_path).seat().start()
    for _ in range(5):
        room.step()
    back = Room(tmp_path, preset="classic")
    assert back.resumed == 0 and back.host.match.phase == rules.WAITING
    # the room as its file kept it when the match started: the next match, both seats held
    assert back.host.match_no == 2 and back.host.seats[1].hashed and back.host.seats[2].hashed
    assert check((tmp_path / "match-1.log").read_bytes())["abandoned"]


def test_only_the_newest_logs_are_kept(tmp_path):
    room = Room(tmp_path, log_keep=3).seat()
    for n in range(1, 7):
        if n > 1:
            send(room.host, room.a, '{"t":"ready","c":%d}' % (room.host.seats[1].last_c + 1))
            send(room.host, room.b, '{"t":"ready","c":%d}' % (room.host.seats[2].last_c + 1))
            room.clock.wait(400)
            room.host.tick()
        else:
            room.start()
        kept = ["match-%d.log" % k for k in range(max(1, n - 2), n + 1)]
        assert _files(tmp_path) == sorted(kept + ["match-%d.tail" % n])  # while it runs
        for _ in range(10):
            room.step()
        send(room.host, room.b, '{"t":"leave","c":%d}' % (room.host.seats[2].last_c + 1))
        room.host.tick()
        room.host.detach(room.b)
        room.b = FakeSession()
        send(room.host, room.b, '{"t":"join","role":"play","name":"bob"}')
        assert _files(tmp_path) == kept
    assert all(check((tmp_path / name).read_bytes())["ok"] for name in _files(tmp_path))
    # at boot too: the oldest beyond the number kept go
    Room(tmp_path, log_keep=1)
    assert _files(tmp_path) == ["match-6.log"]


def test_a_match_of_another_ruleset_resumes_in_it(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    room = Room(live).seat()
    send(room.host, room.a, '{"t":"rules","c":1,"id":"quick"}')
    assert room.host.ruleset[0] == "quick"
    send(room.host, room.a, '{"t":"ready","c":2}')
    send(room.host, room.b, '{"t":"ready","c":1}')
    room.clock.wait(400)
    room.host.tick()
    assert room.host.match.phase == rules.ACTIVE
    for _ in range(30):
        room.step()
    digest = room.host.match.digest()
    folder = _snapshot(live, tmp_path / "cut")
    back = Room(folder, Clock(99))  # the board restarts on classic, the lobby's default
    host = back.host
    assert back.resumed == 1 and host.ruleset[0] == "quick"
    assert host.match.rules == room.host.match.rules and host.match.digest() == digest
    head, _ = _durable(folder, 1)
    assert head.series == (1, 1, 0, 0)  # quick, best of 3, 0-0 before it
