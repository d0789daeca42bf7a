# The match log at boot (docs/log.md, "Resume"): take the log folder into use and rebuild an
# interrupted match from its log into a Restored record, which the host applies
# (net.match_host.restore): this module writes no field of the host, its journal or its seats.
# All or nothing: the match is rebuilt in a match of its own, the rewritten log is complete and
# renamed, and the files the match goes on with are open, before anything of the host changes;
# any failure leaves the host as a fresh boot leaves it, the log set aside (match-N.bad), never
# deleted.
# net/wiring.py runs resume() once and then drops this module and game.replay (with the .mpy
# files on the filesystem, loaded code costs heap for as long as it stays imported); the tests
# call it to restart a host.
import os

from game.compat import const
from game.matchlog import ENTRY_SIZE, HEADER_SIZE, TAIL_GROUP, TAIL_SIZE, Header
from game.replay import Replay
from game.rulesets import RULESETS
from net import journal, match_host
from net.journal import log_path

_CHECK = const(5)  # entry kinds (game.matchlog)
_END = const(6)
_FINISHED = const(3)  # game.rules
_MAX_LOG = const(99999)  # a log number beyond this is a stray file: set aside, never counted


def _remove(name):
    try:
        os.remove(name)
    except OSError:
        try:
            os.rmdir(name)  # (an empty folder in the place of a file)
        except OSError:
            pass


class Restored:
    """What an interrupted match's log gives back: its log number n (0: nothing to go on
    with, a new match of its ruleset), its header (seed, commitment, series, seats), its
    ruleset (entry), and when it goes on: the match rebuilt, its entries, where the replay
    left it (state sequence, clock, each seat's last client sequence and accepted count) and
    the log's two files, open. Or the room file's (net.journal.keep: head its Header, seats
    too), when no match goes on."""

    def __init__(self, n, head, entry, count=0, rep=None, handles=None):
        self.n = n
        self.head = head
        self.entry = entry
        self.count = count
        self.handles = handles
        self.score = (head.series[2], head.series[3])  # the series score
        self.chooser = 1 if n else 0  # who may choose the next ruleset (0: nobody seated)
        self.seats = None  # between matches: the room file, whose seats are held again
        self.number = head.match_no  # the match number the room goes on with
        if rep is not None:
            self.match = rep.match
            self.seq = rep.match.state_seq
            self.now = rep.now
            self.last_c = rep.last_c
            self.accepted = rep.accepted


def resume(host, folder="log"):
    """The match log at boot (docs/log.md, "Resume"): take the log folder into use; if its
    newest log is unfinished (a power cut or a reset came in its match), rebuild it and resume
    its match; delete the oldest logs beyond the number kept. Returns the number of the log
    resumed, or 0. Whatever the flash holds, the board starts."""
    j = host.journal
    restored = room = None
    n = last = 0  # the newest log's number, and the number of its match
    try:
        try:
            os.mkdir(folder)
        except OSError:
            pass  # it exists
        kept = []  # (number, kind) of every log file, .bad and .tail
        names = os.listdir(folder)
        for name in names:  # match-N.log, .tail, .new, .bad
            dot = name.find(".")
            k = name[6:dot]
            kind = name[dot + 1 :]
            path = folder + "/" + name
            if (
                name[:6] != "match-"
                or not k.isdigit()
                or kind not in ("log", "tail", "new", "bad")
            ):
                continue  # not the board's: left alone
            if not 0 < int(k) <= _MAX_LOG or log_path(folder, int(k), kind) != path:
                if kind == "log":  # a stray: set aside alone, it changes no number
                    _aside(host, path, path + ".bad")
            elif kind == "new" and name[:dot] + ".log" in names:
                _remove(path)  # a rewrite that did not finish (its log is whole)
            else:
                if kind == "new":  # finished: rebuild() had renamed its log aside (.bad)
                    os.rename(path, log_path(folder, int(k)))
                    kind = "log"
                kept.append((int(k), kind))
                if kind != "tail":
                    n = max(n, int(k))  # the numbers go on after a log set aside too
        for k, kind in kept:  # the oldest beyond the number kept
            if k <= n - j.size:
                _remove(log_path(folder, k, kind))
        journal.use(j, folder, n)
        room = _room(host, folder)
        if n and (n, "log") in kept:
            try:
                restored = rebuild(host, folder, n)
                if restored is None:  # finished: the number of its match
                    last = _number(folder, n)
            except Exception as exc:  # nothing of the host changed: a fresh boot
                _remove(log_path(folder, n, "new"))
                _aside(host, log_path(folder, n), log_path(folder, n, "bad"))
                host.log("log: match log %d not resumed: %r" % (n, exc))
    except Exception as exc:  # the board starts, whatever its flash holds or does
        host.log("log: no resume: %r" % (exc,))
        journal.use(j, folder, n)  # (its writes then fail: no match is acknowledged unlogged)
    if room is not None:  # the log wins for what it holds (docs/log.md, "The room file")
        if restored is None or not restored.n:
            # no match goes on: the room between matches as the room file kept it, seats held,
            # numbered after the newest log's match (the file may have failed to be written)
            if restored is not None:
                last = restored.head.match_no
            restored = Restored(0, room, RULESETS[room.series[0]])
            restored.seats = room
            restored.number = max(room.match_no, last + 1)
        if restored.seats is not None or room.match_no == restored.number + 1:
            # (or kept when this match started): its exact score (a log's are capped at 15)
            restored.score = (room.params[4], room.params[5])
        c = room.params[0]
        restored.chooser = c if c < 3 and room.players[c] else restored.chooser
    if restored is None:
        return 0
    match_host.restore(host, restored)
    return restored.n


def _number(folder, n):
    """The match number in log n's header (0 when it cannot be read)."""
    try:
        with open(log_path(folder, n), "rb") as f:
            return Replay.head(f.read(HEADER_SIZE)).match_no
    except Exception:
        return 0


def _room(host, folder):
    """The room file kept between matches (net.journal.keep): its Header, or None when there
    is none; a damaged one is set aside as room.bad (the room starts fresh)."""
    name = "%s/room" % folder
    _remove(name + ".new")  # a write that did not finish: the file it was to replace is whole
    try:
        os.stat(name)
    except OSError:
        return None
    try:
        with open(name, "rb") as f:
            raw = f.read(HEADER_SIZE + 1)
        room = Replay.head(raw)
        if len(raw) != HEADER_SIZE or not room.match_no or (room.last_c[1] | room.last_c[2]) >> 30:
            raise ValueError("bad room file")
        return room
    except Exception as exc:
        host.log("log: room file not used: %r" % (exc,))
        _aside(host, name, name + ".bad")
        return None


def _aside(host, path, to):
    """Keep the file at path aside under the name to (downloadable, never replayed again); when
    a file of that name is kept already, under path + ".bad", ".bad2", ...: a rename never
    replaces evidence (files of those names the boot leaves alone)."""
    k = 1
    while _exists(to) and k < 100:
        to = path + ".bad" + ("" if k == 1 else str(k))
        k += 1
    try:
        os.rename(path, to)
        host.log("log: %s kept aside as %s" % (path, to))
    except OSError as exc:
        host.log("log: %s left in place: %r" % (path, exc))


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _complete(main):
    """True when log file main ends with a valid end (and holds whole entries only)."""
    size = os.stat(main)[6]
    count = (size - HEADER_SIZE) // ENTRY_SIZE
    if count > 0 and count * ENTRY_SIZE + HEADER_SIZE == size:
        with open(main, "rb") as f:
            f.seek(size - 8)
            entry = Replay.read(f.read(ENTRY_SIZE), 0, count - 1)
        return entry is not None and entry[0] == _END
    return False


def rebuild(host, folder, n):
    """Log n, unless it is complete (no tail, a valid end: None), is rewritten whole from its
    valid entries to match-n.new, replaying them onto a match of its own, then renamed over
    the log (the original kept as match-n.bad when any of its bytes were not replayed); the
    files of a match that goes on are opened. Returns a Restored: its match goes on, or (n 0)
    the log is closed (its end was in the tail, or it is abandoned: an end without a result).
    Raises on whatever it cannot do; nothing of the host has changed then."""
    main = log_path(folder, n)
    name = log_path(folder, n, "tail")
    tail = b""
    try:
        with open(name, "rb") as f:
            tail = f.read(TAIL_SIZE)
    except OSError:
        if _complete(main):
            return None
    fresh = log_path(folder, n, "new")
    with open(main, "rb") as f:
        raw = f.read(HEADER_SIZE)
        head = Replay.head(raw)
        # the match's ruleset and series score, from its header; abandoned when this board
        # no longer plays that match (settings.json fixes another ruleset or other numbers)
        entry = RULESETS[head.series[0]]
        m = match_host.scratch(host, entry)
        same = m is not None and head.params == (
            m.width,
            m.height,
            m.artifact_pairs,
            m.braid_percent,
            m.cooldown_ms,
            m.countdown_ms,
        )
        rep = Replay(head, m if same else None)
        m = None
        out = open(fresh, "wb")
        try:
            out.write(raw)
            buf = bytearray(ENTRY_SIZE)
            count = 0
            while f.readinto(buf) == 8:
                got = Replay.read(buf, 0, count)
                if got is None:
                    break  # a torn or damaged entry: nothing after it counts
                out.write(buf)
                rep.take(got)
                count += 1
            dropped = os.stat(main)[6] - HEADER_SIZE - count * ENTRY_SIZE
            if len(tail) >= 8 and tail[6] << 8 | tail[7] == Header.sum(tail, 0, 6, 0, 0):
                first = tail[0] << 24 | tail[1] << 16 | tail[2] << 8 | tail[3]
                for k in range(min(tail[4], TAIL_GROUP)):
                    if first + k < count:
                        continue  # already in the log (a crash between the two writes)
                    got = Replay.read(tail, 8 + 8 * k, count) if first + k == count else None
                    if got is None:
                        break  # a gap or a torn entry
                    out.write(tail[8 + 8 * k : 16 + 8 * k])
                    rep.take(got)
                    count += 1
            m = rep.match
            over = m.phase == _FINISHED and rep.reason is None
            go_on = same and not rep.done and rep.reason is None and not over
            if not rep.done:
                if go_on or over:  # a checkpoint: the digest the match resumes from / ends at
                    Header.record(buf, 0, count, _CHECK, 0, go_on, m.state_seq & 0xFF, m.digest())
                    out.write(buf)
                    count += 1
                if not go_on:  # its end (its last entry was lost), or abandoned: no result
                    if over:
                        Header.record(buf, 0, count, _END, m.winner, m.result, 0, m.now)
                    else:
                        Header.record(buf, 0, count, _END, 0, 0, 0, 0)
                    out.write(buf)
                    count += 1
            out.flush()
        finally:
            out.close()
    if dropped:  # bytes of the log not replayed: the original is kept aside, whole
        os.rename(main, log_path(folder, n, "bad"))
    os.rename(fresh, main)
    _remove(name)
    host.log(
        "log: match log %d: %d entries, %d bytes dropped, resumed %r %r"
        % (n, count, dropped, go_on, rep.reason)
    )
    if not go_on:
        return Restored(0, head, entry)
    f = open(main, "ab")
    try:
        stream = open(name, "w" + "b")
        try:
            t = bytearray(TAIL_SIZE)  # an empty tail: its first entry is the next one
            Header.place(t, 0, 4, count)
            Header.place(t, 6, 2, Header.sum(t, 0, 6, 0, 0))
            stream.write(t)
            stream.flush()
        except Exception:
            stream.close()
            raise
    except Exception:
        f.close()
        raise
    return Restored(n, head, entry, count, rep, (f, stream))
