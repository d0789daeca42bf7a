# The phone client's size budget and self-containment: checked without a browser (never
# skipped). The page is gzipped exactly as tools/build_image.py puts it into the board image.
import re
from pathlib import Path

from build_image import gzip_bytes

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "firmware" / "web"
BUDGET = 16 * 1024  # bytes of gzip, every file of firmware/web/ together


def test_the_client_fits_the_16_kb_gzip_budget():
    total = 0
    for src in sorted(p for p in WEB.rglob("*") if p.is_file()):
        size = len(gzip_bytes(src.read_bytes()))
        print("%s: %d bytes, %d gzipped" % (src.name, src.stat().st_size, size))
        total += size
    print("phone client: %d of %d bytes gzipped" % (total, BUDGET))
    assert 0 < total <= BUDGET


def test_the_client_is_one_page_that_fetches_nothing_from_elsewhere():
    files = sorted(p.name for p in WEB.rglob("*") if p.is_file())
    assert files == ["index.html"]  # the board serves only / and /index.html
    page = (WEB / "index.html").read_text(encoding="utf-8")
    assert "<style>" in page and "<script>" in page
    for pattern in (r"https?://", r"<script[^>]+src=", r"<link\b", r"@import", r"url\(", r"//cdn"):
        assert not re.search(pattern, page, re.I), pattern
    # the only network the page uses: its own origin (/status and the /ws WebSocket)
    assert re.findall(r'fetch\("([^"]+)"', page) == ["/status"]
