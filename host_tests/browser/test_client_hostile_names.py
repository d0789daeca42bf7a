# A name that once froze every browser: the JSON escape "\ud800" (a lone surrogate) and raw
# overlong/CESU-8 bytes. The board refuses the raw bytes (close 1007), cleans the escape out
# of the name, and every text frame it sends stays valid UTF-8: Chromium players and
# spectators keep their one socket, with no "Could not decode a text frame" and no reconnect.
import pytest

from raw_ws import masked, server_frames, upgrade

pytestmark = [pytest.mark.browser, pytest.mark.upy, pytest.mark.slow]

HANG_S = 30  # bounds a hang of the board: never a pace it must keep (a loaded machine)


def _raw_join(port, payload, done):
    """Join over a raw socket with `payload` as the text frame; returns the socket and the
    frames (opcode, payload) the board sent back, read until done(frames) holds (or the board
    closed the socket)."""
    sock, head = upgrade(port)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(masked(1, payload))
    sock.settimeout(HANG_S)
    data = b""
    while True:
        frames, _ = server_frames(data)
        if done(frames):
            return sock, frames
        chunk = sock.recv(4096)
        if not chunk:
            return sock, frames
        data += chunk


def _closed(frames):
    return any(op == 8 for op, _ in frames)


def _welcomed(frames):
    return any(op == 1 and b'"welcome"' in data for op, data in frames)


def _ann_ready_on(phone):
    """The socket number the page received the first room line with Ann (seat 1) ready on,
    or None."""
    for _, number, way, m in phone.frames:
        if way == "recv" and m and m.get("t") == "room" and (m["p"][0] or {}).get("ready"):
            return number
    return None


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
            sock, got = _raw_join(
                host.http_port, b'{"t":"join","role":"play","name":"' + name, _closed
            )
            raw.append(sock)
            assert [data[:2] for op, data in got if op == 8] == [b"\x03\xef"], got  # 1007
        # the JSON escape of a lone surrogate: the seat is taken, the surrogate cleaned out
        sock, got = _raw_join(
            host.http_port, b'{"t":"join","role":"play","name":"Eve\\ud800\\udfff!"}', _welcomed
        )
        raw.append(sock)
        assert _welcomed(got), got
        for phone in (ann, tv):
            phone.wait_js("document.body.textContent.includes('Eve!')")
        # Both Chromium pages still talk to the board: Ann gets ready, and the room line that
        # says so (with Eve's name again) reaches both pages after every frame about Eve's
        # join. Chromium fails a socket at the first frame it cannot decode (and the page
        # reconnects on a new one): that line on the first socket means none failed before it.
        ann.ready()
        for phone in (ann, tv):
            phone.wait_for(lambda p=phone: _ann_ready_on(p) is not None, "a room line: Ann ready")
            assert _ann_ready_on(phone) == 1, "the page reconnected: %d sockets" % phone.sockets
            assert phone.sockets == 1, "the page reconnected: %d sockets" % phone.sockets
            assert phone.attr("conn") == "on"
            assert not phone.errors, phone.errors
    finally:
        for sock in raw:
            sock.close()
        for phone in (ann, tv):
            phone.close()
