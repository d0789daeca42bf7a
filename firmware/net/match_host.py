# The match lifecycle around one game.engine.Match: who holds which seat, ready and rematch,
# the reconnect grace period and forfeit, the board's tick clock turned into match
# milliseconds, and who may hear which event.
#
# It owns no socket and writes no other module's field. A session (net.gateway.Session) is any
# object with `post_text(message, data=None)` (frame a message and queue it: net.frames.framed,
# the one place messages are framed; returns the frame, shared with the next session of a
# broadcast), `kill(code, reason)` and `wake()`; the host
# keeps its own record of which session holds which seat and which ones watch, tells the view
# publisher (net.views, given to it by net.wiring) who wants which views, and calls
# `views.changed()` after every engine call that changed the state. Seats change through their
# own methods (net.seats), the match log through its hooks (net.journal), and a match the log
# restores through `restore(restored)` (net.resume). Every message is built once
# (net.messages), framed once by the first session it goes to, and the same bytes are posted
# to every session entitled to it.
#
# Lifecycle: WAITING (seats fill, the first seated player may choose the ruleset, each player
# says ready) -> COUNTDOWN -> ACTIVE -> FINISHED (win, draw or forfeit) -> both ask for a
# rematch -> a new seed, straight into COUNTDOWN. A ruleset of best of N makes the matches a
# series: the score is carried across rematches until one seat has won N // 2 + 1; then the
# next rematch starts a new series (with the ruleset chosen meanwhile, if any).
import gc
import os

from game import rules, rulesets
from game.compat import const
from game.projector import OBSERVER
from net import intents, messages
from net.compat import heap_note, heap_report, ticks_diff, ticks_ms
from net.frames import MAX_MESSAGE
from net.journal import Journal
from net.seats import Seat, ask_ready, ready_left, seat_for, time_out

# Numbers of other firmware modules, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py).
_CLOSE_NORMAL = const(1000)
_CLOSE_REPLACED = const(4001)
_CLOSE_ROOM_FULL = const(4003)

NO_ROLE = const(-1)  # a session that has not joined (OBSERVER == 0, seats 1 and 2)
_PAIR = const(3)  # net.views: a TV's views, both players' own (the default; OBSERVER: full)

# game.rules' numbers, likewise
_CLOCK_LIMIT_MS = const(0x3FFFFFFF - 0x20000)
_WAITING = const(0)
_COUNTDOWN = const(1)
_ACTIVE = const(2)
_FINISHED = const(3)
_CMD_MOVE = const(1)
_CMD_DROP = const(2)
_OK = const(0)
_NOT_PLAYER = const(2)
_PHASE = const(4)
_EXITED = const(12)
_EV_VISION = const(3)
_EV_KEY_PICKED = const(4)
_EV_COMPASS = const(7)
_EV_EXIT_OPENED = const(8)
_EV_KEY_DROPPED = const(9)
_EV_EXITED = const(10)

_SEQ_AHEAD = const(1024)  # how far ahead of the seat's last sequence a new one may be
_SEQ_HALF = const(0x20000000)  # half the sequence space: further "ahead" is behind (a repeat)

# Who hears an event: bit 1 seat 1, bit 2 seat 2, bit 4 the observers.
_TO_ALL = const(7)
_TO_OBS = const(4)


class MatchHost:
    """Seats, observers and the one authoritative match. All methods are synchronous: the
    gateway calls them between awaits, so the match never changes under a half-done call."""

    def __init__(self, settings, views, log=print, ticks_ms=ticks_ms, ticks_diff=ticks_diff):
        self.log = log
        # MAX_MESSAGE bytes that a synchronous step may use between awaits: the gateway's
        # readers unmask a payload into it, the match log makes its header in it, the DNS
        # responder its replies, a new maze two of its tables (one buffer, not a few hundred
        # bytes each)
        self.scratch = bytearray(MAX_MESSAGE)
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        # the match log and the seed commitment (net/journal.py); paused: a match resumed
        # after a restart waits for both players, its clock stopped
        self.journal = Journal(getattr(settings, "log_keep", 8), log)
        self.paused = False
        # a match's length limit: at this many accepted commands it ends as a draw (the room
        # its log needs on flash is then bounded: docs/log.md)
        self.max_moves = getattr(settings, "max_moves", 2000)
        # The ruleset (game.rulesets): the one settings.json names (fixed), or classic, which
        # the lobby may change; and what settings.json fixes for every ruleset (None: the
        # ruleset's own).
        name = getattr(settings, "ruleset", None)
        self.ruleset = rulesets.find(name or rulesets.DEFAULT)[0]
        self.fixed = name is not None
        self._fix = (
            getattr(settings, "preset", None),
            getattr(settings, "cooldown_ms", None),
            getattr(settings, "countdown_ms", None),
            getattr(settings, "reconnect_grace_ms", None),
        )
        self.score = [0, 0, 0]  # wins per seat while both seats stay held ([0]: draws)
        self.trail = b""  # (made with the match: its size)
        self.match = self._new_match()
        self.views = views  # (net.views.ViewPublisher, made by net.wiring)
        views.follow(self.match)
        self.max_observers = settings.max_observers
        # whether a TV that asks for the whole maze gets it (settings "tv": "full"); else every
        # observer is sent both players' own views, nothing more (docs/protocol.md)
        self.full_tv = getattr(settings, "tv", "players") == "full"
        self.chooser = 0  # the first seated player (of those seated now), who may choose
        self.idle_ms = settings.idle_timeout_ms
        # a seated player facing an opponent in the waiting room must say ready this soon (0: no
        # limit), or the seat is free for someone else: nobody holds the room
        self.ready_ms = getattr(settings, "ready_timeout_ms", 0)
        self.seats = (None, Seat(1), Seat(2))
        self.observers = []
        self.match_no = 1
        # tells a board restart from a reconnect (its own random bits: _seed() would start
        # a new match's seed in the journal, and the match's seed is secret until its end)
        self.boot = int.from_bytes(os.urandom(4), "big") & 0x3FFFFFFF
        # the framed rules message (made by the first session it went to), made again only
        # when what it says changes (the ruleset, the chooser: _post_rules(None)): every join
        # posts these same bytes; dropped while a match runs
        self._rules_data = None
        # per seat, this match: accepted moves (and the cells stood on: trail, made with the
        # match) for the end of the match
        self.moves = [0, 0, 0]
        self._ms = 0  # match milliseconds since the countdown began
        self._ticks = ticks_ms()

    # ---- clock ------------------------------------------------------------------------------

    def now_ms(self):
        """Match time: ticks_ms differences summed (ticks_ms wraps on the board, the sum does
        not), clamped to the engine's limit (12 days into one match)."""
        t = self.ticks_ms()
        if not self.paused:
            self._ms += self.ticks_diff(t, self._ticks)
        self._ticks = t
        if self._ms > _CLOCK_LIMIT_MS:
            self._ms = _CLOCK_LIMIT_MS
        return self._ms

    def _seed(self):
        # the ruleset and the series score so far go in the match's log header, committed to
        # with the seed (net/journal.py)
        series = (
            rulesets.RULESETS.index(self.ruleset),
            self.ruleset[rulesets.BEST_OF] // 2,
            self.score[1],
            self.score[2],
        )
        # 16 random bytes, committed to; 30 bits reach the engine
        return self.journal.pick(series)

    def _new_match(self, m=None):
        """A match of the ruleset chosen (with what settings.json fixes; or m, one of it the
        match log rebuilt), with its grace and the end of a match's buffers."""
        fix = self._fix
        entry = self._built = self.ruleset
        if m is None:
            m = rulesets.new_match(self._seed(), entry, fix[0], fix[1], fix[2], self.scratch)
        self.grace_ms = entry[rulesets.GRACE_MS] if fix[3] is None else fix[3]
        # the end of a match's buffers, for this maze's size: the cells stood on (seat 1's
        # bitset, then seat 2's) and the reveal's frames (made now, not at the end)
        n = m.width * m.height
        if len(self.trail) != 2 * ((n + 7) >> 3):
            self.trail = self.reveal = None
            gc.collect()
            self.trail = bytearray(2 * ((n + 7) >> 3))
            self.reveal = messages.maze_buffers(n)
        return m

    def _zero_score(self):
        # in place: the list lives as long as the host (a new one, made late, would sit
        # among the sessions' objects)
        score = self.score
        score[0] = score[1] = score[2] = 0

    def series_over(self):
        """True when a seat has won the series of a best-of-N ruleset (single matches make
        no series: their score runs on while both seats stay held)."""
        need = self.ruleset[rulesets.BEST_OF] // 2 + 1
        return need > 1 and (self.score[1] >= need or self.score[2] >= need)

    # ---- who is who -------------------------------------------------------------------------

    def role_of(self, session):
        """The seat number (1, 2) session holds, OBSERVER, or NO_ROLE."""
        for number in (1, 2):
            if self.seats[number].session is session:
                return number
        if session in self.observers:
            return OBSERVER
        return NO_ROLE

    # ---- inbound ----------------------------------------------------------------------------

    def handle(self, session, intent):
        """Apply one parsed intent (net.intents.Intent) of session."""
        kind = intent.kind
        if kind == intents.ERROR:
            self._err(session, intent.c, intent.code)
            return
        if kind == intents.JOIN:
            self._join(session, intent)
            return
        role = self.role_of(session)
        if role == NO_ROLE:
            # nothing but a join keeps an unjoined socket busy: not even a ping (it is closed
            # JOIN_MS after the upgrade, net/gateway.py)
            self._err(session, intent.c, intents.NOT_JOINED)
        elif kind == intents.PING:
            session.post_text(messages.pong(intent.c))
        elif kind == intents.SYNC:
            # A client that lost a record asks for the whole current view again.
            self.views.resync(session)
        elif kind == intents.RULES:
            self._choose(session, role, intent)
        elif role == OBSERVER:
            if kind == intents.LEAVE:
                session.kill(_CLOSE_NORMAL, "left")
            else:
                self._err(session, intent.c, rules.CODE_NAMES[_NOT_PLAYER])
        else:
            self._command(session, self.seats[role], intent)

    def _err(self, session, c, code):
        session.post_text(messages.err(c, code))

    def _join(self, session, intent):
        if self.role_of(session) != NO_ROLE:
            self._err(session, -1, intents.ALREADY_JOINED)
            return
        if intent.role != intents.ROLE_PLAY:
            if len(self.observers) >= self.max_observers:
                self._refuse_full(session)
                return
            self.observers.append(session)
            # the whole maze only when asked for and allowed; else the players' own views
            full = intent.role == intents.ROLE_FULL and self.full_tv
            self.views.attach(session, OBSERVER if full else _PAIR)
            session.post_text(messages.welcome_observer(self, full))
            self._post_rules(session)
            self.log("game: observer joined (%d watching)%s" % (len(self.observers), heap_note()))
        elif intent.token is not None:
            seat = None
            for number in (1, 2):  # no early exit: the time does not tell which seat matched
                if self.seats[number].holds(intent.token):
                    seat = self.seats[number]
            if seat is None:
                self._err(session, -1, intents.BAD_TOKEN)
                return
            old = seat.session
            if old is not None and old is not session:
                # The newest holder of the token wins: the old socket is cut off at once and
                # anything it still sends is ignored (it holds no seat any more).
                self.views.detach(old)
                old.kill(_CLOSE_REPLACED, "seat taken over by a newer connection")
            self._bind(session, seat, intent.name)
            session.post_text(messages.welcome_player(self, seat, True))
            self._post_rules(session)
            self.log("game: seat %d resumed%s" % (seat.number, heap_note()))
        else:
            seat = seat_for(self.seats, getattr(session, "addr", None))
            if seat is False:
                self._err(session, -1, intents.ONE_SEAT)  # one device, one seat
                return
            if seat is None:
                self._refuse_full(session)
                return
            seat.take(intent.name)
            self.score[1] = self.score[2] = 0  # a new player: a new series
            if self.match.phase == _FINISHED:
                # a newcomer never sees (nor is named in) the last match's result
                self._fresh()
            to = session
            if not self.chooser:
                self.chooser = seat.number
                to = None  # the rules, saying who chooses, made again for everyone
            self._bind(session, seat)
            ask_ready(self.seats, self.ticks_ms())  # (each player's time to say ready starts)
            session.post_text(messages.welcome_player(self, seat, False))
            self._post_rules(to)
            self.log("game: seat %d taken%s" % (seat.number, heap_note()))
        session.post_text(self.journal.fair(self))  # the commitment (the seed, after the end)
        if (
            self.paused
            and self.journal.failed is None
            and self.seats[1].session is not None
            and self.seats[2].session is not None
        ):
            self.paused = False  # a resumed match goes on once both players are back
            self.log("log: both players are back")
        if self.match.phase == _FINISHED:
            self._end(session)  # then the figures and the maze
        if (
            len(self.observers) >= self.max_observers
            and self.seats[1].token is not None
            and self.seats[2].token is not None
        ):
            # a full room: no join is due (a reconnect makes the frame again), and its room is
            # the room's (/status, the ready messages, the match's start) once it is written
            self._rules_data = None
        self._room()
        self._maybe_start()

    # ---- the ruleset ------------------------------------------------------------------------

    def _post_rules(self, to):
        """The rules message to one session, or (None: the ruleset or the chooser changed) made
        again for everyone: every join posts the same frame (docs/memory.md, "Fragmentation on
        the join path"), framed by the first session it went to (a frame still queued keeps
        its bytes: mailboxes never write to a frame)."""
        if to is None:
            self._rules_data = None  # its room is free for the new one, unless still queued
            self._rules_data = self._send(_TO_ALL, self._rules_text())
        elif self._rules_data is None:
            self._rules_data = to.post_text(self._rules_text())
        else:
            to.post_text(None, self._rules_data)

    def _rules_text(self):
        entry = self.ruleset
        fix = self._fix
        maze = rulesets.preset(fix[0]) or rulesets.preset(entry[rulesets.PRESET])
        return messages.rules_line(
            entry,
            (
                maze[1],
                maze[2],
                entry[rulesets.COOLDOWN_MS] if fix[1] is None else fix[1],
                entry[rulesets.COUNTDOWN_MS] if fix[2] is None else fix[2],
                entry[rulesets.GRACE_MS] if fix[3] is None else fix[3],
                self.fixed,
                0 if self.fixed else self.chooser,
            ),
        )

    def _choose(self, session, role, intent):
        """The lobby's choice of ruleset: by the first seated player, before the match (or
        the next series) starts. Refusals: NOT_PLAYER (an observer), RULES_FIXED, NOT_CHOOSER,
        PHASE, UNKNOWN_RULESET; none changes anything."""
        c = intent.c
        if role == OBSERVER:
            code = rules.CODE_NAMES[rules.NOT_PLAYER]
        elif self.fixed:
            code = intents.RULES_FIXED
        elif role != self.chooser:
            code = intents.NOT_CHOOSER
        elif not (
            self.match.phase == _WAITING
            or (
                self.match.phase == _FINISHED
                and (
                    self.ruleset[rulesets.BEST_OF] == 1
                    or self.series_over()
                    or self.seats[3 - role].token is None  # the series ended with its seat
                )
            )
        ):
            # a match or a series runs: the choice is for before the next one
            code = rules.CODE_NAMES[rules.PHASE]
        else:
            entry, code = rulesets.find(intent.name)
        if code is not None:
            self._err(session, c, code)
            return
        session.post_text(messages.ack(c))
        if entry is self.ruleset:
            return
        self.ruleset = entry
        # both confirm again: what they said ready to was another game
        self.seats[1].ready(False)
        self.seats[2].ready(False)
        ask_ready(self.seats, self.ticks_ms())
        if self.match.phase == _WAITING:
            self.match = self._new_match()
            self.views.follow(self.match)
            gc.collect()
            self.views.changed()
        self.log("game: ruleset %s chosen" % entry[rulesets.ID])
        self._post_rules(None)
        self._room()

    def _refuse_full(self, session):
        self._err(session, -1, intents.ROOM_FULL)
        session.kill(_CLOSE_ROOM_FULL, "room full")

    def _bind(self, session, seat, name=None):
        seat.bind(session, name, getattr(session, "addr", None))
        self.views.attach(session, seat.number)

    def _command(self, session, seat, intent):
        c = intent.c
        # Client sequences count up from the seat's last one, modulo 2**30 (they wrap from
        # SEQ_MAX to 1). Behind or equal: a repeat, e.g. a resend after a reconnect, already
        # applied: change nothing. Ahead by more than SEQ_AHEAD: refused and not applied, so
        # no sequence can put a seat out of its own client's reach.
        ahead = (c - seat.last_c) & intents.SEQ_MAX
        if ahead == 0 or ahead > _SEQ_HALF:
            session.post_text(messages.ack_dup(c))
            return
        if ahead > _SEQ_AHEAD:
            self._err(session, c, intents.BAD_SEQ)
            return
        kind = intent.kind
        m = self.match
        if kind == intents.LEAVE:
            seat.leave(c)
            session.post_text(messages.ack(c))
            self.detach(session)
            session.kill(_CLOSE_NORMAL, "left")
            return
        if kind == intents.READY:
            if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
                self._err(session, c, rules.CODE_NAMES[_PHASE])
                return
            seat.applied(c)
            seat.ready(True)
            session.post_text(messages.ack(c))
            self._room()
            self._maybe_start()
            return
        # MOVE or DROP. Outside a running match the engine would say PHASE too; answering here
        # keeps the engine clock untouched until the countdown starts it at 0.
        if m.phase != _COUNTDOWN and m.phase != _ACTIVE:
            self._err(session, c, rules.CODE_NAMES[_PHASE])
            return
        if self.paused:
            # until both players are back, or (the log failed) until the board restarts
            code = intents.RESTART_PAUSE if self.journal.failed is None else intents.LOG_FAILED
            self._err(session, c, code)
            return
        before = m.state_seq
        if kind == intents.MOVE:
            code = m.enqueue(seat.number, _CMD_MOVE, intent.direction, self.now_ms())
        else:
            code = m.enqueue(seat.number, _CMD_DROP, 0, self.now_ms())
        if code == _OK:
            code = m.process()  # the FIFO never holds more than this one entry
        if code == _OK:
            if self.journal.push(m, seat, intent):  # on flash before the ack, or no ack
                self._halt()
                self._err(session, c, intents.LOG_FAILED)
                return
            seat.applied(c, True)
            if kind == intents.MOVE:
                self.moves[seat.number] += 1
                self._mark(seat.number)
        # The state above is complete before the reply is made: a reply the heap has no room
        # for (MemoryError) closes this session (net/gateway.py, 1011) after _after has run,
        # and the client's resend after it reconnects is acknowledged as a repeat.
        try:
            if code == _OK:
                # the seat's own count: the engine's command sequence would tell how many
                # commands the opponent sent, refused ones included
                session.post_text(messages.ack_move(c, seat.accepted))
            else:
                self._err(session, c, rules.CODE_NAMES[code])
        finally:
            self._after(before)

    # ---- sessions coming and going ------------------------------------------------------------

    def detach(self, session):
        """session is gone (closed, idle, replaced, left): free its place or start the grace."""
        self.views.detach(session)
        if session in self.observers:
            self.observers.remove(session)
            self.log("game: observer left (%d watching)" % len(self.observers))
            self._room()
            return
        for number in (1, 2):
            seat = self.seats[number]
            if seat.session is session:  # a replaced (stale) session no longer owns the seat
                seat.away(self.ticks_ms())
                self.log("game: seat %d away" % number)
                self._room()

    def tick(self):
        """Called by the timer task (every 50 ms): the clock, grace periods, the start."""
        m = self.match
        if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
            before = m.state_seq
            if self.paused or self.seats[1].accepted + self.seats[2].accepted < self.max_moves:
                m.advance(self.now_ms())  # ends the countdown and the finish window on time
            elif m.draw(self.now_ms()) == _OK:  # the length limit: a draw, on flash
                self.journal.push(m, None, None)
                self.log("game: match %d reached max_moves: a draw" % self.match_no)
            self._after(before)
        for number in (1, 2):
            if ready_left(self, self.seats[number]) == 0:
                time_out(self, self.seats[number])
        now = self.ticks_ms()
        for number in (1, 2):
            seat = self.seats[number]
            if seat.token is not None and seat.session is None:
                if seat.leaving or self.ticks_diff(now, seat.gone_at) >= self.grace_ms:
                    self._expire(seat)

    def _expire(self, seat):
        m = self.match
        if self.journal.failed is not None:
            return  # the match stays as its log has it until the board restarts
        if self.paused and self.seats[1].hashed and self.seats[2].hashed:
            self._abandon()
            return
        if m.phase == _COUNTDOWN or m.phase == _ACTIVE:
            before = m.state_seq
            code = m.forfeit(seat.number, self.now_ms())
            if code == _OK:
                self.journal.push(m, seat, None)  # the forfeit, on flash
            self._after(before)
            if code == _EXITED:
                return  # already out of the maze: the finish window decides; free it later
            self.log("game: seat %d forfeits" % seat.number)
        seat.free()
        self._zero_score()
        if self.chooser == seat.number:
            other = self.seats[3 - seat.number]
            self.chooser = other.number if other.token is not None else 0
            self._post_rules(None)
        self.log("game: seat %d free" % seat.number)
        if m.phase == _FINISHED and self.seats[3 - seat.number].token is None:
            self._fresh()  # its players are gone: the room waits afresh
        self._room()

    def _next(self):
        """The next match in place of the finished one: a new maze and match number, of the
        ruleset chosen meanwhile if another (a new match of it), else the same match reset."""
        if self._built is not self.ruleset:
            self.match = self._new_match()
            self.views.follow(self.match)
        else:
            self.match.reset(self._seed())
        self.match_no += 1
        gc.collect()  # the maze generation's temporaries

    def _fresh(self):
        """A finished match whose players left, or whose freed seat a newcomer takes: the
        room is a fresh waiting room (a new maze and match number, no result, nobody ready;
        the series score is already zero)."""
        self._next()
        self.seats[1].ready(False)
        self.seats[2].ready(False)
        self.views.changed()
        self.log("game: match %d waits" % self.match_no)

    def _abandon(self):
        """A resumed match whose players both stayed away for the whole grace period ends
        without a result (its log closed as abandoned) and the room starts afresh: nobody wins
        or loses a match the restart interrupted."""
        self._send(_TO_ALL, self.journal.end(self, 0, 0))
        self.paused = False
        self.match.reset(self.journal.pick())
        self.match_no += 1
        self.seats[1].free()
        self.seats[2].free()
        self.views.changed()
        self._room()

    def _maybe_start(self):
        s1 = self.seats[1]
        s2 = self.seats[2]
        if not (s1.want and s2.want and s1.session is not None and s2.session is not None):
            return
        m = self.match
        if m.phase == _FINISHED:
            if self.series_over():
                self.score[1] = self.score[2] = 0  # a new series
            if self._built is not self.ruleset:
                self._zero_score()  # another ruleset: another series
            self._next()
            m = self.match
        if m.phase != _WAITING:
            return
        short = self.journal.room(self)  # room on flash for this match's whole log
        if short:
            s1.ready(False)
            s2.ready(False)
            self._send(_TO_ALL, messages.err(0, intents.LOG_FULL))
            self._room()
            return
        # the lobby's joins are over: the rules frame's room is the match's (a join during
        # the match makes it again), first of all (the match log's files and the messages of
        # the start may take its room)
        self._rules_data = None
        s1.new_match()
        s2.new_match()
        for i in range(len(self.trail)):
            self.trail[i] = 0
        for number in (1, 2):
            self.moves[number] = 0
            self._mark(number)
        self._ms = 0
        self._ticks = self.ticks_ms()
        before = m.state_seq
        m.start(0)
        self.paused = False
        self.journal.begin(self)
        self.log("game: match %d starts" % self.match_no)
        if self.journal.failed is not None:
            self._halt()  # its header is not on flash: no move of it is acknowledged
        self._after(before, True)
        # the commitment, after the countdown's event and views (which then go out together,
        # as without a log) and long before a move can be accepted
        self._send(_TO_ALL, self.journal.fair(self))
        self._room()

    # ---- outbound -----------------------------------------------------------------------------

    def _after(self, before, changed=False):
        """After an engine call: the log, the series score and the views, then the messages
        (events; at the end the figures and the maze). What the match is never waits on a
        message: when the heap has no room for one (MemoryError) the rest of that call's
        messages are lost (and logged), never the log, the score or the views (which are
        preallocated: every client still sees the new state)."""
        m = self.match
        moved = changed or m.state_seq != before
        ended = moved and m.phase == _FINISHED
        if ended:
            self.score[m.winner] += 1
        try:
            fair = self.journal.changed(self)  # on flash before anyone hears of it
            if self.journal.failed is not None:
                self._halt()  # not on flash: nobody hears of it
                return
            if fair is not None:
                self._send(_TO_ALL, fair)  # the end: the seed
            if m.ev_count:
                self._route_events()
        except MemoryError:
            self._lost()
        if moved:
            self.views.changed()
        if ended:
            try:
                self._end(None)
                self._room()  # the series score
                # the heap between matches: what stays, and how fragmented it is
                heap_report("match %d finished" % self.match_no, self.log)
            except MemoryError:
                self._lost()

    def _halt(self):
        """The match log failed (a full or failing flash): the match stops where its log
        does, its clock too, and refuses every move with LOG_FAILED until the board restarts
        and resumes it from the log (docs/log.md). Said once to everyone (paused is then 2:
        halted, not only paused)."""
        if self.paused != 2:
            self.paused = 2
            self._send(_TO_ALL, messages.err(0, intents.LOG_FAILED))
            self.log("game: match %d paused: %s" % (self.match_no, self.journal.failed))

    def _lost(self):
        gc.collect()
        self.log("game: MemoryError: messages lost")

    def _mark(self, number):
        cell = self.match.pos[number]
        self.trail[(number - 1) * (len(self.trail) >> 1) + (cell >> 3)] |= 1 << (cell & 7)

    def _end(self, to):
        """The end of a match, to `to` or (None) everyone: its figures, the whole maze and
        both paths (docs/protocol.md, "End of a match")."""
        for k in range(len(self.reveal)):
            data = messages.maze(self, k)
            if to is None:
                self._send(_TO_ALL, data)
            else:
                to.post_text(data)

    def _send(self, mask, message, data=None):
        """A message to an audience (a mask of _TO_* bits), framed once by the first session
        and shared by the others (unless `data` is its frame already); returns the frame."""
        if mask & 1 and self.seats[1].session is not None:
            data = self.seats[1].session.post_text(message, data)
        if mask & 2 and self.seats[2].session is not None:
            data = self.seats[2].session.post_text(message, data)
        if mask & 4:
            for session in self.observers:
                data = session.post_text(message, data)
        return data

    def _route_events(self):
        m = self.match
        for i in range(m.ev_count):
            text = messages.event(m, i)
            if text is not None:
                self._send(self._audience(m.ev_kind[i], m.ev_a[i]), text)

    def _audience(self, kind, a):
        """Who may hear an event (a mask of _TO_* bits); a is the event's first value."""
        if kind == _EV_VISION or kind == _EV_COMPASS:
            return _TO_OBS | a  # the radius and the bearing are the player's own secrets
        if (
            kind == _EV_KEY_PICKED
            or kind == _EV_KEY_DROPPED
            or kind == _EV_EXIT_OPENED
            or kind == _EV_EXITED
        ):
            # The seat itself and the observers; the opponent only if the player's cell was
            # in its square.
            m = self.match
            other = 3 - a
            if not m.exited[other] and self.views.visible(m, other, m.pos[a]):
                return _TO_OBS | a | other
            return _TO_OBS | a
        # phase, result; meetings (both players stand on the cell) and the keys they return
        return _TO_ALL

    def _room(self):
        """The public lobby line (names, presence, ready flags) to everyone joined; the room
        kept on flash when it changed (net.journal: seats, ruleset, score, match number)."""
        self.journal.keep(self)
        self._send(_TO_ALL, messages.room(self))

    # ---- figures ------------------------------------------------------------------------------

    def status(self):
        """The match's /status figures, as JSON members in pieces of under ~80 bytes (net.portal
        adds its own; text to go inside an object, after its "{"): the phase, the match number,
        players connected now, seats taken (connected or inside their reconnect grace period),
        and the observers."""
        present = 0
        held = 0
        for number in (1, 2):
            if self.seats[number].session is not None:
                present += 1
            if self.seats[number].token is not None:
                held += 1
        return [
            b"{",
            '"phase":"%s","ruleset":"%s","match":%d'
            % (rules.PHASE_NAMES[self.match.phase], self.ruleset[rulesets.ID], self.match_no),
            ',"players":%d,"seats":%d,"max_observers":%d,"observers":%d'
            % (present, held, self.max_observers, len(self.observers)),
            # why the match is paused or does not start: its log (docs/log.md)
            ',"log":"%s"' % (self.journal.failed or self.journal.short or "ok"),
        ]


# ---- a match the log restores (net.resume, at boot): module functions, not methods, so the
# wiring deletes them once the board runs (net.wiring.drop_boot_code: their bytecode is freed)


def scratch(host, entry):
    """A match of ruleset entry as this board plays it (what settings.json fixes replaces
    the ruleset's numbers), for net.resume to rebuild a logged match in; None when
    settings.json fixes another ruleset. The host is not changed."""
    if entry is not host.ruleset and host.fixed:
        return None
    fix = host._fix
    return rulesets.new_match(0, entry, fix[0], fix[1], fix[2])


def restore(host, restored):
    """Apply what net.resume rebuilt (a net.resume.Restored): the ruleset (unless
    settings.json fixes one), the series score and the chooser, and, when its match goes on
    (restored.n), the match rebuilt, the log, the match number, both seats (held for their
    players' tokens), the clock from its last logged time, paused until both are back; when
    none goes on, with the room file (restored.seats), its match number and seats held. Nothing
    here fails on the flash: net.resume has done all of that (its files are open)."""
    from net.journal import reopen  # (local names: the module functions are deleted later)
    from net.seats import restore as restore_seat

    head = restored.head
    host.score[1], host.score[2] = restored.score
    host.chooser = restored.chooser
    if not host.fixed:
        host.ruleset = restored.entry
    if host.series_over():  # (the room file's, after a series' last match) a new series
        host._zero_score()
    now = host.ticks_ms()
    if not restored.n:  # finished or abandoned: a new match (of its ruleset)
        host.match = host._new_match()
        host.views.follow(host.match)
        if restored.seats is not None:  # the room between matches, as the room file kept it
            host.match_no = restored.number
            for s in (1, 2):
                if head.players[s]:  # a seat held (a held seat has a name)
                    restore_seat(
                        host.seats[s], head.token_hash[s], head.players[s], head.last_c[s], 0, now
                    )
            ask_ready(host.seats, now)
        return
    host.match = m = host._new_match(restored.match)
    host.views.follow(m)
    reopen(host.journal, restored.n, head, restored.count, restored.seq, restored.handles)
    host.match_no = restored.number
    for s in (1, 2):
        restore_seat(
            host.seats[s],
            head.token_hash[s],
            head.players[s],
            restored.last_c[s],
            restored.accepted[s],
            now,
        )
    host._ms = restored.now  # the match clock goes on from the last logged time ...
    host._ticks = now
    host.paused = True  # ... once both players are back (_join)
    host.views.changed()
