# A raw WebSocket upgrade over a blocking socket, for tests that must send what no WebSocket
# library would (unmasked, oversized or malformed frames, invalid UTF-8) and read the bytes the
# board answers. Loopback only: the board's address is 127.0.0.1.
import base64
import os
import socket


def upgrade(port, source="127.0.0.1", timeout=5):
    """Connect from `source` (a loopback address of its own) to the board's /ws and send the
    upgrade request; returns (socket, the response head up to its blank line or the close)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
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
