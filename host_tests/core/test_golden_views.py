# The golden view records (host_tests/golden_views/, docs/protocol.md "Golden views") through
# tools/view_decoder.py: every file's records, fed in order to a fresh decoder, give exactly the
# verdict the file expects. The phone client reads the same files
# (host_tests/browser/test_client_golden_views.py). Both interpreters.
from golden_views import REASONS, golden_files, read_case, verdict
from view_decoder import ViewDecoder, ViewError


def run(recs):
    """The verdict of tools/view_decoder.py on one sequence of records."""
    dec = ViewDecoder()
    outcomes = []
    for rec in recs:
        try:
            outcomes.append(dec.feed(rec))
        except ViewError as exc:
            assert exc.reason in REASONS, exc.reason
            outcomes.append(exc.reason)
            break
    return verdict(outcomes)


def test_every_golden_file_gets_its_verdict_from_the_decoder():
    failures = []
    for path in golden_files():
        name, expected, recs = read_case(path)
        got = run(recs)
        if got != expected:
            failures.append("%s: expected %s, got %s" % (name, expected, got))
    assert not failures, "\n".join(failures)


def test_the_golden_files_cover_every_verdict_and_role():
    verdicts = set()
    roles = set()
    multi = 0
    for path in golden_files():
        name, expected, recs = read_case(path)
        assert path.endswith("/" + name + ".txt"), (path, name)
        word = expected.split(" ")
        verdicts.add(word[1] if word[0] == "error" else word[0])
        if word[0] == "ok":
            roles.add(word[2])
            multi += word[7] != "n=1"
    assert verdicts == set(REASONS) | {"ok", "incomplete"}, verdicts
    assert roles == {"r=p1", "r=p2", "r=obs"}, roles
    assert multi >= 4
