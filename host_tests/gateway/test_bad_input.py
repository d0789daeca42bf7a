# Bad input of every kind gets its coded answer (or a clear close code), changes nothing, and the
# server goes on serving everyone else.
import asyncio
import json
import struct

import pytest

from game_client import GameClient, both_ready, close_all, run, two_players_and_observer
from raw_ws import upgrade

pytestmark = [pytest.mark.upy, pytest.mark.slow]

# (raw text, expected reply without the client sequence, the sequence echoed or None)
MALFORMED = (
    ("{", "BAD_JSON", None),
    ("", "BAD_JSON", None),
    ("[1,2]", "BAD_JSON", None),
    ('"move"', "BAD_JSON", None),
    ("null", "BAD_JSON", None),
    ('{"t":5,"c":7}', "UNKNOWN_INTENT", 7),
    ('{"c":8}', "UNKNOWN_INTENT", 8),
    ('{"t":"fly","c":9}', "UNKNOWN_INTENT", 9),
    ('{"t":"MOVE","c":10,"d":"N"}', "UNKNOWN_INTENT", 10),
    ('{"t":"move","d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":"11","d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":true,"d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":1.5,"d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":0,"d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":-3,"d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":99999999999999999999999,"d":"N"}', "BAD_SEQ", None),
    ('{"t":"move","c":12,"d":"X"}', "BAD_VALUE", 12),
    ('{"t":"move","c":13,"d":0}', "BAD_VALUE", 13),
    ('{"t":"move","c":14,"d":"n"}', "BAD_VALUE", 14),
    ('{"t":"move","c":15}', "BAD_VALUE", 15),
    ('{"t":"ping"}', "BAD_SEQ", None),
    ('{"t":"join","role":"admin"}', "BAD_VALUE", None),
    ('{"t":"join","role":"play","token":12}', "BAD_TOKEN", None),
    ('{"t":"join","role":"play","name":["x"]}', "BAD_VALUE", None),
)


async def closed_side(player):
    """A direction with a wall where the player stands (stepping on if it stands at a
    crossroads), read from its own view."""
    for _ in range(4):
        view = player.view
        here = view["st"]["p"]
        flags = view["cells"][here]
        for d in range(4):
            if not flags & (1 << d):
                return "NESW"[d]
        assert (await player.move("NESW"[_]))["t"] == "ack"
        await player.view_where(lambda v, h=here: v["st"]["p"] != h)
    raise AssertionError("no wall found")


def test_malformed_messages_get_coded_errors_and_change_nothing(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        steady = await obs.view_where(lambda v: v["ph"] == "active")
        for text, code, c in MALFORMED:
            count = len(p1.errors)
            await p1.send(text)
            await p1.until(lambda n=count: len(p1.errors) > n, what="error for %r" % text)
            expected = (
                {"t": "err", "code": code} if c is None else {"t": "err", "c": c, "code": code}
            )
            assert p1.errors[-1] == expected, text
        # Binary frames go through the same parser; invalid UTF-8 is bad JSON.
        count = len(p1.errors)
        await p1.ws.send(b"\xff\xfe{")
        await p1.until(lambda: len(p1.errors) > count)
        assert p1.errors[-1] == {"t": "err", "code": "BAD_JSON"}
        # Deep nesting within the bound is just bad input too.
        await p1.send("[" * 250 + "]" * 250)
        await p1.until(lambda: len(p1.errors) > count + 1)
        assert p1.errors[-1]["code"] == "BAD_JSON"
        # Wrong in the game's terms: engine codes with the client sequence.
        assert (await p1.intent("ready"))["code"] == "PHASE"
        assert (await obs.intent("move", d="N"))["code"] == "NOT_PLAYER"
        assert (await obs.intent("drop"))["code"] == "NOT_PLAYER"
        assert (await obs.intent("ready"))["code"] == "NOT_PLAYER"
        assert (await p1.intent("drop"))["code"] == "NO_KEY"
        assert (await p1.move(await closed_side(p1)))["code"] == "WALL"
        rejoin = await p1.join(expect="err")
        assert rejoin == {"t": "err", "code": "ALREADY_JOINED"}
        # The same socket still works, nothing else changed, everyone else is served.
        assert not p1.closed and not p2.closed and not obs.closed
        assert obs.view["st"]["players"][1] == steady["st"]["players"][1]
        assert (await p2.intent("ping"))["t"] == "pong"
        await close_all(p1, p2, obs)

    run(scenario())


def test_intents_before_join_are_refused(game_board):
    async def scenario():
        client = await GameClient(game_board.ws_url, "early").connect()
        for t in ("move", "drop", "ready", "rematch", "leave"):
            reply = await client.intent(t, d="N")
            assert reply["t"] == "err" and reply["code"] == "NOT_JOINED", reply
        # not even a heartbeat keeps an unjoined socket busy (it is closed JOIN_MS after
        # the upgrade anyway)
        reply = await client.intent("ping")
        assert reply["t"] == "err" and reply["code"] == "NOT_JOINED", reply
        await close_all(client)

    run(scenario())


def test_oversized_and_fragmented_frames_close_with_clear_codes(board_factory):
    # p1 comes back inside its grace period: a window of the board's clock that no event can
    # hold open, so it is long here (FAST's 1.5 s ran out on a loaded machine before the join)
    game_board = board_factory(reconnect_grace_ms=30_000)

    async def scenario():
        url = game_board.ws_url
        p1, p2, obs = await two_players_and_observer(url)
        await both_ready(p1, p2)
        # Exactly 512 bytes is allowed ...
        exact = await GameClient(url, "exact").connect()
        text = '{"t":"ping","c":1}'
        await exact.send(text + " " * (512 - len(text)))
        await exact.until(lambda: 1 in exact.replies)
        # ... 513 bytes is not.
        big = await GameClient(url, "big").connect()
        await big.send("{" + " " * 511 + "}")
        assert await big.until_closed() == 1009
        assert big.errors == [{"t": "err", "code": "TOO_LARGE"}]
        # A seated player is no exception; it keeps its seat (grace) and may come back.
        await p1.send(json.dumps({"t": "ping", "c": 5, "pad": "x" * 600}))
        assert await p1.until_closed() == 1009
        back = await GameClient(url, "p1 back").connect()
        assert (await back.join(token=p1.welcome["token"]))["resumed"] is True
        frag = await GameClient(url, "frag").connect()
        await frag.ws.send(['{"t":"pi', 'ng","c":1}'])
        assert await frag.until_closed() == 1003
        assert frag.errors == [{"t": "err", "code": "FRAGMENTED"}]
        assert "fragmented" in frag.close_reason
        # The others never noticed.
        assert (await p2.intent("ping"))["t"] == "pong"
        assert not obs.closed
        assert (await back.intent("ping"))["t"] == "pong"
        await close_all(p2, obs, exact, back)

    run(scenario())


def _raw_handshake(port):
    sock, head = upgrade(port)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _read_close_code(sock):
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    # the last frame is the close frame: 0x88, length, code
    at = data.rfind(b"\x88")
    assert at >= 0, data
    return struct.unpack("!H", data[at + 2 : at + 4])[0]


def test_protocol_violations_close_with_1002(game_board):
    port = game_board.board.http_port
    # An unmasked client frame.
    sock = _raw_handshake(port)
    sock.sendall(b"\x81\x05hello")
    assert _read_close_code(sock) == 1002
    sock.close()
    # A reserved bit set.
    sock = _raw_handshake(port)
    sock.sendall(b"\xc1\x80" + b"\x00\x00\x00\x00")
    assert _read_close_code(sock) == 1002
    sock.close()
    # A peer that closes gets its own code echoed.
    sock = _raw_handshake(port)
    sock.sendall(b"\x88\x82\x00\x00\x00\x00\x03\xe9")  # close 1001, mask of zeros
    assert _read_close_code(sock) == 1001
    sock.close()

    async def still_serving():
        client = await GameClient(game_board.ws_url, "after").connect()
        await client.join("watch")
        assert (await client.intent("ping"))["t"] == "pong"
        await client.close()

    run(still_serving())


def test_many_bad_clients_at_once_do_not_disturb_a_match(game_board):
    async def scenario():
        url = game_board.ws_url
        p1, p2, obs = await two_players_and_observer(url)
        await both_ready(p1, p2)

        async def vandal(i):
            client = await GameClient(url, "vandal%d" % i).connect()
            for text in ("{", '{"t":"move","c":1,"d":"N"}', '{"t":"x","c":2}', "[]"):
                await client.send(text)
            await client.until(lambda: len(client.errors) >= 4)
            await client.close()

        moves = asyncio.gather(*(p2.move(d) for d in "NESW"))
        await asyncio.gather(vandal(1), vandal(2), vandal(3), moves)
        assert (await p1.intent("ping"))["t"] == "pong"
        await close_all(p1, p2, obs)

    run(scenario())
