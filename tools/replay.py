"""Check a match log anywhere (docs/log.md): the seed commitment, the maze and the match rebuilt
from the log by the firmware's own engine, the final digest and result, and any mismatch.

    python tools/replay.py LOG            # a summary; exit status 0 when the log checks out
    python tools/replay.py LOG --json     # the readable export: header, verdict, every entry
    make replay LOG=maze-duel-17.log

A log comes from the board (GET /log?n=N, linked from the result screen) or its flash folder
(log/match-N.log), under any name (a log the board set aside, match-N.bad, too). Exit
status: 0 verified, 1 a mismatch (commitment, digest, result, dropped bytes), 2 not a readable
log: a missing, unreadable, empty, truncated or foreign file, said in one line on stderr (never
a traceback).
"""

import argparse
import json
import os
import stat
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from logbook import check, export

# A bound on what is read: a 2,000-command match's log is 16 KB; a file far larger is no log
# (and /dev/zero is not read forever).
MAX_BYTES = 16 << 20


class Unreadable(Exception):
    """Why a file is not a log that can be checked: one line for the user."""


def load(path):
    """The bytes of the file at path; Unreadable, saying why, when it cannot be read."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise Unreadable("is a directory, not a match log file")
        if not stat.S_ISREG(mode):
            raise Unreadable("is not a regular file")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise Unreadable("no such file") from None
    except PermissionError:
        raise Unreadable("cannot be read (permission denied)") from None
    except OSError as exc:
        raise Unreadable("cannot be read (%s)" % (exc.strerror or exc)) from None
    if len(data) > MAX_BYTES:
        raise Unreadable("not a match log: larger than %d MB" % (MAX_BYTES >> 20))
    return data


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", help="a match log file (match-N.log)")
    parser.add_argument("--json", action="store_true", help="print the readable export")
    args = parser.parse_args(argv)
    try:
        data = load(args.log)
    except Unreadable as exc:
        print("replay: %s: %s" % (args.log, exc), file=sys.stderr)
        return 2
    try:
        report = export(data) if args.json else check(data)
    except ValueError as exc:
        print("replay: %s: not a readable match log: %s" % (args.log, exc), file=sys.stderr)
        return 2
    except Exception as exc:  # a log this reader cannot cope with: one line, no traceback
        print(
            "replay: %s: cannot be replayed (%s: %s)" % (args.log, type(exc).__name__, exc),
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps(report, indent=1))
        return 0 if report["ok"] else 1
    p = report["params"]
    seats = report["seats"]
    print("log        %s (format %d, rules %d)" % (args.log, report["format"], report["rules"]))
    sr = report["series"]
    print(
        "ruleset    %s, best of %d, series %d-%d before this match"
        % (report["ruleset"], sr["best_of"], sr["score_before"][0], sr["score_before"][1])
    )
    print(
        "match      %d: %dx%d, %d artifact pairs, braid %d%%, cooldown %d ms, countdown %d ms"
        % (
            report["match_no"],
            p["width"],
            p["height"],
            p["artifact_pairs"],
            p["braid_percent"],
            p["cooldown_ms"],
            p["countdown_ms"],
        )
    )
    print("players    1 %s, 2 %s" % (seats[0]["name"], seats[1]["name"]))
    print("seed       %s (engine seed %d)" % (report["seed"], report["engine_seed"]))
    ok = "matches" if report["commit_ok"] else "DOES NOT MATCH"
    print("commitment %s: %s the seed" % (report["commit"], ok))
    extra = ", %d bytes dropped" % report["dropped_bytes"] if report["dropped_bytes"] else ""
    print("entries    %d (%d checkpoints agreed%s)" % (report["entries"], report["checks"], extra))
    if not report["finished"]:
        state = "unfinished (%s)" % report["phase"]
    elif report["abandoned"]:
        state = "abandoned (no result)"
    else:
        state = "%s, winner %d" % (report["result"], report["winner"])
    print("result     %s; moves and drops accepted: %d / %d" % (state, *report["accepted"]))
    print("digest     %s" % report["digest"])
    if report["problem"]:
        print("MISMATCH   %s" % report["problem"])
    print("verdict    %s" % ("verified" if report["ok"] else "NOT verified"))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
