# A firmware weakness found by the bot runner's flood (tools/bot_runner.py, docs/protocol.md
# "Connection and limits"): the inbound rate limit closes a socket with 1008 only after
# RATE_ABUSE (100) refused frames *in a row*, and one frame fits in the bucket again every
# 1/RATE_PER_S (50 ms), which resets the count. So only a burst faster than 100 frames per
# 50 ms (2,000 frames/s) is ever closed: a client that keeps sending at 100 frames/s, five
# times its limit, is refused four frames in five forever and never closed, and the board
# reads, unmasks and answers (RATE_LIMITED) every one of them. net/frames.py says what 1008 is
# for: "a client that kept sending over its rate limit". A fix would count refusals over a
# time window (or let an accepted frame only decay the count), not reset it.
import asyncio
import time

import pytest

from game_client import GameClient, run

FLOOD_SOURCE = "127.0.0.9"  # its own address: the per-source limits touch nobody else
RATE = 100  # frames a second: five times the limit
SECONDS = 6.0


class NotClosed(AssertionError):
    """The flooder's socket was still open: the weakness (any other failure is a real one)."""


@pytest.mark.xfail(
    reason="firmware: RATE_ABUSE counts refusals in a row, reset by every frame the refilled "
    "bucket lets through, so a sustained flood under 2,000 frames/s is never closed (1008)",
    raises=NotClosed,
    strict=True,
)
def test_a_client_that_keeps_flooding_is_closed(game_board):
    async def scenario():
        flooder = GameClient(game_board.ws_url, "flooder", heartbeat_s=None)
        flooder.source = FLOOD_SOURCE
        await flooder.connect()
        await flooder.join("watch")
        sent = 0
        begun = time.monotonic()
        while time.monotonic() - begun < SECONDS and not flooder.closed:
            sent += 1
            try:
                await flooder.send('{"t":"ping","c":%d}' % sent)
            except Exception:  # noqa: BLE001 - closed while sending: what the test wants
                break
            await asyncio.sleep(1 / RATE)
        await asyncio.sleep(0.5)
        refused = sum(1 for e in flooder.errors if e.get("code") == "RATE_LIMITED")
        code = flooder.close_code
        await flooder.close()
        return sent, refused, code

    sent, refused, code = run(scenario(), timeout=60)
    assert game_board.alive()
    # the board did refuse most of it: the flood really was over the limit, for seconds
    assert refused >= sent // 2, (sent, refused)
    if code != 1008:
        raise NotClosed("%d frames sent, %d refused, close code %s" % (sent, refused, code))
