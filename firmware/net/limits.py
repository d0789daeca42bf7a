# Rate limits per source address: token buckets for the HTTP front door (new connections,
# net/server.py) and the captive DNS (queries, net/captive_dns.py), so one phone or one
# flooding host cannot take the board's time from everyone else.
from net.compat import ticks_diff


def source_of(addr):
    """The source address of an accepted connection: the host part of (host, port), or the
    4 address bytes of a raw IPv4 sockaddr (the unix port's accept)."""
    if type(addr) is tuple:
        return addr[0]
    return bytes(addr[4:8])


class SourceLimit:
    """A token bucket per source address, for at most `size` addresses (the least recently
    seen one is forgotten to make room). Tokens are kept in thousandths."""

    def __init__(self, burst, per_s, size):
        self.burst = burst * 1000
        self.per_s = per_s
        self.size = size
        self.keys = []  # most recently seen last
        self.tokens = {}
        self.seen = {}

    def take(self, key, now):
        """One token of key's bucket; False when it is empty."""
        if key in self.tokens:
            self.keys.remove(key)
            elapsed = ticks_diff(now, self.seen[key])
            if elapsed > self.burst:  # long enough to refill (and a small int)
                elapsed = self.burst
            tokens = self.tokens[key] + elapsed * self.per_s
            if tokens > self.burst:
                tokens = self.burst
        else:
            if len(self.keys) >= self.size:
                old = self.keys.pop(0)
                del self.tokens[old]
                del self.seen[old]
            tokens = self.burst
        self.keys.append(key)
        self.seen[key] = now
        if tokens < 1000:
            self.tokens[key] = tokens
            return False
        self.tokens[key] = tokens - 1000
        return True
