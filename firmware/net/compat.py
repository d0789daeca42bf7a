# The board/host differences of net/ in one place: the wrapping millisecond tick clock,
# sleeping and waiting in milliseconds, printing a traceback (and logging a failure, even on a
# full heap), and the heap figures for log lines. On the board (and the unix port) these are
# MicroPython's own; on CPython (host tests) the stand-ins below behave the same way. Nothing
# else in net/ checks which interpreter runs.
import asyncio
import gc

from game.compat import const

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython: the board's 30-bit wrapping tick clock
    import time

    _TICKS_PERIOD = 1 << 30

    def ticks_ms():
        return int(time.monotonic() * 1000) % _TICKS_PERIOD

    def ticks_diff(a, b):
        return (a - b + _TICKS_PERIOD // 2) % _TICKS_PERIOD - _TICKS_PERIOD // 2


try:
    from sys import print_exception
except ImportError:  # CPython
    import traceback

    def print_exception(exc):
        traceback.print_exception(exc)


if hasattr(asyncio, "sleep_ms"):
    sleep_ms = asyncio.sleep_ms
    wait_for_ms = asyncio.wait_for_ms
else:  # CPython

    async def sleep_ms(ms):
        await asyncio.sleep(ms / 1000)

    async def wait_for_ms(awaitable, ms):
        return await asyncio.wait_for(awaitable, ms / 1000)


def log_failure(log, what, exc, trace=True):
    """Log 'what: exc' (and exc's traceback if trace), or nothing when the heap has no room
    for the line: a handler that logs a failure must still go on to its recovery (close that
    connection, write the other sessions, the next tick) on a full heap."""
    try:
        log("%s: %r" % (what, exc))
        if trace:
            print_exception(exc)
    except MemoryError:
        pass


def heap_note():
    """' (heap used N, free N)' after a collection, for log lines; '' on CPython."""
    gc.collect()
    try:
        return " (heap used %d, free %d)" % (gc.mem_alloc(), gc.mem_free())
    except AttributeError:  # CPython
        return ""


def heap_report(label, log):
    """Log a heap report after a collection: the label, then micropython.mem_info() (on a board:
    total, used, free, the largest block in use and the largest free block; the last two
    decide whether a large allocation can still succeed on a fragmented heap)."""
    log("mem: %s%s" % (label, heap_note()))
    try:
        from micropython import mem_info
    except ImportError:  # CPython
        return
    mem_info()


__all__ = [
    "const",
    "heap_note",
    "heap_report",
    "log_failure",
    "print_exception",
    "sleep_ms",
    "ticks_diff",
    "ticks_ms",
    "wait_for_ms",
]
