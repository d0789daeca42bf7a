# Waiting for a condition that no event announces: a line in a process's log file, a counter in
# /status, a file on the virtual flash. The host tests' only polling loops are these two; every
# other wait is on an event (a reply, a close, a page state). The timeout bounds a hang, it is
# never a pace the system under test must keep, so it is generous (a loaded CI machine).
#
#   until(lambda: "fed 10 times" in board.log(), "the watchdog fed 10 times")
#   value = await until_async(lambda: status()["sessions"] == 0 or None, "sessions closed")
import asyncio
import time

POLL_S = 0.02  # how often the condition is checked (a cost, not a correctness margin)
TIMEOUT_S = 30.0


def until(predicate, what, timeout=TIMEOUT_S, poll=POLL_S):
    """Return predicate()'s first truthy value; AssertionError naming `what` after timeout s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("waiting %.0f s for %s" % (timeout, what))
        # no event announces this condition (a file, another process): check it again soon
        time.sleep(poll)


async def until_async(predicate, what, timeout=TIMEOUT_S, poll=POLL_S):
    """until() for a coroutine: the event loop runs the other tasks meanwhile."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("waiting %.0f s for %s" % (timeout, what))
        # no event announces this condition (a counter another task sets): check it again soon
        await asyncio.sleep(poll)
