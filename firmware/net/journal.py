# The match log on flash, the seed commitment, and the hooks a resumed match needs (docs/log.md).
# MatchHost owns one Journal and calls its hooks; the encoding is game.matchlog's; at boot
# net/resume.py takes the log folder into use and resumes an unfinished match.
#
#   journal = Journal(params, budget_kb, log)   # net.match_host (params: match_parameters())
#   seed = journal.reseed()                     # every new match: 16 bytes of os.urandom
#   journal.route(app)                          # GET /logs (list), GET /logs?n=N (one log)
#
# Hooks (net/match_host.py): begin() when a match starts, command() for an accepted move or
# drop BEFORE its ack is posted, forfeit(), changed() after every engine call, before anyone
# hears of it (a clock advance that changed the state; the end), on_join() and welcome() when
# someone joins, abandon() when a resumed match's players stay away.
#
# Files of match n in the log folder: n.mdl (header, then entries appended GROUP at a time)
# and, while the match runs, n.tl: the entries not yet in n.mdl, rewritten whole (120 bytes)
# for every entry. LittleFS copies a file's last block on every append after a sync, but keeps
# a file of at most 128 bytes inline in its directory's metadata, where a rewrite is one small
# commit (docs/platform.md): so an entry costs one small commit, and every GROUP-th entry one
# append to n.mdl. The two overlap after a crash between the two writes; entries carry their
# own number in their check, and the reader drops what n.mdl already has.
import os
from binascii import hexlify
from hashlib import sha256

from game import matchlog
from game.compat import const
from game.rules import CMD_MOVE, FINISHED, WAITING
from net import messages
from net.frames import frame
from net.seats import Seat

_MAX_LOGS = const(32)  # finished logs kept at most, whatever their size
_TO_ALL = const(7)  # net.match_host's audience mask: both seats and the observers


class Journal:
    GROUP = 14  # entries the tail file holds; 8 + 14 * 8 = 120 bytes: inline on LittleFS

    def __init__(self, params, budget_kb=64, log=print):
        self.params = params
        self.budget = budget_kb * 1024
        self.log = log
        self.seed = None  # the current match's seed (16 bytes) and its commitment (32)
        self.commit = None
        self.done = False  # the current match has ended: its seed may be shown
        self.folder = None  # None: nothing on flash (host tests; net/resume.py sets it)
        self.number = 0  # the newest log number on flash
        self.live = 0  # the log number of the match in progress: never served
        self.logged = 0  # the log number of the current match once complete, 0: none
        self.main = None  # the open files while a match is logged
        self.tailf = None
        self.tail = bytearray(8 + 8 * Journal.GROUP)  # first, count, check, entries
        self.group = memoryview(self.tail)[8:]
        self.index = 0  # entries of the current match
        self.pending = 0  # ... of them only in the tail so far
        self.seq = 0  # the state sequence the log accounts for

    @staticmethod
    def path(folder, n, ext):
        return "%s/%d.%s" % (folder, n, ext)

    @staticmethod
    def remove(name):
        try:
            os.remove(name)
        except OSError:
            pass

    # ---- the seed ---------------------------------------------------------------------------

    def reseed(self):
        """A new match's seed: 16 bytes from os.urandom, committed to (sha256 of the header's
        first 32 bytes: versions, play parameters, seed). Returns the engine's seed."""
        self.seed = os.urandom(16)
        self.commit = bytes(32)  # not part of what it commits to
        self.commit = sha256(self.header(None)[:32]).digest()
        self.done = False
        self.logged = 0
        return matchlog.engine_seed(self.seed, 0)

    def header(self, host):
        """The current match's header, packed (its seats: host's, if given)."""
        h = matchlog.Header(self.params, self.seed)
        h.commit = self.commit
        if host is not None:
            h.match_no = host.match_no
            for s in (1, 2):
                seat = host.seats[s]
                h.last_c[s] = seat.last_c
                h.token_hash[s] = Seat.token_hash(seat.token)
                h.players[s] = seat.name
        return h.pack(bytearray(matchlog.HEADER))

    def fair(self, host):
        """The `fair` message: the commitment; after the end also the committed bytes (the
        seed among them) and the log number."""
        pre = hexlify(self.header(None)[:32]).decode() if self.done else None
        return messages.fair(host.match_no, hexlify(self.commit).decode(), pre, self.logged)

    # ---- hooks of net.match_host ------------------------------------------------------------

    def begin(self, host):
        """The match starts (its countdown): the header to flash, the commitment to all."""
        self.index = self.pending = 0
        self.seq = host.match.state_seq
        host.paused = False
        if self.folder is not None:
            self.number += 1
            self.live = n = self.number
            try:
                self.main = open(Journal.path(self.folder, n, "mdl"), "wb")
                self.main.write(self.header(host))
                self.main.flush()
                self.tailf = open(Journal.path(self.folder, n, "tl"), "wb")
                self.put_tail()
                self.logged = n
            except OSError as exc:
                self._lost(exc)
        host._send(_TO_ALL, self.fair(host))

    def command(self, m, seat, intent):
        """An accepted move or drop (seat's intent, before its last_c moves on): on flash
        before its ack is posted."""
        self.seq = m.state_seq
        kind = matchlog.MOVE if m.done_kind == CMD_MOVE else matchlog.DROP
        step = (intent.c - seat.last_c - 1) & 0x3FFFFFFF
        self._append(kind, seat.number, intent.direction, step, m.now)

    def forfeit(self, m, number):
        self.seq = m.state_seq
        self._append(matchlog.FORFEIT, number, 0, 0, m.now)

    def changed(self, host):
        """After an engine call, before its events go out: a change nothing logged explains
        came from the clock (countdown end, finish window); the end closes the log."""
        m = host.match
        if self.done or m.phase == WAITING:
            return
        if m.state_seq != self.seq:
            self.seq = m.state_seq
            self._append(matchlog.CLOCK, 0, 0, 0, m.now)
        if m.phase == FINISHED:
            self._append(matchlog.CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
            self._end(host, m.winner, m.result)

    def on_join(self, host, session):
        """After a join: the commitment (and the seed, after the end) to the new session. A
        resumed match goes on once both players are back."""
        session.post(frame(self.fair(host)))
        seats = host.seats
        if host.paused and seats[1].session is not None and seats[2].session is not None:
            host.paused = False
            host.log("log: both players are back")

    def welcome(self, seat, text):
        """A welcome for seat: flagged `restarted` the first time after a resume."""
        if seat.restored:
            seat.restored = False
            return text[:-1] + ',"restarted":true}'
        return text

    def abandon(self, host):
        """A resumed match whose players both stayed away for the whole grace period ends
        without a result (END, abandoned) and the room starts afresh: nobody wins or loses a
        match the restart interrupted. False if a player came back (then a forfeit, as ever)."""
        seats = host.seats
        if seats[1].hashed is None or seats[2].hashed is None:
            return False
        self._end(host, 0, 0)
        host.paused = False
        host.match.reset(self.reseed())
        host.match_no += 1
        seats[1].free()
        seats[2].free()
        host.views.changed()
        host._room()
        return True

    # ---- files ------------------------------------------------------------------------------

    def _append(self, kind, seat, arg, aux, value):
        # allocates nothing: the entry is encoded into the tail buffer, which is written whole
        i = self.index
        self.index = i + 1
        if self.tailf is None:
            return
        matchlog.put_entry(self.tail, 8 + 8 * self.pending, i, kind, seat, arg, aux, value)
        self.pending += 1
        try:
            self.put_tail()
            if self.pending == Journal.GROUP:
                self.main.write(self.group)
                self.main.flush()
                self.pending = 0
        except OSError as exc:
            self._lost(exc)

    def put_tail(self):
        t = self.tail
        matchlog.put_uint(t, 0, 4, self.index - self.pending)
        t[4] = self.pending
        t[5] = 0
        matchlog.put_uint(t, 6, 2, matchlog.fletcher(t, 0, 6, 0, 0))
        f = self.tailf
        f.seek(0)
        f.write(t)
        f.flush()

    def _end(self, host, winner, result):
        """The last entry, the tail folded into the log, the seed revealed to everyone."""
        self.done = True
        self._append(matchlog.END, winner, result, 0, host.match.now)
        if self.tailf is not None:
            try:
                if self.pending:
                    self.main.write(self.group[: 8 * self.pending])
                self.main.close()
                self.tailf.close()
                os.remove(Journal.path(self.folder, self.live, "tl"))
            except OSError as exc:
                self._lost(exc)
        self.main = self.tailf = None
        self.live = 0
        self.prune()
        host._send(_TO_ALL, self.fair(host))

    def _lost(self, exc):
        self.log("log: %d.mdl lost: %r" % (self.number, exc))
        for f in (self.main, self.tailf):
            try:
                f.close()
            except (OSError, AttributeError):
                pass
        self.main = self.tailf = None
        self.logged = 0

    def listed(self):
        """The numbers of the logs on flash but the live one, in order."""
        found = []
        for name in os.listdir(self.folder):
            dot = name.find(".")
            if name[dot + 1 :] == "mdl" and name[:dot].isdigit() and int(name[:dot]) != self.live:
                found.append(int(name[:dot]))
        found.sort()
        return found

    def prune(self):
        """Delete finished logs, oldest first, until they fit the budget (and _MAX_LOGS)."""
        if self.folder is None:
            return
        try:
            logs = []
            total = 0
            for n in self.listed():
                size = os.stat(Journal.path(self.folder, n, "mdl"))[6]
                logs.append((n, size))
                total += size
            while logs and (total > self.budget or len(logs) > _MAX_LOGS):
                n, size = logs.pop(0)
                Journal.remove(Journal.path(self.folder, n, "mdl"))
                total -= size
        except OSError as exc:  # a flash that fails here must not stop the game
            self.log("log: prune: %r" % (exc,))

    def route(self, app):
        """GET /logs: the numbers of the finished logs on flash (JSON); GET /logs?n=N: log N.
        The log of the match in progress is never served: its header holds the secret seed."""
        import json

        from microdot import Response

        def logs(request):
            n = request.args.get("n")
            found = [] if self.folder is None else self.listed()
            if n is None:
                return Response(json.dumps(found), 200, {"Content-Type": "application/json"})
            if not n.isdigit() or int(n) not in found:
                return Response(b"", 404)
            name = Journal.path(self.folder, int(n), "mdl")
            size = str(os.stat(name)[6])
            headers = {"Content-Type": "application/octet-stream", "Content-Length": size}
            return Response(open(name, "rb"), 200, headers)

        app.route("/logs")(logs)
