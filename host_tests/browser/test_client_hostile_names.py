# A name that once froze every browser: the JSON escape "\ud800" (a lone surrogate) and raw
# overlong/CESU-8 bytes. The board refuses the raw bytes (close 1007), cleans the escape out
# of the name, and every text frame it sends stays valid UTF-8: Chromium players and
# spectators keep their one socket, with no "Could not decode a text frame" and no reconnect.
import time

import pytest

from raw_ws import upgrade

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]


def _raw_join(port, payload):
    """Join over a raw socket with `payload` as the text frame; returns the socket and what the
    board sent back within a second."""
    sock, head = upgrade(port)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(bytes((0x81, 0x80 | len(payload))) + b"\0\0\0\0" + payload)
    sock.settimeout(1)
    got = b""
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            break
        if not chunk:
            break
        got += chunk
    return sock, got


def test_hostile_names_freeze_no_browser(browser, board):
    host = board()
    ann = browser.phone(host.url)
    tv = browser.screen(host.url)
    raw = []
    try:
        ann.join("Ann")
        tv.join(role="watch")
        # raw overlong and CESU-8 bytes: not UTF-8, the frame is refused with 1007
        for name in (b"\xc0\xaf", b"\xed\xa0\x80"):
            sock, got = _raw_join(host.http_port, b'{"t":"join","role":"play","name":"' + name)
            raw.append(sock)
            assert b"\x88" in got and b"\x03\xef" in got, got  # a close frame, code 1007
        # the JSON escape of a lone surrogate: the seat is taken, the surrogate cleaned out
        sock, got = _raw_join(
            host.http_port, b'{"t":"join","role":"play","name":"Eve\\ud800\\udfff!"}'
        )
        raw.append(sock)
        assert b'"welcome"' in got, got
        for phone in (ann, tv):
            phone.wait_js("document.body.textContent.includes('Eve!')")
        time.sleep(1)  # long enough for a decode failure and a reconnect to show
        for phone in (ann, tv):
            assert phone.sockets == 1, "the page reconnected: %d sockets" % phone.sockets
            assert phone.attr("conn") == "on"
            assert not phone.errors, phone.errors
        # both Chromium pages still talk to the board: the player can still be ready
        ann.ready()
    finally:
        for sock in raw:
            sock.close()
        for phone in (ann, tv):
            phone.close()
