# Imported first by the one-off regenerators in tools/dev/ (run as `python tools/dev/x.py`,
# which puts tools/dev/ first on sys.path): puts tools/ and firmware/ on sys.path, whatever the
# working directory, as tools/_path.py does for a tool in tools/. Imported from tools/ instead
# (pytest: `from dev import make_golden_views`), `import _path` is tools/_path.py itself.
import sys

_DEV = __file__[: __file__.rfind("/")] if "/" in __file__ else "."
TOOLS = _DEV[: _DEV.rfind("/")] if "/" in _DEV else ".."
FIRMWARE = (TOOLS[: TOOLS.rfind("/")] if "/" in TOOLS else "..") + "/firmware"
for _folder in (FIRMWARE, TOOLS):
    if _folder not in sys.path:
        sys.path.insert(1, _folder)
