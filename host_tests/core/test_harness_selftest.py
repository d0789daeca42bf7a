# Tests of the test harness itself, on both interpreters: if these fail, no other result counts.
from harness import Skip, heap_locked, is_micropython, raises, skip


def _boom(message):
    raise ValueError(message)


def _quiet(a, b):
    return a + b


def test_raises_returns_the_exception():
    exc = raises(ValueError, _boom, "bad")
    assert isinstance(exc, ValueError)
    assert exc.args == ("bad",)


def test_raises_accepts_a_tuple_of_types():
    assert isinstance(raises((KeyError, ValueError), _boom, "x"), ValueError)


def test_raises_fails_when_nothing_is_raised():
    try:
        raises(ValueError, _quiet, 1, 2)
    except AssertionError as exc:
        assert "did not raise" in str(exc)
    else:
        raise AssertionError("raises() accepted a call that raised nothing")


def test_raises_lets_other_exceptions_through():
    try:
        raises(KeyError, _boom, "other")
    except ValueError:
        pass
    else:
        raise AssertionError("raises() swallowed an unexpected exception type")


def test_skip_raises_a_skip():
    # Under pytest skip() raises pytest's own outcome (a BaseException), elsewhere harness.Skip.
    try:
        skip("checking skip()")
    except Skip as exc:
        assert str(exc) == "checking skip()"
    except BaseException as exc:  # pytest.skip's Skipped
        assert not is_micropython()
        assert "checking skip()" in str(exc)
    else:
        raise AssertionError("skip() returned")


def test_is_micropython_matches_the_const_shim():
    # The const shim comes from micropython exactly when running on MicroPython.
    try:
        import micropython  # noqa: F401

        has_module = True
    except ImportError:
        has_module = False
    assert is_micropython() == has_module


def test_heap_locked_passes_an_allocation_free_call():
    assert heap_locked(_quiet, 2, 3) == 5


def test_heap_locked_detects_an_allocation():
    try:
        heap_locked(lambda: bytearray(8))
    except AssertionError as exc:
        assert "allocated under heap_lock" in str(exc)
    else:
        raise AssertionError("heap_locked() missed an allocation")


def test_heap_locked_unlocks_after_a_failure():
    # After a detected allocation the heap must be usable again.
    try:
        heap_locked(bytearray, 8)
    except AssertionError:
        pass
    assert len(bytearray(16)) == 16
    assert heap_locked(_quiet, 1, 1) == 2


_PREBUILT = ValueError("prebuilt")


def _raise_prebuilt():
    raise _PREBUILT


def test_heap_locked_unlocks_after_an_exception():
    # A non-memory exception passes through unchanged, and the heap is unlocked again.
    assert raises(ValueError, heap_locked, _raise_prebuilt) is _PREBUILT
    assert len(bytearray(16)) == 16
