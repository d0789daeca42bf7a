# `make board-check` rehearsed on the virtual board (tools/virtual_board.py), with the same
# script and output a real board gets: the image deployed with tools/deploy.py, then the check
# (tools/board_check.py: the probe, the deployed image's own self-test, net.selftest, and a
# verdict). What the unix port lacks (the IDF heap, a ROMFS partition) is "not available
# here", never a failure; and the check changes nothing on the board's flash.
import subprocess
import sys

import pytest

import board_check
import build_image
from hostenv import ROOT, TOOLS
from virtual_board import VirtualBoard

pytestmark = pytest.mark.upy

LABELS = (
    "board",
    "firmware",
    "native emitter",
    "ROMFS",
    "IDF heap info",
    "GC heap",
    "largest free",
    "free DRAM",
    "free exec RAM",
    "flash",
    "code",
    "self-test",
    "per move",
    "log commit",
    "heap after",
    "verdict",
    "verdict",
    "verdict",
    "result",
)


@pytest.fixture(scope="module")
def image(tmp_path_factory, upy_binary):
    out = tmp_path_factory.mktemp("check") / "image"
    build_image.build(out, log=lambda *a: None)
    return out


def _labels(out):
    return [line[:16].strip() for line in out.splitlines() if line[:16].strip() in LABELS]


def _line(out, label):
    return [line[16:].strip() for line in out.splitlines() if line[:16].strip() == label]


def _flash_files(flash):
    return sorted(
        (p.relative_to(flash).as_posix(), p.read_bytes()) for p in flash.rglob("*") if p.is_file()
    )


def test_make_board_check_on_the_virtual_board(image, tmp_path):
    flash = tmp_path / "flash"
    with VirtualBoard(flash) as board:
        deployed = subprocess.run(
            [sys.executable, str(TOOLS / "deploy.py"), "--port", board.port, "--resume"]
            + ["--image", str(image)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert deployed.returncode == 0, deployed.stderr
        before = _flash_files(flash)
        made = subprocess.run(
            ["make", "board-check", "PORT=" + board.port, "RESUME=1", "MOVES=60"]
            + ["IMAGE=" + str(image)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        out = made.stdout
        assert made.returncode == 0, out + made.stderr
        assert _flash_files(flash) == before  # nothing deployed changed, no log left behind
    assert _labels(out) == list(LABELS), out
    assert _line(out, "firmware")[0].startswith("MicroPython ")
    assert _line(out, "native emitter")[0].startswith("yes")
    assert _line(out, "ROMFS")[0].startswith("no ROMFS support")
    for label in ("IDF heap info", "free DRAM", "free exec RAM"):
        assert _line(out, label) == ["not available here"], out
    assert " bytes in 1 area; used " in _line(out, "GC heap")[0]
    assert "block size " in _line(out, "flash")[0]
    assert _line(out, "code")[0].endswith("(filesystem layout)")
    assert _line(out, "self-test")[0].startswith("60 accepted moves, 2 players + 4 observers")
    for label in ("per move", "log commit"):
        assert _line(out, label)[0].startswith("p50 "), out
    assert "over 10 ms (an erase's time)" in _line(out, "log commit")[0]
    verdicts = _line(out, "verdict")
    assert verdicts[0].startswith("memory OK") and verdicts[1].startswith("per move OK")
    assert verdicts[2] == "executable RAM not available here"
    assert _line(out, "result") == ["this board is fit to host a full room"]


def test_a_board_without_the_image_fails_the_check_in_plain_words(image, tmp_path):
    with VirtualBoard(tmp_path / "flash") as board:
        lines = []
        status, figures = board_check.check(
            board.port, image, moves=20, resume=True, say=lines.append
        )
    out = "\n".join(lines)
    assert status == board_check.EXIT_FAILED
    assert "did not run: the board has no self-test module" in out
    assert "per move UNKNOWN" in out and "FAILS a budget" in out
    assert figures["selftest"] is None


def test_a_missing_port_is_one_line_and_exit_3(tmp_path):
    result = subprocess.run(
        [sys.executable, str(TOOLS / "board_check.py"), "--port", "/dev/pts/4095"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 3
    assert result.stderr.startswith("board_check: error: no board on /dev/pts/4095")


def test_the_heap_map_gives_areas_and_free_runs():
    text = (
        "GC: total: 111936, used: 5264, free: 106672, max new split: 0\n"
        "GC memory layout; from 3ffc0000:\n"
        "00000000: h=hh....h=" + "." * 54 + "\n"
        "       (2 lines all free)\n"
        "00000c00: h=..\n"
        "GC memory layout; from 3ffe0000:\n"
        "00000000: ........h=\n"
    )
    areas, runs = board_check.heap_layout(text, 16)
    assert areas == 2
    assert runs == [(54 + 128) * 16, 8 * 16, 4 * 16, 2 * 16]
