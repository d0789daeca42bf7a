# The phone client's size budget and self-containment: checked without a browser (never
# skipped). The budget holds for the page as the board serves it: built (the markup and CSS of
# firmware/web/index.html minified, its script bundled from firmware/web/src/ by esbuild) and
# gzipped exactly as tools/build_image.py puts it into the board image. The join QR codes, the
# help's text and the SHA-256 module are separate files, fetched when needed.
import re
from pathlib import Path

from build_image import SCRIPT_TAG, gzip_bytes, web_files

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "firmware" / "web"
BUDGET = 16 * 1024  # bytes of gzip: the page as served
ROOM = 1536  # bytes the page must leave free under the budget (issue 31: room to grow)


def built_size():
    built = web_files()["index.html"]
    return built, len(gzip_bytes(built))


def test_the_built_client_fits_the_16_kb_gzip_budget():
    sources = [WEB / "index.html", *sorted((WEB / "src").glob("*.js"))]
    source = b"".join(p.read_bytes() for p in sources)
    built, size = built_size()
    print(
        "phone client: source %d bytes in %d files (%d gzipped), built %d bytes, "
        "%d of %d gzipped (%d free)"
        % (
            len(source),
            len(sources),
            len(gzip_bytes(source)),
            len(built),
            size,
            BUDGET,
            BUDGET - size,
        )
    )
    assert 0 < size <= BUDGET
    # minified, not emptied: every control and the whole script are still there
    for marker in (b'id="bPlay"', b'id="pad"', b'id="help"', b"window.__md", b"<script>"):
        assert marker.replace(b'"', b"") in built.replace(b'"', b""), marker
    assert b"export " not in built and b"import " not in built  # one bundled script


def test_the_built_client_leaves_room_to_grow():
    # issue 31: 1,536 bytes of the budget stay free (the figure:
    # test_the_built_client_fits_the_16_kb_gzip_budget's output)
    assert built_size()[1] <= BUDGET - ROOM


def test_what_the_page_fetches_when_needed_is_beside_it_and_small():
    # the help's text and the SHA-256 module: files of the board's web/ (flash, not the page's
    # budget), fetched by the page from its own origin only when a player opens the help, and
    # at a match's end
    files = web_files()
    help_text = files["help.html"].decode()
    assert "Carry your key onto your exit" in help_text and help_text.count("<canvas") == 10
    assert "<!--" not in help_text and "<script" not in help_text
    assert "export{" in files["sha256.js"].decode().replace(" ", "")
    assert "Carry your key" not in files["index.html"].decode()
    assert "sha256.js" in files["index.html"].decode()  # imported, not bundled
    for name in ("help.html", "sha256.js"):
        assert len(gzip_bytes(files[name])) < 1024, name


def test_the_client_is_one_page_that_fetches_nothing_from_elsewhere():
    files = sorted(p.relative_to(WEB).as_posix() for p in WEB.rglob("*") if p.is_file())
    # the sources; the QR codes and the refusal module are made by the build
    assert "index.html" in files and "refusals.json" in files and "src/main.js" in files
    assert "help.html" in files and "src/sha256.js" in files  # fetched when needed
    assert all(f.startswith("src/") for f in files if "/" in f), files
    assert [f for f in files if "/" in f and not f.endswith(".js")] == ["src/tv.css"], files
    assert "src/refusals.js" not in files
    shell = (WEB / "index.html").read_text(encoding="utf-8")
    assert "<style>" in shell and shell.count(SCRIPT_TAG) == 1
    page = web_files()["index.html"].decode()
    assert "<style>" in page and "<script>" in page
    for pattern in (r"https?://", r"<script[^>]+src=", r"<link\b", r"@import", r"url\(", r"//cdn"):
        assert not re.search(pattern, page, re.I), pattern
    # the only network the page uses: its own origin (/status, the /ws WebSocket, and the files
    # of the board's web/ folder beside it: the two join QR codes, the help's text, the SHA-256
    # module)
    script = "".join(p.read_text(encoding="utf-8") for p in sorted((WEB / "src").glob("*.js")))
    # (replay.js, a module of its own: the finished match's log, /log?n=N)
    assert sorted(re.findall(r'fetch\("([^"]+)"', script)) == ["/help.html", "/log?n=", "/status"]
    assert sorted(set(re.findall(r"src='([^']+)'", script))) == ["/url.svg"]
    assert sorted(set(re.findall(r"import\(([^)]+)\)", script))) == [
        "REFUSALS",
        "REPLAY_MODULE",
        "SHA256_MODULE",
        "TV_MODULE",
    ]
    assert sorted(re.findall(r'fetch\("([^"]+)"', page)) == ["/help.html", "/status"]
    assert sorted(re.findall(r'"(\./[^"]+)"', page)) == [
        "./refusals.js",
        "./replay.js",
        "./sha256.js",
        "./tv.js",
    ]


def test_the_board_image_serves_the_join_qr_codes_beside_the_page():
    # the address's QR code as a file; the Wi-Fi's is drawn by the TV (tv.js) from /status,
    # whatever the settings (a board without an ssid names its network after its MAC)
    files = web_files(settings={"ssid": "Maze Night", "password": "labyrinth42"})
    assert sorted(files) == [
        "help.html",
        "index.html",
        "refusals.js",
        "replay.js",
        "sha256.js",
        "tv.js",
        "url.svg",
    ]
    assert sorted(web_files()) == sorted(files)
    assert files["url.svg"].startswith(b"<svg") and len(gzip_bytes(files["url.svg"])) < 2048
    qr = files["tv.js"].decode()
    assert "export{" in qr.replace(" ", "") and "import" not in qr  # lean-qr bundled in it
    assert len(gzip_bytes(files["tv.js"])) < 4096  # flash, not the page's budget


def test_the_tvs_styles_ship_in_the_tvs_module_not_in_the_page():
    # src/tv.css, minified into web/tv.js (a phone never loads it); the page keeps none of it
    files = web_files()
    tv = files["tv.js"].decode()
    page = files["index.html"].decode()
    for rule in ("#cards{", ".card h3{", "#res h2{", ".qr figure{", "#jn img{"):
        assert rule.replace("{", "") in tv and rule not in page, rule
    assert "TV_CSS" not in tv  # the build put the styles in its place


def test_the_replay_is_a_module_of_its_own():
    # the instant replay (src/replay.js): fetched by the TV at a match's end and by a phone that
    # asks, never part of the page; it imports nothing (the page lends it its drawing)
    files = web_files()
    replay = files["replay.js"].decode()
    assert "export{" in replay.replace(" ", "") and "import" not in replay
    assert "Skip replay" not in files["index.html"].decode()
    assert "Watch the replay" in files["index.html"].decode()
    assert len(gzip_bytes(files["replay.js"])) < 4608  # flash, not the page's budget
