# The match log on flash, the seed commitment and the resume after a restart (docs/log.md).
# MatchHost owns one Journal and calls its hooks; the encoding is game.matchlog's.
#
#   journal = Journal(params, budget_kb, log)   # net.match_host (params: match_parameters())
#   seed = journal.draw()                       # every new match: 16 bytes of os.urandom
#   add_log_route(app, journal)                 # GET /logs (list), GET /logs?n=N (one log)
#
# At boot net/resume.py takes the log folder into use and resumes an unfinished match.
#
# Hooks (net/match_host.py): begin() when a match starts, command() for an accepted move or
# drop BEFORE its ack is posted, forfeit(), changed() after every engine call, before anyone
# hears of it (a clock advance that changed the state, the end), on_join() and welcome() when
# someone joins, abandon() when a resumed match's players stay away.
#
# Files of match n in LOG_DIR: n.mdl (header, then entries appended GROUP at a time) and,
# while the match runs, n.tl: the entries not yet in n.mdl, rewritten whole (120 bytes) for
# every entry. LittleFS copies a file's last block on every append after a sync, but keeps a
# file of at most 128 bytes inline in its directory's metadata, where a rewrite is one small
# commit (docs/platform.md): so an entry costs one small commit, and every GROUP-th entry one
# append to n.mdl. The two files overlap after a crash between the two writes; entries carry
# their own number in their check, and the reader drops what n.mdl already has.
import os
from binascii import hexlify, unhexlify
from hashlib import sha256

from game import matchlog
from game.compat import const
from game.rules import CMD_MOVE, FINISHED, WAITING
from net import messages
from net.frames import frame
from net.seats import token_hash

PAUSED = "PAUSED"  # refusal of a move or drop while a resumed match waits for its players
GROUP = const(14)  # entries the tail file holds before they move to the main file
_TAIL = const(120)  # 8 + GROUP * 8: under LittleFS's inline limit with MicroPython's defaults
_MAX_LOGS = const(32)  # finished logs kept at most, whatever their size
_TO_ALL = const(7)  # net.match_host's audience mask: both seats and the observers


def path(folder, n, ext):
    return "%s/%d.%s" % (folder, n, ext)


def remove(name):
    try:
        os.remove(name)
    except OSError:
        pass


class Journal:
    def __init__(self, params, budget_kb=64, log=print):
        self.params = params
        self.budget = budget_kb * 1024
        self.log = log
        self.head = None  # matchlog.Header of the current match (seed, commitment, seats)
        self.commit = ""  # its commitment, hex
        self.done = False  # the current match has ended: its seed may be shown
        self.folder = None  # None: nothing on flash (host tests; the board sets it at boot)
        self.number = 0  # the newest log number on flash
        self.live = 0  # the log number of the match in progress: never served
        self.logged = 0  # the log number of the current match once complete, 0: none
        self.main = None  # the open files while a match is logged
        self.tailf = None
        self.tail = bytearray(_TAIL)  # the tail file's bytes: first, count, check, entries
        self.group = memoryview(self.tail)[8:]
        self.index = 0  # entries of the current match
        self.pending = 0  # ... of them only in the tail so far
        self.seq = 0  # the state sequence the log accounts for

    # ---- the seed ---------------------------------------------------------------------------

    def draw(self):
        """A new match's seed: 16 bytes from os.urandom, committed to (sha256 of the header's
        first 32 bytes: versions, play parameters, seed). Returns the engine's seed."""
        h = matchlog.Header()
        h.width, h.height, h.pairs, h.braid, h.cooldown_ms, h.countdown_ms = self.params
        h.seed = os.urandom(matchlog.SEED)
        h.commit = sha256(_pre(h)).digest()
        self.head = h
        self.commit = hexlify(h.commit).decode()
        self.done = False
        self.logged = 0
        return matchlog.engine_seed(h.seed, 0)

    def fair(self, host):
        """The `fair` message of the current match: its commitment, and after its end the
        committed bytes (the seed among them) and its log number."""
        pre = hexlify(_pre(self.head)).decode() if self.done else None
        return messages.fair(host.match_no, self.commit, pre, self.logged)

    # ---- hooks of net.match_host ------------------------------------------------------------

    def begin(self, host):
        """The match starts (its countdown): the header to flash, the commitment to all."""
        h = self.head
        h.match_no = host.match_no
        for s in (1, 2):
            seat = host.seats[s]
            h.last_c[s] = seat.last_c
            h.token_hash[s] = unhexlify(token_hash(seat.token))
            h.names[s] = seat.name
        self.index = self.pending = 0
        self.seq = host.match.state_seq
        host.paused = False
        if self.folder is not None:
            self.number += 1
            self.live = n = self.number
            try:
                self.main = open(path(self.folder, n, "mdl"), "wb")
                self.main.write(h.pack(bytearray(matchlog.HEADER)))
                self.main.flush()
                self.tailf = open(path(self.folder, n, "tl"), "wb")
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
            self.done = True
            self._append(matchlog.CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
            self._append(matchlog.END, m.winner, m.result, 0, m.now)
            self._close()
            host._send(_TO_ALL, self.fair(host))

    def on_join(self, host, session):
        """After a join: the commitment (and the seed, after the end) to the new session. A
        resumed match goes on once both players are back."""
        session.post(frame(self.fair(host)))
        seats = host.seats
        if host.paused and seats[1].session is not None and seats[2].session is not None:
            host.paused = False
            host.log("game: both players are back, the match goes on")

    def welcome(self, seat, text):
        """A welcome for seat: flagged `restarted` the first time after a resume."""
        if seat.restored:
            seat.restored = False
            return messages.restarted(text)
        return text

    def abandon(self, host):
        """A resumed match whose players both stayed away for the whole grace period ends
        without a result (END, abandoned) and the room starts afresh: nobody wins or loses a
        match the restart interrupted. False if a player came back (then a forfeit, as ever)."""
        seats = host.seats
        if seats[1].hashed is None or seats[2].hashed is None:
            return False
        self.done = True
        self._append(matchlog.END, 0, 0, 0, host.match.now)
        self._close()
        host.paused = False
        host.match.reset(self.draw())
        host.match_no += 1
        seats[1].free()
        seats[2].free()
        host.log("log: %d.mdl abandoned" % self.number)
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
            if self.pending == GROUP:
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

    def _close(self):
        if self.tailf is not None:
            try:
                if self.pending:
                    self.main.write(self.group[: 8 * self.pending])
                self.main.close()
                self.tailf.close()
                os.remove(path(self.folder, self.live, "tl"))
            except OSError as exc:
                self._lost(exc)
        self.main = self.tailf = None
        self.live = 0
        self.prune()

    def _lost(self, exc):
        self.log("log: %d.mdl lost: %r" % (self.number, exc))
        for f in (self.main, self.tailf):
            try:
                f.close()
            except (OSError, AttributeError):
                pass
        self.main = self.tailf = None
        self.logged = 0

    def finished(self):
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
        folder = self.folder
        if folder is None:
            return
        logs = []
        total = 0
        for n in self.finished():
            size = os.stat(path(folder, n, "mdl"))[6]
            logs.append((n, size))
            total += size
        while logs and (total > self.budget or len(logs) > _MAX_LOGS):
            n, size = logs.pop(0)
            remove(path(folder, n, "mdl"))
            total -= size


def _pre(h):
    """The bytes the seed commitment covers: the header's first COMMITTED bytes."""
    return h.pack(bytearray(matchlog.HEADER))[: matchlog.COMMITTED]


def add_log_route(app, journal):
    """GET /logs: the numbers of the finished logs on flash (JSON); GET /logs?n=N: log N. The
    log of the match in progress is never served: its header holds the secret seed."""
    import json

    from microdot import Response

    def logs(request):
        n = request.args.get("n")
        if journal.folder is None:
            found = []
        else:
            found = journal.finished()
        if n is None:
            return Response(json.dumps(found), 200, {"Content-Type": "application/json"})
        if not n.isdigit() or int(n) not in found:
            return Response(b"", 404)
        name = path(journal.folder, int(n), "mdl")
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Length": str(os.stat(name)[6]),
        }
        return Response(open(name, "rb"), 200, headers)

    app.route("/logs")(logs)
