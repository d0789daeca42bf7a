# HTTP side of the captive portal, as functions that add routes to a Microdot app: the OS
# connectivity probes, redirects to the game, /status and the phone client page.
#
# Probe policy (docs/captive-portal.md): every probe gets the answer of a working internet
# connection, so phones stay on the board's Wi-Fi and open no captive sign-in popup (WebSockets
# fail in Apple's popup, and dismissing it can drop the Wi-Fi). Players open the game in their
# real browser at the printed address; any other host name or path redirects there.

import gc
import json
import os
import time

from microdot import Response

from game import rulesets

# The OS connectivity probes, matched on the path alone, whatever the Host: "|path body", one
# after another, where a path followed by "|" shares the next one's body; a body of "-" is a
# 204 with none, one starting with "<" is HTML, any other plain text. One string, not a table of
# tuples: with the .mpy files on the filesystem every constant of a module stays in the heap,
# and 8 tuples of 4 (with their 14 strings) take about 1 KB (docs/memory.md).
_PROBES = (
    "|/generate_204"  # Android, ChromeOS (connectivitycheck.gstatic.com)
    "|/gen_204 -"  # older Android / Chrome builds
    "|/hotspot-detect.html"  # Apple iOS / macOS (captive.apple.com)
    "|/library/test/success.html "  # older Apple (www.apple.com)
    "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
    "|/connecttest.txt Microsoft Connect Test"  # Windows 10/11
    "|/ncsi.txt Microsoft NCSI"  # older Windows
    "|/canonical.html "  # Firefox (detectportal.firefox.com)
    '<meta http-equiv="refresh" content="0;url=https://support.mozilla.org/kb/captive-portal"/>'
    "|/success.txt success\n"  # Firefox
    "|"
)

HTML_TYPE = "text/html; charset=utf-8"
JSON_TYPE = "application/json"


def board_url(address, port=80):
    """The address players type: 'http://192.168.4.1/' (the port only if it is not 80)."""
    if port == 80:
        return "http://%s/" % address
    return "http://%s:%d/" % (address, port)


def add_portal_routes(app, url, web_dir=None):
    """Probe answers, favicon, the files of web_dir beside the page (`/<name>.svg`, `.html`,
    `.js`: the join QR codes, the help, the SHA-256 module), and redirects to `url` for foreign
    hosts and unknown paths.

    The probes and the favicon are not routes: each Microdot route keeps a URL pattern, a
    compiled regex and its segment list for good (~0.5 KB apiece on the unix port), and a
    request for an unknown path compiles every one. They are answered by the 404 handler,
    which runs only when no route matched (and before_request never runs there).
    """
    host = url.split("/")[2].lower()  # '192.168.4.1' or '127.0.0.1:8080'
    hosts = (host, host + ":80") if ":" not in host else (host,)

    def board_host(request):
        # "host" in lower case: the board's Microdot keeps a few headers, under their lower-case
        # names (tools/trim_microdot.py); PyPI Microdot's headers take any case
        wanted = request.headers.get("host")
        return wanted is None or wanted.lower() in hosts

    @app.before_request
    def foreign_host(request):
        # a phone that typed another name ends up on the one address the client expects,
        # so every page, cookie and WebSocket of the game shares one origin
        if board_host(request):
            return None
        return _redirect(url)

    @app.errorhandler(404)
    def unknown_path(request):
        if request.method == "GET" or request.method == "HEAD":
            path = request.path
            answer = probe(path)  # whatever the Host: the OS asks its own server's name
            if answer is not None:
                return answer
            if path == "/favicon.ico" and board_host(request):
                # a 302 would make the browser fetch the whole page as an icon
                return Response(b"", 204, {"Cache-Control": "max-age=86400"})
            end = path[path.rfind(".") :]  # the type of a file of web/ served by its name
            if end == ".svg":
                kind = "image/svg+xml"
            elif end == ".html":
                kind = HTML_TYPE
            elif end == ".js":
                kind = "text/javascript"
            else:
                kind = None
            if kind and web_dir and "/" not in path[1:] and board_host(request):
                # a file of web/ beside the page (made by `make build`, docs/client.md): the
                # join QR codes the TV screen shows, the help's text and the SHA-256 module
                # the page fetches when it needs them
                found = _file(request, web_dir, path[1:], kind)
                return found or Response(b"", 404, {"Cache-Control": "no-store"})
        return _redirect(url)

    @app.errorhandler(405)
    def wrong_method(request):
        return _redirect(url)


def _redirect(url):
    return Response(b"", 302, {"Location": url, "Cache-Control": "no-store"}, "Found")


def probe(path):
    """The answer to an OS connectivity probe of path (_PROBES), or None when it is not one."""
    if "|" in path or " " in path:
        return None
    at = _PROBES.find("|%s " % path)
    if at < 0:
        at = _PROBES.find("|%s|" % path)
        if at < 0:
            return None
    start = _PROBES.find(" ", at) + 1  # (paths have no space: the body's)
    body = _PROBES[start : _PROBES.find("|", start)]
    headers = {"Cache-Control": "no-store"}
    if body == "-":
        return Response(b"", 204, headers)
    headers["Content-Type"] = "text/html" if body[0] == "<" else "text/plain"
    return Response(body, 200, headers)


def add_status_route(app, board):
    """GET /status: the board's figures (a net.wiring.Board) as one JSON object, written
    straight as text after a collection (no dictionaries: the heap figures are live data,
    and the request itself needs little). The object goes out in pieces of under ~80 bytes
    each, never one string of the whole (~300 bytes): the heap is at its fullest and most
    fragmented when the room is, and a piece finds a block where the whole did not."""

    @app.route("/status")
    def status(request):
        gc.collect()
        try:
            stations = len(board.wlan.status("stations"))
        except (AttributeError, ValueError, TypeError, OSError):
            stations = -1
        game = board.game
        server = board.server
        parts = game.host.status()  # [b"{", the match's members in three pieces]
        parts.append(
            ',"ssid":%s,"preset":%s'
            % (
                json.dumps(board.config.ssid),
                json.dumps(board.config.preset or game.host.ruleset[rulesets.PRESET]),
            )
        )
        parts.append(',"writers":%s' % json.dumps(board.writers))
        # the Wi-Fi's password, for the TV's join panel and its Wi-Fi QR code (whoever can ask
        # is on the network already; the join card prints it too)
        parts.append(',"password":%s' % json.dumps(board.config.password))
        parts.append(
            ',"uptime_ms":%d,"stations":%d,"dns_answered":%d,"dns_ignored":%d'
            % (
                time.ticks_diff(time.ticks_ms(), board.started),
                stations,
                board.dns.answered,
                board.dns.ignored,
            )
        )
        parts.append(
            ',"http_open":%d,"http_refused":%d,"http_evicted":%d,"sessions":%d'
            % (server.open, server.refused, server.evicted, len(game.sessions))
        )
        # The heap figures last, with everything above made (as one string used to be).
        mem_free = getattr(gc, "mem_free", None)
        if mem_free is None:
            parts.append(b"}")
        else:
            parts.append(',"mem_free":%d,"mem_alloc":%d}' % (mem_free(), gc.mem_alloc()))
        size = 0
        for i in range(len(parts)):
            if not isinstance(parts[i], bytes):
                parts[i] = parts[i].encode()
            size += len(parts[i])
        headers = {"Content-Type": JSON_TYPE, "Cache-Control": "no-store"}
        headers["Content-Length"] = str(size)
        # an iterator body: the board's Microdot writes each piece (tools/trim_microdot.py,
        # Response.write), the PyPI one as a synchronous generator
        return Response(iter(parts), 200, headers)


def add_client_routes(app, web_dir):
    """GET / and /index.html: the phone client, index.html.gz if present, else index.html.

    The file is looked up on every request (a new client can be copied without a restart) and
    streamed in Microdot's 1 KB chunks, never read whole into RAM.
    """

    def index(request):
        return _file(request, web_dir, "index.html", HTML_TYPE) or Response(
            "The phone client is missing from %s/ on the board.\n" % web_dir,
            503,
            {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"},
        )

    app.route("/")(index)
    app.route("/index.html")(index)


def _file(request, web_dir, name, content_type):
    """A file of web_dir, `name`.gz (sent gzip-encoded) if present, else `name`; None if
    neither exists. Streamed in Microdot's 1 KB chunks, never read whole into RAM."""
    for suffix in (".gz", ""):
        path = web_dir + "/" + name + suffix
        try:
            size = os.stat(path)[6]
        except OSError:
            continue
        headers = {
            "Content-Type": content_type,
            "Cache-Control": "no-cache",  # revalidate, so a new firmware's client shows up
            "Content-Length": str(size),
        }
        if suffix:
            headers["Content-Encoding"] = "gzip"
        if request.method == "HEAD":
            return Response(b"", 200, headers)
        return Response(open(path, "rb"), 200, headers)
    return None
