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
    seen one is forgotten to make room). Tokens are kept in thousandths. The buckets are one
    flat list, [address, tokens, ticks_ms seen, address, ...], least recently seen first: no
    dictionaries (two per limit, and a list of the order besides, took twice the heap of this
    one list, which grows once to its size and then stays: docs/memory.md)."""

    def __init__(self, burst, per_s, size):
        self.burst = burst * 1000
        self.per_s = per_s
        self.size = size
        self.buckets = []

    def take(self, key, now):
        """One token of key's bucket; False when it is empty."""
        buckets = self.buckets
        burst = self.burst
        tokens = burst  # a source not seen (or forgotten): a full bucket
        for i in range(0, len(buckets), 3):
            if buckets[i] == key:
                elapsed = ticks_diff(now, buckets[i + 2])
                if elapsed > burst:  # long enough to refill (and a small int)
                    elapsed = burst
                tokens = buckets[i + 1] + elapsed * self.per_s
                if tokens > burst:
                    tokens = burst
                del buckets[i : i + 3]
                break
        else:
            if len(buckets) >= 3 * self.size:
                del buckets[0:3]
        taken = tokens >= 1000
        if taken:
            tokens -= 1000
        buckets.append(key)
        buckets.append(tokens)
        buckets.append(now)
        return taken
