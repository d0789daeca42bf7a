# Runs the portable core tests (host_tests/core/test_*.py) under the MicroPython unix port:
#
#   micropython -X heapsize=128wK tools/upytest.py [--root DIR] [test_mod | test_mod.test_fn ...]
#
# Runs under MicroPython, so only sys, os and gc (no os.path, no pytest). Every callable named
# test_* is called in sorted order; harness.Skip counts as skipped, any other exception fails.
# The tests import from firmware/, host_tests/core/ and tools/ (the driver, the view decoder):
# this runner puts the three on sys.path, as pyproject.toml's pythonpath does for pytest.
# Prints failures and skips, then "N passed, N failed, N skipped"; exits 1 on any failure.
import gc
import os
import sys


def _parent(path):
    # os.path.dirname for '/'-separated paths, which MicroPython lacks.
    if path in ("", "."):
        return ".."
    cut = path.rstrip("/").rfind("/")
    if cut < 0:
        return "."
    return path[:cut] or "/"


def _parse_args(argv):
    root = None
    selected = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--root":
            i += 1
            root = argv[i]
        elif arg.endswith(".py"):
            # host_tests/core/test_x.py -> test_x
            selected.append(arg[arg.rfind("/") + 1 : -3])
        else:
            selected.append(arg)
        i += 1
    if root is None:
        # The script lives in <root>/tools/.
        root = _parent(_parent(sys.argv[0]))
    return root, selected


def _discover(core_dir):
    return sorted(
        name[:-3]
        for name in os.listdir(core_dir)
        if name.startswith("test_") and name.endswith(".py")
    )


def _plan(core_dir, selected):
    # -> sorted list of (module name, function name or None for all of its tests)
    if not selected:
        return [(mod, None) for mod in _discover(core_dir)]
    plan = []
    for sel in selected:
        dot = sel.find(".")
        if dot < 0:
            plan.append((sel, None))
        else:
            plan.append((sel[:dot], sel[dot + 1 :]))
    return sorted(plan)


class _Tally:
    def __init__(self, skip_type):
        self.skip_type = skip_type
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def fail(self, label, exc):
        self.failed += 1
        print("FAIL " + label)
        sys.print_exception(exc)

    def run(self, label, fn):
        try:
            fn()
        except Exception as exc:
            if isinstance(exc, self.skip_type):
                self.skipped += 1
                print(f"SKIP {label}: {exc}")
            else:
                self.fail(label, exc)
        else:
            self.passed += 1


def main():
    root, selected = _parse_args(sys.argv[1:])
    core_dir = root + "/host_tests/core"
    sys.path[0:0] = [root + "/firmware", core_dir, root + "/tools"]

    try:
        from harness import Skip
    except ImportError:  # a tree without the harness: nothing can skip

        class Skip(Exception):
            pass

    tally = _Tally(Skip)
    for mod_name, only in _plan(core_dir, selected):
        gc.collect()
        try:
            module = __import__(mod_name)
        except Exception as exc:
            tally.fail(mod_name + " (import)", exc)
            continue
        names = [only] if only else sorted(n for n in dir(module) if n.startswith("test_"))
        for name in names:
            fn = getattr(module, name, None)
            if fn is None:
                tally.fail(mod_name + "." + name, AttributeError("no such test: " + name))
            elif callable(fn):
                tally.run(mod_name + "." + name, fn)
            fn = None
            gc.collect()
        # Drop the test module so the next one starts from a board-like heap.
        module = None
        sys.modules.pop(mod_name, None)

    total = tally.passed + tally.failed + tally.skipped
    if total == 0:
        print("no tests found under " + core_dir)
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    if tally.failed or total == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
