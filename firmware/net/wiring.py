# The board's wiring: settings -> access point -> captive DNS -> Microdot app -> servers. Run
# once at boot by net.board, which then drops this module (its code is needed only once, and
# with the .mpy files on the filesystem every function of a loaded module costs heap); also
# run by `make mem --parts` (tools/mem_budget.py), through main.wire(), with a hook that
# measures the heap after each step.
# Host runs (tools/run_host.sh, unix port) may override through environment variables:
# MAZE_HTTP_PORT and MAZE_DNS_PORT replace the ports from settings.json, MAZE_BIND the
# listening address (default 0.0.0.0). The board has no environment, so none of this applies.
#
# Memory (docs/memory.md): the modules only needed at start (net.settings, net.access_point)
# are imported inside bring_up() and dropped from sys.modules once the AP runs, so their
# bytecode is collected; the settings live on as a plain Config. The long-lived modules are
# imported after that, each followed by a collection, so short-lived import garbage never
# sits between them.

import gc
import sys
import time

WEB_DIR = "web"  # phone client files, beside settings.json at the flash root
HTTP_SPARE = 4  # open sockets beyond the game's sessions: page loads, /status, probes
_BOOT_ONLY = ("net.settings", "net.access_point", "machine")


class Config:
    """The checked settings as plain attributes (one per field of net.settings.FIELDS; the
    board's config keeps only the four it reads once it runs: ssid, password, preset,
    http_port)."""


class Board:
    """What wire() built: config, bind, url, app, game (the gateway), dns, server, and what
    /status reports besides (wlan, started, writers). net.board runs it."""


def make_host(settings, log=print, ticks_ms=None):
    """The view publisher and the match host (given the publisher: `host.views`), each made
    once. ticks_ms: the host's clock (the tests give theirs)."""
    from net.match_host import MatchHost
    from net.views import ViewPublisher

    views = ViewPublisher()
    if ticks_ms is None:
        return MatchHost(settings, views, log)
    return MatchHost(settings, views, log, ticks_ms)


def make_game(settings, log=print, ticks_ms=None, host=None):
    """The game's objects, each made once and handed to those that use it: the view
    publisher, the match host (make_host; or the host given) and the gateway (given both).
    Returns the gateway (its host and views are `game.host`, `game.views`). The match log's
    resume and the watchdog come after (wire())."""
    from net.gateway import Gateway

    if host is None:
        host = make_host(settings, log, ticks_ms)
    return Gateway(settings, host, host.views, log)


def host_overrides():
    """(settings overrides, bind address) from the environment, where there is one."""
    import os

    getenv = getattr(os, "getenv", None)
    overrides = {}
    if getenv is None:
        return overrides, "0.0.0.0"
    for var, field in (("MAZE_HTTP_PORT", "http_port"), ("MAZE_DNS_PORT", "dns_port")):
        value = getenv(var)
        if value is not None:
            # digits become a number; anything else is passed on and reported by the check
            overrides[field] = int(value) if value.isdigit() else value
    return overrides, getenv("MAZE_BIND") or "0.0.0.0"


def bring_up():
    """Settings and the access point: (Config, address, bind). Drops what only this needed."""
    from net.access_point import start_access_point
    from net.settings import load_settings

    overrides, bind = host_overrides()
    settings, problems = load_settings(overrides=overrides)
    for problem in problems:
        print("settings:", problem)
    address = start_access_point(settings, print)
    config = Config()
    for name, value in settings.pairs():
        setattr(config, name, value)
    return config, address, bind


def arm_watchdog(ms):
    """A hardware watchdog of ms milliseconds (None when ms is 0 or the port has none). Once
    armed it cannot be stopped: the game's timer feeds it (net/gateway.py)."""
    if not ms:
        return None
    try:
        from machine import WDT

        wdt = WDT(timeout=ms)
    except (ImportError, AttributeError, ValueError, OSError) as exc:
        print("watchdog: not available (%r)" % (exc,))
        return None
    print("watchdog: the board resets if the game loop stops for %d ms" % ms)
    return wdt


def forget(names):
    """Drop modules from sys.modules and their package, so their code can be collected.
    (`machine` is built in on the board, never in sys.modules; on the unix port it is a .py
    stand-in that only boot.py and the settings need.)"""
    for name in names:
        if sys.modules.pop(name, None) is not None and "." in name:
            package, _, attr = name.rpartition(".")
            parent = sys.modules.get(package)
            if parent is not None and attr in parent.__dict__:
                delattr(parent, attr)


def code_line(board):
    """Where the game's code was imported from: /rom (ROMFS: bytecode runs in place from
    flash), .frozen (baked into the firmware) or the filesystem (.mpy copied into the heap);
    and which view writers run: "viper" (machine code), or "python (why)" when the machine
    code could not load (game.projector.WRITERS)."""
    where = getattr(sys.modules.get("net.gateway"), "__file__", "?")
    return "code: net.gateway from %s; writers: %s" % (where, board.writers)


def summary(host):
    """The match's settings, for the gateway timer's first line (net.gateway.run): the ruleset,
    the maze's size, the cooldown and countdown, the observers' limit."""
    from game import rulesets

    m = host.match
    return "%s: %dx%d maze, cooldown %d ms, countdown %d ms, %d observers max" % (
        host.ruleset[rulesets.ID],
        m.width,
        m.height,
        m.cooldown_ms,
        m.countdown_ms,
        host.max_observers,
    )


def heap_line(label):
    gc.collect()
    return "mem: %s: heap used %d, free %d" % (label, gc.mem_alloc(), gc.mem_free())


def resume_match(host):
    """The match log at boot: resume a match a power cut or a reset interrupted (net/resume.py),
    then drop the code only this needs (the log's reader and the replay)."""
    from net.resume import resume

    resume(host)
    forget(("net.resume", "game.replay"))


def drop_boot_code():
    """Delete the module-level functions of long-lived modules that only the wiring runs, so
    their bytecode is collected (with the .mpy files on the filesystem it is in the heap). The
    handlers they made live on. (Only module-level functions: a method deleted from its class
    frees nothing, docs/memory.md.)"""
    from microdot import Microdot, URLPattern

    from game import rules
    from game.projector import Projector
    from net import captive_dns, journal, match_host, portal, seats
    from net.gateway import Gateway
    from net.limits import SourceLimit
    from net.server import Server
    from net.views import ViewPublisher

    del portal.board_url, portal.add_portal_routes, portal.add_status_route
    del portal.add_client_routes, journal.add_log_route, journal.use, journal.reopen
    del match_host.scratch, match_host.restore, seats.restore  # (net.resume's, at boot)
    del rules.preset, captive_dns.ipv4_bytes  # (game.rulesets keeps its own reference)
    # The constructors of the objects made once, at boot, and the gateway's arm(): a method is
    # dropped by setting it to None (`del` frees nothing: MicroPython keeps a deleted class
    # attribute's value in the class's table). Nothing makes another of these after boot.
    Projector.__init__ = ViewPublisher.__init__ = match_host.MatchHost.__init__ = None
    journal.Journal.__init__ = seats.Seat.__init__ = Gateway.__init__ = Gateway.arm = None
    Server.__init__ = SourceLimit.__init__ = captive_dns.CaptiveDns.__init__ = None
    # and Microdot's: the one app and its routes are made at boot
    Microdot.__init__ = Microdot.route = Microdot.before_request = None
    Microdot.errorhandler = URLPattern.__init__ = None


def _collect(step):
    gc.collect()


# The long-lived modules, imported in this order by wire() (each followed by a collection):
# first what the match host and the match log's resume need, then (after the resume, whose
# code is dropped again: the heap's peak at boot) the rest.
_LONG_LIVED = (
    "microdot.microdot",
    "game.engine",
    "game.projector",
    "game.matchlog",
    "net.intents",
    "net.messages",
    "net.frames",
    "net.views",
    "net.journal",
    "net.match_host",
)
_SERVING = (
    "net.gateway",
    "net.limits",
    "net.server",
    "net.portal",
    "net.captive_dns",
)


def wire(step=_collect):
    """Build the whole board (nothing runs yet) and return it (a Board); step(name)
    is called after every stage, with the stage's garbage still to be collected (the default
    collects it)."""
    config, address, bind = bring_up()
    step("boot-only modules (settings, access point), while loaded")
    import network  # the board's built-in (a stand-in on the unix port), for the station count

    wlan = network.WLAN(network.AP_IF)
    forget(_BOOT_ONLY)
    step("after dropping them (their qstrs stay)")
    for name in _LONG_LIVED:
        __import__(name)
        step(name)
    host = make_host(config)
    resume_match(host)  # (its code is imported and dropped before the servers' is imported)
    step("objects: Match, Projector, MatchHost; the log resumed")
    for name in _SERVING:
        __import__(name)
        step(name)
    from microdot import Microdot

    from game.projector import WRITERS
    from net import portal
    from net.captive_dns import CaptiveDns
    from net.journal import add_log_route
    from net.server import Server

    dns = CaptiveDns(address, config.dns_port, bind)
    url = portal.board_url(address, config.http_port)
    started = time.ticks_ms()
    app = Microdot()
    game = make_game(config, host=host)
    game.arm(arm_watchdog(config.watchdog_ms))
    server = Server(app, game, game.max_sessions + HTTP_SPARE, print)
    step("objects: Gateway buffers, Server, CaptiveDns")

    board = Board()
    # what the board reads of its settings once it runs (main, /status): a Config of these
    # four, not of every field (the objects read theirs as they were made)
    board.config = kept = Config()
    kept.ssid = config.ssid
    kept.password = config.password
    kept.preset = config.preset
    kept.http_port = config.http_port
    board.bind = bind
    board.url = url
    board.app = app
    board.game = game
    board.dns = dns
    board.server = server
    board.wlan = wlan
    board.started = started
    board.writers = WRITERS
    portal.add_portal_routes(app, url, WEB_DIR)
    portal.add_status_route(app, board)
    portal.add_client_routes(app, WEB_DIR)
    add_log_route(app, game.host.journal)
    step("routes (5) and handlers")
    drop_boot_code()
    step("boot-only functions of long-lived modules dropped")
    return board
