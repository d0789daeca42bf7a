# Tables by construction: each table the firmware, the tools and the page share has one source
# (docs/architecture.md, "One source each"). Refusal codes: each defined once in the firmware
# (tools/refusal_codes.py joins them; the page's table is generated from it at build time,
# host_tests/test_client_refusals.py). The view record's size: game.rules.RECORD_MAX. The match
# log's sizes: game.matchlog's HEADER_SIZE, ENTRY_SIZE, TAIL_SIZE, TAIL_GROUP; its files'
# names: net.journal.log_path. A ruleset's fields by name (game.rulesets.ID, ... BEST_OF).
# game.ruleset_check stays off the board image.
import ast
import re

import build_image
import refusal_codes
from hostenv import FIRMWARE

# 512 in the firmware that is not the record size: a DNS query's classic limit, an HTTP send
# chunk
OTHER_512 = ("net/captive_dns.py", "net/server.py")


def _sources():
    for path in sorted(FIRMWARE.rglob("*.py")):
        yield path.relative_to(FIRMWARE).as_posix(), path.read_text(encoding="utf-8")


def _constants(source):
    """Every str and int constant of the source's code (docstrings included), with its line."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and type(node.value) in (str, int):
            yield node.value, node.lineno


def test_every_refusal_code_is_spelled_once_in_the_firmware():
    codes = set(refusal_codes.all_codes())
    assert len(codes) == len(refusal_codes.all_codes()), "a code in two tables"
    spelled = {}
    for name, source in _sources():
        if name in build_image.HOST_ONLY:
            continue  # never on the board, never on the wire (ruleset_check's own BAD_VALUE)
        for value, line in _constants(source):
            if value in codes:
                spelled.setdefault(value, []).append("%s:%d" % (name, line))
    assert set(spelled) == codes, codes - set(spelled)
    twice = {code: where for code, where in spelled.items() if len(where) > 1}
    assert not twice, twice


def test_the_record_size_has_one_source():
    for name, source in _sources():
        found = [line for value, line in _constants(source) if value == 512]
        if name == "game/rules.py":
            assert len(found) == 1, found  # RECORD_MAX
        elif name not in OTHER_512:
            assert not found, (name, found)


def test_the_logs_sizes_and_file_names_have_one_source():
    for name, source in _sources():
        values = [(value, line) for value, line in _constants(source)]
        if name != "game/matchlog.py":
            assert not [v for v in values if v[0] in (208, 120)], (name, values)
        if name != "net/journal.py":
            assert not [v for v in values if type(v[0]) is str and "match-%" in v[0]], name


def test_rulesets_are_read_by_field_name():
    for name, source in _sources():
        assert not re.search(r"\bruleset\[\d", source), name
        if name in ("game/rulesets.py", "game/replay.py", "net/messages.py", "net/match_host.py"):
            assert not re.search(r"\b(entry|rs|e)\[\d", source), name


def test_ruleset_check_stays_off_the_board_image():
    sources = build_image.package_modules(FIRMWARE, "game")
    names = {p.relative_to(FIRMWARE).as_posix() for p in sources}
    assert "game/ruleset_check.py" not in names
    assert "game/rulesets.py" in names and "game/engine.py" in names
