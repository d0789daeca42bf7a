# The captive DNS responder of the REAL firmware, running under the MicroPython unix port
# (host_board fixture, conftest.py), queried over UDP with dnspython and with raw garbage.
import json
import random
import socket

import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

from host_board import a_query

pytestmark = pytest.mark.upy

BOARD_ADDRESS = "127.0.0.1"  # what the host stand-in for `network` reports as the AP address


def ask(board, name, rdtype="A", **make_query_options):
    query = dns.message.make_query(name, rdtype, **make_query_options)
    return query, dns.query.udp(query, "127.0.0.1", port=board.dns_port, timeout=2)


def a_records(response):
    return [
        (rrset.ttl, rdata.address)
        for rrset in response.answer
        if rrset.rdtype == dns.rdatatype.A
        for rdata in rrset
    ]


@pytest.mark.parametrize(
    "name",
    [
        "example.com",
        "captive.apple.com",
        "connectivitycheck.gstatic.com",
        "www.msftconnecttest.com",
        "maze.duel",
        "ExAmPlE.CoM",
        "x",
    ],
)
def test_every_a_query_gets_the_board(host_board, name):
    query, response = ask(host_board, name)
    assert response.rcode() == dns.rcode.NOERROR
    assert response.flags & dns.flags.QR and response.flags & dns.flags.RA
    assert response.flags & dns.flags.RD  # copied from the query
    assert not response.flags & dns.flags.AA
    assert response.question == query.question
    assert a_records(response) == [(60, BOARD_ADDRESS)]


def test_rd_clear_is_copied(host_board):
    query = dns.message.make_query("example.com", "A")
    query.flags &= ~dns.flags.RD
    response = dns.query.udp(query, "127.0.0.1", port=host_board.dns_port, timeout=2)
    assert not response.flags & dns.flags.RD
    assert a_records(response) == [(60, BOARD_ADDRESS)]


@pytest.mark.parametrize("rdtype", ["AAAA", "MX", "TXT", "HTTPS", "ANY"])
def test_other_types_get_noerror_and_no_answer(host_board, rdtype):
    _, response = ask(host_board, "example.com", rdtype)
    assert response.rcode() == dns.rcode.NOERROR
    assert response.answer == []


def test_a_name_with_many_labels(host_board):
    name = dns.name.from_text("a." * 90 + "b" * 63 + ".example")  # 92 labels, 245 bytes
    _, response = ask(host_board, name)
    assert a_records(response) == [(60, BOARD_ADDRESS)]


def test_edns_query_is_answered(host_board):
    _, response = ask(host_board, "example.com", use_edns=0, payload=1232)
    assert a_records(response) == [(60, BOARD_ADDRESS)]


def garbage_packets():
    rng = random.Random(20251129)
    good = a_query()
    packets = [
        b"",
        b"\x00",
        good[:12],
        good[:20],
        good[:-2],
        bytes([good[0], good[1], 0x81, 0x80]) + good[4:],  # a response (QR=1)
        a_query(name=b"\xc0\x0c"),  # compression loop: the name points at itself
        a_query(name=b"\x03abc\xc0\x0f"),  # a pointer into the middle of a label
        good[:4] + b"\x00\x02" + good[6:],  # QDCOUNT 2
        good[:4] + b"\x00\x00" + good[6:],  # QDCOUNT 0
        a_query(name=b"\x40" + b"x" * 64 + b"\x00"),  # label too long
        a_query(name=(b"\x3f" + b"x" * 63) * 5 + b"\x00"),  # name too long
        bytes(rng.getrandbits(8) for _ in range(1400)),
    ]
    for _ in range(40):
        packets.append(bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 120))))
    return packets


# Sources of their own for the garbage (every 127.x address is loopback), each sent fewer
# packets than the per-source burst (40): none is dropped by the rate limit, every one reaches
# the parser. (The limit's pace, its refill over time, is tested with an injected clock in
# test_limits.py.)
GARBAGE_SOURCES = ("127.0.1.1", "127.0.1.2")
PER_SOURCE = 30


def test_garbage_gets_no_reply_and_breaks_nothing(host_board):
    before = host_board.get("/status")
    packets = garbage_packets()
    assert len(packets) < PER_SOURCE * len(GARBAGE_SOURCES)
    target = ("127.0.0.1", host_board.dns_port)
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in GARBAGE_SOURCES]
    try:
        for s, source in zip(socks, GARBAGE_SOURCES):
            s.bind((source, 0))
            s.settimeout(30)  # bounds a hang of the board, not a pace it must keep
        for i, packet in enumerate(packets):
            socks[i // PER_SOURCE].sendto(packet, target)
        last = socks[-1]
        last.sendto(a_query(qid=0x4242), target)
        # the board answers in arrival order: the first reply to the last source must be the
        # good query's, and by then (loopback delivers at once) a reply to any garbage of the
        # other sources would be waiting on its socket
        reply = last.recv(4096)
        for s in socks[:-1]:
            s.setblocking(False)
            with pytest.raises(BlockingIOError):
                s.recv(4096)
    finally:
        for s in socks:
            s.close()
    assert reply[:2] == b"\x42\x42"
    assert reply[-4:] == socket.inet_aton(BOARD_ADDRESS)
    assert host_board.alive()
    _, response = ask(host_board, "after.garbage.example")
    assert a_records(response) == [(60, BOARD_ADDRESS)]
    after = host_board.get("/status")
    ignored = json.loads(after[2])["dns_ignored"] - json.loads(before[2])["dns_ignored"]
    # every packet but the two random ones that might parse as queries by chance
    assert ignored >= len(packets) - 2


def _answered_before(s, port, source):
    """The query ids answered to socket s by the time the board answers a query it is sent
    next from `source` (another address: a source of its own, under its own limit). The board
    reads its one socket in arrival order and loopback delivers at once, so when that reply is
    in, every reply to s's earlier queries is already waiting on s: read without blocking."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as marker:
        marker.bind((source, 0))
        # sent again while unanswered: the board's full receive queue (a flood) may have
        # dropped it; 15 tries of 2 s bound a hang, they are not a pace the board must keep
        marker.settimeout(2)
        for _ in range(15):
            marker.sendto(a_query(qid=0x7777), ("127.0.0.1", port))
            try:
                assert marker.recv(4096)[:2] == b"\x77\x77"
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("the board never answered the marker query")
    answered = set()
    s.setblocking(False)
    while True:
        try:
            reply = s.recv(4096)
        except BlockingIOError:
            return answered
        answered.add(reply[0] << 8 | reply[1])


def test_a_burst_within_the_source_limit_is_all_answered(host_board):
    count = 40  # the per-source burst
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.3", 0))  # a source of its own (every 127.x address is loopback)
        for qid in range(count):
            s.sendto(a_query(qid=qid), ("127.0.0.1", host_board.dns_port))
        assert _answered_before(s, host_board.dns_port, "127.0.0.6") == set(range(count))
    assert host_board.alive()


def test_a_flooding_source_is_dropped_and_others_still_answered(host_board):
    before = json.loads(host_board.get("/status")[2])["dns_ignored"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as flood:
        flood.bind(("127.0.0.4", 0))
        for qid in range(300):
            flood.sendto(a_query(qid=qid), ("127.0.0.1", host_board.dns_port))
        # a calm source is answered after the whole flood (arrival order), and by then every
        # reply the flood got is waiting on its socket
        flooded = _answered_before(flood, host_board.dns_port, "127.0.0.5")
    # the burst, and what the bucket refilled (20 a second) while the board read the flood:
    # never the whole flood (the refill's pace is tested with an injected clock: test_limits)
    assert 40 <= len(flooded) < 300, len(flooded)
    assert set(range(40)) <= flooded  # the burst came first, whole
    ignored = json.loads(host_board.get("/status")[2])["dns_ignored"] - before
    # counted as ignored: the rest of the flood (what the kernel's queue held of it), never
    # answered as well
    assert 0 < ignored <= 300 - len(flooded), (ignored, len(flooded))
    assert host_board.alive()
