# Match logs on the host (docs/log.md): read one, check it (the seed commitment, every entry,
# the replay's digests and result), export it as plain data, and write logs of driven matches
# for tests and benchmarks. Portable (CPython and the MicroPython unix port: the core tests
# import it); the replay itself is the firmware's own, game.matchlog.Replay.
#
#   report = check(data)               # data: a log file's bytes -> dict (report["ok"])
#   data, m = driven_log(seed, "small", 400)   # a finished log of a driven match, and the match
import hashlib
from binascii import hexlify

from driver import new_match, play
from game import matchlog as ml
from game import rules
from game.replay import Replay, get_entry, get_uint, read_header

Header = ml.Header
KIND_NAMES = ("", "move", "drop", "clock", "forfeit", "check", "end")
PROBLEMS = {
    Replay.AFTER_END: "an entry after the end",
    Replay.DIGEST: "digest %08x in the log, %08x replayed",
    Replay.RESULT: "result %d in the log, %d replayed (result * 4 + winner)",
    Replay.REFUSED: "the engine refused this %s entry (code %d)",
}


def _hex(b):
    return hexlify(bytes(b)).decode()


def entries(buf, start, count, first=0):
    """The valid entries of buf from offset start, numbered from `first`: at most count, up
    to the first one that is not valid. A list of (kind, seat, arg, aux, value)."""
    out = []
    for i in range(count):
        entry = get_entry(buf, start + i * ml.ENTRY, first + i)
        if entry is None:
            break
        out.append(entry)
    return out


def read(data):
    """(header, entries, dropped): the header, the valid entries from the start, and how many
    bytes after them were dropped (a torn or garbage tail). Raises ValueError, saying why,
    for anything but a valid header of this format and rules."""
    if len(data) < ml.HEADER or bytes(data[0:4]) != Header.MAGIC:
        raise ValueError("not a match log (no MDLG header)")
    if data[4] != Header.FORMAT:
        raise ValueError("log format %d; this reader knows %d" % (data[4], Header.FORMAT))
    if data[5] != Header.RULES:
        raise ValueError("rules version %d; this engine plays %d" % (data[5], Header.RULES))
    head = read_header(data)  # the header's own check
    count = (len(data) - ml.HEADER) // ml.ENTRY
    found = entries(data, ml.HEADER, count)
    return head, found, len(data) - ml.HEADER - ml.ENTRY * len(found)


def problem_text(problem):
    """A replay's problem (game.replay.Replay.problem) in words."""
    index, what, expected, got = problem
    if what == Replay.REFUSED:
        expected = KIND_NAMES[expected]
    text = PROBLEMS[what]
    return "entry %d: %s" % (index, text % (expected, got) if "%" in text else text)


def commitment_ok(data):
    """The header's commitment is sha256 of its first COMMITTED bytes."""
    return hashlib.sha256(bytes(data[: Header.COMMITTED])).digest() == bytes(data[32:64])


def check(data):
    """Everything a log tells, checked: a dict with the header's fields, `commit_ok`, the
    entries replayed (`problem`: the first mismatch or None), the final digest and result,
    and `ok` (commitment, no mismatch, no dropped bytes, every checkpoint agreed)."""
    head, entries, dropped = read(data)
    rep = Replay(head)
    for entry in entries:
        rep.apply(entry)
    m = rep.match
    end = entries[-1] if entries and entries[-1][0] == ml.END else None
    ok = commitment_ok(data) and rep.problem is None and not dropped
    names = ("width", "height", "artifact_pairs", "braid_percent", "cooldown_ms", "countdown_ms")
    return {
        "format": data[4],
        "rules": head.rules,
        "params": dict(zip(names, head.params)),
        "match_no": head.match_no,
        "seed": _hex(head.seed),
        "engine_seed": ml.engine_seed(head.seed, 0),
        "commit": _hex(head.commit),
        "commit_ok": commitment_ok(data),
        "seats": [
            {"seat": s, "name": head.players[s], "token_hash": _hex(head.token_hash[s])}
            for s in (1, 2)
        ],
        "entries": len(entries),
        "dropped_bytes": dropped,
        "checks": rep.checks,
        "problem": None if rep.problem is None else problem_text(rep.problem),
        "finished": end is not None,
        "abandoned": end is not None and end[2] == 0,
        "phase": rules.PHASE_NAMES[m.phase],
        "result": rules.RESULT_NAMES[m.result],
        "winner": m.winner,
        "digest": "%08x" % m.digest(),
        "accepted": [rep.accepted[1], rep.accepted[2]],
        "ok": ok,
    }


def export(data):
    """The readable export: check()'s report plus every entry as a dict."""
    report = check(data)
    _, found, _ = read(data)
    out = []
    for kind, seat, arg, aux, value in found:
        item = {"kind": KIND_NAMES[kind]}
        if kind in (ml.MOVE, ml.DROP):
            item.update(seat=seat, t=value, c_step=aux + 1)
            if kind == ml.MOVE:
                item["dir"] = rules.DIR_NAMES[arg]
        elif kind == ml.FORFEIT:
            item.update(seat=seat, t=value)
        elif kind == ml.CLOCK:
            item["t"] = value
        elif kind == ml.CHECK:
            item.update(digest="%08x" % value, seq_low=aux, at="resume" if arg else "end")
        else:
            item.update(t=value, result=rules.RESULT_NAMES[arg], winner=seat)
        out.append(item)
    report["log"] = out
    return report


class Writer:
    """Builds a log in memory the way the board does (header, then one entry per accepted
    command and per state change of the clock), for tests and benchmarks."""

    def __init__(self, m, seed_bytes, names=("ann", "bob"), last_c=(0, 0), match_no=1):
        params = (m.width, m.height, m.artifact_pairs, m.braid_percent, m.cooldown_ms)
        h = Header(params + (m.countdown_ms,), bytes(seed_bytes))
        h.match_no = match_no
        h.last_c = [0, last_c[0], last_c[1]]
        h.players = ["", names[0], names[1]]
        buf = h.pack(bytearray(ml.HEADER))
        h.commit = hashlib.sha256(bytes(buf[: Header.COMMITTED])).digest()
        self.header = h
        self.out = bytearray(h.pack(bytearray(ml.HEADER)))
        self.count = 0

    def entry(self, kind, seat, arg, aux, value):
        buf = bytearray(ml.ENTRY)
        ml.put_entry(buf, 0, self.count, kind, seat, arg, aux, value)
        self.out += buf
        self.count += 1

    def end(self, m):
        self.entry(ml.CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
        self.entry(ml.END, m.winner, m.result, 0, m.now)


def seed_bytes_for(seed):
    """16 seed bytes whose engine seed (game.matchlog.engine_seed) is the int seed."""
    return bytes(((seed >> 24) & 0x3F, (seed >> 16) & 0xFF, (seed >> 8) & 0xFF, seed & 0xFF)) + (
        b"\x5a" * 12
    )


def driven_log(seed, preset="small", steps=400, finish=True):
    """A log of the seeded driver's match (tools/driver.py: refused, late and clock-only steps
    included): (the log's bytes, the driven Match). finish=False leaves it unfinished; a
    match the driver did not finish is then ended by a forfeit of seat 1."""
    m = new_match(seed, preset)
    w = Writer(m, seed_bytes_for(seed))
    seen = [0]

    def on_step(m, kind, seat, arg, t, code):
        if kind and code == rules.OK:
            w.entry(ml.MOVE if kind == rules.CMD_MOVE else ml.DROP, seat, arg, 0, t)
        elif m.state_seq != seen[0] and seen[0]:  # (the start itself is in the header)
            w.entry(ml.CLOCK, 0, 0, 0, m.now)
        seen[0] = m.state_seq

    play(m, seed, steps, on_step)
    if finish:
        for seat in (1, 2):
            if m.phase != rules.FINISHED and m.forfeit(seat, m.now) == rules.OK:
                w.entry(ml.FORFEIT, seat, 0, 0, m.now)
        w.end(m)
    return bytes(w.out), m


def durable(main, tail=b""):
    """What a restart would recover from a running match's two files (the bytes of N.mdl and
    of N.tl): (header, entries), the tail's entries after the main file's, duplicates and
    anything after a torn or missing entry left out, as net/journal.py reads them."""
    head, found, _ = read(main)
    found = list(found)
    if len(tail) >= 8 and get_uint(tail, 6, 2) == ml.fletcher(tail, 0, 6, 0, 0):
        first = get_uint(tail, 0, 4)
        for k in range(tail[4]):
            if first + k < len(found):
                continue
            entry = get_entry(tail, 8 + 8 * k, first + k)
            if first + k > len(found) or entry is None:
                break
            found.append(entry)
    return head, found


def client_sequences(head, entries):
    """(seat, c) of every move and drop in the log: the client sequences it accepted."""
    last = [0, head.last_c[1], head.last_c[2]]
    out = []
    for kind, seat, _, aux, _ in entries:
        if kind in (ml.MOVE, ml.DROP):
            last[seat] = (last[seat] + aux + 1) & 0x3FFFFFFF
            out.append((seat, last[seat]))
    return out
