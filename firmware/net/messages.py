# The outbound half of the WebSocket vocabulary (net.intents is the inbound half): the text of
# every message the board sends besides view records. Pure: each function returns one JSON
# text; who receives it is decided by net.match_host, the framing by net.frames. Field order is
# fixed here, never by a dict. docs/protocol.md describes every message.
import json

from game import rules, rulesets
from game.compat import const
from game.rulesets import RULESETS
from net.frames import put_header
from net.seats import ready_left

# game.rules' numbers, as private consts (inlined by the compiler; checked by
# host_tests/test_private_consts.py)
_COUNTDOWN = const(1)
_EV_PHASE = const(1)
_EV_VISION = const(3)
_EV_KEY_PICKED = const(4)
_EV_MEETING = const(5)
_EV_KEY_RETURNED = const(6)
_EV_COMPASS = const(7)
_EV_EXIT_OPENED = const(8)
_EV_KEY_DROPPED = const(9)
_EV_EXITED = const(10)
_EV_RESULT = const(11)

_RUN = const(256)  # cells per maze message at the end of a match (a message under 512 bytes)
# The head of a maze message: every number in a field of 10 (JSON allows the spaces; no number
# the board keeps reaches 2**31), so every head is _HEAD bytes long and each frame is made once.
# Formatted in two halves of _HALF bytes, written into the frame: no text of the head's size
# at every match's end (a fragmented heap may have no hole that large).
_MAZE = b'{"t":"maze","mn":%10d,"xt":[%10d,%10d],'
_MAZE_END = b'"mv":[%10d,%10d],"end":%10d,"c":[%4d,"'
_HALF = const(57)
_HEAD = const(114)


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


def _match_fields(host):
    # what every welcome carries about the match and the connection; "at": the match clock
    # now (ms since the countdown began; meaningful while the match runs), "boot": this run
    m = host.match
    return '"mn":%d,"w":%d,"h":%d,"cool":%d,"cd":%d,"idle":%d,"at":%d,"boot":%d' % (
        host.match_no,
        m.width,
        m.height,
        m.cooldown_ms,
        m.countdown_ms,
        host.idle_ms,
        host.now_ms(),
        host.boot,
    )


# The welcomes are tuples of pieces of under ~110 bytes, framed as they are (net.frames.pieces):
# no text of the message's size (~210 bytes) at a join, when the heap is fragmented (a player's
# whole welcome was the second join's failed allocation at 88K).


def welcome_observer(host, full):
    """An observer's welcome: the view it is sent (view: "players" or "full") and whether the
    board would send the whole maze to a TV that asks (full)."""
    return (
        '{"t":"welcome","role":"watch","seat":0,',
        _match_fields(host),
        ',"view":"%s","full":%s}' % ("full" if full else "players", _bool(host.full_tv)),
    )


def welcome_player(host, seat, resumed):
    """A player's welcome; a resumed seat's is flagged `restarted` the first time after the
    board restarted and resumed its match (net.seats.Seat.welcomed)."""
    return (
        '{"t":"welcome","role":"play","seat":%d,"token":"%s","last":%d,"resumed":%s,'
        % (seat.number, seat.token, seat.last_c, _bool(resumed)),
        _match_fields(host),
        ',"grace":%d%s}'
        % (host.grace_ms, ',"restarted":true' if resumed and seat.welcomed() else ""),
    )


def rules_line(entry, nums):
    """The ruleset the next match plays and its client-safe summary (no seed, nothing hidden):
    entry (game.rulesets), and nums: the numbers a board's settings may fix for every ruleset
    (width, height, cooldown, countdown, grace), whether settings fix the ruleset, and who may
    choose another (a seat, 0 nobody); the choices are every ruleset, none when fixed.
    Returned as a tuple of pieces of under ~130 bytes, framed as they are (net.frames.pieces):
    the message is ~380 bytes, made at a join, when the heap is fragmented (its text whole was
    the first join's failed allocation at 88K); the ruleset's own strings are pieces as
    they are."""
    fixed = nums[5]
    return (
        '{"t":"rules","fixed":%s,"by":%d,"rs":{"id":"%s","label":"'
        % (_bool(fixed), nums[6], entry[rulesets.ID]),
        entry[rulesets.LABEL],
        '","desc":"',
        entry[rulesets.ABOUT],
        '","w":%d,"h":%d,"cool":%d,"cd":%d,"rad":%d,"vrad":%d,"vm":%d,"art":%d,"cp":%d,'
        % (
            nums[0],
            nums[1],
            nums[2],
            nums[3],
            entry[rulesets.RADIUS],
            entry[rulesets.VISION_RADIUS],
            entry[rulesets.VISION_MOVES],
            entry[rulesets.ARTIFACT_PAIRS],
            entry[rulesets.COMPASS],
        ),
        '"fw":%d,"grace":%d,"bo":%d,"vis":"%s"},"ids":['
        % (
            entry[rulesets.FINISH_MS],
            nums[4],
            entry[rulesets.BEST_OF],
            "sight" if entry[rulesets.SIGHT] else "square",
        ),
        None if fixed else ",".join('"%s"' % e[rulesets.ID] for e in RULESETS),
        '],"labels":[',
        None if fixed else ",".join('"%s"' % e[rulesets.LABEL] for e in RULESETS),
        "]}",
    )


def room(host):
    """The public lobby line: names, presence and ready flags of both seats (net.seats.Seat),
    the ms left of an away player's grace period, the phase, the observers, the series score, the
    ruleset's id. Returned as a tuple of pieces of under ~80 bytes, framed as they are
    (net.frames.pieces: no text of the message's size; the room message goes out whenever
    someone comes, goes or is ready, when the heap is fullest and most fragmented)."""
    texts = [
        '{"t":"room","mn":%d,"ph":"%s","p":['
        % (host.match_no, rules.PHASE_NAMES[host.match.phase])
    ]
    now = host.ticks_ms()
    for number in (1, 2):
        seat = host.seats[number]
        if seat.token is None:
            texts.append("null")
        else:
            texts.append(
                '{"seat":%d,"name":%s,"on":%s,"ready":%s'
                % (number, json.dumps(seat.name), _bool(seat.session), _bool(seat.want))
            )
            if seat.session is None:
                left = max(0, host.grace_ms - host.ticks_diff(now, seat.gone_at))
                texts.append(',"left":%d' % left)
            else:
                left = ready_left(host, seat)  # the time left to say ready
                if left >= 0:
                    texts.append(',"rl":%d' % left)
            texts.append("}")
        texts.append(",")
    texts[-1] = '],"obs":%d,"max_obs":%d,"sc":[%d,%d],"rs":"%s"}' % (
        len(host.observers),
        host.max_observers,
        host.score[1],
        host.score[2],
        host.ruleset[rulesets.ID],
    )
    return tuple(texts)


def maze_buffers(cells):
    """The frames of the maze messages for a maze of `cells` cells, made once with the host:
    the end of a match then writes them and allocates nothing large (a fragmented heap may
    have no few hundred bytes in one piece by then)."""
    return [bytearray(7 + _HEAD + min(_RUN, cells - first)) for first in range(0, cells, _RUN)]


def maze(host, k):
    """Maze message k, written into its frame host.reveal[k]: a run of the finished match's
    cells, one character each for a value v of 0..63, passage flags + 16 if seat 1 stood
    there + 32 if seat 2 did (host.trail: a bitset per seat): chr(35 + v), one more from 57 on
    (64 characters from # to c without the backslash, none to escape in JSON). With the
    match's figures: the seats' exit times and its end (match ms), their moves."""
    m = host.match
    out = host.reveal[k]
    first = k * _RUN
    put_header(out, len(out) - 4)  # always 126 bytes or more: a 4-byte header
    out[4 : 4 + _HALF] = _MAZE % (host.match_no, m.exit_time[1], m.exit_time[2])
    out[4 + _HALF : 4 + _HEAD] = _MAZE_END % (host.moves[1], host.moves[2], m.now, first)
    at = 4 + _HEAD
    trail = host.trail
    half = len(trail) >> 1
    for i in range(first, first + len(out) - 7 - _HEAD):
        j = i >> 3
        bit = 1 << (i & 7)
        v = m.cells[i] | (16 if trail[j] & bit else 0) | (32 if trail[half + j] & bit else 0)
        out[at] = v + 35 if v < 57 else v + 36
        at += 1
    out[at:] = b'"]}'
    return out


def event(match, i):
    """The text of event i of the match's last engine call, or None for an event that is not
    sent (moves: the views show them)."""
    kind = match.ev_kind[i]
    a = match.ev_a[i]
    b = match.ev_b[i]
    head = '{"t":"ev","e":"%s","s":%d' % (rules.EVENT_NAMES[kind], match.state_seq)
    if kind == _EV_PHASE:
        text = '%s,"ph":"%s"' % (head, rules.PHASE_NAMES[a])
        if a == _COUNTDOWN:
            text += ',"ms":%d' % match.countdown_ms
    elif kind == _EV_RESULT:
        text = '%s,"result":"%s","winner":%d' % (head, rules.RESULT_NAMES[a], b)
    elif kind == _EV_MEETING:
        text = '%s,"seat":%d,"n":%d' % (head, a, b)
    elif kind == _EV_KEY_RETURNED:
        text = '%s,"owner":%d,"from":%d' % (head, a, b)
    elif kind == _EV_VISION or kind == _EV_EXIT_OPENED:
        text = '%s,"seat":%d' % (head, a)
    elif kind == _EV_COMPASS:
        text = '%s,"seat":%d,"bearing":"%s"' % (head, a, rules.BEARING_NAMES[b])
    elif kind == _EV_KEY_PICKED or kind == _EV_KEY_DROPPED:
        text = '%s,"seat":%d,"owner":%d' % (head, a, b)
    elif kind == _EV_EXITED:
        text = '%s,"seat":%d,"first":%s' % (head, a, _bool(b == 0))
    else:
        return None
    return text + "}"
