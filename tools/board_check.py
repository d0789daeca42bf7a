"""Check a board before trusting it (docs/hardware.md, "Check a board first"): what its
firmware has, what memory and flash it has, then the firmware's own self-test on it, and a
verdict against the project's budgets in plain words. Changes nothing that is deployed.

    python tools/board_check.py --port /dev/ttyUSB0 [--moves 200] [--image build/image]
    make board-check PORT=/dev/ttyUSB0                      (MOVES=200)

Two mpremote sessions (`python -m mpremote`, as tools/deploy.py):
 1. a probe script: the firmware's version and .mpy architecture; whether it compiles viper
    code (the view writers' machine code), has ROMFS (vfs.rom_ioctl and a partition) and
    esp32.idf_heap_info; the GC heap (micropython.mem_info(1): its areas and their free runs,
    the largest free blocks); the IDF heap's free DRAM and executable RAM; the file system's
    free bytes and block size; where the deployed code is (/rom or the filesystem);
 2. the self-test (firmware/net/selftest.py, in the deployed image: imported by nothing else,
    so it costs no heap at boot): a bot match of --moves accepted moves through the real match
    host, 2 players and 4 observers in-process, no radio, its match log on the flash in a
    folder of its own (removed after): per-move time and log commit time (p50/p99/max, and
    the commits slow enough to be a flash erase), the heap after.
mpremote's raw REPL stops the running game (main.py does not run again until a reset); the
board is reset at the end (not with --resume: the virtual board, whose process would end).
What the port lacks (the unix port: no IDF heap, no ROMFS partition) is reported as "not
available here", never a failure. Exit status: 0 when every budget holds, 1 when one does not,
2 bad arguments, 3 no board or no answer.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import board_run
import build_image
from deploy import EXIT_NO_BOARD, DeployError, check_port, mpremote

EXIT_OK, EXIT_FAILED, EXIT_ARGS = 0, 1, 2
_PROBE_TIMEOUT_S = 60
_MARK = "@@check"
# Budgets of the verdict. Per move: the p99 a player must not feel (the issue's 30 ms, well
# under the shortest cooldown a ruleset uses); executable RAM: what the xtensawin .mpy of
# game.writers takes (docs/memory.md, "Machine code"), when the image does not say.
MOVE_P99_MS = 30
WRITERS_EXEC_BYTES = 6400
NOT_HERE = "not available here"

# Runs on the board (MicroPython built-ins only). {short}: the self-test's module name.
_PROBE = """\
import gc, micropython, os, sys
M = %r
print(M, 'fw', '.'.join(str(x) for x in sys.implementation.version[:3]), sys.platform,
      getattr(sys.implementation, '_mpy', -1), sys.maxsize > 2**32 and 64 or 32)
try:
    print(M, 'machine', os.uname().machine.replace(' ', '_'))
except Exception:
    print(M, 'machine', '-')
try:
    exec('@micropython.viper\\ndef _vp(x: int) -> int:\\n    return x + 1\\n_vr = _vp(1)')
    print(M, 'native', 1)
except Exception as e:
    print(M, 'native', 0, type(e).__name__)
try:
    import vfs
    d = vfs.rom_ioctl(2, 0)
    if isinstance(d, int):
        print(M, 'romfs', min(d, -1), 0)
    elif hasattr(d, 'ioctl'):
        print(M, 'romfs', 1, d.ioctl(4, 0) * d.ioctl(5, 0))
    else:
        print(M, 'romfs', 1, len(d))
    del d
except (ImportError, AttributeError):
    print(M, 'romfs', 0, 0)
try:
    import esp32
    for kind, cap in (('dram', esp32.HEAP_DATA), ('exec', esp32.HEAP_EXEC)):
        t = f = b = 0
        for r in esp32.idf_heap_info(cap):
            t += r[0]
            f += r[1]
            b = max(b, r[2])
        print(M, 'idf', kind, t, f, b)
except (ImportError, AttributeError):
    print(M, 'idf', '-')
try:
    s = os.statvfs(os.getcwd())
    print(M, 'flash', s[0], s[1], s[2], s[3])
except Exception:
    print(M, 'flash', '-')
w = '-'
for d in ('/rom', '/rom/lib', os.getcwd(), 'lib', '.frozen'):
    for x in ('.mpy', '.py'):
        try:
            os.stat(d + '/' + %r + x)
            w = d
            break
        except OSError:
            pass
    if w != '-':
        break
print(M, 'code', w)
gc.collect()
print(M, 'gc', gc.mem_alloc(), gc.mem_free())
micropython.mem_info(1)
"""

_RUN = """\
from %s import selftest
selftest(%d)
"""

_GC_LINE = re.compile(r"GC: total: (\d+), used: (\d+), free: (\d+)(?:, max new split: (\d+))?")
_ALL_FREE = re.compile(r"^\s*\((\d+) lines all free\)")
_LAYOUT_ROW = re.compile(r"^[0-9a-f]{8}: (\S+)$")


class CheckError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _tagged(out):
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == _MARK:
            rows.append(parts[1:])
    return rows


def heap_layout(text, block):
    """(areas, free runs in bytes, largest first) of micropython.mem_info(1)'s block map:
    one 'GC memory layout; from' per area, a character per block ('.' free), '(N lines all
    free)' for N rows of 64 free blocks."""
    areas = []
    for line in text.splitlines():
        if line.startswith("GC memory layout"):
            areas.append([])
            continue
        if not areas:
            continue
        row = _LAYOUT_ROW.match(line.strip())
        if row:
            areas[-1].append(row.group(1))
            continue
        free = _ALL_FREE.match(line)
        if free:
            areas[-1].append("." * 64 * int(free.group(1)))
    runs = []
    for rows in areas:
        runs += [len(r) * block for r in re.findall(r"\.+", "".join(rows))]
    return len(areas), sorted(runs, reverse=True)


def probe(port, resume, module):
    code, out = mpremote(
        port, ["exec", _PROBE % (_MARK, module.replace(".", "/"))], resume, _PROBE_TIMEOUT_S
    )
    rows = _tagged(out)
    if code != 0 or not rows:
        lines = [x for x in out.strip().splitlines() if x.strip()]
        raise CheckError(
            EXIT_NO_BOARD,
            f"the board on {port} does not answer the probe: {lines[-1] if lines else '?'}",
        )
    f = {"idf": {}}
    for row in rows:
        key = row[0]
        if key == "fw":
            f["version"], f["platform"], f["mpy"], f["bits"] = (
                row[1],
                row[2],
                int(row[3]),
                int(row[4]),
            )
        elif key == "machine":
            f["machine"] = row[1].replace("_", " ") if row[1] != "-" else None
        elif key == "native":
            f["native"] = row[1] == "1"
            f["native_why"] = row[2] if len(row) > 2 else None
        elif key == "romfs":
            f["romfs_state"], f["romfs_size"] = int(row[1]), int(row[2])
        elif key == "idf" and row[1] != "-":
            f["idf"][row[1]] = {"total": int(row[2]), "free": int(row[3]), "largest": int(row[4])}
        elif key == "flash" and row[1] != "-":
            f["fs_block"], f["fs_free"] = int(row[1]), int(row[1]) * int(row[4])
            f["fs_total"] = int(row[2]) * int(row[3])
        elif key == "code":
            f["code_in"] = row[1] if row[1] != "-" else None
        elif key == "gc":
            f["gc_used"], f["gc_free"] = int(row[1]), int(row[2])
    found = _GC_LINE.search(out)
    if found:
        f["gc_total"] = int(found.group(1))
        f["gc_split"] = int(found.group(4)) if found.group(4) else None
    block = 16 if f.get("bits") == 32 else 32  # a GC block: 4 words
    f["gc_areas"], runs = heap_layout(out, block)
    f["gc_largest_free"] = runs[:3]
    return f


def selftest(port, resume, module, moves):
    timeout = _PROBE_TIMEOUT_S + moves  # a real board: a few ms a move, plus its log
    code, out = mpremote(port, ["exec", _RUN % (module, moves)], resume, timeout)
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("selftest ")]
    figures = {}
    for row in rows:
        figures[row[0]] = row[1:]
    if code != 0 or "done" not in figures:
        lines = [x for x in out.strip().splitlines() if x.strip()]
        return None, lines[-1] if lines else "no output"
    return figures, None


def _kb(n):
    return "{:,} bytes".format(n)


def _ms(us):
    return "%.1f ms" % (int(us) / 1000)


def _spread(values):
    if values[0] == "-":
        return NOT_HERE
    return "p50 %s, p99 %s, max %s" % (_ms(values[0]), _ms(values[1]), _ms(values[2]))


def report(port, f, test, why, moves, exec_need, say=print):
    """Print every line and the verdict; returns (exit status, verdict lines)."""
    rows = []

    def line(label, text):
        rows.append((label, text))
        say("%-16s %s" % (label, text))

    line("board", port)
    machine = f.get("machine") or f["platform"]
    mpy = f["mpy"]
    arch = build_image.MPY_ARCHES[mpy >> 10] if mpy >= 0 and mpy >> 10 < 13 else "?"
    line(
        "firmware",
        "MicroPython %s on %s (%d-bit), .mpy v%d.%d %s"
        % (f["version"], machine, f["bits"], mpy & 0xFF, (mpy >> 8) & 3, arch),
    )
    line(
        "native emitter",
        "yes: viper compiles (the view writers run as machine code)"
        if f.get("native")
        else "no (%s): the view writers run as Python (more heap)" % f.get("native_why"),
    )
    state = f.get("romfs_state", 0)
    if state == 0:
        romfs = "no ROMFS support (no vfs.rom_ioctl): deploy the filesystem layout"
    elif state < 0:
        romfs = "supported, but no ROMFS partition: deploy the filesystem layout"
    else:
        romfs = "yes: a partition of %s (make deploy uses it)" % _kb(f["romfs_size"])
    line("ROMFS", romfs)
    line("IDF heap info", "yes (esp32.idf_heap_info)" if f["idf"] else NOT_HERE)
    total = f.get("gc_total", f["gc_used"] + f["gc_free"])
    grow = f.get("gc_split")
    line(
        "GC heap",
        "%s in %d area%s; used %s, free %s%s"
        % (
            _kb(total),
            f["gc_areas"],
            "" if f["gc_areas"] == 1 else "s",
            _kb(f["gc_used"]),
            _kb(f["gc_free"]),
            "; can grow by %s" % _kb(grow) if grow else "",
        ),
    )
    line("largest free", ", ".join(_kb(n) for n in f["gc_largest_free"]) or "?")
    for kind, label in (("dram", "free DRAM"), ("exec", "free exec RAM")):
        heap = f["idf"].get(kind)
        line(
            label,
            "%s of %s, largest block %s"
            % (_kb(heap["free"]), _kb(heap["total"]), _kb(heap["largest"]))
            if heap
            else NOT_HERE,
        )
    if "fs_free" in f:
        line(
            "flash",
            "%s free of %s, block size %s"
            % (_kb(f["fs_free"]), _kb(f["fs_total"]), _kb(f["fs_block"])),
        )
    else:
        line("flash", NOT_HERE)
    layout = "romfs" if (f.get("code_in") or "").startswith("/rom") else "filesystem"
    line("code", "%s (%s layout)" % (f.get("code_in") or "not found", layout))
    if test is None:
        line("self-test", "did not run: %s" % why)
    else:
        line(
            "self-test",
            "%s accepted moves, 2 players + 4 observers in-process, log on flash"
            % test["move_us"][3],
        )
        line("per move", _spread(test["move_us"]))
        commit = _spread(test["commit_us"])
        if "slow_commits" in test:
            slow = int(test["slow_commits"][0])
            commit += "; %d commit%s over %d ms (an erase's time)" % (
                slow,
                "" if slow == 1 else "s",
                int(test["slow_commits"][1]) // 1000,
            )
        line("log commit", commit)
        line(
            "heap after",
            "used %s, free %s"
            % (_kb(int(test["heap_after"][0])), _kb(int(test["heap_after"][1]))),
        )

    # the verdict, one line per budget
    verdicts = []
    failed = False
    budget = board_run.budget_heap(f["bits"], layout == "romfs")
    if f["bits"] == 64:
        budget = board_run.heap_spec(budget, 64)[1]
    reach = total + (grow or 0)
    if reach >= budget:
        verdicts.append(
            "memory OK: the GC heap reaches %s; a full room needs %s with the %s "
            "layout" % (_kb(reach), _kb(budget), layout)
        )
    else:
        failed = True
        verdicts.append(
            "memory TOO SMALL: the GC heap reaches %s but a full room needs %s with "
            "the %s layout" % (_kb(reach), _kb(budget), layout)
        )
    if test is None:
        failed = True
        verdicts.append("per move UNKNOWN: the self-test did not run (%s)" % why)
    else:
        p99 = int(test["move_us"][1])
        if p99 <= MOVE_P99_MS * 1000:
            verdicts.append("per move OK: p99 %s, within %d ms" % (_ms(p99), MOVE_P99_MS))
        else:
            failed = True
            verdicts.append(
                "per move TOO SLOW: p99 %s, over %d ms: players would feel it"
                % (_ms(p99), MOVE_P99_MS)
            )
    exec_ram = f["idf"].get("exec")
    if not f.get("native"):
        verdicts.append(
            "machine code NOT AVAILABLE: the view writers run as Python (the board "
            "works; it needs more heap, docs/memory.md)"
        )
    elif exec_ram is None:
        verdicts.append("executable RAM %s" % NOT_HERE)
    elif exec_ram["largest"] >= exec_need:
        verdicts.append(
            "executable RAM OK: largest block %s, the view writers need %s"
            % (_kb(exec_ram["largest"]), _kb(exec_need))
        )
    else:
        verdicts.append(
            "executable RAM SHORT: largest block %s, the view writers need %s: "
            "they will run as Python (the board works; more heap)"
            % (_kb(exec_ram["largest"]), _kb(exec_need))
        )
    for text in verdicts:
        line("verdict", text)
    say(
        "%-16s %s"
        % (
            "result",
            "this board FAILS a budget (above)"
            if failed
            else "this board is fit to host a full room",
        )
    )
    return (EXIT_FAILED if failed else EXIT_OK), rows


def writers_exec_bytes(image):
    """Bytes of the image's native writers .mpy (its machine code), else the usual figure."""
    modules = build_image.image_modules(image)
    name = modules.get("game.writers", "game/writers")
    path = Path(image) / (name.replace(".", "/") + ".mpy")
    if path.is_file() and build_image.read_mpy_header(path)[2] != "none":
        return path.stat().st_size
    return WRITERS_EXEC_BYTES


def check(port, image=build_image.DEFAULT_OUT, moves=200, resume=False, say=print):
    """Run the whole check; returns (exit status, figures)."""
    image = Path(image)
    check_port(port)
    module = build_image.image_modules(image).get("net.selftest", "net.selftest")
    f = probe(port, resume, module)
    test, why = None, None
    if not f.get("code_in"):
        why = (
            "the board has no self-test module %s (deploy this image first: make deploy)" % module
        )
    else:
        test, why = selftest(port, resume, module, moves)
    status, rows = report(port, f, test, why, moves, writers_exec_bytes(image), say)
    if not resume:
        mpremote(port, ["reset"], False, _PROBE_TIMEOUT_S)  # the game starts again
        say("board reset: the game starts in a few seconds")
    return status, {"probe": f, "selftest": test, "lines": rows}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", help="serial port of the board, e.g. /dev/ttyUSB0")
    parser.add_argument("--moves", type=int, default=200, help="accepted moves of the self-test")
    parser.add_argument(
        "--image",
        default=str(build_image.DEFAULT_OUT),
        help="the deployed image (its names file gives the self-test's module name)",
    )
    parser.add_argument("--resume", action="store_true", help="never reset (the virtual board)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    if not args.port:
        print(
            "board_check: error: no port given: --port /dev/ttyUSB0 (make board-check PORT=...)",
            file=sys.stderr,
        )
        return EXIT_ARGS
    if args.moves < 10:
        print("board_check: error: --moves must be at least 10", file=sys.stderr)
        return EXIT_ARGS
    try:
        status, figures = check(args.port, args.image, args.moves, args.resume)
    except (DeployError, CheckError) as err:
        print("board_check: error: %s" % err, file=sys.stderr)
        return err.code
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
