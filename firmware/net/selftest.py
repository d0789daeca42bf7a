# The board's self-test (docs/hardware.md, "Check a board first"): tools/board_check.py runs
# selftest(n) over mpremote, in a fresh interpreter where main.py's game is stopped. Never
# imported at boot: with the .mpy files on the filesystem it would cost heap, so nothing but
# the check imports it (its code is on the flash or in ROMFS, like every module's).
#
# A match of n accepted moves played in-process through the real match host (net.match_host,
# with its view publisher and match log), no radio: two bot players walking the maze and four
# observers (a full room), every view projected and framed for every session after every
# move, as the gateway's pump does. The match log goes to a folder of its own on this board's
# flash (SELFTEST_DIR, removed after), never the game's log/. The clock is the test's own,
# moved past the cooldown before each move: nothing waits. Timed per move: the whole path
# (the intent parsed, the engine, the log commit before the ack, every session's view), and
# within it the log's file writes. Prints lines `selftest <key> <values>` and returns nothing.
import gc
import os
import time

from game.compat import const
from game.rules import DIR_BITS
from net import intents
from net.frames import framed
from net.match_host import MatchHost
from net.resume import resume
from net.settings import Settings
from net.views import ViewPublisher

SELFTEST_DIR = "selftest-log"
_WAITING = const(0)  # game.rules' phases
_COUNTDOWN = const(1)
_FINISHED = const(3)
_SLOW_US = 10000  # a commit slower than this is an erase's time (docs/platform.md)


class Phone:
    """A session that takes every frame and keeps nothing."""

    def post(self, data):
        pass

    def post_text(self, message, data=None):
        # framed as net.gateway.Session frames it: the framing is part of a move's time
        return framed(message) if data is None else data

    def wake(self):
        pass

    def kill(self, code, reason):
        pass


class Timed:
    """A log file whose writes, flushes and seeks are timed (us summed in `us`)."""

    def __init__(self, f):
        self.f = f
        self.us = 0

    def write(self, b):
        t = time.ticks_us()
        n = self.f.write(b)
        self.us += time.ticks_diff(time.ticks_us(), t)
        return n

    def flush(self):
        t = time.ticks_us()
        self.f.flush()
        self.us += time.ticks_diff(time.ticks_us(), t)

    def seek(self, n):
        return self.f.seek(n)

    def close(self):
        self.f.close()


class Files:
    """The open() the test puts in place: every file of its log folder is a Timed one."""

    def __init__(self, real):
        self.real = real
        self.timed_files = []

    def opener(self):
        def timed_open(name, mode="r"):
            f = self.real(name, mode)
            if name.startswith(SELFTEST_DIR):
                f = Timed(f)
                self.timed_files.append(f)
            return f

        return timed_open

    def us(self):
        total = 0
        for f in self.timed_files:
            total += f.us
        return total


def _clear():
    try:
        for name in os.listdir(SELFTEST_DIR):
            os.remove(SELFTEST_DIR + "/" + name)
        os.rmdir(SELFTEST_DIR)
    except OSError:
        pass


def _spread(label, values):
    """`selftest <label> p50 p99 max count` of values (us)."""
    s = sorted(values)
    n = len(s)
    print("selftest %s %d %d %d %d" % (label, s[n // 2], s[min(n - 1, n * 99 // 100)], s[-1], n))


def selftest(n=200, observers=4):
    import builtins

    _clear()
    gc.collect()
    print("selftest heap_before %d %d" % (gc.mem_alloc(), gc.mem_free()))
    clock = [0]
    host = MatchHost(Settings(), ViewPublisher(), lambda *a: None, lambda: clock[0])
    timing = Files(builtins.open)
    try:
        builtins.open = timing.opener()  # the journal's files are opened through it
        timed = True
    except (AttributeError, TypeError):  # a firmware whose built-ins cannot be replaced
        timed = False
    try:
        resume(host, SELFTEST_DIR)
        players = [Phone(), Phone()]
        sessions = players + [Phone() for _ in range(observers)]
        for p in players:
            host.handle(p, intents.parse('{"t":"join","role":"play"}'))
        for s in sessions[2:]:
            host.handle(s, intents.parse('{"t":"join","role":"watch"}'))
        seq = [0, 1, 1]
        moves = []
        commits = []
        slow = 0
        rng = 7
        tries = 0
        while len(moves) < n:
            tries += 1
            if tries > 4 * n + 100:
                raise RuntimeError("the host accepts no move")
            m = host.match
            if m.phase == _WAITING or m.phase == _FINISHED:  # both (again) ready
                for k in (1, 2):
                    seq[k] += 1
                    host.handle(players[k - 1], intents.parse('{"t":"ready","c":%d}' % seq[k]))
                continue
            if m.phase == _COUNTDOWN:
                clock[0] += m.countdown_ms + 1
                host.tick()
                continue
            k = 1 + tries % 2
            here = m.pos[k]
            rng = (rng * 1103515245 + 12345) & 0x7FFFFFFF
            d = rng >> 16 & 3
            while not m.cells[here] & DIR_BITS[d]:
                d = (d + 1) & 3
            seq[k] += 1
            clock[0] += m.cooldown_ms + 1
            text = '{"t":"move","c":%d,"d":"%s"}' % (seq[k], "NESW"[d])
            accepted = host.moves[k]
            gc.collect()  # the collector's pauses are not the move's
            spent = timing.us()
            t = time.ticks_us()
            host.handle(players[k - 1], intents.parse(text))
            views = host.views
            for s in sessions:
                epoch = views.epoch
                if views.frames(s, []) is not None:
                    views.sent(s, epoch)
            us = time.ticks_diff(time.ticks_us(), t)
            c = timing.us() - spent
            host.tick()  # the finish window, a match's end
            if host.moves[k] == accepted or host.match is not m:
                continue  # refused (or the match ended with it): not a move
            moves.append(us)
            commits.append(c)
            if c > _SLOW_US:
                slow += 1
        _spread("move_us", moves)
        if timed:
            _spread("commit_us", commits)
            print("selftest slow_commits %d %d" % (slow, _SLOW_US))
        else:
            print("selftest commit_us - - - 0")
        print("selftest matches %d" % host.match_no)
        gc.collect()
        print("selftest heap_after %d %d" % (gc.mem_alloc(), gc.mem_free()))
    finally:
        if timed:
            builtins.open = timing.real
        _clear()
    print("selftest done")
