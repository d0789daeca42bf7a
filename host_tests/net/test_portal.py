# The HTTP side of the REAL firmware (portal routes, /status, the phone client), running under the
# MicroPython unix port (host_board fixture, conftest.py), over real HTTP with http.client.
# The expected answers are the ones docs/captive-portal.md promises.
import asyncio
import gzip
import json
import socket
import struct

import pytest
from microdot import Microdot
from microdot.test_client import TestClient

import join_card
from build_image import web_files
from hostenv import heap_bytes
from net import portal

pytestmark = pytest.mark.upy

APPLE_SUCCESS = b"<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
FIREFOX_CANONICAL = (
    b'<meta http-equiv="refresh" content="0;url=https://support.mozilla.org/kb/captive-portal"/>'
)

PROBES = [
    # (Host the OS sends, path, status, body)
    ("connectivitycheck.gstatic.com", "/generate_204", 204, b""),
    ("clients3.google.com", "/generate_204", 204, b""),
    ("www.google.com", "/gen_204", 204, b""),
    ("captive.apple.com", "/hotspot-detect.html", 200, APPLE_SUCCESS),
    ("www.apple.com", "/library/test/success.html", 200, APPLE_SUCCESS),
    ("www.msftconnecttest.com", "/connecttest.txt", 200, b"Microsoft Connect Test"),
    ("www.msftncsi.com", "/ncsi.txt", 200, b"Microsoft NCSI"),
    ("detectportal.firefox.com", "/canonical.html", 200, FIREFOX_CANONICAL),
    ("detectportal.firefox.com", "/success.txt", 200, b"success\n"),
]


@pytest.mark.parametrize("host, path, status, body", PROBES)
def test_probes_answer_as_expected(host_board, host, path, status, body):
    got_status, headers, got_body = host_board.get(path, {"Host": host})
    assert (got_status, got_body) == (status, body)
    assert "location" not in headers
    assert headers["cache-control"] == "no-store"


def test_probe_with_the_board_host_too(host_board):
    assert host_board.get("/generate_204")[0] == 204


def board_host(board):
    return f"127.0.0.1:{board.http_port}"


def test_index_is_the_gzipped_client(host_board, repo_root):
    status, headers, body = host_board.get("/", {"Host": board_host(host_board)})
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "no-cache"
    assert int(headers["content-length"]) == len(body)
    page = gzip.decompress(body)
    assert page == web_files()["index.html"]  # the minified page of the board image
    assert b"<title>Maze Duel</title>" in page
    assert host_board.get("/index.html")[2] == body


def test_head_gives_headers_only(host_board):
    status, headers, body = host_board.request("HEAD", "/")
    assert status == 200 and body == b""
    assert headers["content-encoding"] == "gzip"
    assert int(headers["content-length"]) > 0


def test_plain_index_when_no_gzip_and_503_when_nothing(host_board):
    web = host_board.flash / "web"
    gz = web / "index.html.gz"
    plain = web / "index.html"
    plain.write_bytes(b"<title>Maze Duel</title>")  # a page copied by hand, not gzipped
    gz.rename(web / "hidden.gz")
    try:
        status, headers, body = host_board.get("/")
        assert status == 200
        assert "content-encoding" not in headers
        assert headers["content-type"] == "text/html; charset=utf-8"
        assert body == plain.read_bytes()
        plain.rename(web / "hidden.html")
        try:
            status, headers, body = host_board.get("/")
            assert status == 503
            assert b"missing" in body
        finally:
            (web / "hidden.html").rename(plain)
    finally:
        (web / "hidden.gz").rename(gz)
        plain.unlink()
    assert host_board.get("/")[1]["content-encoding"] == "gzip"


def test_the_join_qr_codes_are_served_beside_the_page(host_board):
    # the QR code of the game's address, made for this board's URL by tools/run_host.sh as
    # tools/build_image.py makes it for a board; no Wi-Fi code: the settings name no network
    status, headers, body = host_board.get("/url.svg", {"Host": board_host(host_board)})
    assert status == 200
    assert headers["content-type"] == "image/svg+xml"
    assert headers["content-encoding"] == "gzip"
    assert int(headers["content-length"]) == len(body)
    assert gzip.decompress(body) == join_card.qr_svg(host_board.url)
    assert host_board.request("HEAD", "/url.svg")[2] == b""
    assert host_board.get("/wifi.svg")[0] == 404
    assert host_board.get("/nothing.svg")[0] == 404
    # only files of web/ itself, and only for the board's own host name
    assert host_board.get("/web/url.svg")[0] == 302
    assert host_board.get("/url.svg", {"Host": "example.com"})[0] == 302


def test_what_the_page_fetches_when_needed_is_served_beside_it(host_board):
    # the help's text and the SHA-256 module (docs/client.md), as the board image holds them.
    # (Few requests: this module's board is one source address, allowed 40 connections at once
    # then 20 a second, net/server.py.)
    host = {"Host": board_host(host_board)}
    for name, content_type in (
        ("help.html", "text/html; charset=utf-8"),
        ("sha256.js", "text/javascript"),
        ("tv.js", "text/javascript"),
        ("refusals.js", "text/javascript"),
        ("replay.js", "text/javascript"),
    ):
        status, headers, body = host_board.get("/" + name, host)
        assert status == 200
        assert headers["content-type"] == content_type
        assert headers["content-encoding"] == "gzip"
        assert int(headers["content-length"]) == len(body)
        assert gzip.decompress(body) == web_files()[name]
    # a file that is not there: 404, not the page (a fetch would follow a 302 to it)
    assert host_board.get("/nothing.js")[0] == 404
    assert host_board.get("/help.html", {"Host": "example.com"})[0] == 302


@pytest.mark.parametrize(
    "method, path, host",
    [
        ("GET", "/", "example.com"),  # a name typed in the browser
        ("GET", "/some/page?q=1", "example.com"),
        ("GET", "/no/such/page", None),  # unknown path on the board itself
        ("GET", "/index.htm", None),
        ("POST", "/", None),  # a method no route takes
        ("GET", "/status", "status.example"),
    ],
)
def test_unknown_hosts_and_paths_redirect_to_the_game(host_board, method, path, host):
    headers = {"Host": host or board_host(host_board)}
    status, response_headers, _ = host_board.request(method, path, headers)
    assert status == 302
    assert response_headers["location"] == host_board.url


def test_board_host_match_ignores_case(host_board):
    status, _, _ = host_board.get("/", {"Host": board_host(host_board).upper()})
    assert status == 200


def test_board_on_port_80_accepts_both_host_forms(tmp_path):
    # The board's own URL has no port; browsers may still send "192.168.4.1:80". Checked on
    # CPython with Microdot's test client, since the host board cannot listen on port 80.
    (tmp_path / "index.html").write_text("<title>Maze Duel</title>")
    url = portal.board_url("192.168.4.1", 80)
    assert url == "http://192.168.4.1/"
    app = Microdot()
    portal.add_portal_routes(app, url)
    portal.add_client_routes(app, str(tmp_path))
    client = TestClient(app)

    async def status_for(host):
        response = await client.get("/", headers={"Host": host})
        return response.status_code, response.headers.get("Location")

    for host in ("192.168.4.1", "192.168.4.1:80"):
        assert asyncio.run(status_for(host)) == (200, None)
    for host in ("192.168.4.10", "192.168.4.1:8080", "maze.duel"):
        assert asyncio.run(status_for(host)) == (302, url)


def test_favicon_is_empty(host_board):
    status, _, body = host_board.get("/favicon.ico")
    assert (status, body) == (204, b"")


def test_status_reports_memory_and_counters(host_board, host_heap):
    status, headers, body = host_board.get("/status")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-store"
    info = json.loads(body)
    assert info["mem_free"] > 0 and info["mem_alloc"] > 0
    # the board-sized heap holds both: nothing is measured outside it
    assert info["mem_free"] + info["mem_alloc"] <= heap_bytes(host_heap, struct.calcsize("P"))
    assert info["ssid"] == "MazeDuel-ABCD"  # from the stand-in MAC (tools/hostboard/machine.py)
    assert info["password"] == "mazeduel"  # the default: the TV shows it, and its Wi-Fi QR code
    assert info["preset"] == "classic"
    assert info["stations"] == 0
    assert info["uptime_ms"] >= 0
    assert info["dns_answered"] >= 1  # the fixture's readiness query
    assert info["writers"] == "viper"  # the view writers' machine code loaded (game.projector)


def _raw(port, data, end=True):
    """One raw request; the board's whole answer (or b"" if it closed first). end: the client
    closes its side after data."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        try:
            s.sendall(data)
            if end:
                s.shutdown(socket.SHUT_WR)
            answer = b""
            while True:
                part = s.recv(4096)
                if not part:
                    return answer
                answer += part
        except OSError:
            return b""


def test_garbage_requests_do_not_stop_the_server(host_board):
    for junk in (b"\r\n\r\n", b"GARBAGE\r\n\r\n", b"\x00\xff" * 600 + b"\r\n\r\n", b"GET"):
        _raw(host_board.http_port, junk)  # the board may close first: that is fine
    assert host_board.alive()
    assert host_board.get("/generate_204")[0] == 204


def test_log_names_the_address_and_no_password(host_board):
    log = host_board.log()
    assert "WPA2 (default password)" in log
    assert "mazeduel" not in log
    assert host_board.url in log


def test_no_request_body_is_read(host_board):
    """No request makes the board read a body (no route takes one; Microdot's default reads up
    to 16 KB into one allocation): a body announced is answered 413 at once, without waiting
    for a byte of it (net/server.py)."""
    port = host_board.http_port
    answer = _raw(
        port, b"POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4000\r\n\r\n", False
    )
    assert answer.startswith(b"HTTP/1.0 413 "), answer[:80]
    assert host_board.alive()
    # the page still arrives whole (the board sends files in 512-byte pieces, not 1 KB)
    status, headers, page = host_board.get("/", {"Host": board_host(host_board)})
    assert status == 200 and len(page) == int(headers["content-length"]) > 4096
