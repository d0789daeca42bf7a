# Modules that use numbers of game.rules keep private copies (`_OK = const(0)`): MicroPython
# puts a private const's value in the bytecode, so the copy takes no room in the module's
# globals (a public name imported would). This checks, on CPython (where const() is the value
# itself and `_OK` a module attribute), that every such copy still equals the rules' number.
import ast
import importlib

from game import rules
from hostenv import FIRMWARE


def _private_consts(path):
    """Names NAME with a module-level `_NAME = const(...)` in the file at path."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "const"
            and node.targets[0].id.startswith("_")
        ):
            names.append(node.targets[0].id[1:])
    return names


def test_private_copies_equal_the_rules():
    checked = 0
    for path in sorted(FIRMWARE.glob("*/*.py")):
        if path.stem == "rules":
            continue
        module = None
        for name in _private_consts(path):
            if not hasattr(rules, name):
                continue  # a number of the module's own
            if module is None:
                module = importlib.import_module("%s.%s" % (path.parent.name, path.stem))
            assert getattr(module, "_" + name) == getattr(rules, name), (path.name, name)
            checked += 1
    assert checked >= 40  # game.engine's at least
