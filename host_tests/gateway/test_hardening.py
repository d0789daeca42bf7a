# The board never dies and never locks anyone out (docs/protocol.md, "Limits"): connection
# floods, upgrade bursts and half-sent requests against the real firmware on the unix port,
# RFC 6455 framing rules checked with raw sockets, hostile text, sequence numbers that cannot
# lock a seat, acks that tell nothing about the opponent, and the inbound rate limit.
# Every flood comes from loopback addresses of its own (127.0.0.x, all loopback on Linux), so
# the per-source limits do not also shut out the valid player, who connects from 127.0.0.2.
import asyncio
import json
import socket
import struct
import time

from waits import until, until_async

from game_client import GameClient, both_ready, close_all, run, two_players_and_observer
from raw_ws import close_code, close_reason, frame, server_frames, upgrade

PLAYER_SOURCE = "127.0.0.2"


def _connect(port, source):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def _upgrade(port, source="127.0.0.1"):
    """A raw WebSocket handshake; returns (socket, status line)."""
    sock, head = upgrade(port, source)
    return sock, head.split(b"\r\n", 1)[0]


def _close_of(sock, timeout=10):
    """(close code, reason) of the server's close frame, reading everything before it."""
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    frames, _rest = server_frames(data, strict=False)
    code = close_code(frames)
    return None if code is None else (code, close_reason(frames))


RETRY_S = 0.3  # a phone's pace of asking again (a cost: faster only adds to a flood)


def _status_now(game_board):
    """/status, or None while every place is busy (HTTP 503, or dropped)."""
    import urllib.error
    import urllib.request

    url = "http://127.0.0.1:%d/status" % game_board.board.http_port
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return json.loads(resp.read())
    except (urllib.error.URLError, ConnectionError):
        return None


def _sessions(game_board, n):
    """/status when the board has n sessions, else None."""
    status = _status_now(game_board)
    return status if status and status["sessions"] == n else None


def _status(game_board):
    """/status, asked again as a phone would while every place is busy."""
    return until(lambda: _status_now(game_board), "/status answered", poll=RETRY_S)


async def _valid_player(url, name="valid", retry=False):
    """A spectator from PLAYER_SOURCE. With retry it tries again as the phone client does
    (a refused or dropped connection, then again a moment later) until it is in."""

    async def attempt():
        client = GameClient(url, name)
        client.source = PLAYER_SOURCE
        try:
            await client.connect()
            await client.join("watch")
        except Exception:  # noqa: BLE001 - 503 or dropped while the flood holds every place
            await client.close()
            if not retry:
                raise
            return None
        return client

    if retry:
        tries = []

        def joined():
            """The client of the last try once it is in; a new try when the last one failed."""
            if tries and tries[-1].done() and tries[-1].result() is not None:
                return tries[-1].result()
            if not tries or tries[-1].done():
                tries.append(asyncio.create_task(attempt()))
            return None

        client = await until_async(joined, "%s joined" % name, poll=RETRY_S)
    else:
        client = await attempt()
    assert (await client.intent("ping"))["t"] == "pong"
    return client


# ---- RFC 6455 framing -----------------------------------------------------------------------


def test_framing_violations_close_with_the_right_code(game_board):
    port = game_board.board.http_port
    cases = (
        (frame(9, b"x" * 126), 1002),  # a control frame over 125 bytes
        (frame(9, b"ping", fin=False), 1002),  # a fragmented control frame
        (frame(3, b"x"), 1002),  # a reserved data opcode
        (frame(8, b"\x03"), 1002),  # a close frame with a 1-byte payload
        (frame(8, struct.pack("!H", 999)), 1002),  # close codes no peer may send
        (frame(8, struct.pack("!H", 1005)), 1002),
        (frame(8, struct.pack("!H", 1006)), 1002),
        (frame(8, struct.pack("!H", 1015)), 1002),
        (frame(8, struct.pack("!H", 2000)), 1002),
        (frame(8, struct.pack("!H", 1000) + b"\xc0\xaf"), 1007),  # reason not UTF-8
        (frame(1, b'{"t":"join","role":"watch","name":"\xc0\xaf"}'), 1007),  # overlong
        (frame(1, b'{"t":"join","role":"watch","name":"\xed\xa0\x80"}'), 1007),  # CESU
        (frame(1, b'{"t":"ping","c":1}\xf4\x90\x80\x80'), 1007),  # above U+10FFFF
        (frame(8, struct.pack("!H", 4321)), 4321),  # a valid private code is echoed
        (frame(8, struct.pack("!H", 1001)), 1001),
    )
    for data, expected in cases:
        sock, status = _upgrade(port)
        assert status.startswith(b"HTTP/1.1 101"), status
        sock.sendall(data)
        close = _close_of(sock)
        sock.close()
        assert close is not None and close[0] == expected, (data[:12], close)

    async def still_serving():
        client = await _valid_player(game_board.ws_url)
        await client.close()

    run(still_serving())


def test_a_half_sent_frame_is_closed_within_its_deadline(board_factory):
    board = board_factory(idle_timeout_ms=20000)  # the default idle timeout
    sock, status = _upgrade(board.board.http_port)
    assert status.startswith(b"HTTP/1.1 101")
    sock.sendall(frame(1, b'{"t":"join","role":"watch"}'))
    sock.sendall(b"\x81\x90\0\0\0\0" + b'{"t":')  # 16 bytes announced, 5 sent
    close = _close_of(sock, timeout=15)  # FRAME_MS is 3 s; idle would take 20 s
    sock.close()
    assert close == (4000, "frame not finished in time"), close


def test_a_socket_that_never_joins_is_closed(game_board):
    sock, status = _upgrade(game_board.board.http_port)
    assert status.startswith(b"HTTP/1.1 101")
    # pings every half second keep it talking (no idle close), but only a join would let
    # it stay: it is closed JOIN_MS (5 s) after the upgrade
    data = b""
    sock.settimeout(0.5)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            sock.sendall(frame(1, b'{"t":"ping","c":1}'))
            continue
        if not chunk:
            break
        data += chunk
        if b"join first" in data:
            break
    sock.close()
    at = data.rfind(b"\x88")
    assert at >= 0, data
    assert struct.unpack("!H", data[at + 2 : at + 4])[0] == 4002, data[at:]
    assert b"join first" in data[at:]


# ---- hostile text ----------------------------------------------------------------------------


def test_names_never_carry_surrogates_or_controls_to_anyone(game_board):
    async def scenario():
        url = game_board.ws_url
        watcher = await GameClient(url, "watcher").connect()
        await watcher.join("watch")
        raw = []
        watcher.on_text = raw.append  # every text frame the watcher gets, as received
        p1 = await GameClient(url, "p1").connect()
        escaped = '{"t":"join","role":"play","name":"A\\ud800B\\u0007C\\u202eD\\udfffE"}'
        await p1.send(escaped)
        await p1.until(lambda: p1.welcome is not None, what="welcome")
        assert p1.welcome["seat"] == 1
        await watcher.until(
            lambda: watcher.rooms and watcher.rooms[-1]["p"][0], what="the room with p1"
        )
        assert watcher.rooms[-1]["p"][0]["name"] == "ABCDE"
        for text in raw:
            text.encode("utf-8")  # strict: a lone surrogate would raise here
        await close_all(p1, watcher)

    run(scenario())


# ---- sequences and what an ack tells ----------------------------------------------------------


def test_a_huge_sequence_cannot_lock_the_seat(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        await obs.event("phase", ph="active", timeout=5)
        # 2**30 - 1 is just behind the seat's sequence on the circle of sequences (they wrap
        # to 1): a repeat, changing nothing; 5000 ahead is too far: refused
        for c, reply in (
            (2**30 - 1, {"t": "ack", "c": 2**30 - 1, "dup": True}),
            (p1._c + 5000, {"t": "err", "c": p1._c + 5000, "code": "BAD_SEQ"}),
        ):
            await p1.send(json.dumps({"t": "move", "c": c, "d": "N"}))
            await p1.until(lambda c=c: c in p1.replies, what="the answer to %d" % c)
            assert p1.replies[c] == reply
        # the seat goes on where it was: its next intents are applied, leave included
        assert (await p1.intent("ping"))["t"] == "pong"
        reply = await p1.intent("leave")
        assert reply["t"] == "ack" and "dup" not in reply, reply
        result = await obs.event("result", timeout=5)
        assert result["result"] == "forfeit" and result["winner"] == 2
        await close_all(p2, obs)

    run(scenario())


def test_acks_count_the_seats_own_commands_only(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        await obs.event("phase", ph="active", timeout=5)
        first = None
        for d in "NESW":
            reply = await p1.move(d)
            if reply["t"] == "ack":
                first = reply
                break
        assert first is not None and first["cs"] == 1
        # the opponent bumps into walls and moves: none of it shows in p1's next ack
        for _ in range(5):
            for d in "NESW":
                await p2.move(d)
        second = None
        for d in "NESW":
            reply = await p1.move(d)
            if reply["t"] == "ack":
                second = reply
                break
        assert second is not None and second["cs"] == 2, second
        await close_all(p1, p2, obs)

    run(scenario())


# ---- the inbound rate limit ----------------------------------------------------------------


def test_a_flooding_client_is_refused_then_closed_and_others_play_on(game_board):
    async def scenario():
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        flood = GameClient(game_board.ws_url, "flood", heartbeat_s=None)
        flood.source = "127.0.0.7"
        await flood.connect()
        await flood.join("watch")
        for c in range(1, 400):
            try:
                await flood.send(json.dumps({"t": "ping", "c": c}))
            except Exception:  # noqa: BLE001 - the board closed it, as it should
                break
        assert await flood.until_closed(10) == 1008
        limited = [e for e in flood.errors if e.get("code") == "RATE_LIMITED"]
        assert limited, flood.errors[-3:]
        assert len(flood.replies) < 200  # nowhere near one reply per frame
        # the players never noticed
        assert (await p1.intent("ping"))["t"] == "pong"
        await both_ready(p1, p2)
        await obs.event("phase", ph="active", timeout=5)
        await close_all(p1, p2, obs)

    run(scenario())


# ---- connection pressure ------------------------------------------------------------------------


def _hold(port, source, data):
    try:
        sock = _connect(port, source)
        if data:
            sock.sendall(data)
        return sock
    except OSError:
        return None


def test_floods_of_connections_never_end_the_board(game_board):
    port = game_board.board.http_port
    held = []

    async def scenario():
        player = await _valid_player(game_board.ws_url)
        # 300 idle connections, 100 upgrades at once and 70 half-sent requests, spread over
        # many source addresses so the per-source limit does not stop them first
        jobs = []
        for i in range(300):
            jobs.append((port, "127.0.%d.%d" % (10 + i // 200, 1 + i % 200), b""))
        for i in range(70):
            jobs.append((port, "127.0.20.%d" % (1 + i), b"GET / HTTP/1.1\r\nHost: x"))
        for sock in await asyncio.gather(*(asyncio.to_thread(_hold, *job) for job in jobs)):
            if sock is not None:
                held.append(sock)
        upgrades = await asyncio.gather(
            *(asyncio.to_thread(_upgrade, port, "127.0.30.%d" % (1 + i)) for i in range(100)),
            return_exceptions=True,
        )
        for item in upgrades:
            if not isinstance(item, BaseException):
                held.append(item[0])
        # the session cap held under 100 concurrent upgrades (2 + 4 + 2 spare)
        status = await asyncio.to_thread(_status, game_board)
        assert status["sessions"] <= 8, status
        # throughout: the player already in is served, and a newcomer gets in (retrying
        # like a phone while places held by the flood are freed)
        assert (await player.intent("ping"))["t"] == "pong"
        again = await _valid_player(game_board.ws_url, "newcomer", retry=True)
        for sock in held:
            sock.close()
        held.clear()
        # after: everything still works, and nothing the flood held is left (the board frees
        # each place as it notices its socket closed)
        status = await asyncio.to_thread(
            until, lambda: _sessions(game_board, 2), "the flood's places freed: 2 sessions left"
        )
        assert status["observers"] == 2, status
        assert (await player.intent("ping"))["t"] == "pong"
        assert status["http_evicted"] > 0 and status["http_refused"] >= 0
        p1, p2, obs = await two_players_and_observer(game_board.ws_url)
        await both_ready(p1, p2)
        await obs.event("phase", ph="active", timeout=10)
        await close_all(p1, p2, obs, player, again)

    try:
        run(scenario())
    finally:
        for sock in held:
            sock.close()
    assert game_board.alive()
    log = game_board.board.log()
    assert "MemoryError" not in log or "http: connection dropped" in log
