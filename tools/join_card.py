"""The join card and the join QR codes: how a phone gets onto the board's Wi-Fi and into the game.

    python tools/join_card.py [--settings settings.json] [--ssid NAME] [--url URL] [--out DIR]
    make card [SETTINGS=path/to/settings.json] [SSID=MazeDuel-1A2B]

writes into DIR (default build/card/):
    join-card.svg, join-card.pdf   a printable card (A6): the Wi-Fi QR code, the game's QR code,
                                   the network name, password and address in words
    wifi-qr.png, url-qr.png        the two QR codes alone (wifi-qr only when the network is known)

The QR codes are made by segno (PyPI), never by hand. The Wi-Fi code is the usual
`WIFI:T:WPA;S:<ssid>;P:<password>;;` that phone cameras offer to join; the game's code is the
board's address (http://192.168.4.1/, with the port if settings.json moves it from 80).

The network name comes from --ssid or the board's settings.json (`ssid`): --settings, else
./settings.json, the copy docs/hardware.md fetches from the board. Without a name the board
calls its network MazeDuel-XXXX after its MAC, which no tool can know: the card is not made,
and the message says which option to pass (SSID=, the name the board prints at boot and the
TV shows). tools/build_image.py puts the game's code into the board image (`web/url.svg`); the
TV draws the Wi-Fi's code itself from the board's own name and password (docs/client.md).
"""

import argparse
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "card"
AP_ADDRESS = "192.168.4.1"  # the ESP32 soft access point's own address (MicroPython default)
DEFAULT_PASSWORD = "mazeduel"  # as firmware/net/settings.py


class CardError(Exception):
    pass


def _segno():
    try:
        import segno
        import segno.helpers
    except ImportError:
        raise CardError("segno is missing: run `make venv` (PyPI segno, requirements-dev.txt)")
    return segno


def read_settings(path):
    """The settings.json object at path ({} for None)."""
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise CardError("cannot read the settings %s: %s" % (path, err))
    if not isinstance(data, dict):
        raise CardError("%s is not one JSON object" % path)
    return data


def board_url(settings):
    port = settings.get("http_port", 80)
    if port == 80:
        return "http://%s/" % AP_ADDRESS
    return "http://%s:%d/" % (AP_ADDRESS, port)


def wifi_payload(ssid, password):
    """The Wi-Fi QR text: WIFI:T:WPA;S:...;P:...;; with the format's special characters
    \\ ; , " : escaped by a backslash (as the TV's src/tv.js does)."""

    def escape(text):
        return "".join("\\" + ch if ch in '\\;,":' else ch for ch in text)

    return "WIFI:T:WPA;S:%s;P:%s;;" % (escape(ssid), escape(password))


def qr(text):
    return _segno().make(text, error="m", micro=False)


def qr_svg(text):
    """A compact SVG of the QR code of text: black on white with its quiet zone, sized by its
    viewBox only (the page scales it)."""
    buf = io.BytesIO()
    qr(text).save(
        buf, kind="svg", xmldecl=False, svgns=True, omitsize=True, border=4, nl=False, title=None
    )
    return buf.getvalue()


def lan_address():
    """This machine's address on its local network (the interface of its default route), or
    127.0.0.1 without one. Nothing is sent: connecting a UDP socket only picks the route."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def join_info(settings, ssid=None, url=None):
    """(ssid or None, password, url) for a card or an image."""
    ssid = ssid or settings.get("ssid")
    password = settings.get("password", DEFAULT_PASSWORD)
    return ssid, password, url or board_url(settings)


# ---- the card -------------------------------------------------------------------------------

CARD_W, CARD_H = 298, 420  # A6 in PostScript points (105 x 148 mm)
QR_SIZE = 150  # each code's box, its quiet zone included: 53 mm, the card's width allows two


def _lines(ssid, password, url):
    """(heading, words) of the two steps."""
    wifi = ["Network: %s" % ssid, "Password: %s" % password]
    return [("1. Join the Wi-Fi", wifi), ("2. Open the game", [url])]


def _esc_xml(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _modules(code):
    """(x, y, run length) of every horizontal run of dark modules, quiet zone excluded."""
    for y, row in enumerate(code.matrix):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                yield start, y, x - start
            else:
                x += 1


def _layout(ssid, password, url):
    """What goes where on the card, top-down coordinates in points: texts and QR boxes."""
    texts = [(CARD_W / 2, 26, 18, "Maze Duel", True)]
    boxes = []
    y = 34
    for (heading, words), text in zip(
        _lines(ssid, password, url), (wifi_payload(ssid, password), url)
    ):
        texts.append((CARD_W / 2, y + 10, 12, heading, True))
        y += 12
        boxes.append((text, (CARD_W - QR_SIZE) / 2, y, QR_SIZE))  # the quiet zone in it
        y += QR_SIZE
        for word in words:
            texts.append((CARD_W / 2, y + 4, 10, word, False))
            y += 12
        y += 6
    texts.append(
        (CARD_W / 2, CARD_H - 16, 8, "Point the phone camera at a code, then tap it.", False)
    )
    return texts, boxes


def card_svg(ssid, password, url):
    texts, boxes = _layout(ssid, password, url)
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="105mm" height="148mm" '
        'viewBox="0 0 %d %d">' % (CARD_W, CARD_H),
        '<rect width="100%" height="100%" fill="#fff"/>',
    ]
    for x, y, size, text, bold in texts:
        out.append(
            '<text x="%g" y="%g" font-family="Helvetica,Arial,sans-serif" font-size="%g" '
            'text-anchor="middle"%s>%s</text>'
            % (x, y, size, ' font-weight="bold"' if bold else "", _esc_xml(text))
        )
    for text, x, y, size in boxes:
        code = qr(text)
        n = len(code.matrix)
        unit = size / (n + 8)
        path = "".join("M%d %dh%dv1h-%dz" % (mx, my, w, w) for mx, my, w in _modules(code))
        out.append(
            '<path transform="translate(%g %g) scale(%g)" d="%s"/>'
            % (x + 4 * unit, y + 4 * unit, unit, path)
        )
    out.append("</svg>")
    return ("\n".join(out) + "\n").encode()


def _pdf_text(text):
    data = text.encode("cp1252", "replace")
    return data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def card_pdf(ssid, password, url):
    """The same card as a one-page PDF (vector: the QR modules are filled rectangles; the text
    is in the standard Helvetica fonts, nothing embedded)."""
    texts, boxes = _layout(ssid, password, url)
    ops = []
    for x, y, size, text, bold in texts:
        # centred by an estimate of Helvetica's average width (0.5 em); good enough for a card
        width = 0.5 * size * len(text)
        ops.append(
            b"BT /%s %g Tf %g %g Td (%s) Tj ET"
            % (b"F2" if bold else b"F1", size, x - width / 2, CARD_H - y, _pdf_text(text))
        )
    for text, x, y, size in boxes:
        code = qr(text)
        n = len(code.matrix)
        unit = size / (n + 8)
        for mx, my, w in _modules(code):
            ops.append(
                b"%.3f %.3f %.3f %.3f re f"
                % (x + (mx + 4) * unit, CARD_H - y - (my + 5) * unit, w * unit, unit)
            )
    stream = b"\n".join(ops)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>" % (CARD_W, CARD_H),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def write_card(out, ssid, password, url):
    """Write the card and the QR images into out; returns the paths written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in (
        ("join-card.svg", card_svg(ssid, password, url)),
        ("join-card.pdf", card_pdf(ssid, password, url)),
    ):
        (out / name).write_bytes(data)
        written.append(out / name)
    codes = [("wifi-qr.png", wifi_payload(ssid, password)), ("url-qr.png", url)]
    for name, text in codes:
        qr(text).save(str(out / name), kind="png", scale=10, border=4)
        written.append(out / name)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--settings",
        help="the board's settings.json (ssid, password, http_port); default ./settings.json",
    )
    parser.add_argument("--ssid", help="the network name, when settings.json has none")
    parser.add_argument("--url", help="the game's address (default http://192.168.4.1/)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for the card files")
    parser.add_argument("--lan-address", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.lan_address:  # for tools/run_host.sh (make run LAN=1)
        print(lan_address())
        return 0
    settings = args.settings
    if settings is None and Path("settings.json").is_file():
        settings = "settings.json"  # the board's, fetched as docs/hardware.md says
        print("card: the settings of ./settings.json")
    try:
        ssid, password, url = join_info(read_settings(settings), args.ssid, args.url)
        if not ssid:
            raise CardError(
                "no network name: %s has no ssid. Pass the name the board printed at boot "
                "and the TV shows (make card SSID=MazeDuel-1A2B, or --ssid), or a settings.json "
                "with an ssid (make card SETTINGS=path/to/settings.json)"
                % (settings or "there is no ./settings.json, and it")
            )
        written = write_card(args.out, ssid, password, url)
    except CardError as err:
        print("join_card: error: %s" % err, file=sys.stderr)
        return 2
    for path in written:
        print("card: %s (%d bytes)" % (path, path.stat().st_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
