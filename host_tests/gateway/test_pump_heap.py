# The gateway's pump and timer outlive a full heap (net/gateway.py, Gateway.pump and run): a
# MemoryError while writing what is due (a frame, a task to drain a socket, the log line of a
# failed writer) does not end the task that writes what the timer makes due (the countdown, the
# finish window): what is still due is written a tick later; and a failed tick whose log line
# finds no heap does not end the timer. On CPython with the real Gateway (no network), on a
# tick clock of the test's own: no real time passes.
import asyncio

from waits import TIMEOUT_S

from net import gateway as gateway_module
from net.gateway import Session
from net.settings import Settings
from net.wiring import make_game

TICK = gateway_module._TICK_MS  # the pump's and the timer's tick


class _Ticks:
    """net.gateway's sleep_ms for one test: a sleep lasts until the test ends it (tick()), so
    what the gateway does a tick later happens when the test says, and nothing waits on the
    machine's speed."""

    def __init__(self, monkeypatch):
        monkeypatch.setattr(gateway_module, "sleep_ms", self.sleep_ms)
        self.slept = []  # the ms of every sleep begun, in order
        self._sleeps = []  # the futures of the sleeps not over yet
        self._begun = None  # a future the next sleep resolves, while the test waits for one

    async def sleep_ms(self, ms):
        self.slept.append(ms)
        if self._begun is not None and not self._begun.done():
            self._begun.set_result(ms)
        sleep = asyncio.get_running_loop().create_future()
        self._sleeps.append(sleep)
        await sleep

    async def waiting(self):
        """Return once a task sleeps on this clock (at once when one does already)."""
        if not self._sleeps:
            self._begun = asyncio.get_running_loop().create_future()
            await self._begun

    def tick(self):
        """End every sleep begun: the tasks go on at their next turn."""
        sleeps, self._sleeps = self._sleeps, []
        for sleep in sleeps:
            sleep.set_result(None)


def _run(scenario):
    return asyncio.run(asyncio.wait_for(scenario(), TIMEOUT_S))  # (the bound of a hang)


class _Fine:
    """A session whose frames are written whole (write_dirty's other session)."""

    done = flushing = False
    written = False

    def write_due(self, views):
        self.written = True
        return True


def test_a_memory_error_writing_does_not_end_the_pump(monkeypatch):
    ticks = _Ticks(monkeypatch)
    gateway = make_game(Settings(), log=lambda line: None)
    calls = []

    async def scenario():
        written = {1: asyncio.Event(), 3: asyncio.Event()}  # the first and the third write

        def write_dirty():
            calls.append(len(calls))
            if len(calls) in written:
                written[len(calls)].set()
            if len(calls) == 2:
                raise MemoryError("memory allocation failed, allocating 96 bytes")
            return True

        gateway.write_dirty = write_dirty
        pump = asyncio.create_task(gateway.pump())
        await written[1].wait()  # (the pump waits for something due now)
        gateway.event.set()  # something became due: the second write fails
        await ticks.waiting()
        assert ticks.slept == [TICK] and len(calls) == 2  # the pump waits a tick
        ticks.tick()
        await written[3].wait()
        alive = not pump.done()
        pump.cancel()
        return alive

    assert _run(scenario)
    assert len(calls) == 3  # the write after the failure, without anything new due


def test_a_writer_whose_log_line_finds_no_heap_leaves_the_others_written():
    lines = []

    def log(line):
        lines.append(line)
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    gateway = make_game(Settings(), log=log)

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
    gateway = make_game(Settings(), log=lines.append)

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
    gateway = make_game(Settings(), log=lambda line: None)

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


def test_the_timer_outlives_a_failed_tick_whose_log_line_finds_no_heap(monkeypatch):
    def log(line):
        if "tick failed" in line:
            raise MemoryError("memory allocation failed, allocating 64 bytes")

    gateway = make_game(Settings(), log=log)
    ticks = []

    def tick():
        ticks.append(len(ticks))
        if len(ticks) == 1:
            raise ValueError("a failing tick")

    gateway.host.tick = tick
    clock = _Ticks(monkeypatch)

    async def scenario():
        timer = asyncio.create_task(gateway.run())
        for _ in range(3):  # three ticks, the first one failing
            await clock.waiting()
            clock.tick()
        await clock.waiting()  # the timer waits for its fourth tick
        alive = not timer.done()
        timer.cancel()
        return alive

    assert _run(scenario)
    assert len(ticks) == 3 and clock.slept == [TICK] * 4


def test_the_pump_outlives_a_wait_that_finds_no_heap(monkeypatch):
    """Event.wait() is a coroutine: awaiting it makes one, which a full heap refuses. The pump
    then waits a tick and writes again, instead of ending (and leaving every session unwritten
    for good)."""
    ticks = _Ticks(monkeypatch)
    gateway = make_game(Settings(), log=lambda line: None)
    writes = []
    waits = []
    real_wait = gateway.event.wait

    def wait():
        waits.append(1)
        if len(waits) == 1:
            raise MemoryError("memory allocation failed, allocating 44 bytes")
        return real_wait()

    gateway.event.wait = wait

    async def scenario():
        again = asyncio.Event()

        def write_dirty():
            writes.append(1)
            if len(writes) == 2:
                again.set()
            return True

        gateway.write_dirty = write_dirty
        pump = asyncio.create_task(gateway.pump())
        await ticks.waiting()  # the failed wait: a tick, then the pump writes again
        assert ticks.slept == [TICK] and len(writes) == 1
        ticks.tick()
        await again.wait()
        alive = not pump.done()
        pump.cancel()
        return alive

    assert _run(scenario)
    assert len(writes) == 2 and len(waits) == 2  # written again after the failed wait


def test_kill_with_no_heap_for_the_close_frame_does_not_raise():
    """kill() runs in handlers that recover from failures (a reader's, the timer's): with no
    heap for its tuple or the pump's list it still marks the session closing and cancels the
    reader, so the reader's end closes the socket and frees its place."""
    gateway = make_game(Settings(), log=lambda line: None)

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
