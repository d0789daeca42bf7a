# Test helpers for host_tests/core, imported unchanged by pytest (CPython) and by tools/upytest.py
# (MicroPython unix port), so only what both interpreters have: no pytest at import time.
import sys

try:
    import pytest
except ImportError:  # MicroPython, or CPython without pytest
    pytest = None

try:
    import micropython
except ImportError:  # CPython
    micropython = None


class Skip(Exception):
    """Raised by skip() outside pytest; tools/upytest.py counts it as skipped, not failed."""


def skip(reason):
    """Skip the running test: pytest's skip under pytest, else raise Skip(reason)."""
    if pytest is not None:
        pytest.skip(reason)
    raise Skip(reason)


def is_micropython():
    # The one place that checks the interpreter name; code under test uses try/except ImportError.
    return sys.implementation.name == "micropython"


def _name(fn):
    return getattr(fn, "__name__", None) or repr(fn)


def raises(exc_type, fn, *args):
    """Call fn(*args); return the exception if it is an exc_type, fail if nothing was raised.

    Any other exception propagates (and so fails the test with its own traceback).
    """
    try:
        fn(*args)
    except exc_type as exc:
        return exc
    raise AssertionError(f"{_name(fn)} did not raise {_name(exc_type)}")


def heap_locked(fn, *args):
    """Call fn(*args) with the MicroPython heap locked and return its result.

    Any allocation inside fn raises MemoryError, reported here as an AssertionError, which is how
    tests prove a hot path does not allocate. Under CPython the test is skipped.
    """
    if micropython is None or not hasattr(micropython, "heap_lock"):
        skip("heap_lock needs the MicroPython unix port")
    # fn(*args) itself allocates on MicroPython (it builds a new argument array), so the call
    # is spelled out per arity; everything between lock and unlock must be allocation-free.
    n = len(args)
    if n > 4:
        raise TypeError("heap_locked() takes at most 4 arguments for fn")
    result = None
    failure = None
    micropython.heap_lock()
    try:
        if n == 0:
            result = fn()
        elif n == 1:
            result = fn(args[0])
        elif n == 2:
            result = fn(args[0], args[1])
        elif n == 3:
            result = fn(args[0], args[1], args[2])
        else:
            result = fn(args[0], args[1], args[2], args[3])
    except MemoryError as exc:
        failure = exc
    finally:
        micropython.heap_unlock()
    if failure is not None:
        raise AssertionError(f"allocated under heap_lock: {_name(fn)} ({failure})")
    return result
