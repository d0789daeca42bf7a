# Captive DNS packet functions (parse_query, build_answer), pure and portable: collected by
# pytest, and run under the MicroPython unix port by test_portable_on_upy.py. Plain asserts only.
from net.captive_dns import (
    MAX_QUERY,
    MAX_REPLY,
    CaptiveDns,
    build_answer,
    ipv4_bytes,
    parse_query,
)

try:
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython
    heap_lock = heap_unlock = None

BOARD = b"\xc0\xa8\x04\x01"  # 192.168.4.1
EXAMPLE = b"\x07example\x03com\x00"


def query(name=EXAMPLE, qid=0xBEEF, flags=0x0100, qtype=1, qclass=1, counts=(1, 0, 0, 0)):
    head = bytearray((qid >> 8, qid & 255, flags >> 8, flags & 255))
    for count in counts:
        head.append(count >> 8)
        head.append(count & 255)
    return bytes(head) + name + bytes((qtype >> 8, qtype & 255, qclass >> 8, qclass & 255))


def answer_for(packet):
    parsed = parse_query(packet)
    assert parsed is not None
    out = bytearray(MAX_REPLY)
    length = build_answer(packet, parsed[2], parsed[0], parsed[1], BOARD, out)
    return bytes(out[:length])


def test_parse_plain_a_query():
    assert parse_query(query()) == (1, 1, 12 + len(EXAMPLE) + 4)


def test_parse_reads_type_and_class():
    assert parse_query(query(qtype=28)) == (28, 1, 29)
    assert parse_query(query(qtype=255, qclass=3)) == (255, 3, 29)


def test_a_answer_bytes():
    expected = (
        b"\xbe\xef\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00"
        + EXAMPLE
        + b"\x00\x01\x00\x01"
        + b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04"
        + BOARD
    )
    assert answer_for(query()) == expected


def test_rd_is_copied():
    assert answer_for(query(flags=0x0000))[2:4] == b"\x80\x80"
    assert answer_for(query(flags=0x0100))[2:4] == b"\x81\x80"
    # other request bits (AD, CD) are not echoed
    assert answer_for(query(flags=0x0130))[2:4] == b"\x81\x80"


def test_aaaa_gets_noerror_without_records():
    reply = answer_for(query(qtype=28))
    assert reply[2:4] == b"\x81\x80"  # NOERROR
    assert reply[4:12] == b"\x00\x01\x00\x00\x00\x00\x00\x00"  # 1 question, 0 records
    assert reply[12:] == EXAMPLE + b"\x00\x1c\x00\x01"


def test_other_types_and_classes_get_no_records():
    for qtype, qclass in ((15, 1), (16, 1), (65, 1), (255, 1), (1, 3), (1, 255)):
        reply = answer_for(query(qtype=qtype, qclass=qclass))
        assert reply[6:8] == b"\x00\x00", (qtype, qclass)


def test_edns_query_is_answered_without_opt():
    opt = b"\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x00"  # root, OPT, 1232-byte payload
    packet = query(counts=(1, 0, 0, 1)) + opt
    assert parse_query(packet) == (1, 1, 29)
    reply = answer_for(packet)
    assert reply[6:12] == b"\x00\x01\x00\x00\x00\x00"  # 1 answer, no additional record
    assert len(reply) == 29 + 16


def test_mixed_case_name_is_echoed_exactly():
    name = b"\x07ExAmPlE\x03CoM\x00"
    assert answer_for(query(name=name))[12 : 12 + len(name)] == name


def test_many_labels_and_longest_name():
    many = b"\x01a" * 120 + b"\x00"  # 120 labels, 241 bytes
    assert parse_query(query(name=many)) == (1, 1, 12 + 241 + 4)
    longest = (b"\x3f" + b"x" * 63) * 3 + b"\x3d" + b"y" * 61 + b"\x00"  # 255 bytes
    assert len(longest) == 255
    parsed = parse_query(query(name=longest))
    assert parsed == (1, 1, 12 + 255 + 4)
    assert len(answer_for(query(name=longest))) == MAX_REPLY


def test_root_name():
    assert parse_query(query(name=b"\x00")) == (1, 1, 17)


def test_malformed_packets_are_refused():
    good = query()
    bad = (
        b"",
        b"\x00",
        good[:12],  # header only
        good[:16],  # name cut
        good[:-1],  # class cut
        query(flags=0x8180),  # a response (QR=1)
        query(flags=0x1000),  # opcode STATUS
        query(flags=0x2800),  # opcode UPDATE
        query(counts=(0, 0, 0, 0)),
        query(counts=(2, 0, 0, 0)),
        query(counts=(256 + 1, 0, 0, 0)),
        query(name=b"\xc0\x0c"),  # pointer to itself: a compression loop
        query(name=b"\x03abc\xc0\x0c"),  # pointer after a label
        query(name=b"\x40" + b"x" * 64 + b"\x00"),  # label of 64
        query(name=b"\x80abc\x00"),  # reserved label type
        query(name=b"\x05ab\x00"),  # label runs past the name
        query(name=(b"\x3f" + b"x" * 63) * 4 + b"\x00"),  # 257 bytes
        b"\xff" * 12 + b"\x00" * 5,
    )
    for packet in bad:
        assert parse_query(packet) is None, packet


def test_only_the_first_n_bytes_count():
    good = query()
    buf = bytearray(MAX_QUERY)
    buf[: len(good)] = good
    assert parse_query(buf, len(good)) == (1, 1, 29)
    assert parse_query(buf, len(good) - 1) is None
    assert parse_query(buf, 0) is None


def _xorshift(state):
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def test_random_and_mutated_packets_never_raise():
    state = 0x2545F491
    out = bytearray(MAX_REPLY)
    good = query()
    for i in range(1500):
        state = _xorshift(state)
        if i % 2:
            packet = bytearray(good)
            for _ in range(1 + state % 4):  # a few bytes of a good query changed
                state = _xorshift(state)
                packet[state % len(packet)] = (state >> 8) & 255
        else:
            packet = bytearray(state % 80)
            for j in range(len(packet)):
                state = _xorshift(state)
                packet[j] = state & 255
            if len(packet) > 5 and i % 4 == 0:  # often enough, a plausible header
                packet[2] = packet[2] & 0x01
                packet[4] = 0
                packet[5] = 1
        parsed = parse_query(packet)
        if parsed is not None:
            qtype, qclass, end = parsed
            assert 17 <= end <= len(packet)
            length = build_answer(packet, end, qtype, qclass, BOARD, out)
            assert length <= MAX_REPLY


def test_build_answer_does_not_allocate():
    packet = query()
    parsed = parse_query(packet)
    out = bytearray(MAX_REPLY)
    if heap_lock is not None:
        heap_lock()
    try:
        length = build_answer(packet, parsed[2], parsed[0], parsed[1], BOARD, out)
    finally:
        if heap_unlock is not None:
            heap_unlock()
    assert length == 45


def test_responder_counts_and_replies():
    dns = CaptiveDns("10.0.0.7", 5353)
    out = bytearray(MAX_REPLY)
    packet = query()
    length = dns.handle(packet, len(packet), out)
    assert bytes(out[length - 4 : length]) == b"\x0a\x00\x00\x07"
    assert dns.handle(b"\x00\x01", 2, out) == 0
    assert (dns.answered, dns.ignored) == (1, 1)


def test_ipv4_bytes():
    assert ipv4_bytes("192.168.4.1") == BOARD
    assert ipv4_bytes("0.0.0.0") == b"\x00\x00\x00\x00"
    for text in ("192.168.4", "1.2.3.256", "a.b.c.d", "1.2.3.4.5"):
        try:
            ipv4_bytes(text)
        except ValueError:
            continue
        raise AssertionError("accepted " + text)
