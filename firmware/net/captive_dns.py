# Captive DNS: every A question is answered with the board's address, so any name a phone
# looks up leads to the board. Packet parsing and building are pure functions over buffers
# (tested on CPython and the unix port); only CaptiveDns.run touches a socket.
#
# Policy for what is not a plain A question (see docs/captive-portal.md):
# - AAAA and every other type or class: NOERROR with no answer ("no such record"), so phones
#   stop asking for IPv6 and use the A answer at once instead of waiting for a timeout.
# - anything malformed (short, truncated or compressed name, QDCOUNT != 1, a response, an
#   opcode other than QUERY): no reply at all. Answering garbage helps nobody and would make the
#   board a reflector; a real resolver simply retries.
# Memory: one receive of at most MAX_QUERY bytes per packet and one preallocated reply buffer;
# nothing grows with the traffic.

import gc
import select
import socket

from game.compat import const
from net.compat import sleep_ms, ticks_ms
from net.limits import SourceLimit, source_of

_HEADER = const(12)
MAX_QUERY = const(512)  # classic DNS-over-UDP size; bytes past it are dropped unread
_MAX_NAME = const(255)  # wire length of a name, root label included
MAX_REPLY = const(_HEADER + _MAX_NAME + 4 + 16)  # question echoed + one A record
_POLL_MS = const(50)  # idle poll period: DNS waits at most this long, phones time out after 1 s+
_BURST = const(8)  # packets served per wake-up, so a query flood cannot starve the game
# Queries per source address, a token bucket (net/limits.py): a phone asks a handful of names
# when it joins and now and then after; beyond _SOURCE_BURST, then _SOURCE_PER_S, its queries
# are dropped unanswered (counted as ignored), as a resolver expects of a busy server.
_SOURCE_BURST = const(40)
_SOURCE_PER_S = const(20)
_SOURCES = const(8)

_TYPE_A = const(1)
_CLASS_IN = const(1)

# The A record after the echoed question: name = pointer to offset 12 (the question's name),
# type A, class IN, TTL 60 s, 4 bytes of address follow.
_A_RECORD = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04"


def parse_query(buf, n=None):
    """(qtype, qclass, question_end) for a well-formed one-question query, else None.

    Only the first `n` bytes of `buf` count. The name in a question is never compressed, so a
    pointer (or any label over 63 bytes) is malformed; this also rules out pointer loops.
    """
    if n is None:
        n = len(buf)
    if n < _HEADER + 5:  # header, root name, type, class
        return None
    if buf[2] & 0xF8:  # QR set (a response) or an opcode other than QUERY
        return None
    if buf[4] != 0 or buf[5] != 1:  # QDCOUNT must be exactly 1
        return None
    i = _HEADER
    while True:
        if i >= n or i - _HEADER >= _MAX_NAME:
            return None
        length = buf[i]
        if length == 0:
            i += 1
            break
        if length > 63:
            return None
        i += 1 + length
    if i + 4 > n:
        return None
    qtype = (buf[i] << 8) | buf[i + 1]
    qclass = (buf[i + 2] << 8) | buf[i + 3]
    return qtype, qclass, i + 4


def build_answer(query, question_end, qtype, qclass, address, out):
    """Write the reply to `query` into `out` (>= question_end + 16 bytes); returns its length.

    `address` is the 4-byte IPv4 address. An A/IN question gets one record with it; any other
    question gets NOERROR with no records.
    """
    answer = qtype == _TYPE_A and qclass == _CLASS_IN
    out[0] = query[0]  # id
    out[1] = query[1]
    out[2] = 0x80 | (query[2] & 0x01)  # QR=1, opcode QUERY, RD copied
    out[3] = 0x80  # RA=1, RCODE NOERROR
    out[4] = 0
    out[5] = 1  # QDCOUNT
    out[6] = 0
    out[7] = 1 if answer else 0  # ANCOUNT
    for i in range(8, _HEADER):  # NSCOUNT, ARCOUNT (an EDNS OPT record is not echoed)
        out[i] = 0
    for i in range(_HEADER, question_end):
        out[i] = query[i]
    if not answer:
        return question_end
    end = question_end
    for byte in _A_RECORD:
        out[end] = byte
        end += 1
    for byte in address:
        out[end] = byte
        end += 1
    return end


def ipv4_bytes(text):
    """b'\\xc0\\xa8\\x04\\x01' from '192.168.4.1'."""
    parts = text.split(".")
    if len(parts) != 4:
        raise ValueError("not an IPv4 address: %r" % text)
    out = bytearray(4)
    for i in range(4):
        value = int(parts[i])
        if not 0 <= value <= 255:
            raise ValueError("not an IPv4 address: %r" % text)
        out[i] = value
    return bytes(out)


class CaptiveDns:
    """The UDP responder. run() is the task; the counters feed /status.

    Waiting: MicroPython's asyncio has no UDP streams, so the socket is non-blocking and the
    task checks it with select.poll (ipoll: no allocation) every _POLL_MS while idle. That is
    20 cheap wake-ups a second, and replies are at most _POLL_MS late, far inside the 1-5 s a
    phone waits before asking again. Waking only on traffic would need asyncio internals.
    """

    def __init__(self, address, port=53, bind="0.0.0.0"):
        self.address = ipv4_bytes(address)
        self.port = port
        self.bind = bind
        self.answered = 0  # replies sent (A or empty)
        self.ignored = 0  # packets dropped: malformed, not a query, or over the source's rate
        self.sources = SourceLimit(_SOURCE_BURST, _SOURCE_PER_S, _SOURCES)

    def handle(self, query, n, out):
        """Reply length for the first `n` bytes of `query` (written into `out`), or 0."""
        parsed = parse_query(query, n)
        if parsed is None:
            self.ignored += 1
            return 0
        self.answered += 1
        return build_answer(query, parsed[2], parsed[0], parsed[1], self.address, out)

    async def run(self, out=None, log=print):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(socket.getaddrinfo(self.bind, self.port)[0][-1])
        except OSError as exc:
            sock.close()
            log(
                "dns: cannot listen on %s:%d (%s); only the board address works"
                % (self.bind, self.port, exc)
            )
            return
        sock.setblocking(False)
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        ready = getattr(poller, "ipoll", poller.poll)
        # out: MAX_REPLY bytes or more to write replies into, the gateway's receive buffer on
        # the board (a reply is made and sent with no await in between, as a reader uses it)
        out = out or bytearray(MAX_REPLY)
        reply = memoryview(out)
        log(
            "dns: answering every name with %s on %s:%d"
            % (".".join(str(b) for b in self.address), self.bind, self.port)
        )
        try:
            while True:
                served = 0
                while served < _BURST and _has_data(ready):
                    served += 1
                    try:
                        query, peer = sock.recvfrom(MAX_QUERY)
                        if not self.sources.take(source_of(peer), ticks_ms()):
                            self.ignored += 1
                            continue
                        length = self.handle(query, len(query), out)
                        if length:
                            try:
                                sock.sendto(reply[:length], peer)
                            except OSError:  # lwIP out of buffers: the phone will ask again
                                pass
                    except OSError:  # gone between poll and read
                        break
                    except MemoryError:
                        # No block for the query on a fragmented heap (a full room): this one
                        # waits for the next poll (the phone asks again), the responder lives.
                        self.ignored += 1
                        gc.collect()
                        break
                await sleep_ms(0 if served == _BURST else _POLL_MS)
        finally:
            sock.close()


def _has_data(ready):
    for _ in ready(0):
        return True
    return False
