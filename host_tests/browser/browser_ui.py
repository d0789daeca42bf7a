# Driving the phone client (firmware/web/index.html) in Chromium for the end-to-end tests.
# A Phone is one browser context (its own localStorage, like one phone) with one page; it
# records every WebSocket frame the page sends and receives, and acts only through the page's
# own controls: taps on the D-pad, swipes on the maze (real touch events through the DevTools
# protocol), keys, buttons. What the page shows is read from its DOM: the HUD, the toast, and
# the state attributes on <body> (data-screen, data-conn, data-phase, data-pos, data-seen,
# data-s, data-result) that the client keeps for exactly this purpose. The toast is a moment's
# message that the next one replaces (a key coming into sight replaces the compass's reading in
# the same instant), so every toast the page shows is recorded (TOAST_LOG) and the tests wait
# on that history, never on the toast showing now.
#
# observe(ws_url) is an independent observer (Python websockets + tools/view_decoder.py) that
# tells the tests where the walls, keys and exits are, so they can script a match.
import json
import os
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from websockets.sync.client import connect

from bots import BITS, DIRS, find_object, inside, path, step
from view_decoder import ViewDecoder, ViewError

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
# Debian's chromium; MAZE_CHROMIUM only exists to check the missing-browser path of conftest.
CHROMIUM = os.environ.get("MAZE_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = "Galaxy S5"  # Playwright's descriptor: 360x640 CSS px, mobile, touch (a small phone)
PIXEL = "Pixel 7"  # 412x839 CSS px (412x915 screen), mobile, touch
IPHONE = "iPhone 13"  # 390x664 CSS px (390x844 screen), mobile, touch; Chromium all the same
TV = {"viewport": {"width": 1280, "height": 720}}  # the spectator screen on the table
TV_1080 = {"viewport": {"width": 1920, "height": 1080}}  # a 1080p television
WAIT_MS = 10_000  # default for every wait on the page (conditions, never fixed sleeps)
# For waits on a chain of states that a loaded machine may take long to reach: bounds a hang,
# it is not a pace the page must keep.
SLOW_MS = 60_000
KEYS = ("ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft")
# what the axe checks hold the page to: WCAG 2.0-2.2, levels A and AA
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
WASD = ("w", "d", "s", "a")
__all__ = ["DIRS", "find_object", "path", "step"]

# Every toast the page shows, in order, in window.__toasts (a page script of each Phone's page,
# run before the page's own, whatever init scripts the test adds to the context). The page sets
# the toast's markup (names in <bdi>) at once: each batch of changes to #toast is one toast, its
# whole text ("" clears it). Until the parser has made #toast the whole document is watched,
# then only #toast.
TOAST_LOG = """
(() => {
  const log = (window.__toasts = []);
  const take = (records) => {
    const el = document.getElementById("toast");
    if (el.textContent && records.some((r) => el.contains(r.target))) log.push(el.textContent);
  };
  const early = new MutationObserver((records) => {
    const el = document.getElementById("toast");
    if (!el) return;
    take(records);
    early.disconnect();
    const all = { childList: true, characterData: true, subtree: true };
    new MutationObserver(take).observe(el, all);
  });
  early.observe(document, { childList: true, subtree: true });
})();"""


class BrowserKit:
    """The Playwright instance and the one Chromium of the test session."""

    def __init__(self, pw, chromium):
        self.pw = pw
        self.chromium = chromium

    def phone(self, url, device=PHONE, init_script=None, **extra):
        """A phone: its own browser context (storage) sized and touch-enabled as `device`;
        init_script runs in every page before the page's own (e.g. a navigator stand-in)."""
        options = dict(self.pw.devices[device])
        options.pop("default_browser_type", None)  # always Chromium, whatever the device
        options.update(extra)
        context = self.chromium.new_context(**options)
        if init_script:
            context.add_init_script(init_script)
        return Phone(context, url)

    def screen(self, url, **extra):
        options = dict(TV)
        options.update(extra)
        return Phone(self.chromium.new_context(**options), url)

    def tv(self, url, init_script=None, **extra):
        options = dict(TV_1080)
        options.update(extra)
        context = self.chromium.new_context(**options)
        if init_script:
            context.add_init_script(init_script)
        return Phone(context, url)


class Phone:
    def __init__(self, context, url, tab_of=None):
        self.context = context
        self.tab_of = tab_of  # another tab of the same browser: closing it closes only the tab
        self.url = url
        self.page = context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.frames = []  # (monotonic time, socket number, "sent"/"recv", parsed JSON or None)
        self.sockets = 0
        self.errors = []
        self.requests = []  # every URL the page asked for
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("websocket", self._socket)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.cdp = context.new_cdp_session(self.page)
        self.page.add_init_script(TOAST_LOG)  # this page's own: a tab of the context has its own
        self.page.goto(url)

    def close(self):
        if self.tab_of is None:
            self.context.close()
        elif not self.page.is_closed():
            self.page.close()

    def tab(self, url=None):
        """Another tab of the same browser (same localStorage, its own sessionStorage)."""
        return Phone(self.context, url or self.url, tab_of=self)

    def seat_token(self):
        """The seat token of this tab (sessionStorage), or None."""
        return self.page.evaluate("(JSON.parse(sessionStorage.getItem('md')) || {}).tok || null")

    def stored_seats(self):
        """{token: stored identity} of the seats this browser keeps (localStorage md:<token>)."""
        return self.page.evaluate(
            "Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('md:'))"
            ".map((k) => [k.slice(3), JSON.parse(localStorage.getItem(k))]))"
        )

    # ---- what the page says ----------------------------------------------------------------

    def _socket(self, ws):
        self.sockets += 1
        number = self.sockets
        ws.on("framesent", lambda data: self._frame(number, "sent", data))
        ws.on("framereceived", lambda data: self._frame(number, "recv", data))

    def _frame(self, number, way, data):
        try:
            msg = json.loads(data)
        except (TypeError, ValueError):
            msg = None
        self.frames.append((time.monotonic(), number, way, msg))

    def attr(self, name):
        return self.page.evaluate("(n) => document.body.dataset[n]", name)

    def wait_attr(self, name, value, timeout=WAIT_MS):
        self._wait("([n, v]) => document.body.dataset[n] === v", [name, str(value)], timeout, name)

    def wait_js(self, expression, arg=None, timeout=WAIT_MS):
        self._wait(expression, arg, timeout, expression)

    def _wait(self, expression, arg, timeout, what):
        """The JSHandle of expression's first truthy value; on timeout an AssertionError with
        the page's state, its errors, its toast and every toast it showed."""
        try:
            return self.page.wait_for_function(expression, arg=arg, timeout=timeout)
        except PlaywrightError as exc:
            state = self.page.evaluate("JSON.stringify(document.body.dataset)")
            state += "\nfocus %s" % self.page.evaluate(
                "(document.activeElement || {}).id || (document.activeElement || {}).tagName"
            )
            raise AssertionError(
                "waiting for %s: %s\npage state %s\npage errors %r\ntoast %r\ntoasts shown %r"
                "\nlast frames but pings (s ago, socket, way, message):\n%s"
                % (
                    what,
                    exc.message.splitlines()[0],
                    state,
                    self.errors,
                    self.text("#toast"),
                    self.toasts(),
                    self.last_frames(),
                )
            ) from None

    def last_frames(self, count=12):
        """The last frames the page sent and received (but pings and pongs), one a line, for a
        failure's message."""
        now = time.monotonic()
        return "\n".join(
            "  %6.2f %d %s %s" % (now - at, number, way, json.dumps(msg)[:160])
            for at, number, way, msg in [
                f for f in self.frames if not (f[3] and f[3].get("t") in ("ping", "pong"))
            ][-count:]
        )

    def wait_for(self, predicate, what, timeout=WAIT_MS):
        """Wait for a condition on what the test recorded (frames, sockets), letting the page
        and Playwright's events run meanwhile."""
        deadline = time.monotonic() + timeout / 1000
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("waiting for %s; page errors %r" % (what, self.errors))
            # The frames are recorded by Playwright's event handlers (_frame), which the sync
            # API runs only inside one of its calls: this is that call, not a pace (no page
            # event says "a frame matching predicate", and a frame may come on any socket).
            self.page.wait_for_timeout(20)

    def welcomes(self):
        """(socket number, welcome) for every welcome the page received."""
        return [
            (n, m)
            for _, n, way, m in self.frames
            if way == "recv" and m and m.get("t") == "welcome"
        ]

    def sent_on(self, socket_number, t):
        return [
            m
            for _, n, way, m in self.frames
            if n == socket_number and way == "sent" and m and m.get("t") == t
        ]

    def pos(self):
        return int(self.attr("pos"))

    def box(self, selector):
        return self.page.locator(selector).bounding_box()

    def axe(self, context=None):
        """The WCAG 2.x A/AA violations axe-core (bundled with axe-playwright-python, injected
        into the page: nothing is fetched) finds on the page as it is now, as readable lines."""
        from axe_playwright_python.sync_playwright import Axe

        options = {
            "runOnly": {"type": "tag", "values": AXE_TAGS},
            "resultTypes": ["violations"],
        }
        found = Axe().run(self.page, context=context, options=options).response["violations"]
        return [
            "%s (%s): %s" % (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:4])
            for v in found
        ]

    def text(self, selector):
        return self.page.locator(selector).inner_text()

    def toasts(self, since=0):
        """The toasts (the brief messages over the maze) the page showed since it loaded, in
        order, from the index since on (a toast_mark())."""
        return self.page.evaluate("(s) => (window.__toasts || []).slice(s)", since)

    def toast_mark(self):
        """A mark in the page's toast history: toasts(mark) and wait_toast(f, mark) see only
        the toasts shown after it (a mark holds for the page load it was taken in)."""
        return self.page.evaluate("(window.__toasts || []).length")

    def wait_toast(self, fragment, since=0):
        """Wait until the page has shown a toast containing fragment, since the page loaded or
        since the mark `since` (toast_mark(), taken before the action: a toast shown earlier
        for another reason must not count), even one a later toast replaced at once; returns
        the first such toast's text."""
        return self._wait(
            "([f, s]) => (window.__toasts || []).slice(s).find((t) => t.includes(f))",
            [fragment, since],
            WAIT_MS,
            "a toast %r (since toast %d)" % (fragment, since),
        ).json_value()

    def sent(self, t):
        return [m for _, _, way, m in self.frames if way == "sent" and m and m.get("t") == t]

    def received(self, t):
        return [m for _, _, way, m in self.frames if way == "recv" and m and m.get("t") == t]

    def shot(self, name):
        SHOTS.mkdir(parents=True, exist_ok=True)
        target = SHOTS / (name + ".png")
        # a picture for people, not a check: SLOW_MS only bounds a hang of a loaded machine
        self.page.screenshot(path=str(target), timeout=SLOW_MS)
        return target

    # ---- what a person does ----------------------------------------------------------------

    def join(self, name=None, role="play"):
        if name is not None:
            self.page.fill("#nm", name)
        self.tap("#bPlay" if role == "play" else "#bWatch")
        self.wait_attr("screen", role)
        self.wait_attr("conn", "on")
        self.page.wait_for_function("document.body.dataset.phase !== undefined")

    def tap(self, selector):
        if self.context_has_touch():
            self.page.locator(selector).tap()
        else:
            self.page.locator(selector).click()

    def context_has_touch(self):
        return self.page.evaluate("navigator.maxTouchPoints > 0")

    def ready(self):
        self.tap("#bReady")

    def drop_key(self):
        """Tap Drop key, then wait for each state the drop goes through: the page sent it, the
        board answered it (an ack), the page shows no key. Never for a fixed time: on a loaded
        machine any of these can take long (SLOW_MS only ends a hang), and a failure says
        which state was not reached."""
        self.wait_js("!document.getElementById('bDrop').disabled", timeout=SLOW_MS)
        before = len(self.sent("drop"))
        self.tap("#bDrop")
        self.wait_for(lambda: len(self.sent("drop")) > before, "the drop intent sent", SLOW_MS)
        c = self.sent("drop")[-1]["c"]
        self.wait_for(lambda: self.reply(c) is not None, "the answer to the drop", SLOW_MS)
        assert self.reply(c)["t"] == "ack", self.reply(c)
        self.wait_attr("key", "0", SLOW_MS)

    def reply(self, c):
        """The ack or err the page received for its intent c, or None."""
        for _, _, way, m in self.frames:
            if way == "recv" and m and m.get("t") in ("ack", "err") and m.get("c") == c:
                return m
        return None

    def pad_button(self, d):
        return self.page.locator("#pad button[data-d='%d']" % d)

    # A one-step input is a press and its release that the page must read as a tap: it holds
    # a pressed direction until the release and walks on with it once the cooldown is over (a
    # hold walks). Sent as separate DevTools commands, a press and its release lie a driver
    # round trip apart, and on a loaded machine that was longer than the cooldown: one tap,
    # two steps (test_client_match failed 10 runs of 10 with six browsers at once, "a step N by
    # arrow from 59" at 41). So the browser makes each gesture whole: a tap and a swipe are
    # one DevTools gesture each (synthesized by Chromium: real touch and pointer events, their
    # timing the browser's own), and a key press is its keydown and keyup in one page task
    # (dispatched to the focused element, where the page listens; the browser's own key
    # routing is not what these tests are about). hold() and release() stay separate: a hold.

    def pad(self, d):
        button = self.pad_button(d)
        button.wait_for(state="visible")
        box = button.bounding_box()
        self.cdp.send(
            "Input.synthesizeTapGesture",
            {
                "x": box["x"] + box["width"] / 2,
                "y": box["y"] + box["height"] / 2,
                "duration": 20,
                "tapCount": 1,
                "gestureSourceType": "touch",
            },
        )

    def key(self, d, wasd=False):
        self.page.evaluate(
            """(key) => {
                 const at = document.activeElement || document.body;
                 for (const type of ["keydown", "keyup"]) {
                   const init = { key, bubbles: true, cancelable: true };
                   at.dispatchEvent(new KeyboardEvent(type, init));
                 }
               }""",
            (WASD if wasd else KEYS)[d],
        )

    def _touch(self, kind, x=None, y=None):
        points = [] if x is None else [{"x": x, "y": y, "id": 1}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def swipe(self, d, length=90):
        """A real one-finger swipe over the maze, from its centre, `length` px in direction d
        and lifted: one gesture Chromium synthesizes (the page takes the direction once the
        finger is 24 px away and holds it until the lift)."""
        box = self.page.locator("#stage").bounding_box()
        self.cdp.send(
            "Input.synthesizeScrollGesture",
            {
                "x": box["x"] + box["width"] / 2,
                "y": box["y"] + box["height"] / 2,
                "xDistance": (0, 1, 0, -1)[d] * length,
                "yDistance": (-1, 0, 1, 0)[d] * length,
                "gestureSourceType": "touch",
                "speed": 3000,
                "preventFling": False,  # lifted at once: no hold at the end
            },
        )

    def hold(self, d):
        """Put a finger on D-pad button d and keep it there (release() lifts it)."""
        box = self.pad_button(d).bounding_box()
        self._touch("touchStart", box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    def release(self):
        self._touch("touchEnd")

    def move(self, d, how, exact=True):
        """One step by `how` (pad, swipe, arrow, wasd) from the current cell; returns the new
        cell once the page shows it (the board accepted the move and sent the view). Not
        exact (a walk, which plans its route again from wherever the page is): the page's
        cell once it changed. A synthesized tap's lift can reach a loaded machine's page after
        the move's cooldown, and the page then rightly repeats the held direction."""
        before = self.pos()
        if how == "pad":
            self.pad(d)
        elif how == "swipe":
            self.swipe(d)
        else:
            self.key(d, wasd=how == "wasd")
        target = step(before, d, self.width)
        try:
            if not exact:
                self.wait_js("(b) => document.body.dataset.pos !== b", str(before))
                return self.pos()
            self.wait_attr("pos", target)
        except AssertionError as err:
            raise AssertionError("a step %s by %s from %d: %s" % ("NESW"[d], how, before, err))
        return target

    @property
    def width(self):
        return int(self.attr("w"))


def walk(phone, maze, goal, avoid=(), methods=("pad",), drop_foreign=True):
    """Walk phone to goal along the maze (an observer view), one step at a time, cycling
    through the input methods, the route planned again from the page's cell before each step
    (a step more than asked cannot send the walk into a wall); drops a picked-up opponent key
    with the Drop key button."""
    w, h, cells = maze["w"], maze["h"], maze["cells"]
    seat = 1 if phone.attr("seat") == "1" else 2
    for k in range(w * h):
        here = phone.pos()
        if here == goal:
            return here
        route = path(cells, w, h, here, goal, avoid) or path(cells, w, h, here, goal)
        assert route, "no route from %d to %d" % (here, goal)
        phone.move(route[0], methods[k % len(methods)], exact=False)
        carried = int(phone.attr("key"))
        if drop_foreign and carried and carried != seat:
            phone.drop_key()
    raise AssertionError("not at %d after %d steps" % (goal, w * h))


# ---- an independent observer ------------------------------------------------------------------


def observe(ws_url, predicate=lambda view: True, timeout=10.0):
    """Join as an observer, return the first complete view (tools/view_decoder.py) for which
    predicate holds, and leave. Pings so the board's idle timeout never closes it."""
    deadline = time.monotonic() + timeout
    decoder = ViewDecoder()
    last_ping = time.monotonic()
    with connect(ws_url, open_timeout=5, close_timeout=2, max_size=2**16) as ws:
        ws.send('{"t":"join","role":"watch"}')
        c = 0
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "observer: timed out waiting for the view"
            if time.monotonic() - last_ping > 0.5:
                c += 1
                ws.send('{"t":"ping","c":%d}' % c)
                last_ping = time.monotonic()
            try:
                text = ws.recv(timeout=min(left, 0.5))
            except TimeoutError:
                continue
            msg = json.loads(text)
            if msg.get("t") == "err":
                raise AssertionError("observer refused: %r" % msg)
            if msg.get("t") != "view":
                continue
            try:
                view = decoder.feed(text)
            except ViewError:
                continue
            if view is not None and predicate(view):
                return view


def free_steps(maze, start, avoid, count):
    """A route of up to count steps from start to the farthest cell within count steps, never
    entering a cell of avoid (keys, say)."""
    w, h, cells = maze["w"], maze["h"], maze["cells"]
    best = []
    for goal in range(w * h):
        if goal in avoid or goal == start:
            continue
        route = path(cells, w, h, start, goal, avoid)
        if route and len(route) <= count and len(route) > len(best):
            if not any(c in avoid for c in cells_of(start, route, w)):
                best = route
    return best


def two_free_steps(maze, start, avoid):
    """Two steps from start, never onto a cell of avoid: to a cell two steps away, else one
    step there and back (a start boxed in by a key: about 1 small 9x9 maze in 600)."""
    route = free_steps(maze, start, avoid, 2)
    if len(route) == 1:
        route.append((route[0] + 2) % 4)
    return route


def cells_of(start, route, w):
    """The cells a route of directions from start steps on, in order."""
    here = start
    out = []
    for d in route:
        here = step(here, d, w)
        out.append(here)
    return out


def straight_run(maze, start, d):
    """The cells a walk from start straight in direction d crosses until a wall."""
    w, h, cells = maze["w"], maze["h"], maze["cells"]
    out = []
    here = start
    while cells[here] & BITS[d] and inside(here, d, w, h):
        here = step(here, d, w)
        out.append(here)
    return out
