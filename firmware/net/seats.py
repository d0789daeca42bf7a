# The two player places and their secret tokens. A seat is taken while it has a token; the
# token is the player's only identity (no accounts): whoever presents it within the reconnect
# grace period is that player. Tokens are compared in a time that does not depend on where
# they differ. After a board restart a seat is restored from the match log (net/journal.py),
# which keeps a hash of the token, never the token: the first join that presents a token with
# that hash gets the seat (and its token back).
import os
from binascii import hexlify
from hashlib import sha256


def new_token():
    """A fresh seat token: 128 random bits as 32 lowercase hex characters."""
    return hexlify(os.urandom(16)).decode()


def same_token(a, b):
    """True when a == b, in a time that depends only on their lengths."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= ord(a[i]) ^ ord(b[i])
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

    def take(self, name):
        """Give the free seat a new token and a name."""
        self.token = new_token()
        self.name = name or ("Player %d" % self.number)

    @staticmethod
    def token_hash(token):
        """What the match log keeps of a token: the first 16 bytes of its sha256."""
        return sha256(token.encode()).digest()[:16]

    def holds(self, token):
        if self.hashed:
            if not same_token(self.hashed, hexlify(Seat.token_hash(token)).decode()):
                return False
            self.token = token  # the player is back: the seat has its token again
            self.hashed = ""
            return True
        return self.token is not None and same_token(self.token, token)
