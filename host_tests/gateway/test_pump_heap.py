# The gateway's pump and timer outlive a full heap (net/gateway.py, Gateway.pump and run): a
# MemoryError while writing what is due (a frame, a task to drain a socket, the log line of a
# failed writer) does not end the task that writes what the timer makes due (the countdown, the
# finish window): what is still due is written a tick later; and a failed tick whose log line
# finds no heap does not end the timer. On CPython with the real Gateway (no network).
import asyncio

from net.gateway import Gateway
from net.settings import Settings


def test_a_memory_error_writing_does_not_end_the_pump():
    gateway = Gateway(Settings(), log=lambda line: None)
    calls = []

    def write_dirty():
        calls.append(len(calls))
        if len(calls) == 2:
            raise MemoryError("memory allocation failed, allocating 96 bytes")
        return True

    gateway.write_dirty = write_dirty

    async def scenario():
        pump = asyncio.create_task(gateway.pump())
        for _ in range(100):  # bounded: two ticks of 50 ms are needed
            await asyncio.sleep(0.01)
            if len(calls) == 1:
                gateway.event.set()  # something became due: the second write fails
            if len(calls) >= 3:
                break
        alive = not pump.done()
        pump.cancel()
        return alive

    assert asyncio.run(scenario())
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

    class Fine:
        done = flushing = False
        written = False

        def write_due(self, views):
            self.written = True
            return True

    broken, fine = Broken(), Fine()
    gateway.dirty.extend([broken, fine])
    gateway.write_dirty()
    assert broken.killed == 1011 and fine.written and lines
    assert gateway.dirty == []


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
