# The rate limit's close (1008) for a client that keeps sending over its limit, and no close for
# one that exceeds it only briefly (net/gateway.py, docs/protocol.md "Connection and limits").
# Refusals add up in a bucket that drains 5 a second; frames the refilled bucket lets through
# (one per 50 ms) do not empty it. Found by the bot runner's flood: when only refusals in a row
# counted, a client at 100 frames/s was refused four frames in five forever and never closed.
import asyncio
import time

from game_client import GameClient, run

FLOOD_SOURCE = "127.0.0.9"  # its own address: the per-source limits touch nobody else
BRIEF_SOURCE = "127.0.0.10"


async def _send_at(client, rate, seconds):
    """Pings at `rate` a second for `seconds` or until the socket closes; how many were sent."""
    sent = 0
    begun = time.monotonic()
    while time.monotonic() - begun < seconds and not client.closed:
        sent += 1
        try:
            await client.send('{"t":"ping","c":%d}' % sent)
        except Exception:  # noqa: BLE001 - closed while sending: the close is checked below
            break
        # no event can replace this: the rate limit counts frames per second of the board's
        # clock, so the test's traffic keeps a rate in real time
        await asyncio.sleep(1 / rate)
    return sent


def test_a_client_that_keeps_flooding_is_closed(game_board):
    async def scenario():
        flooder = GameClient(game_board.ws_url, "flooder", heartbeat_s=None)
        flooder.source = FLOOD_SOURCE
        await flooder.connect()
        await flooder.join("watch")
        sent = await _send_at(flooder, 100, 8.0)  # five times the limit; closed in about 2 s
        # its close frame comes after every refusal the board sent
        await flooder.until_closed()
        refused = sum(1 for e in flooder.errors if e.get("code") == "RATE_LIMITED")
        code = flooder.close_code
        await flooder.close()
        return sent, refused, code

    sent, refused, code = run(scenario(), timeout=60)
    assert game_board.alive()
    assert refused >= 100, (sent, refused)
    assert code == 1008, (sent, refused, code)


def test_a_brief_burst_over_the_limit_is_refused_but_not_closed(game_board):
    async def scenario():
        client = GameClient(game_board.ws_url, "eager", heartbeat_s=None)
        client.source = BRIEF_SOURCE
        await client.connect()
        await client.join("watch")
        for _ in range(3):  # a burst of 70 (30 over the bucket), then a rest of 2.5 s
            for n in range(70):
                await client.send('{"t":"ping","c":%d}' % n)
            # a ping every 0.5 s: the test board drops 2 s of silence
            await _send_at(client, 2, 2.5)
        refused = sum(1 for e in client.errors if e.get("code") == "RATE_LIMITED")
        pong = await client.ping()
        code = client.close_code
        await client.close()
        return refused, pong, code

    refused, pong, code = run(scenario(), timeout=60)
    assert game_board.alive()
    assert refused >= 30, refused  # the bursts really went over the limit
    assert code is None and pong is not None, (refused, code)
