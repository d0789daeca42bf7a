# The gateway's pump and timer outlive a full heap (net/gateway.py, Gateway.pump and run): a
# MemoryError while writing what is due (a frame, a task to drain a socket, the log line of a
# failed writer) does not end the task that writes what the timer makes due (the countdown, the
# finish window): what is still due is written a tick later; and a failed tick whose log line
# finds no heap does not end the timer. On CPython with the real Gateway (no network).
import asyncio

from net.gateway import Gateway, Session
from net.settings import Settings


def _pump_outlives(gateway, until):
    """Run the gateway's pump until until() is true (polled every 10 ms, for at most 1 s);
    True when the pump task is still running then."""

    async def scenario():
        pump = asyncio.create_task(gateway.pump())
        for _ in range(100):
            await asyncio.sleep(0.01)
            if until():
                break
        alive = not pump.done()
        pump.cancel()
        return alive

    return asyncio.run(scenario())


class _Fine:
    """A session whose frames are written whole (write_dirty's other session)."""

    done = flushing = False
    written = False

    def write_due(self, views):
        self.written = True
        return True


def test_a_memory_error_writing_does_not_end_the_pump():
    gateway = Gateway(Settings(), log=lambda line: None)
    calls = []

    def write_dirty():
        calls.append(len(calls))
        if len(calls) == 2:
            raise MemoryError("memory allocation failed, allocating 96 bytes")
        return True

    gateway.write_dirty = write_dirty

    def until():  # two ticks of 50 ms are needed
        if len(calls) == 1:
            gateway.event.set()  # something became due: the second write fails
        return len(calls) >= 3

    assert _pump_outlives(gateway, until)
    assert len(calls) == 3  # the write after the failure, without anything new due


def test_a_writer_whose_log_line_finds_no_heap_leaves_the_others_written():
    lines = []

    def log(line):
        lines.append(line)
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    gateway = Gateway(Settings(), log=log)

    class Broken:
        done = flushing = closing = False
        killed = None

        def write_due(self, views):
            raise ValueError("broken")

        def kill(self, code, reason):
            self.killed = code

    broken, fine = Broken(), _Fine()
    gateway.dirty.extend([broken, fine])
    gateway.write_dirty()
    assert broken.killed == 1011 and fine.written and lines
    assert gateway.dirty == []


def test_a_peer_gone_while_its_frames_are_written_is_no_writer_failure():
    """A socket whose peer closed as the board wrote to it (EPIPE: a phone leaving while it
    is sent a view) ends that session quietly, the way a dead socket's flush does: its reader
    sees the end; no 1011, no "writer failed" line, and the others are written."""
    lines = []
    gateway = Gateway(Settings(), log=lines.append)

    class Gone:
        done = flushing = closing = False

        def write_due(self, views):
            raise OSError(32, "EPIPE")

        def kill(self, code, reason):
            raise AssertionError("killed with %d" % code)

    gone, fine = Gone(), _Fine()
    gateway.dirty.extend([gone, fine])
    assert gateway.write_dirty() is True
    assert gone.done and gone.closing and fine.written
    assert gateway.dirty == [] and not [line for line in lines if "failed" in line]


def test_a_session_that_finds_no_heap_stays_due_first_and_nothing_is_lost():
    """write_due raising MemoryError (a frame or a view's memoryview with no room) leaves the
    session first in line: write_dirty says so (False) and the pump comes back to it."""
    gateway = Gateway(Settings(), log=lambda line: None)

    class Starved:
        done = flushing = closing = False
        tries = 0

        def write_due(self, views):
            self.tries += 1
            if self.tries == 1:
                raise MemoryError("memory allocation failed, allocating 16 bytes")
            return True

        def kill(self, code, reason):
            raise AssertionError("killed for a full heap")

    class Fine:
        done = flushing = False
        written = 0

        def write_due(self, views):
            self.written += 1
            return True

    starved, fine = Starved(), Fine()
    gateway.dirty.extend([starved, fine])
    assert gateway.write_dirty() is False
    assert gateway.dirty == [starved, fine] and fine.written == 0 and gateway.event.is_set()
    assert gateway.write_dirty() is True
    assert gateway.dirty == [] and starved.tries == 2 and fine.written == 1


def test_the_timer_outlives_a_failed_tick_whose_log_line_finds_no_heap():
    def log(line):
        if "tick failed" in line:
            raise MemoryError("memory allocation failed, allocating 64 bytes")

    gateway = Gateway(Settings(), log=log)
    ticks = []

    def tick():
        ticks.append(len(ticks))
        if len(ticks) == 1:
            raise ValueError("a failing tick")

    gateway.host.tick = tick

    async def scenario():
        timer = asyncio.create_task(gateway.run())
        for _ in range(100):  # bounded: three ticks of 50 ms are needed
            await asyncio.sleep(0.01)
            if len(ticks) >= 3 or timer.done():
                break
        alive = not timer.done()
        timer.cancel()
        return alive

    assert asyncio.run(scenario())
    assert len(ticks) >= 3


def test_the_pump_outlives_a_wait_that_finds_no_heap():
    """Event.wait() is a coroutine: awaiting it makes one, which a full heap refuses. The pump
    then waits a tick and writes again, instead of ending (and leaving every session unwritten
    for good)."""
    gateway = Gateway(Settings(), log=lambda line: None)
    writes = []
    waits = []
    gateway.write_dirty = lambda: writes.append(1) or True
    real_wait = gateway.event.wait

    def wait():
        waits.append(1)
        if len(waits) == 1:
            raise MemoryError("memory allocation failed, allocating 44 bytes")
        return real_wait()

    gateway.event.wait = wait
    assert _pump_outlives(gateway, lambda: len(writes) >= 2)  # (one tick of 50 ms is needed)
    assert len(writes) >= 2 and len(waits) >= 2  # written again after the failed wait


def test_kill_with_no_heap_for_the_close_frame_does_not_raise():
    """kill() runs in handlers that recover from failures (a reader's, the timer's): with no
    heap for its tuple or the pump's list it still marks the session closing and cancels the
    reader, so the reader's end closes the socket and frees its place."""
    gateway = Gateway(Settings(), log=lambda line: None)

    class Stream:
        s = None

    session = Session(gateway, Stream())

    def no_heap(session):
        raise MemoryError("memory allocation failed, allocating 96 bytes")

    gateway.due = no_heap
    cancelled = []

    class Task:
        def cancel(self):
            cancelled.append(1)

    session.task = Task()

    async def scenario():
        session.kill(1011, "internal error")

    asyncio.run(scenario())
    assert session.closing and cancelled == [1]
