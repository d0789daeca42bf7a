# The view publisher: the one way game state reaches the sockets. It keeps the view epoch
# (+1 whenever any view may have changed) and the Projector with which view it last planned.
# Sessions subscribe with a role (a seat, or OBSERVER); the gateway's pump asks `due(session)`
# and writes the frames of its role's newest view. Which view a session was last sent is the
# publisher's business: a session whose sent_epoch is -1 is sent the whole view again.
#
# Frames are written where the projector wrote the records, with no copy: every record has
# room for its frame header in front of it (the projector's headroom and gaps), and a view of
# several records has them one after another, so a view is one write, and every observer
# gets the same bytes. A session's write either hands the bytes to the socket or copies what
# is left, so no writer holds on to these buffers across an await; only when the heap has no
# room for that copy does a session keep the rest where it is, and `held` (that session) then
# stops every view (the buffers stay as they are) until its flush has it out (net.gateway).
#
#   views = ViewPublisher(match)
#   views.attach(session, role)      # after a join: the session now wants this role's views
#   views.changed()                  # after an engine call that changed the state
#   views.detach(session)            # the session left
from game.compat import const
from game.projector import Projector
from net.frames import head_size, put_header

# Numbers of other firmware modules, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py).
_HEAD_ROOM = const(48)  # before a player's record: its frame header, and the ack before it
_OBSERVER = const(0)
_OP_TEXT = const(1)

NO_VIEW = const(-1)  # view_role of a session that receives no views


class ViewPublisher:
    def __init__(self, match):
        self.match = match
        self.epoch = 0
        self.proj = Projector(_HEAD_ROOM, head_size)
        self.sessions = []  # subscribed sessions, each with view_role and sent_epoch
        self._plan_role = NO_VIEW  # whose view the projector has planned, for which epoch
        self._plan_epoch = -1
        self._plan_count = 0
        self._obs_epoch = -1  # the epoch of the observers' frames in the projector's obs
        # a session whose writer keeps the rest of its view in the projector's buffers (the
        # heap had no room for a copy: net.gateway): no view is planned or written until its
        # flush has it out (and makes every session due again)
        self.held = None
        # The projector's buffers for this match's size, made now with the other long-lived
        # objects: made by the first observer's view, late in a fragmented heap, the largest
        # (about 750 bytes for 15x15) may find no free block that large.
        self.proj.begin(match, _OBSERVER)

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

    def changed(self):
        """The state may have changed: every subscribed session is owed a new view."""
        self.epoch += 1
        for session in self.sessions:
            session.wake()

    def due(self, session):
        """True when session is subscribed and has not been sent the newest view (and no
        session holds the buffers the view would be written in)."""
        return (
            session.view_role != NO_VIEW and session.sent_epoch != self.epoch and self.held is None
        )

    # ---- frames -----------------------------------------------------------------------------

    def frames(self, role, ctrl):
        """role's current view, every record as a frame, as one memoryview of the projector's
        buffers (valid until the next view is planned): the same bytes for every observer. A
        player's view of one record takes the control frames queued before it (ctrl, emptied)
        in front of it when they fit: the session's write is then one."""
        proj = self.proj
        if role == _OBSERVER and self._obs_epoch == self.epoch:
            return memoryview(proj.obs)[proj.obs_start : proj.obs_end]
        # role's view of the current state, planned once for each role and epoch
        if self._plan_role != role or self._plan_epoch != self.epoch:
            self._plan_role = role
            self._plan_epoch = self.epoch
            self._plan_count = proj.begin(self.match, role)
        count = self._plan_count
        out = proj.out
        lens = proj.lens  # (each record's bytes: no write() call, its index is in range)
        for i in range(count):
            n = lens[i]
            put_header(out, n, _OP_TEXT, proj.at[i] - head_size(n))
        if out is proj.store:  # one record: n is its length
            at = proj.at[0]
            start = at - head_size(n)
            if ctrl:
                pieces = []  # (a frame in pieces, net.frames.pieces, is a list of them)
                for data in ctrl:
                    if type(data) is list:
                        pieces.extend(data)
                    else:
                        pieces.append(data)
                size = 0
                for data in pieces:
                    size += len(data)
                if size <= start:
                    start -= size
                    p = start
                    for data in pieces:
                        out[p : p + len(data)] = data
                        p += len(data)
                    view = memoryview(out)[start : at + n]
                    del ctrl[:]  # (after the last allocation: a MemoryError loses no frame)
                    return view
            return memoryview(out)[start : at + n]
        # In the projector's obs, one after another: the observers' frames stay there for
        # this epoch, unless a player's view of more than one record takes obs.
        self._obs_epoch = self.epoch if role == _OBSERVER else -1
        return memoryview(out)[proj.obs_start : proj.obs_end]
