# Boot-only (net/board.py drops it once the board serves): take the log folder into use, finish
# what a power cut or reset interrupted, and resume an unfinished match (docs/log.md, "Resume").
#
#   recover(host)      # after MatchHost is built, before anyone can join
import os
from binascii import hexlify

from game import matchlog
from game.replay import Replay
from net.journal import GROUP, path, remove

LOG_DIR = "logs"


def recover(host, folder=LOG_DIR):
    """Take the log folder into use; rebuild the newest log if a power cut interrupted it
    (its match resumes) and prune. Returns the resumed log's number, or 0."""
    j = host.journal
    try:
        os.mkdir(folder)
    except OSError:
        pass  # it exists
    j.folder = folder
    n = 0
    for name in os.listdir(folder):
        dot = name.find(".")
        if name[dot + 1 :] == "new":
            remove(folder + "/" + name)  # a rewrite that did not finish: the .mdl is whole
        elif name[:dot].isdigit() and int(name[:dot]) > n:
            n = int(name[:dot])
    j.number = n
    resumed = 0
    if n and not _ended(folder, n):
        try:
            resumed = _rebuild(host, folder, n)
        except (OSError, ValueError) as exc:
            # unreadable (cut while its header was written): set aside, never replayed
            host.log("log: %d.mdl set aside: %r" % (n, exc))
            remove(path(folder, n, "bad"))
            try:
                os.rename(path(folder, n, "mdl"), path(folder, n, "bad"))
            except OSError:
                pass
            remove(path(folder, n, "tl"))
            host.match.reset(j.draw())
    j.prune()
    return resumed


def _ended(folder, n):
    """True when log n is complete: no tail file, and its last entry is a valid END."""
    name = path(folder, n, "mdl")
    try:
        os.stat(path(folder, n, "tl"))
        return False
    except OSError:
        pass
    try:
        size = os.stat(name)[6]
        count = (size - matchlog.HEADER) // matchlog.ENTRY
        if count < 1 or (size - matchlog.HEADER) % matchlog.ENTRY:
            return False
        with open(name, "rb") as f:
            f.seek(size - matchlog.ENTRY)
            entry = matchlog.get_entry(f.read(matchlog.ENTRY), 0, count - 1)
    except OSError:
        return False
    return entry is not None and entry[0] == matchlog.END


def _rebuild(host, folder, n):
    """Rewrite log n whole from its valid entries (a torn or garbage tail is dropped: written
    to n.new, then renamed over n.mdl), replaying them onto the host's match; then resume the
    match, or close the log as abandoned (END without a result) if it cannot go on."""
    j = host.journal
    main = path(folder, n, "mdl")
    fresh = path(folder, n, "new")
    with open(main, "rb") as f:
        raw = f.read(matchlog.HEADER)
        head = matchlog.Header.unpack(raw)
        same = head.params() == host.params  # else the settings changed since: abandoned
        rep = Replay(head, host.match if same else None)
        out = open(fresh, "wb")
        out.write(raw)
        buf = bytearray(matchlog.ENTRY)
        count = 0
        while f.readinto(buf) == matchlog.ENTRY:
            entry = matchlog.get_entry(buf, 0, count)
            if entry is None:
                break  # a torn or garbage entry: nothing after it counts
            out.write(buf)
            rep.apply(entry)
            count += 1
        dropped = os.stat(main)[6] - matchlog.HEADER - count * matchlog.ENTRY
    try:
        with open(path(folder, n, "tl"), "rb") as f:
            tail = f.read(8 + 8 * GROUP)
    except OSError:
        tail = b""
    if len(tail) >= 8 and matchlog.get_uint(tail, 6, 2) == matchlog.fletcher(tail, 0, 6, 0, 0):
        first = matchlog.get_uint(tail, 0, 4)
        for k in range(min(tail[4], GROUP)):
            if first + k < count:
                continue  # already in the main file (a crash between the two writes)
            entry = matchlog.get_entry(tail, 8 + 8 * k, count) if first + k == count else None
            if entry is None:
                break  # a gap or a torn entry
            out.write(tail[8 + 8 * k : 16 + 8 * k])
            rep.apply(entry)
            count += 1
    m = rep.match
    go_on = same and not rep.ended and rep.problem is None
    if go_on:  # a checkpoint: the digest the match resumes from
        matchlog.put_entry(buf, 0, count, matchlog.CHECK, 0, 1, m.state_seq & 0xFF, m.digest())
    else:  # finished (the end was in the tail), or abandoned: cannot be played on
        matchlog.put_entry(buf, 0, count, matchlog.END, 0, 0, 0, 0)
    if not rep.ended:
        out.write(buf)
        count += 1
    out.close()
    os.rename(fresh, main)
    remove(path(folder, n, "tl"))
    host.log(
        "log: %d.mdl: %d entries, %d bytes dropped, %s %r"
        % (n, count, dropped, "resumed" if go_on else "closed", rep.problem)
    )
    if not go_on:
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
    j.tailf = open(path(folder, n, "tl"), "wb")
    j.put_tail()
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
    host.paused = True  # ... once both players are back (net/journal.py on_join)
    host.views.changed()
    return n
