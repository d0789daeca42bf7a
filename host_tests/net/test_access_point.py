# net.access_point under the MicroPython unix port, against the `network` stand-in of
# tools/hostboard (which records every WLAN call and refuses what ESP-IDF refuses). Checks the
# AP always gets WPA2 and a valid key, across the constant and keyword names of old and new
# MicroPython releases.
import json
import os

import pytest
from waits import until

from host_board import start_host_board, stop_host_board

pytestmark = pytest.mark.upy

SETUP = """
import json
import network
from net.settings import Settings
from net import access_point
settings = Settings()
lines = []
"""

REPORT = """
configs = [c[2] for c in network.CALLS if c[0] == network.AP_IF and c[1] == "config"]
print("RESULT " + json.dumps({"ip": ip, "configs": configs, "log": lines,
    "sta_active": network.WLAN(network.STA_IF).active()}))
"""


def run_ap(run_upy, repo_root, tmp_path, monkeypatch, patch=""):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    code = SETUP + patch + "\nip = access_point.start_access_point(settings, lines.append)\n"
    result = run_upy(code + REPORT, heapsize="64wK", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    line = [x for x in result.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


def test_default_settings_give_a_wpa2_ap(run_upy, repo_root, tmp_path, monkeypatch):
    report = run_ap(run_upy, repo_root, tmp_path, monkeypatch)
    assert report["ip"] == "127.0.0.1"
    assert report["configs"] == [
        {
            "ssid": "MazeDuel-ABCD",
            "key": "mazeduel",
            "security": 3,
            "channel": 6,
            "max_clients": 8,
        }
    ]
    assert report["log"] == [
        "ap: ssid 'MazeDuel-ABCD' channel 6 max_clients 8, WPA2 (default password),"
        " address 127.0.0.1"
    ]


def test_settings_reach_the_radio(run_upy, repo_root, tmp_path, monkeypatch):
    patch = """
settings.ssid = "Duel"
settings.password = "a longer secret"
settings.channel = 11
settings.max_clients = 3
network.WLAN(network.STA_IF).active(True)
"""
    report = run_ap(run_upy, repo_root, tmp_path, monkeypatch, patch)
    config = report["configs"][-1]
    assert (config["ssid"], config["key"], config["channel"], config["max_clients"]) == (
        "Duel",
        "a longer secret",
        11,
        3,
    )
    assert config["security"] == 3
    assert "custom password" in report["log"][0]
    assert report["sta_active"] is False  # the station interface is switched off


def test_unusable_password_never_opens_the_ap(run_upy, repo_root, tmp_path, monkeypatch):
    # settings checks this already; the AP checks again (settings objects can be changed)
    report = run_ap(run_upy, repo_root, tmp_path, monkeypatch, 'settings.password = "short"\n')
    assert report["configs"][-1]["key"] == "mazeduel"
    assert report["configs"][-1]["security"] == 3


def test_no_wpa2_constant_refuses_to_start(run_upy, repo_root, tmp_path, monkeypatch):
    path = [repo_root / "tools" / "hostboard", repo_root / "firmware", ".frozen"]
    monkeypatch.setenv("MICROPYPATH", os.pathsep.join(str(p) for p in path))
    code = (
        SETUP
        + """
delattr(network.WLAN, "SEC_WPA2")
try:
    access_point.start_access_point(settings, lines.append)
    print("STARTED")
except RuntimeError as exc:
    print("REFUSED", exc)
print("CONFIGS", len([c for c in network.CALLS if c[1] == "config"]))
"""
    )
    result = run_upy(code, heapsize="64wK", cwd=tmp_path)
    assert "REFUSED" in result.stdout, result.stdout + result.stderr
    assert "CONFIGS 0" in result.stdout


def test_board_boots_with_a_broken_settings_file(upy_binary, tmp_path):
    settings = (
        '{"ssid": "Duel Night", "password": "short", "channel": 99, "preset": "huge",'
        ' "max_observers": "4", "colour": "red"}'
    )
    board = start_host_board(upy_binary, tmp_path, settings_json=settings)
    try:
        status, _, body = board.get("/status")
        assert status == 200
        info = json.loads(body)
        assert (info["ssid"], info["preset"]) == ("Duel Night", "huge")
        log = board.log()
        assert "settings: settings.json: password: must be 8..63 characters long" in log
        assert "settings: settings.json: channel: 99 is outside 1..13; using 6" in log
        assert "settings: settings.json: max_observers: must be a whole number" in log
        assert "settings: settings.json: unknown key 'colour' ignored" in log
        assert "WPA2 (default password)" in log and "channel 6 " in log
        assert "short" not in log.replace("password: must", "")
    finally:
        stop_host_board(board)


def test_board_boots_with_a_file_that_is_not_json(upy_binary, tmp_path):
    board = start_host_board(upy_binary, tmp_path, settings_json="ssid = MyMaze\n")
    try:
        assert board.get("/generate_204")[0] == 204
        assert "settings.json: not valid JSON" in board.log()
        assert "ap: ssid 'MazeDuel-ABCD' channel 6" in board.log()
    finally:
        stop_host_board(board)


def test_watchdog_is_armed_and_fed_when_set(upy_binary, tmp_path):
    board = start_host_board(upy_binary, tmp_path, settings_json='{"watchdog_ms": 3000}')
    try:
        # a line of the board's log: no event announces it
        until(lambda: "fed 10 times" in board.log(), "the watchdog fed 10 times")
        log = board.log()
        assert "watchdog: the board resets if the game loop stops for 3000 ms" in log
        assert "machine.WDT: armed, timeout 3000 ms" in log
        assert "machine.WDT: fed 10 times" in log  # by the game's timer, every 50 ms
    finally:
        stop_host_board(board)


def test_watchdog_is_off_by_default(upy_binary, tmp_path):
    board = start_host_board(upy_binary, tmp_path)
    try:
        assert board.get("/status")[0] == 200
        assert "machine.WDT" not in board.log()
    finally:
        stop_host_board(board)
