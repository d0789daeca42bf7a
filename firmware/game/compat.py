# The one interpreter shim of the core: MicroPython's const(), a plain function on CPython;
# for game.writers under CPython, the viper emitter's decorator (MicroPython's compiler knows
# @micropython.viper by that name) and its ptr8() cast, which leave the function and the
# buffer as they are.
try:
    from micropython import const
except ImportError:  # CPython

    def const(value):
        return value

    class micropython:  # noqa: N801 (the module's name)
        @staticmethod
        def viper(function):
            return function

    def ptr8(buffer):
        return buffer


__all__ = ["const"]
