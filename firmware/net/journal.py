# The match log on flash, the seed commitment, and the hooks a resumed match needs (docs/log.md).
# MatchHost owns one Journal and calls its hooks; the encoding is game.matchlog's.
#
#   journal = Journal(keep, log)                # net.match_host (keep: logs kept on flash)
#   seed = journal.pick(m)                      # every new match: 16 bytes of os.urandom
#   net.resume.resume(host)                     # at boot (net/wiring.py): an interrupted match
#   add_log_route(app, journal)                 # GET /log?n=N: a finished match's log
#
# Hooks (net/match_host.py): begin() when a match starts, push() for an accepted move or drop
# BEFORE its ack is posted (and for a forfeit), changed() after every engine call, before
# anyone hears of it (a clock advance that changed the state; the end: it returns the `fair`
# message the host then sends to all), fair() when someone joins (the commitment), end()
# when a resumed match's players stay away. The journal writes no field of the host or its
# seats: it reads them, and returns what is to be sent. At boot net.resume hands it its
# folder (use()) and an interrupted match's log to go on with (reopen()).
#
# Files of match n in the log folder: match-n.log (header, then entries appended 14 at a time)
# and, while the match runs, match-n.tail: the entries not yet in the log, rewritten whole
# (120 bytes) for every entry. LittleFS copies a file's last block on every append after a
# sync, but keeps a file of at most 128 bytes inline in its directory's metadata, where a
# rewrite is one small commit (docs/platform.md): so an entry costs one small commit, and
# every 14th entry one append to the log. The two overlap after a crash between the two
# writes; entries carry their own number in their check, and the reader drops what the log
# already has.
#
# Few new names (each is interned on the board for good: docs/performance.md, "Match log"):
# methods are called by names the firmware already uses where one fits (push, abort,
# pick, head, flush, route), and short strings (interned too) are avoided.
import gc
import os
from binascii import hexlify, unhexlify
from hashlib import sha256

from game.compat import const
from game.matchlog import ENTRY_SIZE, HEADER_SIZE, TAIL_GROUP, TAIL_SIZE, Header
from game.rulesets import RULESETS

# Numbers of other modules, as private consts (in the bytecode, not in this module's globals;
# host_tests/test_private_consts.py checks them; the log's sizes have one source, imported):
# game.rules' phases and command kind, game.rulesets' field
_WAITING = const(0)
_ACTIVE = const(2)
_FINISHED = const(3)
_CMD_MOVE = const(1)
_BEST_OF = const(13)

_MOVE = const(1)  # entry kinds (game.matchlog, docs/log.md)
_DROP = const(2)
_CLOCK = const(3)
_FORFEIT = const(4)
_CHECK = const(5)
_END = const(6)
_LIMIT = const(7)
# entries a match may have beyond its commands (clock entries, forfeit, checks, end, resumes)
_SPARE = const(64)
_ENOSPC = const(28)


def log_path(folder, n, kind="log"):
    """The file of match n's log in folder: match-n.log, or its .tail (the entries not yet in
    the log) or .new (a rewrite at resume). The one place the names are made."""
    return "%s/match-%s.%s" % (folder, n, kind)


class Journal:
    def __init__(self, keep=8, log=print):
        self.size = keep  # match logs kept on flash: older ones are deleted
        self.log = log
        self.seed = None  # the current match's seed (16 bytes) ...
        self.series = (0, 0, 0, 0)  # its ruleset and series score (game.matchlog.Header)
        self.digest = None  # ... and its commitment (sha256 of the header's first 32 bytes)
        self.pre = None  # those 32 bytes (shown after the end: kept, not made again then)
        self.done = False  # the current match has ended: its seed may be shown
        self.path = None  # the log folder; None: nothing on flash (host tests)
        self.number = 0  # the newest log number on flash
        self.opened = 0  # the log number of the match in progress: never served
        self.used = 0  # the log number of the current match once complete, 0: none
        self.main = None  # the open files while a match is logged: the log ...
        self.stream = None  # ... and its tail
        self.buf = bytearray(TAIL_SIZE)  # the tail's bytes: first, count, check, entries
        self.body = memoryview(self.buf)[8:]
        self.hasher = sha256()  # the next match's commitment is computed with it
        self.index = 0  # entries of the current match
        self.pending = 0  # ... of them only in the tail so far
        self.seq = 0  # the state sequence the log accounts for
        # why the match log failed (a write raised): the match stops where its log does, and
        # no command is acknowledged, until the board restarts; None while all is well
        self.failed = None
        self.short = None  # why the last match could not start (no room for its log)
        self.kept = None  # what the room file on flash holds (keep()), to tell a change

    @staticmethod
    def remove(name):
        try:
            os.remove(name)
        except OSError:
            pass

    # ---- the seed ---------------------------------------------------------------------------

    def pick(self, series=None):
        """A new match's seed: 16 bytes from os.urandom (committed to at head(): sha256 of
        the header's first 32 bytes, versions, play parameters, seed and series: its ruleset
        and the series score so far, game.matchlog.Header, when given). Returns the engine's
        seed: 30 bits of it."""
        if series is not None:
            self.series = series
        s = self.seed = os.urandom(16)
        self.digest = self.pre = None
        self.done = False
        self.used = 0
        return (s[0] & 0x3F) << 24 | s[1] << 16 | s[2] << 8 | s[3]

    def head(self, host, seats=False, h=None):
        """The current match's header (host's match), packed; its seats too if seats. h: a
        header made already (keep(): the room file's), to which the seats are added."""
        # the 208 bytes in the host's scratch buffer (the gateway's receive buffer), which no
        # reader uses while this synchronous call runs: no allocation of that size at a
        # match's start, in a heap the room has fragmented; written whole by every write()
        buf = host.scratch
        if h is None:
            m = host.match
            params = (m.width, m.height, m.artifact_pairs, m.braid_percent)
            # the series: given with the seed (pick()), committed to
            h = Header(params + (m.cooldown_ms, m.countdown_ms), self.seed, self.series)
            if self.pre is None:  # the commitment covers neither itself nor the seats
                self.pre = h.write(buf)[:32]  # a copy: the scratch is written over
            if self.digest is None:
                self.digest = self.sha256(self.pre)
            h.commit(self.digest, host.match_no if seats else 0)
        if seats:
            for s in (1, 2):
                seat = host.seats[s]
                h.last_c[s] = seat.last_c
                h.players[s] = seat.name
                if seat.hashed:  # restored, its player not back yet: the hash it came with
                    h.token_hash[s] = unhexlify(seat.hashed)
                elif seat.token:  # (as net.seats hashes it)
                    h.token_hash[s] = self.sha256(seat.token.encode())[:16]
        h.write(buf)
        return memoryview(buf)[:HEADER_SIZE]

    def sha256(self, data):
        """sha256(data).digest() with a sha256 object made ahead (116 bytes, which a heap the
        room has fragmented may have no hole for at a match's start), the next one made in its
        room after a collection."""
        d = self.hasher or sha256()
        self.hasher = None
        d.update(data)
        data = d.digest()
        d = None
        gc.collect()
        try:
            self.hasher = sha256()
        except MemoryError:
            pass  # made when needed
        return data

    def fair(self, host):
        """The `fair` message (docs/protocol.md): the match's seed commitment; once it has
        ended, also the committed bytes (pre: versions, play parameters and the seed) and its
        log number (0: none). The header is made once a match, for the commitment and the
        committed bytes (not at every join and at the end: a Header and its 208 bytes would be
        garbage in a heap the room has filled). Returned as a tuple of pieces, framed as
        they are (net.frames.pieces: after the end the message is ~180 bytes), the hex digits
        as they are."""
        if self.digest is None or self.pre is None:
            self.head(host)
        pre = used = None
        if self.done:
            pre = hexlify(self.pre)
            used = '","log":%d' % self.used
        return (
            '{"t":"fair","mn":%d,"commit":"' % host.match_no,
            hexlify(self.digest),
            '"' if pre is None else '","pre":"',
            pre,
            used,
            "}",
        )

    # ---- hooks of net.match_host ------------------------------------------------------------

    def begin(self, host):
        """The match starts (its countdown): the header to flash (net.match_host then sends
        the commitment to all)."""
        self.index = self.pending = 0
        self.seq = host.match.state_seq
        if self.path is not None:
            self.number += 1
            self.opened = n = self.number
            Journal.remove(log_path(self.path, n - self.size))  # the oldest kept
            try:
                self.main = open(log_path(self.path, n), "ab")  # a new file
                self.main.write(self.head(host, True))
                self.main.flush()
                self.stream = open(log_path(self.path, n, "tail"), "w" + "b")
                self.flush()
                self.used = n
            except (OSError, MemoryError) as exc:
                self._drop(exc)

    def room(self, host):
        """Before a match starts: None when the log folder has room for a whole match's log
        (host.max_moves commands and the entries around them) twice over (the log, and a
        resume's rewrite beside it), the oldest log beyond the number kept deleted first;
        else why not (self.short): the match does not start (LOG_FULL)."""
        self.short = None
        if self.path is None:
            return None
        k = self.number + 1 - self.size
        Journal.remove(log_path(self.path, k))
        Journal.remove(log_path(self.path, k, "bad"))
        try:
            s = os.statvfs(self.path)
            # two logs of whole blocks, and two blocks for the tail and LittleFS's copies
            k = (HEADER_SIZE + ENTRY_SIZE * (host.max_moves + _SPARE)) // s[1] + 1
            if s[4] >= 2 * k + 2:
                return None
        except OSError:
            pass
        self.short = "the board's storage is full"
        return self.short

    def push(self, m, seat, intent):
        """An accepted move or drop (seat's intent, before its last_c moves on): on flash
        before its ack is posted. intent None: seat forfeited; seat None too: the match reached
        its length limit (a draw). Returns None once on flash, else why not: then nothing
        may be acknowledged (LOG_FAILED) (the match stops, net.match_host._halt)."""
        self.seq = m.state_seq
        if seat is None:
            self._emit(_LIMIT, 0, 0, 0, m.now)
        elif intent is None:
            self._emit(_FORFEIT, seat.number, 0, 0, m.now)
        else:
            step = (intent.c - seat.last_c - 1) & 0x3FFFFFFF
            kind = _MOVE if m.done_kind == _CMD_MOVE else _DROP
            self._emit(kind, seat.number, intent.direction, step, m.now)
        return self.failed

    def changed(self, host):
        """After an engine call, before its events go out: a change nothing logged explains
        came from the clock (countdown end, finish window); the end closes the log and returns
        the `fair` message with the seed, for everyone (else None)."""
        m = host.match
        if self.done or m.phase == _WAITING or self.failed is not None:
            return None  # (a failed log: the seed stays secret, the match stays where it was)
        if m.state_seq != self.seq:
            self.seq = m.state_seq
            self._emit(_CLOCK, 0, 0, 0, m.now)
        if m.phase == _FINISHED and self.failed is None:
            self._emit(_CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
            return self.end(host, m.winner, m.result)
        return None

    def keep(self, host):
        """The room on flash between matches (docs/log.md, "The room file"): the match number
        the room goes on with, the ruleset chosen and its chooser, the series score, and each
        seat's token hash, name and client sequence, in the room file (a header of the log's
        format, written whole to room.new, then renamed over room: a reset leaves the old file
        or the new one). Called with every room line (net.match_host), written only when what
        it keeps changed: never while a match is under way (its log has it), once when it
        starts and once when it ends. A write that fails says so on the console, nothing more:
        play goes on."""
        m = host.match
        if self.path is None or m.phase == _ACTIVE:
            return
        seats = host.seats
        key = (host.match_no, m.phase, host.ruleset, host.chooser, host.score[1], host.score[2])
        key += (seats[1].token, seats[1].name, seats[2].token, seats[2].name)
        if key == self.kept:
            return
        self.kept = key
        name = "%s/room" % self.path
        try:
            # the chooser and the exact score where a log has its play parameters (a log's
            # scores are 4 bits); the next match's number where a log has its own
            series = (RULESETS.index(host.ruleset), host.ruleset[_BEST_OF] // 2, 0, 0)
            h = Header((host.chooser, 0, 0, 0, host.score[1], host.score[2]), series=series)
            h.commit(h.digest, host.match_no + (m.phase != _WAITING))
            f = open(name + ".new", "wb")
            try:
                f.write(self.head(host, True, h))
            finally:
                f.close()
            os.rename(name + ".new", name)
        except (OSError, MemoryError) as exc:
            self.log("log: room not kept: %r" % (exc,))

    # ---- files ------------------------------------------------------------------------------

    def _emit(self, kind, seat, arg, aux, value):
        # allocates nothing: the entry is encoded into the tail buffer, which is written whole
        i = self.index
        self.index = i + 1
        if self.stream is None:
            return
        Header.record(self.buf, 8 + 8 * self.pending, i, kind, seat, arg, aux, value)
        self.pending += 1
        try:
            self.flush()
            if self.pending == TAIL_GROUP:
                self.main.write(self.body)
                self.main.flush()
                self.pending = 0
        except (OSError, MemoryError) as exc:
            self._drop(exc)

    def flush(self):
        """The tail file rewritten: its first entry's number, its count, their check, then the
        entries not yet in the log."""
        t = self.buf
        Header.place(t, 0, 4, self.index - self.pending)
        t[4] = self.pending
        t[5] = 0
        Header.place(t, 6, 2, Header.sum(t, 0, 6, 0, 0))
        f = self.stream
        f.seek(0)
        f.write(t)
        f.flush()

    def end(self, host, winner, result):
        """The last entry, the tail folded into the log; returns the `fair` message that
        reveals the seed, for everyone. Also ends a resumed match whose players both stayed
        away (winner and result 0: abandoned). When the end cannot be written (self.failed)
        the match is not over on flash: its seed stays secret (the message names only the
        commitment) and it stays the match in progress."""
        self._emit(_END, winner, result, 0, host.match.now)
        if self.failed is not None:
            return self.fair(host)
        self.done = True
        if self.stream is not None:
            try:
                if self.pending:
                    self.main.write(self.body[: 8 * self.pending])
                self.main.close()
                self.stream.close()
                os.remove(log_path(self.path, self.opened, "tail"))
            except (OSError, MemoryError) as exc:
                self._drop(exc, True)
        self.main = self.stream = None
        self.opened = 0
        return self.fair(host)

    def _drop(self, exc, ended=False):
        # a full flash, a failed write, or no heap for the file's objects: nothing more is
        # acknowledged (push() says LOG_FAILED), the match stops where its log does; or
        # (ended) the end could not be folded into the log: it is on flash, in the tail, and
        # the next boot folds it in (nothing failed). The files are closed.
        if ended:
            self.log("log: match log %d: tail kept: %r" % (self.opened, exc))
        else:
            gc.collect()
            self.failed = "the board's storage failed (%r)" % (exc,)
            if getattr(exc, "errno", 0) == _ENOSPC:
                self.failed = "the board's storage is full"
            self.log("log: match log %d failed: %s" % (self.number, self.failed))
            self.used = 0
        for f in (self.main, self.stream):
            try:
                f.close()
            except (OSError, AttributeError):
                pass
        self.main = self.stream = None


# ---- the folder and a resumed log (net.resume, at boot): module functions, deleted once the
# board runs (net.wiring.drop_boot_code)


def use(journal, folder, number):
    """Logs go to folder from now on; number is the newest one on flash."""
    journal.path = folder
    journal.number = number


def reopen(journal, n, head, count, seq, handles):
    """Log n (its header head, count entries, the match at state sequence seq) goes on, in
    files (the log and its tail, open: net.resume made them): the match it logs resumes."""
    journal.seed = head.seed
    journal.digest = head.digest
    journal.series = head.series
    journal.done = False
    journal.opened = journal.used = n
    journal.index = count
    journal.pending = 0
    journal.seq = seq
    journal.main, journal.stream = handles


def add_log_route(app, journal):
    """GET /log?n=N: match N's log, once the match has ended (the log of the match in progress
    is never served: its header holds the secret seed); n=N.bad: the log kept aside as
    match-N.bad (docs/log.md). Run once by the wiring, which then
    deletes this function (net/wiring.py, drop_boot_code): the handler lives on."""
    from microdot import Response

    def logs(request):
        q = request.query_string  # n=N (the board's Microdot does not parse query strings)
        n = q[2:] if q[:2] == "n=" else ""
        kind = "log"
        if n[-4:] == ".bad":
            n = n[:-4]
            kind = "bad"
        name = log_path(journal.path, n, kind)
        try:
            size = os.stat(name)[6]
        except OSError:
            size = -1
        if not n.isdigit() or int(n) == journal.opened or size < 0:
            return Response(b"", 404)
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(size)}
        return Response(open(name, "rb"), 200, headers)

    app.route("/log")(logs)
