# tools/minify.py renames a program's own identifiers and nothing else: small programs that
# use every construct the firmware uses behave the same before and after, under CPython and
# the MicroPython unix port; outside names, strings, consts and entry points are kept. (The
# whole firmware, minified, is played end to end by host_tests/deploy and host_tests/memory.)
import subprocess
import textwrap

import pytest

import minify
from virtual_board import find_micropython

# A program of three modules in a package "pkg" and an entry point main.py that prints what
# it computes; every construct has a line here.
PROGRAM = {
    "pkg/__init__.py": "",
    "pkg/consts.py": """
        from micropython import const

        LIMIT = const(7)
        _PRIVATE = const(3)
        NAMES = ("alpha", "beta")


        def doubled(value, factor=2):
            return value * factor * _PRIVATE // 3
        """,
    "pkg/things.py": """
        import json

        from pkg import consts
        from pkg.consts import LIMIT, doubled


        class Counter:
            start = 10

            def __init__(self, label, step=1):
                self.label = label
                self.step = step
                self.count = Counter.start

            def bump(self, times=1):
                for _ in range(times):
                    self.count += self.step
                return self.count

            def dump(self):
                return json.dumps({"label": self.label, "count": self.count})


        def make_counters(labels, step=1):
            total = [0]

            def add(counter):
                total[0] += counter.bump(times=2)
                return counter

            made = [add(Counter(label, step=step)) for label in labels if label]
            squares = {name: len(name) ** 2 for name in labels}
            return made, total[0], squares


        def lookups(obj):
            # names given as strings must keep working
            return getattr(obj, "label"), hasattr(obj, "count"), consts.NAMES[1]


        def limits():
            try:
                raise ValueError(LIMIT)
            except ValueError as problem:
                return problem.args[0], doubled(5), doubled(value=4, factor=3)
        """,
    "main.py": """
        from pkg.things import Counter, limits, lookups, make_counters

        state = {"calls": 0}


        def run():
            global state
            made, total, squares = make_counters(["ann", "", "bob"], step=3)
            state["calls"] += 1
            first = made[0]
            labels = sorted(c.label for c in made)
            print(total, labels, squares["bob"], first.dump(), lookups(first), limits())
            print("{who} has {n}".format(who=first.label, n=first.count), state["calls"])
            print(Counter("z").bump(), (lambda x, y=2: x * y)(4))


        run()
        """,
}


def _write(root, sources):
    for path, text in sources.items():
        dest = root / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(textwrap.dedent(text))


def _run(python, root):
    done = subprocess.run(
        [python, "main.py"], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    original = tmp_path_factory.mktemp("original")
    _write(original, PROGRAM)
    (original / "micropython.py").write_text("def const(x):\n    return x\n")  # CPython
    sources = {path: textwrap.dedent(text) for path, text in PROGRAM.items()}
    renamed, report = minify.minify(sources)
    short = tmp_path_factory.mktemp("minified")
    _write(short, renamed)
    (short / "micropython.py").write_text("def const(x):\n    return x\n")
    return original, short, renamed, report


def test_minified_program_prints_the_same_on_cpython(programs):
    import sys

    original, short, _, _ = programs
    assert _run(sys.executable, original) == _run(sys.executable, short)


def test_minified_program_prints_the_same_on_micropython(programs):
    original, short, _, _ = programs
    upy = find_micropython()
    for root in (original, short):
        (root / "micropython.py").unlink(missing_ok=True)  # the real const() there
    assert _run(upy, original) == _run(upy, short)


def test_what_is_renamed_and_what_stays(programs):
    _, _, renamed, report = programs
    lines = set(report)
    code = "\n".join(renamed.values())
    # the program's own names are shorter now ...
    for old in ("bump", "doubled", "_PRIVATE", "factor", "times"):
        assert any(line.endswith(" " + old) for line in lines), old
        assert old not in code, old
    # ... private consts stay private (still inlined), entry points and outside names stay
    assert any(line.startswith("global _") and line.endswith(" _PRIVATE") for line in lines)
    assert "def run()" in renamed["main.py"]  # an entry point's names stay, and so do those
    assert "def make_counters(" in renamed["pkg/things.py"]  # it imports from the program
    for kept in ("json.dumps", "getattr(", "'label'", "format(who=", "from pkg"):
        assert kept in code, kept


def test_strings_protect_names_and_docstrings_do_not():
    sources = {
        "m.py": '"""Module doc naming helper_one."""\n'
        "def helper_one():\n    return 1\n"
        "def helper_two():\n    return getattr(helper_two, 'helper_two', 2)\n"
    }
    renamed, _ = minify.minify(sources)
    assert "helper_one" not in renamed["m.py"]  # only a docstring named it
    assert "def helper_two" in renamed["m.py"]  # a whole-string literal names it


def test_methods_of_outside_objects_keep_their_names():
    # the program's own attribute `match` is renamed nowhere: a compiled regex's match() (what
    # Microdot's URL patterns call) has that name, and no string has to protect it
    sources = {
        "m.py": "import re\n"
        "class Host:\n    def __init__(self):\n        self.match = 1\n"
        "def route(path):\n    return re.compile('^/$').match(path).group(0), Host().match\n"
        "ROUTES = (route,)\n"
    }
    renamed, _ = minify.minify(sources)
    text = renamed["m.py"]
    assert "re.compile('^/$').match(" in text and ").group(0)" in text
    assert ".match = 1" in text and "().match)" in text


def test_locals_never_take_a_module_const_name():
    # a local named like a const() global of its module would not compile on MicroPython
    sources = {
        "m.py": "from micropython import const\nTOP = const(1)\n"
        "def f(width, height):\n    area = width * height\n    return area + TOP\n"
        "RESULT = f(2, 3)\n"
    }
    renamed, _ = minify.minify(sources)
    text = renamed["m.py"]
    const_name = text.split(" = const(")[0].split()[-1]
    body = text.split("def ")[1]
    assert const_name + " =" not in body


def test_public_consts_are_folded_into_their_values_everywhere():
    sources = {
        "pkg/__init__.py": "",
        "pkg/k.py": "from micropython import const\nLIMIT = const(7)\nTWICE = const(LIMIT * 2)\n",
        "pkg/use.py": "from pkg import k\nfrom pkg.k import LIMIT\n"
        "def f(x, limit=LIMIT):\n    return x + k.TWICE + limit\n"
        "RESULT = f(1)\n",
    }
    renamed, _ = minify.minify(sources)
    assert "LIMIT" not in renamed["pkg/use.py"] and "TWICE" not in renamed["pkg/use.py"]
    assert "const(7)" not in renamed["pkg/k.py"]  # the global is gone
    assert "14" in renamed["pkg/use.py"] and "7" in renamed["pkg/use.py"]
    namespace = {}
    exec(renamed["pkg/use.py"].replace("from pkg import k\n", ""), namespace)
    assert namespace[[n for n in namespace if namespace[n] == 22][0]] == 22  # 1 + 14 + 7


# short_modules(): the modules of the image's packages become flat modules with short names.
PACKAGED = {
    "pkg/__init__.py": "",
    "pkg/maths.py": """
        VALUE = 3


        def twice(x):
            return 2 * x
        """,
    "pkg/user.py": """
        from pkg import maths


        def use():
            return maths.twice(maths.VALUE)
        """,
    "lib2/__init__.py": "from lib2.core import greet\n",
    "lib2/core.py": """
        def greet(name):
            return "hi " + name
        """,
    "main.py": """
        import sys

        from lib2 import greet
        from pkg.user import use


        def run():
            from pkg import maths

            loaded = "pkg.user" in sys.modules
            dropped = sys.modules.pop("pkg.user", None) is not None
            print(use(), maths.twice(5), greet("x"), loaded, dropped, "pkg.user" in sys.modules)


        run()
        """,
}


@pytest.mark.parametrize("python", ["cpython", "micropython"])
def test_flat_modules_behave_as_the_packages_did(tmp_path, python):
    import sys

    upy = sys.executable if python == "cpython" else find_micropython()
    sources = {path: textwrap.dedent(text) for path, text in PACKAGED.items()}
    original = tmp_path / "original"
    _write(original, sources)
    renamed, _ = minify.minify(sources)
    flat, report = minify.short_modules(renamed, ("pkg", "lib2"))
    short = tmp_path / "flat"
    _write(short, flat)
    assert _run(upy, short) == _run(upy, original) == "6 10 hi x True True False\n"
    # one short module per module, the empty __init__ left out, the module map reported
    assert report == [
        "module a lib2",
        "module b lib2.core",
        "module c pkg.maths",
        "module d pkg.user",
    ]
    assert sorted(flat) == ["a.py", "b.py", "c.py", "d.py", "main.py"]
    code = "\n".join(flat.values())
    for gone in ("pkg", "lib2", "maths", "user"):
        assert gone not in code, gone
    assert "'d' in sys.modules" in flat["main.py"]  # strings naming a module follow it


def test_a_flat_module_takes_another_local_name_where_its_own_is_taken():
    sources = {
        "pkg/__init__.py": "",
        "pkg/m.py": "X = 1\n",
        "main.py": "from pkg import m\na = 2\nprint(m.X + a)\n",
    }
    flat, report = minify.short_modules(sources, ("pkg",))
    assert report == ["module a pkg.m"]
    assert "import a as b" in flat["main.py"] and "print(b.X + a)" in flat["main.py"]


def test_flattening_refuses_what_it_cannot_rewrite():
    for main in ("import pkg.m\nprint(pkg.m.X)\n", "from pkg import NAME\n"):
        with pytest.raises(ValueError):
            minify.short_modules(
                {"pkg/__init__.py": "", "pkg/m.py": "X = 1\n", "main.py": main}, ("pkg",)
            )


def test_a_viper_function_keeps_its_types_and_casts(tmp_path):
    # MicroPython's compiler reads @micropython.viper, ptr8() and the annotations (int: a
    # machine integer) by name: renamed or dropped, the function would still run, as slow
    # object code, or not compile at all.
    sources = {
        "pkg/__init__.py": "",
        "pkg/fast.py": textwrap.dedent(
            """
            import micropython


            @micropython.viper
            def fill(buffer, start: int, count: int) -> int:
                out = ptr8(buffer)
                index = 0
                while index < count:
                    out[start + index] = 65 + index
                    index += 1
                return start + count


            def plain(buffer, count: int) -> int:
                total = 0
                for value in buffer[:count]:
                    total += value
                return total
            """
        ),
        "main.py": textwrap.dedent(
            """
            from pkg.fast import fill, plain

            data = bytearray(8)
            print(fill(data, 2, 4), plain(data, 8), bytes(data))
            """
        ),
    }
    renamed, _ = minify.minify(sources)
    fast = renamed["pkg/fast.py"]
    assert "@micropython.viper" in fast and "ptr8(" in fast
    assert fast.count(": int") == 2 and fast.count("-> int") == 1  # the viper function's only
    assert "buffer" not in fast and "index" not in fast and "total" not in fast
    upy = find_micropython()
    for root, files in ((tmp_path / "original", sources), (tmp_path / "short", renamed)):
        _write(root, files)
    assert (
        _run(upy, tmp_path / "original")
        == _run(upy, tmp_path / "short")
        == ("6 266 b'\\x00\\x00ABCD\\x00\\x00'\n")
    )
