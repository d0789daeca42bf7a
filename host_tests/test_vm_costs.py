# tools/vm_costs.py, the unit costs behind docs/performance.md's "What is left": the fact that
# rules out @micropython.native for the projector (its slice stores allocate, the bytecode
# VM's do not) checked on the unix ports, and the callgrind measurement where valgrind exists.
import shutil

import pytest

import vm_costs

pytestmark = pytest.mark.upy


def _native_check(run_upy, binary=None):
    result = run_upy(vm_costs.NATIVE_CHECK, binary=binary)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


NATIVE_ALLOCATES = [
    "a slice store, bytecode_store: no allocation",
    "a slice store, native_store: allocates (MemoryError under heap_lock)",
]


def test_a_native_slice_store_allocates_and_a_bytecode_one_does_not(run_upy):
    assert _native_check(run_upy) == NATIVE_ALLOCATES


def test_the_same_on_the_32_bit_port(run_upy, upy32_binary):
    assert _native_check(run_upy, upy32_binary) == NATIVE_ALLOCATES


@pytest.mark.skipif(not shutil.which("valgrind"), reason="no valgrind")
def test_costs_are_counted_per_iteration(upy_binary):
    add = vm_costs.cost(upy_binary, "", "x = x + 1")
    call = vm_costs.cost(upy_binary, "", "f(b, 5, 7)")
    big = vm_costs.cost(upy_binary, "", "big.m(b, 1)")
    # per iteration, not per run: an add is a few bytecodes, a call far more, and a frame of
    # 45 locals (from the heap) more again
    assert 0 < add < call < big < 20_000
