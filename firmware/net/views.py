# The view publisher: the one way game state reaches the sockets. It keeps the view epoch
# (+1 whenever any view may have changed), the Projector and which view it last planned, and
# the observers' frames, encoded once and written to every observer. Sessions subscribe with
# a role (a seat, or OBSERVER); each session's writer task asks `due(session)` and writes the
# frames of its role's newest view. Which view a session was last sent is the publisher's
# business: `resync(session)` makes it send the whole view again.
#
#   views = ViewPublisher(match)
#   views.attach(session, role)      # after a join: the session now wants this role's views
#   views.changed()                  # after an engine call that changed the state
#   views.detach(session)            # the session left
from game.compat import const
from game.projector import OBSERVER, Projector
from net.frames import OP_TEXT, RECORD_FRAME, put_header

NO_VIEW = const(-1)  # view_role of a session that receives no views


class SharedView:
    """The observer view as ready frames, encoded once; every observer writes these bytes.
    Rewritten in place for each new state: a stream's write() either hands the bytes to the
    socket or copies what is left, so no writer ever holds on to this buffer across an await."""

    def __init__(self, capacity):
        self.buf = bytearray(capacity)
        self.length = 0
        self.epoch = -1


class ViewPublisher:
    def __init__(self, match):
        self.match = match
        self.epoch = 0
        self.proj = Projector()
        self.sessions = []  # subscribed sessions, each with view_role and sent_epoch
        self._plan_role = NO_VIEW  # whose view the projector has planned, for which epoch
        self._plan_epoch = -1
        self._plan_count = 0
        self._shared = None  # SharedView of the observers

    # ---- subscriptions ----------------------------------------------------------------------

    def attach(self, session, role):
        """session receives role's views from now on, starting with the whole current one."""
        session.view_role = role
        session.sent_epoch = -1
        if session not in self.sessions:
            self.sessions.append(session)
        session.wake()

    def detach(self, session):
        session.view_role = NO_VIEW
        if session in self.sessions:
            self.sessions.remove(session)

    def resync(self, session):
        """Send session the whole current view again, even if it has not changed."""
        session.sent_epoch = -1
        session.wake()

    def changed(self):
        """The state may have changed: every subscribed session is owed a new view."""
        self.epoch += 1
        for session in self.sessions:
            session.wake()

    def due(self, session):
        """True when session is subscribed and has not been sent the newest view."""
        return session.view_role != NO_VIEW and session.sent_epoch != self.epoch

    def sent(self, session, epoch):
        """session's writer has written the whole view of epoch."""
        session.sent_epoch = epoch

    # ---- frames -----------------------------------------------------------------------------

    def plan(self, role):
        """Plan role's view of the current state; returns its record count."""
        if self._plan_role != role or self._plan_epoch != self.epoch:
            self._plan_role = role
            self._plan_epoch = self.epoch
            self._plan_count = self.proj.begin(self.match, role)
        return self._plan_count

    def player_frame(self, role, i, buf):
        """Write record i of role's current view as one frame into buf (RECORD_FRAME bytes);
        returns its length. Re-plans if another view was planned in between (same epoch:
        the same records)."""
        self.plan(role)
        n = self.proj.write(i)
        head = put_header(buf, n)
        buf[head : head + n] = self.proj.mv[:n]
        return head + n

    def observer_frames(self):
        """The current observer view (a SharedView): all its records as frames."""
        shared = self._shared
        if shared is not None and shared.epoch == self.epoch:
            return shared
        count = self.plan(OBSERVER)
        need = count * RECORD_FRAME
        if shared is None or len(shared.buf) < need:
            self._shared = shared = None  # let the old buffer go before taking a bigger one
            shared = SharedView(need)
            self._shared = shared
        buf = shared.buf
        proj = self.proj
        pos = 0
        for i in range(count):
            n = proj.write(i)
            pos += put_header(buf, n, OP_TEXT, pos)
            buf[pos : pos + n] = proj.mv[:n]
            pos += n
        shared.length = pos
        shared.epoch = self.epoch
        return shared
