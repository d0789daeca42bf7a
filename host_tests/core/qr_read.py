"""Reading QR codes back as a phone camera would: zxing-cpp's decoder (PyPI zxing-cpp, pinned in
requirements-dev.txt) on an image (a PNG file's bytes: the card's codes, a screenshot of the
TV). The tests that use it check that what the card and the TV show scans to the right text."""

import io


def read_qr(png):
    """The texts of every QR code found in the image `png` (bytes of a PNG), in reading order."""
    import zxingcpp
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    return [code.text for code in found]
