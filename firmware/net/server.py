# The board's front door: the listening TCP socket, its accept loop, and one task per admitted
# connection. Microdot parses every request (Request.create) and answers every HTTP route
# (dispatch_request, Response.write); a request for the game's WebSocket path gets Microdot's
# upgrade handshake and then belongs to the game gateway in the same task, so an open game
# connection keeps no HTTP objects alive (docs/memory.md).
#
# The loop never ends because of a client: a connection over the limit first displaces the
# oldest one still sending its request (so half-sent requests cannot hold every place), else
# is closed at once; a request that is not complete within REQUEST_MS is dropped; a source
# that opens connections faster than SOURCE_PER_S is refused; and any failure while admitting
# or serving one connection (a MemoryError included) closes that connection only. A new
# connection is also refused while the heap, after a collection, has less than _ADMIT_FREE
# bytes free and _REQUEST_ROOM more for each connection still reading its request: parsing a
# request needs about 1 KB, and the connections already admitted (the players' above all) must
# keep the room they need.
import asyncio
import gc
import socket

from microdot import Request, Response

from game.compat import const
from net.compat import log_failure, sleep_ms, ticks_ms, wait_for_ms
from net.limits import SourceLimit, source_of

_REQUEST_MS = const(5000)  # the request line and headers must arrive within this long
_RETRY_MS = const(20)  # the accept loop's pause after a failure (a full heap)
_BACKLOG = const(4)  # pending connections the stack holds before refusing more
# New connections per source address, a token bucket: a phone opens a few at once (the page,
# /status, the game socket, a reconnect); more than SOURCE_BURST, then SOURCE_PER_S, are
# refused. At most SOURCES addresses are remembered (the least recently seen is forgotten).
_SOURCE_BURST = const(40)
_SOURCE_PER_S = const(20)
_SOURCES = const(8)
_ADMIT_FREE = const(2048)  # bytes of free heap a new connection needs (MicroPython's gc only)
_REQUEST_ROOM = const(1024)  # and more for each admitted connection still reading its request
_mem_free = getattr(gc, "mem_free", None)
# Bounds on what an HTTP request makes the board allocate (docs/memory.md, "The largest
# allocations after boot"): no request body is read (no route takes one: 413 before any of it
# is read, where Microdot's default reads up to 16 KB), and files (the page) go out in
# _CHUNK-byte pieces (Microdot's default: 1 KB), each a block a fragmented heap must have.
_CHUNK = const(512)

_BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Server:
    """The accept loop and the connections it admits (at most max_open at a time)."""

    def __init__(self, app, gateway, max_open, log=print):
        self.app = app
        self.gateway = gateway
        self.max_open = max_open
        self.log = log
        self.open = 0  # connections admitted and not yet closed
        self.pending = []  # tasks of admitted connections still reading their request
        self.refused = 0  # closed at once: too many open, a source too fast, or too little heap
        self.evicted = 0  # connections closed to make room: their request was not complete
        self.sources = SourceLimit(_SOURCE_BURST, _SOURCE_PER_S, _SOURCES)
        Request.max_body_length = Request.max_content_length = 0
        Response.send_file_buffer_size = _CHUNK

    async def run(self, host, port):
        """Listen on host:port and serve until the board stops."""
        address = socket.getaddrinfo(host, port)[0][-1]
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(_BACKLOG)
        sock.setblocking(False)
        await self._accept_forever(sock)

    def _accept_forever(self, sock):
        # A generator, as MicroPython's own stream server is: it waits for the listening socket
        # with the scheduler's I/O queue, then accepts without blocking. Nothing here ends it:
        # the wait itself allocates (its entry in the I/O queue), so on a full heap any step
        # may raise MemoryError; the loop then drops what it holds and gives the other tasks
        # _RETRY_MS to free some heap before it waits again.
        queue_read = asyncio.core._io_queue.queue_read
        while True:
            client = addr = None
            try:
                yield queue_read(sock)
                try:
                    client, addr = sock.accept()
                except OSError:
                    continue  # gone before it was accepted
                self._admit(client, addr)
            except Exception as exc:  # MemoryError above all: drop this one, go on
                if client is not None:
                    client.close()
                client = addr = None
                gc.collect()
                log_failure(self.log, "http: connection dropped", exc, False)
                exc = None
                yield from sleep_ms(_RETRY_MS)

    def _admit(self, client, addr):
        if not self.sources.take(source_of(addr), ticks_ms()):
            self._refuse(client)
            return
        need = _ADMIT_FREE + _REQUEST_ROOM * len(self.pending)
        if _mem_free is not None and _mem_free() < need:
            gc.collect()
            if _mem_free() < need:
                self._refuse(client)
                return
        if self.open >= self.max_open:
            if not self.pending:
                self._refuse(client)
                return
            self.evicted += 1
            self.pending.pop(0).cancel()  # its socket closes when the task runs next
        client.setblocking(False)
        stream = asyncio.StreamReader(client)  # (no extra-info dict: nothing here reads it)
        self.open += 1
        try:
            self.pending.append(asyncio.create_task(self._serve(stream, addr)))
        except BaseException:
            self.open -= 1
            raise

    def _refuse(self, client):
        self.refused += 1
        try:
            client.send(_BUSY)  # best effort: the socket is new, its buffer empty
        except OSError:
            pass
        client.close()

    def _parsed(self):
        """The running connection has its request: it may no longer be displaced."""
        task = asyncio.current_task()
        if task in self.pending:
            self.pending.remove(task)

    async def _serve(self, stream, addr):
        session = None
        try:
            # The request is parsed and answered in _open, whose frame ends before a game
            # session runs: nothing left in this frame points at the request.
            session = await self._open(stream, addr)
            if session is not None:
                # A game connection goes on in a task of the session's own (Session.serve,
                # which calls closed() at its end): this coroutine's frame ends here instead of
                # waiting on the session's for as long as the connection lives (~120 bytes).
                asyncio.create_task(session.serve(self))
                return
        except (OSError, EOFError, asyncio.CancelledError):
            pass  # the peer went away
        except Exception as exc:  # noqa: BLE001 - one connection failed, the board goes on
            if type(exc) is not asyncio.TimeoutError:
                log_failure(self.log, "http", exc)
            if session is not None:  # no task for it (a full heap): it is gone
                self.gateway.sessions.remove(session)
        finally:
            self._parsed()
        self.closed(stream)

    def closed(self, stream):
        """A connection of this server ended: its place is free, its socket closed."""
        self.open -= 1
        try:
            stream.s.close()
        except OSError:
            pass

    async def _open(self, stream, addr):
        """Parse one request and answer it; a game upgrade returns its Session instead."""
        app = self.app
        try:
            req = await wait_for_ms(Request.create(app, stream, stream, addr), _REQUEST_MS)
        except (ValueError, IndexError, UnicodeError):
            req = None  # not an HTTP request: answered 400 below
        self._parsed()
        if req is not None and req.path == self.gateway.path:
            for handler in app.before_request_handlers:  # e.g. a foreign Host: redirect
                res = handler(req)
                if res:
                    await res.write(stream)
                    return None
            return await self.gateway.accept(req, addr)
        res = await app.dispatch_request(req)
        if res is not Response.already_handled:
            await res.write(stream)
        return None
