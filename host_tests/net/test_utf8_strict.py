# net.frames.valid_utf8 against CPython's strict UTF-8 decoder (RFC 3629) on every short byte
# string and many random ones: CPython only (test_frames.py runs under MicroPython too, where
# these 70,000 cases would not fit the test heap).
from net.frames import valid_utf8


def test_valid_utf8_is_cpythons_strict_decoder_on_every_byte_string():
    # RFC 3629 is what CPython's strict decoder accepts: every 1- and 2-byte string, the
    # 3-byte ones from every lead, and random longer ones
    import random

    def strict(data):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    cases = [bytes((a,)) for a in range(256)] + [
        bytes((a, b)) for a in range(256) for b in range(256)
    ]
    cases += [
        bytes((a, b, c))
        for a in range(0xE0, 0x100)
        for b in range(0x70, 0xC8)
        for c in (0x41, 0x80, 0xBF, 0xC0)
    ]
    rng = random.Random(3629)
    for _ in range(20000):
        cases.append(
            bytes(
                rng.choice(
                    (
                        0x41,
                        0x80,
                        0x9F,
                        0xA0,
                        0xBF,
                        0xC2,
                        0xE0,
                        0xED,
                        0xF0,
                        0xF4,
                        0xF5,
                        rng.randrange(256),
                    )
                )
                for _ in range(rng.randrange(1, 9))
            )
        )
    for data in cases:
        assert valid_utf8(data) is strict(data), data
