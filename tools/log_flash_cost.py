"""The match log's flash cost on real LittleFS (docs/performance.md, "The log's flash cost").

    python tools/log_flash_cost.py [--matches 3] [--moves 2000] [--json build/log-flash.json]
    make log-flash

The board's own code path (net.match_host with its net.journal) under the MicroPython unix port,
whose vfs.VfsLfs2 is the same LittleFS code as the ESP32's, with its defaults (the ESP32 mounts
its file system with them too), on a RAM block device the size of a 4 MB ESP32's file system
partition (2 MB of 4 KB sectors) that records every program and erase, as
host_tests/net/test_journal_littlefs.py's does. Matches of --moves accepted moves are played
back to back (each one ended by a forfeit, so its log is closed and the next one starts, the
logs of the earlier ones staying on the flash), and for every move the flash work it caused
before its ack: erases, program operations, bytes programmed. The flash's time for that work
comes from a datasheet (Winbond W25Q32JV, the flash of many ESP32 modules; docs/platform.md,
"Flash timing"): a 4 KB sector erase 45 ms typical, 400 ms at most; a page program (up to 256
bytes) 0.4 ms typical, 3 ms at most. Printed: per match, the erases, the bytes programmed and the
moves that saw an erase (a LittleFS metadata compaction), and per move the extra latency
estimated from the typical and the maximum figures (p50, p99, worst); and the flash's lifetime
in matches at 100,000 erase cycles a sector, LittleFS's wear levelling spreading the erases over
the partition's free sectors.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hostenv import ROOT, find_micropython

SECTOR = 4096
SECTORS = 512  # 2 MB: the vfs partition of a 4 MB ESP32's stock partition table
# Winbond W25Q32JV (datasheet rev. F, "AC Electrical Characteristics"): tSE, tPP
ERASE_MS = (45.0, 400.0)  # typical, maximum: a 4 KB sector
PAGE_MS = (0.4, 3.0)  # typical, maximum: a page program (up to 256 bytes)
PAGE = 256
CYCLES = 100_000  # erase cycles a sector endures (the same datasheet)
FEEL_MS = 30  # more than this on one move, a player would feel it

_UPY = """
import sys, vfs
from net import intents
from net.frames import framed
from net.match_host import MatchHost
from net.resume import resume
from net.settings import Settings
from net.views import ViewPublisher

BLOCK = %d

class Flash:
    def __init__(self, blocks):
        self.data = bytearray(blocks * BLOCK)
        self.erases = self.programs = self.bytes = 0
        self.pages = 0
    def readblocks(self, n, buf, off=0):
        a = n * BLOCK + off
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, n, buf, off=0):
        a = n * BLOCK + off
        self.data[a:a + len(buf)] = buf
        self.programs += 1
        self.bytes += len(buf)
        self.pages += (off + len(buf) + %d - 1) // %d - off // %d
    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // BLOCK
        if op == 5:
            return BLOCK
        if op == 6:
            self.erases += 1
            return 0
        return 0

class Phone:
    last = b""
    def post(self, data):
        self.last = data
    def post_text(self, message, data=None):
        self.last = framed(message) if data is None else data
        return self.last
    def wake(self):
        pass
    def kill(self, code, reason):
        pass

class Clock:
    t = 0
    def ticks_ms(self):
        return self.t

flash = Flash(%d)
vfs.VfsLfs2.mkfs(flash)
vfs.mount(vfs.VfsLfs2(flash), "/f")
with open("/f/image.bin", "wb") as f:  # the board image's ~72 KB on the same file system
    for i in range(18):
        f.write(bytes(4096))
clock = Clock()
settings = Settings()
settings.countdown_ms = 0
h = MatchHost(settings, ViewPublisher(), log=lambda *a: None, ticks_ms=clock.ticks_ms)
resume(h, "/f/log")
moves = int(sys.argv[1])
for match in range(int(sys.argv[2])):
    phones = (None, Phone(), Phone())
    for s in (1, 2):
        h.handle(phones[s], intents.parse('{"t":"join","role":"play"}'))
    for s in (1, 2):
        c = h.seats[s].last_c + 1
        h.handle(phones[s], intents.parse('{"t":"ready","c":%%d}' %% c))
    m = h.match
    e0, p0, b0 = flash.erases, flash.programs, flash.bytes
    for i in range(moves):
        s = 1 + i %% 2
        clock.t += m.cooldown_ms + 1
        here = m.pos[s]
        d = [d for d in range(4) if m.cells[here] & (1, 2, 4, 8)[d]][i // 2 %% 2 - 1]
        c = h.seats[s].last_c + 1
        e, p, g = flash.erases, flash.programs, flash.pages
        h.handle(phones[s], intents.parse('{"t":"move","c":%%d,"d":"%%s"}' %% (c, "NESW"[d])))
        assert h.seats[s].last_c == c, (match, i, m.phase, bytes(phones[s].last))
        print("M", flash.erases - e, flash.programs - p, flash.pages - g)
    for s in (1, 2):  # the end: a forfeit closes the log
        c = h.seats[s].last_c + 1
        h.handle(phones[s], intents.parse('{"t":"leave","c":%%d}' %% c))
        h.detach(phones[s])
    clock.t += 120000  # past every grace period: both seats free again
    h.tick()
    print("MATCH", match + 1, flash.erases - e0, flash.programs - p0, flash.bytes - b0)
import os
s = os.statvfs("/f")
print("FREE", s[3], s[2])
"""


def run(moves, matches, micropython=None):
    micropython = micropython or find_micropython()
    if micropython is None:
        raise SystemExit("log_flash_cost: no micropython binary: run `make venv`")
    script = _UPY % (SECTOR, PAGE, PAGE, PAGE, SECTORS)
    env = dict(
        os.environ,
        MICROPYPATH=os.pathsep.join(
            [str(ROOT / "tools" / "hostboard"), str(ROOT / "firmware"), ".frozen"]
        ),
    )
    with tempfile.TemporaryDirectory() as work:
        done = subprocess.run(
            [str(micropython), "-X", "heapsize=8M", "-c", script, str(moves), str(matches)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
    if done.returncode:
        raise RuntimeError(done.stdout[-2000:] + done.stderr)
    per_move, per_match, free = [], [], None
    for line in done.stdout.splitlines():
        parts = line.split()
        if parts[0] == "M":
            per_move.append(tuple(int(x) for x in parts[1:]))
        elif parts[0] == "MATCH":
            per_match.append([int(x) for x in parts[1:]])
        elif parts[0] == "FREE":
            free = int(parts[1])
    return per_move, per_match, free


def _pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, len(s) * p // 100)]


def figures(per_move, per_match, free, moves):
    typ = [e * ERASE_MS[0] + g * PAGE_MS[0] for e, _, g in per_move]
    worst = [e * ERASE_MS[1] + g * PAGE_MS[1] for e, _, g in per_move]
    erases = [m[1] for m in per_match]
    per_match_erases = sum(erases) / len(erases)
    return {
        "matches": len(per_match),
        "moves_per_match": moves,
        "erases_per_match": [m[1] for m in per_match],
        "bytes_programmed_per_match": [m[3] for m in per_match],
        "program_ops_per_match": [m[2] for m in per_match],
        "moves_with_an_erase_per_match": [
            sum(1 for e, _, _ in per_move[k * moves : (k + 1) * moves] if e)
            for k in range(len(per_match))
        ],
        "most_erases_in_one_move": max(e for e, _, _ in per_move),
        "extra_ms_per_move_typical": {
            "p50": round(_pct(typ, 50), 1),
            "p99": round(_pct(typ, 99), 1),
            "worst": round(max(typ), 1),
        },
        "extra_ms_per_move_datasheet_max": {
            "p50": round(_pct(worst, 50), 1),
            "p99": round(_pct(worst, 99), 1),
            "worst": round(max(worst), 1),
        },
        "free_sectors": free,
        "lifetime_matches": int(free * CYCLES / per_match_erases) if per_match_erases else None,
        "flash": "%d sectors of %d bytes (LittleFS, MicroPython's VfsLfs2 defaults)"
        % (SECTORS, SECTOR),
        "timing_source": "Winbond W25Q32JV: sector erase %g ms typ / %g ms max, page program "
        "%g ms typ / %g ms max, %d cycles" % (ERASE_MS + PAGE_MS + (CYCLES,)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="accepted moves a match")
    parser.add_argument("--matches", type=int, default=3, help="matches back to back")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    per_move, per_match, free = run(args.moves, args.matches)
    out = figures(per_move, per_match, free, args.moves)
    typ, top = out["extra_ms_per_move_typical"], out["extra_ms_per_move_datasheet_max"]
    print("flash: %s; %d matches of %d moves" % (out["flash"], out["matches"], args.moves))
    for k in range(out["matches"]):
        print(
            "match %d: %d erases, %d bytes programmed (%d program operations), %d moves saw an "
            "erase"
            % (
                k + 1,
                out["erases_per_match"][k],
                out["bytes_programmed_per_match"][k],
                out["program_ops_per_match"][k],
                out["moves_with_an_erase_per_match"][k],
            )
        )
    print("most erases in one move: %d" % out["most_erases_in_one_move"])
    print(
        "extra latency per move, typical flash: p50 %.1f ms, p99 %.1f ms, worst %.1f ms"
        % (typ["p50"], typ["p99"], typ["worst"])
    )
    print(
        "extra latency per move, datasheet maximum: p50 %.1f ms, p99 %.1f ms, worst %.1f ms"
        % (top["p50"], top["p99"], top["worst"])
    )
    print(
        "lifetime: %s matches (%d free sectors x %d cycles, wear levelled)"
        % ("{:,}".format(out["lifetime_matches"]), free, CYCLES)
    )
    verdict = "over" if typ["worst"] > FEEL_MS else "within"
    print("worst move, typical flash: %.1f ms, %s %d ms" % (typ["worst"], verdict, FEEL_MS))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
