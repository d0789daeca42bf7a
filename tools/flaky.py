"""Run one test (or one file, or a suite) many times, to find out whether it is flaky and keep
the output of every failing run: `make flaky TEST=path::name N=20 [LOAD=1]`.

    python tools/flaky.py host_tests/browser/test_client_result.py::test_x --runs 20 --load

--load runs a second copy of the same tests beside each run, so the machine is busy on both
cores as a loaded CI machine is (the copy's own result is reported too: it must pass as well).
The output of each failing run goes to build/flaky/<run>-<copy>.log; the last line says
"N passed, N failed" over all the runs; the exit status is 1 when any run failed.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "flaky"  # where failing runs' output goes (--out)


def pytest_command(tests, extra):
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, *tests]


def run_round(number, tests, extra, load, out):
    """One round: the tests, and with load a second copy beside them; [(copy, ok, seconds)]."""
    copies = 2 if load else 1
    started = time.monotonic()
    procs = []
    for copy in range(copies):
        log = out / ("%d-%d.log" % (number, copy))
        handle = log.open("w")
        procs.append(
            (
                copy,
                log,
                handle,
                subprocess.Popen(
                    pytest_command(tests, extra),
                    cwd=ROOT,
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                ),
            )
        )
    results = []
    for copy, log, handle, proc in procs:
        code = proc.wait()
        handle.close()
        ok = code == 0
        if ok:
            log.unlink()
        results.append((copy, ok, time.monotonic() - started, log))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tests", nargs="+", help="pytest node ids or paths")
    parser.add_argument("--runs", type=int, default=10, help="how many rounds (default 10)")
    parser.add_argument("--load", action="store_true", help="a second copy beside each round")
    parser.add_argument("--pytest-args", default="", help="more pytest arguments, one string")
    parser.add_argument("--out", default=str(OUT), help="where failing runs' output goes")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    missing = [t for t in args.tests if not (ROOT / t.split("::")[0]).exists()]
    if missing:
        print("flaky: error: no such test file: %s" % ", ".join(missing), file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    extra = args.pytest_args.split()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    passed = failed = 0
    for number in range(1, args.runs + 1):
        for copy, ok, seconds, log in run_round(number, args.tests, extra, args.load, out):
            what = "run %d%s" % (number, " (the copy beside it)" if copy else "")
            if ok:
                passed += 1
                print("%-28s passed in %5.1f s" % (what, seconds), flush=True)
            else:
                failed += 1
                print("%-28s FAILED in %5.1f s: %s" % (what, seconds, log), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
