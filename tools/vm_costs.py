"""What the MicroPython VM charges for the constructs a view is made of, in x86 instructions
(callgrind) on the unix port: the unit costs behind docs/performance.md, "What is left".

Each construct runs in a loop inside a function (its names are locals, as in Projector.begin),
under valgrind --tool=callgrind, at two loop lengths; the difference per iteration, less an
empty loop's, is the construct's cost. Counts do not depend on the machine's load.

    python tools/vm_costs.py [--binary PATH] [--json]

The last two lines show why `@micropython.native` is not used: its code allocates a slice
object for every slice store, which the bytecode VM makes on the stack (a slice store of each
under heap_lock).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import _path  # noqa: F401  (firmware/ on sys.path)
from hostenv import FIRMWARE, find_micropython

HEAP = "96wK"
SHORT, LONG = 2000, 4000

# (name, setup at module level, body inside the loop; `b`, `p`, `t`, `x`, `o`, `c10`, `a`,
# `a2`, `l1`, `l2`, `big`, `K8` are locals of the function; `f` and put_int are globals, as
# the projector's put_int is)
CONSTRUCTS = (
    ("empty loop iteration (the baseline, not subtracted here)", "", "pass"),
    ("local int add: x = x + 1", "", "x = x + 1"),
    ("instance attribute read: x = o.a", "", "x = o.a"),
    ("bytearray item store: b[5] = 48", "", "b[5] = 48"),
    (
        "bytearray item store, computed: b[p + 1] = 48 + t // 10 % 10",
        "",
        "b[p + 1] = 48 + t // 10 % 10",
    ),
    ("bytearray slice store of 8 bytes: b[p : p + 8] = K8", "", "b[p : p + 8] = K8"),
    ("bytearray compare, 225 bytes (a 15x15 maze)", "", "x = a != a2"),
    ("list compare, 12 small ints (the objects' cells)", "", "x = l1 != l2"),
    ("a for loop over a list of 10 (the whole loop)", "", "for x in c10:\n            pass"),
    ("call of a 3-argument function", "", "f(b, 5, 7)"),
    ("call of a method with 45 locals (its frame from the heap)", "", "big.m(b, 1)"),
    (
        "put_int(b, 5, 137) (game.jsonbuf)",
        "from game.jsonbuf import put_int",
        "put_int(b, 5, 137)",
    ),
)

PRELUDE = """
import sys
sys.path.insert(0, %r)
%s


class O:
    def __init__(self):
        self.a = 1
        self.b = 2


def f(b, p, v):
    return p


class Big:
    def m(self, x, y):
        if y == 99:
            %s
        return 1


def run(n):
    b = bytearray(64)
    p = 5
    t = 137
    x = 1
    o = O()
    c10 = [0] * 10
    a = bytearray(225)
    a2 = bytearray(225)
    l1 = [3] * 12
    l2 = [3] * 12
    big = Big()
    K8 = b'"],[00,"'  # (a const of the projector: in the bytecode, not a global)
    for _ in range(n):
        %s


run(int(sys.argv[1]))
"""

NATIVE_CHECK = """
import micropython


@micropython.native
def native_store(b, p):
    b[p : p + 5] = b"abcde"


def bytecode_store(b, p):
    b[p : p + 5] = b"abcde"


b = bytearray(16)
for f in (bytecode_store, native_store):
    f(b, 1)
    said = "no allocation"
    micropython.heap_lock()
    try:
        f(b, 2)
    except MemoryError:
        said = "allocates (MemoryError under heap_lock)"
    micropython.heap_unlock()
    print("a slice store, %s: %s" % (f.__name__, said))
"""


def count(binary, script, n):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
        cmd += [binary, "-X", "heapsize=" + HEAP, script, str(n)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    for line in proc.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    raise SystemExit("callgrind printed no total: " + proc.stderr[-600:])


def cost(binary, setup, body):
    """Instructions per loop iteration running body."""
    locals_45 = " = ".join("v%d" % i for i in range(45)) + " = 0"
    source = PRELUDE % (str(FIRMWARE), setup, locals_45, body)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    try:
        return (count(binary, f.name, LONG) - count(binary, f.name, SHORT)) / (LONG - SHORT)
    finally:
        os.unlink(f.name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the unix port (default: the project's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    binary = args.binary or find_micropython()
    if not binary or not shutil.which("valgrind"):
        print("needs valgrind and the MicroPython unix port", file=sys.stderr)
        return 2
    rows = []
    base = None
    for name, setup, body in CONSTRUCTS:
        each = cost(binary, setup, body)
        if base is None:
            base = each
            rows.append((name, round(each)))
        else:
            rows.append((name, round(each - base)))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(NATIVE_CHECK)
    try:
        native = subprocess.run(
            [binary, f.name], capture_output=True, text=True, timeout=60
        ).stdout.split("\n")
    finally:
        os.unlink(f.name)
    if args.json:
        print(json.dumps({"binary": binary, "instructions": dict(rows), "native": native[:2]}))
        return 0
    print("instructions per construct (callgrind), %s" % binary)
    for name, n in rows:
        print("%8d  %s" % (n, name))
    for line in native[:2]:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
