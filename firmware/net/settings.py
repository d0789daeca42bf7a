# Board settings: one JSON file (settings.json at the flash root), checked field by field.
# Every field is defined once, in FIELDS. A bad value never stops the board: it is reported as
# a problem naming the field and the fallback, and that field keeps its default. A password that
# is unusable falls back to the default password, never to an open network.
# Used at start only: main.py copies the checked values into a plain object and drops this
# module (docs/memory.md); its functions stay importable for tests and tools.

import errno
import json

from game import rulesets
from game.compat import const
from game.rules import PRESETS
from game.rulesets import DEFAULT, RULESETS, UNKNOWN

SETTINGS_FILE = "settings.json"
DEFAULT_PASSWORD = "mazeduel"  # printed in docs/captive-portal.md; change it in settings.json
DEFAULT_SSID = "MazeDuel"  # used as is when no MAC is available, else "MazeDuel-XXXX"
_MAX_FILE_BYTES = const(2048)  # a full settings file is ~400 bytes: more is a mistake

# The rules presets' names (game.rules.PRESETS owns what each one means).
PRESET_NAMES = tuple(entry[0] for entry in PRESETS)
RULESET_IDS = tuple(entry[rulesets.ID] for entry in RULESETS)

# Kinds of check; lo/hi meaning depends on the kind.
_INT = const(0)  # whole number in lo..hi (true/false is not a number)
_TEXT = const(1)  # string of lo..hi UTF-8 bytes
_PASSPHRASE = const(2)  # string of lo..hi printable ASCII characters (WPA2-PSK passphrase)
_CHOICE = const(3)  # one of the strings in lo

# The one table of fields: (name, default, kind, lo, hi). Output (pairs(), problems) always
# follows this order, never a dict's order. The SSID's default is derived at load time (from
# the MAC); ruleset defaults to None: chosen in the lobby (a ruleset named here is fixed);
# preset, cooldown_ms, countdown_ms and reconnect_grace_ms default to None: the ruleset's own.
FIELDS = (
    ("ssid", None, _TEXT, 1, 32),  # 802.11 limit: 32 bytes
    ("password", DEFAULT_PASSWORD, _PASSPHRASE, 8, 63),  # WPA2 needs 8..63 characters
    ("channel", 6, _INT, 1, 13),  # 2.4 GHz channels allowed in most of the world
    ("max_clients", 8, _INT, 1, 10),  # stations the AP accepts; 10 is the ESP32 IDF cap
    ("ruleset", None, _CHOICE, RULESET_IDS, None),
    ("preset", None, _CHOICE, PRESET_NAMES, None),
    ("cooldown_ms", None, _INT, 100, 2000),  # minimum time between two moves of one player
    ("countdown_ms", None, _INT, 0, 10000),  # "3, 2, 1" before a match starts
    ("max_observers", 4, _INT, 0, 8),  # spectators beside the two players
    ("http_port", 80, _INT, 1, 65535),
    ("dns_port", 53, _INT, 1, 65535),
    ("reconnect_grace_ms", None, _INT, 0, 300000),  # a dropped player may come back this long
    ("idle_timeout_ms", 20000, _INT, 2000, 300000),  # silence after which a client is gone
    # a seated player facing an opponent must say ready within this long or lose the seat; 0: off
    ("ready_timeout_ms", 60000, _INT, 0, 600000),
    # 0: off. Otherwise a hardware watchdog resets the board when its game loop has not run
    # for this long (docs/hardware.md: with it on, stopping the program at the REPL resets too)
    ("watchdog_ms", 0, _INT, 0, 60000),
    # match logs kept on flash (the oldest are deleted; docs/log.md)
    ("log_keep", 8, _INT, 1, 100),
    # moves and drops of both seats in one match: at this many the match ends as a draw, so
    # the room a match's log needs on flash has a bound (docs/log.md)
    ("max_moves", 2000, _INT, 20, 20000),
)


class Settings:
    """Checked settings: one attribute per entry of FIELDS."""

    def __init__(self):
        for field in FIELDS:
            setattr(self, field[0], _default(field))

    def pairs(self):
        """(name, value) for every field, in FIELDS order."""
        return tuple((field[0], getattr(self, field[0])) for field in FIELDS)


def default_ssid():
    """'MazeDuel-XXXX' from the last two bytes of the board's MAC, or 'MazeDuel'."""
    try:
        import machine

        uid = machine.unique_id()  # the Wi-Fi MAC on the ESP32
        return "%s-%02X%02X" % (DEFAULT_SSID, uid[-2], uid[-1])
    except (ImportError, AttributeError, TypeError, IndexError, OSError):
        return DEFAULT_SSID


def load_settings(path=SETTINGS_FILE, overrides=None):
    """Read settings from `path`, then apply `overrides` (a dict, e.g. ports for host runs).

    Returns (settings, problems). A missing file gives the defaults with no problem; every
    other fault is one problem string naming the field and the value used instead.
    """
    settings = Settings()
    problems = []
    raw = _read_object(path, problems)
    if raw is not None:
        update_settings(settings, raw, path, problems)
    if overrides:
        update_settings(settings, overrides, "override", problems)
    return settings, problems


def update_settings(settings, changes, source="change", problems=None):
    """Apply a dict of changes field by field; bad ones are reported and leave the field as is.

    Returns the list of problems (the one given, extended).
    """
    if problems is None:
        problems = []
    for field in FIELDS:
        name = field[0]
        if name in changes:
            value = changes[name]
            reason = _check(field, value)
            if reason is None:
                setattr(settings, name, value)
            else:
                if name == "ruleset":
                    # fail closed: a board meant to play one ruleset plays classic, fixed
                    reason = UNKNOWN + ": " + reason
                    setattr(settings, name, DEFAULT)  # (a field of this module's Settings)
                problems.append(
                    "%s: %s: %s; %s" % (source, name, reason, _fallback(settings, name))
                )
    unknown = sorted(key for key in changes if _field(key) is None)
    for key in unknown:
        problems.append("%s: unknown key %s ignored" % (source, _show(key)))
    return problems


def _read_object(path, problems):
    try:
        f = open(path, "rb")
    except OSError as exc:
        if exc.args and exc.args[0] == errno.ENOENT:
            return None
        problems.append("%s: cannot be read (%s); using defaults for every field" % (path, exc))
        return None
    try:
        data = f.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        problems.append("%s: cannot be read (%s); using defaults for every field" % (path, exc))
        return None
    finally:
        f.close()
    if len(data) > _MAX_FILE_BYTES:
        problems.append(
            "%s: larger than %d bytes; using defaults for every field" % (path, _MAX_FILE_BYTES)
        )
        return None
    try:
        raw = json.loads(data.decode())
    except (ValueError, UnicodeError) as exc:
        problems.append("%s: not valid JSON (%s); using defaults for every field" % (path, exc))
        return None
    if type(raw) is not dict:
        problems.append(
            "%s: must hold one JSON object {...}; using defaults for every field" % path
        )
        return None
    return raw


def _field(name):
    for field in FIELDS:
        if field[0] == name:
            return field
    return None


def _default(field):
    if field[0] == "ssid":
        return default_ssid()
    return field[1]


def _fallback(settings, name):
    if name == "password":
        if settings.password == DEFAULT_PASSWORD:
            return "using the default password"
        return "keeping the password set before"
    value = getattr(settings, name)
    if value is None:
        return "using the ruleset's value"
    return "using %s" % _show(value)


def _check(field, value):
    """None if `value` suits `field`, else the reason (never echoing a password)."""
    kind, lo, hi = field[2], field[3], field[4]
    if kind == _INT:
        if type(value) is not int:
            return "must be a whole number %d..%d, not %s" % (lo, hi, _kind_of(value))
        if value < lo or value > hi:
            return "%d is outside %d..%d" % (value, lo, hi)
        return None
    if type(value) is not str:
        return "must be text in quotes, not %s" % _kind_of(value)
    if kind == _CHOICE:
        if value not in lo:
            return "%s is not one of %s" % (_show(value), ", ".join(lo))
        return None
    if kind == _TEXT:
        size = len(value.encode())
        if size < lo or size > hi:
            return "must be %d..%d bytes long, got %d" % (lo, hi, size)
        return None
    if kind == _PASSPHRASE:
        if len(value) < lo or len(value) > hi:
            return "must be %d..%d characters long, got %d" % (lo, hi, len(value))
        for b in value.encode():  # (bytes: a str's characters would each become a qstr)
            if b < 32 or b > 126:
                return "may hold only printable ASCII characters"
    return None


def _kind_of(value):
    kind = type(value)
    if kind is str:
        return "text"
    if kind is bool:
        return "true/false"
    if kind is int:
        return "a number"
    if kind is float:
        return "a number with decimals"
    if kind is list:
        return "a list"
    if kind is dict:
        return "an object"
    if value is None:
        return "null"
    return "a %s" % kind.__name__


def _show(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
