# Test-only, for host boards (tools/run_host.sh with MAZE_PRELUDE naming this file; never on a
# board): says on the board's log when the gateway starts a flush task (a socket took only part
# of a frame), and with MAZE_NO_COPY=1 makes every copy of a view's rest fail as a heap with no
# hole large enough would (net.gateway finds `bytes` in its own globals first), so that
# test_slow_reader.py sees the views held and released. The firmware is unchanged: this
# wraps it from outside.
import os

# (net.match_host first: compiled from .py while the heap is still empty, as the board's
# wiring imports it; compiling it after the gateway is resident needs more heap than 96wK has)
from net import (
    gateway,
    match_host,  # noqa: F401
)

_flush = gateway.Session.flush


def _told_flush(self):
    print("partial_writes: flush started")
    return _flush(self)


gateway.Session.flush = _told_flush

if os.getenv("MAZE_NO_COPY") == "1":

    def _no_heap(data, *args):
        if type(data) is memoryview:
            print("partial_writes: no heap for the copy")
            raise MemoryError("memory allocation failed (partial_writes)")
        return bytes(data, *args)

    gateway.bytes = _no_heap
