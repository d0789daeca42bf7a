# The golden view records (host_tests/golden_views/) are what tools/dev/make_golden_views.py makes
# today: the valid ones are the board's real records (same seeds, same projector), and no file
# was edited by hand or left behind by a renamed case. CPython only (the generator is a tool).
from dev import make_golden_views
from golden_views import golden_files


def test_the_golden_files_are_what_the_generator_writes():
    files = make_golden_views.build()
    on_disk = {}
    for path in golden_files():
        with open(path, encoding="utf-8") as f:
            on_disk[path[path.rfind("/") + 1 :]] = f.read()
    assert sorted(on_disk) == sorted(files)
    for name, text in files.items():
        assert on_disk[name] == text, name + " differs: run python tools/dev/make_golden_views.py"
