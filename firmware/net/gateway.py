# The WebSocket endpoint (/ws) of the game. One Session per connection: the route's own task
# reads and bounds every inbound frame (net.frames), parses it (net.intents) and hands the
# Intent to the MatchHost; one writer task per session is the only thing that writes to its
# socket. Its mailbox holds small control frames (replies, events) in order; views come from
# the view publisher (net.views), "the newest one" only: a slow phone skips stale views
# instead of delaying anyone else.
#
#   game = add_game_routes(app, settings, log)     # in main.wire(), before app.start_server()
#   asyncio.create_task(game.run())                # the match clock, grace and idle timers
#
# Microdot's WebSocket class is used for the handshake only: its receive() cannot say why it
# refuses a frame and its send() copies each payload, so frames are read and written here.
import asyncio
import socket

from microdot import Response
from microdot.websocket import websocket_upgrade

from game.compat import const
from game.projector import OBSERVER
from net import intents
from net.compat import heap_note, print_exception, sleep_ms, ticks_diff, ticks_ms, wait_for_ms
from net.frames import (
    CLIENT_HEAD,
    CLOSE_IDLE,
    CLOSE_INTERNAL,
    CLOSE_NORMAL,
    CLOSE_PROTOCOL,
    CLOSE_SLOW,
    CLOSE_TOO_LARGE,
    CLOSE_UNSUPPORTED,
    MAX_MESSAGE,
    OP_BINARY,
    OP_CLOSE,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    RECORD_FRAME,
    close_frame,
    frame,
    head_close_code,
    payload_length,
    unmask,
)
from net.match_host import MatchHost

WS_PATH = "/ws"
TICK_MS = const(50)  # timer period: countdown end, finish window, grace and idle checks
CTRL_MAX = const(24)  # queued control frames per client; more means it stopped reading
SPARE_SESSIONS = const(2)  # sockets beyond 2 players + max_observers (joining, reconnecting)
CLOSE_WAIT_MS = const(1000)  # how long a closing session may take to flush its close frame
LINGER_MS = const(300)  # then how long to read (and drop) input until the peer closes too

_IPPROTO_TCP = getattr(socket, "IPPROTO_TCP", 6)
_TCP_NODELAY = getattr(socket, "TCP_NODELAY", 1)  # lwIP and Linux both use 1


def _no_delay(writer):
    """TCP_NODELAY: views are many small writes; Nagle would hold them back."""
    sock = getattr(writer, "s", None)  # MicroPython's Stream
    if sock is None:
        try:
            sock = writer.get_extra_info("socket")  # CPython's StreamWriter
        except (AttributeError, KeyError):
            return
    try:
        sock.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
    except (OSError, AttributeError, TypeError, ValueError):
        pass  # a socket without the option: slower, still correct


class Session:
    """One WebSocket client: reader (the route task), writer task, latest-only mailbox.
    view_role and sent_epoch belong to the view publisher (net.views)."""

    def __init__(self, gateway, reader, writer):
        self.gw = gateway
        self.reader = reader
        self.writer = writer
        self.ctrl = []  # control frames, oldest first
        self.view_role = -1  # which views the publisher sends here (net.views.NO_VIEW: none)
        self.sent_epoch = -1  # publisher epoch of the last complete view written
        self.event = asyncio.Event()
        self.closing = False
        self.close_code = CLOSE_NORMAL
        self.close_reason = ""
        self.last_rx = ticks_ms()
        self.task = None
        self.wtask = None

    # ---- the mailbox (called by MatchHost and the publisher, synchronously) -------------------

    def post(self, data):
        """Queue one complete frame; frames shared with other sessions are not copied."""
        if self.closing:
            return
        if len(self.ctrl) >= CTRL_MAX:
            self.kill(CLOSE_SLOW, "not reading")
            return
        self.ctrl.append(data)
        self.event.set()

    def wake(self):
        """Something is due (a view): let the writer look."""
        self.event.set()

    def kill(self, code, reason):
        """Close with code: the writer flushes queued frames, then the close frame. A reader
        waiting on the socket is cancelled, so a silent peer cannot keep the session alive."""
        if self.closing:
            return
        self.closing = True
        self.close_code = code
        self.close_reason = reason
        self.event.set()
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
        self.event.set()
        try:
            await wait_for_ms(self.wtask, CLOSE_WAIT_MS)
        except BaseException:  # noqa: B036 - timeout or cancel: the socket is closed next
            pass
        # Read what the peer still sends, briefly: closing a socket with unread input makes TCP
        # send a reset, and a reset can destroy the close frame before the peer reads it.
        try:
            await wait_for_ms(self._discard(), LINGER_MS)
        except BaseException:  # noqa: B036
            pass

    async def _discard(self):
        while await self.reader.read(128):
            pass

    def _refuse(self, code, close, reason):
        """Answer an unreadable frame with a refusal code, then close with `close`."""
        self.gw.host.handle(self, intents.error(code))
        self.kill(close, reason)

    async def _read_loop(self):
        rd = self.reader
        host = self.gw.host
        rx = self.gw.rx
        while not self.closing:
            # Every client frame is masked, so it has at least 6 header bytes: one read takes
            # the header and the mask of any frame under 126 bytes (every valid intent).
            head = await rd.readexactly(CLIENT_HEAD)
            self.last_rx = ticks_ms()
            close = head_close_code(head[0], head[1])
            if close == CLOSE_PROTOCOL:
                self.kill(close, "client frames must be masked, no extensions")
                return
            if close == CLOSE_UNSUPPORTED:
                self._refuse(intents.FRAGMENTED, close, "fragmented messages are not supported")
                return
            n, size = payload_length(head)
            if n > MAX_MESSAGE:
                self._refuse(intents.TOO_LARGE, CLOSE_TOO_LARGE, "message over 512 bytes")
                return
            if size > CLIENT_HEAD:
                mask = head[4:6] + await rd.readexactly(2)
            else:
                mask = head[2:6]
            payload = await rd.readexactly(n) if n else b""
            self.last_rx = ticks_ms()
            # From here to the end of the iteration nothing awaits: rx is shared by all readers.
            unmask(rx, payload, mask)
            data = memoryview(rx)[:n]
            opcode = head[0] & 0x0F
            if opcode == OP_TEXT or opcode == OP_BINARY:
                if self.closing:
                    return
                try:
                    host.handle(self, intents.parse(data))
                except Exception as exc:
                    self.gw.log("game: message failed: %r" % (exc,))
                    print_exception(exc)
                    self._refuse(intents.INTERNAL, CLOSE_INTERNAL, "internal error")
                    return
            elif opcode == OP_PING:
                self.post(frame(bytes(data), OP_PONG))
            elif opcode == OP_CLOSE:
                code = CLOSE_NORMAL
                if n >= 2:
                    code = (rx[0] << 8) | rx[1]
                    if code < 1000 or code >= 5000:
                        code = CLOSE_NORMAL
                self.kill(code, "")  # echo the peer's code, as RFC 6455 asks
                return
            elif opcode != OP_PONG:
                self.kill(CLOSE_PROTOCOL, "unknown opcode")
                return

    async def _write_loop(self):
        # Each wake-up writes everything due (replies and events in order, then the newest
        # view) and yields once; a write() the socket cannot take at once is awaited (drain),
        # and only that client waits.
        views = self.gw.host.views
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
                if views.due(self):
                    await self._write_view(views)
                    busy = True
                if busy:
                    await sleep_ms(0)  # let the other writers have their turn
                else:
                    self.event.clear()  # nothing awaited since the checks: no wake-up is lost
                    await self.event.wait()
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

    async def _write_view(self, views):
        epoch = views.epoch
        role = self.view_role
        if role == OBSERVER:
            shared = views.observer_frames()
            await self._put(memoryview(shared.buf)[: shared.length])  # same bytes for all
            views.sent(self, epoch)
            return
        tx = self.gw.tx
        count = views.plan(role)
        for i in range(count):
            if views.epoch != epoch or self.closing or self.view_role != role:
                return  # a newer state (or the end): start over from the newest view
            n = views.player_frame(role, i, tx)
            await self._put(memoryview(tx)[:n])
            while self.ctrl and not self.closing:  # replies do not wait behind a long view
                await self._put(self.ctrl.pop(0))
        views.sent(self, epoch)


class Gateway:
    """The /ws route, its sessions, and the timer task (`run`)."""

    def __init__(self, settings, log=print):
        self.log = log
        self.host = MatchHost(settings, log)
        self.sessions = []
        self.max_sessions = 2 + settings.max_observers + SPARE_SESSIONS
        self.idle_ms = settings.idle_timeout_ms
        self.rx = bytearray(MAX_MESSAGE)  # unmasked inbound payload, used between awaits only
        self.tx = bytearray(RECORD_FRAME)  # one outbound record frame, likewise

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
        self.log("game: %s on %s%s" % (self.host.match_summary(), WS_PATH, heap_note()))
        while True:
            await sleep_ms(TICK_MS)
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
    return gateway
