# Test-only, for host boards (tools/run_host.sh with MAZE_PRELUDE naming this file; never on a
# board, and not in tools/hostboard, whose names the image's minifier keeps): after a move or
# drop whose client sequence is a multiple of MAZE_SLOW_ACK_EVERY is on flash, the board says
# so and stands still for MAZE_SLOW_ACK_MS before its ack is posted, so that test_chaos.py can
# kill it between the log write and the ack. The firmware is unchanged: this wraps
# Journal.push from outside.
import os
import time

from net.journal import Journal

_EVERY = int(os.getenv("MAZE_SLOW_ACK_EVERY") or "16")
_MS = int(os.getenv("MAZE_SLOW_ACK_MS") or "500")
_push = Journal.push


def _slow_push(self, m, seat, intent):
    _push(self, m, seat, intent)
    if intent.c % _EVERY == 0:
        print("slow_ack: seat %d c %d on flash, ack in %d ms" % (seat.number, intent.c, _MS))
        time.sleep_ms(_MS)


Journal.push = _slow_push
