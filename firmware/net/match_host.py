# The match lifecycle around one game.engine.Match: seats and their secret tokens, ready and
# rematch, the reconnect grace period and forfeit, the board's tick clock turned into match
# milliseconds, who may hear which event, and the views each client is owed.
#
# It owns no socket. A session (net.gateway.Session) is any object with `role` (NO_ROLE,
# OBSERVER, seat 1 or 2), `post(frame)` (queue one ready WebSocket frame), `view_changed()`
# (a newer view exists) and `kill(code, reason)`. Every message is built once as one frame and
# the same bytes are queued to every session entitled to it.
#
# Lifecycle: WAITING (seats fill, each player says ready) -> COUNTDOWN -> ACTIVE -> FINISHED
# (win, draw or forfeit) -> both ask for a rematch -> a new seed, straight into COUNTDOWN.
import gc
import json
import os
from binascii import hexlify

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython (host tests): the board's 30-bit wrapping tick clock
    import time

    _TICKS_PERIOD = 1 << 30

    def ticks_ms():
        return int(time.monotonic() * 1000) % _TICKS_PERIOD

    def ticks_diff(a, b):
        return (a - b + _TICKS_PERIOD // 2) % _TICKS_PERIOD - _TICKS_PERIOD // 2


from game import rules
from game.compat import const
from game.engine import Match
from game.projector import OBSERVER, Projector
from net import intents

NO_ROLE = const(-1)  # a session that has not joined (OBSERVER == 0, seats 1 and 2)
CLOSE_REPLACED = const(4001)  # the seat's token was presented on a newer connection
CLOSE_ROOM_FULL = const(4003)  # close code after a ROOM_FULL refusal
_FRAME_HEAD = const(4)  # header bytes of a server frame carrying up to 65535 bytes
_RECORD_ROOM = const(516)  # one view record (<= 512 bytes) with its frame header

_CLOCK_LIMIT = rules.CLOCK_LIMIT_MS
_COUNTDOWN = rules.COUNTDOWN
_ACTIVE = rules.ACTIVE
_FINISHED = rules.FINISHED
_WAITING = rules.WAITING

# Who hears an event: bit 1 seat 1, bit 2 seat 2, bit 4 the observers.
_TO_ALL = const(7)
_TO_OBS = const(4)


# ---- frames ---------------------------------------------------------------------------------


def put_header(buf, length, opcode=1):
    """Write a final, unmasked server frame header for `length` payload bytes at buf[0:];
    returns the header size (2, or 4 for 126..65535 bytes)."""
    buf[0] = 0x80 | opcode
    if length < 126:
        buf[1] = length
        return 2
    buf[1] = 126
    buf[2] = length >> 8
    buf[3] = length & 0xFF
    return 4


def frame(payload, opcode=1):
    """One complete frame (bytes) for a str or bytes payload: encoded once, sent to many."""
    if type(payload) is str:
        payload = payload.encode()
    head = bytearray(_FRAME_HEAD)
    n = put_header(head, len(payload), opcode)
    return bytes(head[:n]) + payload


def close_frame(code, reason):
    """A close frame with a status code and a short UTF-8 reason (<= 123 bytes)."""
    text = reason.encode()[:123]
    return frame(bytes((code >> 8, code & 0xFF)) + text, 8)


def _bool(value):
    return "true" if value else "false"


def new_token():
    """A fresh seat token: 128 random bits as 32 lowercase hex characters."""
    return hexlify(os.urandom(16)).decode()


def _same(a, b):
    """Token comparison whose time does not depend on where the strings differ."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= ord(a[i]) ^ ord(b[i])
    return diff == 0


class Seat:
    """One of the two player places. A seat is taken while it has a token."""

    def __init__(self, number):
        self.number = number
        self.free()

    def free(self):
        self.token = None  # secret; whoever presents it within the grace period is this seat
        self.session = None  # the bound session, None while the player is away
        self.name = ""
        self.want = False  # said ready (waiting) or asked for a rematch (finished)
        self.last_c = 0  # highest client sequence applied for this seat
        self.gone_at = 0  # ticks_ms when the session went away
        self.leaving = False  # said "leave": expire at the next tick, no grace


class SharedView:
    """The observer view as ready frames, encoded once; every observer writes these bytes.
    Rewritten in place for each new state: a stream's write() either hands the bytes to the
    socket or copies what is left, so no writer ever holds on to this buffer across an await."""

    def __init__(self, capacity):
        self.buf = bytearray(capacity)
        self.length = 0
        self.epoch = -1


class MatchHost:
    """Seats, observers and the one authoritative match. All methods are synchronous: the
    gateway calls them between awaits, so the match never changes under a half-done call."""

    def __init__(self, settings, log=print, ticks_ms=ticks_ms, ticks_diff=ticks_diff):
        self.log = log
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        entry = rules.preset(settings.preset) or rules.preset("classic")
        _, width, height, pairs, braid, _, _ = entry
        self.match = Match(
            self._seed(),
            width,
            height,
            settings.cooldown_ms,
            settings.countdown_ms,
            pairs,
            braid,
        )
        self.max_observers = settings.max_observers
        self.grace_ms = settings.reconnect_grace_ms
        self.idle_ms = settings.idle_timeout_ms
        self.seats = (None, Seat(1), Seat(2))
        self.observers = []
        self.match_no = 1
        self.epoch = 0  # +1 whenever any view may have changed
        self.proj = Projector()
        self._plan_role = NO_ROLE  # whose view the projector has planned, for which epoch
        self._plan_epoch = -1
        self._shared = None  # SharedView of the observers
        self._ms = 0  # match milliseconds since the countdown began
        self._ticks = ticks_ms()

    # ---- clock ------------------------------------------------------------------------------

    def now_ms(self):
        """Match time: ticks_ms differences summed (ticks_ms wraps on the board, the sum does
        not), clamped to the engine's limit (12 days into one match)."""
        t = self.ticks_ms()
        self._ms += self.ticks_diff(t, self._ticks)
        self._ticks = t
        if self._ms > _CLOCK_LIMIT:
            self._ms = _CLOCK_LIMIT
        return self._ms

    def _seed(self):
        return int.from_bytes(os.urandom(4), "big") & 0x3FFFFFFF

    # ---- inbound ----------------------------------------------------------------------------

    def handle(self, session, cmd):
        """Apply one parsed intent of session (intents.parse output)."""
        kind, c, arg, token, name = cmd
        if kind == intents.ERROR:
            self._err(session, c, arg)
        elif kind == intents.PING:
            session.post(frame('{"t":"pong","c":%d}' % c))
        elif kind == intents.JOIN:
            self._join(session, arg, token, name)
        elif session.role == NO_ROLE:
            self._err(session, c, intents.NOT_JOINED)
        elif kind == intents.SYNC:
            # A client that lost a record asks for the whole current view again: the writer
            # sends it even though the state has not changed since the last one.
            session.sent_epoch = -1
            session.view_changed()
        elif session.role == OBSERVER:
            if kind == intents.LEAVE:
                session.kill(1000, "left")
            else:
                self._err(session, c, rules.CODE_NAMES[rules.NOT_PLAYER])
        else:
            self._command(session, kind, c, arg)

    def _err(self, session, c, code):
        if c > 0:
            session.post(frame('{"t":"err","c":%d,"code":"%s"}' % (c, code)))
        else:
            session.post(frame('{"t":"err","code":"%s"}' % code))

    def _join(self, session, role, token, name):
        if session.role != NO_ROLE:
            self._err(session, -1, intents.ALREADY_JOINED)
            return
        if role == intents.ROLE_WATCH:
            if len(self.observers) >= self.max_observers:
                self._refuse_full(session)
                return
            session.role = OBSERVER
            self.observers.append(session)
            session.post(frame(self._welcome(session, None, False)))
            self.log("game: observer joined (%d watching)%s" % (len(self.observers), heap()))
        elif token is not None:
            number = self._seat_for(token)
            if not number:
                self._err(session, -1, intents.BAD_TOKEN)
                return
            seat = self.seats[number]
            old = seat.session
            if old is not None and old is not session:
                # The newest holder of the token wins: the old socket is cut off at once and
                # anything it still sends is ignored (its role is gone).
                old.role = NO_ROLE
                old.kill(CLOSE_REPLACED, "seat taken over by a newer connection")
            self._bind(session, seat)
            if name:
                seat.name = name
            session.post(frame(self._welcome(session, seat, True)))
            self.log("game: seat %d resumed%s" % (number, heap()))
        else:
            seat = None
            for number in (1, 2):
                if self.seats[number].token is None:
                    seat = self.seats[number]
                    break
            if seat is None:
                self._refuse_full(session)
                return
            seat.token = new_token()
            seat.name = name or ("Player %d" % seat.number)
            self._bind(session, seat)
            session.post(frame(self._welcome(session, seat, False)))
            self.log("game: seat %d taken%s" % (seat.number, heap()))
        session.view_changed()
        self._room()
        self._maybe_start()

    def _refuse_full(self, session):
        self._err(session, -1, intents.ROOM_FULL)
        session.kill(CLOSE_ROOM_FULL, "room full")

    def _seat_for(self, token):
        found = 0
        for number in (1, 2):
            held = self.seats[number].token
            if held is not None and _same(held, token):
                found = number
        return found

    def _bind(self, session, seat):
        seat.session = session
        seat.leaving = False
        session.role = seat.number

    def _command(self, session, kind, c, arg):
        seat = self.seats[session.role]
        if c <= seat.last_c:
            # A repeat (e.g. a resend after a reconnect): already applied, change nothing.
            session.post(frame('{"t":"ack","c":%d,"dup":true}' % c))
            return
        m = self.match
        if kind == intents.LEAVE:
            seat.last_c = c
            session.post(frame('{"t":"ack","c":%d}' % c))
            seat.leaving = True
            self.detach(session)
            session.kill(1000, "left")
            return
        if kind == intents.READY:
            if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
                self._err(session, c, rules.CODE_NAMES[rules.PHASE])
                return
            seat.last_c = c
            seat.want = True
            session.post(frame('{"t":"ack","c":%d}' % c))
            self._room()
            self._maybe_start()
            return
        # MOVE or DROP. Outside a running match the engine would say PHASE too; answering here
        # keeps the engine clock untouched until the countdown starts it at 0.
        if m.phase != _COUNTDOWN and m.phase != _ACTIVE:
            self._err(session, c, rules.CODE_NAMES[rules.PHASE])
            return
        before = m.state_seq
        if kind == intents.MOVE:
            code = m.enqueue(seat.number, rules.CMD_MOVE, arg, self.now_ms())
        else:
            code = m.enqueue(seat.number, rules.CMD_DROP, 0, self.now_ms())
        cs = 0
        if code == rules.OK:
            cs = m.queue.last_seq
            code = m.process()  # the FIFO never holds more than this one entry
        if code == rules.OK:
            seat.last_c = c
            session.post(frame('{"t":"ack","c":%d,"cs":%d}' % (c, cs)))
        else:
            self._err(session, c, rules.CODE_NAMES[code])
        self._after(before)

    # ---- sessions coming and going ------------------------------------------------------------

    def detach(self, session):
        """session is gone (closed, idle, replaced, left): free its place or start the grace."""
        role = session.role
        session.role = NO_ROLE
        if role == OBSERVER:
            if session in self.observers:
                self.observers.remove(session)
            self.log("game: observer left (%d watching)" % len(self.observers))
            self._room()
        elif role == 1 or role == 2:
            seat = self.seats[role]
            if seat.session is session:  # a replaced (stale) session no longer owns the seat
                seat.session = None
                seat.gone_at = self.ticks_ms()
                self.log("game: seat %d away" % role)
                self._room()

    def tick(self):
        """Called by the timer task (every 50 ms): the clock, grace periods, the start."""
        m = self.match
        if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
            before = m.state_seq
            m.advance(self.now_ms())  # ends the countdown and the finish window on time
            self._after(before)
        now = self.ticks_ms()
        for number in (1, 2):
            seat = self.seats[number]
            if seat.token is not None and seat.session is None:
                if seat.leaving or self.ticks_diff(now, seat.gone_at) >= self.grace_ms:
                    self._expire(seat)

    def _expire(self, seat):
        m = self.match
        if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
            before = m.state_seq
            code = m.forfeit(seat.number, self.now_ms())
            self._after(before)
            if code == rules.EXITED:
                return  # already out of the maze: the finish window decides; free it later
            self.log("game: seat %d forfeits" % seat.number)
        seat.free()
        self.log("game: seat %d free" % seat.number)
        self._room()

    def _maybe_start(self):
        s1 = self.seats[1]
        s2 = self.seats[2]
        if not (s1.want and s2.want and s1.session is not None and s2.session is not None):
            return
        m = self.match
        if m.phase == _FINISHED:
            m.reset(self._seed())
            self.match_no += 1
            gc.collect()  # the maze generation's temporaries
        if m.phase != _WAITING:
            return
        s1.want = False
        s2.want = False
        self._ms = 0
        self._ticks = self.ticks_ms()
        before = m.state_seq
        m.start(0)
        self.log("game: match %d starts" % self.match_no)
        self._after(before, True)
        self._room()

    # ---- outbound -----------------------------------------------------------------------------

    def _after(self, before, changed=False):
        """After an engine call: route its events, and publish views if state changed."""
        if self.match.ev_count:
            self._route_events()
        if changed or self.match.state_seq != before:
            self.epoch += 1
            for number in (1, 2):
                session = self.seats[number].session
                if session is not None:
                    session.view_changed()
            for session in self.observers:
                session.view_changed()

    def _send(self, mask, text):
        data = frame(text)
        if mask & 1 and self.seats[1].session is not None:
            self.seats[1].session.post(data)
        if mask & 2 and self.seats[2].session is not None:
            self.seats[2].session.post(data)
        if mask & 4:
            for session in self.observers:
                session.post(data)

    def _route_events(self):
        m = self.match
        for i in range(m.ev_count):
            kind = m.ev_kind[i]
            a = m.ev_a[i]
            b = m.ev_b[i]
            head = '{"t":"ev","e":"%s","s":%d' % (rules.EVENT_NAMES[kind], m.state_seq)
            if kind == rules.EV_PHASE:
                mask = _TO_ALL
                text = '%s,"ph":"%s"' % (head, rules.PHASE_NAMES[a])
                if a == _COUNTDOWN:
                    text += ',"ms":%d' % m.countdown_ms
            elif kind == rules.EV_RESULT:
                mask = _TO_ALL
                text = '%s,"result":"%s","winner":%d' % (head, rules.RESULT_NAMES[a], b)
            elif kind == rules.EV_MEETING:
                mask = _TO_ALL  # both players stand on the cell; observers see everything
                text = '%s,"seat":%d,"n":%d' % (head, a, b)
            elif kind == rules.EV_KEY_RETURNED:
                mask = _TO_ALL  # only ever part of a meeting
                text = '%s,"owner":%d,"from":%d' % (head, a, b)
            elif kind == rules.EV_VISION:
                mask = _TO_OBS | a  # the radius is the player's own secret
                text = '%s,"seat":%d' % (head, a)
            elif kind == rules.EV_COMPASS:
                mask = _TO_OBS | a  # the bearing is for its owner only
                text = '%s,"seat":%d,"bearing":"%s"' % (head, a, rules.BEARING_NAMES[b])
            elif kind == rules.EV_KEY_PICKED or kind == rules.EV_KEY_DROPPED:
                mask = self._seen_by(a, m.pos[a])
                text = '%s,"seat":%d,"owner":%d' % (head, a, b)
            elif kind == rules.EV_EXIT_OPENED:
                mask = self._seen_by(a, m.pos[a])
                text = '%s,"seat":%d' % (head, a)
            elif kind == rules.EV_EXITED:
                # The opponent hears of it only if the exit cell was in its square.
                mask = self._seen_by(a, m.pos[a])
                text = '%s,"seat":%d,"first":%s' % (head, a, _bool(b == 0))
            else:
                continue  # EV_MOVED: the views show moves
            self._send(mask, text + "}")

    def _seen_by(self, seat, cell):
        """The seat itself, the observers, and the other seat if cell lies in its square."""
        other = 3 - seat
        mask = _TO_OBS | seat
        if not self.match.exited[other] and self.proj.visible(self.match, other, cell):
            mask |= other
        return mask

    def _welcome(self, session, seat, resumed):
        m = self.match
        if seat is None:
            return (
                '{"t":"welcome","role":"watch","seat":0,"mn":%d,"w":%d,"h":%d,"cool":%d,'
                '"cd":%d,"idle":%d}'
                % (self.match_no, m.width, m.height, m.cooldown_ms, m.countdown_ms, self.idle_ms)
            )
        return (
            '{"t":"welcome","role":"play","seat":%d,"token":"%s","last":%d,"resumed":%s,'
            '"mn":%d,"w":%d,"h":%d,"cool":%d,"cd":%d,"idle":%d,"grace":%d}'
            % (
                seat.number,
                seat.token,
                seat.last_c,
                _bool(resumed),
                self.match_no,
                m.width,
                m.height,
                m.cooldown_ms,
                m.countdown_ms,
                self.idle_ms,
                self.grace_ms,
            )
        )

    def _room(self):
        """The public lobby line (names, presence, ready flags) to everyone joined."""
        parts = []
        for number in (1, 2):
            seat = self.seats[number]
            if seat.token is None:
                parts.append("null")
            else:
                parts.append(
                    '{"seat":%d,"name":%s,"on":%s,"ready":%s}'
                    % (number, json.dumps(seat.name), _bool(seat.session), _bool(seat.want))
                )
        text = '{"t":"room","mn":%d,"ph":"%s","p":[%s,%s],"obs":%d,"max_obs":%d}' % (
            self.match_no,
            rules.PHASE_NAMES[self.match.phase],
            parts[0],
            parts[1],
            len(self.observers),
            self.max_observers,
        )
        self._send(_TO_ALL, text)

    # ---- views --------------------------------------------------------------------------------

    def plan_view(self, role):
        """Plan role's view of the current state; returns its record count."""
        if self._plan_role != role or self._plan_epoch != self.epoch:
            self._plan_role = role
            self._plan_epoch = self.epoch
            self._plan_count = self.proj.begin(self.match, role)
        return self._plan_count

    def player_frame(self, role, i, buf):
        """Write record i of role's current view as one frame into buf; returns its length.
        Re-plans if another view was planned in between (same epoch: the same records)."""
        self.plan_view(role)
        rec = self.proj.record(i)
        n = len(rec)
        head = put_header(buf, n)
        buf[head : head + n] = rec
        return head + n

    def observer_view(self):
        """The current observer view (a SharedView): all its records as frames."""
        shared = self._shared
        if shared is not None and shared.epoch == self.epoch:
            return shared
        count = self.plan_view(OBSERVER)
        need = count * _RECORD_ROOM
        if shared is None or len(shared.buf) < need:
            self._shared = shared = None  # let the old buffer go before taking a bigger one
            shared = SharedView(need)
            self._shared = shared
        buf = shared.buf
        proj = self.proj
        pos = 0
        for i in range(count):
            n = proj.write(i)
            if n < 126:
                buf[pos] = 0x81
                buf[pos + 1] = n
                pos += 2
            else:
                buf[pos] = 0x81
                buf[pos + 1] = 126
                buf[pos + 2] = n >> 8
                buf[pos + 3] = n & 0xFF
                pos += 4
            buf[pos : pos + n] = proj.mv[:n]
            pos += n
        shared.length = pos
        shared.epoch = self.epoch
        return shared

    def match_summary(self):
        m = self.match
        return "%dx%d maze, cooldown %d ms, countdown %d ms, %d observers max" % (
            m.width,
            m.height,
            m.cooldown_ms,
            m.countdown_ms,
            self.max_observers,
        )

    def status(self):
        """Figures for a status page."""
        present = 0
        held = 0
        for number in (1, 2):
            if self.seats[number].session is not None:
                present += 1
            if self.seats[number].token is not None:
                held += 1
        return {
            "phase": rules.PHASE_NAMES[self.match.phase],
            "match": self.match_no,
            "players": present,  # connected now
            "seats": held,  # taken, connected or inside their reconnect grace period
            "max_observers": self.max_observers,
            "observers": len(self.observers),
        }


def heap():
    """' (heap used N, free N)' after a collection: logged when people come and go."""
    gc.collect()
    try:
        return " (heap used %d, free %d)" % (gc.mem_alloc(), gc.mem_free())
    except AttributeError:  # CPython
        return ""
