# The room between matches kept on flash (docs/log.md, "The room file"): net.journal.keep writes
# log/room when the seats, the ruleset, the series score or the match number change (never per
# move), net.resume restores it at boot. The real net.match_host, net.journal and net.resume with
# fake sessions and clock (CPython): a restart in the waiting room, after a match, mid-series and
# after a ruleset choice gives every player its seat (by token), the score and the ruleset back;
# a damaged, missing or folder room file, or a full flash while writing it, never stops play.
import errno
import hashlib
import os
import random

from test_journal import Room
from test_match_host import DIRS, Clock, FakeSession, send, walk_host

from game import rules
from game.matchlog import Header
from logbook import check
from net import journal as journal_module
from net.match_host import MatchHost
from net.resume import resume
from net.settings import Settings
from net.views import ViewPublisher


def _rejoin(host, token, name=None):
    s = FakeSession()
    text = '{"t":"join","role":"play","token":"%s"%s}' % (
        token,
        ',"name":"%s"' % name if name else "",
    )
    send(host, s, text)
    return s


def _back(folder, **settings):
    """The board (re)started on the flash in folder; its console lines in .lines."""
    back = Room.__new__(Room)
    back.folder, back.clock, back.lines = folder, Clock(1), []
    config = Settings()
    config.preset = "small"
    config.countdown_ms = 300
    config.cooldown_ms = 100
    config.reconnect_grace_ms = 30000
    for name, value in settings.items():
        setattr(config, name, value)
    back.host = MatchHost(config, ViewPublisher(), back.lines.append, back.clock.ticks_ms)
    back.resumed = resume(back.host, str(folder))
    back.rng = random.Random(7)
    return back


def _both_back(back, tokens):
    back.a = _rejoin(back.host, tokens[1])
    back.b = _rejoin(back.host, tokens[2])
    for s in (back.a, back.b):
        assert s.last("welcome")["restarted"] is True
    back.tokens = tokens
    return back


def _ready(room, cmd="ready"):
    for number, s in ((1, room.a), (2, room.b)):
        send(room.host, s, '{"t":"%s","c":%d}' % (cmd, room.host.seats[number].last_c + 1))
    room.clock.wait(400)
    room.host.tick()


def _win(room, seat=1):
    """seat walks to its key and out of the maze: it wins the match."""
    host, clock = room.host, room.clock
    m = host.match
    s = room.a if seat == 1 else room.b
    c = host.seats[seat].last_c
    other = m.key_location(3 - seat)[0]
    c, _ = walk_host(host, clock, s, seat, m.key_location(seat)[0], c, (other,))
    while m.inventory[seat] != seat:
        c, _ = walk_host(host, clock, s, seat, m.key_location(seat)[0], c)
    c, _ = walk_host(host, clock, s, seat, m.exit_cell(seat), c)
    clock.wait(150)
    send(host, s, '{"t":"move","c":%d,"d":"%s"}' % (c + 1, DIRS[m.exit_direction(seat)]))
    clock.wait(201)
    host.tick()
    assert m.phase == rules.FINISHED and m.winner == seat


def _room_line(host):
    tv = FakeSession()
    send(host, tv, '{"t":"join","role":"watch"}')
    return tv.last("room")


def test_a_restart_in_the_waiting_room_gives_the_seats_back(tmp_path):
    room = Room(tmp_path).seat()
    assert sorted(os.listdir(tmp_path)) == ["room"]  # no log before a match starts
    back = _back(tmp_path)
    host = back.host
    assert back.resumed == 0 and host.match_no == 1 and host.match.phase == rules.WAITING
    line = _room_line(host)
    assert [(p["name"], p["on"]) for p in line["p"]] == [("ann", False), ("bob", False)]
    # a stranger gets no seat, a wrong token none either, the right tokens theirs
    stranger = FakeSession()
    assert send(host, stranger, '{"t":"join","role":"play"}')["code"] == "ROOM_FULL"
    wrong = _rejoin(host, "0" * 32)
    assert wrong.last("err") == {"t": "err", "code": "BAD_TOKEN"}
    a = _rejoin(host, room.tokens[1])
    welcome = a.last("welcome")
    assert welcome["seat"] == 1 and welcome["restarted"] is True and welcome["mn"] == 1
    assert welcome["token"] == room.tokens[1] and a.last("rules")["by"] == 1
    back.a, back.b = a, _rejoin(host, room.tokens[2])
    _ready(back)
    assert host.match.phase == rules.ACTIVE and host.match_no == 1
    # the match's log names the same players, by the hashes of the same tokens
    head = (tmp_path / "match-1.log").read_bytes()[:208]
    assert head[64:66] == b"\x00\x01"
    assert head[76:92] == hashlib.sha256(room.tokens[1].encode()).digest()[:16]
    assert head[92:108] == hashlib.sha256(room.tokens[2].encode()).digest()[:16]


def test_a_restart_after_a_match_keeps_the_score_and_numbers_on(tmp_path):
    room = Room(tmp_path).seat().start()
    _win(room, 1)
    assert room.a.last("room")["sc"] == [1, 0]
    back = _back(tmp_path)
    host = back.host
    assert back.resumed == 0 and host.match.phase == rules.WAITING and host.match_no == 2
    line = _room_line(host)
    assert line["sc"] == [1, 0] and line["mn"] == 2 and line["p"][1]["name"] == "bob"
    _both_back(back, room.tokens)
    _ready(back)
    assert host.match_no == 2 and host.match.phase == rules.ACTIVE
    head = (tmp_path / "match-2.log").read_bytes()[:208]
    assert head[64:66] == b"\x00\x02" and head[15] == 0x10  # match 2, score 1-0 before it


def test_a_ruleset_chosen_survives_a_restart(tmp_path):
    room = Room(tmp_path).seat()
    send(room.host, room.a, '{"t":"rules","c":1,"id":"quick"}')
    assert room.a.last("ack") == {"t": "ack", "c": 1}
    back = _back(tmp_path)
    host = back.host
    assert host.ruleset[0] == "quick" and host.match.width == 9 and host.chooser == 1
    a = _rejoin(host, room.tokens[1])
    assert a.last("rules")["rs"]["id"] == "quick" and a.last("rules")["by"] == 1
    assert a.last("room")["rs"] == "quick"
    # the chooser's next choice is not a resend: its sequence goes on
    send(host, a, '{"t":"rules","c":2,"id":"sight"}')
    assert a.last("ack") == {"t": "ack", "c": 2} and host.ruleset[0] == "sight"


def test_a_series_survives_restarts_between_its_matches(tmp_path):
    room = Room(tmp_path).seat()
    send(room.host, room.a, '{"t":"rules","c":1,"id":"quick"}')  # best of 3
    _ready(room)
    _win(room, 1)
    back = _both_back(_back(tmp_path), room.tokens)
    host = back.host
    assert back.a.last("room")["sc"] == [1, 0] and back.a.last("room")["rs"] == "quick"
    assert host.match_no == 2 and back.a.last("welcome")["mn"] == 2
    _ready(back)
    assert host.match_no == 2 and host.score[1:] == [1, 0]  # the series goes on
    _win(back, 1)
    assert host.series_over()
    again = _both_back(_back(tmp_path), room.tokens)
    # the series was over: the room goes on with a new one, of the same ruleset
    assert again.a.last("room")["sc"] == [0, 0] and again.host.match_no == 3
    assert again.a.last("room")["rs"] == "quick"
    _ready(again)
    assert again.host.score[1:] == [0, 0] and again.host.match.phase == rules.ACTIVE
    assert (tmp_path / "match-3.log").read_bytes()[15] == 0


def test_the_room_file_is_written_at_changes_never_per_move(tmp_path, monkeypatch):
    renames = []
    real = os.rename

    def rename(a, b):
        renames.append(b)
        real(a, b)

    monkeypatch.setattr(journal_module.os, "rename", rename)
    room = Room(tmp_path).seat()
    assert len(renames) == 2  # each seat taken
    room.start()
    assert len(renames) == 3  # the start
    for _ in range(40):
        room.step()
    obs = FakeSession()
    send(room.host, obs, '{"t":"join","role":"watch"}')
    room.host.detach(obs)
    assert len(renames) == 3  # none for moves, nor for comings and goings in the match
    room.finish()
    assert len(renames) >= 4 and all(r.endswith("/room") for r in renames)


def test_a_match_under_way_resumes_from_its_log_not_the_room_file(tmp_path):
    room = Room(tmp_path).seat().start()
    for _ in range(20):
        room.step()
    digest = room.host.match.digest()
    back = _back(tmp_path)
    host = back.host
    # the room file says "match 2 next" (written when match 1 started): the log wins
    assert back.resumed == 1 and host.match_no == 1 and host.paused
    assert host.match.digest() == digest and host.chooser == 1
    a = _rejoin(host, room.tokens[1])
    assert a.last("welcome")["restarted"] is True and a.last("welcome")["mn"] == 1


def test_a_room_file_older_than_the_last_match_numbers_after_it(tmp_path, monkeypatch):
    room = Room(tmp_path).seat()
    stale = (tmp_path / "room").read_bytes()  # match 1 waits
    room.start()
    _win(room, 2)
    (tmp_path / "room").write_bytes(stale)  # as if the writes at its start and end had failed
    back = _back(tmp_path)
    assert back.host.match_no == 2 and back.host.seats[2].hashed  # after match 1's log


def test_damaged_missing_or_folder_room_files(tmp_path):
    # missing: a fresh room, nothing said
    empty = tmp_path / "empty"
    empty.mkdir()
    back = _back(empty)
    assert back.host.seats[1].token is None and not [x for x in back.lines if "room" in x]
    # damaged (one flipped bit, a cut, garbage): set aside as room.bad, a fresh room, a line
    for n, damage in enumerate(
        (
            lambda d: d[:100] + bytes([d[100] ^ 4]) + d[101:],
            lambda d: d[:150],
            lambda d: b"\xa5" * 208,
            lambda d: d + b"x",
        )
    ):
        folder = tmp_path / ("d%d" % n)
        folder.mkdir()
        room = Room(folder).seat()
        bad = damage((folder / "room").read_bytes())
        (folder / "room").write_bytes(bad)
        back = _back(folder)
        assert back.host.seats[1].token is None and back.host.match_no == 1
        assert (folder / "room.bad").read_bytes() == bad
        assert any("room file not used" in line for line in back.lines), back.lines
        # the board serves, and keeps the room again
        back.seat()
        assert (folder / "room").exists()
        stranger = _rejoin(back.host, room.tokens[1])
        assert stranger.last("err") == {"t": "err", "code": "BAD_TOKEN"}
    # a folder in its place: set aside, and the room is kept again
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "room").mkdir()
    (folder / "room" / "x").write_bytes(b"x")
    back = _back(folder).seat()
    assert (folder / "room.bad").is_dir() and (folder / "room").is_file()
    # an unfinished write (room.new) is removed; the file it was to replace is used
    folder = tmp_path / "new"
    folder.mkdir()
    room = Room(folder).seat()
    (folder / "room.new").write_bytes(b"\x00" * 50)
    back = _back(folder)
    assert back.host.seats[2].hashed and not (folder / "room.new").exists()


def test_a_full_flash_while_writing_the_room_file_never_stops_play(tmp_path, monkeypatch):
    real = open

    def full(name, mode="r"):
        if name.endswith("room.new"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(name, mode)

    monkeypatch.setattr(journal_module, "open", full, raising=False)
    room = _back(tmp_path).seat().start()
    lines = room.lines
    acks = []
    for _ in range(20):
        room.step(lambda seat, c: acks.append(c))
    assert acks and room.host.journal.failed is None
    room.finish()
    assert check((tmp_path / "match-1.log").read_bytes())["ok"]
    said = [line for line in lines if line.startswith("log: room not kept")]
    assert said and "28" in said[0] and not (tmp_path / "room").exists()
    # a folder in the place of room.new: the same
    monkeypatch.setattr(journal_module, "open", real, raising=False)
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "room.new").mkdir()
    (folder / "room.new" / "x").write_bytes(b"x")
    room = _back(folder).seat().start()
    assert room.host.match.phase == rules.ACTIVE and not (folder / "room").exists()
    assert [line for line in room.lines if line.startswith("log: room not kept")]


def test_a_log_header_caps_a_long_running_score():
    # single matches make no series: the score runs on while both seats stay held; a header
    # keeps 4 bits of it (the room file keeps it whole)
    buf = Header(series=(0, 0, 16, 3)).write(bytearray(208))
    assert buf[15] == 0xF3


def test_a_score_over_15_survives_a_restart(tmp_path):
    room = Room(tmp_path).seat()
    room.host.score[1] = 17  # (as after 17 wins in a row)
    room.host.score[2] = 2
    send(room.host, room.a, '{"t":"rules","c":1,"id":"classic"}')
    room.host._room()
    back = _back(tmp_path)
    assert _both_back(back, room.tokens).a.last("room")["sc"] == [17, 2]
