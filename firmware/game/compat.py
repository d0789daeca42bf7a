# The one interpreter shim of the core: MicroPython's const(), a plain function on CPython.
try:
    from micropython import const
except ImportError:  # CPython

    def const(value):
        return value


__all__ = ["const"]
