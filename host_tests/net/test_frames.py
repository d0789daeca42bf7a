# net/frames.py is pure: the checks on a client frame's header, close codes and UTF-8, on
# CPython here and under the MicroPython unix port (test_portable_on_upy.py runs this file).
from net.frames import (
    MAX_MESSAGE,
    close_code_valid,
    frame,
    head_close_code,
    payload_length,
    pieces,
    valid_utf8,
)

# RFC 6455 7.4.1 codes (private consts of net.frames, folded away on MicroPython)
CLOSE_PROTOCOL = 1002  # a protocol error
CLOSE_UNSUPPORTED = 1003  # data it cannot accept

UTF8 = (
    (b"", True),
    (b"plain ascii {}", True),
    (b"\xc3\xa9l\xc3\xa8ve", True),  # eleve with accents
    (b"\xe2\x82\xac", True),  # euro sign
    (b"\xf0\x9f\x98\x80", True),  # an emoji (U+1F600)
    (b"\xf4\x8f\xbf\xbf", True),  # U+10FFFF, the last code point
    (b"\xed\x9f\xbf", True),  # U+D7FF, just below the surrogates
    (b"\xee\x80\x80", True),  # U+E000, just above them
    (b"\xc0\xaf", False),  # overlong "/"
    (b"\xe0\x80\xaf", False),  # overlong "/" in three bytes
    (b"\xf0\x80\x80\xaf", False),  # and in four
    (b"\xed\xa0\x80", False),  # U+D800: a lone surrogate (CESU-8)
    (b"\xed\xa0\xbd\xed\xb8\x80", False),  # a surrogate pair in CESU-8
    (b"\xf4\x90\x80\x80", False),  # U+110000: above the last code point
    (b"\xc3", False),  # truncated
    (b"\xe2\x82", False),
    (b"\x80", False),  # a continuation byte alone
    (b"\xc3\x28", False),  # a bad continuation
    (b"\xff", False),
    (b"\xf8\x88\x80\x80\x80", False),  # a five-byte form
)


def test_valid_utf8():
    for data, expected in UTF8:
        assert valid_utf8(data) is expected, data
        assert valid_utf8(memoryview(bytearray(data))) is expected, data


def test_close_codes():
    for code in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4000, 4999):
        assert close_code_valid(code), code
    for code in (0, 999, 1004, 1005, 1006, 1012, 1015, 1016, 2000, 2999, 5000, 65535):
        assert not close_code_valid(code), code


def test_client_frame_headers():
    assert head_close_code(0x81, 0x85) == 0  # final masked text
    assert head_close_code(0x82, 0x85) == 0  # binary
    assert head_close_code(0x81, 0x05) == CLOSE_PROTOCOL  # not masked
    assert head_close_code(0xC1, 0x85) == CLOSE_PROTOCOL  # a reserved bit
    assert head_close_code(0x83, 0x85) == CLOSE_PROTOCOL  # a reserved data opcode
    assert head_close_code(0x8B, 0x80) == CLOSE_PROTOCOL  # a reserved control opcode
    assert head_close_code(0x89, 0x80 | 125) == 0  # a ping of 125 bytes
    assert head_close_code(0x89, 0x80 | 126) == CLOSE_PROTOCOL  # a control frame over 125
    assert head_close_code(0x09, 0x80) == CLOSE_PROTOCOL  # a fragmented control frame
    assert head_close_code(0x01, 0x85) == CLOSE_UNSUPPORTED  # a fragmented text frame
    assert head_close_code(0x80, 0x85) == CLOSE_UNSUPPORTED  # a continuation frame


def test_payload_lengths():
    assert payload_length(bytes((0x81, 0x85, 0, 0, 0, 0))) == (5, 6)
    assert payload_length(bytes((0x81, 0xFE, 0x01, 0x00, 0, 0))) == (256, 8)
    assert payload_length(bytes((0x81, 0xFF, 0, 0, 0, 0)))[0] == MAX_MESSAGE + 1


def test_frames_are_made_whole_with_the_shortest_header():
    # one final, unmasked frame, its length in the shortest form (RFC 6455 5.2)
    assert bytes(frame("")) == b"\x81\x00"
    assert bytes(frame('{"t":"ack","c":1}')) == b'\x81\x11{"t":"ack","c":1}'
    for n, head in ((125, b"\x81\x7d"), (126, b"\x81\x7e\x00\x7e"), (359, b"\x81\x7e\x01\x67")):
        data = frame("x" * n)
        assert bytes(data) == head + b"x" * n
    # bytes, and a view of a buffer (a ping's payload echoed as a pong, opcode 10)
    assert bytes(frame(b"\x00\xff", 2)) == b"\x82\x02\x00\xff"
    buf = bytearray(b"abcdef")
    assert bytes(frame(memoryview(buf)[1:4], 10)) == b"\x8a\x03bcd"
    assert bytes(frame("\u00e9")) == b"\x81\x02\xc3\xa9"  # UTF-8: bytes, not characters


def test_a_frame_in_pieces_is_the_same_bytes():
    # net.frames.pieces: the header and the texts, written one after another
    texts = (("", ""), ('{"t":"room"', ',"obs":0}'), ("x" * 60, "y" * 65), ("\u00e9" * 70, "z"))
    for a, b in texts:
        parts = pieces(a, b)
        assert type(parts) is list and len(parts) == 1 + bool(a) + bool(b)  # no empty piece
        assert b"".join(bytes(p) for p in parts) == bytes(frame(a + b))
        assert b"".join(bytes(p) for p in pieces(a + b)) == bytes(frame(a + b))
        assert b"".join(bytes(p) for p in pieces(a, "", b, "}")) == bytes(frame(a + b + "}"))
