# Every number and code of the duel in one place: directions, phases, refusal codes, events,
# object kinds, limits, and the rules presets (rulesets as data).
from game.compat import const

# Directions and passage flags. A cell's byte in the maze holds one bit per open side.
N = const(0)
E = const(1)
S = const(2)
W = const(3)
DIR_BITS = (1, 2, 4, 8)  # N, E, S, W
DIR_DX = (0, 1, 0, -1)
DIR_DY = (-1, 0, 1, 0)
DIR_OPPOSITE = (2, 3, 0, 1)
DIR_NAMES = ("N", "E", "S", "W")

# Compass bearings (eight, clockwise from north); NO_BEARING means no hint.
NO_BEARING = const(255)
BEARING_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")

# Match phases.
WAITING = const(0)
COUNTDOWN = const(1)
ACTIVE = const(2)
FINISHED = const(3)
PHASE_NAMES = ("waiting", "countdown", "active", "finished")

# Command kinds accepted into the FIFO.
CMD_MOVE = const(1)  # arg: direction 0..3
CMD_DROP = const(2)  # arg: 0

# Answers of enqueue() / process(). OK is the only acceptance; every other value is a refusal
# that leaves the authoritative state and the state sequence unchanged.
OK = const(0)
BAD_COMMAND = const(1)  # unknown command kind, bad argument or wrong types
NOT_PLAYER = const(2)  # not seat 1 or 2 (observers cannot enqueue)
QUEUE_FULL = const(3)  # the 16-entry FIFO is full
PHASE = const(4)  # match is waiting or finished
COUNTDOWN_REFUSED = const(5)  # command during the countdown
OUT_OF_ORDER = const(6)  # timestamp earlier than the authoritative clock
COOLDOWN = const(7)  # inside this player's cooldown
WALL = const(8)  # no open passage that way
NO_KEY = const(9)  # drop with an empty inventory
EXIT_CLOSED = const(10)  # outward move from own exit before it is open
NOT_YOUR_EXIT = const(11)  # outward move from the opponent's exit
EXITED = const(12)  # this player has already left the maze
EMPTY = const(13)  # process() with nothing queued
CODE_NAMES = (
    "OK",
    "BAD_COMMAND",
    "NOT_PLAYER",
    "QUEUE_FULL",
    "PHASE",
    "COUNTDOWN",
    "OUT_OF_ORDER",
    "COOLDOWN",
    "WALL",
    "NO_KEY",
    "EXIT_CLOSED",
    "NOT_YOUR_EXIT",
    "EXITED",
    "EMPTY",
)

# Events emitted by process() / advance(): (kind, a, b).
EV_PHASE = const(1)  # a=new phase
EV_MOVED = const(2)  # a=player, b=destination cell
EV_VISION = const(3)  # a=player consumed a vision artifact, b=its object index
EV_KEY_PICKED = const(4)  # a=player, b=key owner
EV_MEETING = const(5)  # a=mover, b=meeting sequence after the meeting
EV_KEY_RETURNED = const(6)  # a=key owner, b=player who was carrying it
EV_COMPASS = const(7)  # a=player, b=bearing
EV_EXIT_OPENED = const(8)  # a=player
EV_KEY_DROPPED = const(9)  # a=player, b=key owner
EV_EXITED = const(10)  # a=player, b=0 first out / 1 inside the finish window
EV_RESULT = const(11)  # a=result kind, b=winner seat (0 for a draw)
EVENT_NAMES = (
    "",
    "phase",
    "moved",
    "vision",
    "key_picked",
    "meeting",
    "key_returned",
    "compass",
    "exit_opened",
    "key_dropped",
    "exited",
    "result",
)

# Match results.
RESULT_NONE = const(0)
RESULT_WIN = const(1)
RESULT_DRAW = const(2)
RESULT_FORFEIT = const(3)
RESULT_NAMES = ("none", "win", "draw", "forfeit")

# Ground object kinds (object records carry kind, owner, variant, cell).
OBJ_KEY = const(0)  # owner 1/2, variant 0
OBJ_EXIT = const(1)  # owner 1/2, variant = outward direction 0..3
OBJ_COMPASS = const(2)  # owner 1/2, variant 0
OBJ_VISION = const(3)  # owner 0 (shared), variant 0

# Fixed limits of seed 000.
QUEUE_DEPTH = const(16)  # command FIFO entries
RADIUS_NORMAL = const(3)  # player projection radius
RADIUS_VISION = const(6)  # radius while a vision effect lasts
VISION_MOVES = const(10)  # effect counter set by an artifact
MAX_RADIUS = const(9)  # the largest radius a ruleset may give (one digit in a view's status)
FINISH_WINDOW_MS = const(200)  # second exit inside this window is a draw
MAX_EVENTS = const(12)  # events one process()/advance() can emit (worst case is 10)
MIN_SIDE = const(5)
MAX_SIDE = const(32)
MAX_ARTIFACT_PAIRS = const(4)
# Timestamps, and a timestamp plus a cooldown or countdown (<= 60 s), stay below 2**30: small
# ints on a 32-bit board, never heap objects (about 12.4 days of match clock).
CLOCK_LIMIT_MS = const(0x3FFFFFFF - 0x20000)
RECORD_MAX = const(512)  # bytes of one view record, the WebSocket gateway's message bound
PROTOCOL_VERSION = const(1)  # "v" of every record (docs/protocol.md, the versioning rule)
ROLE_NAMES = ("obs", "p1", "p2")  # "r" of a view record, indexed by role (0 = observer)

# Rules presets as data: (name, width, height, artifact pairs, braid percent, cooldown ms,
# countdown ms). A tuple, never a dict, so nothing depends on iteration order. The board's
# settings choose one by name (net/settings.py reads the names from here).
DEFAULT_PRESET = "classic"
PRESETS = (
    ("small", 9, 9, 1, 40, 250, 3000),
    ("classic", 15, 15, 2, 40, 250, 3000),
    ("large", 21, 21, 3, 40, 250, 3000),
    ("huge", 32, 32, 4, 40, 250, 3000),
)


def preset(name):
    """The preset tuple called name, or None."""
    for entry in PRESETS:
        if entry[0] == name:
            return entry
    return None
