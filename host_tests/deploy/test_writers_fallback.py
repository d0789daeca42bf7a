# Never a brick: when the view writers' machine code (game.writers, viper) cannot load on a
# board, game.projector runs the image's plain-Python twin of them (game.pywriters, made by
# tools/build_image.py) and writes the same bytes. The unloadable module is the real one a
# board could get: the image built with MARCH=xtensawin, whose writers .mpy the unix port
# refuses ("incompatible .mpy arch"), as a board refuses an .mpy of another architecture.
# Checked: the twin's source; every record of every role over driven matches of every maze
# size and ruleset, byte for byte against the machine code's (so the golden views hold for
# the fallback: the machine code's records are the golden ones), on both word sizes; and the
# fallback image booted on a virtual board (tools/board_run.py) playing whole matches with a
# full room of bots, saying once at boot which writers run, and in /status.
import asyncio
import subprocess

import pytest

import board_run
import build_image
from bot_runner import run_bots
from hostenv import BOARD_HEAP, FIRMWARE, TOOLS

pytestmark = pytest.mark.upy

# Runs on MicroPython with an image (--readable: the packages keep their names) and tools/ on
# the path: every record of every role after every step of driven matches, hashed; prints
# the writers that ran, the records and the digest.
_RECORDS = """
import hashlib
from driver import new_match, play
from game import rulesets
from game.projector import OBSERVER, WRITERS, Projector
proj = Projector(48, lambda n: 2 if n < 126 else 4)
h = hashlib.sha256()
count = [0, 0]
def on_step(m, kind, seat, arg, t, code):
    count[0] += 1
    if count[0] % 29 == 0:
        m.vision[1 + count[0] % 2] = 3
    for role in (1, 2, OBSERVER):
        for i in range(proj.begin(m, role)):
            h.update(proj.record(i))
            count[1] += 1
for seed in range(3):
    for m, n in (
        (new_match(seed, "classic", countdown_ms=0), 120),
        (new_match(seed, "small", countdown_ms=0), 80),
        (new_match(seed, "huge", countdown_ms=0), 40),
        (rulesets.new_match(seed, rulesets.RULESETS[2], countdown=0), 80),
        (rulesets.new_match(seed, rulesets.RULESETS[1], countdown=0), 80),
    ):
        play(m, seed, n, on_step)
print(WRITERS)
print(count[1], h.digest().hex())
"""


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """{"viper": image, "python": image}: readable images, without MARCH (the unix port
    compiles the writers' viper source for itself) and with MARCH=xtensawin (unloadable)."""
    base = tmp_path_factory.mktemp("fallback")
    built = {}
    for kind, march in (("viper", None), ("python", "xtensawin")):
        built[kind] = base / kind
        build_image.build(built[kind], march=march, readable=True, log=lambda *a: None)
    return built


def test_the_twin_is_the_writers_without_machine_code():
    source = (FIRMWARE / "game" / "writers.py").read_text()
    twin = build_image.plain_python(source)
    assert build_image.machine_code(source) and not build_image.machine_code(twin)
    assert "import micropython" not in twin
    namespace = {}
    exec(compile(twin, "pywriters", "exec"), namespace)
    assert namespace["KIND"] == "python"
    for name in ("write_runs", "write_objects", "write_seat"):
        assert callable(namespace[name])
    # the image holds both, the twin as bytecode whatever MARCH says
    sources, _ = build_image.board_sources(readable=True)
    assert sources["game/pywriters.py"] == twin


def _records(binary, image):
    out = subprocess.run(
        [str(binary), "-X", "heapsize=4M", "-c", _RECORDS],
        capture_output=True,
        text=True,
        timeout=300,
        env={"MICROPYPATH": "%s:%s" % (image, TOOLS)},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.split("\n", 1)


@pytest.mark.parametrize("bits", [64, 32])
def test_the_fallback_writes_the_machine_codes_bytes(images, bits, request):
    binary = request.getfixturevalue("upy_binary" if bits == 64 else "upy32_binary")
    header, _ = build_image.read_manifest(images["python"])
    assert header["native"] == "6.3 xtensawin"
    native_kind, native = _records(binary, images["viper"])
    python_kind, python = _records(binary, images["python"])
    assert native_kind == "viper"
    assert python_kind == "python (ValueError: incompatible .mpy arch)"
    assert int(native.split()[0]) > 2000
    assert python == native


def test_a_board_whose_machine_code_cannot_load_boots_and_plays(tmp_path, upy_binary):
    """The short-named image a board gets (MARCH=xtensawin) on the unix port: it boots, logs
    once that the Python writers run and why, /status says so, and a full room of bots (2
    players, 4 observers) plays matches to their results."""
    image = tmp_path / "image"
    build_image.build(image, march="xtensawin", log=lambda *a: None)
    settings = dict(board_run.RUN_SETTINGS, preset="small")
    with board_run.BoardRun(
        image, tmp_path / "flash", BOARD_HEAP, upy_binary, settings=settings
    ) as board:
        status = board_run.get_status(board.http_port)
        figures = asyncio.run(
            asyncio.wait_for(run_bots(board.url, players=2, observers=4, matches=2), 240)
        )
        log = board.read_log()
        assert board.alive(), log
    why = "python (ValueError: incompatible .mpy arch)"
    assert status["writers"] == why
    assert log.count("writers: ") == 1 and ("; writers: " + why) in log, log
    assert "Traceback" not in log and "MemoryError" not in log, log
    assert figures["matches_with_result"] >= 2, figures
    assert figures["moves"] > 0, figures
