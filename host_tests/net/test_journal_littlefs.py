# The match log on LittleFS, the ESP32's file system, with power cuts (MicroPython unix port,
# whose vfs.VfsLfs2 is the same LittleFS code as the board's; the flash is a RAM block device
# with the ESP32's 4 KB sectors that records every program and erase). One match is logged;
# then, for cut after cut, the flash as it was at that moment (the operation at the cut only
# partly done) is mounted again and the board resumes from it. Every command whose log write
# had returned must be back, nothing else may be, and the match must be the one that was
# played up to there, digest for digest. Also the flash work per move: erases and bytes
# programmed, against logging to one file appended and flushed per move.
import os

import pytest

pytestmark = [pytest.mark.upy, pytest.mark.slow]

SCRIPT = """
import gc, sys, vfs
from net import intents
from net.resume import resume
from net.match_host import MatchHost
from net.views import ViewPublisher
from net.settings import Settings

BLOCK = 4096

class Flash:
    # a NOR flash of 4 KB sectors; every program and erase is recorded
    def __init__(self, blocks):
        self.data = bytearray(blocks * BLOCK)
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
            return len(self.data) // BLOCK
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

def host(clock):
    settings = Settings()
    settings.preset = "small"
    settings.countdown_ms = 0
    settings.cooldown_ms = 100
    return MatchHost(settings, ViewPublisher(), log=lambda *a: None, ticks_ms=clock.ticks_ms)

flash = Flash(48)
vfs.VfsLfs2.mkfs(flash)
vfs.mount(vfs.VfsLfs2(flash), "/f")
clock = Clock()
h = host(clock)
resume(h, "/f/log")
phones = (None, Phone(), Phone())
for s in (1, 2):
    h.handle(phones[s], intents.parse('{"t":"join","role":"play"}'))
base = bytes(flash.data)
flash.record = True
for s in (1, 2):
    h.handle(phones[s], intents.parse('{"t":"ready","c":1}'))
m = h.match
before, after, digests = [], [], [m.digest()]
moves = int(sys.argv[1])
for i in range(moves):
    s = 1 + i % 2
    clock.t += 60
    here = m.pos[s]
    d = [d for d in range(4) if m.cells[here] & (1, 2, 4, 8)[d]][i // 2 % 2 - 1]
    c = h.seats[s].last_c + 1
    before.append(len(flash.ops))
    h.handle(phones[s], intents.parse('{"t":"move","c":%d,"d":"%s"}' % (c, "NESW"[d])))
    after.append(len(flash.ops))
    assert h.seats[s].last_c == c, "refused"
    digests.append(m.digest())
ops = flash.ops
erases = sum(1 for op in ops[before[0]:] if op[1] < 0)
programmed = sum(len(op[2]) for op in ops[before[0]:] if op[1] >= 0)
print("WORK", moves, erases, programmed)
vfs.umount("/f")
flash.record = False

# the same moves appended to one file, flushed after each (what the tail file avoids)
naive = Flash(48)
vfs.VfsLfs2.mkfs(naive)
vfs.mount(vfs.VfsLfs2(naive), "/n")
f = open("/n/log", "ab")
f.write(bytes(208))
f.flush()
naive.record = True
entry = bytes(8)
for i in range(moves):
    f.write(entry)
    f.flush()
erases = sum(1 for op in naive.ops if op[1] < 0)
programmed = sum(len(op[2]) for op in naive.ops if op[1] >= 0)
print("NAIVE", moves, erases, programmed)
f.close()
vfs.umount("/n")
del naive

step = int(sys.argv[2])
cuts = 0
for cut in range(before[0], len(ops) + 1, step):
    img = Flash(48)
    img.data[:] = base
    for n, off, data in ops[:cut]:
        if off < 0:
            img.data[n * BLOCK:(n + 1) * BLOCK] = b"\\xff" * BLOCK
        else:
            img.data[n * BLOCK + off:n * BLOCK + off + len(data)] = data
    if cut < len(ops) and ops[cut][1] >= 0:  # the cut came in the middle of this program
        n, off, data = ops[cut]
        part = len(data) * (cut % 3) // 3
        img.data[n * BLOCK + off:n * BLOCK + off + part] = data[:part]
    vfs.mount(vfs.VfsLfs2(img), "/c")
    clock2 = Clock()
    r = host(clock2)
    resumed = resume(r, "/c/log")
    done = sum(1 for a in after if a <= cut)
    started = sum(1 for b in before if b < cut)
    k = r.seats[1].accepted + r.seats[2].accepted if resumed else 0
    ok = done <= k <= started and (not resumed or r.match.digest() == digests[k])
    if not ok:
        print("FAIL", cut, resumed, done, k, started)
    vfs.umount("/c")
    del img, r
    gc.collect()
    cuts += 1
print("CUTS", cuts, len(ops))
"""


def run(run_upy, repo_root, tmp_path, monkeypatch, moves, step):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    result = run_upy(SCRIPT, heapsize="4M", cwd=tmp_path, args=(moves, step), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_a_power_cut_at_any_flash_operation_loses_nothing_written(
    run_upy, repo_root, tmp_path, monkeypatch
):
    out = run(run_upy, repo_root, tmp_path, monkeypatch, 60, 1)
    assert not [line for line in out if line.startswith("FAIL")], out
    _, cuts, ops = out[-1].split()
    print("power cuts: %s, one at each of the %s flash operations of 60 moves" % (cuts, ops))
    assert int(cuts) > 2 * 60  # every operation of the match, from the start of the countdown


def test_the_flash_work_per_move(run_upy, repo_root, tmp_path, monkeypatch):
    out = run(run_upy, repo_root, tmp_path, monkeypatch, 280, 10**9)
    work = {line.split()[0]: [int(x) for x in line.split()[1:]] for line in out[:2]}
    moves, erases, programmed = work["WORK"]
    _, naive_erases, naive_programmed = work["NAIVE"]
    print(
        "per move: %.3f erases, %.0f bytes programmed; one file appended and flushed:"
        " %.3f erases, %.0f bytes"
        % (
            erases / moves,
            programmed / moves,
            naive_erases / moves,
            naive_programmed / moves,
        )
    )
    # the tail file keeps most moves to a small metadata commit: far fewer erases and bytes
    assert erases * 4 < naive_erases and programmed * 2 < naive_programmed
