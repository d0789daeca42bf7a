# tools/log_flash_cost.py (`make log-flash`): the match log's flash work on the unix port's
# LittleFS, per match and per move, and the estimates made of it (docs/performance.md, "The
# log's flash cost"). A short run: two matches of 150 moves.
import pytest

import log_flash_cost


@pytest.fixture
def short_run(upy_binary):
    per_move, per_match, free = log_flash_cost.run(150, 2, upy_binary)
    return per_move, per_match, free


def test_every_move_is_counted_and_the_appends_cost_an_erase(short_run):
    per_move, per_match, free = short_run
    assert len(per_move) == 300 and len(per_match) == 2
    # every move commits its tail file (at least one program operation); the moves that
    # append the 14 entries to the log copy its last block: many program operations, an erase
    assert all(programs >= 1 for _, programs, _ in per_move)
    appends = [(e, p) for e, p, _ in per_move if p > 5]
    assert 150 // 14 <= len(appends) <= 2 * 150 // 14 + 2
    assert all(e >= 1 for e, _ in appends)
    # a match's totals are its moves' (and its start's and end's) work
    for k, (_, erases, _programs, written) in enumerate(per_match):
        moves = per_move[k * 150 : (k + 1) * 150]
        assert erases >= sum(e for e, _, _ in moves) and written > 0
    assert 400 < free < 512


def test_the_estimates(short_run):
    per_move, per_match, free = short_run
    out = log_flash_cost.figures(per_move, per_match, free, 150)
    typ = out["extra_ms_per_move_typical"]
    assert typ["worst"] >= log_flash_cost.ERASE_MS[0]  # some move waited for an erase
    assert typ["p50"] < 5
    top = out["extra_ms_per_move_datasheet_max"]
    assert top["worst"] > typ["worst"]
    erases = sum(out["erases_per_match"]) / 2
    assert out["lifetime_matches"] == int(free * log_flash_cost.CYCLES / erases)
