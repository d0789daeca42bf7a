# The paths of docs/architecture.md ("The paths, traced"), measured: tools/trace_path.py runs
# a move, a join and a resume through the real gateway, host, views and journal on CPython and
# counts their module changes. The doc's table must say what the tool measures (so its figures
# cannot go stale), and a move from the reader to its replies changes module at most 20 times.
import re

import trace_path
from hostenv import ROOT

DOC = ROOT / "docs" / "architecture.md"


def _doc_table():
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- traced paths: python tools/trace_path.py -->")[1]
    block = block.split("<!-- end traced paths -->")[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"\| ([a-z, ]+) \| (\d+) \| (\d+) \|$", line.strip())
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return rows


def test_the_docs_table_is_what_the_trace_measures():
    measured = {
        name: (len(mods), changes) for name, (mods, changes) in trace_path.measure().items()
    }
    assert _doc_table() == measured


def test_a_move_changes_module_at_most_20_times_to_its_replies():
    modules, changes = trace_path.move_path()
    assert changes <= 20, (changes, modules)
    # the path reaches the engine, the log and the publisher, and no board-only module
    for name in ("game.engine", "net.journal", "net.views", "net.match_host"):
        assert name in modules, modules
    assert "net.resume" not in modules and "net.wiring" not in modules


def test_the_trace_counts_a_change_at_every_call_into_another_module():
    from net import frames

    modules, changes = trace_path.trace(lambda: frames.frame("x"))
    assert modules == ["net.frames"] and changes == 0
    from net import messages

    # messages.ack, then frames.frame: one change (the lambda itself is no firmware module)
    modules, changes = trace_path.trace(lambda: frames.frame(messages.ack(1)))
    assert modules == ["net.messages", "net.frames"] and changes == 1
