# The match log at boot (docs/log.md, "Resume"): take the log folder into use and rebuild an
# interrupted match from its log into a Restored record, which the host applies
# (net.match_host.restore): this module writes no field of the host, its journal or its seats.
# net/wiring.py runs resume() once and then drops this module and game.replay (with the .mpy files
# on the filesystem, loaded code costs heap for as long as
# it stays imported); the tests call it to restart a host.
import os

from game.compat import const
from game.matchlog import ENTRY_SIZE, HEADER_SIZE, TAIL_GROUP, TAIL_SIZE, Header
from game.replay import Replay
from game.rulesets import RULESETS
from net import journal, match_host
from net.journal import log_path

_CHECK = const(5)  # entry kinds (game.matchlog)
_END = const(6)


def _remove(name):
    try:
        os.remove(name)
    except OSError:
        pass


class Restored:
    """What an interrupted match's log gives back: its log number n (0: nothing to go on
    with, a new match), its header (seed, commitment, series, seats), its entries and where
    the replay left the match (state sequence, clock, each seat's last client sequence and
    accepted count)."""

    def __init__(self, n, head, count=0, rep=None):
        self.n = n
        self.head = head
        self.count = count
        if rep is not None:
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
    resumed = 0
    try:
        try:
            os.mkdir(folder)
        except OSError:
            pass  # it exists
        logs = []
        for name in os.listdir(folder):  # match-N.log, match-N.tail, match-N.new
            k = name[6 : name.find(".")]
            path = folder + "/" + name
            if log_path(folder, k, "new") == path:  # a rewrite that did not finish
                _remove(path)
            elif k.isdigit() and log_path(folder, k) == path:
                logs.append(int(k))
        n = max(logs) if logs else 0
        journal.use(j, folder, n)
        for k in logs:  # the oldest beyond the number kept
            if k <= n - j.size:
                _remove(log_path(folder, k))
        if n:
            try:
                resumed = rebuild(host, folder, n)
            except ValueError as exc:  # cut while its header was written: never replayed
                host.log("log: match log %d removed: %r" % (n, exc))
                _remove(log_path(folder, n))
                _remove(log_path(folder, n, "tail"))
                host.match.reset(j.pick())
    except Exception as exc:  # the board starts, whatever its flash holds or does
        host.log("log: no resume: %r" % (exc,))
    return resumed


def rebuild(host, folder, n):
    """Log n, unless it is complete (no tail, a valid end), is rewritten whole from its valid
    entries (a torn or garbage tail is dropped: written to a new file, then renamed over the
    log), replaying them onto the host's match; then its match resumes, or the log is closed
    as abandoned (an end without a result) if it cannot go on."""
    main = log_path(folder, n)
    tail = b""
    try:
        with open(log_path(folder, n, "tail"), "rb") as f:
            tail = f.read(TAIL_SIZE)
    except OSError:
        size = os.stat(main)[6]
        count = (size - HEADER_SIZE) // ENTRY_SIZE
        if (
            count > 0 and count * ENTRY_SIZE + HEADER_SIZE == size
        ):  # no tail: complete if it ends with an end
            with open(main, "rb") as f:
                f.seek(size - 8)
                entry = Replay.read(f.read(ENTRY_SIZE), 0, count - 1)
            if entry is not None and entry[0] == _END:
                return 0
    fresh = log_path(folder, n, "new")
    _remove(fresh)
    with open(main, "rb") as f:
        raw = f.read(HEADER_SIZE)
        head = Replay.head(raw)
        # the match's ruleset and series score, from its header (unless settings.json now
        # fixes another ruleset: then the match is abandoned below)
        entry = RULESETS[head.series[0]]
        match_host.play(host, entry)
        m = host.match
        params = (m.width, m.height, m.artifact_pairs, m.braid_percent, m.cooldown_ms)
        same = head.params == params + (m.countdown_ms,)  # else other settings: abandoned
        same = same and entry is host.ruleset
        rep = Replay(head, m if same else None)
        out = open(fresh, "ab")
        out.write(raw)
        buf = bytearray(ENTRY_SIZE)
        count = 0
        while f.readinto(buf) == 8:
            entry = Replay.read(buf, 0, count)
            if entry is None:
                break  # a torn or garbage entry: nothing after it counts
            out.write(buf)
            rep.take(entry)
            count += 1
    dropped = os.stat(main)[6] - HEADER_SIZE - count * ENTRY_SIZE
    if len(tail) >= 8 and tail[6] << 8 | tail[7] == Header.sum(tail, 0, 6, 0, 0):
        first = tail[0] << 24 | tail[1] << 16 | tail[2] << 8 | tail[3]
        for k in range(min(tail[4], TAIL_GROUP)):
            if first + k < count:
                continue  # already in the log (a crash between the two writes)
            entry = Replay.read(tail, 8 + 8 * k, count) if first + k == count else None
            if entry is None:
                break  # a gap or a torn entry
            out.write(tail[8 + 8 * k : 16 + 8 * k])
            rep.take(entry)
            count += 1
    m = rep.match
    go_on = same and not rep.done and rep.reason is None
    if go_on:  # a checkpoint: the digest the match resumes from
        Header.record(buf, 0, count, _CHECK, 0, 1, m.state_seq & 0xFF, m.digest())
    else:  # finished (its end was in the tail), or abandoned (an end without a result)
        Header.record(buf, 0, count, _END, 0, 0, 0, 0)
    if not rep.done:
        out.write(buf)
        count += 1
    out.close()
    os.rename(fresh, main)
    _remove(log_path(folder, n, "tail"))
    host.log(
        "log: match log %d: %d entries, %d bytes dropped, resumed %r %r"
        % (n, count, dropped, go_on, rep.reason)
    )
    match_host.restore(host, Restored(n if go_on else 0, head, count, rep))
    return n if go_on else 0
