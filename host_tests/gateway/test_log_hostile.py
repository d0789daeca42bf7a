# The match log against a full or failing flash and damaged files (docs/log.md, "When the flash
# fails"), as a hostile tester would: the real net.match_host, net.journal and net.resume with
# fake sessions and clock (CPython), the flash a folder whose writes fail once a byte budget
# is spent (ENOSPC), at every point of a match and of a resume. Each asserts: no ack without
# its entry on flash, no half-resume (resumed, or exactly a fresh boot), no log deleted, the
# host alive and serving.
import errno
import os

import pytest
from test_journal import Room, _durable, _files
from test_match_host import Clock, FakeSession, send

from game import rules
from game.matchlog import Header
from logbook import END, LIMIT, check, client_sequences, durable, export
from net import journal as journal_module
from net import resume as resume_module


class Flash:
    """open() for net.journal and net.resume whose files fail (ENOSPC) once `budget` bytes
    have been written (None: no limit); a write that fails writes nothing."""

    def __init__(self, monkeypatch, budget=None):
        self.budget = budget
        self.writes = 0
        for module in (journal_module, resume_module):
            monkeypatch.setattr(module, "open", self.open, raising=False)

    def open(self, name, mode="r"):
        f = open(name, mode)
        return f if "r" in mode else _Limited(f, self)


class _Limited:
    def __init__(self, f, flash):
        self.f = f
        self.flash = flash

    def write(self, data):
        flash = self.flash
        if flash.budget is not None and len(data) > flash.budget:
            raise OSError(errno.ENOSPC, "No space left on device")
        if flash.budget is not None:
            flash.budget -= len(data)
        flash.writes += 1
        return self.f.write(data)

    def __getattr__(self, name):
        return getattr(self.f, name)


def _status(host):
    text = "".join(p.decode() if isinstance(p, bytes) else p for p in host.status()) + "}"
    import json

    return json.loads(text)


def _play(room, steps, acks):
    for _ in range(steps):
        room.step(lambda seat, c: acks.append((seat, c)))


def _fresh(host, numbers=(2,)):
    """The host as a boot with no match log leaves it: a waiting match, not paused; the room as
    its room file kept it when match 1 started (docs/log.md, "The room file"): match 2, both
    seats held for their players' tokens, nobody connected. (numbers: 1 too when the room
    file may have failed to be written when match 1 started.)"""
    return (
        host.match.phase == rules.WAITING
        and bool(host.seats[1].hashed)
        and bool(host.seats[2].hashed)
        and host.seats[1].session is None
        and host.match_no in numbers
        and not host.paused
    )


def _rejoin(back, tokens):
    """ann and bob come back with their tokens to the room a boot restored: their seats."""
    back.a, back.b = FakeSession(), FakeSession()
    for session, token in ((back.a, tokens[1]), (back.b, tokens[2])):
        send(back.host, session, '{"t":"join","role":"play","token":"%s"}' % token)
        assert session.last("welcome")["restarted"] is True
    back.tokens = tokens
    return back


def _restart(back):
    """Both say ready again (their next client sequence) and the countdown runs out."""
    for number, session in ((1, back.a), (2, back.b)):
        c = back.host.seats[number].last_c + 1
        send(back.host, session, '{"t":"ready","c":%d}' % c)
    back.clock.wait(400)
    back.host.tick()
    assert back.host.match.phase == rules.ACTIVE


def _bytes_of_a_match(tmp_path, monkeypatch):
    flash = Flash(monkeypatch)
    folder = tmp_path / "measure"
    folder.mkdir()
    room = Room(folder).seat().start()
    _play(room, 30, [])
    return sum(os.path.getsize(folder / n) for n in _files(folder)), flash


def test_a_full_flash_at_every_point_never_acks_what_it_did_not_keep(tmp_path, monkeypatch):
    total, flash = _bytes_of_a_match(tmp_path, monkeypatch)
    # the tail is rewritten whole for every entry: a budget of total bytes runs out late
    budgets = list(range(0, 240, 16)) + list(range(240, 4 * total, 97))
    failed_at = set()
    for budget in budgets:
        folder = tmp_path / ("b%d" % budget)
        folder.mkdir()
        flash.budget = None
        room = Room(folder).seat()
        obs = FakeSession()
        send(room.host, obs, '{"t":"join","role":"watch"}')
        flash.budget = budget
        send(room.host, room.a, '{"t":"ready","c":1}')
        send(room.host, room.b, '{"t":"ready","c":1}')
        room.clock.wait(400)
        room.host.tick()
        acks = []
        _play(room, 30, acks)
        host = room.host
        lost = host.journal.failed
        if lost is None:
            continue
        failed_at.add(len(acks))
        assert lost == "the board's storage is full" and host.paused
        assert _status(host)["log"] == lost
        # everyone was told, once, without a sequence: players and the TV
        for session in (room.a, room.b, obs):
            told = [f for f in session.frames if f == {"t": "err", "code": "LOG_FAILED"}]
            assert len(told) == 1, session.frames
            assert all("pre" not in f for f in session.frames if f["t"] == "fair")
        # every ack is of an entry on flash (an entry on flash may have had no ack: the
        # one whose second write failed)
        main = folder / "match-1.log"
        if main.exists() and main.stat().st_size >= 208:
            head, entries = _durable(folder, 1)
            kept = client_sequences(head, entries)
            assert set(acks) <= set(kept) and len(kept) - len(acks) <= 1
        else:
            assert acks == []
        # the match stays paused: a move is refused, nothing more is acknowledged
        c = host.seats[1].last_c + 1
        refused = send(host, room.a, '{"t":"move","c":%d,"d":"N"}' % c)
        assert refused == {"t": "err", "c": c, "code": "LOG_FAILED"}
        room.clock.wait(600000)  # neither the clock nor the graces move it
        host.detach(room.b)
        host.tick()
        room.clock.wait(600000)
        host.tick()
        assert host.match.phase in (rules.COUNTDOWN, rules.ACTIVE) and host.seats[2].token
        # a restart (the flash has room again) resumes what the log holds
        flash.budget = None
        back = Room(folder, Clock(5))
        if back.resumed:
            assert back.host.paused and back.host.journal.failed is None
            a = FakeSession()
            send(back.host, a, '{"t":"join","role":"play","token":"%s"}' % room.tokens[1])
            assert a.last("welcome")["restarted"] is True
        else:
            assert _fresh(back.host, (1, 2))
        assert any(n.startswith("match-1.") for n in _files(folder)) or budget < 208
    # before the first move, and all through: 13 points of failure in a run on its own, 9 in
    # a fresh clone's CI run (the measuring match's length there); at least 8 either way
    assert 0 in failed_at and len(failed_at) >= 8, sorted(failed_at)


def test_no_room_for_a_match_log_refuses_to_start(tmp_path, monkeypatch):
    room = Room(tmp_path, max_moves=1000).seat()
    real = os.statvfs

    class Full:
        def __init__(self, free_blocks):
            self.free = free_blocks

        def __call__(self, path):
            s = real(path)
            return (4096, 4096, s[2], self.free, self.free) + tuple(s[5:])

    # a 1000-command match: 208 + 8 * 1064 bytes = 3 blocks, twice, and 2 more
    monkeypatch.setattr(os, "statvfs", Full(7))
    send(room.host, room.a, '{"t":"ready","c":1}')
    send(room.host, room.b, '{"t":"ready","c":1}')
    host = room.host
    assert host.match.phase == rules.WAITING and _files(tmp_path) == []
    assert room.a.frames[-2] == {"t": "err", "code": "LOG_FULL"}
    assert room.b.last("err") == {"t": "err", "code": "LOG_FULL"}
    assert not host.seats[1].want and not host.seats[2].want  # ready again to retry
    assert _status(host)["log"] == "the board's storage is full"
    monkeypatch.setattr(os, "statvfs", Full(8))
    send(room.host, room.a, '{"t":"ready","c":2}')
    send(room.host, room.b, '{"t":"ready","c":2}')
    assert host.match.phase == rules.COUNTDOWN and _status(host)["log"] == "ok"
    assert _files(tmp_path) == ["match-1.log", "match-1.tail"]


def test_a_match_ends_as_a_draw_at_max_moves(tmp_path):
    room = Room(tmp_path, max_moves=20).seat().start()
    host = room.host
    for _ in range(40):
        room.step()
        if host.match.phase == rules.FINISHED:
            break
    assert host.match.result == rules.RESULT_DRAW and host.match.winner == 0
    assert 20 <= host.seats[1].accepted + host.seats[2].accepted <= 22
    report = check((tmp_path / "match-1.log").read_bytes())
    assert report["ok"] and report["result"] == "draw"
    kinds = [e["kind"] for e in export((tmp_path / "match-1.log").read_bytes())["log"]]
    assert kinds[-3:] == ["limit", "check", "end"]
    assert "pre" in room.a.last("fair")  # a finished match: its seed revealed


def _interrupted(tmp_path, name, steps=30, **settings):
    live = tmp_path / name
    live.mkdir()
    room = Room(live, **settings).seat().start()
    _play(room, steps, [])
    return live, room


def test_a_resume_that_fails_at_any_write_is_all_or_nothing(tmp_path, monkeypatch):
    live, room = _interrupted(tmp_path, "live")
    digest = room.host.match.digest()
    original = (live / "match-1.log").read_bytes()
    _, kept = _durable(live, 1)
    flash = Flash(monkeypatch)
    outcomes = set()
    for budget in list(range(0, 2 * len(original) + 200, 53)) + [None]:
        folder = tmp_path / ("r%s" % budget)
        folder.mkdir()
        for name in os.listdir(live):  # the logs and the room file
            (folder / name).write_bytes((live / name).read_bytes())
        flash.budget = budget
        lines = []
        clock = Clock(77)
        back = Room.__new__(Room)
        back.folder, back.clock = folder, clock
        from test_match_host import make_host

        back.host = make_host(clock, countdown_ms=300)
        back.host.log = lines.append
        back.resumed = resume_module.resume(back.host, str(folder))
        host = back.host
        files = _files(folder)
        assert not [n for n in files if n.endswith(".new")]
        if back.resumed:
            outcomes.add("resumed")
            assert host.match.digest() == digest and host.paused
            assert host.seats[1].hashed and host.match_no == 1
        else:
            outcomes.add("fresh")
            assert _fresh(host) and host.match.phase == rules.WAITING
            assert files[:1] == ["match-1.bad"]  # the log kept aside, whole: the original,
            # or its rewrite if the failure came after that (the tail's entries in it)
            aside = (folder / "match-1.bad").read_bytes()
            assert aside == original or durable(aside)[1][: len(kept)] == kept
            assert any("not resumed" in line and "28" in line for line in lines), lines
            # the fresh board serves: a new match, numbered after the one set aside
            flash.budget = None
            _restart(_rejoin(back, room.tokens))
            assert "match-2.log" in _files(folder)
    assert outcomes == {"resumed", "fresh"}


def test_a_damaged_header_is_kept_aside_and_the_board_starts_fresh(tmp_path):
    live, room = _interrupted(tmp_path, "live")
    data = bytearray((live / "match-1.log").read_bytes())
    data[100] ^= 0x10  # one bit of a token hash
    (live / "match-1.log").write_bytes(data)
    back = Room(live, Clock(1))
    assert back.resumed == 0 and _fresh(back.host)
    assert (live / "match-1.bad").read_bytes() == bytes(data)
    assert "match-1.log" not in _files(live)


def test_a_damaged_entry_resumes_up_to_it_and_keeps_the_original(tmp_path):
    live, room = _interrupted(tmp_path, "live", steps=60)
    data = bytearray((live / "match-1.log").read_bytes())
    assert len(data) > 208 + 8 * 20
    data[208 + 8 * 10 + 3] ^= 0x01  # entry 10 of the log, a flipped bit
    (live / "match-1.log").write_bytes(data)
    back = Room(live, Clock(1))
    assert back.resumed == 1 and back.host.paused
    assert (live / "match-1.bad").read_bytes() == bytes(data)  # the original, whole
    data = (live / "match-1.log").read_bytes()
    assert check(data)["ok"]
    log = export(data)["log"]
    assert len(log) == 11 and log[-1]["kind"] == "check"  # entries 0-9, the resume's check


def test_a_tail_that_is_a_folder_gives_a_fresh_boot(tmp_path):
    live, room = _interrupted(tmp_path, "live")
    (live / "match-1.tail").unlink()
    (live / "match-1.tail").mkdir()
    (live / "match-1.tail" / "x").write_bytes(b"x")  # not empty: it cannot be removed
    back = Room(live, Clock(1))
    assert back.resumed == 0 and _fresh(back.host)
    assert "match-1.bad" in _files(live)
    # the board serves and numbers on: no stranger gets a seat, its players get theirs back
    stranger = FakeSession()
    send(back.host, stranger, '{"t":"join","role":"play"}')
    assert stranger.last("err") == {"t": "err", "code": "ROOM_FULL"}
    _restart(_rejoin(back, room.tokens))
    assert "match-2.log" in _files(live)


def test_a_damaged_or_folder_new_file_changes_nothing(tmp_path):
    live, room = _interrupted(tmp_path, "live")
    digest = room.host.match.digest()
    (live / "match-1.new").write_bytes(b"\xa5" * 300)
    back = Room(live, Clock(1))
    assert back.resumed == 1 and back.host.match.digest() == digest
    assert _files(live) == ["match-1.log", "match-1.tail"]
    live2, room2 = _interrupted(tmp_path, "live2")
    (live2 / "match-1.new").mkdir()
    back = Room(live2, Clock(1))
    assert back.resumed == 1 and back.host.match.digest() == room2.host.match.digest()


def test_a_stray_number_is_set_aside_alone(tmp_path):
    live, room = _interrupted(tmp_path, "live")
    digest = room.host.match.digest()
    stray = b"MDLG" + bytes(300)
    (live / "match-999999.log").write_bytes(stray)
    (live / "match-007.log").write_bytes(stray)
    back = Room(live, Clock(1), log_keep=1)
    assert back.resumed == 1 and back.host.match.digest() == digest
    assert _files(live) == [
        "match-007.log.bad",
        "match-1.log",
        "match-1.tail",
        "match-999999.log.bad",
    ]
    # the next match is number 2, whatever the strays say
    assert back.host.journal.number == 1


def test_the_end_on_flash_only_in_the_tail_is_folded_in_at_boot(tmp_path, monkeypatch):
    # the end entry written, the fold into the log failing: the seed may be shown (the end
    # is on flash), and the next boot completes the log
    live, room = _interrupted(tmp_path, "live")
    flash = Flash(monkeypatch)
    host = room.host
    for _ in range(20):
        if host.journal.pending <= 9:
            break
        room.step()  # (the end's entries then fit in the tail: no group append before it)
    assert host.journal.pending <= 9 and host.match.phase == rules.ACTIVE
    real = host.journal.main

    class Failing:
        def write(self, data):
            raise OSError(errno.EIO, "I/O error")

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(host.journal, "main", Failing())
    room.finish()
    assert "pre" in room.a.last("fair") and host.journal.failed is None
    assert "match-1.tail" in _files(live)
    real.close()
    flash.budget = None
    back = Room(live, Clock(1))
    assert back.resumed == 0 and _files(live) == ["match-1.log"]
    assert check((live / "match-1.log").read_bytes())["result"] == "forfeit"


def test_log_serves_a_log_kept_aside(tmp_path):
    pytest.importorskip("microdot")
    live, room = _interrupted(tmp_path, "live")
    data = bytearray((live / "match-1.log").read_bytes())
    data[50] ^= 1
    (live / "match-1.log").write_bytes(data)
    back = Room(live, Clock(1))
    routes = {}

    class App:
        def route(self, path):
            return lambda handler: routes.setdefault(path, handler)

    class Request:
        def __init__(self, q):
            self.query_string = q

    journal_module.add_log_route(App(), back.host.journal)
    resp = routes["/log"](Request("n=1.bad"))
    assert resp.status_code == 200 and resp.body.read() == bytes(data)
    resp.body.close()
    assert routes["/log"](Request("n=1")).status_code == 404
    assert routes["/log"](Request("n=x.bad")).status_code == 404


def test_entries_of_the_new_kinds_read_back(tmp_path):
    # the limit entry is a valid entry of its own kind (docs/log.md)
    buf = bytearray(8)
    Header.record(buf, 0, 5, LIMIT, 0, 0, 0, 1234)
    from game.replay import Replay

    assert Replay.read(buf, 0, 5) == (LIMIT, 0, 0, 0, 1234)
    assert LIMIT == END + 1


def test_setting_a_log_aside_never_replaces_one_kept_before(tmp_path):
    # a log already kept as match-1.bad, and its rewrite failing again later: both are kept
    from net import resume

    said = []

    class Host:
        log = staticmethod(said.append)

    folder = tmp_path / "log"
    folder.mkdir()
    (folder / "match-1.bad").write_bytes(b"first evidence")
    for content in (b"second evidence", b"third evidence"):
        (folder / "match-1.log").write_bytes(content)
        resume._aside(Host, str(folder / "match-1.log"), str(folder / "match-1.bad"))
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert kept == {
        "match-1.bad": b"first evidence",
        "match-1.log.bad": b"second evidence",
        "match-1.log.bad2": b"third evidence",
    }
    assert all("kept aside" in line for line in said), said
