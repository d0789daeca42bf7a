# `make run` on a laptop (tools/run_host.sh): a busy port is one clear line naming the option
# that changes it, the temporary flash folder is gone once the board stops, an address other
# than the bind address (make run LAN=1: the laptop's LAN address) is printed with a QR code and
# is the address the board hands out, and the Makefile maps LAN=1 and HTTP_PORT onto it. Only
# loopback is ever served here: LAN serving is never what a test does.
import gzip
import os
import socket
import subprocess

import pytest

import join_card
from build_image import microdot_dir
from hostenv import LOOPBACK, ROOT, TOOLS, free_port, stop_process, wait_port

pytestmark = pytest.mark.upy

RUN_HOST = TOOLS / "run_host.sh"


def run_host(upy_binary, tmp_path, **env):
    """run_host.sh with its temporary folders in tmp_path/tmp; returns (Popen, log path)."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    full = dict(
        os.environ,
        MICROPY_MICROPYTHON=upy_binary,
        MICRODOT_DIR=str(microdot_dir()),
        TMPDIR=str(tmp_path / "tmp"),
        MAZE_BIND=LOOPBACK,
        MAZE_DNS_PORT=str(free_port(socket.SOCK_DGRAM)),
    )
    full.pop("MAZE_FLASH_DIR", None)
    full.update(env)
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["sh", str(RUN_HOST)],
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


def test_the_address_players_open_and_the_temporary_flash(upy_binary, tmp_path):
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
        flashes = list((tmp_path / "tmp").glob("mazeduel-flash.*"))
        assert len(flashes) == 1
        svg = (flashes[0] / "web" / "url.svg.gz").read_bytes()
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
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary flash is gone
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
