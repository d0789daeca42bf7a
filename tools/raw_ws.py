# A raw WebSocket upgrade over a blocking socket, for tests that must send what no WebSocket
# library would (unmasked, oversized or malformed frames, invalid UTF-8) and read the bytes the
# board answers. Loopback only: the board's address is 127.0.0.1.
import base64
import os
import socket
import struct


def upgrade(port, source="127.0.0.1", timeout=5, options=()):
    """Connect from `source` (a loopback address of its own) to the board's /ws and send the
    upgrade request; returns (socket, the response head up to its blank line or the close).
    options: (level, name, value) socket options set before connecting (e.g. a small receive
    buffer and segment size, for a phone that reads slowly)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    for level, name, value in options:
        sock.setsockopt(level, name, value)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (port, key)
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    return sock, head


def masked(opcode, payload):
    """A final client frame with a zero mask (the payload goes as is)."""
    n = len(payload)
    head = bytes((0x80 | opcode,))
    head += bytes((0x80 | n,)) if n < 126 else bytes((0x80 | 126,)) + struct.pack("!H", n)
    return head + b"\0\0\0\0" + payload


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
