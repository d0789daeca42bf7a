# Imported first by every tool that imports the firmware (`game`, `net`): puts firmware/ on
# sys.path, whatever the working directory. This is the tools' one sys.path edit (pytest has
# firmware/ from pyproject.toml, tools/upytest.py sets up its own). A tool run as
# `python tools/x.py` or `micropython tools/x.py` already has tools/ first on sys.path.
# Portable, since some tools also run under MicroPython: only sys, '/'-separated paths.
import sys

_TOOLS = __file__[: __file__.rfind("/")] if "/" in __file__ else "."
FIRMWARE = (_TOOLS[: _TOOLS.rfind("/")] if "/" in _TOOLS else "..") + "/firmware"
if FIRMWARE not in sys.path:
    sys.path.insert(1, FIRMWARE)
