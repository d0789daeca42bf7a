# The terminal client's pure parts (tools/term_client.py): keys typed -> actions, the protocol's
# messages and views -> what the screen shows, render(state) -> lines. The views are the
# records of docs/protocol.md's examples, reassembled as the client does (ws_game_client.merge).
import json

from term_client import MapMemory, TermState, parse_keys, render, strip_ansi
from ws_game_client import merge, ws_url

# docs/protocol.md, "Examples": player 1 on a 9x9 maze at cell 38 = (2,4), radius 3, carrying
# its own key, two compasses in sight (21 and 59).
P1 = (
    '{"v":1,"t":"view","s":40,"r":"p1","ph":"active","w":9,"h":9,"m":0,"i":0,"n":1,'
    '"st":{"p":38,"k":1,"vm":0,"rad":3,"cp":-1,"xo":0,"xd":0,"res":"none","win":0},'
    '"o":[[2,1,0,21],[2,2,0,59]],"c":[[9,"51542d"],[18,"52ffa9"],[27,"3c53ac"],'
    '[36,"6fd6a9"],[45,"5553ac"],[54,"5796af"],[63,"7fc781"]]}'
)
# The same player under the vision effect (radius 6: the whole map), the opponent in sight.
P1_VISION = (
    '{"v":1,"t":"view","s":41,"r":"p1","ph":"active","w":9,"h":9,"m":0,"i":0,"n":1,'
    '"st":{"p":38,"k":1,"vm":10,"rad":6,"cp":-1,"xo":0,"xd":0,"res":"none","win":0,'
    '"opponent":{"p":42,"k":2}},"o":[[1,1,0,6],[1,2,2,74],[2,1,0,21],[2,2,0,59],'
    '[3,0,0,75],[3,0,0,5]],"c":[[0,"6eea86eec51542d3fd52ffa96d53c53ac5556fd6a97f95553ac53c5'
    '796aff857fc7815453bb92abb9"]]}'
)
# The observer's view of a finished 15x15 match (two records): seat 1 left first and won.
OBS = (
    '{"v":1,"t":"view","s":115,"r":"obs","ph":"finished","w":15,"h":15,"m":0,"i":0,"n":2,'
    '"st":{"players":[{"p":30,"k":1,"vm":0,"rad":3,"cp":-1,"xo":1,"xd":1,"xt":29938},'
    '{"p":161,"k":2,"vm":0,"rad":3,"cp":-1,"xo":0,"xd":0,"xt":-1}],"res":"win","win":1},'
    '"o":[[1,1,3,30],[1,2,1,194],[2,1,0,124],[2,2,0,100]],"c":[[0,"6c6c6aaaec6ec2c53fd56c697'
    "d53ed7ed5553fa97bc3955557d2fc6bc3c43d3bd785516d6bd6bac53af94157a952ad56ad2bef96c56ad53afa"
    'c57a95396fbe87a957a856ad5416fac53ae97e9794552d7ec7c13c3e93f87d55556c3ed6afc5557bd7bc5"]]}',
    '{"v":1,"t":"view","s":115,"r":"obs","ph":"finished","w":15,"h":15,"m":0,"i":1,"n":2,'
    '"c":[[199,"7d693957fc5383b93baaa93939"]]}',
)
WELCOME = {
    "t": "welcome",
    "role": "play",
    "seat": 1,
    "token": "a4426c27b0c5f847f0b78abe3ba251df",
    "last": 0,
    "resumed": False,
    "mn": 1,
    "w": 9,
    "h": 9,
    "cool": 100,
    "cd": 3000,
    "idle": 20000,
    "grace": 1500,
}
ROOM = {
    "t": "room",
    "mn": 1,
    "ph": "active",
    "p": [
        {"seat": 1, "name": "ann", "on": True, "ready": False},
        {"seat": 2, "name": "bob", "on": False, "ready": False},
    ],
    "obs": 1,
    "max_obs": 4,
}


def view(*records):
    return merge([json.loads(r) for r in records])


def player(*views):
    state = TermState("ws://127.0.0.1:8080/ws", name="ann")
    state.take(WELCOME)
    state.take(ROOM)
    for v in views:
        state.see(view(v) if isinstance(v, str) else v)
    return state


def cell_text(lines, w, cell):
    """The two characters drawn inside a cell: map line 2y+1, columns 3x+1 .. 3x+2."""
    x, y = cell % w, cell // w
    return lines[2 * y + 1].ljust(3 * w + 1)[3 * x + 1 : 3 * x + 3]


def walls(lines, w, cell):
    """(N, E, S, W) as drawn around a cell: True for a wall."""
    x, y = cell % w, cell // w
    top, mid, bottom = (lines[2 * y + k].ljust(3 * w + 1) for k in (0, 1, 2))
    return (
        top[3 * x + 1 : 3 * x + 3] == "--",
        mid[3 * x + 3] == "|",
        bottom[3 * x + 1 : 3 * x + 3] == "--",
        mid[3 * x] == "|",
    )


def test_keys_arrows_wasd_and_commands():
    actions, rest = parse_keys(b"\x1b[A\x1b[Cwasd\x1bOBrxq\x03")
    assert rest == b""
    assert actions == [
        ("move", "N"),
        ("move", "E"),
        ("move", "N"),
        ("move", "W"),
        ("move", "S"),
        ("move", "E"),
        ("move", "S"),
        ("ready",),
        ("drop",),
        ("quit",),
        ("quit",),
    ]
    # an escape sequence cut between two reads waits for its end; unknown ones are ignored
    actions, rest = parse_keys(b"W\x1b[")
    assert actions == [("move", "N")] and rest == b"\x1b["
    assert parse_keys(rest + b"D") == ([("move", "W")], b"")
    assert parse_keys(b"\x1b[1;5C\x1b[H?z") == ([("move", "E")], b"")


def test_ws_url_from_any_board_url():
    assert ws_url("ws://127.0.0.1:8080/ws") == "ws://127.0.0.1:8080/ws"
    assert ws_url("http://192.168.4.1/") == "ws://192.168.4.1/ws"
    assert ws_url("http://127.0.0.1:8080") == "ws://127.0.0.1:8080/ws"
    assert ws_url("127.0.0.1:8080") == "ws://127.0.0.1:8080/ws"


def test_player_view_draws_the_own_square_and_the_status():
    state = player(P1)
    lines = render(state)
    assert cell_text(lines, 9, 38) == "@1"
    assert cell_text(lines, 9, 21) == "C1" and cell_text(lines, 9, 59) == "C2"
    # cell 38 has flags 0xd = N + S + W open: only its east side is a wall
    assert walls(lines, 9, 38) == (False, True, False, False)
    # cell 18 (0,2) has flags 5 = N + S: walls east and west (the map's border)
    assert walls(lines, 9, 18) == (False, True, False, True)
    # nothing outside the square is drawn: row 0 and column 6.. were never seen
    assert cell_text(lines, 9, 4) == "  " and not lines[0].strip()
    assert cell_text(lines, 9, 42) == "  "
    text = "\n".join(lines)
    assert "You at (2,4)  key: yours  vision: radius 3  compass: none  exit: not seen yet" in text
    assert "Opponent: out of sight" in text
    assert "Room: 1 ann (here)  2 bob (away)  watching 1/4" in text
    assert "ann, seat 1" in text and "match 1: active" in text
    assert "Result: none yet" in text


def test_opponent_and_objects_in_sight():
    lines = render(player(P1_VISION))
    assert cell_text(lines, 9, 42) == "P2"
    assert cell_text(lines, 9, 6) == "E1" and cell_text(lines, 9, 74) == "E2"
    assert cell_text(lines, 9, 5) == "V*" and cell_text(lines, 9, 75) == "V*"
    text = "\n".join(lines)
    assert "Opponent: in sight at (6,4), carrying key 2" in text
    assert "vision: radius 6, 10 moves left" in text
    assert "exit: at (6,0), closed" in text
    assert len([line for line in lines if line.startswith("+")]) == 10  # 9 rows: 10 wall lines


def test_map_memory_keeps_walls_and_last_seen_objects_never_the_opponent():
    # first the whole map (vision), then the radius-3 square again: what is out of sight now
    # stays drawn (walls), objects as last seen in lower case, and no opponent
    state = player(P1_VISION, P1)
    lines = render(state)
    assert cell_text(lines, 9, 42) == "  "  # the opponent is never carried over
    assert cell_text(lines, 9, 6) == "e1" and cell_text(lines, 9, 74) == "e2"
    assert cell_text(lines, 9, 5) == "v*" and cell_text(lines, 9, 75) == "v*"
    assert cell_text(lines, 9, 21) == "C1"  # in sight again
    assert walls(lines, 9, 0) == (True, False, False, True)  # seen earlier: flags 6 = E + S
    assert "Opponent: out of sight" in "\n".join(lines)
    assert "exit: at (6,0), closed" in "\n".join(lines)  # remembered
    # seen again without the object: it is gone from the memory
    memory = MapMemory()
    memory.see(view(P1_VISION))
    moved = view(P1)
    moved["cells"][6] = 3
    memory.see(moved)
    assert memory.find(1, 1) is None and memory.find(1, 2) == (2, 74)


def test_a_new_match_starts_a_new_memory():
    state = player(P1_VISION, P1)
    state.take(dict(ROOM, mn=2, ph="countdown"))
    state.see(view(P1))
    lines = render(state)
    assert cell_text(lines, 9, 0) == "  " and cell_text(lines, 9, 6) == "  "
    assert walls(lines, 9, 0) == (False, False, False, False)  # not known any more
    assert "match 2" in "\n".join(lines)


def test_spectator_sees_everything_and_the_result():
    state = TermState("ws://b/ws", watch=True)
    state.take({"t": "welcome", "role": "watch", "seat": 0, "mn": 4, "w": 15, "h": 15})
    state.see(view(*OBS))
    lines = render(state)
    assert cell_text(lines, 15, 161) == "P2"
    assert cell_text(lines, 15, 30) == "O1"  # seat 1 is out (not drawn); its exit is open
    assert cell_text(lines, 15, 194) == "E2"
    assert cell_text(lines, 15, 124) == "C1" and cell_text(lines, 15, 100) == "C2"
    assert all(line.startswith("+") for line in lines[0:31:2])  # every wall line drawn
    text = "\n".join(lines)
    assert "P1 at out  key: seat 1's" in text and "exit: open" in text
    assert "P2 at (11,10)  key: seat 2's" in text
    assert "Result: seat 1 won" in text and "watching" in text
    assert "Keys: q quit" in text


def test_results_as_a_player_sees_them():
    finished = json.loads(P1)
    finished["ph"] = "finished"
    finished["st"].update(res="forfeit", win=2)
    text = "\n".join(render(player(view(json.dumps(finished)))))
    assert "Result: you lost (forfeit)  (r: rematch)" in text
    finished["st"].update(res="draw", win=0)
    assert "Result: draw" in "\n".join(render(player(view(json.dumps(finished)))))


def test_colour_and_clipping():
    state = player(P1)
    plain = render(state)
    painted = render(state, color=True)
    assert "\x1b[" in "".join(painted)
    assert [strip_ansi(line).rstrip() for line in painted] == [line.rstrip() for line in plain]
    narrow = render(state, color=True, width=20)
    assert max(len(strip_ansi(line)) for line in narrow) <= 20


def test_events_and_refusals_show_on_the_last_line():
    state = player(P1)
    state.take({"t": "err", "c": 5, "code": "WALL"})
    assert "Last: refused: WALL" in render(state)
    state.take({"t": "ev", "e": "key_picked", "s": 7, "seat": 1, "owner": 1})
    assert "Last: key picked (seat 1, owner 1)" in render(state)
    state.take({"t": "err", "code": "BAD_TOKEN"})
    assert state.token is None  # the next join asks for a new seat
