# The per-move log write allocates nothing on the board's interpreter: Journal.push (encode
# the entry into the tail buffer, rewrite the tail file, every 14th entry append a group to the
# log) and Journal.changed, under micropython.heap_lock on the unix port, with real files.
import os

import pytest

pytestmark = pytest.mark.upy

SCRIPT = """
import micropython
from net import intents
from net.match_host import MatchHost
from net.views import ViewPublisher
from net.resume import resume
from net.settings import Settings

# a session that takes every frame, framed as the gateway frames it
from net.selftest import Phone

settings = Settings()
settings.preset = "small"
settings.countdown_ms = 0
host = MatchHost(settings, ViewPublisher(), log=lambda *a: None, ticks_ms=lambda: 0)
resume(host, "log")
a, b = Phone(), Phone()
for phone in (a, b):
    host.handle(phone, intents.parse('{"t":"join","role":"play"}'))
    host.handle(phone, intents.parse('{"t":"ready","c":1}'))
journal = host.journal
move = intents.parse('{"t":"move","c":2,"d":"N"}')

def burst(n):
    for _ in range(n):
        journal.push(host.match, host.seats[1], move)
        journal.changed(host)
    return n

burst(20)
micropython.heap_lock()
try:
    burst(300)
finally:
    micropython.heap_unlock()
print("entries", journal.index)
"""


def test_logging_a_move_allocates_nothing(run_upy, repo_root, tmp_path, monkeypatch):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    result = run_upy(SCRIPT, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["entries", "320"]
    # 320 entries: 22 groups of 14 in the log, 12 in the tail file
    assert (tmp_path / "log" / "match-1.log").stat().st_size == 208 + 8 * 14 * 22
    assert (tmp_path / "log" / "match-1.tail").stat().st_size == 120
