"""Check a match log anywhere (docs/log.md): the seed commitment, the maze and the match rebuilt
from the log by the firmware's own engine, the final digest and result, and any mismatch.

    python tools/replay.py LOG            # a summary; exit status 0 when the log checks out
    python tools/replay.py LOG --json     # the readable export: header, verdict, every entry
    make replay LOG=maze-duel-17.log

A log comes from the board (GET /log?n=N, linked from the result screen) or its flash folder
(log/match-N.log). Exit status: 0 verified, 1 a mismatch (commitment, digest, result,
dropped bytes), 2 not a readable log.
"""

import argparse
import json
import sys

import _path  # noqa: F401  (firmware/ on sys.path)
from logbook import check, export


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", help="a match log file (match-N.log)")
    parser.add_argument("--json", action="store_true", help="print the readable export")
    args = parser.parse_args(argv)
    with open(args.log, "rb") as f:
        data = f.read()
    try:
        report = export(data) if args.json else check(data)
    except ValueError as exc:
        print("%s: not a readable match log: %s" % (args.log, exc), file=sys.stderr)
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
