# The two player places and their secret tokens. A seat is taken while it has a token; the
# token is the player's only identity (no accounts): whoever presents it within the reconnect
# grace period is that player. Tokens are compared in a time that does not depend on where
# they differ. After a board restart a seat is restored from the match log (net/journal.py),
# which keeps a hash of the token, never the token: the first join that presents a token with
# that hash gets the seat (and its token back).
import os
from binascii import hexlify
from hashlib import sha256

from game.compat import const

_CLOSE_NORMAL = const(1000)  # (net.frames' number, as a private const)
_WAITING = const(0)  # (game.rules')


def same_token(a, b):
    """True when the strs a == b, in a time that depends only on their lengths. Compared as
    bytes: on MicroPython a[i] of a str is a one-character string interned for good."""
    a = a.encode()
    b = b.encode()
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


class Seat:
    """One of the two player places (number 1 or 2)."""

    def __init__(self, number):
        self.number = number
        self.free()

    def free(self):
        self.token = None  # secret; whoever presents it within the grace period is this seat
        # after a restart: the token's hash (hex) until its player is back, then "" until
        # that player is welcomed (net/journal.py); None otherwise
        self.hashed = None
        self.session = None  # the bound session, None while the player is away
        self.name = ""
        self.want = False  # said ready (waiting) or asked for a rematch (finished)
        self.last_c = 0  # the client sequence last applied for this seat
        self.accepted = 0  # moves and drops of this seat the engine accepted, this match
        self.gone_at = 0  # ticks_ms when the session went away
        self.leaving = False  # said "leave": expire at the next tick, no grace
        self.asked = -1  # ticks_ms since when it must say ready (net.match_host), or -1
        self.addr = None  # the source address of its player's device (net.limits.source_of)

    def take(self, name):
        """Give the free seat a new token (128 random bits as 32 lowercase hex characters) and
        a name."""
        self.token = hexlify(os.urandom(16)).decode()
        self.name = name or ("Player %d" % self.number)

    # What happens to a seat, said by the match host (net.match_host) and the match log's
    # resume (net.resume): the seat's fields are written here only.

    def bind(self, session, name=None, addr=None):
        """session plays this seat from now on (a new name, if one is given), from the device
        of address addr (if known)."""
        self.session = session
        self.leaving = False
        if name:
            self.name = name
        if addr is not None:
            self.addr = addr

    def ask(self, now):
        """Its player must say ready, counting from ticks_ms now."""
        self.asked = now

    def away(self, now):
        """The seat's session is gone: its reconnect grace period starts at ticks_ms now."""
        self.session = None
        self.gone_at = now

    def applied(self, c, accepted=False):
        """Client sequence c is applied (a ready, a leave, an accepted move or drop)."""
        self.last_c = c
        if accepted:
            self.accepted += 1

    def ready(self, want):
        """Said ready or asked for a rematch (True), or must confirm again (False)."""
        self.want = want

    def new_match(self):
        """A match starts: its ready flag is spent and its count starts at 0."""
        self.want = False
        self.accepted = 0

    def leave(self, c):
        """Said leave (client sequence c): free at the next tick, no grace period."""
        self.last_c = c
        self.leaving = True

    def welcomed(self):
        """True the first time the player of a restored seat is welcomed back (holds() left
        hashed empty); it is then an ordinary seat again."""
        if self.hashed == "":
            self.hashed = None
            return True
        return False

    def holds(self, token):
        if self.hashed:
            # what the match log keeps of a token: the first 16 bytes of its sha256
            if not same_token(self.hashed, hexlify(sha256(token.encode()).digest()[:16]).decode()):
                return False
            self.token = token  # the player is back: the seat has its token again
            self.hashed = ""
            return True
        return self.token is not None and same_token(self.token, token)


# ---- nobody holds the room: the time to say ready (net.match_host's setting ready_ms) ---------


def seat_for(seats, addr):
    """The free seat a new player from address addr takes (seats: the host's (None, seat 1,
    seat 2)); None when both are taken; False when that device holds one already."""
    free = None
    for number in (1, 2):
        seat = seats[number]
        # one device (one address) holds at most one seat; 127.0.0.1 is no device: the host
        # board's clients (`make run`, the tests) all come from the machine it runs on (bytes
        # are never compared with a str: MicroPython warns of it on the console)
        if (
            seat.token is not None
            and addr is not None
            and addr == seat.addr
            and addr != (b"\x7f\x00\x00\x01" if type(addr) is bytes else "127.0.0.1")
        ):
            return False
        if free is None and seat.token is None:
            free = seat
    return free


def ask_ready(seats, now):
    """Both seats are taken (again), or what they said ready to changed: each player's time
    to say ready starts at ticks_ms now (seats: the host's (None, seat 1, seat 2))."""
    seats[1].ask(now)
    seats[2].ask(now)


def ready_left(host, seat):
    """The ms seat has left to say ready, or -1 when no deadline runs for it: only in the
    waiting room, present, facing an opponent, not ready yet, with a ready_ms set."""
    if (
        not host.ready_ms
        or seat.asked < 0
        or seat.want
        or seat.session is None
        or host.match.phase != _WAITING
        or host.paused
        or host.seats[3 - seat.number].token is None
    ):
        return -1
    return max(0, host.ready_ms - host.ticks_diff(host.ticks_ms(), seat.asked))


def time_out(host, seat):
    """seat did not say ready in time: its player is told (READY_TIMEOUT) and closed, and the
    seat is free at the host's next tick (as after a leave: no grace period)."""
    from net import intents, messages  # (loaded long before: no import at boot)

    session = seat.session
    host.log("game: seat %d not ready in time" % seat.number)
    session.post_text(messages.err(-1, intents.READY_TIMEOUT))
    seat.leave(seat.last_c)
    host.detach(session)
    session.kill(_CLOSE_NORMAL, "ready timeout")


# At boot only (net.match_host.restore): a module function, deleted once the board runs.
def restore(seat, token_hash, name, last_c, accepted, now):
    """After a restart (net.resume): held by whoever presents a token with this hash
    (the first 16 bytes of its sha256, from the match log), at the logged sequence and count,
    its grace period starting now."""
    seat.free()
    seat.token = ""
    seat.hashed = hexlify(token_hash).decode()
    seat.name = name
    seat.last_c = last_c
    seat.accepted = accepted
    seat.gone_at = now
