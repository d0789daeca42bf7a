# The join card (tools/join_card.py, `make card`) and the join QR codes of the board image:
# the codes are segno's for the right texts (the Wi-Fi's WIFI:T:WPA;S:...;P:...;; and the
# board's address), the card holds both with the words beside them, the PDF is a well-formed
# one-page document, and without a network name the card says what to join instead.
import re
import subprocess
import sys
from pathlib import Path

import segno

import join_card
from build_image import web_files
from qr_read import read_qr

TOOLS = Path(join_card.__file__).resolve().parent


def modules_of_svg_card(svg, index):
    """The dark modules (x, y) of the index-th QR code drawn on the card."""
    paths = re.findall(rb'<path transform="[^"]*" d="([^"]*)"/>', svg)
    return {
        (int(x) + k, int(y))
        for x, y, w in re.findall(rb"M(\d+) (\d+)h(\d+)", paths[index])
        for k in range(int(w))
    }


def modules_of(text):
    code = segno.make(text, error="m", micro=False)
    return {(x, y) for y, row in enumerate(code.matrix) for x, dark in enumerate(row) if dark}


def test_the_wifi_text_escapes_what_the_format_needs():
    text = join_card.wifi_payload('Maze;Night "2"', "pa:ss\\word")
    assert text == 'WIFI:T:WPA;S:Maze\\;Night \\"2\\";P:pa\\:ss\\\\word;;'
    assert join_card.board_url({}) == "http://192.168.4.1/"
    assert join_card.board_url({"http_port": 8080}) == "http://192.168.4.1:8080/"


def test_the_card_holds_both_codes_and_the_words(tmp_path):
    # run as `make card` runs it, from another working directory
    settings = tmp_path / "settings.json"
    settings.write_text('{"ssid": "Maze Night", "password": "labyrinth42", "http_port": 8080}')
    out = tmp_path / "card"
    done = subprocess.run(
        [
            sys.executable,
            str(TOOLS / "join_card.py"),
            "--settings",
            str(settings),
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "join-card.pdf" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "join-card.pdf",
        "join-card.svg",
        "url-qr.png",
        "wifi-qr.png",
    ]
    svg = (out / "join-card.svg").read_bytes()
    wifi = "WIFI:T:WPA;S:Maze Night;P:labyrinth42;;"
    url = "http://192.168.4.1:8080/"
    assert modules_of_svg_card(svg, 0) == modules_of(wifi)
    assert modules_of_svg_card(svg, 1) == modules_of(url)
    for words in (b"Network: Maze Night", b"Password: labyrinth42", url.encode()):
        assert words in svg
    for name in ("url-qr.png", "wifi-qr.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the PDF: one page, its cross-reference table pointing at every object, the words in it
    pdf = (out / "join-card.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    assert pdf[xref:].startswith(b"xref")
    offsets = [int(line[:10]) for line in pdf[xref:].split(b"\n")[3:9]]
    for number, offset in enumerate(offsets, 1):
        assert pdf[offset:].startswith(b"%d 0 obj" % number)
    assert (
        b"/Count 1" in pdf
        and b"(Network: Maze Night)" in pdf
        and b"(Password: labyrinth42)" in pdf
    )
    # as many filled squares as the two codes have runs of dark modules
    runs = len(list(join_card._modules(join_card.qr(wifi)))) + len(
        list(join_card._modules(join_card.qr(url)))
    )
    assert pdf.count(b" re f") == runs


def test_without_a_network_name_the_card_says_which_option_to_pass(tmp_path):
    done = subprocess.run(
        [sys.executable, str(TOOLS / "join_card.py"), "--out", str(tmp_path / "card")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "no network name" in done.stderr and "SSID=" in done.stderr, done.stderr
    assert not (tmp_path / "card").exists()


def test_the_card_reads_the_boards_settings_json_and_both_codes_scan(tmp_path):
    # ./settings.json, as docs/hardware.md fetches it from the board: no option needed
    (tmp_path / "settings.json").write_text('{"ssid": "Maze;Night", "password": "a:long,secret"}')
    done = subprocess.run(
        [sys.executable, str(TOOLS / "join_card.py"), "--out", str(tmp_path / "card")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "./settings.json" in done.stdout
    card = tmp_path / "card"
    wifi = "WIFI:T:WPA;S:Maze\\;Night;P:a\\:long\\,secret;;"
    assert read_qr((card / "wifi-qr.png").read_bytes()) == [wifi]
    assert read_qr((card / "url-qr.png").read_bytes()) == ["http://192.168.4.1/"]
    svg = (card / "join-card.svg").read_bytes()
    assert b"Network: Maze;Night" in svg and b"Password: a:long,secret" in svg
    # both codes large: 150 pt (53 mm) boxes on the A6 card, the quiet zone included
    texts, boxes = join_card._layout("Maze;Night", "a:long,secret", "http://192.168.4.1/")
    assert [size for _, _, _, size in boxes] == [150, 150]
    bottom = max(y + size for _, _, y, size in boxes)
    assert bottom < join_card.CARD_H - 24  # the address and the footer below, on the card


def test_the_board_image_carries_the_same_address_code():
    files = web_files(settings={"ssid": "Maze Night", "password": "labyrinth42"})
    assert files["url.svg"] == join_card.qr_svg("http://192.168.4.1/")
    # the Wi-Fi's code is drawn by the TV from the board's /status (its name may come from
    # its MAC): host_tests/browser/test_client_tv.py reads it back
    assert "wifi.svg" not in files


def test_the_lan_address_is_an_ipv4_address():
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", join_card.lan_address())
