# The captive DNS responder of the REAL firmware, running under the MicroPython unix port
# (host_board fixture, conftest.py), queried over UDP with dnspython and with raw garbage.
import json
import random
import socket
import time

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


def _paced(s, packets, port):
    # within the per-source limit (a burst of 40, then 20 a second)
    for i, packet in enumerate(packets):
        if i >= 30:
            time.sleep(0.06)
        s.sendto(packet, ("127.0.0.1", port))


def test_garbage_gets_no_reply_and_breaks_nothing(host_board):
    before = host_board.get("/status")
    packets = garbage_packets()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(3)
        _paced(s, packets, host_board.dns_port)
        s.sendto(a_query(qid=0x4242), ("127.0.0.1", host_board.dns_port))
        # replies go out in arrival order: the first one must be the good query's
        reply = s.recv(4096)
    assert reply[:2] == b"\x42\x42"
    assert reply[-4:] == socket.inet_aton(BOARD_ADDRESS)
    assert host_board.alive()
    _, response = ask(host_board, "after.garbage.example")
    assert a_records(response) == [(60, BOARD_ADDRESS)]
    after = host_board.get("/status")
    ignored = json.loads(after[2])["dns_ignored"] - json.loads(before[2])["dns_ignored"]
    # every packet but the two random ones that might parse as queries by chance
    assert ignored >= len(packets) - 2


def _answers(s, count):
    answered = set()
    deadline = time.monotonic() + 5
    s.settimeout(1)
    while len(answered) < count and time.monotonic() < deadline:
        try:
            reply = s.recv(4096)
        except TimeoutError:
            break
        answered.add(reply[0] << 8 | reply[1])
    return answered


def test_a_burst_within_the_source_limit_is_all_answered(host_board):
    count = 40  # the per-source burst
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.3", 0))  # a source of its own (every 127.x address is loopback)
        for qid in range(count):
            s.sendto(a_query(qid=qid), ("127.0.0.1", host_board.dns_port))
        assert _answers(s, count) == set(range(count))
    assert host_board.alive()


def test_a_flooding_source_is_dropped_and_others_still_answered(host_board):
    before = json.loads(host_board.get("/status")[2])["dns_ignored"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as flood:
        flood.bind(("127.0.0.4", 0))
        for qid in range(300):
            flood.sendto(a_query(qid=qid), ("127.0.0.1", host_board.dns_port))
        flooded = _answers(flood, 300)
    # the burst and what the bucket refilled while the flood was read, not the whole flood
    assert 40 <= len(flooded) < 150, len(flooded)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as calm:
        calm.bind(("127.0.0.5", 0))
        calm.sendto(a_query(qid=7), ("127.0.0.1", host_board.dns_port))
        assert _answers(calm, 1) == {7}
    ignored = json.loads(host_board.get("/status")[2])["dns_ignored"] - before
    # counted as ignored: the rest of the flood (what the kernel's queue held of it)
    assert ignored >= 100, ignored
    assert host_board.alive()
