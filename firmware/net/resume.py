# Boot-only (net/wiring.py drops it once the board serves): take the log folder into use, finish
# what a power cut or reset interrupted, and resume an unfinished match (docs/log.md, "Resume").
#
#   recover(host)      # after MatchHost is built, before anyone can join
import os
from binascii import hexlify

from game import matchlog
from game.compat import const
from game.replay import Replay, get_entry, get_uint, read_header
from net.journal import Journal

_ENTRY = const(8)
_TAIL = const(120)  # 8 + Journal.GROUP * 8


def recover(host, folder="logs"):
    """Take the log folder into use; if the newest log is unfinished (a power cut or a reset
    came in its match), rebuild it and resume its match; prune. Returns the number of the log
    resumed, or 0."""
    j = host.journal
    path = Journal.path
    try:
        os.mkdir(folder)
    except OSError:
        pass  # it exists
    j.folder = folder
    n = 0
    for name in os.listdir(folder):
        dot = name.find(".")
        if name[dot + 1 :] == "new":
            Journal.remove(folder + "/" + name)  # a rewrite that did not finish: n.mdl is whole
        elif name[:dot].isdigit() and int(name[:dot]) > n:
            n = int(name[:dot])
    j.number = n
    resumed = 0
    if n:
        try:
            os.stat(path(folder, n, "tl"))  # a tail: the match was running
            ended = False
        except OSError:  # no tail: complete if its last entry is a valid END
            size = os.stat(path(folder, n, "mdl"))[6]
            count = (size - matchlog.HEADER) // _ENTRY
            entry = None
            if count > 0 and count * _ENTRY + matchlog.HEADER == size:
                with open(path(folder, n, "mdl"), "rb") as f:
                    f.seek(size - _ENTRY)
                    entry = get_entry(f.read(_ENTRY), 0, count - 1)
            ended = entry is not None and entry[0] == matchlog.END
        if not ended:
            try:
                resumed = _rebuild(host, folder, n)
            except (OSError, ValueError) as exc:
                # unreadable (cut while its header was written): set aside, never replayed
                host.log("log: %d.mdl set aside: %r" % (n, exc))
                os.rename(path(folder, n, "mdl"), path(folder, n, "bad"))
                Journal.remove(path(folder, n, "tl"))
                host.match.reset(j.reseed())
    j.prune()
    return resumed


def _rebuild(host, folder, n):
    """Rewrite log n whole from its valid entries (a torn or garbage tail is dropped: written
    to n.new, then renamed over n.mdl), replaying them onto the host's match; then resume the
    match, or close the log as abandoned (END without a result) if it cannot go on."""
    j = host.journal
    path = Journal.path
    main = path(folder, n, "mdl")
    fresh = path(folder, n, "new")
    with open(main, "rb") as f:
        raw = f.read(matchlog.HEADER)
        head = read_header(raw)
        same = head.params == host.params  # else the settings changed since: abandoned
        rep = Replay(head, host.match if same else None)
        out = open(fresh, "wb")
        out.write(raw)
        buf = bytearray(_ENTRY)
        count = 0
        while f.readinto(buf) == _ENTRY:
            entry = get_entry(buf, 0, count)
            if entry is None:
                break  # a torn or garbage entry: nothing after it counts
            out.write(buf)
            rep.apply(entry)
            count += 1
        dropped = os.stat(main)[6] - matchlog.HEADER - count * _ENTRY
    try:
        with open(path(folder, n, "tl"), "rb") as f:
            tail = f.read(_TAIL)
    except OSError:
        tail = b""
    if len(tail) >= 8 and get_uint(tail, 6, 2) == matchlog.fletcher(tail, 0, 6, 0, 0):
        first = get_uint(tail, 0, 4)
        for k in range(min(tail[4], Journal.GROUP)):
            if first + k < count:
                continue  # already in the main file (a crash between the two writes)
            entry = get_entry(tail, 8 + 8 * k, count) if first + k == count else None
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
    Journal.remove(path(folder, n, "tl"))
    host.log(
        "log: %d.mdl: %d entries, %d bytes dropped, resumed %r %r"
        % (n, count, dropped, go_on, rep.problem)
    )
    if not go_on:
        host.match.reset(j.reseed())
        return 0
    j.seed = head.seed
    j.commit = head.commit
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
        seat.name = head.players[s]
        seat.last_c = rep.last_c[s]
        seat.accepted = rep.accepted[s]
        seat.gone_at = now  # the reconnect grace starts at boot for both
    host._ms = rep.t  # the match clock goes on from the last logged time ...
    host._ticks = now
    host.paused = True  # ... once both players are back (net/journal.py on_join)
    host.views.changed()
    return n
