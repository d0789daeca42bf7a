# Host stand-in for MicroPython's `network` module (unix port only; never uploaded to a board).
# It records every WLAN call in CALLS so tests can check what the firmware asked for, reports
# 127.0.0.1 as the AP address (MAZE_ADDRESS overrides it: `make run LAN=1` sets the laptop's
# own LAN address, the one phones open), and refuses what ESP-IDF refuses (a WPA2 key under 8
# characters).
import os

STA_IF = 0
AP_IF = 1
AUTH_OPEN = 0
AUTH_WEP = 1
AUTH_WPA_PSK = 2
AUTH_WPA2_PSK = 3
AUTH_WPA_WPA2_PSK = 4

CALLS = []  # (interface, method, args) in call order
HOST_ADDRESS = os.getenv("MAZE_ADDRESS") or "127.0.0.1"

_interfaces = {}


class WLAN:
    SEC_OPEN = AUTH_OPEN
    SEC_WEP = AUTH_WEP
    SEC_WPA = AUTH_WPA_PSK
    SEC_WPA2 = AUTH_WPA2_PSK
    SEC_WPA_WPA2 = AUTH_WPA_WPA2_PSK

    IF_STA = STA_IF
    IF_AP = AP_IF

    def __new__(cls, interface=STA_IF):
        # like the ESP32 port: one object per interface
        if interface not in _interfaces:
            wlan = object.__new__(cls)
            wlan._init(interface)
            _interfaces[interface] = wlan
        return _interfaces[interface]

    def __init__(self, interface=STA_IF):
        pass

    def _init(self, interface):
        self.interface = interface
        self._active = False
        self._config = {
            "ssid": "ESP_HOST",
            "key": "",
            "security": AUTH_OPEN,
            "channel": 1,
            "max_clients": 4,
            "mac": b"\x24\x6f\x28\x12\xab\xce",
        }

    def active(self, *state):
        if state:
            CALLS.append((self.interface, "active", state))
            self._active = bool(state[0])
            return None
        return self._active

    def config(self, *names, **options):
        if names:
            return self._config[names[0]]
        CALLS.append((self.interface, "config", dict(options)))
        if "authmode" in options:
            options["security"] = options.pop("authmode")
        for name in options:
            if name not in self._config:
                raise ValueError("unknown config param")
        merged = dict(self._config)
        merged.update(options)
        if merged["security"] != AUTH_OPEN and len(merged["key"]) < 8:
            raise OSError("Wifi Invalid Argument")  # what ESP-IDF answers
        self._config = merged
        return None

    def ifconfig(self, *args):
        return (HOST_ADDRESS, "255.255.255.0", HOST_ADDRESS, HOST_ADDRESS)

    def ipconfig(self, name):
        if name == "addr4":
            return (HOST_ADDRESS, "255.255.255.0")
        raise ValueError("unknown config param")

    def status(self, name=None):
        if name == "stations":
            return []
        return 0

    def isconnected(self):
        return self._active and self.interface == AP_IF
