# The WebSocket endpoint (/ws) of the game. One Session per connection: the route's own task
# reads and bounds every inbound frame and hands a parsed command tuple to the MatchHost; one
# writer task per session is the only thing that writes to its socket. Its mailbox holds small
# control frames (replies, events) in order, and for views only "the newest one": a slow phone
# skips stale views instead of delaying anyone else.
#
#   game = add_game_routes(app, settings, log)     # in main(), before app.start_server()
#   asyncio.create_task(game.run())                # the match clock, grace and idle timers
#
# Microdot's WebSocket class is used for the handshake only: its receive() cannot say why it
# refuses a frame and its send() copies each payload, so frames are read and written here.
import asyncio
import gc
import socket

from microdot import Response
from microdot.websocket import websocket_upgrade

from game.compat import const
from net import intents
from net.match_host import (
    CLOSE_REPLACED,
    CLOSE_ROOM_FULL,
    NO_ROLE,
    OBSERVER,
    MatchHost,
    close_frame,
    frame,
    heap,
    ticks_diff,
    ticks_ms,
)

try:
    from sys import print_exception
except ImportError:  # CPython
    import traceback

    def print_exception(exc):
        traceback.print_exception(exc)


WS_PATH = "/ws"
TICK_MS = const(50)  # timer period: countdown end, finish window, grace and idle checks
CTRL_MAX = const(24)  # queued control frames per client; more means it stopped reading
SPARE_SESSIONS = const(2)  # sockets beyond 2 players + max_observers (joining, reconnecting)
CLOSE_WAIT_MS = const(1000)  # how long a closing session may take to flush its close frame
LINGER_MS = const(300)  # then how long to read (and drop) input until the peer closes too
_MAX_MESSAGE = intents.MAX_MESSAGE
_TX_ROOM = const(520)  # one record frame: 4 header bytes + 512

# Close codes (RFC 6455 and the 4000-4999 application range), see docs/protocol.md.
CLOSE_NORMAL = const(1000)
CLOSE_PROTOCOL = const(1002)  # unmasked client frame, reserved bits, unknown opcode
CLOSE_UNSUPPORTED = const(1003)  # fragmented (continuation) frames
CLOSE_TOO_LARGE = const(1009)  # a frame over 512 bytes
CLOSE_INTERNAL = const(1011)  # the server failed on a message
CLOSE_IDLE = const(4000)  # nothing received for idle_timeout_ms
# CLOSE_REPLACED (4001, the seat's token came on a newer connection) and CLOSE_ROOM_FULL (4003)
# are sent by the MatchHost.
CLOSE_SLOW = const(4008)  # the client stopped reading; its mailbox overflowed
CLOSE_CODES = (
    CLOSE_NORMAL,
    CLOSE_PROTOCOL,
    CLOSE_UNSUPPORTED,
    CLOSE_TOO_LARGE,
    CLOSE_INTERNAL,
    CLOSE_IDLE,
    CLOSE_REPLACED,
    CLOSE_ROOM_FULL,
    CLOSE_SLOW,
)

_OP_CONT = const(0)
_OP_TEXT = const(1)
_OP_BINARY = const(2)
_OP_CLOSE = const(8)
_OP_PING = const(9)
_OP_PONG = const(10)

_IPPROTO_TCP = getattr(socket, "IPPROTO_TCP", 6)
_TCP_NODELAY = getattr(socket, "TCP_NODELAY", 1)  # lwIP and Linux both use 1

_sleep_ms = getattr(asyncio, "sleep_ms", None)
_wait_for_ms = getattr(asyncio, "wait_for_ms", None)


async def _sleep(ms):
    if _sleep_ms is not None:
        await _sleep_ms(ms)
    else:  # CPython
        await asyncio.sleep(ms / 1000)


async def _wait(task, ms):
    if _wait_for_ms is not None:
        await _wait_for_ms(task, ms)
    else:  # CPython
        await asyncio.wait_for(task, ms / 1000)


def _no_delay(writer):
    """TCP_NODELAY: views are many small writes; Nagle would hold them back."""
    sock = getattr(writer, "s", None)  # MicroPython's Stream
    if sock is None:
        try:
            sock = writer.get_extra_info("socket")
        except (AttributeError, KeyError):
            return
    try:
        sock.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
    except (OSError, AttributeError, TypeError, ValueError):
        pass  # ports before 1.23 lack it: slower, still correct


def _unmask(dst, payload, mask):
    for i in range(len(payload)):
        dst[i] = payload[i] ^ mask[i & 3]


class Session:
    """One WebSocket client: reader (the route task), writer task, latest-only mailbox."""

    def __init__(self, gateway, reader, writer):
        self.gw = gateway
        self.reader = reader
        self.writer = writer
        self.role = NO_ROLE  # MatchHost sets OBSERVER or the seat number
        self.ctrl = []  # control frames, oldest first
        self.sent_epoch = -1  # host epoch of the last complete view written
        self.wake = asyncio.Event()
        self.closing = False
        self.close_code = CLOSE_NORMAL
        self.close_reason = ""
        self.last_rx = ticks_ms()
        self.task = None
        self.wtask = None

    # ---- the mailbox (called by MatchHost, synchronously) ------------------------------------

    def post(self, data):
        """Queue one complete frame; frames shared with other sessions are not copied."""
        if self.closing:
            return
        if len(self.ctrl) >= CTRL_MAX:
            self.kill(CLOSE_SLOW, "not reading")
            return
        self.ctrl.append(data)
        self.wake.set()

    def view_changed(self):
        self.wake.set()

    def kill(self, code, reason):
        """Close with code: the writer flushes queued frames, then the close frame. A reader
        waiting on the socket is cancelled, so a silent peer cannot keep the session alive."""
        if self.closing:
            return
        self.closing = True
        self.close_code = code
        self.close_reason = reason
        self.wake.set()
        task = self.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    # ---- the two tasks ------------------------------------------------------------------------

    async def serve(self):
        gw = self.gw
        self.task = asyncio.current_task()
        self.wtask = asyncio.create_task(self._write_loop())
        try:
            await self._read_loop()
        except asyncio.CancelledError:
            pass  # kill() from another task: idle, replaced, too slow
        except (OSError, EOFError):
            pass  # the peer went away (reset, or closed without a close frame)
        except Exception as exc:
            gw.log("game: session failed: %r" % (exc,))
            print_exception(exc)
            self.kill(CLOSE_INTERNAL, "internal error")
        self.task = None
        if not self.closing:
            self.closing = True
            self.close_code = CLOSE_NORMAL
        try:
            gw.host.detach(self)
        except Exception as exc:
            print_exception(exc)
        self.wake.set()
        try:
            await _wait(self.wtask, CLOSE_WAIT_MS)
        except BaseException:  # noqa: B036 - timeout or cancel: the socket is closed next
            pass
        # Read what the peer still sends, briefly: closing a socket with unread input makes TCP
        # send a reset, and a reset can destroy the close frame before the peer reads it.
        try:
            await _wait(self._discard(), LINGER_MS)
        except BaseException:  # noqa: B036
            pass

    async def _discard(self):
        while await self.reader.read(128):
            pass

    async def _read_loop(self):
        rd = self.reader
        host = self.gw.host
        rx = self.gw.rx
        while not self.closing:
            # Every client frame is masked, so it has at least 6 header bytes: one read takes
            # the header and the mask of any frame under 126 bytes (every valid intent).
            head = await rd.readexactly(6)
            b0 = head[0]
            b1 = head[1]
            opcode = b0 & 0x0F
            n = b1 & 0x7F
            self.last_rx = ticks_ms()
            if not b1 & 0x80 or b0 & 0x70:
                self.kill(CLOSE_PROTOCOL, "client frames must be masked, no extensions")
                return
            if opcode == _OP_CONT or not b0 & 0x80:
                host.handle(self, (intents.ERROR, -1, intents.FRAGMENTED, None, None))
                self.kill(CLOSE_UNSUPPORTED, "fragmented messages are not supported")
                return
            if n == 126:
                n = (head[2] << 8) | head[3]
                mask = head[4:6] + await rd.readexactly(2)
            elif n < 126:
                mask = head[2:6]
            else:
                n = _MAX_MESSAGE + 1  # a 64-bit length: far too large, whatever it says
            if n > _MAX_MESSAGE:
                host.handle(self, (intents.ERROR, -1, intents.TOO_LARGE, None, None))
                self.kill(CLOSE_TOO_LARGE, "message over 512 bytes")
                return
            payload = await rd.readexactly(n) if n else b""
            self.last_rx = ticks_ms()
            # From here to the end of the iteration nothing awaits: rx is shared by all readers.
            _unmask(rx, payload, mask)
            data = memoryview(rx)[:n]
            if opcode == _OP_TEXT or opcode == _OP_BINARY:
                if self.closing:
                    return
                try:
                    host.handle(self, intents.parse(data))
                except Exception as exc:
                    self.gw.log("game: message failed: %r" % (exc,))
                    print_exception(exc)
                    host.handle(self, (intents.ERROR, -1, intents.INTERNAL, None, None))
                    self.kill(CLOSE_INTERNAL, "internal error")
                    return
            elif opcode == _OP_PING:
                self.post(frame(bytes(data), _OP_PONG))
            elif opcode == _OP_CLOSE:
                code = CLOSE_NORMAL
                if n >= 2:
                    code = (rx[0] << 8) | rx[1]
                    if code < 1000 or code >= 5000:
                        code = CLOSE_NORMAL
                self.kill(code, "")  # echo the peer's code, as RFC 6455 asks
                return
            elif opcode != _OP_PONG:
                self.kill(CLOSE_PROTOCOL, "unknown opcode")
                return

    async def _write_loop(self):
        # Each wake-up writes everything due (replies and events in order, then the newest
        # view) and yields once; a write() the socket cannot take at once is awaited (drain),
        # and only that client waits.
        host = self.gw.host
        try:
            while True:
                busy = False
                while self.ctrl:
                    await self._put(self.ctrl.pop(0))
                    busy = True
                if self.closing:
                    self.writer.write(close_frame(self.close_code, self.close_reason))
                    await self.writer.drain()
                    return
                if self.role != NO_ROLE and self.sent_epoch != host.epoch:
                    await self._write_view()
                    busy = True
                if busy:
                    await _sleep(0)  # let the other writers have their turn
                else:
                    self.wake.clear()  # nothing awaited since the checks: no wake-up is lost
                    await self.wake.wait()
        except asyncio.CancelledError:
            pass
        except (OSError, EOFError):
            pass
        except Exception as exc:
            self.gw.log("game: writer failed: %r" % (exc,))
            print_exception(exc)
        finally:
            # However the writer ends, the reader must not outlive it.
            self.closing = True
            task = self.task
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    async def _put(self, data):
        """Write one frame; wait only if the socket did not take it all (a slow reader)."""
        out = self.writer
        out.write(data)  # the socket takes it, or the stream copies the rest: data is free
        if getattr(out, "out_buf", True):  # MicroPython's Stream exposes what is left
            await out.drain()

    async def _write_view(self):
        host = self.gw.host
        epoch = host.epoch
        if self.role == OBSERVER:
            shared = host.observer_view()
            await self._put(memoryview(shared.buf)[: shared.length])  # same bytes for all
            self.sent_epoch = epoch
            return
        tx = self.gw.tx
        count = host.plan_view(self.role)
        for i in range(count):
            if host.epoch != epoch or self.closing or self.role == NO_ROLE:
                return  # a newer state (or the end): start over from the newest view
            n = host.player_frame(self.role, i, tx)
            await self._put(memoryview(tx)[:n])
            while self.ctrl and not self.closing:  # replies do not wait behind a long view
                await self._put(self.ctrl.pop(0))
        self.sent_epoch = epoch


class Gateway:
    """The /ws route, its sessions, and the timer task (`run`)."""

    def __init__(self, settings, log=print):
        self.log = log
        self.host = MatchHost(settings, log)
        self.sessions = []
        self.max_sessions = 2 + settings.max_observers + SPARE_SESSIONS
        self.idle_ms = settings.idle_timeout_ms
        self.rx = bytearray(_MAX_MESSAGE)  # unmasked inbound payload, used between awaits only
        self.tx = bytearray(_TX_ROOM)  # one outbound record frame, likewise

    async def handle(self, request):
        if len(self.sessions) >= self.max_sessions:
            return Response("too many connections", 503, reason="Service Unavailable")
        ws = await websocket_upgrade(request)
        ws.closed = True  # Microdot must not write a second close frame: the writer owns it
        request.headers = {}  # ~1 KB per socket that nothing reads after the handshake
        reader, writer = request.sock
        _no_delay(writer)
        session = Session(self, reader, writer)
        self.sessions.append(session)
        try:
            await session.serve()
        finally:
            self.sessions.remove(session)
        return ""

    def check_idle(self):
        now = ticks_ms()
        for session in self.sessions:
            if not session.closing and ticks_diff(now, session.last_rx) > self.idle_ms:
                session.kill(CLOSE_IDLE, "idle")

    async def run(self):
        """The timer: advances the match clock so the countdown and the finish window end on
        time with nobody sending anything; expires grace periods; drops idle clients."""
        self.log("game: %s on %s%s" % (self.host.match_summary(), WS_PATH, heap()))
        while True:
            await _sleep(TICK_MS)
            try:
                self.host.tick()
                self.check_idle()
            except Exception as exc:
                self.log("game: tick failed: %r" % (exc,))
                print_exception(exc)

    def status(self):
        return self.host.status()


def add_game_routes(app, settings, log=print):
    """Register the /ws route on a Microdot app; returns the Gateway (start `run()`)."""
    gateway = Gateway(settings, log)

    async def game_socket(request):
        return await gateway.handle(request)

    app.route(WS_PATH)(game_socket)
    gc.collect()
    return gateway
