# WebSocket frames (RFC 6455) as the board speaks them: the checks on a client frame's header,
# unmasking, server frame headers, whole frames and close frames. Pure functions over bytes
# (no socket): net.gateway reads and writes the socket, net.views and net.match_host build
# frames with these. Every limit on a frame's size is here.
from game.compat import const
from game.rules import RECORD_MAX

MAX_MESSAGE = RECORD_MAX  # bytes of one inbound payload: one intent (larger: 1009)
_CLIENT_HEAD = const(6)  # bytes of the smallest client header: 2, then the 4-byte mask

# Opcodes.
_OP_CONT = const(0)
_OP_TEXT = const(1)
_OP_BINARY = const(2)
_OP_CLOSE = const(8)
_OP_PING = const(9)
_OP_PONG = const(10)

# Close codes (RFC 6455 and the 4000-4999 application range), see docs/protocol.md.
_CLOSE_NORMAL = const(1000)
_CLOSE_PROTOCOL = const(1002)  # unmasked or malformed frame, bad close code (RFC 6455 5.x, 7.4)
_CLOSE_UNSUPPORTED = const(1003)  # fragmented (continuation) data frames
_CLOSE_BAD_DATA = const(1007)  # a text frame or close reason that is not valid UTF-8
_CLOSE_POLICY = const(1008)  # a client that kept sending over its rate limit
_CLOSE_TOO_LARGE = const(1009)  # a frame over MAX_MESSAGE bytes
_CLOSE_INTERNAL = const(1011)  # the server failed on a message
_CLOSE_IDLE = const(4000)  # nothing received for idle_timeout_ms, or a frame left unfinished
_CLOSE_REPLACED = const(4001)  # the seat's token was presented on a newer connection
_CLOSE_NO_JOIN = const(4002)  # no successful join within JOIN_MS of the upgrade
_CLOSE_ROOM_FULL = const(4003)  # no free seat or observer place
_CLOSE_SLOW = const(4008)  # the client stopped reading; its mailbox overflowed
_CONTROL_MAX = const(125)  # payload bytes of a control frame (RFC 6455 5.5)


def head_close_code(b0, b1):
    """The close code a client frame starting with bytes b0, b1 gets before its payload is
    read, or 0 if it may be read. (Data payload lengths are checked by payload_length.)"""
    if not b1 & 0x80 or b0 & 0x70:
        return _CLOSE_PROTOCOL  # client frames are masked; no extension is negotiated
    opcode = b0 & 0x0F
    if opcode >= _OP_CLOSE:
        # control frames: known, final, at most 125 bytes
        if opcode > _OP_PONG or not b0 & 0x80 or b1 & 0x7F > _CONTROL_MAX:
            return _CLOSE_PROTOCOL
        return 0
    if opcode > _OP_BINARY:
        return _CLOSE_PROTOCOL  # reserved data opcodes 3-7
    if opcode == _OP_CONT or not b0 & 0x80:
        return _CLOSE_UNSUPPORTED  # fragmented messages
    return 0


def close_code_valid(code):
    """True for a close code a peer may send (RFC 6455 7.4): 1000-1003, 1007-1011 and the
    registered or private ranges 3000-4999; never 1004-1006, 1015 or 1012-2999."""
    return 1000 <= code <= 1003 or 1007 <= code <= 1011 or 3000 <= code <= 4999


def valid_utf8(data):
    """True when data (bytes-like) is well-formed UTF-8 (RFC 3629): no overlong forms, no
    surrogates (U+D800-DFFF), nothing above U+10FFFF, no truncated sequence. (MicroPython's
    decoder checks the byte structure but keeps overlong forms, surrogates and code points
    above U+10FFFF.)"""
    if not data or max(data) < 0x80:
        return True  # ASCII, the usual intent: checked in C
    # Byte by byte (RFC 3629's table of well-formed sequences), never as a str: on MicroPython
    # each one-character string a loop over a str makes is interned for good (a qstr), so any
    # client's frames of new characters would grow the qstr pool until the heap was gone.
    n = len(data)
    i = 0
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        low, high = 0x80, 0xBF  # the second byte's range
        if 0xC2 <= b <= 0xDF:
            size = 2
        elif 0xE0 <= b <= 0xEF:
            size = 3
            if b == 0xE0:
                low = 0xA0  # no overlong form
            elif b == 0xED:
                high = 0x9F  # no surrogate
        elif 0xF0 <= b <= 0xF4:
            size = 4
            if b == 0xF0:
                low = 0x90  # no overlong form
            elif b == 0xF4:
                high = 0x8F  # nothing above U+10FFFF
        else:
            return False  # a continuation byte first, an overlong lead (C0, C1), or F5..FF
        if i + size > n or not low <= data[i + 1] <= high:
            return False
        for j in range(i + 2, i + size):
            if data[j] & 0xC0 != 0x80:
                return False
        i += size
    return True


def payload_length(head):
    """(payload bytes, header bytes) of a client frame from its first CLIENT_HEAD bytes; the
    header is CLIENT_HEAD bytes, or 8 with a 16-bit length. A 64-bit length is reported as
    MAX_MESSAGE + 1: far too large, whatever it says."""
    n = head[1] & 0x7F
    if n < 126:
        return n, _CLIENT_HEAD
    if n == 126:
        return (head[2] << 8) | head[3], _CLIENT_HEAD + 2
    return MAX_MESSAGE + 1, _CLIENT_HEAD


def unmask(dst, payload, mask):
    """dst[i] = payload[i] ^ mask[i % 4] for every payload byte."""
    for i in range(len(payload)):
        dst[i] = payload[i] ^ mask[i & 3]


def head_size(length):
    """Bytes of a server frame header for a payload of length bytes (at most 65535)."""
    return 2 if length < 126 else 4


_SHORT = const(96)  # framed(): longer texts are sent as pieces, without a copy


def put_header(buf, length, opcode=_OP_TEXT, at=0):
    """Write a final, unmasked server frame header for `length` payload bytes at buf[at:];
    returns its size (2, or 4 for 126..65535 bytes)."""
    buf[at] = 0x80 | opcode
    if length < 126:
        buf[at + 1] = length
        return 2
    buf[at + 1] = 126
    buf[at + 2] = length >> 8
    buf[at + 3] = length & 0xFF
    return 4


def frame(payload, opcode=_OP_TEXT):
    """One complete frame for a str or bytes-like payload: encoded once, sent to many. It is
    made in one allocation of its own size (a bytearray that nobody writes to afterwards): no
    header object and no second copy, which a fragmented heap may have no room for."""
    if type(payload) is str:
        payload = payload.encode()  # on MicroPython the str's own bytes, not a copy
    n = len(payload)
    out = bytearray(n + head_size(n))
    at = put_header(out, n, opcode)
    out[at:] = payload
    return out


def pieces(*texts):
    """One text frame for a message of str (or bytes) pieces, as a list (header, the pieces'
    encodings) that a session writes one after another: the same bytes as frame() of the
    pieces joined, but no allocation of the message's size. A message of ~200 bytes (room,
    fair) finds no hole that large in a heap a full room has fragmented, where its pieces, the
    texts themselves (shared by their encodings, on MicroPython), fit. Empty pieces and None
    are left out."""
    out = [None]
    n = 0
    for text in texts:
        if text:
            if type(text) is str:
                text = text.encode()
            out.append(text)
            n += len(text)
    head = bytearray(head_size(n))
    put_header(head, n)
    out[0] = head
    return out


def framed(message):
    """The frame of a message a session is handed (net.gateway.Session.post_text): a str of up
    to _SHORT bytes in one allocation (frame()); a longer str as pieces (no copy of it); a
    tuple of str pieces with pieces(); a frame already made (a bytearray, a memoryview, or a
    list: pieces()' result, e.g. the end-of-match maze buffers made ahead) as it is."""
    kind = type(message)
    if kind is str:
        return frame(message) if len(message) <= _SHORT else pieces(message)
    if kind is tuple:
        return pieces(*message)
    return message


def close_frame(code, reason):
    """A close frame with a status code and a short UTF-8 reason (<= 123 bytes)."""
    text = reason.encode()[:123]
    return frame(bytes((code >> 8, code & 0xFF)) + text, _OP_CLOSE)
