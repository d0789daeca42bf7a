# tools/bots.py: the one route finder (the tests walk an observer's map with it, the memory
# budget's players their own) and the fog-of-war player of `make mem`.
import random

from bots import BITS, FogOfWar, inside, path, route, step

W = H = 3


def open_maze(w=W, h=H):
    """Every passage inside a w x h map open, as a merged view holds cells."""
    cells = {}
    for cell in range(w * h):
        cells[cell] = sum(BITS[d] for d in range(4) if inside(cell, d, w, h))
    return cells


def walk(start, dirs, w=W):
    cells = [start]
    for d in dirs:
        cells.append(step(cells[-1], d, w))
    return cells


def test_path_is_shortest_and_goes_around_avoided_cells():
    cells = open_maze()
    assert path(cells, W, H, 0, 0) == []
    assert len(path(cells, W, H, 0, 8)) == 4
    around = path(cells, W, H, 0, 2, avoid=(1,))  # the middle of the top row is avoided
    assert len(around) == 4 and 1 not in walk(0, around)
    # the goal itself may be in avoid; a closed passage is never crossed
    assert path(cells, W, H, 0, 1, avoid=(1,)) == [1]
    cells[0] &= ~BITS[1]
    cells[1] &= ~BITS[3]
    assert path(cells, W, H, 0, 1) == [2, 1, 0]
    assert path(cells, W, H, 0, 1, avoid=(3, 4)) is None


def test_unseen_cells_end_a_route():
    cells = open_maze()
    del cells[1], cells[4]  # not seen: reachable, never crossed
    assert route(cells, W, H, 0, lambda c: c == 1) == [1]
    assert walk(0, route(cells, W, H, 0, lambda c: c == 2)) == [0, 3, 6, 7, 8, 5, 2]


def fog_view(cells, pos, objects=(), k=0, xo=0):
    return {
        "w": W,
        "h": H,
        "cells": cells,
        "objects": list(objects),
        "st": {"p": pos, "k": k, "xo": xo},
    }


def test_fog_of_war_player_heads_for_its_key_then_out_of_its_exit():
    fog = FogOfWar()
    rng = random.Random(1)
    # seat 1 at the bottom middle, its key straight north: direction 0 is a real answer
    view = fog_view(open_maze(), 7, [(0, 1, 0, 1), (1, 1, 3, 3)])
    fog.see(view)
    assert fog.choose(view, 1, rng) == 0
    # carrying it: to its exit, then out through it once open
    view = fog_view(open_maze(), 4, [(1, 1, 3, 3)], k=1)
    fog.see(view)
    assert fog.choose(view, 1, rng) == 3
    view = fog_view(open_maze(), 3, [(1, 1, 3, 3)], k=1, xo=1)
    assert fog.choose(view, 1, rng) == 3
    fog.forget()
    assert fog.cells == {} and fog.things == {}


def test_fog_of_war_player_explores_around_the_opponents_key():
    fog = FogOfWar()
    seen = {c: f for c, f in open_maze().items() if c in (0, 1, 3, 4)}
    view = fog_view(seen, 0, [(0, 2, 0, 1)])  # the opponent's key east of it
    fog.see(view)
    for seed in range(20):
        assert fog.choose(view, 1, random.Random(seed)) == 2  # around it, to the unseen
