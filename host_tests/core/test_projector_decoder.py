# tools/view_decoder.py, the client-side rules for view records: reassemble in order, reject a
# wrong version, a gap, a chunk count mismatch, mixed views, oversize or malformed records.
# Both interpreters.
from game.engine import Match
from game.projector import OBSERVER, Projector
from harness import raises
from projector_model import records
from view_decoder import ViewDecoder, ViewError, decode


def _observer_records(side=32):
    m = Match(6, side, side, artifact_pairs=4)
    recs = records(Projector(), m, OBSERVER)
    assert len(recs) >= 3
    return m, recs


def _player_record():
    recs = records(Projector(), Match(6, 15, 15), 1)
    assert len(recs) == 1
    return recs[0]


def _reason(fn, *args):
    return raises(ViewError, fn, *args).reason


def test_feed_returns_the_view_after_the_last_record():
    m, recs = _observer_records()
    dec = ViewDecoder()
    for rec in recs[:-1]:
        assert dec.feed(rec) is None
    view = dec.feed(recs[-1])
    assert view["n"] == len(recs)
    assert len(view["cells"]) == 32 * 32
    assert view["cells"][0] == m.cells[0]
    # Accepts str, bytearray and memoryview too.
    assert decode([bytearray(r) for r in recs]) == view
    assert decode([r.decode("utf-8") for r in recs]) == view
    assert decode([memoryview(r) for r in recs]) == view


def test_wrong_version_rejected():
    _, recs = _observer_records()
    bad = recs[0].replace(b'{"v":1,', b'{"v":2,', 1)
    assert _reason(decode, [bad] + recs[1:]) == "version"
    later = recs[1].replace(b'{"v":1,', b'{"v":0,', 1)
    assert _reason(decode, [recs[0], later] + recs[2:]) == "version"
    # Observer records are packed to the byte; a player's short record has room to grow.
    short = _player_record()
    assert _reason(decode, [short.replace(b'{"v":1,', b'{"v":true,', 1)]) == "version"


def test_gap_rejected():
    _, recs = _observer_records()
    assert _reason(decode, [recs[0], recs[2]]) == "gap"
    assert _reason(decode, recs[1:]) == "gap"
    assert _reason(decode, [recs[0], recs[1], recs[1]]) == "gap"
    # A repeated chunk 0 starts the view over (not a gap), so this is one view, incomplete.
    assert _reason(decode, [recs[0], recs[0]]) == "count"


def test_a_chunk_0_abandons_a_half_sent_view_for_the_newer_one():
    # What the gateway does when the state moves on while a view is being sent.
    m, old = _observer_records()
    m.state_seq += 1
    new = records(Projector(), m, OBSERVER)
    assert len(old) > 1
    view = decode([old[0], new[0]] + new[1:])
    assert view["s"] == m.state_seq and view["n"] == len(new)


def test_count_mismatch_rejected():
    _, recs = _observer_records()
    n = len(recs)
    old = b'"n":%d' % n
    assert _reason(decode, [recs[0], recs[1].replace(old, b'"n":%d' % (n + 1), 1)]) == "count"
    # One record short, or one too many.
    assert _reason(decode, recs[:-1]) == "count"
    assert _reason(decode, recs + [recs[0]]) == "count"
    # An index beyond the count.
    bad = recs[0].replace(b'"i":0,"n":%d' % n, b'"i":0,"n":0', 1)
    assert _reason(decode, [bad]) == "count"


def test_records_of_two_views_do_not_mix():
    m, recs = _observer_records()
    m.state_seq += 1
    other = records(Projector(), m, OBSERVER)
    assert _reason(decode, [recs[0], other[1]]) == "mismatch"


def test_bad_records_rejected():
    _, recs = _observer_records()
    assert _reason(decode, [b"x" * 513]) == "size"
    assert _reason(decode, [b'{"v":1,'] + recs[1:]) == "json"
    assert _reason(decode, [b"[1,2]"]) == "json"
    assert _reason(decode, [recs[0].replace(b'"t":"view"', b'"t":"vue"', 1)]) == "type"
    assert _reason(decode, [recs[0].replace(b',"st":', b',"zz":', 1)]) == "status"
    short = _player_record()
    assert decode([short])["r"] == "p1"
    assert _reason(decode, [short.replace(b',"m":', b',"mm":', 1)]) == "envelope"
    assert _reason(decode, [short.replace(b'"i":0', b'"i":-1', 1)]) == "envelope"
    assert _reason(decode, [recs[0], recs[0].replace(b'"i":0', b'"i":1', 1)]) == "status"
    # A cell sent twice, a bad hex digit, a run beyond the maze.
    start = short.find(b'"c":[') + 5
    end = short.find(b"]", start) + 1
    assert _reason(decode, [short[:start] + short[start:end] + b"," + short[start:]]) == "cells"
    digit = short.find(b'"', start) + 1
    assert _reason(decode, [short[:digit] + b"G" + short[digit + 1 :]]) == "cells"
    assert _reason(decode, [short[:start] + b'[225,"0"],' + short[start:]]) == "cells"


def test_decoder_recovers_at_the_next_view():
    _, recs = _observer_records()
    dec = ViewDecoder()
    dec.feed(recs[0])
    raises(ViewError, dec.feed, recs[2])
    # After an error it waits for a chunk 0 and then assembles normally.
    raises(ViewError, dec.feed, recs[1])
    view = None
    for rec in recs:
        view = dec.feed(rec)
    assert view is not None and view["n"] == len(recs)
