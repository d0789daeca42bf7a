# Rooms with doors: no firmware module writes another module's attributes or uses its private
# names (docs/architecture.md, "Interfaces"). A module changes another's state only by calling
# its public methods; what it may write is its own: attributes of `self`, attributes its own
# classes define (`self.name = ...` somewhere in the module), objects it made itself from its
# own classes, and the documented settings of outside libraries (Microdot's, asyncio's).
# An AST check of every module in firmware/, like test_host_layout's: it cannot know types,
# so it errs on the strict side (an attribute name counts as the module's own only if one of
# its classes assigns it). One exception, named: net.wiring's drop_boot_code() deletes the
# boot-only functions of long-lived modules (`del portal.board_url`, ...) so their bytecode
# is collected (docs/memory.md); it deletes, it never writes. A boot-only method is deleted by
# setting it to None (`Gateway.arm = None`: MicroPython keeps a class attribute deleted with
# `del` in the class's table, so only None frees its code); nothing else is written there.
import ast
from pathlib import Path

BOOT_CODE_DROP = ("net/wiring.py", "drop_boot_code")

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
FIRMWARE_PACKAGES = ("game", "net")


def _modules():
    return sorted(p for p in FIRMWARE.rglob("*.py") if p.name != "__init__.py")


def _outside_names(tree):
    """Names bound by imports of modules outside the firmware (microdot, asyncio, ...)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in FIRMWARE_PACKAGES:
                    names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] not in FIRMWARE_PACKAGES:
                names.update(alias.asname or alias.name for alias in node.names)
    return names


def _own_names(tree):
    """What the module defines: its classes, functions, globals and every attribute its code
    assigns on `self`/`cls`."""
    classes, own = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            classes.add(node.name)
            own.add(node.name)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    own.add(item.name)
                elif isinstance(item, ast.Assign):
                    own.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                own.add(node.attr)
    for node in tree.body:
        if isinstance(node, ast.Assign):
            own.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return classes, own


def _made_here(function, classes):
    """Local names bound to a new object of one of the module's own classes."""
    made = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id in classes
        ):
            made.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return made


def _root(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def violations(source, name="module"):
    """Every write of another module's attribute and use of another module's private name."""
    tree = ast.parse(source)
    outside = _outside_names(tree)
    classes, own = _own_names(tree)
    found = []
    scopes = [tree] + [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    dropped = set()  # the deletions of BOOT_CODE_DROP
    for scope in scopes:
        if (name, getattr(scope, "name", None)) == BOOT_CODE_DROP:
            dropped.update(
                id(n) for n in ast.walk(scope) if isinstance(getattr(n, "ctx", None), ast.Del)
            )
            for n in ast.walk(scope):  # a method dropped: set to None, nothing else
                if (
                    isinstance(n, ast.Assign)
                    and isinstance(n.value, ast.Constant)
                    and n.value.value is None
                ):
                    dropped.update(id(t) for t in n.targets)
    for scope in scopes:
        made = _made_here(scope, classes)
        for node in ast.walk(scope):
            if id(node) in dropped:
                continue
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                base = node.value
                if isinstance(base, ast.Name) and (
                    base.id in ("self", "cls") or base.id in made or base.id in outside
                ):
                    continue
                if node.attr in own and isinstance(base, ast.Name):
                    continue  # an attribute of the module's own classes
                if _root(base) in outside:
                    continue
                found.append("%s:%d writes %s" % (name, node.lineno, ast.unparse(node)))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                attr = node.attr
                if not attr.startswith("_") or attr.startswith("__"):
                    continue
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if attr in own or _root(base) in outside:
                    continue
                found.append("%s:%d uses %s" % (name, node.lineno, ast.unparse(node)))
    return sorted(set(found))


def test_no_firmware_module_writes_another_modules_attributes_or_uses_its_private_names():
    found = []
    for path in _modules():
        found += violations(path.read_text(encoding="utf-8"), str(path.relative_to(FIRMWARE)))
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_forbids():
    # the kinds of write the firmware had before its interfaces (issue 31's evidence)
    source = """
from net.seats import Seat

class Journal:
    def abort(self, host):
        host.paused = False
        host.match_no += 1
        host._room()
        host.views.match = None
        self.buf = bytearray(4)

def resume(host, j):
    host._ms = 5
    j.seed = None
    seat = Seat(1)
    seat.token = ""
"""
    found = violations(source)
    for text in ("host.paused", "host.match_no", "host._room", "host.views.match", "host._ms"):
        assert any(text in line for line in found), (text, found)
    assert any("j.seed" in line for line in found), found
    # a Seat is another module's class: writing its field is a violation too
    assert any("seat.token" in line for line in found), found
    assert not any("self.buf" in line for line in found), found


def test_the_check_allows_a_modules_own_objects_and_outside_libraries():
    source = """
import asyncio
from microdot import Request

class Board:
    pass

class Session:
    def __init__(self):
        self.done = False

def wire(sessions):
    board = Board()
    board.url = "x"
    Request.max_body_length = 512
    queue = asyncio.core._io_queue
    for session in sessions:
        session.done = True
"""
    assert violations(source) == []


def test_messages_are_framed_on_the_session_side_only():
    # the host, the journal and the message texts hand sessions texts (Session.post_text);
    # only net.messages' maze frames made ahead write a header (docs/architecture.md)
    for name in ("match_host", "journal", "seats", "resume"):
        tree = ast.parse((FIRMWARE / "net" / (name + ".py")).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "net.frames":
                framing = {"frame", "framed", "pieces", "put_header"}
                assert not framing & {a.name for a in node.names}, name
            if isinstance(node, ast.Attribute) and node.attr == "post":
                raise AssertionError("%s posts a frame (.post): hand a text to post_text" % name)
    tree = ast.parse((FIRMWARE / "net" / "messages.py").read_text(encoding="utf-8"))
    imported = [
        a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "net.frames"
        for a in node.names
    ]
    assert imported == ["put_header"], imported


def test_the_boot_code_drop_may_set_methods_to_none_and_nothing_else():
    # net.wiring's drop_boot_code frees boot-only methods by setting them to None (`del` on a
    # class attribute frees nothing in MicroPython); any other write there is still one
    source = """
from net.gateway import Gateway

def drop_boot_code():
    Gateway.arm = None
    Gateway.__init__ = Gateway.accept = None
    Gateway.path = "/x"
"""
    found = violations(source, "net/wiring.py")
    assert found == ["net/wiring.py:7 writes Gateway.path"], found
    assert violations(source.replace("drop_boot_code", "wire"), "net/wiring.py")[:1] == [
        "net/wiring.py:5 writes Gateway.arm"
    ]
