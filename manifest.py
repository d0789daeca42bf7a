# MicroPython freeze manifest: bakes the game core, the net layer and Microdot into a custom
# firmware, so their bytecode runs from flash instead of RAM (about half the resident RAM of
# .mpy files; see docs/hardware.md, "Freezing the code into the firmware").
#
#   cd micropython/ports/esp32        # a MicroPython checkout with ESP-IDF set up
#   make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/this/repo/manifest.py
#
# boot.py, main.py and web/ stay on the board's filesystem: `make build FROZEN=1` then
# `make deploy` copies only those. Python modules on the filesystem win over frozen ones
# (sys.path is ['', '.frozen', '/lib']), so remove old game/, net/ and lib/microdot/ folders
# from the board after switching to a frozen firmware.
#
# Microdot comes from the Microdot 2.x package installed in the Python that runs the
# MicroPython build; set MICRODOT_DIR=/path/to/site-packages/microdot if it is not installed
# there. The Microdot files are the ones tools/build_image.py ships (core, websocket and what
# they import), so the frozen firmware and the .mpy image hold the same code.
#
# This file is executed by MicroPython's tools/manifestfile.py with this folder as the working
# directory; `include`, `package` and `options` are provided by it.

import os
import sys

sys.path.insert(0, os.path.abspath("tools"))  # this folder is the working directory here
from build_image import microdot_dir, microdot_files  # noqa: E402

# The port's own frozen modules (asyncio, network helpers, ...): a FROZEN_MANIFEST replaces the
# board's default manifest, so it must be included again.
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821

package("game", base_path="firmware")  # noqa: F821
package("net", base_path="firmware")  # noqa: F821

_microdot = microdot_dir()
package(  # noqa: F821
    "microdot",
    files=microdot_files(_microdot),
    base_path=str(_microdot.parent),
)
