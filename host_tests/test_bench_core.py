# tools/bench_core.py's --roles (make bench's "views in play"): one role's views of every move,
# on the MicroPython unix port, with nothing allocated on the heap per move (what the row's
# figure is the time of; the benchmark reports times, this test asserts none).
import json

import pytest

pytestmark = pytest.mark.upy


def _bench(run_upy, repo_root, *flags):
    result = run_upy(
        repo_root / "tools" / "bench_core.py",
        heapsize="2wM",
        args=("--moves", "120", *flags),
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("preset", ["classic", "huge"])
@pytest.mark.parametrize("roles", ["1", "0", "1,2,0"])
def test_one_roles_views_in_play_allocate_nothing(run_upy, repo_root, preset, roles):
    row = _bench(run_upy, repo_root, "--preset", preset, "--roles", roles)
    assert row["impl"] == "micropython"
    assert row["views"] is True and row["roles"] == roles
    assert row["commands"] == 120 and row["accepted"] > 0
    assert row["alloc_bytes_per_move"] == 0.0


def test_without_roles_every_role_is_viewed(run_upy, repo_root):
    assert _bench(run_upy, repo_root)["roles"] == "1,2,0"
    assert _bench(run_upy, repo_root, "--no-views")["views"] is False
