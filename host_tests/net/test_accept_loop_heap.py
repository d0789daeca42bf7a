# The front door's accept loop outlives a full heap (net/server.py, Server._accept_forever): on
# the board the wait for the listening socket allocates (its entry in the scheduler's I/O
# queue), and so do the accepted socket and its task; a MemoryError at any of these steps drops
# what the loop holds, pauses, and the loop goes on accepting. `make stress` ended the whole
# board this way once (a MemoryError out of the wait, on the 32-bit port at its budget heap).
# On CPython, driving the loop's generator by hand with stand-ins for MicroPython's scheduler
# (no network).
from types import SimpleNamespace

import pytest
from microdot import Request, Response

from net import server as server_module
from net.server import Server

FULL = MemoryError("memory allocation failed, allocating 112 bytes")


class Client:
    def __init__(self):
        self.closed = False

    def close(self):
        self.closed = True

    def setblocking(self, flag):
        pass


class Listener:
    """The listening socket: accept() hands out the queued clients, or raises what is queued."""

    def __init__(self, queue):
        self.queue = queue

    def accept(self):
        item = self.queue.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item, ("10.0.0.2", 50000)


class Pause:
    """asyncio.sleep_ms's stand-in: one yield to the scheduler, remembered."""

    def __init__(self, pauses, ms):
        self.pauses, self.ms = pauses, ms

    def __iter__(self):
        self.pauses.append(self.ms)
        yield "pause"


@pytest.fixture
def loop(monkeypatch):
    for name in ("max_body_length", "max_content_length"):
        monkeypatch.setattr(Request, name, getattr(Request, name), raising=False)
    monkeypatch.setattr(Response, "send_file_buffer_size", Response.send_file_buffer_size)
    waits = []  # what each wait does: None yields, an exception is raised by queue_read
    started = []
    pauses = []
    logged = []

    def queue_read(sock):
        step = waits.pop(0)
        if isinstance(step, BaseException):
            raise step
        return "wait"

    def create_task(coro):
        coro.close()  # not run: the loop is what is tested
        started.append(coro)
        return SimpleNamespace(cancel=lambda: None)

    monkeypatch.setattr(
        server_module,
        "asyncio",
        SimpleNamespace(
            core=SimpleNamespace(_io_queue=SimpleNamespace(queue_read=queue_read)),
            StreamReader=lambda sock: sock,
            create_task=create_task,
        ),
    )
    monkeypatch.setattr(server_module, "sleep_ms", lambda ms: Pause(pauses, ms))
    monkeypatch.setattr(server_module.gc, "collect", lambda: None)
    monkeypatch.setattr(server_module, "_mem_free", None)  # the admission's heap check is off
    gateway = SimpleNamespace(path="/ws")
    door = Server(app=None, gateway=gateway, max_open=12, log=logged.append)
    return SimpleNamespace(door=door, waits=waits, started=started, pauses=pauses, log=logged)


def test_a_full_heap_in_the_wait_pauses_and_the_loop_goes_on(loop):
    first, second = Client(), Client()
    listener = Listener([first, second])
    loop.waits.extend([FULL, None, None, None])
    gen = loop.door._accept_forever(listener)
    assert next(gen) == "pause"  # the wait could not be queued: a pause, not the end
    assert loop.pauses == [server_module._RETRY_MS] and "MemoryError" in loop.log[0]
    assert next(gen) == "wait"
    assert next(gen) == "wait"  # the first client is admitted, the loop waits again
    assert loop.door.open == 1 and len(loop.started) == 1 and not first.closed
    assert next(gen) == "wait"
    assert loop.door.open == 2 and not second.closed


def test_a_full_heap_admitting_drops_that_connection_only(loop, monkeypatch):
    dropped, kept = Client(), Client()
    listener = Listener([dropped, kept])
    loop.waits.extend([None, None, None])
    admit = loop.door._admit

    def admit_once_full(client, addr):
        if client is dropped:
            raise FULL
        admit(client, addr)

    monkeypatch.setattr(loop.door, "_admit", admit_once_full)
    gen = loop.door._accept_forever(listener)
    assert next(gen) == "wait"
    assert next(gen) == "pause"
    assert dropped.closed and "connection dropped" in loop.log[0]
    assert next(gen) == "wait"
    assert next(gen) == "wait"
    assert not kept.closed and loop.door.open == 1


def test_a_full_heap_accepting_and_a_log_line_without_heap_do_not_end_it(loop):
    kept = Client()
    listener = Listener([FULL, OSError(103), kept])
    loop.waits.extend([None, None, None, None])

    def no_heap_to_log(line):
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    loop.door.log = no_heap_to_log
    gen = loop.door._accept_forever(listener)
    assert next(gen) == "wait"
    assert next(gen) == "pause"  # accept() had no heap; the log line neither
    assert next(gen) == "wait"
    assert next(gen) == "wait"  # a socket gone before accept(): simply the next wait
    assert next(gen) == "wait"
    assert loop.door.open == 1 and not kept.closed
