# The command FIFO: a preallocated ring of QUEUE_DEPTH entries. The command sequence is
# assigned when an entry is accepted and only ever grows; a full ring refuses (QUEUE_FULL)
# instead of overwriting. Nothing here allocates after construction. Match.enqueue and
# Match.process add and take the entries inline (head: the oldest, count of them).
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
