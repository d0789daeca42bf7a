# The DNS responder outlives a full heap (net/captive_dns.py, run): a query the heap has no
# block for (MemoryError in recvfrom, as on a fragmented board) is left for the next poll, and
# the responder goes on answering. On CPython with a stand-in socket and poller (no network).
import asyncio
import contextlib
from types import SimpleNamespace

from net import captive_dns

QUERY = bytes.fromhex("abcd01000001000000000000") + b"\x07example\x03com\x00" + b"\x00\x01\x00\x01"
PEER = ("10.0.0.2", 5353)


class FakeSocket:
    """A UDP socket holding queued datagrams; recvfrom fails `fail` times with MemoryError
    (the datagram stays queued, as when MicroPython cannot allocate its buffer)."""

    def __init__(self, *args):
        self.queue = [QUERY, QUERY]
        self.fail = 1
        self.sent = []
        self.both_sent = asyncio.Event()  # set at the second reply

    def setsockopt(self, *args):
        pass

    def bind(self, address):
        pass

    def setblocking(self, flag):
        pass

    def close(self):
        pass

    def recvfrom(self, n):
        if self.fail:
            self.fail -= 1
            raise MemoryError("memory allocation failed, allocating 512 bytes")
        return self.queue.pop(0)[:n], PEER

    def sendto(self, data, peer):
        self.sent.append((bytes(data), peer))
        if len(self.sent) == 2:
            self.both_sent.set()


class FakePoll:
    def __init__(self, sock):
        self.sock = sock

    def register(self, sock, mask):
        pass

    def poll(self, timeout):
        return [(self.sock, 1)] if self.sock.queue else []


def test_a_query_with_no_heap_waits_and_the_responder_lives(monkeypatch):
    sock = FakeSocket()
    fake_socket = SimpleNamespace(
        socket=lambda *a: sock,
        getaddrinfo=lambda *a: [(0, 0, 0, "", ("", 53))],
        AF_INET=2,
        SOCK_DGRAM=2,
        SOL_SOCKET=1,
        SO_REUSEADDR=2,
    )
    monkeypatch.setattr(captive_dns, "socket", fake_socket)  # this module's name only
    monkeypatch.setattr(
        captive_dns, "select", SimpleNamespace(poll=lambda: FakePoll(sock), POLLIN=1)
    )
    dns = captive_dns.CaptiveDns("192.168.4.1", 53, "0.0.0.0")

    async def until_answered():
        task = asyncio.create_task(dns.run(log=lambda *a: None))
        answered = asyncio.create_task(sock.both_sent.wait())
        # both replies sent, or the responder ended (it must not); the timeout bounds a hang
        await asyncio.wait((task, answered), timeout=30, return_when=asyncio.FIRST_COMPLETED)
        answered.cancel()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return task

    task = asyncio.run(until_answered())
    assert task.cancelled()  # still running when stopped: the MemoryError did not end it
    assert dns.ignored == 1 and dns.answered == 2
    assert [peer for _, peer in sock.sent] == [PEER, PEER]
    assert all(reply[-4:] == bytes((192, 168, 4, 1)) for reply, _ in sock.sent)
