# The per-source token buckets of the HTTP front door and the captive DNS (net/limits.py,
# SourceLimit), on CPython with explicit ticks: a burst, then the refill rate; sources apart
# from each other; at most `size` sources remembered, the least recently seen forgotten.
from net.limits import SourceLimit, source_of


def takes(limit, key, now, n):
    """How many of n takes at `now` succeed."""
    return sum(limit.take(key, now) for _ in range(n))


def test_a_burst_then_refused():
    limit = SourceLimit(5, 2, 4)
    assert takes(limit, "a", 0, 5) == 5
    assert not limit.take("a", 0)
    assert not limit.take("a", 10)  # 10 ms at 2 per second: 20 thousandths, not a token


def test_tokens_come_back_at_the_rate_and_no_more_than_the_burst():
    limit = SourceLimit(5, 2, 4)
    assert takes(limit, "a", 0, 6) == 5
    assert limit.take("a", 500)  # 500 ms at 2 per second: one token
    assert not limit.take("a", 500)
    assert takes(limit, "a", 60_000, 10) == 5  # a minute later: the burst, not 120


def test_sources_have_their_own_buckets():
    limit = SourceLimit(3, 1, 4)
    assert takes(limit, "a", 0, 5) == 3
    assert takes(limit, "b", 0, 5) == 3
    assert takes(limit, b"\x0a\x00\x00\x02", 0, 5) == 3  # the board's raw address bytes


def test_the_least_recently_seen_source_is_forgotten_for_a_new_one():
    limit = SourceLimit(2, 1, 2)
    assert takes(limit, "a", 0, 3) == 2  # a: empty
    assert takes(limit, "b", 1, 3) == 2  # b: empty
    assert not limit.take("a", 2)  # a is seen again (still empty): b is the older now
    assert limit.take("c", 3)  # a third source: b is forgotten, a is kept
    assert not limit.take("a", 4)
    assert limit.take("b", 5)  # forgotten, so a full bucket again
    assert len(limit.buckets) == 3 * 2  # never more than `size` sources


def test_refused_takes_do_not_drain_the_bucket_below_empty():
    limit = SourceLimit(1, 1, 2)
    assert limit.take("a", 0)
    assert takes(limit, "a", 0, 100) == 0
    assert limit.take("a", 1000)  # one second: one token, whatever was refused before


def test_the_clock_wrapping_is_a_short_elapsed_time():
    limit = SourceLimit(2, 1, 2)
    period = 1 << 30  # the board's ticks_ms wraps here
    assert takes(limit, "a", period - 100, 3) == 2
    assert not limit.take("a", 100)  # 200 ms later across the wrap: 0.2 tokens
    assert limit.take("a", 900)  # 1,000 ms later: one token


def test_source_of_an_address():
    assert source_of(("10.0.0.2", 5000)) == "10.0.0.2"
    assert source_of(b"\x02\x00\x13\x88\x0a\x00\x00\x02" + bytes(8)) == b"\x0a\x00\x00\x02"
