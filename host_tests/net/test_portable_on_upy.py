# Runs the portable net tests (test_dns_packets.py, test_settings.py, test_frames.py) under the
# real MicroPython unix port with a board-sized heap, so that code is checked on both
# interpreters (json, str and int behave differently there; bool is not an int, for one).
import os

import pytest

pytestmark = pytest.mark.upy

PORTABLE_MODULES = ("test_dns_packets", "test_settings", "test_frames")
PORTABLE_HEAP = "64wK"  # the settings and DNS code with their tests, on a small board heap

# Each module is dropped (and its garbage collected) before the next is imported: the heap holds
# one test module's source-compiled code at a time, beside the firmware modules it imports.
RUNNER = """
import gc
import sys
passed = failed = 0
for mod_name in %r:
    module = __import__(mod_name)
    for name in sorted(n for n in dir(module) if n.startswith("test_")):
        try:
            getattr(module, name)()
            passed += 1
        except Exception as exc:
            failed += 1
            print("FAIL " + mod_name + "." + name)
            sys.print_exception(exc)
    del sys.modules[mod_name]
    module = None
    gc.collect()
print("upy: %%d passed, %%d failed" %% (passed, failed))
""" % (PORTABLE_MODULES,)


def test_portable_net_tests_pass_under_micropython(run_upy, repo_root, tmp_path, monkeypatch):
    path = [
        repo_root / "tools" / "hostboard",
        repo_root / "firmware",
        ".frozen",
        repo_root / "host_tests" / "net",
        repo_root / "host_tests" / "core",
    ]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    result = run_upy(RUNNER, heapsize=PORTABLE_HEAP, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("upy: ") and last.endswith(" passed, 0 failed"), output
    assert int(last.split()[1]) >= 25, output
