# The board image imports Microdot's modules directly (tools/build_image.py,
# direct_microdot_imports): `from microdot import X` becomes `from microdot.microdot import X`
# everywhere and the package's __init__, which only re-exports, is left empty (the image then
# leaves it out: one module less in the board's heap). Anything else stops the build.
import pytest

import build_image

INIT = "from microdot.microdot import Microdot, Request, Response\n__version__ = '2.7.0'\n"


def sources(**extra):
    base = {
        "microdot/__init__.py": INIT,
        "microdot/microdot.py": "class Microdot:\n    pass\n",
        "net/server.py": "from microdot import Request, Response\n\nx = 1\n",
        "net/wiring.py": "def wire():\n    from microdot import Microdot\n    return Microdot()\n",
        "net/gateway.py": "from microdot.websocket import WebSocket\n",
    }
    base.update(extra)
    return base


def test_package_imports_become_module_imports_and_the_init_empty():
    out = build_image.direct_microdot_imports(sources())
    assert out["microdot/__init__.py"] == ""
    assert out["net/server.py"] == "from microdot.microdot import Request, Response\n\nx = 1\n"
    assert "    from microdot.microdot import Microdot\n" in out["net/wiring.py"]
    assert out["net/gateway.py"] == "from microdot.websocket import WebSocket\n"  # untouched
    assert out["microdot/microdot.py"] == sources()["microdot/microdot.py"]


def test_a_name_the_package_does_not_re_export_stops_the_build():
    with pytest.raises(build_image.BuildError, match="abort"):
        build_image.direct_microdot_imports(
            sources(**{"net/portal.py": "from microdot import Response, abort\n"})
        )


def test_an_import_the_rewrite_cannot_read_stops_the_build():
    wrapped = "from microdot import (\n    Request,\n    Response,\n)\n"
    with pytest.raises(build_image.BuildError, match="left"):
        build_image.direct_microdot_imports(sources(**{"net/server.py": wrapped}))


def test_an_init_that_does_more_than_re_export_stops_the_build():
    init = INIT + "print('hello')\n"
    with pytest.raises(build_image.BuildError, match="re-export"):
        build_image.direct_microdot_imports(sources(**{"microdot/__init__.py": init}))


def test_the_built_image_has_no_microdot_package_module():
    _, renamed = build_image.board_sources()
    modules = set(build_image.module_map(renamed).values())
    assert "microdot.microdot" in modules and "microdot.websocket" in modules
    assert "microdot" not in modules
