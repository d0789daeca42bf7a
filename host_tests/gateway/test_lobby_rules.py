# The lobby's choice of ruleset and series play in net.match_host (CPython, no sockets): who may
# choose and when, the coded refusals, the summary everyone sees live, settings.json fixing the
# ruleset, and the score of a best-of-N series carried across rematches.
import json

from test_match_host import Clock, FakeSession, send

from game import rulesets
from net import messages
from net.frames import framed
from net.match_host import MatchHost
from net.settings import Settings
from net.views import ViewPublisher

SECRET = ("seed", "start", "token", "ready_at")


def host_with(**changes):
    settings = Settings()
    settings.countdown_ms = 0
    for name, value in changes.items():
        setattr(settings, name, value)
    clock = Clock(5)
    return MatchHost(
        settings, ViewPublisher(), log=lambda *a: None, ticks_ms=clock.ticks_ms
    ), clock


def join(host, name, role="play"):
    s = FakeSession()
    send(host, s, json.dumps({"t": "join", "role": role, "name": name}))
    return s


def choose(host, session, rid, c=1):
    """The answer to a rules intent (the first frame it gets)."""
    n = len(session.frames)
    send(host, session, json.dumps({"t": "rules", "c": c, "id": rid}))
    return session.frames[n]


def test_the_first_seated_player_chooses_and_everyone_sees_the_summary_live():
    host, _ = host_with()
    ann = join(host, "ann")
    rules_msg = ann.last("rules")
    assert rules_msg["by"] == 1 and rules_msg["fixed"] is False
    assert rules_msg["rs"]["id"] == "classic" and rules_msg["ids"] == ["classic", "quick", "sight"]
    bob = join(host, "bob")
    tv = join(host, None, "watch")
    assert tv.last("rules")["rs"]["id"] == "classic"
    before = host.match
    assert choose(host, ann, "sight") == {"t": "ack", "c": 1}
    for s in (ann, bob, tv):
        summary = s.last("rules")["rs"]
        assert summary["id"] == "sight" and summary["vis"] == "sight" and summary["w"] == 15
        assert summary["bo"] == 3 and summary["rad"] == 4
        assert s.last("room")["rs"] == "sight" and s.last("room")["sc"] == [0, 0]
        text = json.dumps(s.last("rules"))
        assert not any(word in text for word in SECRET)
    # the match is rebuilt at once: the waiting view shows the new maze
    assert host.match is not before and host.views.match is host.match
    assert host.match.rules == (4, 4, 10, 200, 1, 1)
    assert choose(host, ann, "quick", 2)["t"] == "ack"
    assert host.match.width == 9 and host.views.match is host.match


def test_refusals_are_coded_and_change_nothing():
    host, _ = host_with()
    ann = join(host, "ann")
    bob = join(host, "bob")
    tv = join(host, None, "watch")
    assert choose(host, bob, "quick")["code"] == "NOT_CHOOSER"
    assert choose(host, tv, "quick")["code"] == "NOT_PLAYER"
    assert choose(host, ann, "nope")["code"] == "UNKNOWN_RULESET"
    assert send(host, ann, '{"t":"rules","c":2,"id":7}')["code"] == "BAD_VALUE"
    assert host.ruleset[0] == "classic"
    # after the start: PHASE
    send(host, ann, '{"t":"ready","c":3}')
    send(host, bob, '{"t":"ready","c":1}')
    assert host.match.phase != 0
    assert choose(host, ann, "quick", 4)["code"] == "PHASE"
    assert host.ruleset[0] == "classic" and host.match.width == 15


def test_a_choice_asks_both_players_to_confirm_again():
    host, _ = host_with()
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, bob, '{"t":"ready","c":1}')
    assert choose(host, ann, "quick")["t"] == "ack"
    assert not host.seats[2].want and host.match.phase == 0
    assert bob.last("room")["p"][1]["ready"] is False


def test_the_choice_passes_to_the_other_seat_when_the_chooser_leaves():
    host, _ = host_with()
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"leave","c":1}')
    host.detach(ann)
    host.tick()
    assert bob.last("rules")["by"] == 2
    assert choose(host, bob, "quick")["t"] == "ack"


class RawSession(FakeSession):
    """A FakeSession that also keeps every frame object posted to it."""

    def __init__(self):
        super().__init__()
        self.raw = []

    def post(self, data):
        super().post(data)
        self.raw.append(data)

    def rules_frames(self):
        return [d for d in self.raw if b'"t":"rules"' in _bytes(d)]


def _bytes(data):
    if type(data) is list:  # a frame in pieces (net.frames.pieces)
        return b"".join(bytes(piece) for piece in data)
    return bytes(data)


def raw_join(host, name, role="play"):
    s = RawSession()
    send(host, s, json.dumps({"t": "join", "role": role, "name": name}))
    return s


def test_the_rules_frame_is_made_once_and_again_only_when_it_changes():
    # every join posts the same bytes (docs/memory.md, "Fragmentation on the join path"); a
    # new ruleset or chooser makes new ones, and a frame already posted keeps what it said
    host, _ = host_with()
    ann = raw_join(host, "ann")
    bob = raw_join(host, "bob")
    tv = raw_join(host, None, "watch")
    tv2 = raw_join(host, None, "watch")
    first = ann.rules_frames()[-1]
    assert all(s.rules_frames()[-1] is first for s in (bob, tv, tv2))
    assert _bytes(first) == _bytes(framed(host._rules_text()))
    said = _bytes(first)
    assert choose(host, ann, "sight")["t"] == "ack"
    second = tv.rules_frames()[-1]
    assert second is not first and _bytes(first) == said  # the old frame is not rewritten
    assert all(s.rules_frames()[-1] is second for s in (ann, bob, tv2))
    assert _bytes(second) == _bytes(framed(host._rules_text()))
    assert tv.last("rules")["rs"]["id"] == "sight" and tv.last("rules")["by"] == 1
    assert raw_join(host, None, "watch").rules_frames()[-1] is second
    # the chooser leaves: the choice passes to seat 2, in a new frame
    send(host, ann, '{"t":"leave","c":2}')
    host.detach(ann)
    host.tick()
    third = bob.rules_frames()[-1]
    assert third is not second and bob.last("rules")["by"] == 2
    assert bob.last("rules")["rs"]["id"] == "sight"
    assert tv.rules_frames()[-1] is third
    # a match drops it (its room is the match's); a join during the match makes it again
    cid = raw_join(host, "cid")
    send(host, cid, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":3}')
    assert host.match.phase != 0 and host._rules_data is None
    late = raw_join(host, None, "watch")
    assert _bytes(late.rules_frames()[-1]) == _bytes(framed(host._rules_text()))
    assert late.last("rules")["rs"]["id"] == "sight" and late.last("rules")["by"] == 2


def test_settings_can_fix_the_ruleset_and_the_lobby_shows_it_fixed():
    host, _ = host_with(ruleset="quick")
    ann = join(host, "ann")
    msg = ann.last("rules")
    assert msg["fixed"] is True and msg["by"] == 0 and msg["rs"]["id"] == "quick"
    assert msg["ids"] == []
    assert choose(host, ann, "sight")["code"] == "RULES_FIXED"
    assert host.match.width == 9 and host.grace_ms == 15000


def test_settings_numbers_replace_every_rulesets_own():
    host, _ = host_with(ruleset="sight", preset="small", cooldown_ms=120)
    summary = join(host, "ann").last("rules")["rs"]
    assert (summary["w"], summary["cool"], summary["cd"]) == (9, 120, 0)
    assert host.match.cooldown_ms == 120 and host.match.rules[5] == 1


def _finish(host, winner):
    m = host.match
    m.forfeit(3 - winner, m.now)
    host._after(-1)


def test_a_series_carries_its_score_across_rematches_until_it_is_won():
    host, clock = host_with(ruleset="quick")  # best of 3
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":1}')
    _finish(host, 1)
    assert ann.last("room")["sc"] == [1, 0] and not host.series_over()
    send(host, ann, '{"t":"rematch","c":2}')
    send(host, bob, '{"t":"rematch","c":2}')
    assert host.match_no == 2 and host.score[1] == 1  # carried
    _finish(host, 2)
    assert bob.last("room")["sc"] == [1, 1]
    send(host, ann, '{"t":"rematch","c":3}')
    send(host, bob, '{"t":"rematch","c":3}')
    _finish(host, 1)
    assert ann.last("room")["sc"] == [2, 1] and host.series_over()
    # the next rematch starts a new series
    send(host, ann, '{"t":"rematch","c":4}')
    send(host, bob, '{"t":"rematch","c":4}')
    assert host.score == [0, 0, 0] and host.match_no == 4


def test_a_new_player_in_a_seat_starts_a_new_series():
    host, _ = host_with(ruleset="quick")
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":1}')
    _finish(host, 1)
    assert host.score[1:] == [1, 0]
    send(host, bob, '{"t":"leave","c":2}')
    host.detach(bob)
    host.tick()
    assert host.score[1:] == [0, 0]  # a seat given up ends the series
    host.score[1] = 1  # (as if it had not: a new player in the seat starts a new one anyway)
    cy = join(host, "cy")
    assert host.score[1:] == [0, 0] and cy.last("room")["sc"] == [0, 0]


def test_after_a_series_the_chooser_may_choose_again_for_the_next():
    host, _ = host_with()
    ann = join(host, "ann")
    bob = join(host, "bob")
    send(host, ann, '{"t":"ready","c":1}')
    send(host, bob, '{"t":"ready","c":1}')
    _finish(host, 2)  # classic: best of 1, over
    assert choose(host, ann, "quick", 2)["t"] == "ack"
    assert host.match.width == 15 and host.match.phase == 3  # the result stays on screen
    send(host, ann, '{"t":"rematch","c":3}')
    send(host, bob, '{"t":"rematch","c":2}')
    assert host.match.width == 9 and host.views.match is host.match


def test_every_rules_line_fits_a_message_in_pieces():
    # the ~380-byte message is made of pieces of under ~130 bytes (no allocation of its size
    # at a join: the first join's failed allocation at 88K, docs/memory.md)
    for entry in rulesets.RULESETS:
        for fixed in (False, True):
            pieces = messages.rules_line(entry, (32, 32, 2000, 10000, 300000, fixed, 2))
            assert type(pieces) is tuple
            text = "".join(p for p in pieces if p)
            assert len(text.encode()) <= 512
            assert max(len(p.encode()) for p in pieces if p) <= 130
            assert json.loads(text)["fixed"] is fixed


def test_the_welcomes_are_made_in_pieces():
    # no text of a welcome's size at a join (the second join's failed allocation at 88K,
    # docs/memory.md): pieces of under ~110 bytes, the same JSON joined
    host, _ = host_with()
    seat = host.seats[1]
    seat.take("a" * 16)
    for pieces in (
        messages.welcome_player(host, seat, False),
        messages.welcome_player(host, seat, True),
        messages.welcome_observer(host, True),
    ):
        assert type(pieces) is tuple
        assert max(len(p.encode()) for p in pieces) <= 110
        said = json.loads("".join(pieces))
        assert said["t"] == "welcome" and said["mn"] == host.match_no


def test_under_line_of_sight_an_event_reaches_the_opponent_only_in_sight():
    from test_match_host import route_one_event

    from game import rules
    from projector_model import sees

    host, _ = host_with(ruleset="sight")
    p1 = join(host, "ann")
    p2 = join(host, "bob")
    m = host.match
    w = m.width
    heard = {True: 0, False: 0}
    for there in range(w * m.height):
        if max(abs(there % w - m.pos[1] % w), abs(there // w - m.pos[1] // w)) > 4:
            continue  # outside the square: the square's test decides, as in classic
        m.pos[2] = there
        route_one_event(host, (p1, p2), rules.EV_KEY_PICKED, 1, 1)
        seen = sees(m, 2, m.pos[1])
        assert bool(p2.events()) == seen, there
        heard[seen] += 1
    assert heard[True] and heard[False]  # both cases happened
