# Modules that use numbers of other firmware modules (game.rules, net.frames, ...) keep private
# copies (`_OK = const(0)`): MicroPython puts a private const's value in the bytecode, so the
# copy takes no room in the module's globals (an imported public name would). This checks, on
# CPython (where const() is the value itself and `_OK` a module attribute), that every such
# copy still equals the number it copies.
import ast
import importlib

from hostenv import FIRMWARE


def _consts(path):
    """The names of every module-level `NAME = const(...)` in the file at path."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "const"
        ):
            found.append(node.targets[0].id)
    return found


# Which modules keep copies, and of whose numbers.
COPIES = {
    "game.engine": ("game.rules",),
    "game.placement": ("game.rules",),
    "game.projector": ("game.rules",),
    "game.replay": ("game.matchlog",),
    "net.gateway": ("net.frames", "net.match_host"),
    "net.journal": ("game.matchlog", "net.match_host", "game.rules", "game.rulesets"),
    "net.match_host": ("net.frames", "game.projector", "game.rules", "net.views"),
    "net.messages": ("game.rules",),
    "net.resume": ("game.matchlog", "net.journal"),
    "net.selftest": ("game.rules",),
    "net.views": ("net.frames", "game.projector", "game.rules"),
}


def _path(module):
    return FIRMWARE.joinpath(*module.split(".")).with_suffix(".py")


def test_private_copies_equal_the_public_numbers():
    checked = 0
    for module, origins in COPIES.items():
        copier = importlib.import_module(module)
        for origin in origins:
            source = importlib.import_module(origin)
            # (the origin's own number may be private too: no other module reads its name)
            numbers = [n.lstrip("_") for n in _consts(_path(origin))]
            for name in _consts(_path(module)):
                if name.startswith("_") and name[1:] in numbers:
                    mine = getattr(copier, name)
                    assert mine == getattr(source, name[1:], getattr(source, name, None)), name
                    checked += 1
    assert checked >= 70


def test_projector_copies_of_the_rules_names():
    from game import projector, rules

    assert projector._ENV_V == b'{"v":%d,"t":"view","s":' % rules.PROTOCOL_VERSION
    assert projector._ENV_V_LEN == len(projector._ENV_V)
    for mine, names in (
        (projector._ROLES, rules.ROLE_NAMES),
        (projector._PHASES, rules.PHASE_NAMES),
        (projector._RESULTS, rules.RESULT_NAMES),
    ):
        assert mine == tuple(name.encode() for name in names)
    assert projector._RES_END == bytes(len(name) + 9 for name in rules.RESULT_NAMES)
