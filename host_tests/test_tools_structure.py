# tools/ as a library with few entry points (docs/architecture.md, "Host tools"): one board-run
# harness, one bot (the only WebSocket player loop), one raw WebSocket client, and a table in
# the architecture document that names every file in tools/ once. Read as text and syntax
# trees: nothing runs.
import ast
import re

from hostenv import ROOT, TOOLS

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _tool_files():
    """Every file of tools/ git would track, as a path relative to tools/ ('dev/x.py')."""
    return sorted(
        path.relative_to(TOOLS).as_posix()
        for path in TOOLS.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".sh")
    )


def _python_sources(*folders):
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text()


def _host_tools_table():
    """The file names in the first column of the "Host tools" table (a cell may name two)."""
    text = ARCHITECTURE.read_text()
    section = text[text.index("## Host tools") :]
    section = section[: section.index("\n## ", 1)] if "\n## " in section[1:] else section
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names += re.findall(r"`([^`]+)`", first)
    return names


def test_the_host_tools_table_names_every_file_in_tools_once():
    files = _tool_files()
    listed = _host_tools_table()
    assert len(files) > 40  # the walk found the library
    assert sorted(set(files) - set(listed)) == [], "files in tools/ missing from the table"
    assert sorted(set(listed) - set(files)) == [], "the table names files that do not exist"
    assert sorted(n for n in set(listed) if listed.count(n) > 1) == [], "named twice"


def test_only_raw_ws_builds_a_websocket_upgrade_or_frames_by_hand():
    # The upgrade request (its key header) and a client frame's mask bit with a length are
    # spelled in raw_ws alone; every other module asks raw_ws (or speaks through the
    # `websockets` library, in ws_game_client).
    upgrade = re.compile(r"Sec-WebSocket-Key: %")
    mask_and_length = re.compile(r"0x80 \| (n|len)\b")
    found = [
        name
        for name, text in _python_sources(TOOLS, ROOT / "host_tests")
        if name not in ("tools/raw_ws.py", "host_tests/test_tools_structure.py")
        and (upgrade.search(text) or mask_and_length.search(text))
    ]
    assert found == []


def _calls(tree, attribute):
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attribute
    ]


def test_only_bot_runner_has_a_player_loop():
    # A player loop: a fog-of-war player's choice of direction sent as a move intent over the
    # socket. tools/fairness.py's bot match plays the engine directly (no socket, no intent).
    loops = []
    for name, text in _python_sources(TOOLS):
        tree = ast.parse(text, name)
        chooses = _calls(tree, "choose")
        moves = [
            call
            for call in _calls(tree, "intent")
            if call.args
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == "move"
        ]
        if chooses and moves:
            loops.append(name)
    assert loops == ["tools/bot_runner.py"]


def test_one_board_run_harness():
    # The runs that boot the board image on a virtual board at a heap do it through
    # tools/board_run.py: none of them starts a VirtualBoard with a served game itself, nor
    # deploys an image on its own.
    runs = ("tools/mem_budget.py", "tools/soak.py", "tools/stress.py")
    for name in runs:
        text = (ROOT / name).read_text()
        assert "from board_run import" in text, name
        assert "serving_env(" not in text, name
        assert "build_image.image_files(" not in text, name
    harness = (TOOLS / "board_run.py").read_text()
    assert "serving_env(" in harness and "build_image.image_files(" in harness
