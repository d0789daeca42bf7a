# View records (seed 000 "Projection boundary"; docs/protocol.md "View records"): every record of
# every view of driven matches is valid JSON of at most 512 bytes in the versioned envelope, and
# the records reassemble into exactly the projection of the reference model. Both interpreters.
import json

from driver import new_match, play
from game import rules
from game.engine import Match
from game.projector import MAX_CHUNKS, OBSERVER, PROTOCOL_VERSION, RECORD_MAX, Projector
from harness import raises
from projector_model import check_view, records

ENVELOPE = ("v", "t", "s", "r", "ph", "w", "h", "m", "i", "n")
PRESET_NAMES = ("small", "classic", "large", "huge")


def _parse(rec):
    return json.loads(rec.decode("utf-8"))


def _check_envelopes(recs, m, role):
    count = len(recs)
    for i in range(count):
        rec = recs[i]
        assert len(rec) <= RECORD_MAX
        # The envelope leads every record, in a fixed order.
        head = (
            b'{"v":%d,"t":"view","s":%d,"r":"%s","ph":"%s","w":%d,"h":%d,"m":%d,"i":%d,"n":%d'
            % (
                PROTOCOL_VERSION,
                m.state_seq,
                (b"obs", b"p1", b"p2")[role],
                rules.PHASE_NAMES[m.phase].encode(),
                m.width,
                m.height,
                m.meeting_seq,
                i,
                count,
            )
        )
        assert rec.startswith(head), (rec, head)
        doc = _parse(rec)
        assert ("st" in doc) == (i == 0)
        for key in doc:
            assert key in ENVELOPE or key in ("st", "o", "c"), key


def test_driven_matches_every_record_bounded_and_reassembles():
    proj = Projector()
    views = [0]

    def on_step(m, kind, seat, arg, t, code):
        for role in (1, 2, OBSERVER):
            check_view(proj, m, role)
            views[0] += 1

    for seed in range(8):
        m = new_match(seed, PRESET_NAMES[seed % 4], countdown_ms=0)
        play(m, seed, 60, on_step)
    assert views[0] > 8 * 40 * 3


def test_envelope_in_every_record_with_right_count():
    proj = Projector()
    for seed in range(4):
        m = new_match(seed, PRESET_NAMES[seed % 4], countdown_ms=0)

        def on_step(m, kind, seat, arg, t, code):
            for role in (1, 2, OBSERVER):
                _check_envelopes(records(proj, m, role), m, role)

        play(m, seed, 40, on_step)


def test_waiting_and_countdown_views():
    proj = Projector()
    m = Match(5, 15, 15, countdown_ms=3000)
    for role in (1, 2, OBSERVER):
        assert check_view(proj, m, role)["ph"] == "waiting"
    m.start(0)
    for role in (1, 2, OBSERVER):
        assert check_view(proj, m, role)["ph"] == "countdown"


def test_every_size_and_extreme_numbers_stay_bounded():
    # Wide numbers everywhere the envelope and status have them.
    proj = Projector()
    for side in (5, 9, 15, 21, 32):
        m = Match(11, side, side, artifact_pairs=4 if side >= 9 else 0)
        m.state_seq = 123456789
        m.meeting_seq = 99999
        for seat in (1, 2):
            m.exit_time[seat] = rules.CLOCK_LIMIT_MS
            m.exited[seat] = 1
            m.exit_open[seat] = 1
            m.vision[seat] = 10
            m.compass[seat] = 7
            m.inventory[seat] = 3 - seat
        m.pos[1] = side * side - 1
        m.result = rules.RESULT_FORFEIT
        m.winner = 2
        m.phase = rules.FINISHED
        for role in (1, 2, OBSERVER):
            recs = records(proj, m, role)
            for rec in recs:
                assert len(rec) <= RECORD_MAX
            _check_envelopes(recs, m, role)
            check_view(proj, m, role)
            assert len(recs) <= MAX_CHUNKS


def test_player_radius_3_fits_one_record_and_observer_21_fits_few():
    proj = Projector()
    for seed in range(6):
        m = Match(seed, 21, 21, artifact_pairs=3)
        for seat in (1, 2):
            assert proj.begin(m, seat) == 1
            m.vision[seat] = 10
            assert proj.begin(m, seat) <= 2
        assert proj.begin(m, OBSERVER) <= 3
        m32 = Match(seed, 32, 32, artifact_pairs=4)
        assert proj.begin(m32, OBSERVER) <= 5


def test_records_describe_the_state_at_begin():
    # The gateway may process commands while a view is being sent: the records keep the
    # snapshot taken by begin().
    proj = Projector()
    for role in (1, 2, OBSERVER):
        m = new_match(3, "classic", countdown_ms=0)
        play(m, 3, 30)
        expected = records(proj, m, role)
        before = m.state_seq
        count = proj.begin(m, role)
        play(m, 30 + role, 25)
        assert m.state_seq != before
        assert [bytes(proj.record(i)) for i in range(count)] == expected


def test_an_observers_view_leaves_the_seats_records_where_they_are():
    # Every maze size: once a projector has made its observers' buffer (its first observer
    # view), an observer's view is written there alone, never in a seat's buffer, so a seat's
    # record stays as begin() wrote it until that seat's next view (a 9x9 observer view, smaller
    # than a record, was planned in seat 2's buffer every time and written twice).
    for name in PRESET_NAMES:
        proj = Projector()
        m = new_match(5, name, countdown_ms=0)
        play(m, 5, 20)
        proj.begin(m, OBSERVER)
        recs = []
        for seat in (1, 2):
            proj.begin(m, seat)
            recs.append(proj.record(0))
        seen = [bytes(rec) for rec in recs]
        for _ in range(3):
            count = proj.begin(m, OBSERVER)
            assert _parse(bytes(proj.record(0)))["r"] == "obs" and count >= 1
            assert [bytes(rec) for rec in recs] == seen, name


def test_api_contract():
    assert OBSERVER == 0
    proj = Projector()
    assert len(proj.buf) == RECORD_MAX
    m = Match(2)
    count = proj.begin(m, 1)
    assert count >= 1
    rec = proj.record(0)
    assert isinstance(rec, memoryview)
    assert len(rec) == proj.length == proj.write(0)
    assert bytes(rec) == bytes(proj.buf[: len(rec)])
    raises(IndexError, proj.record, count)
    raises(IndexError, proj.record, -1)
    raises(ValueError, proj.begin, m, 3)
    assert proj.visible(m, 1, m.pos[1])
    assert proj.opponent_visible(m, 1) in (True, False)


def test_views_are_deterministic():
    # The same state projected twice (and by two projectors) gives the same bytes.
    a = Projector()
    b = Projector()
    m = new_match(9, "large", countdown_ms=0)
    play(m, 9, 80)
    for role in (1, 2, OBSERVER):
        first = records(a, m, role)
        records(b, m, 3 - role if role else 1)  # leave b in another view first
        assert records(b, m, role) == first
        assert records(a, m, role) == first


def test_records_in_any_order_and_again():
    # The gateway may write record 0 again after others (a resend, another client).
    proj = Projector()
    for side in (15, 32):
        m = new_match(side, "classic" if side == 15 else "huge", countdown_ms=0)
        play(m, side, 50)
        m.vision[1] = 10
        for role in (1, OBSERVER):
            expected = records(proj, m, role)
            count = len(expected)
            for i in (count - 1, 0, 0, count // 2, 0, count - 1):
                assert bytes(proj.record(i)) == expected[i]
            assert count > 1 or role == 1
