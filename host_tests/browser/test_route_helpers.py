# The browser tests' route helpers on real mazes of the engine (no browser): a player boxed in
# by a key near its start still gets two steps, there and back.
from browser_ui import cells_of, free_steps, two_free_steps

from game.engine import Match
from game.rules import OBJ_KEY


def maze_of(seed, side):
    """A match's maze as the browser tests see it through an observer's view."""
    m = Match(seed, side, side)
    objects = [
        (m.obj_kind[i], m.obj_owner[i], m.obj_variant[i], m.obj_cell[i])
        for i in range(len(m.obj_cell))
    ]
    keys = tuple(cell for kind, _, _, cell in objects if kind == OBJ_KEY)
    return (
        {"w": side, "h": side, "cells": dict(enumerate(m.cells)), "objects": objects},
        m.pos[1],
        keys,
    )


def test_a_start_boxed_in_by_a_key_gets_two_steps_there_and_back():
    # small 9x9, seed 419: player 1 starts in the corner (0), player 2's key is 2 steps away
    maze, start, keys = maze_of(419, 9)
    assert len(free_steps(maze, start, keys, 2)) == 1  # no cell two steps away without a key
    route = two_free_steps(maze, start, keys)
    assert len(route) == 2 and route[1] == (route[0] + 2) % 4
    assert cells_of(start, route, 9)[-1] == start
    assert not set(cells_of(start, route, 9)) & set(keys)


def test_two_free_steps_go_two_cells_away_when_they_can():
    for seed in range(20):
        maze, start, keys = maze_of(seed, 9)
        route = two_free_steps(maze, start, keys)
        assert len(route) == 2, seed
        cells = cells_of(start, route, 9)
        assert cells[-1] != start and not set(cells) & set(keys), seed
