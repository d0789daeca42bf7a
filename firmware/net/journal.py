# The match log on flash, the seed commitment and the resume after a restart (docs/log.md).
# MatchHost owns one Journal and calls its hooks; the encoding is game.matchlog's.
#
#   journal = Journal(params, budget_kb, log)   # net.match_host (params: match_parameters())
#   seed = journal.draw()                       # every new match: 16 bytes of os.urandom
#   recover(host)                               # net.board at boot: resume an unfinished match
#   add_log_route(app, journal)                 # GET /logs (list), GET /logs?n=N (one log)
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

from game import matchlog as ml
from game.compat import const
from game.rules import CMD_MOVE, FINISHED, WAITING
from net import messages
from net.frames import frame
from net.seats import token_hash

LOG_DIR = "logs"
PAUSED = "PAUSED"  # refusal of a move or drop while a resumed match waits for its players
GROUP = const(14)  # entries the tail file holds before they move to the main file
_TAIL = const(120)  # 8 + GROUP * 8: under LittleFS's inline limit with MicroPython's defaults
_MAX_LOGS = const(32)  # finished logs kept at most, whatever their size
_TO_ALL = const(7)  # net.match_host's audience mask: both seats and the observers


def _path(folder, n, ext):
    return "%s/%d.%s" % (folder, n, ext)


def _remove(path):
    try:
        os.remove(path)
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
        h = ml.Header()
        h.width, h.height, h.pairs, h.braid, h.cooldown_ms, h.countdown_ms = self.params
        h.seed = os.urandom(ml.SEED)
        h.commit = sha256(_pre(h)).digest()
        self.head = h
        self.commit = hexlify(h.commit).decode()
        self.done = False
        self.logged = 0
        return ml.engine_seed(h.seed, 0)

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
                self.main = open(_path(self.folder, n, "mdl"), "wb")
                self.main.write(h.pack(bytearray(ml.HEADER)))
                self.main.flush()
                self.tailf = open(_path(self.folder, n, "tl"), "wb")
                self._put_tail()
                self.logged = n
            except OSError as exc:
                self._lost(exc)
        host._send(_TO_ALL, self.fair(host))

    def command(self, m, seat, intent):
        """An accepted move or drop (seat's intent, before its last_c moves on): on flash
        before its ack is posted."""
        self.seq = m.state_seq
        kind = ml.MOVE if m.done_kind == CMD_MOVE else ml.DROP
        step = (intent.c - seat.last_c - 1) & 0x3FFFFFFF
        self._append(kind, seat.number, intent.direction, step, m.now)

    def forfeit(self, m, number):
        self.seq = m.state_seq
        self._append(ml.FORFEIT, number, 0, 0, m.now)

    def changed(self, host):
        """After an engine call, before its events go out: a change nothing logged explains
        came from the clock (countdown end, finish window); the end closes the log."""
        m = host.match
        if self.done or m.phase == WAITING:
            return
        if m.state_seq != self.seq:
            self.seq = m.state_seq
            self._append(ml.CLOCK, 0, 0, 0, m.now)
        if m.phase == FINISHED:
            self.done = True
            self._append(ml.CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
            self._append(ml.END, m.winner, m.result, 0, m.now)
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
        self._append(ml.END, 0, 0, 0, host.match.now)
        self._close()
        host.paused = False
        host.match.reset(self.draw())
        host.match_no += 1
        seats[1].free()
        seats[2].free()
        host.log("game: nobody came back after the restart: match abandoned")
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
        ml.put_entry(self.tail, 8 + 8 * self.pending, i, kind, seat, arg, aux, value)
        self.pending += 1
        try:
            self._put_tail()
            if self.pending == GROUP:
                self.main.write(self.group)
                self.main.flush()
                self.pending = 0
        except OSError as exc:
            self._lost(exc)

    def _put_tail(self):
        t = self.tail
        ml.put_uint(t, 0, 4, self.index - self.pending)
        t[4] = self.pending
        t[5] = 0
        ml.put_uint(t, 6, 2, ml.fletcher(t, 0, 6, 0, 0))
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
                os.remove(_path(self.folder, self.live, "tl"))
            except OSError as exc:
                self._lost(exc)
        self.main = self.tailf = None
        self.live = 0
        self.prune()

    def _lost(self, exc):
        self.log("log: cannot write the match log (%r): this match goes on without it" % (exc,))
        for f in (self.main, self.tailf):
            try:
                f.close()
            except (OSError, AttributeError):
                pass
        self.main = self.tailf = None
        self.logged = 0

    def prune(self):
        """Delete finished logs, oldest first, until they fit the budget (and _MAX_LOGS)."""
        folder = self.folder
        if folder is None:
            return
        logs = []
        total = 0
        for name in os.listdir(folder):
            n = name[:-4]
            if name[-4:] == ".mdl" and n.isdigit() and int(n) != self.live:
                size = os.stat(folder + "/" + name)[6]
                logs.append((int(n), size))
                total += size
        logs.sort()
        while logs and (total > self.budget or len(logs) > _MAX_LOGS):
            n, size = logs.pop(0)
            _remove(_path(folder, n, "mdl"))
            total -= size


def _pre(h):
    """The bytes the seed commitment covers: the header's first COMMITTED bytes."""
    return h.pack(bytearray(ml.HEADER))[: ml.COMMITTED]


def _ended(path):
    """True when the log at path is complete: its last entry is a valid END."""
    try:
        size = os.stat(path)[6]
        count = (size - ml.HEADER) // ml.ENTRY
        if count < 1 or (size - ml.HEADER) % ml.ENTRY:
            return False
        with open(path, "rb") as f:
            f.seek(size - ml.ENTRY)
            entry = ml.get_entry(f.read(ml.ENTRY), 0, count - 1)
    except OSError:
        return False
    return entry is not None and entry[0] == ml.END


def recover(host, folder=LOG_DIR):
    """At boot: take the log folder into use, finish what a power cut interrupted, and resume
    an unfinished match (docs/log.md, "Resume"). Returns the resumed log's number, or 0."""
    j = host.journal
    try:
        os.mkdir(folder)
    except OSError:
        pass  # it exists
    j.folder = folder
    newest = 0
    for name in os.listdir(folder):
        dot = name.find(".")
        if name[dot:] == ".new":
            _remove(folder + "/" + name)  # a rewrite that did not finish: the .mdl is whole
        elif name[:dot].isdigit() and int(name[:dot]) > newest:
            newest = int(name[:dot])
    j.number = newest
    resumed = 0
    tail = _path(folder, newest, "tl")
    try:
        os.stat(tail)
        has_tail = True
    except OSError:
        has_tail = False
    if newest and (has_tail or not _ended(_path(folder, newest, "mdl"))):
        try:
            resumed = _rebuild(host, folder, newest)
        except (OSError, ValueError) as exc:
            # unreadable (e.g. cut while its header was written): kept aside, never replayed
            host.log("log: %d.mdl cannot be read (%r): kept as %d.bad" % (newest, exc, newest))
            for ext in ("bad", "new"):
                _remove(_path(folder, newest, ext))
            try:
                os.rename(_path(folder, newest, "mdl"), _path(folder, newest, "bad"))
            except OSError:
                pass
            _remove(tail)
            host.match.reset(j.draw())
    j.prune()
    return resumed


def _rebuild(host, folder, n):
    """Rewrite log n whole from its valid entries (a torn or garbage tail is dropped), replay
    it onto the host's match, and resume it, close it as abandoned, or leave it finished."""
    j = host.journal
    main = _path(folder, n, "mdl")
    fresh = _path(folder, n, "new")
    with open(main, "rb") as f:
        raw = f.read(ml.HEADER)
        head = ml.Header.unpack(raw)
        same = head.params() == host.params
        rep = ml.Replay(head, host.match if same else None)
        out = open(fresh, "wb")
        out.write(raw)
        buf = bytearray(ml.ENTRY)
        count = 0
        while f.readinto(buf) == ml.ENTRY:
            entry = ml.get_entry(buf, 0, count)
            if entry is None:
                break
            out.write(buf)
            rep.apply(entry)
            count += 1
        dropped = os.stat(main)[6] - ml.HEADER - count * ml.ENTRY
    try:
        with open(_path(folder, n, "tl"), "rb") as f:
            tail = f.read(_TAIL)
    except OSError:
        tail = b""
    if len(tail) >= 8 and ml.get_uint(tail, 6, 2) == ml.fletcher(tail, 0, 6, 0, 0):
        first = ml.get_uint(tail, 0, 4)
        for k in range(min(tail[4], GROUP)):
            if first + k < count:
                continue  # already in the main file (a crash between the two writes)
            entry = ml.get_entry(tail, 8 + 8 * k, count) if first + k == count else None
            if entry is None:
                break  # a gap or a torn entry: nothing after it counts
            out.write(tail[8 + 8 * k : 16 + 8 * k])
            rep.apply(entry)
            count += 1
    m = rep.match
    go_on = not rep.ended and rep.problem is None and same
    if go_on:
        ml.put_entry(buf, 0, count, ml.CHECK, 0, 1, m.state_seq & 0xFF, m.digest())
    elif not rep.ended:
        ml.put_entry(buf, 0, count, ml.END, 0, 0, 0, 0)  # abandoned: cannot be played on
    if not rep.ended:
        out.write(buf)
        count += 1
    out.close()
    os.rename(fresh, main)
    _remove(_path(folder, n, "tl"))
    what = "%d.mdl: %d entries%s" % (n, count, ", %d bytes dropped" % dropped if dropped else "")
    if not go_on:
        why = "finished" if rep.ended else "abandoned (%s)" % (rep.problem or "other settings",)
        host.log("log: %s, %s" % (what, why))
        host.match.reset(j.draw())
        return 0
    j.head = head
    j.commit = hexlify(head.commit).decode()
    j.done = False
    j.live = j.logged = n
    j.index = count
    j.pending = 0
    j.seq = m.state_seq
    j.main = open(main, "ab")
    j.tailf = open(_path(folder, n, "tl"), "wb")
    j._put_tail()
    host.match_no = head.match_no
    now = host.ticks_ms()
    for s in (1, 2):
        seat = host.seats[s]
        seat.free()
        seat.token = ""  # held, by whoever presents a token with this hash (net/seats.py)
        seat.hashed = hexlify(head.token_hash[s]).decode()
        seat.restored = True
        seat.name = head.names[s]
        seat.last_c = rep.last_c[s]
        seat.accepted = rep.accepted[s]
        seat.gone_at = now  # the reconnect grace starts at boot for both
    host._ms = rep.t  # the match clock goes on from the last logged time ...
    host._ticks = now
    host.paused = True  # ... once both players are back (net/match_host.py now_ms)
    host.views.changed()
    host.log(
        "log: %s, match %d resumed at %d ms, digest %08x"
        % (what, head.match_no, rep.t, m.digest())
    )
    return n


def add_log_route(app, journal):
    """GET /logs: the finished logs on flash as JSON; GET /logs?n=N: log N (a download). The
    log of the match in progress is never served: its header holds the secret seed."""
    from microdot import Response

    def logs(request):
        folder = journal.folder
        n = request.args.get("n")
        if folder is None:
            return Response(b"", 404)
        if n is None:
            items = []
            for name in sorted(os.listdir(folder)):
                k = name[:-4]
                if name[-4:] == ".mdl" and k.isdigit() and int(k) != journal.live:
                    items.append('{"n":%s,"bytes":%d}' % (k, os.stat(folder + "/" + name)[6]))
            text = '{"logs":[%s]}' % ",".join(items)
            return Response(
                text, 200, {"Content-Type": "application/json", "Cache-Control": "no-store"}
            )
        if not n.isdigit() or int(n) == journal.live:
            return Response(b"", 404)
        path = _path(folder, int(n), "mdl")
        try:
            size = os.stat(path)[6]
        except OSError:
            return Response(b"", 404)
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Length": str(size),
            "Content-Disposition": 'attachment; filename="maze-duel-%d.mdl"' % int(n),
            "Cache-Control": "no-store",
        }
        return Response(open(path, "rb"), 200, headers)

    app.route("/logs")(logs)
