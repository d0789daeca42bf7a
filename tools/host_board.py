"""A host board: the REAL firmware (firmware/boot.py and main.py, unchanged) under the MicroPython
unix port through tools/run_host.sh, on free loopback ports. The network, gateway and browser
tests and the latency bench run their boards with it; always stop a board afterwards.

    board = start_host_board(micropython, workdir, settings_json=None, heap=BOARD_HEAP)
    board.get("/status")               # -> (status, lower-cased headers, body bytes)
    board.dns_query(a_query())         # raw UDP exchange with its DNS responder
    stop_host_board(board)             # SIGTERM, then SIGKILL; safe to call twice
"""

import http.client
import os
import socket
import subprocess
import time
from pathlib import Path

from build_image import microdot_dir
from hostenv import BOARD_HEAP, LOOPBACK, ROOT, TOOLS, free_port, serving_env, stop_process

RUN_HOST = TOOLS / "run_host.sh"
READY_TIMEOUT_S = 60.0  # bounds a hang: a loaded machine boots the unix port slowly


class HostBoardError(Exception):
    """The board exited, or did not serve HTTP and DNS in time (the message holds its log)."""


def a_query(name=b"\x07example\x03com\x00", qid=0x1234, qtype=1, flags=0x0100):
    """A raw one-question DNS query (default: example.com A, RD set)."""
    header = bytes((qid >> 8, qid & 255, flags >> 8, flags & 255, 0, 1, 0, 0, 0, 0, 0, 0))
    return header + name + bytes((qtype >> 8, qtype & 255, 0, 1))


class HostBoard:
    """A running host board: its ports, its flash directory and its log."""

    def __init__(self, process, flash, log_path, http_port, dns_port):
        self.process = process
        self.flash = flash
        self.log_path = log_path
        self.http_port = http_port
        self.dns_port = dns_port
        self.url = f"http://{LOOPBACK}:{http_port}/"
        self.ws_url = f"ws://{LOOPBACK}:{http_port}/ws"

    def log(self):
        return self.log_path.read_text(errors="replace")

    def request(self, method, path, headers=None, body=None):
        """One HTTP request; returns (status, headers as a lower-cased dict, body bytes)."""
        conn = http.client.HTTPConnection(LOOPBACK, self.http_port, timeout=5)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def get(self, path, headers=None):
        return self.request("GET", path, headers)

    def dns_query(self, packet, timeout=2.0):
        """Send one UDP packet to the DNS port; the reply bytes, or None if none came."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(timeout)
            s.sendto(packet, (LOOPBACK, self.dns_port))
            try:
                return s.recv(4096)
            except TimeoutError:
                return None

    def alive(self):
        return self.process.poll() is None


def start_host_board(micropython, workdir, settings_json=None, heap=BOARD_HEAP, http_port=None):
    """Start tools/run_host.sh with `workdir`/flash as the flash root (and `settings_json` as
    its settings.json); returns once it answers HTTP and DNS. Raises HostBoardError.
    http_port: a given port (a board restarted where the pages expect it), else a free one."""
    flash = Path(workdir) / "flash"
    flash.mkdir(parents=True, exist_ok=True)
    if settings_json is not None:
        (flash / "settings.json").write_text(settings_json)
    log_path = Path(workdir) / "board.log"
    http_port = http_port or free_port(socket.SOCK_STREAM)
    dns_port = free_port(socket.SOCK_DGRAM)
    env = dict(
        os.environ,
        MICROPY_MICROPYTHON=micropython,
        MICRODOT_DIR=str(microdot_dir()),
        MAZE_FLASH_DIR=str(flash),
        MAZE_HEAP=heap,
    )
    env.update(serving_env(http_port, dns_port))
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            ["sh", str(RUN_HOST)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    board = HostBoard(process, flash, log_path, http_port, dns_port)
    try:
        _wait_ready(board)
    except BaseException:
        stop_host_board(board)
        raise
    return board


def _wait_ready(board):
    deadline = time.monotonic() + READY_TIMEOUT_S
    http_up = dns_up = False
    while time.monotonic() < deadline:
        if not board.alive():
            raise HostBoardError(
                f"host board exited with {board.process.returncode}:\n{board.log()}"
            )
        if not http_up:
            try:
                socket.create_connection((LOOPBACK, board.http_port), timeout=0.2).close()
                http_up = True
            except OSError:
                pass
        if not dns_up:
            dns_up = board.dns_query(a_query(), timeout=0.2) is not None
        if http_up and dns_up:
            return
        time.sleep(0.05)
    raise HostBoardError(f"host board not ready after {READY_TIMEOUT_S} s:\n{board.log()}")


def stop_host_board(board):
    """Stop the board process: SIGTERM, then SIGKILL if it lingers. Safe to call twice."""
    stop_process(board.process)
