# Rebuilding a match from its log (docs/log.md): the header's seed and parameters, then every
# entry through the engine's public calls (start, enqueue + process, advance, forfeit). The
# board runs it once at boot to resume a match (net/resume.py), tools/replay.py to check one.
from game.engine import Match
from game.matchlog import CHECK, CLOCK, DROP, END, MOVE, Header, engine_seed
from game.rules import CMD_DROP, CMD_MOVE, FINISHED, OK


class Replay:
    """Rebuilds a match from its header, one entry at a time, through Match.start, enqueue +
    process, advance and forfeit (or onto `match`, a Match with the header's parameters, which
    is reset). Also counts what the board needs to go on: each seat's client sequence and
    accepted commands, the clock of the last entry. `problem` is the first mismatch, None while
    everything agrees: (entry number, AFTER_END/DIGEST/RESULT/REFUSED, expected, got)."""

    AFTER_END = 1  # an entry after the end (0, its kind)
    DIGEST = 2  # a checkpoint's digest (the log's, the replay's)
    RESULT = 3  # the end's result * 4 + winner (the log's, the replay's)
    REFUSED = 4  # a command or clock advance refused or without effect (its kind, the code)

    def __init__(self, header, match=None):
        if header.rules != Header.RULES:
            raise ValueError("bad log header")
        seed = engine_seed(header.seed, 0)
        if match is None:
            w, h, pairs, braid, cooldown, countdown = header.params
            match = Match(seed, w, h, cooldown, countdown, pairs, braid)
        else:
            match.reset(seed)
        self.match = match
        match.start(0)
        self.last_c = [0, header.last_c[1], header.last_c[2]]
        self.accepted = [0, 0, 0]
        self.t = 0  # the clock of the last entry with a time
        self.count = 0  # entries applied
        self.checks = 0  # CHECK entries that agreed
        self.ended = False
        self.problem = None

    def apply(self, entry):
        """Apply one entry (kind, seat, arg, aux, value); False once something disagreed."""
        kind, seat, arg, aux, value = entry
        m = self.match
        what = 0
        if self.ended:
            what, expected, got = Replay.AFTER_END, 0, kind
        elif kind == CHECK:
            if value != m.digest() or aux != m.state_seq & 0xFF:
                what, expected, got = Replay.DIGEST, value, m.digest()
            else:
                self.checks += 1
        elif kind == END:
            self.ended = True
            if arg and (m.phase != FINISHED or m.result != arg or m.winner != seat):
                what, expected, got = Replay.RESULT, arg * 4 + seat, m.result * 4 + m.winner
        else:
            self.t = value
            before = m.state_seq
            if kind == MOVE or kind == DROP:
                code = m.enqueue(seat, CMD_MOVE if kind == MOVE else CMD_DROP, arg, value)
                if code == OK:
                    code = m.process()
                self.last_c[seat] = (self.last_c[seat] + aux + 1) & 0x3FFFFFFF
                self.accepted[seat] += 1
            elif kind == CLOCK:
                code = m.advance(value)
            else:
                code = m.forfeit(seat, value)
            if code != OK or m.state_seq == before:
                what, expected, got = Replay.REFUSED, kind, code
        if what and self.problem is None:
            self.problem = (self.count, what, expected, got)
        self.count += 1
        return self.problem is None
