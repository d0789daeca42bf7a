# The command FIFO: a preallocated ring of QUEUE_DEPTH entries. The command sequence is
# assigned when an entry is accepted and only ever grows; a full ring refuses (QUEUE_FULL)
# instead of overwriting. Nothing here allocates after construction.
from game.rules import QUEUE_DEPTH


class CommandQueue:
    def __init__(self):
        self.player = bytearray(QUEUE_DEPTH)
        self.kind = bytearray(QUEUE_DEPTH)
        self.arg = bytearray(QUEUE_DEPTH)
        self.time = [0] * QUEUE_DEPTH
        self.seq = [0] * QUEUE_DEPTH
        self.clear()

    def clear(self):
        self.head = 0  # index of the oldest entry
        self.count = 0
        self.last_seq = 0  # sequence of the most recently accepted entry

    def push(self, player, kind, arg, time_ms):
        """Store one entry (the caller checked that count < QUEUE_DEPTH); returns its command
        sequence. (Match.process takes the oldest entry inline: head, then head + 1.)"""
        i = (self.head + self.count) % QUEUE_DEPTH
        self.player[i] = player
        self.kind[i] = kind
        self.arg[i] = arg
        self.time[i] = time_ms
        self.last_seq += 1
        self.seq[i] = self.last_seq
        self.count += 1
        return self.last_seq
