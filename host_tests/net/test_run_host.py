# `make run` on a laptop (tools/run_host.sh): a busy port is one clear line naming the option
# that changes it, an address other than the bind address (make run LAN=1: the laptop's LAN
# address) is printed with a QR code and is the address the board hands out, the flash is a
# folder of the checkout kept between runs (build/flash/: a restart resumes the match, as on a
# board) that FRESH=1 empties, and the Makefile maps LAN=1, HTTP_PORT and FRESH onto it. Only
# loopback is ever served here: LAN serving is never what a test does. No test touches the
# checkout's own build/flash/: the default folder is tried in a copy of the checkout's layout.
import gzip
import os
import socket
import subprocess

import pytest

import join_card
from build_image import microdot_dir
from game_client import GameClient, both_ready, run
from hostenv import LOOPBACK, ROOT, TOOLS, free_port, stop_process, wait_port

pytestmark = pytest.mark.upy

RUN_HOST = TOOLS / "run_host.sh"


def run_host(upy_binary, tmp_path, script=RUN_HOST, log_name="run.log", **env):
    """run_host.sh (`script`: another checkout's) with its temporary folders in tmp_path/tmp
    and its flash in tmp_path/flash unless env says otherwise (MAZE_FLASH_DIR=None: the
    default folder); returns (Popen, log path)."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    full = dict(
        os.environ,
        MICROPY_MICROPYTHON=upy_binary,
        MICRODOT_DIR=str(microdot_dir()),
        TMPDIR=str(tmp_path / "tmp"),
        MAZE_BIND=LOOPBACK,
        MAZE_DNS_PORT=str(free_port(socket.SOCK_DGRAM)),
    )
    full.pop("MAZE_FRESH", None)
    full["MAZE_FLASH_DIR"] = str(tmp_path / "flash")
    full.update(env)
    full = {k: v for k, v in full.items() if v is not None}
    log = tmp_path / log_name
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["sh", str(script)],
            cwd=tmp_path,  # any working directory
            env=full,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return process, log


def test_a_busy_port_is_one_line_naming_the_option(upy_binary, tmp_path):
    with socket.socket() as busy:
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        process, log = run_host(upy_binary, tmp_path, MAZE_HTTP_PORT=str(port))
        assert process.wait(timeout=30) == 1
    lines = log.read_text().splitlines()
    assert len(lines) == 1, lines
    assert "port %d is in use" % port in lines[0] and "make run HTTP_PORT=" in lines[0]
    assert "Traceback" not in lines[0]
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_address_players_open(upy_binary, tmp_path):
    port = free_port()
    # 127.0.0.2 stands for a LAN address: another address of this machine than the bind one
    # (the board listens on 127.0.0.1 only: this test reads what it hands out, never serves it)
    process, log = run_host(
        upy_binary, tmp_path, MAZE_HTTP_PORT=str(port), MAZE_ADDRESS="127.0.0.2"
    )
    try:
        wait_port(port, process=process)
        url = "http://127.0.0.2:%d/" % port
        text = log.read_text()
        assert "phones on this network open %s" % url in text
        assert "\u2588" in text or "\u2580" in text or "\u2584" in text  # the QR code's blocks
        svg = (tmp_path / "flash" / "web" / "url.svg.gz").read_bytes()
        assert gzip.decompress(svg) == join_card.qr_svg(url)
        # the board hands out that address: another host name is sent there
        with socket.create_connection((LOOPBACK, port), timeout=5) as s:
            s.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                assert chunk, head
                head += chunk
        assert head.startswith(b"HTTP/1.0 302") and b"Location: " + url.encode() in head
    finally:
        stop_process(process)
    assert process.returncode is not None
    assert list((tmp_path / "tmp").iterdir()) == []  # run_host.sh's temporary folders are gone
    with pytest.raises(OSError):
        socket.create_connection((LOOPBACK, port), timeout=1).close()


def test_make_run_maps_lan_and_http_port_onto_run_host():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAZE_")}

    def dry(*args):
        done = subprocess.run(
            ["make", "-n", "run", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    assert "MAZE_BIND=127.0.0.1" in dry() and "MAZE_HTTP_PORT=8080" in dry()
    assert "MAZE_BIND=0.0.0.0" in dry("LAN=1")
    assert "MAZE_HTTP_PORT=8081" in dry("HTTP_PORT=8081")
    env["MAZE_HTTP_PORT"] = "9001"  # the variable run_host.sh reads works through make too
    assert "MAZE_HTTP_PORT=9001" in dry()
    assert "MAZE_FRESH" not in dry() and "MAZE_FRESH=1" in dry("FRESH=1")


def checkout_layout(tmp_path):
    """A checkout of symbolic links to this one's parts, with a build/ of its own: its
    tools/run_host.sh takes tmp_path/checkout as its root, and build/flash/ there."""
    root = tmp_path / "checkout"
    root.mkdir()
    for name in (
        "tools",
        "firmware",
        ".venv",
        "node_modules",
        "package.json",
        "package-lock.json",
    ):
        if (ROOT / name).exists():
            (root / name).symlink_to(ROOT / name)
    return root


@pytest.mark.slow(seconds=30)
def test_the_default_flash_is_kept_between_runs_and_fresh_empties_it(upy_binary, tmp_path):
    root = checkout_layout(tmp_path)
    script = root / "tools" / "run_host.sh"
    flash = root / "build" / "flash"
    port = free_port()
    url = "ws://%s:%d/ws" % (LOOPBACK, port)

    def start(name, **env):
        process, log = run_host(
            upy_binary,
            tmp_path,
            script,
            name,
            MAZE_FLASH_DIR=None,
            MAZE_HTTP_PORT=str(port),
            **env,
        )
        wait_port(port, process=process, timeout=60)
        return process, log

    async def first_run():  # a match started, a move acknowledged (on flash before its ack)
        p1 = await GameClient(url, "p1").connect()
        await p1.join(name="ann")
        p2 = await GameClient(url, "p2").connect()
        await p2.join(name="bob")
        await both_ready(p1, p2)
        for d in "NESW":
            if (await p1.move(d))["t"] == "ack":
                break
        for player in (p1, p2):
            await player.close()
        return p1.welcome["token"]

    async def rejoin(token, expect="welcome"):
        p1 = await GameClient(url, "p1").connect()
        answer = await p1.join(token=token, expect=expect)
        await p1.close()
        return answer

    process, log = start("run1.log")
    try:
        token = run(first_run())
    finally:
        stop_process(process)
    assert "host board: flash %s," % flash in log.read_text()
    assert (flash / "log" / "match-1.log").stat().st_size >= 208  # its header
    assert (flash / "log" / "match-1.tail").exists()  # the move: unfinished

    # the second run, with the same default folder, finds the match and resumes it
    process, log = start("run2.log")
    try:
        welcome = run(rejoin(token))
    finally:
        stop_process(process)
    assert welcome["seat"] == 1 and welcome.get("restarted") is True, welcome
    assert "emptied" not in log.read_text()

    # FRESH: the folder is emptied first; a blank flash has no match to resume
    process, log = start("run3.log", MAZE_FRESH="1")
    try:
        refusal = run(rejoin(token, expect="err"))
    finally:
        stop_process(process)
    assert "host board: flash %s emptied (fresh start)" % flash in log.read_text()
    assert refusal["code"] == "BAD_TOKEN", refusal  # the old seat is gone with its log
    assert not list((flash / "log").glob("match-*"))
    assert list((tmp_path / "tmp").iterdir()) == []


def test_fresh_never_empties_a_folder_that_is_not_a_flash(upy_binary, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "log").mkdir()
    (folder / "thesis.tex").write_text("mine")
    process, log = run_host(
        upy_binary, tmp_path, MAZE_FLASH_DIR=str(folder), MAZE_FRESH="1", MAZE_HTTP_PORT="0"
    )
    assert process.wait(timeout=30) == 2
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and "not emptying %s: it holds thesis.tex" % folder in lines[0], lines
    assert (folder / "thesis.tex").read_text() == "mine" and (folder / "log").is_dir()
