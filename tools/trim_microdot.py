"""Microdot as the board uses it: the pinned package with the parts the firmware never calls
taken out, for the board image and the laptop host boards.

Why: on a board every function of an imported module costs heap for as long as the module
lives (about 40 bytes each even when the bytecode stays in flash, plus the bytecode itself on
the filesystem), and Microdot is the largest module the firmware imports. The firmware uses
its request parser, routing, responses and the WebSocket handshake; it runs its own accept
loop (net/server.py) and its own frame reader and writer (net/gateway.py), and defines no
cookies, forms, mounts or redirects through Microdot.

Each removal below names a function, method or class and why nothing calls it. After the
removal the remaining code, of Microdot and of the firmware, is searched for every removed
name; a build that still refers to one fails (BuildError), so an upgrade of Microdot that
starts using one of them cannot go unnoticed.

    python tools/trim_microdot.py OUT_DIR [MICRODOT_DIR]   # the trimmed package's .py files
"""

import ast
import hashlib
import sys
import textwrap
from pathlib import Path

# (file, qualified name, why nothing the board runs needs it)
REMOVALS = (
    ("microdot.py", "urlencode", "only Response.set_cookie/redirect-style helpers use it"),
    ("microdot.py", "MultiDict.getlist", "query arguments are never read as lists"),
    ("microdot.py", "AsyncBytesIO", "only Request.stream makes one"),
    ("microdot.py", "Request.body", "no route reads a request body"),
    ("microdot.py", "Request.stream", "likewise"),
    ("microdot.py", "Request.json", "likewise"),
    ("microdot.py", "Request.form", "likewise"),
    ("microdot.py", "Request.files", "likewise"),
    ("microdot.py", "Request.after_request", "only websocket_upgrade registers one"),
    ("microdot.py", "Request._safe_readline", "read inline by Request.create (REPLACEMENTS)"),
    ("microdot.py", "Response.set_cookie", "no cookies"),
    ("microdot.py", "Response.delete_cookie", "no cookies"),
    ("microdot.py", "Response.redirect", "net/portal.py builds its 302 itself"),
    ("microdot.py", "Response.send_file", "net/portal.py streams the client page itself"),
    ("microdot.py", "Response.types_map", "read by send_file only"),
    ("microdot.py", "Response.default_send_file_max_age", "read by send_file only"),
    ("microdot.py", "URLPattern.register_type", "no custom URL segment types"),
    ("microdot.py", "URLPattern.__repr__", "debugging only"),
    ("microdot.py", "HTTPException.__repr__", "debugging only"),
    ("microdot.py", "Microdot.get", "routes are added with Microdot.route"),
    ("microdot.py", "Microdot.post", "likewise"),
    ("microdot.py", "Microdot.put", "likewise"),
    ("microdot.py", "Microdot.patch", "likewise"),
    ("microdot.py", "Microdot.delete", "likewise"),
    ("microdot.py", "Microdot.query", "likewise"),
    ("microdot.py", "Microdot.after_request", "no after-request handlers"),
    ("microdot.py", "Microdot.after_error_request", "no after-error handlers"),
    ("microdot.py", "Microdot.mount", "no sub-applications"),
    ("microdot.py", "Microdot.start_server", "net/server.py runs the accept loop"),
    ("microdot.py", "Microdot.run", "likewise"),
    ("microdot.py", "Microdot.shutdown", "likewise"),
    ("microdot.py", "Microdot.handle_request", "net/server.py parses and dispatches"),
    ("microdot.py", "redirect", "the alias of Response.redirect"),
    ("microdot.py", "urldecode", "query strings are not parsed (REPLACEMENTS: Request.__init__)"),
    ("microdot.py", "MultiDict", "likewise"),
    ("microdot.py", "Request._parse_urlencoded", "likewise"),
    ("microdot.py", "Request.G", "no request-scoped data (REPLACEMENTS: Request.__init__)"),
    ("microdot.py", "mro", "no error handlers for exception classes (REPLACEMENTS)"),
    ("microdot.py", "Microdot.default_options_handler", "OPTIONS is routed like any method"),
    ("microdot.py", "Microdot.get_request_handlers", "no sub-applications, no after-handlers"),
    ("microdot.py", "URLPattern.compile", "static paths only (REPLACEMENTS: URLPattern.match)"),
    ("microdot.py", "URLPattern.segment_patterns", "likewise"),
    ("microdot.py", "URLPattern.segment_parsers", "likewise"),
    ("microdot.py", "NoCaseDict", "headers are plain dicts (REPLACEMENTS: Request.create, ...)"),
    ("microdot.py", "send_file", "the alias of Response.send_file"),
    ("microdot.py", "Response.body_iter", "Response.write reads the body itself (REPLACEMENTS)"),
    ("microdot.py", "Response.complete", "Response.write sets its defaults (REPLACEMENTS)"),
    ("microdot.py", "Response.default_content_type", "likewise"),
    ("websocket.py", "WebSocketError", "raised only by the frame reader"),
    ("websocket.py", "WebSocket.receive", "net/gateway.py reads the frames"),
    ("websocket.py", "WebSocket.send", "net/gateway.py writes the frames"),
    ("websocket.py", "WebSocket.close", "likewise"),
    ("websocket.py", "WebSocket._parse_frame_header", "likewise"),
    ("websocket.py", "WebSocket._process_websocket_frame", "likewise"),
    ("websocket.py", "WebSocket._encode_websocket_frame", "likewise"),
    ("websocket.py", "WebSocket._read_frame", "likewise"),
    ("websocket.py", "websocket_upgrade", "net/gateway.py calls WebSocket.handshake"),
    ("websocket.py", "websocket_wrapper", "likewise"),
    ("websocket.py", "with_websocket", "likewise"),
)

# The request headers the board's Request.create keeps (REPLACEMENTS), under their lower-case
# names: Host (the captive redirect, net/portal.py), Content-Length (the 413), and what the
# WebSocket handshake reads (websocket.py). trim() checks that the firmware reads no other.
KEPT_HEADERS = ("host", "content-length", "connection", "upgrade", "sec-websocket-key")

# Whole functions replaced by the board's version of them (file, qualified name, sha256 of the
# original's ast.unparse, the replacement, why). The board's routes are static paths on one
# application: no query strings, cookies, sub-applications, after-request handlers, OPTIONS
# answers or error handlers for exception classes (the firmware registers handlers for status
# codes only, which trim() checks). What stays behaves as Microdot does for every request the
# firmware sees; a Microdot upgrade that changes one of these functions fails the build (the
# digest), so each replacement is reviewed again.
REPLACEMENTS = (
    (
        "microdot.py",
        "URLPattern.__init__",
        "22424b790a9e",
        """
def __init__(self, url_pattern):
    self.url_pattern = url_pattern
""",
        "a static path needs no segments, nor a regular expression",
    ),
    (
        "microdot.py",
        "URLPattern.match",
        "5fb15507ab55",
        """
def match(self, path):
    return path == self.url_pattern
""",
        "the firmware's routes are static paths (trim() checks): the path itself, no regular"
        " expression per route (~0.2 KB each, compiled by the first request that walks past it),"
        " and no arguments (a bool, not a dict of them)",
    ),
    (
        "microdot.py",
        "Request.__init__",
        "f44af216b4e2",
        """
def __init__(self, app, client_addr, method, url, http_version, headers, body=None,
             stream=None, sock=None, url_prefix='', subapp=None, scheme=None, route=None):
    self.app = app
    self.method = method
    self.path = url
    self.headers = headers
    self.content_length = 0
    self.query_string = ''
    if '?' in url:
        self.path, self.query_string = url.split('?', 1)
    if 'content-length' in headers:
        self.content_length = int(headers['content-length'])
    self.sock = sock
""",
        "the path and its query string (unparsed: GET /log?n=N reads it), the headers and their"
        " Content-Length only",
    ),
    (
        "microdot.py",
        "Request.create",
        "3e13d137cc20",
        """
@staticmethod
async def create(app, client_reader, client_writer, client_addr, scheme=None):
    line = await client_reader.readline()
    if len(line) > Request.max_readline:
        raise ValueError('line too long')
    line = line.strip().decode()
    if not line:
        return None
    method, url, http_version = line.split()
    http_version.split('/', 1)[1]  # IndexError (answered 400) as Microdot's own
    headers = {}
    while True:
        line = await client_reader.readline()
        if len(line) > Request.max_readline:
            raise ValueError('line too long')
        line = line.strip().decode()
        if line == '':
            break
        header, value = line.split(':', 1)
        header = header.lower()
        if header == 'content-length':
            int(value)
        if header in %r:
            headers[header] = value.strip()
    return Request(app, client_addr, method, url, http_version, headers,
                   sock=(client_reader, client_writer))
"""
        % (KEPT_HEADERS,),
        "the request line and headers parsed and checked as Microdot does (the same requests"
        " answered 400), but only the headers something reads are kept, in a plain dict under"
        " their lower-case names (Host: the captive redirect; Connection, Upgrade,"
        " Sec-WebSocket-Key: the handshake; Content-Length: the 413), and no body is read"
        " (max_body_length is 0 on the board): a phone's User-Agent, Accept... are not kept"
        " while the request is served",
    ),
    (
        "microdot.py",
        "Microdot.__init__",
        "93166e3a21af",
        """
def __init__(self):
    self.url_map = []
    self.before_request_handlers = []
    self.error_handlers = {}
""",
        "no after-request handlers, OPTIONS handler, server or debug flags",
    ),
    (
        "microdot.py",
        "Microdot.find_route",
        "3d81ad95995f",
        """
def find_route(self, req):
    method = req.method.upper()
    if method == 'HEAD':
        method = 'GET'
    f = 404
    for route_methods, route_pattern, route_handler, url_prefix, subapp in self.url_map:
        if route_pattern.match(req.path):
            if method in route_methods:
                return route_handler
            f = 405
    return f
""",
        "the handler (or 404, 405) only: no OPTIONS answer, no sub-applications, no URL arguments",
    ),
    (
        "microdot.py",
        "Microdot.error_response",
        "dedf4a401359",
        """
async def error_response(self, req, status_code, reason=None):
    if status_code in self.error_handlers:
        res = self.error_handlers[status_code](req)
        if iscoroutine(res):
            res = await res
        return res
    return (reason or 'N/A', status_code)
""",
        "no sub-applications; the handler called as invoke_handler does, without a coroutine"
        " of its own",
    ),
    (
        "microdot.py",
        "Microdot.dispatch_request",
        "58182bc02f42",
        """
async def dispatch_request(self, req):
    if req:
        if req.content_length > req.max_content_length:
            res = await self.error_response(req, 413, 'Payload too large')
        else:
            f = self.find_route(req)
            try:
                res = None
                if callable(f):
                    for handler in self.before_request_handlers:
                        res = handler(req)
                        if iscoroutine(res):
                            res = await res
                        if res:
                            break
                    if res is None:
                        res = f(req)
                        if iscoroutine(res):
                            res = await res
                    if isinstance(res, int):
                        res = ('', res)
                    if isinstance(res, tuple):
                        if isinstance(res[0], int):
                            res = ('', res[0], res[1] if len(res) > 1 else {})
                        if isinstance(res[1], int):
                            res = Response(res[0], res[1], res[2] if len(res) > 2 else {})
                        else:
                            res = Response(res[0], 200, res[1])
                else:
                    res = await self.error_response(req, f, 'Not found')
            except HTTPException as exc:
                res = await self.error_response(req, exc.status_code, exc.reason)
            except Exception as exc:
                print_exception(exc)
                res = await self.error_response(req, 500, 'Internal server error')
    else:
        res = await self.error_response(req, 400, 'Bad request')
    if isinstance(res, tuple):
        res = Response(*res)
    elif not isinstance(res, Response):
        res = Response(res)
    res.is_head = req and req.method == 'HEAD'
    return res
""",
        "before-request handlers and the route's, the same conversions of what they return;"
        " exceptions answered 500 (no handlers for exception classes), no after-request"
        " handlers, no Vary from request data; handlers called as invoke_handler calls them"
        " (awaited if they return a coroutine) without a coroutine and argument dict per call",
    ),
    (
        "microdot.py",
        "Response.__init__",
        "e8c2886a6cbd",
        """
def __init__(self, body=b'', status_code=200, headers=None, reason=None):
    if body is None and status_code == 200:
        body = ''
        status_code = 204
    self.status_code = status_code
    self.headers = headers or {}
    self.reason = reason
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
        self.headers['Content-Type'] = 'application/json; charset=UTF-8'
    if isinstance(body, str):
        self.body = body.encode()
    else:
        self.body = body
    self.is_head = False
""",
        "the headers dict as given, not a case-insensitive copy: the firmware makes a new dict"
        " for every response and spells every header as Response.write looks it up"
        " (Content-Type, Content-Length)",
    ),
    (
        "microdot.py",
        "Response.write",
        "9c6d931ee1ef",
        """
async def write(self, stream):
    headers = self.headers
    body = self.body
    if isinstance(body, bytes) and 'Content-Length' not in headers:
        headers['Content-Length'] = str(len(body))
    if 'Content-Type' not in headers:
        headers['Content-Type'] = 'text/plain; charset=UTF-8'
    try:
        reason = self.reason
        if reason is None:
            reason = 'OK' if self.status_code == 200 else 'N/A'
        await stream.awrite(('HTTP/1.0 %d %s\\r\\n' % (self.status_code, reason)).encode())
        for header, value in headers.items():
            await stream.awrite(('%s: %s\\r\\n' % (header, value)).encode())
        await stream.awrite(b'\\r\\n')
        if self.is_head:
            pass
        elif hasattr(body, 'read'):
            try:
                n = self.send_file_buffer_size
                while True:
                    buf = body.read(n)
                    if buf:
                        await stream.awrite(buf)
                    if len(buf) < n:
                        break
            finally:
                body.close()
        elif isinstance(body, bytes):
            if body:
                await stream.awrite(body)
        else:
            for piece in body:
                await stream.awrite(piece)
    except OSError as exc:
        if exc.errno in MUTED_SOCKET_ERRORS or exc.args[0] == 'Connection lost':
            pass
        else:
            raise
""",
        "the status line and headers as Microdot writes them (Response.complete's defaults"
        " included; header values are single strings: no cookies), then the body: bytes in one"
        " write, a file in send_file_buffer_size chunks and closed, an iterator's bytes one by"
        " one (/status; the firmware's bodies are these three), without a generator class per"
        " response",
    ),
)

# Names a removed one shares with something else that stays (so a reference is not a call of
# the removed code): attribute names of the streams, sockets and lists the code also uses.
SHARED_NAMES = {
    "close": "streams and sockets have close()",
    "send": "sockets have send()",
    "get": "dicts have get()",
    "update": "hashes have update() (the WebSocket handshake's sha1)",
    "post": "the firmware's own Session.post",
    "put": "the firmware's own jsonbuf.put",
    "patch": "listed for completeness",
    "delete": "listed for completeness",
    "query": "listed for completeness",
    "body": "Response.body is an attribute of responses",
    "stream": "Request(..., stream=...) is a keyword of the constructor",
    "json": "the json module",
    "run": "asyncio.run",
    "after_request": "the 'after_request' handler lists are read by name",
    "after_error_request": "likewise",
}


# `try: import X ... except ImportError: ...` blocks at module level: which branch runs on
# MicroPython, by the module the try imports (the other one is dead code on a board).
BOARD_BRANCHES = {
    "orjson": "except",  # not on MicroPython: the json module
    "inspect": "except",  # not on MicroPython: the plain invoke_handler
    "sys": "try",  # MicroPython has sys.print_exception
}


class TrimError(Exception):
    pass


def _board_branch(tree):
    """Keep only the branch of each module-level ImportError fallback that a board runs."""
    body = []
    for node in tree.body:
        if isinstance(node, ast.Try) and node.handlers:
            first = node.body[0]
            module = None
            if isinstance(first, ast.Import):
                module = first.names[0].name.split(".")[0]
            elif isinstance(first, ast.ImportFrom) and first.module:
                module = first.module.split(".")[0]
            branch = BOARD_BRANCHES.get(module)
            if branch == "try":
                body.extend(node.body)
                continue
            if branch == "except":
                body.extend(node.handlers[0].body)
                continue
        body.append(node)
    tree.body = body


def _find(tree, qualname):
    """(body, index) of the def, class or assignment `qualname` ('f', 'C' or 'C.m') in tree."""
    parts = qualname.split(".")
    body = tree.body
    for part in parts[:-1]:
        for node in body:
            if isinstance(node, ast.ClassDef) and node.name == part:
                body = node.body
                break
        else:
            raise TrimError("no class %s for %s" % (part, qualname))
    name = parts[-1]
    for i, node in enumerate(body):
        defined = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined = node.name
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                defined = target.id
        if defined == name:
            return body, i
    raise TrimError("%s is not in Microdot any more" % qualname)


def _replace(tree, qualname, digest, source):
    """Put `source` (one def) in place of the function `qualname`, if that is still the
    function the replacement was written for (the sha256 of its ast.unparse starts with
    digest)."""
    body, i = _find(tree, qualname)
    found = hashlib.sha256(ast.unparse(body[i]).encode()).hexdigest()
    if not found.startswith(digest):
        raise TrimError(
            "%s changed in this Microdot (sha256 %s, not %s): review its replacement"
            % (qualname, found[:12], digest)
        )
    body[i] = ast.parse(textwrap.dedent(source)).body[0]


def _check_static_routes(firmware_sources):
    """The replaced URLPattern matches static paths: every route() of the firmware must name
    one as a string literal, without a <segment>."""
    for source in firmware_sources:
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "route"
                and not (
                    node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and "<" not in node.args[0].value
                )
            ):
                raise TrimError(
                    "a route that is not a static path: the board's Microdot matches static"
                    " paths only (REPLACEMENTS: URLPattern.match)"
                )


def _check_error_handlers(firmware_sources):
    """The replaced dispatch_request has no handlers for exception classes: the firmware may
    register error handlers for status codes (number literals) only."""
    for source in firmware_sources:
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "errorhandler"
                and not (node.args and isinstance(node.args[0], ast.Constant))
            ):
                raise TrimError(
                    "errorhandler() for an exception class: the board's Microdot "
                    "answers exceptions with 500 (REPLACEMENTS)"
                )


def _check_header_names(firmware_sources):
    """The replaced Request.create keeps a few headers under their lower-case names: the
    firmware may read request headers (`x.headers.get("name")`, `x.headers["name"]`) only by
    one of those names, spelled in lower case."""
    for source in firmware_sources:
        for node in ast.walk(ast.parse(source)):
            key = None
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "headers"
            ):
                key = node.args[0] if node.args else None
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "headers"
            ):
                key = node.slice
            else:
                continue
            if not (isinstance(key, ast.Constant) and key.value in KEPT_HEADERS):
                raise TrimError(
                    "a request header read by another name than %s: the board's Microdot keeps"
                    " only those (REPLACEMENTS: Request.create)" % ", ".join(KEPT_HEADERS)
                )


def _remove(tree, qualname):
    """Delete the def, class or assignment `qualname` ('f', 'C' or 'C.m') from tree."""
    body, i = _find(tree, qualname)
    del body[i]


def _drop_unknown_imports(tree, available):
    """Remove names from `from microdot... import` lines that the trimmed package lacks."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("microdot"):
            node.names = [a for a in node.names if a.name in available.get(node.module, ())]
    tree.body = [
        node for node in tree.body if not (isinstance(node, ast.ImportFrom) and not node.names)
    ]


def _drop_write_only_attributes(trees, firmware_sources):
    """Remove `self.x = name_or_constant` where nothing (Microdot or the firmware) ever reads
    an attribute x: each is a slot in every instance's attribute table for nothing (a request
    keeps six such, left for the body, form and JSON helpers taken out above)."""
    read = set()
    for tree in list(trees) + [ast.parse(source) for source in firmware_sources]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
                read.add(node.attr)
    for tree in trees:
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if not isinstance(body, list):
                continue
            kept = []
            for stmt in body:
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Attribute)
                    and isinstance(stmt.targets[0].value, ast.Name)
                    and stmt.targets[0].value.id == "self"
                    and stmt.targets[0].attr not in read
                    and isinstance(stmt.value, (ast.Name, ast.Constant))
                ):
                    continue
                kept.append(stmt)
            node.body = kept or [ast.Pass()]


def _drop_unused_imports(tree):
    """Take names nothing in the module refers to out of its `from ... import` lines."""
    used = _referenced(tree)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            node.names = [a for a in node.names if (a.asname or a.name) in used]
    tree.body = [
        node for node in tree.body if not (isinstance(node, ast.ImportFrom) and not node.names)
    ]


def _defined_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Try):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(sub.name)
                elif isinstance(sub, ast.ImportFrom):
                    names.update(a.asname or a.name for a in sub.names)
    return names


def _referenced(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def firmware_sources():
    """The source of every firmware module (firmware/**/*.py)."""
    firmware = Path(__file__).resolve().parent.parent / "firmware"
    return [p.read_text() for p in sorted(firmware.rglob("*.py"))]


def trim(package_dir, firmware=None):
    """{file name: trimmed source} for the Microdot files the board needs (microdot.py,
    websocket.py, __init__.py). firmware: the firmware's own sources, searched for uses of
    what is removed (default: this repository's firmware/)."""
    firmware_sources_ = firmware_sources() if firmware is None else firmware
    package_dir = Path(package_dir)
    trees = {}
    for name in ("microdot.py", "websocket.py", "__init__.py"):
        trees[name] = ast.parse((package_dir / name).read_text(), name)
    for name, qualname, digest, source, _ in REPLACEMENTS:
        _replace(trees[name], qualname, digest, source)
    _check_error_handlers(firmware_sources_)
    _check_static_routes(firmware_sources_)
    _check_header_names(firmware_sources_)
    for name, qualname, _ in REMOVALS:
        _remove(trees[name], qualname)
    for tree in trees.values():
        _board_branch(tree)
    _drop_write_only_attributes(trees.values(), firmware_sources_)
    available = {
        "microdot.microdot": _defined_names(trees["microdot.py"]),
        "microdot": _defined_names(trees["microdot.py"]),
        "microdot.helpers": set(),  # not shipped: only websocket_wrapper used it
    }
    for tree in trees.values():
        _drop_unknown_imports(tree, available)
    for name in ("microdot.py", "websocket.py"):
        _drop_unused_imports(trees[name])
    used = set()
    for tree in trees.values():
        used |= _referenced(tree)
    for source in firmware_sources_:
        used |= _referenced(ast.parse(source))
    still = sorted(
        qualname
        for _, qualname, _ in REMOVALS
        if qualname.split(".")[-1] in used and qualname.split(".")[-1] not in SHARED_NAMES
    )
    if still:
        raise TrimError("removed from Microdot but still referred to: " + ", ".join(still))
    return {name: ast.unparse(tree) + "\n" for name, tree in trees.items()}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2):
        print(__doc__.rsplit("\n\n", 1)[-1].strip(), file=sys.stderr)
        return 2
    if len(argv) == 2:
        package = Path(argv[1])
    else:
        import microdot

        package = Path(microdot.__file__).parent
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    try:
        trimmed = trim(package)
    except TrimError as err:
        print("trim_microdot: error: %s" % err, file=sys.stderr)
        return 1
    for name, text in trimmed.items():
        (out / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
