# Match logs on the host (docs/log.md): read one, check it (the seed commitment, every entry,
# the replay's digests and result), export it as plain data, and write logs of driven matches
# for tests and benchmarks. Portable (CPython and the MicroPython unix port: the core tests
# import it); the reading and the replay are the firmware's own (game.matchlog, game.replay).
# The format's numbers are spelled out here again (the firmware keeps them private:
# docs/log.md is the specification; the round-trip tests check that both agree).
#
#   report = check(data)               # data: a log file's bytes -> dict (report["ok"])
#   data, m = driven_log(seed, "small", 400)   # a finished log of a driven match, and the match
import hashlib
from binascii import hexlify

from driver import new_match, play
from game import rules, rulesets
from game.matchlog import Header
from game.replay import Replay

HEADER = 208  # bytes of the header
ENTRY = 8  # bytes of an entry
MAGIC = b"MDLG"
FORMAT = 1  # the header's format version
RULES = 1  # the rules version
MOVE, DROP, CLOCK, FORFEIT, CHECK, END, LIMIT = 1, 2, 3, 4, 5, 6, 7  # entry kinds
KIND_NAMES = ("", "move", "drop", "clock", "forfeit", "check", "end", "limit")
AFTER_END, DIGEST, RESULT, REFUSED = 1, 2, 3, 4  # Replay.reason's kinds of mismatch
PROBLEMS = {
    AFTER_END: "an entry after the end",
    DIGEST: "digest %08x in the log, %08x replayed",
    RESULT: "result %d in the log, %d replayed (result * 4 + winner)",
    REFUSED: "the engine refused this %s entry (code %d)",
}


def _hex(b):
    return hexlify(bytes(b)).decode()


def _uint(buf, off, n):
    v = 0
    for i in range(off, off + n):
        v = v << 8 | buf[i]
    return v


def engine_seed(seed):
    """The engine's seed: 30 bits of the seed's first four bytes (docs/log.md)."""
    return (seed[0] & 0x3F) << 24 | seed[1] << 16 | seed[2] << 8 | seed[3]


def entries(buf, start, count, first=0):
    """The valid entries of buf from offset start, numbered from `first`: at most count, up
    to the first one that is not valid. A list of (kind, seat, arg, aux, value)."""
    out = []
    for i in range(count):
        entry = Replay.read(buf, start + i * ENTRY, first + i)
        if entry is None:
            break
        out.append(entry)
    return out


def read(data):
    """(header, entries, dropped): the header, the valid entries from the start, and how many
    bytes after them were dropped (a torn or garbage tail). Raises ValueError, saying in one
    line what is wrong, for anything but a valid header of this format and rules whose
    parameters the engine can play."""
    if not data:
        raise ValueError("the file is empty")
    if bytes(data[0:4]) != MAGIC[: len(data)]:
        raise ValueError("not a match log (it does not start with MDLG)")
    if len(data) < HEADER:
        raise ValueError(
            "the header is cut short: %d of its %d bytes (a truncated file)" % (len(data), HEADER)
        )
    if data[4] != FORMAT:
        raise ValueError("log format %d; this reader knows %d" % (data[4], FORMAT))
    if data[5] != RULES:
        raise ValueError("rules version %d; this engine plays %d" % (data[5], RULES))
    if _uint(data, HEADER - 2, 2) != Header.sum(data, 0, HEADER - 2, 0, 0):
        raise ValueError("the header is damaged (its check does not match)")
    if data[14] >> 4 >= len(rulesets.RULESETS):
        raise ValueError(
            "the header names ruleset %d; this engine has %d"
            % (data[14] >> 4, len(rulesets.RULESETS))
        )
    try:
        head = Replay.head(data)
    except UnicodeError:
        raise ValueError("a player's name in the header is not UTF-8") from None
    try:
        Replay(head)  # the engine's own check of the parameters
    except ValueError as exc:
        raise ValueError("the header's parameters cannot be played: %s" % exc) from None
    count = (len(data) - HEADER) // ENTRY
    found = entries(data, HEADER, count)
    return head, found, len(data) - HEADER - ENTRY * len(found)


def problem_text(problem):
    """A replay's first mismatch (game.replay.Replay.reason) in words."""
    index, what, expected, got = problem
    if what == REFUSED:
        expected = KIND_NAMES[expected]
    text = PROBLEMS[what]
    return "entry %d: %s" % (index, text % (expected, got) if "%" in text else text)


def commitment_ok(data):
    """The header's commitment is sha256 of its first COMMITTED bytes."""
    return hashlib.sha256(bytes(data[:32])).digest() == bytes(data[32:64])


def check(data):
    """Everything a log tells, checked: a dict with the header's fields, `commit_ok`, the
    entries replayed (`problem`: the first mismatch or None), the final digest and result,
    and `ok` (commitment, no mismatch, no dropped bytes, every checkpoint agreed)."""
    head, entries, dropped = read(data)
    rep = Replay(head)
    for entry in entries:
        rep.take(entry)
    m = rep.match
    end = entries[-1] if entries and entries[-1][0] == END else None
    ok = commitment_ok(data) and rep.reason is None and not dropped
    names = ("width", "height", "artifact_pairs", "braid_percent", "cooldown_ms", "countdown_ms")
    return {
        "format": data[4],
        "rules": head.rules,
        "params": dict(zip(names, head.params)),
        "ruleset": rulesets.RULESETS[head.series[0]][0],
        "series": {
            "best_of": 2 * head.series[1] + 1,
            "score_before": [head.series[2], head.series[3]],
        },
        "match_no": head.match_no,
        "seed": _hex(head.seed),
        "engine_seed": engine_seed(head.seed),
        "commit": _hex(head.digest),
        "commit_ok": commitment_ok(data),
        "seats": [
            {"seat": s, "name": head.players[s], "token_hash": _hex(head.token_hash[s])}
            for s in (1, 2)
        ],
        "entries": len(entries),
        "dropped_bytes": dropped,
        "checks": sum(1 for e in entries if e[0] == CHECK) if rep.reason is None else 0,
        "problem": None if rep.reason is None else problem_text(rep.reason),
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
        if kind in (MOVE, DROP):
            item.update(seat=seat, t=value, c_step=aux + 1)
            if kind == MOVE:
                item["dir"] = rules.DIR_NAMES[arg]
        elif kind == FORFEIT:
            item.update(seat=seat, t=value)
        elif kind in (CLOCK, LIMIT):
            item["t"] = value
        elif kind == CHECK:
            item.update(digest="%08x" % value, seq_low=aux, at="resume" if arg else "end")
        else:
            item.update(t=value, result=rules.RESULT_NAMES[arg], winner=seat)
        out.append(item)
    report["log"] = out
    return report


class Writer:
    """Builds a log in memory the way the board does (header, then one entry per accepted
    command and per state change of the clock), for tests and benchmarks."""

    def __init__(
        self, m, seed_bytes, names=("ann", "bob"), last_c=(0, 0), match_no=1, series=(0, 0, 0, 0)
    ):
        params = (m.width, m.height, m.artifact_pairs, m.braid_percent, m.cooldown_ms)
        h = Header(params + (m.countdown_ms,), bytes(seed_bytes))
        h.series = series  # (ruleset index, best of // 2, score of seat 1 and 2 before it)
        h.match_no = match_no
        h.last_c = [0, last_c[0], last_c[1]]
        h.players = ["", names[0], names[1]]
        buf = h.write(bytearray(HEADER))
        h.digest = hashlib.sha256(bytes(buf[:32])).digest()
        self.header = h
        self.out = bytearray(h.write(bytearray(HEADER)))
        self.count = 0

    def entry(self, kind, seat, arg, aux, value):
        buf = bytearray(ENTRY)
        Header.record(buf, 0, self.count, kind, seat, arg, aux, value)
        self.out += buf
        self.count += 1

    def end(self, m):
        self.entry(CHECK, 0, 0, m.state_seq & 0xFF, m.digest())
        self.entry(END, m.winner, m.result, 0, m.now)


def seed_bytes_for(seed):
    """16 seed bytes whose engine seed (engine_seed) is the int seed."""
    return bytes(((seed >> 24) & 0x3F, (seed >> 16) & 0xFF, (seed >> 8) & 0xFF, seed & 0xFF)) + (
        b"\x5a" * 12
    )


def driven_log(seed, preset="small", steps=400, finish=True, ruleset=None, score=(0, 0)):
    """A log of the seeded driver's match (tools/driver.py: refused, late and clock-only steps
    included): (the log's bytes, the driven Match). finish=False leaves it unfinished; a
    match the driver did not finish is then ended by a forfeit of seat 1. ruleset: an index
    of game.rulesets.RULESETS, played on its own maze (preset is then unused), score the
    series score before it."""
    if ruleset is None:
        m = new_match(seed, preset)
        w = Writer(m, seed_bytes_for(seed))
    else:
        entry = rulesets.RULESETS[ruleset]
        m = rulesets.new_match(seed, entry)
        w = Writer(
            m, seed_bytes_for(seed), series=(ruleset, entry[rulesets.BEST_OF] // 2) + tuple(score)
        )
    seen = [0]

    def on_step(m, kind, seat, arg, t, code):
        if kind and code == rules.OK:
            w.entry(MOVE if kind == rules.CMD_MOVE else DROP, seat, arg, 0, t)
        elif m.state_seq != seen[0] and seen[0]:  # (the start itself is in the header)
            w.entry(CLOCK, 0, 0, 0, m.now)
        seen[0] = m.state_seq

    play(m, seed, steps, on_step)
    if finish:
        for seat in (1, 2):
            if m.phase != rules.FINISHED and m.forfeit(seat, m.now) == rules.OK:
                w.entry(FORFEIT, seat, 0, 0, m.now)
        w.end(m)
    return bytes(w.out), m


def durable(main, tail=b""):
    """What a restart would recover from a running match's two files (the bytes of N.mdl and
    of N.tl): (header, entries), the tail's entries after the main file's, duplicates and
    anything after a torn or missing entry left out, as net/journal.py reads them."""
    head, found, _ = read(main)
    found = list(found)
    if len(tail) >= 8 and _uint(tail, 6, 2) == Header.sum(tail, 0, 6, 0, 0):
        first = _uint(tail, 0, 4)
        for k in range(tail[4]):
            if first + k < len(found):
                continue
            entry = Replay.read(tail, 8 + 8 * k, first + k)
            if first + k > len(found) or entry is None:
                break
            found.append(entry)
    return head, found


def client_sequences(head, entries):
    """(seat, c) of every move and drop in the log: the client sequences it accepted."""
    last = [0, head.last_c[1], head.last_c[2]]
    out = []
    for kind, seat, _, aux, _ in entries:
        if kind in (MOVE, DROP):
            last[seat] = (last[seat] + aux + 1) & 0x3FFFFFFF
            out.append((seat, last[seat]))
    return out
