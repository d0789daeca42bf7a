# Placement fairness over 1,000 seeds: both players' shortest start -> key -> exit paths are
# equally long (mirror placement in a point-symmetric maze), and never trivially short.
from fairness import figures, path_length
from game import rules
from game.engine import Match


def test_start_key_exit_paths_are_equal_over_1000_seeds_per_preset():
    for entry in rules.PRESETS:
        seeds = 1000 if entry[1] <= 15 else 200
        name, w, h, mean, diff, worst = figures(entry, seeds)
        assert worst == 0, name
        assert mean >= (w + h), name  # a real trip: key then exit, not next door


def test_the_figure_would_notice_an_unfair_placement():
    m = Match(3, 15, 15)
    fair = path_length(m, 1)
    m.obj_cell[0] = m.start_cell[1]  # move seat 1's key onto its start: a shortcut
    assert path_length(m, 1) < fair == path_length(m, 2)
