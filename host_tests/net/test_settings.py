# settings.json loading and checking (net.settings), portable: collected by pytest and run under
# the MicroPython unix port by test_portable_on_upy.py. Plain asserts; files go to a scratch
# directory (a temporary one under CPython, the runner's temporary working directory on upy).
import json
import os

from net.settings import (
    DEFAULT_PASSWORD,
    FIELDS,
    Settings,
    load_settings,
    update_settings,
)

try:
    import tempfile
except ImportError:  # MicroPython: the runner's working directory is a scratch directory
    tempfile = None

_scratch = []


def scratch(name):
    if not _scratch:
        _scratch.append(tempfile.mkdtemp() if tempfile else ".")
    return _scratch[0] + "/" + name


def write(name, data):
    path = scratch(name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def load_text(text, name="settings.json"):
    path = write(name, text)
    try:
        return load_settings(path)
    finally:
        os.remove(path)


def load_one(field, value):
    """Load a file that sets only `field` to `value` (any JSON value)."""
    return load_text(json.dumps({field: value}))


DEFAULTS = (
    ("password", DEFAULT_PASSWORD),
    ("channel", 6),
    ("max_clients", 8),
    ("ruleset", None),  # None: chosen in the lobby (classic until then)
    ("preset", None),  # None: the ruleset's own value (game.rulesets.RULESETS)
    ("cooldown_ms", None),
    ("countdown_ms", None),
    ("max_observers", 4),
    ("tv", "players"),  # a TV is sent both players' own views unless "full" (docs/protocol.md)
    ("http_port", 80),
    ("dns_port", 53),
    ("reconnect_grace_ms", None),
    ("idle_timeout_ms", 20000),
    ("ready_timeout_ms", 60000),  # a seat not said ready in time is freed (docs/protocol.md)
    ("watchdog_ms", 0),  # off unless set (docs/hardware.md)
    ("log_keep", 8),  # match logs kept on flash (docs/log.md)
    ("max_moves", 2000),  # a match's length limit: then a draw (docs/log.md)
)


def check_defaults(settings, skip=()):
    for name, value in DEFAULTS:
        if name not in skip:
            assert getattr(settings, name) == value, name
    ssid = settings.ssid
    # "MazeDuel-XXXX" where a MAC is known (the board, the host stand-in), else "MazeDuel"
    assert ssid == "MazeDuel" or (ssid.startswith("MazeDuel-") and len(ssid) == 13), ssid


def test_missing_file_gives_defaults_silently():
    settings, problems = load_settings(scratch("no-such-settings.json"))
    assert problems == []
    check_defaults(settings)


def test_field_table_is_the_one_order():
    names = tuple(field[0] for field in FIELDS)
    assert names[:2] == ("ssid", "password")
    assert tuple(name for name, _ in Settings().pairs()) == names
    assert set(names) == set(name for name, _ in DEFAULTS) | {"ssid"}


def test_valid_file_is_taken_whole():
    values = {
        "ssid": "Duel Room",
        "password": "correct horse",
        "channel": 11,
        "max_clients": 10,
        "preset": "huge",
        "cooldown_ms": 100,
        "countdown_ms": 0,
        "max_observers": 0,
        "http_port": 8080,
        "dns_port": 5353,
        "reconnect_grace_ms": 0,
        "idle_timeout_ms": 300000,
    }
    settings, problems = load_text(json.dumps(values))
    assert problems == []
    for name, value in values.items():
        assert getattr(settings, name) == value, name


BAD_VALUES = (
    # field, bad value, words the problem must contain
    ("ssid", "", "1..32 bytes"),
    ("ssid", "x" * 33, "1..32 bytes"),
    ("ssid", "\u00e9" * 17, "got 34"),  # 17 characters, 34 bytes
    ("ssid", 7, "text"),
    ("channel", 0, "outside 1..13"),
    ("channel", 14, "outside 1..13"),
    ("channel", "6", "whole number"),
    ("channel", 6.0, "whole number"),
    ("channel", True, "whole number"),
    ("channel", None, "null"),
    ("max_clients", 0, "outside 1..10"),
    ("max_clients", 11, "outside 1..10"),
    ("preset", "medium", "small, classic, large, huge"),
    ("preset", "", "not one of"),
    ("preset", ["classic"], "a list"),
    ("cooldown_ms", 99, "outside 100..2000; using the ruleset's value"),
    ("cooldown_ms", 2001, "outside 100..2000"),
    ("countdown_ms", -1, "outside 0..10000"),
    ("countdown_ms", 10001, "outside 0..10000"),
    ("max_observers", 9, "outside 0..8"),
    ("max_observers", -1, "outside 0..8"),
    ("http_port", 0, "outside 1..65535"),
    ("http_port", 65536, "outside 1..65535"),
    ("dns_port", {"port": 53}, "an object"),
    ("reconnect_grace_ms", 300001, "outside 0..300000"),
    ("idle_timeout_ms", 1999, "outside 2000..300000"),
)


def test_each_bad_value_falls_back_with_a_message():
    for name, value, words in BAD_VALUES:
        settings, problems = load_one(name, value)
        assert len(problems) == 1, (name, value, problems)
        problem = problems[0]
        assert problem.startswith(scratch("settings.json") + ": " + name + ": "), problem
        assert words in problem, (words, problem)
        check_defaults(settings)
        default = getattr(settings, name)
        if default is None:  # a ruleset-owned field: the ruleset decides
            assert problem.endswith("; using the ruleset's value"), problem
        elif name != "ssid":
            assert problem.endswith("; using " + repr(default)), problem


def test_an_unknown_ruleset_fails_closed_to_classic_fixed_and_says_so():
    for value in ("nope", "", 3):
        settings, problems = load_one("ruleset", value)
        assert settings.ruleset == "classic"  # fixed: a board meant to play one ruleset
        assert len(problems) == 1 and ": ruleset: UNKNOWN_RULESET: " in problems[0], problems
        assert problems[0].endswith("; using 'classic'"), problems
    settings, problems = load_one("ruleset", "sight")
    assert settings.ruleset == "sight" and problems == []


def test_short_password_falls_back_to_default_never_open():
    for value in ("", "seven77", "x"):
        settings, problems = load_one("password", value)
        assert settings.password == DEFAULT_PASSWORD
        assert len(problems) == 1
        assert "password: must be 8..63 characters long" in problems[0]
        assert problems[0].endswith("using the default password")


def test_bad_passwords_are_not_echoed():
    for value in ("seven77", "p" * 64, "caf\u00e9caf\u00e9", "tab\there!", 12345678, None):
        settings, problems = load_one("password", value)
        assert settings.password == DEFAULT_PASSWORD
        assert len(problems) == 1
        if isinstance(value, str):
            assert value not in problems[0]
    assert len(DEFAULT_PASSWORD) >= 8


def test_good_and_bad_fields_mix():
    text = '{"channel": 1, "max_clients": 99, "preset": "small", "password": "short"}'
    settings, problems = load_text(text)
    assert settings.channel == 1
    assert settings.preset == "small"
    assert settings.max_clients == 8
    assert settings.password == DEFAULT_PASSWORD
    # problems follow the field table, not the file or a dict
    assert [p.split(": ")[1] for p in problems] == ["password", "max_clients"]


def test_unknown_keys_are_reported_in_sorted_order():
    settings, problems = load_text('{"zeta": 1, "channel": 3, "Channel": 4, "alpha": true}')
    assert settings.channel == 3
    assert [p[p.index(": ") + 2 :] for p in problems] == [
        "unknown key 'Channel' ignored",
        "unknown key 'alpha' ignored",
        "unknown key 'zeta' ignored",
    ]


def test_malformed_files_give_defaults_and_one_problem():
    cases = (
        ("", "not valid JSON"),
        ('{"channel": 3', "not valid JSON"),
        ("{'channel': 3}", "not valid JSON"),
        ("channel = 3", "not valid JSON"),
        ("[1, 2]", "one JSON object"),
        ('"text"', "one JSON object"),
        ("null", "one JSON object"),
        (b'{"ssid": "\xff\xfe"}', "not valid JSON"),
        ("{" + " " * 3000 + "}", "larger than 2048 bytes"),
    )
    for text, words in cases:
        settings, problems = load_text(text)
        assert len(problems) == 1, (text, problems)
        assert words in problems[0], problems[0]
        assert problems[0].endswith("using defaults for every field"), problems[0]
        check_defaults(settings)


def test_unreadable_path_gives_defaults():
    path = scratch("settings-dir")
    os.mkdir(path)
    try:
        settings, problems = load_settings(path)
    finally:
        os.rmdir(path)
    check_defaults(settings)
    assert len(problems) == 1
    assert "using defaults for every field" in problems[0]


def test_overrides_apply_after_the_file():
    path = write("settings.json", '{"http_port": 8000, "channel": 3}')
    try:
        settings, problems = load_settings(path, {"http_port": 8080, "dns_port": 5353})
        assert problems == []
        assert (settings.http_port, settings.dns_port, settings.channel) == (8080, 5353, 3)
        settings, problems = load_settings(path, {"http_port": "80x", "bogus": 1})
        assert settings.http_port == 8000  # the file's value stays
        assert problems == [
            "override: http_port: must be a whole number 1..65535, not text; using 8000",
            "override: unknown key 'bogus' ignored",
        ]
    finally:
        os.remove(path)


def test_update_keeps_a_custom_password_on_a_bad_change():
    settings = Settings()
    assert update_settings(settings, {"password": "a good secret"}) == []
    problems = update_settings(settings, {"password": "short"}, "admin")
    assert settings.password == "a good secret"
    assert problems == [
        "admin: password: must be 8..63 characters long, got 5; keeping the password set before"
    ]
