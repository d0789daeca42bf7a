# Golden view records (docs/protocol.md, "Golden views"): host_tests/golden_views/*.txt hold
# sequences of view records, each with the verdict every decoder must reach on them. Read by
# host_tests/core/test_golden_views.py (tools/view_decoder.py, both interpreters) and by
# host_tests/browser/test_client_golden_views.py (the phone client's own record handling);
# written by tools/dev/make_golden_views.py. Runs on CPython and MicroPython.
#
# A file:
#   # comment lines (how the records were made)
#   case <name>
#   expect <verdict>
#   <one record per line, exactly as sent, to the end of the file>
#
# Verdicts (records fed in order to a fresh decoder; the first rejected record decides):
#   ok s=.. r=.. ph=.. w=.. h=.. m=.. n=.. objects=.. cells=.. digest=xxxxxxxx
#       every record accepted and the last one completes a view: summary() of that view
#   error <reason> at <k>
#       record k (0-based) rejected; reasons: size json version type envelope gap count
#       mismatch status objects cells (tools/view_decoder.py's ViewError.reason)
#   incomplete
#       every record accepted, but the last view is unfinished (nothing may be shown)
import os

REASONS = (
    "size",
    "json",
    "version",
    "type",
    "envelope",
    "gap",
    "count",
    "mismatch",
    "status",
    "objects",
    "cells",
)
_HEX = "0123456789abcdef"


def golden_dir():
    """host_tests/golden_views/, from this file's place in tools/ (both interpreters set
    __file__)."""
    here = __file__.replace("\\", "/")
    cut = here.rfind("/")
    tools = here[:cut] if cut >= 0 else "."
    return tools + "/../host_tests/golden_views"


def golden_files():
    """Sorted paths of every golden file."""
    folder = golden_dir()
    return [folder + "/" + n for n in sorted(os.listdir(folder)) if n.endswith(".txt")]


def read_case(path):
    """(name, expected verdict, [record text, ...]) of one golden file."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    k = 0
    while k < len(lines) and lines[k].startswith("#"):
        k += 1
    assert k + 2 <= len(lines), path + ": no case/expect header"
    assert lines[k].startswith("case "), path + ": the header starts with 'case <name>'"
    assert lines[k + 1].startswith("expect "), path + ": 'expect <verdict>' follows the case"
    return lines[k][5:], lines[k + 1][7:], lines[k + 2 :]


def canonical(value):
    """A JSON text of value with sorted keys and no spaces (MicroPython dicts keep no order)."""
    if isinstance(value, dict):
        keys = sorted(value)
        return "{" + ",".join('"%s":%s' % (k, canonical(value[k])) for k in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value + '"'
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def fnv32(text):
    h = 0x811C9DC5
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def summary(view):
    """One line for a decoded view (tools/view_decoder.py's dict): the envelope in clear, the
    status, objects and cells as counts plus one digest over all three."""
    n_cells = view["w"] * view["h"]
    cells = view["cells"]
    flags = "".join(_HEX[cells[c]] if c in cells else "." for c in range(n_cells))
    objects = " ".join("%d,%d,%d,%d" % tuple(o) for o in view["objects"])
    digest = fnv32(canonical(view["st"]) + "|" + objects + "|" + flags)
    return "s=%d r=%s ph=%s w=%d h=%d m=%d n=%d objects=%d cells=%d digest=%08x" % (
        view["s"],
        view["r"],
        view["ph"],
        view["w"],
        view["h"],
        view["m"],
        view["n"],
        len(view["objects"]),
        len(cells),
        digest,
    )


def verdict(outcomes):
    """The verdict of a run: outcomes[k] is what record k gave, a reason word (rejected), a
    view (it completed one) or None (accepted, the view goes on). Stops at the first reason."""
    view = None
    for k in range(len(outcomes)):
        out = outcomes[k]
        if isinstance(out, str):
            return "error %s at %d" % (out, k)
        view = out
    if view is None:
        return "incomplete"
    return "ok " + summary(view)
