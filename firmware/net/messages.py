# The outbound half of the WebSocket vocabulary (net.intents is the inbound half): the text of
# every message the board sends besides view records. Pure: each function returns one JSON
# text; who receives it is decided by net.match_host, the framing by net.frames. Field order is
# fixed here, never by a dict. docs/protocol.md describes every message.
import json

from game import rules
from game.rulesets import RULESETS


def _bool(value):
    return "true" if value else "false"


def pong(c):
    return '{"t":"pong","c":%d}' % c


def ack(c):
    return '{"t":"ack","c":%d}' % c


def ack_move(c, cs):
    """The answer to an accepted move or drop; cs counts the seat's own accepted commands in
    this match (1, 2, ...)."""
    return '{"t":"ack","c":%d,"cs":%d}' % (c, cs)


def ack_dup(c):
    """c was applied before (a resend): nothing changed."""
    return '{"t":"ack","c":%d,"dup":true}' % c


def err(c, code):
    """A refusal: code is a gateway code (net.intents) or an engine code name (game.rules);
    c is the refused intent's sequence, or < 1 when it had none."""
    if c > 0:
        return '{"t":"err","c":%d,"code":"%s"}' % (c, code)
    return '{"t":"err","code":"%s"}' % code


def _match_fields(match_no, match, idle_ms):
    # what every welcome carries about the match and the connection
    return '"mn":%d,"w":%d,"h":%d,"cool":%d,"cd":%d,"idle":%d' % (
        match_no,
        match.width,
        match.height,
        match.cooldown_ms,
        match.countdown_ms,
        idle_ms,
    )


def welcome_observer(match_no, match, idle_ms):
    return '{"t":"welcome","role":"watch","seat":0,%s}' % _match_fields(match_no, match, idle_ms)


def welcome_player(seat, resumed, match_no, match, idle_ms, grace_ms):
    return (
        '{"t":"welcome","role":"play","seat":%d,"token":"%s","last":%d,"resumed":%s,%s,"grace":%d}'
        % (
            seat.number,
            seat.token,
            seat.last_c,
            _bool(resumed),
            _match_fields(match_no, match, idle_ms),
            grace_ms,
        )
    )


def rules_line(entry, nums):
    """The ruleset the next match plays and its client-safe summary (no seed, nothing hidden):
    entry (game.rulesets), and nums: the numbers a board's settings may fix for every ruleset
    (width, height, cooldown, countdown, grace), whether settings fix the ruleset, and who may
    choose another (a seat, 0 nobody); the choices are every ruleset, none when fixed."""
    fixed = nums[5]
    return (
        '{"t":"rules","fixed":%s,"by":%d,"rs":{"id":"%s","label":"%s","desc":"%s","w":%d,'
        '"h":%d,"cool":%d,"cd":%d,"rad":%d,"vrad":%d,"vm":%d,"art":%d,"cp":%d,"fw":%d,'
        '"grace":%d,"bo":%d,"vis":"%s"},"ids":[%s],"labels":[%s]}'
        % (
            _bool(fixed),
            nums[6],
            entry[0],
            entry[1],
            entry[2],
            nums[0],
            nums[1],
            nums[2],
            nums[3],
            entry[6],
            entry[7],
            entry[8],
            entry[9],
            entry[10],
            entry[11],
            nums[4],
            entry[13],
            "sight" if entry[14] else "square",
            "" if fixed else ",".join('"%s"' % e[0] for e in RULESETS),
            "" if fixed else ",".join('"%s"' % e[1] for e in RULESETS),
        )
    )


def room(match_no, phase, seats, observers, max_observers, ruleset="classic", score=(0, 0, 0)):
    """The public lobby line: names, presence and ready flags of both seats (seats[1] and
    seats[2], net.seats.Seat), the phase, the number of observers, the ruleset's id and the
    series score (score[1], score[2])."""
    parts = []
    for number in (1, 2):
        seat = seats[number]
        if seat.token is None:
            parts.append("null")
        else:
            parts.append(
                '{"seat":%d,"name":%s,"on":%s,"ready":%s}'
                % (number, json.dumps(seat.name), _bool(seat.session), _bool(seat.want))
            )
    return (
        '{"t":"room","mn":%d,"ph":"%s","p":[%s,%s],"obs":%d,"max_obs":%d,"rs":"%s","sc":[%d,%d]}'
        % (
            match_no,
            rules.PHASE_NAMES[phase],
            parts[0],
            parts[1],
            observers,
            max_observers,
            ruleset,
            score[1],
            score[2],
        )
    )


def event(match, i):
    """The text of event i of the match's last engine call, or None for an event that is not
    sent (moves: the views show them)."""
    kind = match.ev_kind[i]
    a = match.ev_a[i]
    b = match.ev_b[i]
    head = '{"t":"ev","e":"%s","s":%d' % (rules.EVENT_NAMES[kind], match.state_seq)
    if kind == rules.EV_PHASE:
        text = '%s,"ph":"%s"' % (head, rules.PHASE_NAMES[a])
        if a == rules.COUNTDOWN:
            text += ',"ms":%d' % match.countdown_ms
    elif kind == rules.EV_RESULT:
        text = '%s,"result":"%s","winner":%d' % (head, rules.RESULT_NAMES[a], b)
    elif kind == rules.EV_MEETING:
        text = '%s,"seat":%d,"n":%d' % (head, a, b)
    elif kind == rules.EV_KEY_RETURNED:
        text = '%s,"owner":%d,"from":%d' % (head, a, b)
    elif kind == rules.EV_VISION or kind == rules.EV_EXIT_OPENED:
        text = '%s,"seat":%d' % (head, a)
    elif kind == rules.EV_COMPASS:
        text = '%s,"seat":%d,"bearing":"%s"' % (head, a, rules.BEARING_NAMES[b])
    elif kind == rules.EV_KEY_PICKED or kind == rules.EV_KEY_DROPPED:
        text = '%s,"seat":%d,"owner":%d' % (head, a, b)
    elif kind == rules.EV_EXITED:
        text = '%s,"seat":%d,"first":%s' % (head, a, _bool(b == 0))
    else:
        return None
    return text + "}"
