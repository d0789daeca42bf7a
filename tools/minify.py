"""Short names for the board image: a build step that renames the firmware's own identifiers.

Why: every identifier a module uses (global, function, class, attribute and argument names) is
interned in the board's qstr pool when the module is imported, never freed, and importing from
the filesystem also copies each name's bytes into the heap. The source keeps its readable
names; only the copy compiled into the image is renamed (docs/memory.md has the figures).

Three namespaces are renamed, each consistently across the whole image, and they share the
same short names (a, b, c, ...), so one short qstr serves many names:
- attributes: every attribute name the firmware defines (assigned on an object, or bound in a
  class body: methods, class attributes) gets one short name, used at every access;
- module globals: every global the firmware defines gets one short name, in its module and in
  every `from module import name` and `module.name` elsewhere;
- function locals and arguments: renamed per function (clear of the globals, builtins and
  enclosing names the function sees). An argument that some call passes by keyword gets one
  short name everywhere instead.
Never renamed: module and package names (see short_modules below), dunder names, builtins,
every name of an outside API (Microdot's identifiers, MicroPython's modules and types,
EXTERNAL below, the board-module stand-ins in tools/hostboard) and every identifier-like word
of the firmware's string literals (a name that is also a string may be looked up with
getattr/setattr/hasattr, or be a settings field or a JSON key). A private constant stays
private (`_a`): `_NAME = const(...)` must keep its underscore to stay inlined.

Two more things make the image smaller: a public `NAME = const(number)` is folded into its
value everywhere (`from game.rules import OK` and `rules.OK` become `0`, and the global, its
dictionary entry and its name are gone; MicroPython folds only private `_NAME` consts, and
only inside their module), and functions nothing refers to (test and tool helpers) are left
out.

Module names are not renamed here (files are found by name): short_modules(), run next on
the image's packages, makes their modules flat top-level modules with short names (game.prng
-> c.mpy), and rewrites the imports and the strings naming them.

The renaming is written beside the image (NAMES.txt), to read a board's tracebacks; the module
map comes first ("module c game.prng": a traceback's File "c" is game/prng.py).
"""

import ast
import builtins
import keyword
from pathlib import Path

TOOLS = Path(__file__).resolve().parent

# Names of MicroPython's modules and built-in types that the firmware uses on objects it does
# not define and that CPython's dir() of the same types does not list.
EXTERNAL = {
    "sleep_ms",
    "wait_for_ms",
    "create_task",
    "current_task",
    "Event",
    "CancelledError",
    "readexactly",
    "readline",
    "read",
    "write",
    "drain",
    "out_buf",
    "awrite",
    "aclose",
    "get_extra_info",
    "wait",
    "set",
    "clear",
    "cancel",
    "run",
    "s",
    "start_server",
    "core",
    "ticks_ms",
    "ticks_diff",
    "ticks_add",
    "mem_free",
    "mem_alloc",
    "collect",
    "threshold",
    "const",
    "viper",  # @micropython.viper and the casts of its code (names MicroPython's compiler reads)
    "ptr8",
    "heap_lock",
    "heap_unlock",
    "mem_info",
    "qstr_info",
    "print_exception",
    "urandom",
    "getenv",
    "stat",
    "seek",  # a file's (net.journal's tail; net.selftest's timed file defines one too)
    "modules",
    "path",
    "implementation",
    "ilistdir",
    "setsockopt",
    "setblocking",
    "getaddrinfo",
    "recvfrom",
    "sendto",
    "ipoll",
    "poll",
    "register",
    "unregister",
    "accept",
    "listen",
    "bind",
    "WLAN",
    "AP_IF",
    "STA_IF",
    "SEC_WPA2",
    "active",
    "config",
    "status",
    "ipconfig",
    "ifconfig",
    "unique_id",
    "freq",
    "WDT",
    "feed",
    "loads",
    "dumps",
    "hexlify",
    "b2a_base64",
    "sha1",
    "sha256",
    "digest",
    "update",
    "ENOENT",
    "array",
    "VfsRom",
    "mount",
    "fsync",
    "flush",
    "rename",
    "remove",
}

BUILTIN_NAMES = set(dir(builtins)) | set(keyword.kwlist) | {"const", "self"}


def _python_api_names():
    """dir() of the built-in types and standard modules the firmware's objects come from."""
    import asyncio
    import re
    import select
    import socket

    names = set(BUILTIN_NAMES)
    for kind in (str, bytes, bytearray, memoryview, list, dict, tuple, set, int, object):
        names |= set(dir(kind))
    kinds = (Exception, asyncio.Event, asyncio.Task, asyncio.StreamWriter, socket.socket)
    for kind in kinds + (re.Pattern, re.Match):
        names |= set(dir(kind))
    for module in (asyncio, re, socket, select):
        names |= set(dir(module))
    return names


def identifiers(tree):
    """Every identifier a syntax tree uses or defines."""
    names = set()
    for node in ast.walk(tree):
        names.update(_names_of(node))
        if isinstance(node, ast.alias):
            names.update(node.name.split("."))
            if node.asname:
                names.add(node.asname)
    return names


def _names_of(node):
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        return (node.attr,)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.keyword) and node.arg:
        return (node.arg,)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return tuple(node.names)
    return ()


def string_words(tree):
    """The string literals of a tree that are one identifier each ("ssid", "sleep_ms"): the
    names getattr/setattr/hasattr and tables of field names use. (Words inside longer texts,
    such as JSON templates and log lines, are not looked up. Docstrings are not code.)"""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and node.value.isidentifier():
                words.add(node.value)
    return words


def short_names():
    """a .. z, A .. Z, then two characters and more, in order."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    tail = letters + "0123456789"
    yield from letters
    prefixes = list(letters)
    while True:
        longer = []
        for prefix in prefixes:
            for ch in tail:
                name = prefix + ch
                yield name
                longer.append(name)
        prefixes = longer


# ---- what each module binds ---------------------------------------------------------------


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


def _targets(node):
    """Names bound by an assignment target."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        out = []
        for elt in node.elts:
            out += _targets(elt)
        return out
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return []


def _scope_bindings(body):
    """(bound, globals, nonlocals) of one scope's statements, not looking into nested
    functions, classes, lambdas or comprehensions (whose names they bind are counted)."""
    bound = []
    declared_global = set()
    declared_nonlocal = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.append(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp)):
            continue
        if isinstance(node, ast.GeneratorExp):
            continue
        if isinstance(node, ast.Global):
            declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            declared_nonlocal.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.append(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.append(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.NamedExpr):
            bound += _targets(node.target)
        stack.extend(ast.iter_child_nodes(node))
    seen = []
    for name in bound:
        if name not in seen and name not in declared_global and name not in declared_nonlocal:
            seen.append(name)
    return seen, declared_global, declared_nonlocal


class Program:
    """The firmware's modules, what they define and how they refer to each other."""

    def __init__(self, sources):
        self.trees = {}
        self.module_of = {}  # path -> dotted module name
        for path, text in sources.items():
            self.trees[path] = ast.parse(text, path)
            name = path[:-3].replace("/", ".")
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            self.module_of[path] = name
        self.modules = set(self.module_of.values())
        for name in list(self.modules):  # packages too
            while "." in name:
                name = name.rsplit(".", 1)[0]
                self.modules.add(name)
        self.module_parts = set()
        for name in self.modules:
            self.module_parts.update(name.split("."))

    def is_module(self, dotted):
        return dotted in self.modules

    def module_aliases(self, path):
        """{local name: dotted module} for the module-level imports of one of our modules."""
        aliases = {}
        for node in ast.walk(self.trees[path]):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = node.module + "." + alias.name
                    if self.is_module(full):
                        aliases[alias.asname or alias.name] = full
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if self.is_module(alias.name):
                        aliases[alias.asname or alias.name.split(".")[0]] = (
                            alias.name if alias.asname else alias.name.split(".")[0]
                        )
        return aliases


# ---- the plan -------------------------------------------------------------------------------


class Plan:
    """The three renamings: globals, attributes and keyword arguments ({old: new} each)."""

    def __init__(self, program, keep):
        self.program = program
        self.keep = keep
        globals_, attrs, keywords, params = set(), set(), set(), set()
        self.functions = set()  # names of the program's functions and methods
        self.classes = set()
        counts = {}
        for tree in program.trees.values():
            bound, _, _ = _scope_bindings(tree.body)
            globals_.update(bound)
            for node in ast.walk(tree):
                for name in _names_of(node):
                    counts[name] = counts.get(name, 0) + 1
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    attrs.add(node.attr)
                elif isinstance(node, ast.ClassDef):
                    bound, _, _ = _scope_bindings(node.body)
                    attrs.update(bound)
                elif isinstance(node, (ast.Global,)):
                    globals_.update(node.names)
                elif isinstance(node, ast.keyword) and node.arg:
                    keywords.add(node.arg)
                elif isinstance(node, ast.arguments):
                    params.update(arg.arg for arg in _all_args(node))
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.add(node.name)
                elif isinstance(node, ast.ClassDef):
                    self.classes.add(node.name)
        self.keyword_names = keywords
        # `_NAME = const(...)` is inlined by the compiler only while its name is private
        self.private_consts = set()
        for tree in program.trees.values():
            for node in tree.body:
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "const"
                ):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id.startswith("_"):
                            self.private_consts.add(target.id)
        self.consts, self.const_module = _public_consts(program, keep)
        # a parameter passed by keyword under a name that stays (short, or kept) keeps it in
        # its function: no global may take that name, or the parameter would hide it
        staying = {k for k in keywords & params if len(k) <= 2 or not self.renamable(k)}
        self.globals = self._assign(globals_, counts, private=self.private_consts, avoid=staying)
        self.attrs = self._assign(attrs, counts)
        # a keyword is renamed only where it names a parameter of the program's own functions
        # (one given to an outside function, e.g. WLAN.config(security=...), stays)
        # keyword-passed parameters are locals with a program-wide name: that name must not
        # be a global's, or the parameter would hide the global in its function
        taken = set(self.globals.values()) | {g for g in globals_ if g not in self.globals}
        self.keywords = self._assign(keywords & params, counts, avoid=taken)

    def renamable(self, name):
        return (
            name not in self.keep
            and name not in self.program.module_parts
            and not _is_dunder(name)
            and name not in BUILTIN_NAMES
        )

    def _assign(self, names, counts, private=(), avoid=()):
        """Short names for names, most used first; names of two characters or less, and
        those that may not change, keep their own (and nobody else gets them). Names in
        `private` get a short name that starts with an underscore; none gets one in avoid."""
        mapping = {}
        used = {name for name in names if len(name) <= 2 or not self.renamable(name)}
        used |= set(avoid)
        shorts = {False: short_names(), True: short_names()}
        for name in sorted(names - used, key=lambda n: (-counts.get(n, 0), n)):
            underscore = name in private
            while True:
                new = ("_" if underscore else "") + next(shorts[underscore])
                if (
                    new not in used
                    and new not in self.keep
                    and new not in BUILTIN_NAMES
                    and new not in self.program.module_parts
                ):
                    break
            mapping[name] = new
            used.add(new)
        return mapping


# ---- the rewrite ----------------------------------------------------------------------------


class _Scope:
    def __init__(self, kind, names=None, parent=None):
        self.kind = kind  # "module", "class", "function"
        self.names = names or {}  # local renames (function scopes; class-body bindings)
        self.parent = parent
        self.class_bound = set()  # class body: names bound so far in it


class Renamer(ast.NodeTransformer):
    """Rewrites one module with the Plan's renamings and per-function local names."""

    def __init__(self, plan, path):
        self.plan = plan
        self.path = path
        self.aliases = plan.program.module_aliases(path)
        self.scope = _Scope("module")
        # a module's globals, as renamed: no local may take one (an assignment to a name that
        # the module made a const() is a compile error, and a local would hide the global)
        bound = _scope_bindings(plan.program.trees[path].body)[0]
        self.module_names = {self._global_new(name) for name in bound} | set(bound)
        # public const() globals folded into their value: those this module defines or imports
        # from their module (so `from game.rules import OK` and `rules.OK` become 0)
        module = plan.program.module_of[path]
        self.consts = set()
        for name, home in plan.const_module.items():
            if home == module:
                self.consts.add(name)
        for node in plan.program.trees[path].body:
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                for alias in node.names:
                    if plan.const_module.get(alias.name) == node.module and not alias.asname:
                        self.consts.add(alias.name)

    # -- name resolution --

    def _global_new(self, name):
        return self.plan.globals.get(name, name)

    def _resolve(self, name, store=False):
        scope = self.scope
        if scope.kind == "class":
            if store or name in scope.class_bound:
                return self.plan.attrs.get(name, name)
            scope = scope.parent
        while scope is not None and scope.kind == "function":
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
            while scope is not None and scope.kind == "class":  # class bodies are not seen
                scope = scope.parent
        if name in self.aliases or name in BUILTIN_NAMES:
            return name
        return self._global_new(name)

    def _is_global(self, name):
        """True when name, read here, is the module's global (no local, enclosing or class
        binding hides it)."""
        scope = self.scope
        if scope.kind == "class":
            if name in scope.class_bound:
                return False
            scope = scope.parent
        while scope is not None and scope.kind == "function":
            if name in scope.names:
                return False
            scope = scope.parent
            while scope is not None and scope.kind == "class":
                scope = scope.parent
        return True

    # -- visitors --

    def visit_Name(self, node):
        store = isinstance(node.ctx, (ast.Store, ast.Del))
        old = node.id
        if not store and old in self.consts and self._is_global(old):
            return ast.copy_location(ast.Constant(self.plan.consts[old]), node)
        node.id = self._resolve(old, store)
        if self.scope.kind == "class" and store:
            self.scope.class_bound.add(old)
        return node

    def visit_Attribute(self, node):
        base = node.value
        if (
            isinstance(base, ast.Name)
            and base.id in self.aliases
            and self.plan.const_module.get(node.attr) == self.aliases[base.id]
            and isinstance(node.ctx, ast.Load)
        ):
            return ast.copy_location(ast.Constant(self.plan.consts[node.attr]), node)
        self.generic_visit(node)
        base = node.value
        if isinstance(base, ast.Name) and base.id in self.aliases:
            node.attr = self._global_new(node.attr)  # module.name: a global of that module
        else:
            node.attr = self.plan.attrs.get(node.attr, node.attr)
        return node

    def visit_Call(self, node):
        # Keywords are renamed only in calls of the program's own functions (a method call on
        # a name the program never defines as a function, e.g. str.format or WLAN.config, or
        # a call of an imported outside name, keeps its keywords).
        func = node.func
        if isinstance(func, ast.Attribute):
            ours = func.attr in self.plan.functions
        elif isinstance(func, ast.Name):
            ours = func.id in self.plan.functions or func.id in self.plan.classes
        else:
            ours = False
        self.generic_visit(node)
        if ours:
            for keyword_node in node.keywords:
                if keyword_node.arg:
                    keyword_node.arg = self.plan.keywords.get(keyword_node.arg, keyword_node.arg)
        return node

    def visit_ImportFrom(self, node):
        ours = node.module and node.level == 0 and self.plan.program.is_module(node.module)
        if ours:
            node.names = [
                alias
                for alias in node.names
                if not (self.plan.const_module.get(alias.name) == node.module and not alias.asname)
            ]
            if not node.names:
                return None  # every name it brought was a folded const
        for alias in node.names:
            if not ours or self.plan.program.is_module(node.module + "." + alias.name):
                continue
            new = self._global_new(alias.name)
            local = alias.asname or alias.name
            local_new = self._resolve(local, store=True)
            alias.name = new
            alias.asname = None if local_new == new else local_new
        return node

    def visit_ExceptHandler(self, node):
        if node.type is not None:
            node.type = self.visit(node.type)
        if node.name:
            node.name = self._resolve(node.name, store=True)
        node.body = [self.visit(stmt) for stmt in node.body]
        return node

    def visit_Global(self, node):
        node.names = [self._global_new(name) for name in node.names]
        return node

    def visit_Nonlocal(self, node):
        node.names = [self._resolve(name) for name in node.names]
        return node

    def visit_Assign(self, node):
        if (
            self.scope.kind == "module"
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and self.plan.const_module.get(node.targets[0].id)
            == self.plan.program.module_of[self.path]
        ):
            return None  # a folded const: every use now holds its value
        self.generic_visit(node)
        return node

    def visit_ClassDef(self, node):
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.name = self._resolve(node.name, store=True)
        outer = self.scope
        self.scope = _Scope("class", parent=outer)
        node.body = [self.visit(stmt) for stmt in node.body]
        self.scope = outer
        _drop_docstring(node)
        return node

    def _function(self, node, name_attr=True):
        # decorators, defaults and annotations belong to the enclosing scope
        args = node.args
        args.defaults = [self.visit(default) for default in args.defaults]
        args.kw_defaults = [
            None if default is None else self.visit(default) for default in args.kw_defaults
        ]
        if hasattr(node, "decorator_list"):
            node.decorator_list = [self.visit(d) for d in node.decorator_list]
        if name_attr:
            if self.scope.kind == "class":
                self.scope.class_bound.add(node.name)
                node.name = self.plan.attrs.get(node.name, node.name)
            else:
                node.name = self._resolve(node.name, store=True)
        outer = self.scope
        body = node.body if isinstance(node.body, list) else [node.body]
        self.scope = _Scope("function", self._locals(node, body, outer), outer)
        typed = _viper(node)  # a viper function's annotations are its types: they stay
        for arg in _all_args(args):
            arg.arg = self.scope.names.get(arg.arg, arg.arg)
            if not typed:
                arg.annotation = None
        if isinstance(node.body, list):
            node.body = [self.visit(stmt) for stmt in node.body]
            _drop_docstring(node)
        else:
            node.body = self.visit(node.body)
        self.scope = outer
        if hasattr(node, "returns") and not typed:
            node.returns = None
        return node

    def visit_FunctionDef(self, node):
        return self._function(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return self._function(node, name_attr=False)

    def _comprehension(self, node):
        # the first iterable is evaluated in the enclosing scope
        first = node.generators[0]
        first.iter = self.visit(first.iter)
        outer = self.scope
        targets = []
        for gen in node.generators:
            targets += _targets(gen.target)
        self.scope = _Scope("function", self._fresh(targets, [node], outer), outer)
        for i, gen in enumerate(node.generators):
            gen.target = self.visit(gen.target)
            if i:
                gen.iter = self.visit(gen.iter)
            gen.ifs = [self.visit(cond) for cond in gen.ifs]
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                setattr(node, field, self.visit(getattr(node, field)))
        self.scope = outer
        return node

    visit_ListComp = _comprehension
    visit_SetComp = _comprehension
    visit_DictComp = _comprehension
    visit_GeneratorExp = _comprehension

    # -- local names --

    def _locals(self, node, body, outer):
        bound, _, nonlocals = _scope_bindings(body)
        names = [arg.arg for arg in _all_args(node.args)]
        names += [name for name in bound if name not in names]
        return self._fresh(names, body, outer, node.args)

    def _fresh(self, names, body, outer, args=None):
        """New names for a scope's locals: keyword-passed arguments take their program-wide
        name, names bound by `from our_module import x` their global's name, the rest the
        next short names clear of everything the scope's code can see."""
        forced = {}
        if args is not None:
            for arg in _all_args(args):
                if arg.arg in self.plan.keyword_names:
                    forced[arg.arg] = self.plan.keywords.get(arg.arg, arg.arg)
        for stmt in body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.ImportFrom):
                    ours = sub.module and self.plan.program.is_module(sub.module)
                    for alias in sub.names:
                        local = alias.asname or alias.name
                        if ours and not self.plan.program.is_module(sub.module + "." + alias.name):
                            forced[local] = self._global_new(alias.name)
                        else:
                            forced[local] = local
                elif isinstance(sub, ast.Import):
                    for alias in sub.names:
                        local = alias.asname or alias.name.split(".")[0]
                        forced[local] = local
        avoid = set(forced.values())
        # everything the scope's code (nested scopes included) can see from outside
        local_set = set(names)
        for stmt in body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Name) and sub.id not in local_set:
                    avoid.add(self._resolve(sub.id))
                    avoid.add(sub.id)
        scope = outer
        while scope is not None:
            avoid.update(scope.names.values())
            scope = scope.parent
        avoid |= BUILTIN_NAMES | set(self.aliases) | self.module_names
        mapping = {}
        shorts = short_names()
        for name in names:
            if name in forced:
                mapping[name] = forced[name]
                continue
            if _is_dunder(name):
                mapping[name] = name
                continue
            while True:
                new = next(shorts)
                if new not in avoid and new not in mapping.values():
                    break
            mapping[name] = new
            avoid.add(new)
        return mapping


def _const_value(node, known):
    """The int value of a const() argument made of int literals, known consts and + - * // <<
    >> | & ~, or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
        value = _const_value(node.operand, known)
        if value is None:
            return None
        return -value if isinstance(node.op, ast.USub) else ~value
    if isinstance(node, ast.BinOp):
        a = _const_value(node.left, known)
        b = _const_value(node.right, known)
        if a is None or b is None:
            return None
        for kind, fn in (
            (ast.Add, lambda x, y: x + y),
            (ast.Sub, lambda x, y: x - y),
            (ast.Mult, lambda x, y: x * y),
            (ast.FloorDiv, lambda x, y: x // y),
            (ast.LShift, lambda x, y: x << y),
            (ast.RShift, lambda x, y: x >> y),
            (ast.BitOr, lambda x, y: x | y),
            (ast.BitAnd, lambda x, y: x & y),
        ):
            if isinstance(node.op, kind):
                return fn(a, b)
    return None


def _public_consts(program, keep):
    """({name: value}, {name: module}) of the public `NAME = const(...)` globals that can be
    folded into their value everywhere: an int, defined once in the program, never named by a
    string (which could look it up)."""
    values, homes, twice = {}, {}, set()
    for path, tree in program.trees.items():
        known = {}
        for node in tree.body:
            if not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "const"
                and len(node.value.args) == 1
            ):
                continue
            name = node.targets[0].id
            value = _const_value(node.value.args[0], known)
            if value is None:
                continue
            known[name] = value
            if name.startswith("_") or name in keep:
                continue
            if name in homes:
                twice.add(name)
            values[name] = value
            homes[name] = program.module_of[path]
    for name in twice:
        del values[name]
        del homes[name]
    return values, homes


def _all_args(args):
    out = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    if args.vararg:
        out.append(args.vararg)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def _viper(node):
    """True for a function decorated @micropython.viper: its annotations (int, ptr8, ..)
    are the types its machine code works with, read by MicroPython's compiler."""
    for d in getattr(node, "decorator_list", ()):
        if (
            isinstance(d, ast.Attribute)
            and d.attr == "viper"
            and isinstance(d.value, ast.Name)
            and d.value.id == "micropython"
        ):
            return True
    return False


def _drop_docstring(node):
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        if len(body) == 1:
            body[0] = ast.Pass()
        else:
            del body[0]


def _imported_names(program):
    """Names bound by `import x` (modules) and by imports from outside modules (their API):
    neither is ours to rename. (`from our_module import x` is renamed with x's module.)"""
    names = set()
    for tree in program.trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                ours = node.level == 0 and node.module and program.is_module(node.module)
                for alias in node.names:
                    if not ours:
                        names.add(alias.name)
                        names.add(alias.asname or alias.name)
    return names


def keep_set(trees, extra_sources=()):
    """Names that are never renamed (see the module docstring)."""
    keep = set(EXTERNAL) | _python_api_names()
    for tree in trees:
        keep |= string_words(tree)
    for source in extra_sources:
        tree = ast.parse(source)
        keep |= identifiers(tree) | string_words(tree)
    return keep


def minify(sources, extra_sources=(), entry_points=("boot.py", "main.py"), keep_names=()):
    """Rename the identifiers of {path: source} (paths as on the board's sys.path, e.g.
    'game/rules.py', 'microdot/microdot.py'); returns ({path: new source}, report lines).
    extra_sources: outside code whose names must stay (the board stand-ins). The module-level
    names of the entry points (run by the board: main.run) stay, and so do keep_names (names
    built at run time, e.g. by string concatenation, or called by the tools: wire)."""
    program = Program(sources)
    keep = keep_set(program.trees.values(), extra_sources) | set(keep_names)
    keep |= _imported_names(program)
    for path in entry_points:
        if path in program.trees:
            keep |= set(_scope_bindings(program.trees[path].body)[0])
    removed = shake(program.trees.values(), keep)
    plan = Plan(program, keep)
    out = {}
    for path, tree in program.trees.items():
        tree = Renamer(plan, path).visit(tree)
        _drop_docstring(tree)
        ast.fix_missing_locations(tree)
        out[path] = ast.unparse(tree) + "\n"
    report = ["removed %s" % name for name in sorted(removed)]
    for title, mapping in (
        ("global", plan.globals),
        ("attribute", plan.attrs),
        ("keyword", plan.keywords),
    ):
        for old, new in sorted(mapping.items()):
            report.append("%s %s %s" % (title, new, old))
    return out, report


def shake(trees, keep):
    """Take out the functions and methods nothing in the program refers to (by name, as an
    attribute, or in a string), until none is left: test and tool helpers that the board
    never calls cost it heap for nothing. Dunder methods and kept names stay. Returns the
    names removed."""
    removed = set()
    while True:
        used = set(keep)
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Name):
                    used.add(node.id)
                elif isinstance(node, ast.Attribute):
                    used.add(node.attr)
                elif isinstance(node, ast.alias):
                    used.add(node.name)
                    used.add(node.asname or node.name)
        found = False
        for tree in trees:
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if not isinstance(node, (ast.Module, ast.ClassDef)) or not body:
                    continue
                kept = []
                for stmt in body:
                    if (
                        isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and stmt.name not in used
                        and not _is_dunder(stmt.name)
                    ):
                        removed.add(stmt.name)
                        found = True
                        continue
                    kept.append(stmt)
                node.body = kept or [ast.Pass()]
        if not found:
            return removed


def hostboard_sources():
    """The board-module stand-ins: their names are the board's API, never renamed."""
    return [p.read_text() for p in sorted((TOOLS / "hostboard").glob("*.py"))]


# ---- module names ---------------------------------------------------------------------------

# Names a flat module of the image may not take: the board's own modules (built in, frozen or
# in /lib) and the image's other top-level names. A flat module shadows nothing on the path.
TAKEN_MODULE_NAMES = {
    "array",
    "asyncio",
    "binascii",
    "boot",
    "btree",
    "cmath",
    "collections",
    "cryptolib",
    "deflate",
    "errno",
    "esp",
    "esp32",
    "espnow",
    "framebuf",
    "gc",
    "hashlib",
    "heapq",
    "io",
    "json",
    "lib",
    "machine",
    "main",
    "math",
    "microdot",
    "micropython",
    "mip",
    "neopixel",
    "network",
    "ntptime",
    "onewire",
    "os",
    "platform",
    "random",
    "re",
    "requests",
    "select",
    "socket",
    "ssl",
    "struct",
    "sys",
    "time",
    "tls",
    "uctypes",
    "vfs",
    "web",
    "websocket",
}


def module_name_of(path):
    """The dotted module name of a path on sys.path ('game/rules.py' -> 'game.rules')."""
    name = path[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def _empty(text, path):
    return all(isinstance(stmt, ast.Pass) for stmt in ast.parse(text, path).body)


def short_modules(sources, packages):
    """Flatten the modules of `packages` ({path: source}, after minify()) into top-level modules
    with short names, so that importing one interns one new name (its file's, 'a.mpy') instead
    of three long ones (the dotted name, the name bound on its package, the file's path): the
    short names are those minify() already gave identifiers (lowercase only: the image must
    also fit a case-insensitive file system). Returns ({path: source}, report lines
    "module <short> <dotted>").

    A package's __init__ becomes a module of its own (`from microdot import Microdot` ->
    `from m import Microdot`), or is left out when it is empty (`from game import rules` only
    needs game.rules). Rewritten in every module: `from pkg.mod import x` (-> `from m import
    x`), `from pkg import mod` (-> `import m`, or `import m as n` where the name m is taken in
    that module; every use of the name follows) and every string that is exactly a dotted
    module name (sys.modules keys, __import__ arguments)."""
    packages = tuple(packages)

    def flattened(path):
        return path.split("/", 1)[0] in packages

    mine = sorted(
        path
        for path, text in sources.items()
        if flattened(path) and not (path.endswith("/__init__.py") and _empty(text, path))
    )
    others = {module_name_of(p).split(".")[0] for p in sources if not flattened(p)}
    flat = {}  # dotted name -> short name
    names = short_names()
    for path in mine:
        while True:
            new = next(names)
            if new.islower() and new not in TAKEN_MODULE_NAMES and new not in others:
                break
        flat[module_name_of(path)] = new
    out = {}
    for path, text in sources.items():
        if flattened(path) and path not in mine:
            continue  # an empty __init__
        tree = _ModuleRenamer(flat, path).rewrite(ast.parse(text, path))
        new_path = flat[module_name_of(path)] + ".py" if flattened(path) else path
        out[new_path] = ast.unparse(tree) + "\n"
    report = ["module %s %s" % (new, old) for old, new in sorted(flat.items())]
    return out, report


class _ModuleRenamer(ast.NodeTransformer):
    """One module's imports of the flattened modules, and the names and strings naming them."""

    def __init__(self, flat, path):
        self.flat = flat
        self.packages = {name.split(".")[0] for name in flat}
        self.path = path
        self.local = {}  # name bound by `from pkg import mod` -> its new name

    def _submodule(self, node, alias):
        """The dotted name of the module `from node.module import alias` binds, or None."""
        if node.level or not node.module:
            return None
        full = node.module + "." + alias.name
        return full if full in self.flat else None

    def rewrite(self, tree):
        used = identifiers(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if not node.level and node.module and node.module.split(".")[0] in self.packages:
                    if node.module not in self.flat and not all(
                        self._submodule(node, alias) for alias in node.names
                    ):
                        raise ValueError(
                            "%s: from %s import: not a module" % (self.path, node.module)
                        )
                for alias in node.names:
                    full = self._submodule(node, alias)
                    local = alias.asname or alias.name
                    if full is None or local in self.local:
                        continue
                    new = self.flat[full]
                    if new in used or new in BUILTIN_NAMES:
                        candidates = short_names()
                        new = next(candidates)
                        while new in used or new in BUILTIN_NAMES:
                            new = next(candidates)
                    used.add(new)
                    self.local[local] = new
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in self.packages:
                        raise ValueError(
                            "%s: `import %s`: only `from ... import` is flattened"
                            % (self.path, alias.name)
                        )
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                if set(node.names) & set(self.local):
                    raise ValueError("%s: a module's name declared global" % self.path)
        return self.visit(tree)

    def visit_ImportFrom(self, node):
        if node.level or not node.module or node.module.split(".")[0] not in self.packages:
            return node
        modules, names = [], []
        for alias in node.names:
            full = self._submodule(node, alias)
            if full is None:
                names.append(alias)
                continue
            short, local = self.flat[full], self.local[alias.asname or alias.name]
            modules.append(ast.alias(short, None if local == short else local))
        out = []
        if modules:
            out.append(ast.copy_location(ast.Import(modules), node))
        if names:
            out.append(ast.copy_location(ast.ImportFrom(self.flat[node.module], names, 0), node))
        return out

    def visit_Name(self, node):
        node.id = self.local.get(node.id, node.id)
        return node

    def visit_Constant(self, node):
        if isinstance(node.value, str) and node.value in self.flat:
            node.value = self.flat[node.value]
        return node
