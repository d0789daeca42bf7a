# The portable game core: pure rules, no I/O. Runs unchanged on CPython and MicroPython.
