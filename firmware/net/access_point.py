# The board's own Wi-Fi: a WPA2 soft access point the phones join. Never opened without a key:
# a passphrase ESP-IDF would refuse falls back to the default one. On the unix port, `network`
# is the stand-in from tools/hostboard (put on the path by tools/run_host.sh).
# Used at start only: main.py drops this module once the AP runs (docs/memory.md), and reads
# the station count for /status from its own WLAN object.

import network

from net.settings import DEFAULT_PASSWORD


def wpa2_mode():
    """The WPA2-PSK constant (WLAN.SEC_WPA2, MicroPython 1.20 and newer)."""
    mode = getattr(network.WLAN, "SEC_WPA2", None)
    if mode is None:
        raise RuntimeError("this MicroPython has no WPA2 constant; refusing to open the AP")
    return mode


def start_access_point(settings, log):
    """Bring up the AP from `settings`; returns the board's IP address (e.g. '192.168.4.1')."""
    sta = network.WLAN(network.STA_IF)
    if sta.active():  # left on by an earlier program: it costs RAM and radio time
        sta.active(False)
    ap = network.WLAN(network.AP_IF)
    ap.active(True)
    key = settings.password
    if not 8 <= len(key) <= 63:  # settings already checked this; a second look costs nothing
        key = DEFAULT_PASSWORD
    mode = wpa2_mode()
    options = {
        "ssid": settings.ssid,
        "key": key,
        "channel": settings.channel,
        "max_clients": settings.max_clients,
    }
    ap.config(security=mode, **options)
    ip = ap_address(ap)
    log(
        "ap: ssid %r channel %d max_clients %d, WPA2 (%s password), address %s"
        % (
            settings.ssid,
            settings.channel,
            settings.max_clients,
            "default" if key == DEFAULT_PASSWORD else "custom",
            ip,
        )
    )
    return ip


def ap_address(ap=None):
    """The AP's IPv4 address: ipconfig('addr4') on MicroPython >= 1.24, else ifconfig() (1.23,
    the oldest release the firmware supports, docs/hardware.md)."""
    if ap is None:
        ap = network.WLAN(network.AP_IF)
    try:
        addr = ap.ipconfig("addr4")[0]
    except (AttributeError, ValueError, TypeError, OSError):
        addr = ap.ifconfig()[0]
    return addr
