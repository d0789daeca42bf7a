# Placement fairness over 1,000 seeds: both players' shortest start -> key -> exit paths are
# equally long (mirror placement in a point-symmetric maze), and never trivially short; for
# every maze preset and every ruleset (tools/fairness.py, `make fairness`).
from fairness import bot_match, figures, path_length, vision_share
from game import rules, rulesets
from game.engine import Match


def test_start_key_exit_paths_are_equal_over_1000_seeds_per_preset():
    for entry in rules.PRESETS:
        seeds = 1000 if entry[1] <= 15 else 200
        name, w, h, mean, diff, worst = figures(entry, seeds)
        assert worst == 0, name
        assert mean >= (w + h), name  # a real trip: key then exit, not next door


def test_every_ruleset_places_fairly():
    for entry in rulesets.RULESETS:
        name, w, h, mean, diff, worst = figures(entry, 300)
        assert worst == 0 and mean >= (w + h), name


def test_the_figure_would_notice_an_unfair_placement():
    m = Match(3, 15, 15)
    fair = path_length(m, 1)
    m.obj_cell[0] = m.start_cell[1]  # move seat 1's key onto its start: a shortcut
    assert path_length(m, 1) < fair == path_length(m, 2)


def test_one_vision_effect_leaves_most_of_the_maze_in_the_fog_in_the_new_rulesets():
    classic = vision_share(rulesets.RULESETS[0], 30)
    assert classic[1] == 169 / 225  # the square of radius 6 in the middle of 15x15
    sight = vision_share(rulesets.find("sight")[0], 30)
    assert sight[1] <= 81 / 225 and sight[0] < 0.6 * classic[0]
    quick = vision_share(rulesets.find("quick")[0], 30)
    assert quick[1] <= 49 / 81


def test_bots_finish_matches_of_every_ruleset():
    for entry in rulesets.RULESETS:
        for seed in range(3):
            moves, seconds, result = bot_match(seed, entry)
            assert result != "none" and moves > 0, (entry[0], seed)
