# The game's WebSocket endpoint. net.server hands over each request for the path after Microdot
# has parsed it: accept() answers the upgrade with Microdot's handshake and returns a Session,
# whose serve() reads and bounds every inbound frame (net.frames), parses it (net.intents) and
# hands the Intent to the MatchHost, in the connection's own task.
#
# Writing: one pump task writes for every session. A session's mailbox holds small control
# frames (replies, events) in order; views come from the view publisher (net.views), "the
# newest one" only. Sockets are non-blocking and a write never waits: what a socket cannot
# take at once stays with its session (Session.rest: a mailbox frame where it is, as nobody
# writes to it again; a copy of a view's rest, as the projector's buffers are written again),
# a flush task for that one session drains it, and until it has, that session is skipped (it
# gets the newest view afterwards). So a slow phone never delays anyone else, and a session
# costs no task or event of its own. A MemoryError while writing loses no byte: what was not
# written stays due and the pump tries again a tick later; with no heap for the copy of a
# view's rest, the session keeps it where it is and no view is written until it is out
# (net.views: held; flush() lets go).
#
#   game = Gateway(settings, log)             # in net.board.wire()
#   asyncio.create_task(game.run(summary))    # the match clock, grace and idle timers, pump
import asyncio

from microdot import Response
from microdot.websocket import WebSocket

from game.compat import const
from net import intents
from net.compat import (
    heap_note,
    log_failure,
    sleep_ms,
    ticks_diff,
    ticks_ms,
    wait_for_ms,
)
from net.frames import (
    MAX_MESSAGE,
    close_code_valid,
    close_frame,
    frame,
    framed,
    head_close_code,
    payload_length,
    unmask,
    valid_utf8,
)
from net.limits import source_of

# Numbers of other firmware modules, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py).
_CLIENT_HEAD = const(6)
_CLOSE_BAD_DATA = const(1007)
_CLOSE_IDLE = const(4000)
_CLOSE_INTERNAL = const(1011)
_CLOSE_NORMAL = const(1000)
_CLOSE_NO_JOIN = const(4002)
_CLOSE_POLICY = const(1008)
_CLOSE_PROTOCOL = const(1002)
_CLOSE_ROOM_FULL = const(4003)
_CLOSE_SLOW = const(4008)
_CLOSE_TOO_LARGE = const(1009)
_CLOSE_UNSUPPORTED = const(1003)
_NO_ROLE = const(-1)
_OP_BINARY = const(2)
_OP_CLOSE = const(8)
_OP_PING = const(9)
_OP_PONG = const(10)
_OP_TEXT = const(1)

WS_PATH = "/ws"
_TICK_MS = const(50)  # timer period: countdown end, finish window, grace and idle checks
_CTRL_MAX = const(24)  # queued control frames per client; more means it stopped reading
_SPARE_SESSIONS = const(2)  # sockets beyond 2 players + max_observers (joining, reconnecting)
JOIN_MS = const(5000)  # an upgraded socket must join within this long (close 4002)
FRAME_MS = const(3000)  # a frame whose header arrived must be complete within this long
# Inbound rate limit, a token bucket per client: a fast human sends a few intents a second (at
# most a move per cooldown, 100 ms at the shortest, a retry or two, a ping every few seconds);
# a burst of RATE_BURST, then RATE_PER_S. A frame over the limit is refused (RATE_LIMITED) and
# not applied. Refusals add up in a second bucket that drains by _ABUSE_DRAIN_PER_S; when it
# holds _RATE_ABUSE the socket is closed (1008). The frames the refilled bucket lets through do
# not empty it, so a client that keeps sending over its limit is closed (at 5x the limit in
# under 2 s, at 2x in under 10 s), and one that slightly or briefly exceeds it is only refused.
_RATE_BURST = const(40)
_RATE_PER_S = const(20)
_RATE_ABUSE = const(100)
_ABUSE_DRAIN_PER_S = const(5)
_CLOSE_WAIT_MS = const(1000)  # how long a closing session may take to flush its close frame
_LINGER_MS = const(300)  # then how long to read (and drop) input until the peer closes too
_POLL_MS = const(20)  # how often a closing session looks whether its close frame is out

_IPPROTO_TCP = const(6)  # socket.IPPROTO_TCP
_TCP_NODELAY = const(1)  # socket.TCP_NODELAY: lwIP, Linux and the BSDs all use 1


class Session:
    """One WebSocket client: its stream, mailbox and state. Its reader is the connection's
    task (serve); the gateway's pump writes. Which views it wants and was sent is the view
    publisher's (net.views)."""

    # States most sessions never leave, as class attributes: an instance sets its own only
    # when it changes, so a session's attribute table stays at 7 entries (MicroPython's
    # tables are full before they grow: 7, 11, 17 entries of 8 bytes; 11 with these).
    closing = False
    close = None  # (code, reason) once kill() was called; the frame is still to go
    done = False  # the close frame is written and flushed (or the socket is dead)
    flushing = False  # a flush task is draining what the socket could not take
    rest = None  # what the socket has not taken of a frame (rest_at: from which byte)
    rest_at = 0
    over = 0  # refusals for the rate limit, in thousandths, draining with time
    addr = None  # the client's source address (net.limits.source_of): its device, for a seat

    def __init__(self, gateway, stream):
        self.gw = gateway
        self.stream = stream
        self.ctrl = []  # control frames, oldest first
        self.opened = ticks_ms()  # (check_idle: JOIN_MS)
        # ticks_ms of the last frame's end, or ~ticks_ms of its header (negative) while the
        # rest of a frame is due (check_idle: FRAME_MS)
        self.last_rx = self.opened
        self.tokens = _RATE_BURST * 1000  # rate limit bucket, in thousandths of a frame
        self.task = None

    # ---- the mailbox (called by MatchHost and the publisher, synchronously) -------------------

    def post(self, data):
        """Queue one complete frame; frames shared with other sessions are not copied."""
        if self.closing:
            return
        if len(self.ctrl) >= _CTRL_MAX:
            self.kill(_CLOSE_SLOW, "not reading")
            return
        self.ctrl.append(data)
        self.gw.due(self)

    def post_text(self, message, data=None):
        """Queue a message the host hands over (a str, a tuple of str pieces, or a frame made
        ahead): framed here, the one place messages are framed (net.frames.framed), unless
        `data` is its frame already. Returns the frame, for the next session of a broadcast:
        one frame for everyone, never a copy each."""
        if data is None:
            data = framed(message)
        self.post(data)
        return data

    def wake(self):
        """Something is due (a view): the pump looks at this session."""
        self.gw.due(self)

    def kill(self, code, reason):
        """Close with code: the pump writes the queued frames, then the close frame. A reader
        waiting on the socket is cancelled, so a silent peer cannot keep the session alive.
        Never raises MemoryError: with no heap for the close frame the socket is closed without
        one (serve's end), and a reader's own failure still reaches its end."""
        if self.closing:
            return
        try:
            self.closing = True
            self.close = (code, reason)
            self.gw.due(self)
        except MemoryError:
            pass
        task = self.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    # ---- the connection's task ----------------------------------------------------------------

    def serve(self, server=None):
        """The connection's task from the handshake on: read frames until the session ends,
        then see the close frame out; then server.closed() frees its place (net.server).
        (A generator, as MicroPython's coroutines are, so that it can wait on its socket
        itself: it runs only under MicroPython's asyncio.)"""
        self.task = asyncio.current_task()
        # The reading loop is here, not in a coroutine of its own: a generator less in every
        # session's task (its frame, ~100 bytes, lives as long as the connection).
        # (and as few locals as it can: each is 4 bytes of every session's frame)
        sock = self.stream.s
        queue_read = asyncio.core._io_queue.queue_read
        try:
            while not self.closing:
                # The last frame's objects are not kept while the socket is idle: ~140 bytes a
                # session, which would stay live in every session's task.
                head = mask = payload = data = None
                # Every client frame is masked, so it has at least 6 header bytes: one read takes
                # the header and the mask of any frame under 126 bytes (every valid intent).
                # An idle session waits here, on its socket, as the stream's readexactly()
                # would, but without that generator in its task (64 bytes a session on the
                # 32-bit port, as long as the connection is idle: docs/memory.md).
                head = b""
                while True:
                    yield queue_read(sock)  # the scheduler resumes this when sock is readable
                    payload = sock.read(_CLIENT_HEAD - len(head))
                    if payload is None:
                        continue  # (woken without data)
                    if not payload:
                        raise EOFError
                    head = head + payload if head else payload
                    if len(head) == _CLIENT_HEAD:
                        break
                now = ticks_ms()
                within = self._within_rate(now)
                self.last_rx = ~now  # the rest must follow within FRAME_MS (Gateway.check_idle)
                size = head_close_code(head[0], head[1])
                if size == _CLOSE_PROTOCOL:
                    self.kill(size, "malformed frame")
                    break
                if size == _CLOSE_UNSUPPORTED:
                    self._refuse(intents.FRAGMENTED, size, "fragmented messages are not supported")
                    break
                n, size = payload_length(head)
                if n > MAX_MESSAGE:
                    self._refuse(intents.TOO_LARGE, _CLOSE_TOO_LARGE, "message over 512 bytes")
                    break
                if size > _CLIENT_HEAD:
                    mask = head[4:6] + (yield from self.stream.readexactly(2))
                else:
                    mask = head[2:6]
                payload = b""
                if n:
                    # Usually the payload came in the header's segment: take it without a turn
                    # of the scheduler (the socket does not block); wait only for the rest.
                    payload = sock.read(n) or b""
                    if len(payload) < n:
                        payload += yield from self.stream.readexactly(n - len(payload))
                self.last_rx = ticks_ms()
                # From here to the end of the iteration nothing awaits: the host's scratch
                # buffer is shared by all readers (net.match_host: between awaits only).
                data = self.gw.host.scratch
                unmask(data, payload, mask)
                data = memoryview(data)[:n]
                opcode = head[0] & 0x0F
                if opcode == _OP_CLOSE:
                    self._closed_by_peer(data, n)
                    break
                if not within:
                    if self.over >= _RATE_ABUSE * 1000:
                        self._refuse(intents.RATE_LIMITED, _CLOSE_POLICY, "too many messages")
                        break
                    self.gw.host.handle(self, intents.error(intents.RATE_LIMITED))
                    continue
                if opcode == _OP_TEXT or opcode == _OP_BINARY:
                    if opcode == _OP_TEXT and not valid_utf8(data):
                        self._refuse(intents.BAD_UTF8, _CLOSE_BAD_DATA, "text is not valid UTF-8")
                        break
                    if self.closing:
                        break
                    try:
                        self.gw.host.handle(self, intents.parse(data))
                    except Exception as exc:
                        log_failure(self.gw.log, "game: message failed", exc)
                        self._refuse(intents.INTERNAL, _CLOSE_INTERNAL, "internal error")
                        break
                    self.gw.write_dirty()  # the reply and the views it caused leave now
                elif opcode == _OP_PING:
                    self.post(frame(data, _OP_PONG))
        except asyncio.CancelledError:
            pass  # kill() from elsewhere: idle, replaced, too slow
        except (OSError, EOFError):
            pass  # the peer went away (reset, or closed without a close frame)
        except Exception as exc:
            log_failure(self.gw.log, "game: session failed", exc)
            self.kill(_CLOSE_INTERNAL, "internal error")
        self.task = None
        try:
            if not self.closing:
                self.kill(_CLOSE_NORMAL, "")
            try:
                self.gw.host.detach(self)
            except Exception as exc:  # (MemoryError too: the session goes all the same)
                log_failure(self.gw.log, "game: session failed", exc)
            try:
                waited = 0
                while not self.done and waited < _CLOSE_WAIT_MS:
                    yield from sleep_ms(_POLL_MS)
                    waited += _POLL_MS
                # Read what the peer still sends, briefly: closing a socket with unread input
                # makes TCP send a reset, and a reset can destroy the close frame before the
                # peer reads it.
                yield from wait_for_ms(self._discard(), _LINGER_MS)
            except BaseException:  # noqa: B036 - timeout or cancel: the socket is closed next
                pass
            if self in self.gw.sessions:  # an evicted session left the list already
                self.gw.sessions.remove(self)
        finally:
            if server is not None:
                server.closed(self.stream)

    async def _discard(self):
        while await self.stream.read(128):
            pass

    def _refuse(self, code, close, reason):
        """Answer an unreadable frame with a refusal code, then close with `close`."""
        self.gw.host.handle(self, intents.error(code))
        self.kill(close, reason)

    def _within_rate(self, now):
        """Take one frame from the bucket; False (one more refusal toward 1008) when empty."""
        elapsed = ticks_diff(now, self.last_rx)
        if elapsed > _RATE_BURST * 1000:  # long enough to refill the bucket (and a small int)
            elapsed = _RATE_BURST * 1000
        tokens = self.tokens + elapsed * _RATE_PER_S
        if tokens > _RATE_BURST * 1000:
            tokens = _RATE_BURST * 1000
        over = self.over - elapsed * _ABUSE_DRAIN_PER_S
        if over < 0:
            over = 0
        if tokens < 1000:
            self.tokens = tokens
            self.over = over + 1000
            return False
        self.tokens = tokens - 1000
        if over != self.over:  # (0, the class's, for a session never refused)
            self.over = over
        return True

    def _closed_by_peer(self, data, n):
        """A close frame: echo a valid code (RFC 6455 5.5.1); a malformed one is a protocol
        error (a 1-byte payload, a code no peer may send, a reason that is not UTF-8)."""
        if n == 0:
            self.kill(_CLOSE_NORMAL, "")
        elif n == 1:
            self.kill(_CLOSE_PROTOCOL, "malformed close frame")
        else:
            code = (data[0] << 8) | data[1]
            if not close_code_valid(code):
                self.kill(_CLOSE_PROTOCOL, "invalid close code")
            elif not valid_utf8(data[2:]):
                self.kill(_CLOSE_BAD_DATA, "close reason is not valid UTF-8")
            else:
                self.kill(code, "")  # echo the peer's code, as RFC 6455 asks

    # ---- writing (the gateway's pump calls these) ---------------------------------------------

    def write_due(self, views):
        """Write everything due without waiting: what the socket left of an earlier write,
        control frames in order, then the close frame or the newest view. Returns False when
        the socket could not take it all (the rest is self.rest, for flush()). A MemoryError
        from here loses nothing: what it did not write is still due (Gateway.write_dirty)."""
        if self.rest is not None:
            return False  # (no flush task could be made, for a full heap: one more try)
        data = None
        if self.close is None:
            epoch = views.epoch
            data = views.frames(self, self.ctrl)  # None: no view due; ctrl in front if it fits
        ctrl = self.ctrl
        while ctrl:
            # (a mailbox frame is never written to again: its rest is kept where it is)
            self.rest = ctrl.pop(0)
            self.rest_at = 0
            if not self._push():
                return False  # (a view stays due: the newest one follows the flush)
        if data is None:
            if self.close is None:
                return True
            self.rest = close_frame(self.close[0], self.close[1])
            self.rest_at = 0
            self.close = None
            self.done = self._push()
            return self.done
        again = views.sent(self, epoch)  # True: a TV's second half (net.views: PAIR) is due
        self.rest = data
        self.rest_at = 0
        if self._push():
            if again:
                return self.write_due(views)
            return True
        # The projector writes its buffers again for the next view: what the socket did not
        # take is copied, or, with no heap for the copy, kept where it is while no view is
        # written (net.views: held) until flush() has it out.
        try:
            self.rest = bytes(data[self.rest_at :])
            self.rest_at = 0
        except MemoryError:
            views.hold(self)
        return False

    def _push(self):
        """Hand the socket what it has not taken of self.rest (a frame, or a frame's pieces as
        a list, net.frames.pieces), from byte rest_at on; True when all of it is out. Nothing
        is allocated unless a piece was begun before (a view of its rest), and a MemoryError
        leaves rest and rest_at as they were."""
        rest = self.rest
        pieces = type(rest) is list
        skip = self.rest_at
        i = 0
        while True:
            if pieces:
                if i == len(rest):
                    break
                piece = rest[i]
            elif i:
                break
            else:
                piece = rest
            i += 1
            n = len(piece) - skip  # bytes of this piece still to go
            if n <= 0:
                skip = -n
                continue
            # a non-blocking socket takes what it can: the count, or None for nothing
            took = self.stream.s.write(memoryview(piece)[skip:] if skip else piece) or 0
            self.rest_at += took
            if took < n:
                return False
            skip = 0
        self.rest = None
        return True

    def flush(self):
        """The task that drains what the socket could not take at once (this session only).
        (A generator that waits on its socket, as serve() does.)"""
        sock = self.stream.s
        queue_write = asyncio.core._io_queue.queue_write
        try:
            while True:
                yield queue_write(sock)  # the scheduler resumes this when sock is writable
                try:
                    if self._push():
                        break
                except MemoryError:  # no heap for a view of the rest: a tick later
                    yield from sleep_ms(_TICK_MS)
            if self.closing and self.close is None:
                self.done = True
        except Exception:  # noqa: BLE001 - a dead socket: the reader notices and ends
            self.done = True
            self.closing = True
        self.gw.views.release(self)  # the views owed meanwhile: every session is due again
        self.flushing = False
        self.gw.due(self)


class Gateway:
    """The sessions of the game socket, the pump that writes to them, and the timer task."""

    path = WS_PATH

    def __init__(self, settings, host, views, log=print):
        self.log = log
        self.host = host  # (net.match_host.MatchHost and net.views.ViewPublisher: net.wiring)
        self.views = views
        self.sessions = []
        self.max_sessions = 2 + settings.max_observers + _SPARE_SESSIONS
        self.dirty = []  # sessions with something due, in order
        self.epoch = -1  # the view epoch whose sessions were made due (views_due)
        self.event = asyncio.Event()  # set while dirty is not empty
        self.watchdog = None  # a machine.WDT the timer feeds (net.wiring arms it: arm())

    def arm(self, watchdog):
        """The timer feeds watchdog (a machine.WDT, or None) from now on."""
        self.watchdog = watchdog

    async def accept(self, request, addr=None):
        """Answer a WebSocket upgrade (from the client's address addr, as accept() gave it);
        returns the new Session, or None when refused."""
        stream = request.sock[1]
        if len(self.sessions) >= self.max_sessions:
            # Make room by closing the oldest socket that has not joined (nor is closing): a
            # socket that never joins cannot keep a seated player out.
            for session in self.sessions:
                if not session.closing and self.host.role_of(session) == _NO_ROLE:
                    session.kill(_CLOSE_ROOM_FULL, "room full: join first")
                    self.sessions.remove(session)  # its place is free now; its task ends soon
                    break
            else:
                await Response("too many connections", 503, reason="Service Unavailable").write(
                    stream
                )
                return None
        # The place is taken before the handshake awaits: concurrent upgrades cannot all pass
        # the check above.
        session = Session(self, stream)
        if addr is not None:
            session.addr = source_of(addr)
        self.sessions.append(session)
        try:
            await WebSocket(request).handshake()
        except BaseException:
            self.sessions.remove(session)
            raise
        try:  # TCP_NODELAY: views are many small writes; Nagle would hold them back
            stream.s.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
        except (OSError, AttributeError, TypeError, ValueError):
            pass  # a socket without the option: slower, still correct
        return session

    def views_due(self):
        """A new view epoch (net.views: the state changed): every subscribed session is due."""
        views = self.views
        if views.epoch != self.epoch:
            self.epoch = views.epoch
            for session in views.sessions:
                self.due(session)

    def due(self, session):
        """session has something to write: the pump will see it."""
        if not session.flushing and session not in self.dirty:
            self.dirty.append(session)
        self.event.set()

    async def pump(self):
        """The writer of what the timer and the other tasks made due (a reader writes what
        its own message made due at once: write_dirty)."""
        while True:
            self.event.clear()
            try:
                if not self.write_dirty():
                    await sleep_ms(_TICK_MS)  # a full heap: what is still due, a tick later
                await self.event.wait()  # (makes a coroutine: it may find no heap either)
            except MemoryError:
                self.event.set()
                await sleep_ms(_TICK_MS)

    def write_dirty(self):
        """Every due session's frames, without ever waiting on a socket. Returns False when
        the heap had no room to write one: it stays due, first (the pump tries again a tick
        later)."""
        views = self.views
        self.views_due()
        dirty = self.dirty
        while dirty:
            session = dirty[0]
            if not (session.done or session.flushing):
                try:
                    if not session.write_due(views):
                        asyncio.create_task(session.flush())
                        session.flushing = True
                except MemoryError:
                    self.event.set()
                    return False
                except OSError:  # the peer is gone (EPIPE, ECONNRESET): its reader ends it
                    session.done = session.closing = True
                except Exception as exc:  # noqa: BLE001 - this session only
                    session.done = True
                    session.kill(_CLOSE_INTERNAL, "internal error")
                    log_failure(self.log, "game: writer failed", exc, False)
            dirty.pop(0)
        return True

    def check_idle(self):
        """Close what holds a place for nothing: silent clients, frames left unfinished,
        sockets that never joined."""
        now = ticks_ms()
        idle_ms = self.host.idle_ms  # (the host's setting, not a copy of it here)
        for session in self.sessions:
            if session.closing:
                continue
            t = session.last_rx
            if t < 0:
                t = ~t  # a frame's header arrived then: the rest is due
            if ticks_diff(now, t) > idle_ms:
                session.kill(_CLOSE_IDLE, "idle")
            elif t != session.last_rx and ticks_diff(now, t) > FRAME_MS:
                session.kill(_CLOSE_IDLE, "frame not finished in time")
            elif (
                ticks_diff(now, session.opened) > JOIN_MS
                and self.host.role_of(session) == _NO_ROLE
            ):
                session.kill(_CLOSE_NO_JOIN, "join first")

    async def run(self, summary=""):
        """The timer: advances the match clock so the countdown and the finish window end on
        time with nobody sending anything; expires grace periods; drops idle clients. It also
        starts the pump. Its first line logs summary (the match's settings: made at boot by
        net.wiring.summary, whose code is then dropped) and the heap in use."""
        self.log("game: %s on %s%s" % (summary, WS_PATH, heap_note()))
        summary = None  # (the frame lives as long as the board)
        asyncio.create_task(self.pump())
        while True:
            await sleep_ms(_TICK_MS)
            if self.watchdog is not None:
                self.watchdog.feed()  # the loop runs: a stalled one lets the board reset
            try:
                self.host.tick()
                self.views_due()  # the clock's changes (the countdown's end, the window's)
                self.check_idle()
            except Exception as exc:
                log_failure(self.log, "game: tick failed", exc)
