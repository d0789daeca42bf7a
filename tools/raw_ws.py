# The one raw WebSocket client of the host tools: the upgrade request and RFC 6455 frames built
# and read by hand, for what no WebSocket library would do (unmasked, oversized, fragmented or
# malformed frames, invalid UTF-8, a socket that stops reading, a proxy that edits frames) and
# to read the bytes the board answers. Every other client speaks through
# tools/ws_game_client.py (the `websockets` library).
#
#   sock, head = upgrade(port, source)                 # blocking: a socket and the 101 head
#   reader, writer, head = await upgrade_async(host, port, source)   # the asyncio form
#   frame(opcode, payload, fin=True, mask=True)        # one frame (masked with a zero key)
#   server_frames(data) / read_frame(sock, buf)        # frames out of bytes / off a socket
#   RawClient(port)                                    # a blocking JSON client on top
#
# Used by tools/stress.py and tools/bot_runner.py (hostile clients), host_tests/browser/
# ws_proxy.py (the resilience proxy) and the gateway tests. Loopback by default.
import asyncio
import base64
import json
import os
import socket
import struct

LOOPBACK = "127.0.0.1"


class Eof(Exception):
    """The peer closed its side of the connection in an orderly way (FIN)."""


# ---- the upgrade ------------------------------------------------------------------------------


def handshake(port, host=LOOPBACK, path="/ws"):
    """The upgrade request for ws://host:port/path, with a fresh random key."""
    key = base64.b64encode(os.urandom(16))
    return (
        b"GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
        % (path.encode(), host.encode(), port, key)
    )


def upgrade(port, source=LOOPBACK, timeout=5, options=(), host=LOOPBACK):
    """Connect from `source` (a loopback address of its own) to the board's /ws and send the
    upgrade request; returns (socket, the response head up to its blank line or the close).
    options: (level, name, value) socket options set before connecting (e.g. a small receive
    buffer and segment size, for a phone that reads slowly)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    for level, name, value in options:
        sock.setsockopt(level, name, value)
    if source is not None:
        sock.bind((source, 0))
    sock.connect((host, port))
    sock.sendall(handshake(port, host))
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    return sock, head


async def open_async(host, port, source=None, timeout=10.0):
    """(reader, writer) of a TCP connection from `source`; asyncio.TimeoutError when the
    listen backlog is full (the SYN waits to be resent), OSError when refused."""
    return await asyncio.wait_for(
        asyncio.open_connection(host, port, local_addr=(source, 0) if source else None), timeout
    )


async def send_upgrade(reader, writer, host, port, timeout=5.0):
    """Send the upgrade request on an open connection; the response head (up to its blank
    line). asyncio.TimeoutError when none comes; IncompleteReadError (its `partial`: what
    came) when the board closes first."""
    writer.write(handshake(port, host))
    await writer.drain()
    return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)


async def upgrade_async(host, port, source=None, timeout=5.0):
    """open_async() then send_upgrade(): (reader, writer, head)."""
    reader, writer = await open_async(host, port, source, timeout)
    try:
        head = await send_upgrade(reader, writer, host, port, timeout)
    except BaseException:
        writer.close()
        raise
    return reader, writer, head


# ---- frames -----------------------------------------------------------------------------------


def frame(opcode, payload, fin=True, mask=True):
    """One frame; a client's is masked with a zero key (the payload goes as is), a server's
    (mask=False) is not. Payloads of 64 KB or more are not needed here."""
    head = bytes((opcode | (0x80 if fin else 0),))
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes((bit | n,))
    else:
        head += bytes((bit | 126,)) + struct.pack("!H", n)
    return head + (b"\0\0\0\0" if mask else b"") + payload


def masked(opcode, payload):
    """A final client frame with a zero mask (the payload goes as is)."""
    return frame(opcode, payload)


def server_frames(data, strict=True):
    """(opcode, payload) of every whole unmasked server frame in data, and the bytes left over
    (the start of a frame not yet whole). strict: a frame a server may not send (masked, not
    final, a reserved bit) or of 64 KB or more raises AssertionError; otherwise every frame is
    taken as it comes (tools/stress.py reads what a board under attack sends)."""
    frames = []
    at = 0
    while len(data) - at >= 2:
        b0, b1 = data[at], data[at + 1]
        if strict:
            assert b0 & 0x70 == 0 and b0 & 0x80, "server frame not final or with reserved bits"
            assert not b1 & 0x80, "server frame masked"
        n, head = b1 & 0x7F, 2
        if n == 126:
            if len(data) - at < 4:
                break
            n, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
        elif n == 127:
            assert not strict, "server frame of 64 KB or more"
            if len(data) - at < 10:
                break
            n, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
        if len(data) - at < head + n:
            break
        frames.append((b0 & 0x0F, bytes(data[at + head : at + head + n])))
        at += head + n
    return frames, bytes(data[at:])


def close_code(frames):
    """The code of the first close frame among frames, 1005 for one without a code, or None."""
    for opcode, payload in frames:
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
    return None


def close_reason(frames):
    """The reason text of the first close frame among frames, or None."""
    for opcode, payload in frames:
        if opcode == 8:
            return payload[2:].decode(errors="replace")
    return None


# ---- reading a blocking socket ----------------------------------------------------------------


def recv_exact(sock, n, buf):
    """n bytes off sock, `buf` (a bytearray) holding what was read beyond them; Eof at a FIN."""
    while len(buf) < n:
        chunk = sock.recv(65536)
        if not chunk:
            raise Eof()
        buf += chunk
    data = bytes(buf[:n])
    del buf[:n]
    return data


def read_head(sock, buf):
    """Bytes up to and including the blank line that ends an HTTP head; Eof at a FIN."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise Eof()
        buf += chunk
    end = buf.index(b"\r\n\r\n") + 4
    head = bytes(buf[:end])
    del buf[:end]
    return head


def read_frame(sock, buf):
    """One frame, either side's: (its raw bytes, opcode, unmasked payload); Eof at a FIN."""
    head = recv_exact(sock, 2, buf)
    n = head[1] & 0x7F
    ext = b""
    if n == 126:
        ext = recv_exact(sock, 2, buf)
        n = struct.unpack(">H", ext)[0]
    elif n == 127:
        ext = recv_exact(sock, 8, buf)
        n = struct.unpack(">Q", ext)[0]
    mask = recv_exact(sock, 4, buf) if head[1] & 0x80 else b""
    payload = recv_exact(sock, n, buf)
    data = bytes(b ^ mask[i & 3] for i, b in enumerate(payload)) if mask else payload
    return head + ext + mask + payload, head[0] & 0x0F, data


class RawClient:
    """A minimal blocking client over a plain socket (masked text frames, key 0): unlike a
    WebSocket library it goes on sending after the server's close frame, as a phone that has
    not noticed yet would."""

    def __init__(self, port, source=LOOPBACK, timeout=5):
        self.sock, head = upgrade(port, source, timeout)
        assert head.startswith(b"HTTP/1.1 101"), head
        self._buf = bytearray()

    def send(self, obj):
        self.sock.sendall(frame(1, json.dumps(obj).encode()))

    def frame(self):
        """(opcode, payload) of the next server frame, or (None, b"") at the end."""
        try:
            _raw, opcode, payload = read_frame(self.sock, self._buf)
        except Eof:
            return None, b""
        return opcode, payload

    def until(self, t):
        """The next message of type t (every frame before it must be text)."""
        while True:
            opcode, payload = self.frame()
            assert opcode == 1, (opcode, payload)
            msg = json.loads(payload)
            if msg["t"] == t:
                return msg

    def close_code(self):
        """The code of the server's close frame, reading everything before it; None when the
        connection ends without one."""
        try:
            while True:
                opcode, payload = self.frame()
                if opcode is None:
                    return None
                if opcode == 8:
                    return close_code([(opcode, payload)])
        except ConnectionResetError:
            return None
