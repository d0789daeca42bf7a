# `make replay LOG=...` (tools/replay.py, docs/log.md "Replay and verify anywhere") run as the
# user runs it: a file that is not a log it can check (missing, a directory, empty, garbage,
# a truncated or damaged header, another format, unreadable, a log set aside as match-N.bad)
# is one line on stderr naming the problem and exit status 2, never a traceback; a valid log
# is verified (0), and a log with a damaged tail replays up to its last good entry (1).
import os
import subprocess
import sys

import pytest

from game.matchlog import Header
from hostenv import ROOT, TOOLS
from logbook import HEADER, driven_log

REPLAY = TOOLS / "replay.py"


def replay(path, *args):
    """python tools/replay.py path [args]: (exit status, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, str(REPLAY), str(path), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


def one_line_and_2(path, why, *args):
    """The tool refuses path: status 2, nothing on stdout, one stderr line naming the file
    and containing `why`."""
    status, out, err = replay(path, *args)
    lines = err.splitlines()
    assert status == 2, (status, out, err)
    assert out == ""
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("replay: %s: " % path), lines[0]
    assert why in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def good():
    data, m = driven_log(11, "small", 300)
    return data, m


def with_header_sum(raw):
    """raw with its header's check made right again (a header damaged consistently)."""
    raw = bytearray(raw)
    Header.place(raw, HEADER - 2, 2, Header.sum(raw, 0, HEADER - 2, 0, 0))
    return bytes(raw)


def test_a_valid_log_is_verified(tmp_path, good):
    data, m = good
    path = tmp_path / "match-4.log"
    path.write_bytes(data)
    status, out, err = replay(path)
    assert status == 0 and err == ""
    assert "verdict    verified" in out and ("digest     %08x" % m.digest()) in out
    status, out, err = replay(path, "--json")
    assert status == 0 and '"ok": true' in out


def test_a_damaged_tail_replays_up_to_the_last_good_entry(tmp_path, good):
    data, _ = good
    path = tmp_path / "match-4.log"
    path.write_bytes(data[:-3])  # the end entry cut short
    status, out, err = replay(path)
    assert status == 1 and err == ""
    assert "5 bytes dropped" in out and "unfinished" in out and "NOT verified" in out
    entries = (len(data) - HEADER) // 8
    assert "entries    %d " % (entries - 1) in out


@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_a_missing_file_a_directory_and_a_device(tmp_path, json_flag):
    one_line_and_2(tmp_path / "nothere.log", "no such file", *json_flag)
    one_line_and_2(tmp_path, "is a directory", *json_flag)
    one_line_and_2("/dev/null", "is not a regular file", *json_flag)


def test_files_that_are_not_logs(tmp_path, good):
    data, _ = good
    cases = {
        "empty.log": (b"", "the file is empty"),
        "garbage.log": (bytes((i * 151 + 7) & 0xFF for i in range(700)), "does not start with"),
        "short.log": (b"MD", "the header is cut short: 2 of its 208 bytes"),
        "cut.log": (data[:100], "the header is cut short: 100 of its 208 bytes"),
        "one-short.log": (data[: HEADER - 1], "cut short: 207 of its 208"),
        "format2.log": (data[:4] + b"\x02" + data[5:], "log format 2; this reader knows 1"),
        "rules9.log": (data[:5] + b"\x09" + data[6:], "rules version 9; this engine plays 1"),
        "damaged.log": (data[:20] + b"\xee" + data[21:], "the header is damaged"),
        "mdlg-garbage.log": (b"MDLG\x01\x01" + bytes(300), "the header is damaged"),
        "ruleset.log": (
            with_header_sum(data[:14] + b"\xf0" + data[15:]),
            "the header names ruleset 15",
        ),
        "width.log": (
            with_header_sum(data[:6] + b"\x00" + data[7:]),
            "parameters cannot be played: width",
        ),
        "name.log": (
            with_header_sum(data[:108] + b"\x02\xff\xfe" + data[111:]),
            "a player's name in the header is not UTF-8",
        ),
    }
    for name, (content, why) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        line = one_line_and_2(path, why)
        assert "not a readable match log" in line
        one_line_and_2(path, why, "--json")


def test_a_log_set_aside_as_match_n_bad(tmp_path, good):
    data, _ = good
    path = tmp_path / "match-3.bad"
    path.write_bytes(data[: HEADER - 60])  # cut while its header was first written
    one_line_and_2(path, "the header is cut short: 148 of its 208 bytes")
    path.write_bytes(data)  # the name alone refuses nothing: a good log in it is verified
    status, out, _ = replay(path)
    assert status == 0 and "verdict    verified" in out


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: every file is readable, so permission denied cannot happen",
)
def test_a_file_it_cannot_read(tmp_path, good):
    path = tmp_path / "match-5.log"
    path.write_bytes(good[0])
    path.chmod(0)
    try:
        one_line_and_2(path, "cannot be read (permission denied)")
    finally:
        path.chmod(0o600)


def test_through_make_replay(tmp_path, good):
    def make_replay(path):
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "LOG")}
        return subprocess.run(
            ["make", "--no-print-directory", "replay", "LOG=%s" % path],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    path = tmp_path / "match-6.bad"
    path.write_bytes(b"MDLG\x07" + bytes(250))
    done = make_replay(path)
    ours = [line for line in done.stderr.splitlines() if not line.startswith("make")]
    why = "not a readable match log: log format 7; this reader knows 1"
    assert ours == ["replay: %s: %s" % (path, why)]
    assert "Error 2" in done.stderr and "Traceback" not in done.stderr  # the tool's status: 2
    assert done.returncode != 0
    one = tmp_path / "match-6.log"
    one.write_bytes(good[0])
    done = make_replay(one)
    assert done.returncode == 0 and "verdict    verified" in done.stdout, done.stderr
