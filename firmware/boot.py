# Board bring-up only: CPU clock and garbage-collector policy. No game, no network here
# (main.py does the wiring); anything missing on this port is skipped, never fatal.
# boot.py and main.py share one global namespace: nothing is left in it but `gc`.

import gc

try:
    import machine

    machine.freq(240_000_000)  # stock ESP32 builds start at 160 MHz
    del machine
except (ImportError, AttributeError, ValueError):
    pass

gc.collect()
try:
    # Collect after every 12 KB allocated: short, predictable pauses instead of one long
    # pause when the heap is nearly full (a fixed figure, not one derived from mem_free()).
    gc.threshold(12 * 1024)
except AttributeError:
    pass
