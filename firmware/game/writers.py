# The byte-by-byte parts of a view record, written by machine code: MicroPython compiles these
# functions with its viper emitter (native code with machine integers and raw byte pointers:
# no bytecode dispatch, no objects, nothing allocated), on the ESP32 (xtensawin) as on the
# unix port (x64, x86). Under CPython the same source runs as plain Python (game.compat). The
# view projector (game.projector) plans a record and writes the rest of it; these write a
# seat's members in the status, the objects and the cell runs (docs/performance.md, "The
# record's bytes in machine code"). Every write is bounds-checked first (a ptr8 store is not):
# ValueError, never a write past the buffer. A number's digits are written out where they
# go, not by a helper: a call from one viper function to another goes through the runtime
# (measured: ~1,300 instructions a call, 11,000 more per move).
# The board never bricks on this module: if it cannot be loaded (a firmware without the
# native emitter, an .mpy of another architecture, no executable RAM left), game.projector
# imports game.pywriters instead, these same functions as plain Python (tools/build_image.py
# derives it from this file for the image; docs/memory.md, "When the machine code cannot
# load"). KIND says which ones run.
try:
    import micropython

    KIND = "viper"
except ImportError:  # CPython
    from game.compat import micropython, ptr8

    KIND = "python"


@micropython.viper
def write_runs(
    b, p: int, hexd, a: int, k: int, j: int, v: int, w: int, rlen: int, mask, here: int
) -> int:
    """Write `,"c":[[a,"digits"],[a2,"digits"],..]` at b[p:], return where it ends.

    The runs: the first from cell a, k cells (fewer when the cells end at v first), each next
    one j cells after the one before (j: w - the first's offset in its row, then w) with rlen
    cells, up to cell v (exclusive). A run's digits are the maze's hex digits (hexd: one per
    cell); with a line-of-sight mask (mask[(dy + 9) * 19 + dx + 9] of the cell at (dx, dy)
    from `here`, see game.projector.sight), a cell of it out of sight is written as 0. Raises
    ValueError rather than write past the end of b or a cell number of more than 4 digits."""
    out = ptr8(b)
    hx = ptr8(hexd)
    top = int(len(b))
    cells = int(len(hexd))
    seen = 0
    if mask:
        m = ptr8(mask)
        seen = 1
    cx = here % w
    cy = here // w
    n = v - a  # cells from this run's first to the end
    first = 1
    while True:
        if n <= k:
            k = n
            j = 0
        # bytes this run takes: its opening, a's digits, `,"`, its digits (and `"]]` after
        # the last)
        e = p + k + (10 if first else 7) + (3 if j == 0 else 0)
        e += 1 if a >= 10 else 0
        e += 1 if a >= 100 else 0
        e += 1 if a >= 1000 else 0
        if a < 0 or a > 9999 or k < 0 or a + k > cells or p < 0 or e > top:
            raise ValueError("view out of range")
        if first:  # ,"c":[[
            out[p] = 44
            out[p + 1] = 34
            out[p + 2] = 99
            out[p + 3] = 34
            out[p + 4] = 58
            out[p + 5] = 91
            out[p + 6] = 91
            p += 7
            first = 0
        else:  # "],[
            out[p] = 34
            out[p + 1] = 93
            out[p + 2] = 44
            out[p + 3] = 91
            p += 4
        d = 1000  # a's digits (it has at most 4)
        while d > 1 and d > a:
            d //= 10
        while d:
            out[p] = 48 + a // d % 10
            p += 1
            d //= 10
        out[p] = 44  # ,"
        out[p + 1] = 34
        p += 2
        i = 0
        while i < k:
            out[p + i] = hx[a + i]
            i += 1
        if seen:
            # a cell of the square out of sight: 0 (no real cell has no open side)
            i = 0
            while i < k:
                dx = (a + i) % w - cx + 9
                dy = (a + i) // w - cy + 9
                if dx < 0 or dx > 18 or dy < 0 or dy > 18 or not m[dy * 19 + dx]:
                    out[p + i] = 48
                i += 1
        p += k
        if not j:
            break
        a += j
        n -= j
        k = rlen
        j = w
    out[p] = 34  # "]]
    out[p + 1] = 93
    out[p + 2] = 93
    return p + 3


@micropython.viper
def write_objects(b, p: int, match, lo: int, hi: int, x0: int, x1: int, mask, here: int) -> int:
    """Write `,"o":[[kind,owner,variant,cell],..]` at b[p:]: the objects of match on the
    ground in the square from cell lo to cell hi, columns x0 to x1 (and in sight in the mask,
    as in write_runs), in slot order; nothing when there are none. Returns where it ends.
    Raises ValueError rather than write past the end of b or a kind, owner or variant of more
    than one digit or a cell of more than 4."""
    out = ptr8(b)
    top = int(len(b))
    present = ptr8(match.obj_present)
    kinds = ptr8(match.obj_kind)
    owners = ptr8(match.obj_owner)
    variants = ptr8(match.obj_variant)
    w = int(match.width)
    seen = 0
    if mask:
        m = ptr8(mask)
        seen = 1
    cx = here % w
    cy = here // w
    q = p
    p += 6
    slot = -1
    for cell in match.obj_cell:
        slot += 1
        t = int(cell)
        if t < lo or t > hi or not present[slot] or t % w < x0 or t % w > x1:
            continue
        if seen:
            dx = t % w - cx + 9
            dy = t // w - cy + 9
            if dx < 0 or dx > 18 or dy < 0 or dy > 18 or not m[dy * 19 + dx]:
                continue
        k = kinds[slot]
        c = owners[slot]
        v = variants[slot]
        if k > 9 or c > 9 or v > 9 or t > 9999 or p < 0 or p + 13 > top:
            raise ValueError("view out of range")
        out[p] = 91  # [k,c,v,
        out[p + 1] = 48 + k
        out[p + 2] = 44
        out[p + 3] = 48 + c
        out[p + 4] = 44
        out[p + 5] = 48 + v
        out[p + 6] = 44
        p += 7
        d = 1000  # t's digits (it has at most 4)
        while d > 1 and d > t:
            d //= 10
        while d:
            out[p] = 48 + t // d % 10
            p += 1
            d //= 10
        out[p] = 93  # ], (the last comma becomes the member's ])
        out[p + 1] = 44
        p += 2
    if p == q + 6:
        return q
    out[q] = 44  # ,"o":[
    out[q + 1] = 34
    out[q + 2] = 111
    out[q + 3] = 34
    out[q + 4] = 58
    out[q + 5] = 91
    out[p - 1] = 93
    return p


@micropython.viper
def write_seat(b, p: int, match, seat: int, key, i: int) -> int:
    """A seat's members in a view's status at b[p:], `{"p":P,"k":K,"vm":VM,"rad":R,"cp":CP,
    "xo":XO,"xd":XD`, where key[i] and key[i + 1] say what is there (see Projector._keys):
    nothing written when they show the same, only the position when just it changed and kept
    its width, else all of them (key updated). Returns where they end * 2, + 1 when they were
    written whole (what follows them may have moved). Raises ValueError for a value out of the
    rules' ranges (one digit: key, radius, exit flags) rather than write it."""
    out = ptr8(b)
    top = int(len(b))
    k = int(ptr8(match.inventory)[seat])
    v = int(ptr8(match.vision)[seat])
    rad = int(match.rules[1]) if v else int(match.rules[0])  # match.radius()
    xo = int(ptr8(match.exit_open)[seat])
    xd = int(ptr8(match.exited)[seat])
    c = int(ptr8(match.compass)[seat])
    a = ((v * 256 + c) * 1000 + k * 100 + xo * 10 + xd) * 10 + rad
    here = int(match.pos[seat])
    t = int(key[i + 1])
    if here < 0 or here > 9999 or p < 0 or p + 64 > top:
        raise ValueError("view out of range")
    same = int(key[i]) == a and (t >> 7) & 1023 == p
    if same and t >> 17 == here:
        return (p + (t & 127)) * 2
    # {"p":P; when the members show the same, over the old ones: then done if the position
    # kept its width (a comma follows)
    out[p] = 123
    out[p + 1] = 34
    out[p + 2] = 112
    out[p + 3] = 34
    out[p + 4] = 58
    q = p + 5
    d = 1000  # here's digits (it has at most 4)
    while d > 1 and d > here:
        d //= 10
    while d:
        out[q] = 48 + here // d % 10
        q += 1
        d //= 10
    if same and out[q] == 44:
        key[i + 1] = (here * 1024 + p) * 128 + (t & 127)
        return (p + (t & 127)) * 2
    if k > 9 or rad > 9 or xo > 9 or xd > 9:
        raise ValueError("view out of range")
    # the members after the position, from a template in three parts: `,"k":K,"vm":` and
    # `,"rad":R,"cp":`, each followed by a number (vision moves, bearing: -1 for none), and
    # `,"xo":XO,"xd":XD`; the one-digit values poked in
    tpl = ptr8(b',"k":0,"vm":,"rad":0,"cp":,"xo":0,"xd":0')
    j = 0
    part = 0
    while True:
        end = 12 if part == 0 else 26 if part == 1 else 40
        while j < end:
            out[q] = tpl[j]
            q += 1
            j += 1
        if part == 2:
            out[q - 8] = 48 + xo
            out[q - 1] = 48 + xd
            break
        out[q - 7] = 48 + (k if part == 0 else rad)
        n = v if part == 0 else c
        part += 1
        if n == 255 and part == 2:  # no bearing (game.rules.NO_BEARING)
            out[q] = 45  # -1
            out[q + 1] = 49
            q += 2
            continue
        d = 1000  # its digits (it has at most 4)
        while d > 1 and d > n:
            d //= 10
        while d:
            out[q] = 48 + n // d % 10
            q += 1
            d //= 10
    key[i] = a
    key[i + 1] = (here * 1024 + p) * 128 + q - p
    return q * 2 + 1
