# Golden scenario files: seeded matches whose digests were recorded once; every interpreter
# must replay them to the same digests (a match is a pure function of its inputs).
from driver import digest_trace
from golden_matches import EVERY, GOLDEN


def test_golden_matches_replay_to_the_recorded_digests():
    assert len(GOLDEN) >= 6
    for seed, preset, steps, expected in GOLDEN:
        assert tuple(digest_trace(seed, preset, steps, EVERY)) == expected, (seed, preset)


def test_golden_matches_cover_wins_meetings_and_every_preset():
    from driver import new_match, play
    from game import rules

    presets = set()
    results = set()
    meetings = 0
    for seed, preset, steps, _ in GOLDEN:
        m = new_match(seed, preset)
        play(m, seed, steps)
        presets.add(preset)
        results.add(m.result)
        meetings += m.meeting_seq
    assert presets == set(p[0] for p in rules.PRESETS)
    assert rules.RESULT_WIN in results
    assert meetings > 0
