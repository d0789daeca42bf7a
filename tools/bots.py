# Players for scripted matches (CPython): the maze as the protocol describes it, the one
# breadth-first route finder, and the fog-of-war player of the bots (tools/bot_runner.py).
#
#   route(cells, w, h, start, is_goal, avoid, rng)  shortest directions to a cell where is_goal
#   path(cells, w, h, start, goal, avoid)           ... to one cell (the gateway and browser
#                                                   tests walk an observer's map with it)
#   FogOfWar()                                      what one player has seen this match, and
#                                                   its next step (tools/bot_runner.py)
#
# cells maps a cell index to its passage flags, as a merged view holds them (docs/protocol.md,
# "Cells": N=1, E=2, S=4, W=8); objects are (kind, owner, variant, cell), kind 0 a key, 1 an exit.
from collections import deque

# Directions as intents name them, their steps, and the passage flag of each.
DIRS = "NESW"
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
BITS = (1, 2, 4, 8)


def inside(cell, d, w, h):
    """Whether the step from cell in direction d stays on the w x h map."""
    x = cell % w + DX[d]
    y = cell // w + DY[d]
    return 0 <= x < w and 0 <= y < h


def step(cell, d, w):
    return cell + DX[d] + DY[d] * w


def route(cells, w, h, start, is_goal, avoid=(), rng=None):
    """The shortest list of directions from start, over open passages, to a neighbouring or
    farther cell where is_goal holds, never entering a cell of avoid; None if there is none.
    A cell missing from cells (not seen yet) can be reached but not crossed. rng (a
    random.Random) shuffles the sides tried from each cell: equal routes are picked at random."""
    came = {start: None}  # cell -> (previous cell, direction taken)
    queue = deque([start])
    while queue:
        here = queue.popleft()
        flags = cells.get(here)
        if flags is None:
            continue  # unseen: its passages are unknown
        dirs = [0, 1, 2, 3]
        if rng is not None:
            rng.shuffle(dirs)
        for d in dirs:
            if not flags & BITS[d] or not inside(here, d, w, h):
                continue
            nxt = step(here, d, w)
            if nxt in came or nxt in avoid:
                continue
            came[nxt] = (here, d)
            if is_goal(nxt):
                dirs = []
                while came[nxt] is not None:
                    nxt, d = came[nxt]
                    dirs.append(d)
                return dirs[::-1]
            queue.append(nxt)
    return None


def path(cells, w, h, start, goal, avoid=()):
    """Shortest list of directions from start to goal, never through a cell of avoid (goal
    itself may be one), or None."""
    if start == goal:
        return []
    avoid = [cell for cell in avoid if cell != goal]
    return route(cells, w, h, start, lambda cell: cell == goal, avoid)


def find_object(view, kind, owner):
    """(variant, cell) of the object of kind and owner in view, or None."""
    for k, o, variant, cell in view["objects"]:
        if k == kind and o == owner:
            return variant, cell
    return None


class FogOfWar:
    """A player who knows only its own square (radius 3): it keeps the cells and objects it has
    seen this match, walks to its own key once seen, then to its own exit and out; otherwise it
    explores the nearest unseen cell (random among equals), around the opponent's key."""

    def __init__(self):
        self.forget()

    def forget(self):
        """A new match (a new maze): nothing seen yet."""
        self.cells = {}  # index -> passage flags
        self.things = {}  # (kind, owner) -> (variant, cell)

    def see(self, view):
        """Remember what a complete view of this player shows."""
        # (line of sight: a cell of the square out of sight comes as 0, not seen)
        cells = {cell: flags for cell, flags in view["cells"].items() if flags}
        self.cells.update(cells)
        for key in [k for k, (_, cell) in self.things.items() if cell in cells]:
            del self.things[key]  # seen again: where it is now is in this view, or nowhere
        for kind, owner, variant, cell in view["objects"]:
            self.things[(kind, owner)] = (variant, cell)

    def choose(self, view, seat, rng):
        """The next direction for this player in an active match, or None (nothing sensible)."""
        st = view["st"]
        w, h = view["w"], view["h"]
        pos = st["p"]
        own_exit = self.things.get((1, seat))
        if st["xo"] and own_exit is not None and own_exit[1] == pos:
            return own_exit[0]  # out through the open exit
        goal = None
        if st["k"] != seat:
            own_key = self.things.get((0, seat))
            goal = own_key[1] if own_key else None
        elif own_exit is not None:
            goal = own_exit[1]
        other_key = self.things.get((0, 3 - seat))
        avoid = (other_key[1],) if other_key else ()
        way = None
        if goal is not None:
            way = route(self.cells, w, h, pos, lambda c: c == goal, avoid, rng)
        if way is None:  # explore: the nearest cell not seen yet
            way = route(self.cells, w, h, pos, self._unseen, avoid, rng)
        if way is None:
            way = route(self.cells, w, h, pos, self._unseen, (), rng)
        if way:
            return way[0]
        flags = self.cells.get(pos, 0)
        open_sides = [d for d in range(4) if flags & BITS[d] and inside(pos, d, w, h)]
        return rng.choice(open_sides) if open_sides else None

    def _unseen(self, cell):
        return cell not in self.cells
