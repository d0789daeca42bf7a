# The resume itself on LittleFS, with power cuts (docs/log.md, "Resume"; the same recording
# flash as host_tests/net/test_journal_littlefs.py: the MicroPython unix port's vfs.VfsLfs2, the
# ESP32's LittleFS code, on a RAM block device of 4 KB sectors). A match is played on it and
# the board stops mid-match (the image as it was: a power cut). Its boot runs net.resume.resume
# as net.wiring does, every program and erase recorded; then, for each of those operations in
# turn, the flash is rebuilt as it was at that moment (and again with that program torn half
# way) and booted with a fresh host: it must end resumed (the same match number, digest,
# accepted counts and client sequences as the uncut resume, both seats held for their players'
# tokens, paused) or fresh (a waiting match, numbered after the log, nothing of the old match,
# the old log still there as match-1.log or kept aside as match-1.bad), never half; no .new
# left; and a third boot from the flash the second one left agrees with it.
import os

import pytest

pytestmark = [pytest.mark.upy, pytest.mark.slow]

SCRIPT = """
import gc, os, sys, vfs
from net import intents
from net.resume import resume
from net.match_host import MatchHost
from net.views import ViewPublisher
from net.settings import Settings

BLOCK = 4096
BLOCKS = 48
WAITING = 0  # game.rules

class Flash:
    # a NOR flash of 4 KB sectors; every program and erase is recorded
    def __init__(self, data=None):
        self.data = bytearray(BLOCKS * BLOCK) if data is None else bytearray(data)
        self.ops = []
        self.record = False
    def readblocks(self, n, buf, off=0):
        a = n * BLOCK + off
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, n, buf, off=0):
        a = n * BLOCK + off
        self.data[a:a + len(buf)] = buf
        if self.record:
            self.ops.append((n, off, bytes(buf)))
    def ioctl(self, op, arg):
        if op == 4:
            return BLOCKS
        if op == 5:
            return BLOCK
        if op == 6:
            self.data[arg * BLOCK:(arg + 1) * BLOCK] = b"\\xff" * BLOCK
            if self.record:
                self.ops.append((arg, -1, None))
            return 0
        return 0

# a session that takes every frame, framed as the gateway frames it
from net.selftest import Phone

class Clock:
    t = 0
    def ticks_ms(self):
        return self.t

lines = []

def host(clock):
    settings = Settings()
    settings.preset = "small"
    settings.countdown_ms = 300
    settings.cooldown_ms = 100
    return MatchHost(settings, ViewPublisher(), log=lines.append, ticks_ms=clock.ticks_ms)

moves = int(sys.argv[1])
garbage = int(sys.argv[2])  # bytes appended to the log (a damaged end: the original kept aside)

# the match, played until the power goes
flash = Flash()
vfs.VfsLfs2.mkfs(flash)
vfs.mount(vfs.VfsLfs2(flash), "/f")
clock = Clock()
h = host(clock)
resume(h, "/f/log")
phones = (None, Phone(), Phone())
for s in (1, 2):
    h.handle(phones[s], intents.parse('{"t":"join","role":"play"}'))
tokens = (None, h.seats[1].token, h.seats[2].token)
for s in (1, 2):
    h.handle(phones[s], intents.parse('{"t":"ready","c":1}'))
m = h.match
clock.t = 300  # the countdown over
h.tick()
for i in range(moves):
    s = 1 + i % 2
    clock.t += 60
    here = m.pos[s]
    d = [d for d in range(4) if m.cells[here] & (1, 2, 4, 8)[d]][i // 2 % 2 - 1]
    c = h.seats[s].last_c + 1
    h.handle(phones[s], intents.parse('{"t":"move","c":%d,"d":"%s"}' % (c, "NESW"[d])))
    assert h.seats[s].last_c == c, "refused"
if garbage:
    with open("/f/log/match-1.log", "ab") as f:
        f.write(b"\\x5a" * garbage)
live = (h.match_no, m.digest(), h.seats[1].accepted, h.seats[2].accepted)
base = bytes(flash.data)  # the power cut: the flash as it is, files open
vfs.umount("/f")
del h, m, flash
gc.collect()

def files(mnt):
    return sorted(os.listdir(mnt + "/log"))

def state(r, n):
    # what a boot ended with: ("resumed", ...) or ("fresh", ...) or ("HALF", why)
    if n:
        held = r.seats[1].holds(tokens[1]) and r.seats[2].holds(tokens[2])
        return (
            "resumed" if n == 1 and held and r.paused else "HALF",
            r.match_no,
            r.match.digest(),
            r.seats[1].accepted,
            r.seats[2].accepted,
            r.seats[1].last_c,
            r.seats[2].last_c,
        )
    clean = (
        r.match.phase == WAITING
        and not r.paused
        and r.match_no == live[0] + 1  # numbered after the log's match (the room file's)
        and r.journal.opened == 0
        and r.journal.main is None
        and r.journal.number >= 1  # the next log is not match-1's
        and r.seats[1].accepted == r.seats[2].accepted == 0
        and r.moves == [0, 0, 0]
    )
    return ("fresh" if clean else "HALF", r.match_no)

def boot(data, mnt, record=False):
    img = Flash(data)
    vfs.mount(vfs.VfsLfs2(img), mnt)
    img.record = record
    del lines[:]
    clock = Clock()
    clock.t = 12345
    r = host(clock)
    n = resume(r, mnt + "/log")
    img.record = False
    out = state(r, n)
    names = files(mnt)
    snap = bytes(img.data)  # the flash as this boot left it (a power cut right after it)
    for f in (r.journal.main, r.journal.stream):
        if f is not None:
            f.close()  # (not by the collector's finaliser, after the unmount)
    del r
    gc.collect()
    return img, out, names, snap

# the uncut boot: its operations are the cut points
img, uncut, names, _ = boot(base, "/u", True)
ops = img.ops
vfs.umount("/u")
assert uncut[0] == "resumed" and uncut[1:5] == live, (uncut, live, lines)
print("UNCUT", len(ops), " ".join(names))
del img
gc.collect()

tally = {}
for cut in range(len(ops) + 1):
    torn = (False, True) if cut < len(ops) and ops[cut][1] >= 0 else (False,)
    for half in torn:
        data = bytearray(base)
        for n, off, buf in ops[:cut]:
            if off < 0:
                data[n * BLOCK:(n + 1) * BLOCK] = b"\\xff" * BLOCK
            else:
                data[n * BLOCK + off:n * BLOCK + off + len(buf)] = buf
        if half:  # the cut came in the middle of this program
            n, off, buf = ops[cut]
            part = len(buf) // 2
            data[n * BLOCK + off:n * BLOCK + off + part] = buf[:part]
        img, second, names, img2 = boot(data, "/c")
        said = list(lines)
        vfs.umount("/c")
        del img, data
        img, third, names3, _ = boot(img2, "/t")
        vfs.umount("/t")
        del img, img2
        gc.collect()
        bad = []
        if [x for x in names + names3 if x.endswith(".new")]:
            bad.append("a .new left")
        if "match-1.log" not in names and "match-1.bad" not in names:
            bad.append("the log deleted")
        if second[0] == "resumed" and second != uncut:
            bad.append("resumed otherwise than the uncut boot")
        if second[0] == "fresh" and not [x for x in said if "match log 1" in x]:
            bad.append("fresh without a console line")
        if second[0] == "HALF":
            bad.append("half")
        if third[0] != second[0] or (third[0] == "resumed" and third != second):
            bad.append("the third boot differs")
        if bad:
            print("FAIL", cut, half, bad, second, third, names, names3, said)
        key = second[0] + ("/" + third[0] if third[0] != second[0] else "")
        tally[key] = tally.get(key, 0) + 1
print("CUTS", len(ops), " ".join("%s=%d" % kv for kv in sorted(tally.items())))
"""


MOVES = 200


def run(run_upy, repo_root, tmp_path, monkeypatch, moves, garbage):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    result = run_upy(SCRIPT, heapsize="4M", cwd=tmp_path, args=(moves, garbage), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout.splitlines()
    print("\n".join(out))
    return out


def _check(out):
    assert not [line for line in out if line.startswith("FAIL")], out
    _, ops, *outcomes = out[-1].split()
    counts = dict(o.split("=") for o in outcomes)
    return int(ops), {k: int(v) for k, v in counts.items()}


def test_a_power_cut_at_any_write_of_the_resume_ends_resumed_or_fresh(
    run_upy, repo_root, tmp_path, monkeypatch
):
    ops, counts = _check(run(run_upy, repo_root, tmp_path, monkeypatch, MOVES, 0))
    # LittleFS changes a file at its close and a rename at once: every cut resumes (the .new
    # deleted when the cut came before the rename, the log rewritten when after)
    assert ops > 10 and counts == {"resumed": counts["resumed"]}


def test_a_power_cut_while_a_damaged_log_is_kept_aside(run_upy, repo_root, tmp_path, monkeypatch):
    # a log with 3 bytes after its last entry: the rewrite renames the original to .bad, then
    # the .new to the log; a cut between the two renames leaves a finished .new and no log,
    # which the next boot takes as the log (it used to delete it and start fresh, silently)
    ops, counts = _check(run(run_upy, repo_root, tmp_path, monkeypatch, MOVES, 3))
    assert ops > 10 and counts == {"resumed": counts["resumed"]}
