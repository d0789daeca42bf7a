# The microsecond clock of the benchmarks that run on both interpreters (bench_core,
# bench_projector): ticks_us on MicroPython, perf_counter_ns on CPython (fractions kept there).
#
#   start = now_us()
#   ...
#   took = elapsed_us(start)
try:  # MicroPython
    from time import ticks_diff, ticks_us

    def now_us():
        return ticks_us()

    def elapsed_us(start):
        return ticks_diff(ticks_us(), start)

except ImportError:  # CPython
    from time import perf_counter_ns

    def now_us():
        return perf_counter_ns() / 1000

    def elapsed_us(start):
        return perf_counter_ns() / 1000 - start
