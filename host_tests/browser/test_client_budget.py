# The phone client's size budget and self-containment: checked without a browser (never
# skipped). The budget holds for the page as the board serves it: minified and gzipped exactly
# as tools/build_image.py puts it into the board image. The join QR codes are separate files.
import re
from pathlib import Path

from build_image import gzip_bytes, web_files

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "firmware" / "web"
BUDGET = 16 * 1024  # bytes of gzip: the page as served


def test_the_built_client_fits_the_16_kb_gzip_budget():
    source = (WEB / "index.html").read_bytes()
    built = web_files()["index.html"]
    size = len(gzip_bytes(built))
    print(
        "phone client: source %d bytes (%d gzipped), built %d bytes, %d of %d gzipped"
        % (len(source), len(gzip_bytes(source)), len(built), size, BUDGET)
    )
    assert 0 < size <= BUDGET
    # minified, not emptied: every control and the whole script are still there
    for marker in (b'id="bPlay"', b'id="pad"', b'id="help"', b"window.__md", b"<script>"):
        assert marker.replace(b'"', b"") in built.replace(b'"', b""), marker


def test_the_client_is_one_page_that_fetches_nothing_from_elsewhere():
    files = sorted(p.name for p in WEB.rglob("*") if p.is_file())
    assert files == ["index.html"]  # the source; the QR codes are made by the build
    page = (WEB / "index.html").read_text(encoding="utf-8")
    assert "<style>" in page and "<script>" in page
    for pattern in (r"https?://", r"<script[^>]+src=", r"<link\b", r"@import", r"url\(", r"//cdn"):
        assert not re.search(pattern, page, re.I), pattern
    # the only network the page uses: its own origin (/status, the /ws WebSocket, and the two
    # join QR codes of the board's web/ folder)
    assert re.findall(r'fetch\("([^"]+)"', page) == ["/status"]
    assert sorted(set(re.findall(r"src='([^']+)'", page))) == ["/url.svg", "/wifi.svg"]


def test_the_board_image_serves_the_join_qr_codes_beside_the_page():
    files = web_files(settings={"ssid": "Maze Night", "password": "labyrinth42"})
    assert sorted(files) == ["index.html", "url.svg", "wifi.svg"]
    assert sorted(web_files()) == ["index.html", "url.svg"]  # no network name, no Wi-Fi code
    for name in ("url.svg", "wifi.svg"):
        assert files[name].startswith(b"<svg") and len(gzip_bytes(files[name])) < 2048
