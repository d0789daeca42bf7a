# The phone client's own record handling on the golden view records (host_tests/golden_views/,
# docs/protocol.md "Golden views"): the page's parse() and its reassembler `views`, reachable as
# window.__md, give every file exactly the verdict it expects, the same verdict
# tools/view_decoder.py gives (host_tests/core/test_golden_views.py). Real Chromium; no board:
# the page is served from a made-up origin by Playwright itself.
import pytest

from build_image import web_files
from golden_views import REASONS, golden_files, read_case, verdict

pytestmark = pytest.mark.browser

ORIGIN = "http://board.test"

# Every record of a case through the page's own code, as onMsg() and record() take it: a
# message that parse() refuses is a "json" rejection; feed() returns the view a record completes
# or throws the reason word. Stops at the first rejection, as the verdict does.
RUN = """(cases) => cases.map((recs) => {
  const { parse, views } = window.__md;
  views.part = null;
  const out = [];
  for (const raw of recs) {
    const r = parse(raw);
    if (!r) { out.push("json"); break; }
    if (r.t !== "view" && r.v === undefined) { out.push("not a record for onMsg"); break; }
    let v;
    try { v = views.feed(r, raw); } catch (why) {
      out.push(typeof why === "string" ? why : "exception: " + why);
      break;
    }
    const e = v && v.e;
    out.push(v && { s: e.s, r: e.r, ph: e.ph, w: e.w, h: e.h, m: e.m, n: e.n, st: v.st,
      objects: v.o, cells: Array.from(v.c) });
  }
  return out;
})"""


def _outcome(out):
    """A page outcome as golden_views.verdict() takes it (the decoder's view dict)."""
    if isinstance(out, dict):
        out["cells"] = {c: f for c, f in enumerate(out["cells"]) if f >= 0}
    return out


def test_the_client_gives_every_golden_file_its_verdict(browser):
    page_html = web_files()["index.html"]  # the page as the board serves it (minified)
    cases = [read_case(path) for path in golden_files()]
    assert len(cases) > 40
    context = browser.chromium.new_context()
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        def serve(route):
            if route.request.url.rstrip("/") == ORIGIN:
                route.fulfill(status=200, content_type="text/html", body=page_html)
            else:
                route.fulfill(status=404, body="")

        page.route("**/*", serve)
        page.goto(ORIGIN + "/")
        page.wait_for_function("window.__md !== undefined")
        results = page.evaluate(RUN, [recs for _, _, recs in cases])
        failures = []
        for (name, expected, _), outs in zip(cases, results):
            for out in outs:
                assert not isinstance(out, str) or out in REASONS, (name, out)
            got = verdict([_outcome(out) for out in outs])
            if got != expected:
                failures.append("%s: expected %s, got %s" % (name, expected, got))
        assert not failures, "\n".join(failures)
        assert not errors, errors
        # The page is the real one, untouched: the join screen, no socket opened.
        assert page.evaluate("document.body.dataset.screen") == "join"
    finally:
        context.close()
