# The view publisher: the one way game state reaches the sockets. It keeps the view epoch
# (+1 whenever any view may have changed) and the Projector with which view it last planned.
# Sessions subscribe with a role (a seat, OBSERVER: the whole maze, or PAIR: both players'
# own views, one after the other, the TV's default); the gateway's pump writes
# `frames(session, ctrl)` (None when no view is due), then says `sent(session, epoch)`. Which
# view a session wants and was last sent is the publisher's own state (lists beside its list
# of sessions, never a field of the session): `resync(session)` has the whole view sent again.
#
# Frames are written where the projector wrote the records, with no copy: every record has
# room for its frame header in front of it (the projector's headroom and gaps), and a view of
# several records has them one after another, so a view is one write, and every observer
# gets the same bytes. A session's write either hands the bytes to the socket or copies what
# is left, so no writer holds on to these buffers across an await; only when the heap has no
# room for that copy does a session keep the rest where it is: `hold(session)` then stops
# every view (the buffers stay as they are) until `release(session)` after its flush.
#
#   views = ViewPublisher()          # net.wiring; the host follows its first match
#   views.follow(match)              # the match whose views are published (a new one too)
#   views.attach(session, role)      # after a join: the session now wants this role's views
#   views.changed()                  # after an engine call that changed the state
#   views.detach(session)            # the session left
#
# A TV (docs/protocol.md, "The TV's view") is sent what the players are sent and no more: with
# the role PAIR, seat 1's view and then seat 2's, the very records (the same bytes) the seats'
# own sessions get. Its role in `roles` says which half is next (PAIR: seat 1's, PAIR_2: seat
# 2's); between the halves its entry in `sent_epochs` is -2 - the epoch of the first half
# (due, whatever the epoch), and after the second it is that first half's epoch: if the state
# moved on between the halves, both are sent again. Observers (OBSERVER and PAIR) are sent no
# view while the match waits for its players: the coming match's maze stays on the board.
from game.compat import const
from game.projector import Projector
from net.frames import head_size, put_header

# Numbers of other firmware modules, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py).
_HEAD_ROOM = const(48)  # before a player's record: its frame header, and the ack before it
_OBSERVER = const(0)
_OP_TEXT = const(1)
_WAITING = const(0)  # game.rules: the match's phase before the countdown

NO_VIEW = const(-1)  # view_role of a session that receives no views
PAIR = const(3)  # a TV's role: both players' views, seat 1's next
_PAIR_2 = const(4)  # the same, seat 2's view next


class ViewPublisher:
    def __init__(self):
        self.match = None
        self.epoch = 0
        self.proj = Projector(_HEAD_ROOM, head_size)
        # subscribed sessions, and beside each its role and the epoch it was last sent (-1:
        # the whole view again)
        self.sessions = []
        self.roles = []
        self.sent_epochs = []
        self._plan_role = NO_VIEW  # whose view the projector has planned, for which epoch
        self._plan_epoch = -1
        self._plan_count = 0
        self._obs_epoch = -1  # the epoch of the observers' frames in the projector's obs
        # a session whose writer keeps the rest of its view in the projector's buffers (the
        # heap had no room for a copy: net.gateway): no view is planned or written until its
        # flush has it out (and makes every session due again)
        self.held = None

    def follow(self, match):
        """Publish match's views from now on (the host's first match, or a new one). Its
        buffers for this match's size are made now, with the other long-lived objects: made
        by the first observer's view, late in a fragmented heap, the largest (about 750 bytes
        for 15x15) may find no free block that large."""
        first = self.match is None
        self.match = match
        if first:
            self.proj.begin(match, _OBSERVER)

    def visible(self, match, seat, cell):
        """True when cell is in seat's square of sight now (the projector's answer)."""
        return self.proj.visible(match, seat, cell)

    # ---- subscriptions ----------------------------------------------------------------------

    def attach(self, session, role):
        """session receives role's views from now on, starting with the whole current one."""
        if session in self.sessions:
            i = self.sessions.index(session)
            self.roles[i] = role
            self.sent_epochs[i] = -1
        else:
            self.sessions.append(session)
            self.roles.append(role)
            self.sent_epochs.append(-1)
        session.wake()

    def detach(self, session):
        if session in self.sessions:
            i = self.sessions.index(session)
            self.sessions.pop(i)
            self.roles.pop(i)
            self.sent_epochs.pop(i)

    def resync(self, session):
        """A client lost a record: the whole current view is sent again."""
        if session in self.sessions:
            self.sent_epochs[self.sessions.index(session)] = -1
            session.wake()

    def sent(self, session, epoch):
        """The view of epoch is written to session (for a TV, one of its two halves: after the
        first the session stays due, for the second). True when a view is still due to it at
        once (a TV's second half, or both again when the state moved on between them), which
        its writer then writes without asking due()."""
        if session not in self.sessions:
            return False
        i = self.sessions.index(session)
        role = self.roles[i]
        if role == PAIR:
            self.roles[i] = _PAIR_2
            epoch = -2 - epoch
        elif role == _PAIR_2:
            self.roles[i] = PAIR
            epoch = -2 - self.sent_epochs[i]  # the first half's (-1: send both again)
        self.sent_epochs[i] = epoch
        return epoch != self.epoch

    def hold(self, session):
        """session keeps the rest of a view in the projector's buffers: no view until its
        release."""
        self.held = session

    def release(self, session):
        """session's flush is over: if it held the buffers, every session is due again."""
        if self.held is session:
            self.held = None
            self.changed()

    def changed(self):
        """The state may have changed: every subscribed session is owed a new view (the
        gateway's pump sees the new epoch: Gateway.views_due)."""
        self.epoch += 1

    def due(self, session):
        """True when session is subscribed and has not been sent the newest view (and no
        session holds the buffers the view would be written in). An observer is owed none
        while the match waits for its players."""
        if self.held is not None or session not in self.sessions:
            return False
        i = self.sessions.index(session)
        if self.match.phase == _WAITING and (self.roles[i] == _OBSERVER or self.roles[i] > 2):
            return False
        return self.sent_epochs[i] != self.epoch

    # ---- frames -----------------------------------------------------------------------------

    def frames(self, session, ctrl):
        """None when no view is due to session (due()); else its role's current view, every
        record as a frame, as one memoryview of the projector's buffers (valid until the next
        view is planned): the same bytes for every observer. A player's view of one record
        takes the control frames queued before it (ctrl, emptied) in front of it when they
        fit: the session's write is then one."""
        if not self.due(session):
            return None
        role = self.roles[self.sessions.index(session)]
        if role > 2:
            role -= 2  # a TV: the seat whose view is next (the same bytes as its player's)
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
