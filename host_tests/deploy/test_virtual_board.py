# The laptop-to-board path without hardware: build the image, deploy it with tools/deploy.py
# to a virtual board (the MicroPython unix port on a pty, a temp folder as its flash), check
# with mpremote's own commands what arrived, then boot the deployed boot.py + main.py and
# fetch the phone client over HTTP; and the whole path as a person runs it: `make deploy`,
# boot, and a match played over WebSocket. No mocks: every board is a real micropython process.
#
# The .mpy mismatch paths use images that a real mpy-cross could make for another board:
# native code compiled for xtensawin (the ESP32's architecture; the virtual board is x64), and
# an image whose .mpy files carry version 5 (MicroPython 1.12-1.18). The second is made by
# patching the version byte of real .mpy files, since no v5 mpy-cross is installed; both tests
# also show that the virtual board itself refuses such a file, so deploy refuses what the
# board would.
import gzip
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import urllib.request

import pytest

import build_image
import deploy as deploy_tool
import mem_log
from game_client import (
    both_ready,
    close_all,
    fetch_own_key_and_open_exit,
    run,
    two_players_and_observer,
)
from hostenv import (
    BOARD_HEAP,
    FIRMWARE,
    ROOT,
    TOOLS,
    free_port,
    heap_bytes,
    serving_env,
    word_bits,
)
from virtual_board import VirtualBoard, reserved_bytes

pytestmark = pytest.mark.upy


@pytest.fixture(scope="module", autouse=True)
def _micropython(upy_binary):
    """Every test here needs the unix port (skipped without it, a failure under CI=true)."""


def run_tool(script, *args, timeout=120):
    return subprocess.run(
        [sys.executable, str(TOOLS / script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def mpremote(board, *args):
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", board.port, "resume", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def deploy(board, image, *extra):
    return run_tool("deploy.py", "--port", board.port, "--resume", "--image", image, *extra)


def board_hashes(board, paths):
    """{path: sha256} for `paths` on the board, from `mpremote sha256sum` (missing: absent)."""
    out = mpremote(board, "sha256sum", *[":" + p for p in paths]).stdout.splitlines()
    found = {}
    for label, digest in zip(out, out[1:]):
        if label.startswith("sha256sum :") and len(digest) == 64:
            found[label[len("sha256sum :") :]] = digest
    return found


# Runs on MicroPython: every file below ROOT as 'F <path below ROOT> <sha256>'.
_WALK_FILES = """
import binascii, hashlib, os
def walk(d):
    for e in os.ilistdir(d or '.'):
        p = d + '/' + e[0] if d else e[0]
        if e[1] == 0x4000:
            walk(p)
        else:
            with open(p, 'rb') as f:
                h = binascii.hexlify(hashlib.sha256(f.read()).digest()).decode()
            print('F', p[len(ROOT):].lstrip('/'), h)
ROOT = %r
walk(ROOT)
"""


def board_files(board):
    result = mpremote(board, "exec", _WALK_FILES % "")
    assert result.returncode == 0, result.stderr
    return sorted(line.split()[1] for line in result.stdout.splitlines() if line.startswith("F "))


def one_line_error(result, code, *needles):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("deploy: error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def boot_serving(board):
    """Reset the board into its deployed firmware on free loopback ports; the HTTP port."""
    http_port = free_port(socket.SOCK_STREAM)
    board.boot(serving_env(http_port, free_port(socket.SOCK_DGRAM)))
    board.wait_listening(http_port)
    return http_port


def python_heap_left(log):
    """The heap the booted firmware got, from the virtual board's first log line."""
    first = log.splitlines()[0]
    return first, int(first.split("Python heap ")[1].split()[0])


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    out = tmp_path_factory.mktemp("image") / "image"
    result = run_tool("build_image.py", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "total" in result.stdout
    return out


@pytest.fixture
def board(tmp_path):
    with VirtualBoard(tmp_path / "flash") as vb:
        yield vb


# -- the image --------------------------------------------------------------------------------


def test_image_holds_every_module_compiled_and_the_client_gzipped(image):
    _, entries = build_image.read_manifest(image)
    listed = {path for path, _, _ in entries}
    assert listed == set(build_image.image_files(image))
    # every firmware module, flat with a short name (the module map is in the names file),
    # compiled; one with viper code (game.writers) as source, compiled by the board for its own
    # architecture (the image is built without --march)
    modules = build_image.image_modules(image)
    assert build_image.machine_code((FIRMWARE / "game" / "writers.py").read_text())
    by_board = set()
    assert "game.ruleset_check" not in modules  # build_image.HOST_ONLY: for the tests only
    for package in build_image.CODE_PACKAGES:
        for src in build_image.package_modules(FIRMWARE, package):
            if src.stem != "__init__":
                dotted = src.relative_to(FIRMWARE).with_suffix("").as_posix().replace("/", ".")
                suffix = ".mpy"
                if build_image.machine_code(src.read_text()):
                    suffix = ".py"
                    by_board.add(modules[dotted] + suffix)
                assert len(modules[dotted]) <= 2 and modules[dotted] + suffix in listed
    assert by_board == {modules["game.writers"] + ".py"}
    shipped = (image / (modules["game.writers"] + ".py")).read_text()
    viper = (FIRMWARE / "game" / "writers.py").read_text().count("@micropython.viper")
    assert viper == 3 and shipped.count("@micropython.viper") == viper
    assert "ptr8(" in shipped and ": int" in shipped
    flat = sorted(p for p in listed if "/" not in p and p.endswith((".mpy", ".py")))
    assert [p for p in flat if p not in build_image.SOURCE_FILES] == sorted(
        short + (".py" if short + ".py" in by_board else ".mpy") for short in modules.values()
    )
    assert not [p for p in listed if p.startswith(("game/", "net/"))]  # no packages left
    # boot.py and main.py go as source, with the image's short names
    sources, renamed = build_image.board_sources()
    for name in build_image.SOURCE_FILES:
        if (FIRMWARE / name).is_file():
            assert (image / name).read_text() == sources[name]
    assert build_image.names_path(image).read_text().splitlines() == renamed
    assert len(renamed) > 100  # the firmware's and Microdot's own names were shortened
    # Microdot, flat too: the two modules the firmware uses, imported directly (the package's
    # __init__ only re-exports microdot.microdot's names: build_image.direct_microdot_imports)
    for name in ("microdot.microdot", "microdot.websocket"):
        assert modules[name] + ".mpy" in listed
    assert "microdot" not in modules
    assert "microdot.helpers" not in modules  # trimmed: nothing the board runs uses it
    assert not [p for p in listed if p.startswith("lib/")]
    assert not [p for p in listed if "hostboard" in p or p.split("/")[-1] == "network.py"]
    # the web files: the minified page, the help's text, the refusal sentences, the replay,
    # the SHA-256 module and the TV's module it fetches when needed, and the game's QR code
    web = build_image.web_files()
    assert sorted(web) == [
        "help.html",
        "index.html",
        "refusals.js",
        "replay.js",
        "sha256.js",
        "tv.js",
        "url.svg",
    ]
    for name, data in web.items():
        packed = image / "web" / (name + ".gz")
        assert gzip.decompress(packed.read_bytes()) == data
        assert packed.read_bytes()[4:8] == b"\0\0\0\0"  # mtime 0: reproducible
    for path, size, digest in entries:
        data = (image / path).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, digest)


def test_image_build_is_reproducible(image, tmp_path):
    again = tmp_path / "again"
    assert run_tool("build_image.py", "--out", again).returncode == 0
    assert (again / "MANIFEST.txt").read_text() == (image / "MANIFEST.txt").read_text()


# -- deploy -----------------------------------------------------------------------------------


def test_deploy_copies_the_image_then_only_what_changed(image, board):
    _, entries = build_image.read_manifest(image)
    expected = {path: digest for path, _, digest in entries}
    settings = board.flash_dir / "settings.json"
    settings.write_text('{"preset": "small"}\n')

    first = deploy(board, image)
    assert first.returncode == 0, first.stderr
    assert f"copying {len(entries)} of {len(entries)} files" in first.stdout
    assert board_hashes(board, list(expected)) == expected
    assert board_files(board) == sorted(list(expected) + ["settings.json"])

    second = deploy(board, image)
    assert second.returncode == 0, second.stderr
    assert "up to date" in second.stdout and "copying" not in second.stdout

    # One stale file on the board (an older build): exactly that one is copied again.
    stale = sorted(p for p in expected if p.endswith(".mpy") and "/" not in p)[0]
    (board.flash_dir / stale).write_bytes(b"M\x06\x00\x1fold")
    third = deploy(board, image)
    assert third.returncode == 0, third.stderr
    assert "copying 1 of" in third.stdout and stale in third.stdout
    assert board_hashes(board, [stale]) == {stale: expected[stale]}
    assert settings.read_text() == '{"preset": "small"}\n'  # never touched by a deploy


def test_deploy_removes_a_modules_other_file_left_by_an_earlier_image(image, board):
    # MicroPython imports x.py before x.mpy: a module's other file from an earlier image (its
    # .mpy from an image built with --march, or the .py of whatever module had that short name
    # then) would be run instead of this image's, so deploy removes it.
    modules = build_image.image_modules(image)
    writers = modules["game.writers"]  # source in this image: viper code, built without --march
    compiled = modules["game.prng"]  # compiled
    assert (image / (writers + ".py")).is_file() and (image / (compiled + ".mpy")).is_file()
    (board.flash_dir / (writers + ".mpy")).write_bytes(b"M\x06\x00\x1fold")
    (board.flash_dir / (compiled + ".py")).write_text("raise ImportError('an old image')\n")
    (board.flash_dir / "notes.py").write_text("x = 1\n")  # not a twin: left alone

    result = deploy(board, image)
    assert result.returncode == 0, result.stderr
    assert "removing 2 module files of an earlier image" in result.stdout
    on_board = board_files(board)
    assert writers + ".mpy" not in on_board and compiled + ".py" not in on_board
    assert writers + ".py" in on_board and compiled + ".mpy" in on_board and "notes.py" in on_board
    imported = mpremote(
        board,
        "exec",
        "import %s, %s; print(%s.__file__, %s.__file__)" % (compiled, writers, compiled, writers),
    )
    assert imported.stdout.split()[-2:] == [compiled + ".mpy", writers + ".py"], imported.stdout


def test_module_twins_are_a_modules_other_file():
    twins = deploy_tool.module_twins(
        ["boot.py", "main.py", "a.mpy", "n.py", "b.mpy", "b.py", "web/index.html.gz"]
    )
    assert twins == ["a.py", "n.mpy"]


def test_deploy_refuses_native_code_for_another_architecture(tmp_path, board):
    fw = tmp_path / "fw"
    (fw / "game").mkdir(parents=True)
    (fw / "game" / "fast.py").write_text(
        "import micropython\n\n\n@micropython.native\ndef add(a, b):\n    return a + b\n"
    )
    esp_image = tmp_path / "esp-image"
    built = run_tool(
        "build_image.py", "--firmware", fw, "--out", esp_image, "--march", "xtensawin"
    )
    assert built.returncode == 0, built.stderr
    header, _ = build_image.read_manifest(esp_image)
    assert header["native"] == "6.3 xtensawin"

    fast = build_image.image_modules(esp_image)["game.fast"]  # a flat module, short name

    result = deploy(board, esp_image)
    one_line_error(result, 4, "mismatch", fast + ".mpy", "xtensawin", "x64", "MARCH=")
    assert board_files(board) == []  # nothing copied

    # The board agrees: copied by hand, the file does not import.
    mpremote(board, "fs", "cp", str(esp_image / (fast + ".mpy")), ":%s.mpy" % fast)
    refused = mpremote(board, "exec", "import " + fast)
    assert "incompatible .mpy arch" in refused.stdout + refused.stderr


def test_deploy_refuses_an_image_of_another_mpy_version(image, tmp_path, board):
    old = tmp_path / "old-image"
    shutil.copytree(image, old)
    for mpy in old.rglob("*.mpy"):
        data = bytearray(mpy.read_bytes())
        data[1] = 5  # the .mpy version of MicroPython 1.12-1.18
        mpy.write_bytes(bytes(data))
    headers = [
        line[2:]
        for line in (old / "MANIFEST.txt").read_text().splitlines()
        if line.startswith("# ")
    ]
    build_image.write_manifest(
        old, [h.replace("mpy-version: 6.3", "mpy-version: 5") for h in headers]
    )

    result = deploy(board, old)
    one_line_error(result, 4, "mismatch", ".mpy v5", ".mpy v6", "flash MicroPython >= 1.23")
    assert board_files(board) == []

    target = sorted(p.name for p in old.glob("*.mpy"))[0]  # a flat firmware module
    mpremote(board, "fs", "cp", str(old / target), ":" + target)
    module = target[:-4]
    refused = mpremote(board, "exec", f"import {module}")
    assert "incompatible .mpy file" in refused.stdout + refused.stderr


def test_deploy_names_a_missing_port(image, tmp_path):
    missing = "/dev/pts/4095"
    assert not os.path.exists(missing)
    result = run_tool("deploy.py", "--port", missing, "--resume", "--image", image)
    one_line_error(result, 3, f"no board on {missing}")


def test_deploy_without_port_or_image_fails_clearly(tmp_path):
    one_line_error(run_tool("deploy.py", "--image", tmp_path), 2, "--port")
    result = run_tool("deploy.py", "--port", "/dev/null", "--image", tmp_path / "none")
    one_line_error(result, 2, "make build")


@pytest.fixture
def small_flash(tmp_path):
    """A 16 KB tmpfs as the flash (needs root and mount; skipped where not allowed)."""
    mount_point = tmp_path / "small-flash"
    mount_point.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        pytest.skip("a small flash needs root to mount a tmpfs")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + made.stderr.strip())
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def test_deploy_reports_a_full_flash(image, small_flash):
    with VirtualBoard(small_flash) as board:
        before = deploy(board, image)
        one_line_error(before, 5, "flash full", "KB free")
        assert board_files(board) == []
        during = deploy(board, image, "--no-space-check")
        one_line_error(during, 5, "flash full while copying")


# -- booting what was deployed ----------------------------------------------------------------


def test_deployed_firmware_boots_and_serves_the_client(image, tmp_path):
    if not (FIRMWARE / "main.py").is_file():
        pytest.skip("firmware/main.py does not exist yet: nothing to boot")
    with VirtualBoard(tmp_path / "flash", heapsize=BOARD_HEAP) as board:
        assert deploy(board, image).returncode == 0
        # The REPL imports the deployed .mpy files, not the repository's firmware/.
        modules = build_image.image_modules(image)  # their short, flat names
        portal, microdot = modules["net.portal"], modules["microdot.microdot"]
        where = mpremote(board, "exec", f"import {portal}, {microdot}; print({portal}.__file__)")
        assert where.stdout.strip() == portal + ".mpy", where.stdout + where.stderr
        http_port = boot_serving(board)
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/", timeout=10) as resp:
            body = resp.read()
            assert resp.status == 200
            encoding = resp.headers.get("Content-Encoding")
        client = FIRMWARE / "web" / "index.html"
        if client.is_file():
            assert encoding == "gzip"
            assert gzip.decompress(body) == build_image.web_files()["index.html"]
        assert board.process.poll() is None, board.read_log()
        assert "http: serving" in board.read_log()


# -- the whole flashing path, as a person would run it ----------------------------------------


def test_make_deploy_then_boot_and_play_a_match_to_a_win(tmp_path):
    """`make deploy PORT=<pty>` into an empty virtual board, the deployed boot.py + main.py
    booted as a reset would, then two players and an observer play a match over WebSocket."""
    import json

    flash = tmp_path / "flash"
    flash.mkdir()
    # The settings file a person edits on the board: a small quick match for the test.
    # (the observer steers the players by the whole maze: the board must allow it, "tv")
    settings = {"preset": "small", "cooldown_ms": 100, "countdown_ms": 300, "tv": "full"}
    (flash / "settings.json").write_text(json.dumps(settings))
    with VirtualBoard(flash, heapsize=BOARD_HEAP) as board:
        made = subprocess.run(
            ["make", "deploy", "PORT=" + board.port, "RESUME=1", "IMAGE=" + str(tmp_path / "img")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        # make deploy picks the layout by itself: no ROMFS on the unix port, so the filesystem
        assert "layout: filesystem (the firmware has no ROMFS support" in made.stdout
        engine = build_image.image_modules(tmp_path / "img")["game.engine"] + ".mpy"
        assert (flash / "main.py").is_file() and (flash / engine).is_file()
        assert json.loads((flash / "settings.json").read_text()) == settings  # left alone
        http_port = boot_serving(board)

        async def match():
            url = "ws://127.0.0.1:%d/ws" % http_port
            p1, p2, obs = await two_players_and_observer(url)
            assert p1.welcome["w"] == 9  # the deployed board read its settings.json
            await both_ready(p1, p2)
            outward = await fetch_own_key_and_open_exit(p1, obs)
            # (within the cooldown of the last step: move() sends it again on each COOLDOWN)
            assert (await p1.move(outward))["t"] == "ack"
            for client in (p1, p2, obs):
                result = await client.event("result", timeout=3)
                assert result["result"] == "win" and result["winner"] == 1
            await close_all(p1, p2, obs)

        run(match(), timeout=120)
        log = board.read_log()
        assert board.process.poll() is None, log
        assert "Traceback" not in log and "MemoryError" not in log, log


# -- ROMFS: the code in a read-only partition, run in place -----------------------------------

_ROMFS_MOUNT = """
import vfs
with open(%r, 'rb') as f:
    vfs.mount(vfs.VfsRom(f.read()), '/rom')
"""


@pytest.fixture(scope="module")
def romfs(image):
    return build_image.build_romfs(image)


def test_romfs_image_holds_the_code_folders_byte_for_byte(image, romfs, upy_binary):
    """Mounted by the unix port's own VfsRom, the ROMFS image holds exactly the image's
    code (the flat firmware modules and lib/), unchanged; boot.py, main.py and the client stay
    out of it."""
    from mpremote.romfs import VfsRomWriter

    assert romfs == build_image.romfs_path(image)
    assert romfs.read_bytes().startswith(VfsRomWriter.ROMFS_HEADER)
    out = subprocess.run(
        [upy_binary, "-c", _ROMFS_MOUNT % str(romfs) + _WALK_FILES % "/rom"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    inside = dict(line.split()[1:] for line in out.stdout.splitlines() if line.startswith("F "))
    _, entries = build_image.read_manifest(image)
    code = {path: digest for path, _, digest in entries if "/" not in path and ".mpy" in path}
    code.update({p: d for p, _, d in entries if p.startswith("lib/")})
    assert code and inside == code
    modules = build_image.image_modules(image)
    assert modules["net.gateway"] + ".mpy" in inside
    assert modules["microdot.microdot"] + ".mpy" in inside


def test_romfs_board_boots_with_the_code_from_rom_and_a_64wk_heap(image, romfs, tmp_path):
    """A board with a ROMFS partition: only boot.py, main.py and web/ on the flash; the code is
    imported from /rom in place, and the Python heap left is the one 64wK gives."""
    flash = tmp_path / "flash"
    for rel in build_image.image_files(image):
        if not build_image.in_romfs(rel):
            (flash / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(image / rel, flash / rel)
    assert not list(flash.glob("*.mpy")) and (flash / "main.py").is_file()
    with VirtualBoard(flash, heapsize="64wK", romfs=romfs) as board:
        target = board.gc_heap_total()
        http_port = boot_serving(board)
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/", timeout=10) as resp:
            assert resp.status == 200
        log = board.read_log()
    first, left = python_heap_left(log)
    assert first.startswith(
        "vboard: ROMFS %d bytes mounted at /rom, built-in stand-ins " % (romfs.stat().st_size)
    )
    assert target <= left < target + 32, (first, target)
    gateway = build_image.image_modules(image)["net.gateway"]
    assert "code: net.gateway from /rom/%s.mpy" % gateway in log, log
    assert "Traceback" not in log, log


def test_deploy_romfs_refuses_a_board_without_romfs(image, romfs, board):
    """The unix port has VfsRom but no ROMFS partition (no vfs.rom_ioctl), like stock ESP32
    firmware: a ROMFS deploy says so in one line and changes nothing on the board."""
    result = deploy(board, image, "--romfs")
    one_line_error(result, 6, "no ROMFS support", "without ROMFS=1")
    assert board_files(board) == []


def test_deploy_auto_picks_the_filesystem_on_a_board_without_romfs(image, tmp_path, board):
    """--auto (make deploy): the board's answer decides; the unix port has no vfs.rom_ioctl,
    so the code goes to the filesystem, and one line says so (the ROMFS image is built beside
    the image all the same, for a board that has a partition)."""
    copy = tmp_path / "img"
    shutil.copytree(image, copy)
    shutil.copyfile(build_image.names_path(image), build_image.names_path(copy))
    result = deploy(board, copy, "--auto")
    assert result.returncode == 0, result.stderr
    assert (
        "layout: filesystem (the firmware has no ROMFS support (no vfs.rom_ioctl)): the code "
        "goes to the flash's file system" in result.stdout.splitlines()
    )
    assert build_image.romfs_path(copy).is_file()
    engine = build_image.image_modules(copy)["net.gateway"] + ".mpy"
    assert engine in board_files(board)


@pytest.mark.parametrize(
    "state, size, chosen, words",
    [
        (0, 0, False, "no ROMFS support"),
        (-1, 0, False, "no ROMFS partition"),
        (1, 1000, False, "does not fit its ROMFS partition (1000 bytes)"),
        (1, 131072, True, "a ROMFS partition of 131072 bytes"),
    ],
)
def test_deploy_auto_takes_romfs_when_the_partition_holds_the_code(state, size, chosen, words):
    board = deploy_tool.Board()
    board.romfs_state, board.romfs_size = state, size
    use, why = deploy_tool.choose_layout(board, 60000)
    assert use is chosen and words in why


def test_deploy_romfs_needs_the_romfs_image(image, tmp_path, board):
    bare = tmp_path / "img"
    shutil.copytree(image, bare)
    result = deploy(board, bare, "--romfs")
    one_line_error(result, 2, "no ROMFS image", "make build ROMFS=1")


def test_heap_bytes_reads_heapsize_as_the_unix_port_does():
    assert heap_bytes("64wK") == 131072 and heap_bytes("64wK", word_bytes=4) == 65536
    assert heap_bytes("2M") == 2 * 1024 * 1024 and heap_bytes(4096) == 4096
    assert heap_bytes("1wM") == 2 * 1024 * 1024
    log = "vboard: built-in stand-ins 3680 bytes; reserved 3712; Python heap 5 (heapsize gives 5)"
    assert reserved_bytes(log + "\nmem: ready") == 3712 and reserved_bytes("mem: ready") == 0


def test_booted_board_gets_exactly_the_heap_its_heapsize_gives(image, tmp_path):
    """The built-in stand-ins (network, machine) are held outside the firmware's heap, as a
    board's built-in modules are: the Python heap left equals the plain heapsize's."""
    shutil.copytree(image, tmp_path / "flash")
    with VirtualBoard(tmp_path / "flash", heapsize=BOARD_HEAP) as board:
        target = board.gc_heap_total()
        boot_serving(board)
        log = board.read_log()
    first, left = python_heap_left(log)
    assert first.startswith("vboard: built-in stand-ins "), first
    assert target <= left < target + 32, (first, target)
    gateway = build_image.image_modules(image)["net.gateway"]
    assert "code: net.gateway from %s.mpy" % gateway in log, log


def pinned_and_boot_blocks(log, binary):
    """The virtual board's own mem_info() block (before boot.py) and the firmware's at boot."""
    blocks = mem_log.mem_info_blocks(log, mem_log.gc_block_bytes(word_bits(binary)))
    assert [b["label"].split(":")[0] for b in blocks] == ["vboard", "mem"], blocks
    assert blocks[1]["label"].startswith("mem: ready: heap used ")
    return blocks


@pytest.mark.parametrize("bits", [64, 32])
def test_the_padding_is_small_blocks_on_both_word_sizes(
    image, tmp_path, bits, upy_binary, request
):
    """The bytes the virtual board pads the heap with are many small blocks, so mem_info()'s
    largest allocated block is the firmware's; the firmware still gets exactly its heap. On
    the 32-bit port the heap is given in plain bytes and `w` is no different from K."""
    binary = upy_binary if bits == 64 else request.getfixturevalue("upy32_binary")
    heap = BOARD_HEAP if bits == 64 else str(heap_bytes(BOARD_HEAP, word_bytes=4))
    shutil.copytree(image, tmp_path / "flash")
    with VirtualBoard(tmp_path / "flash", heapsize=heap, micropython=binary) as board:
        target = board.gc_heap_total()
        assert target == board.gc_heap_total(BOARD_HEAP)  # 112wK: the same heap on 32-bit
        boot_serving(board)
        log = board.read_log()
    first, left = python_heap_left(log)
    assert ", padding " in first, first
    assert target <= left < target + mem_log.gc_block_bytes(bits), (first, target)
    pinned, boot = pinned_and_boot_blocks(log, binary)
    padding = int(first.split(", padding ")[1].split()[0])
    assert padding > 16 * 1024  # what is pinned is mostly padding ...
    assert (
        pinned["largest_block_bytes"] < 1024
    )  # ... in blocks of at most 16 GC blocks (and a list)
    assert boot["largest_block_bytes"] > pinned["largest_block_bytes"]
    assert 0 < boot["largest_free_block_bytes"] <= boot["free"]
