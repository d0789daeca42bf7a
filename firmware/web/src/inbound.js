// Messages from the board: one dispatch table from the message type (`t`) to its handler, and
// the handlers: welcome, room, ack, err, events, views, rules, fair and the end-of-match reveal.

import { DEBUG, DIRS, LETTERS, RESYNC_MS, buzz, now } from "./constants.js";
import { heartbeat, rejoin, resend, resync, settle } from "./connection.js";
import { $, esc, hooks, say, showConnection, toast } from "./dom.js";
import { draw, fit } from "./draw.js";
import { onFair } from "./fairness.js";
import { resultText, tick, whyText } from "./hud.js";
import { pump, wallAt } from "./moves.js";
import { overlay, quit, screen, status } from "./screens.js";
import { game, input, net, save, session, ui } from "./state.js";
import { parse, views } from "./views.js";

// src/qr.js, the TV's join panel: a file of its own on the board (lean-qr's encoder in it),
// imported by a TV only;
// its path is a constant so that esbuild leaves the import to the browser (/qr.js)
const QR_MODULE = "./qr.js";

// the refusal sentences: refusals.js, made by the build from firmware/web/refusals.json, a
// file of its own on the board, imported when the page first joins (asked again if it failed)
const REFUSALS = "./refusals.js";
let sentences = null;

export function loadSentences() {
  return sentences ||= import(REFUSALS).catch(() => {
    sentences = null;
    return { WHY: {} };
  });
}

// message type -> handler(message, raw text); records (`v` present) go to onRecord too
const HANDLERS = {
  __proto__: null, // no inherited keys: a type such as "toString" is unknown, not a function
  view: onRecord,
  welcome: onWelcome,
  room: onRoom,
  ack: onAck,
  err: onErr,
  ev: onEvent,
  rules: onRules,
  fair: onFair,
  maze: onReveal,
};

export function onMessage(data) {
  net._lastRx = now();
  const m = parse(data);
  if (!m) {
    reject("json");
    return;
  }
  if (ui._meeting && m.e !== "key_returned") {
    tellMeeting();
  }
  const handler = m.v !== undefined ? onRecord : typeof m.t === "string" && HANDLERS[m.t];
  if (handler) {
    handler(m, data);
  }
}

function onWelcome(m) {
  net._tries = 0;
  loadSentences();
  net._cfg = { cool: m.cool || 250, idle: m.idle || 20000 };
  if (m.cd >= 0) {
    game._countdownMs = m.cd;
  }
  if (m.boot !== game._boot) { // another board run: nothing of the old one is true any more
    game._boot = m.boot;
    game._mn = 0;
    game._view = null;
    ui._log = [];
    $("log").textContent = "";
    say("");
    game._names = ["", "", ""];
  }
  if (m.at >= 0) {
    game._goAt = now() + game._countdownMs - m.at;
    tick();
  }
  game._seat = m.seat;
  game._size = m.w * m.h;
  if (m.token) {
    session.tok = m.token;
  }
  session.c = Math.max(session.c, m.last || 0);
  newMatch(m.mn, m.w, m.h);
  save();
  heartbeat();
  showConnection("");
  if (!m.resumed) {
    session.ob = [];
  }
  if (m.restarted) {
    hooks.restarted = "1";
    setTimeout(() => toast("The board restarted; resuming"), 300);
  }
  resend(m.last || 0);
  screen(m.role === "watch" ? "watch" : "play");
  overlay("");
  if (!game._view) {
    $("who").textContent = "Joining\u2026";
  }
  if (m.role === "watch") { // the TV's waiting room: how to join (the Wi-Fi's from /status)
    status((s) => import(QR_MODULE).then((q) => {
      ui._join = q.panel(s, location.origin + "/");
      draw();
    }));
  }
}

// match n of a w x h maze: a new one starts a new map memory (a player's, restored if saved)
function newMatch(n, w, h) {
  if (n === game._mn && game._mem?.length === w * h) {
    return;
  }
  if (n !== game._mn) {
    say(""); // the last match's result is not read out in the next one's waiting room
  }
  game._mn = n;
  game._lastS = -1;
  game._end = null;
  game._remembered = [];
  game._compass = -1;
  ui._timedOut = false;
  hooks.end = hooks.hint = "";
  game._mem = null;
  if (session.role !== "play") {
    return;
  }
  game._mem = new Int8Array(w * h).fill(-1);
  const key = session.tok + ":" + n;
  const saved = session.mem;
  if (saved?.k === key && Array.isArray(saved.d) && saved.d.length === w * h) {
    game._mem.set(saved.d);
    game._remembered = saved.o || [];
    game._compass = saved.cp >= 0 ? saved.cp : -1;
  } else {
    session.mem = { k: key, d: [], o: [], cp: -1 };
  }
}

function onRoom(m) {
  game._room = m;
  if (game._view && m.mn !== game._mn) {
    newMatch(m.mn, game._view.w, game._view.h);
  }
  m.p.forEach((p, i) => {
    if (p) {
      game._names[i + 1] = p.name;
    }
    game._away[i + 1] = p && !p.on && p.left >= 0 ? now() + p.left : 0;
    if (p?.rl >= 0) {
      p.by = now() + p.rl; // when its time to tap Ready ends (the seat is then freed)
    }
  });
  tick();
  draw();
}

function onRules(m) {
  game._rules = m;
  draw();
}

// the end of a match: its figures, the whole maze and who stood where
function onReveal(m) {
  if (m.mn !== game._mn) {
    return;
  }
  if (m.xt) { // exit times, moves and the end, in match ms
    game._end = m;
    hooks.end = m.mn;
  }
  let reveal = game._reveal;
  if (!reveal || reveal.mn !== m.mn) {
    reveal = game._reveal = { mn: m.mn, c: new Int8Array(game._size).fill(-1) };
  }
  // flags + 16 seat 1 stood here + 32 seat 2 did, as # .. c without \\
  const [at, run] = m.c;
  for (let k = 0; k < run.length; k++) {
    const code = run.charCodeAt(k);
    reveal.c[at + k] = code - 35 - (code > 92);
  }
  fit();
}

function onAck(m) {
  const sent = settle(m.c);
  if (sent?.t === "move" && input._inflight === m.c) {
    input._inflight = null;
    input._retries = 0;
    input._waitView = game._viewNo;
    pump();
  }
  if (sent?.t === "ready") {
    draw();
  }
}

function onErr(m) {
  const code = String(m.code);
  if (m.c) {
    onRefusedIntent(m.c, code);
    return;
  }
  if (code === "ROOM_FULL") {
    quit(session.role === "watch"
      ? "All spectator places are taken. Try again later."
      : "Both seats are taken. You can watch instead.");
  } else if (code === "BAD_TOKEN" || code === "READY_TIMEOUT" || code === "ONE_SEAT") {
    // the seat is gone: back to the join screen, saying why (refusals.js)
    loadSentences().then((m) => quit(m.WHY[code] || m.GENERIC));
  } else if (code === "NOT_JOINED") {
    rejoin();
  } else {
    refused(code);
  }
}

// the refusal of intent c: a refused move ends a held direction; COOLDOWN is retried quietly
function onRefusedIntent(c, code) {
  const sent = settle(c);
  if (sent?.t === "move" && input._inflight === c) {
    input._inflight = null;
    if (code === "COOLDOWN" && input._retries < 3) { // clocks differ a little: retry, quietly
      input._retries++;
      if (input._queued < 0) {
        input._queued = LETTERS.indexOf(sent.d);
      }
      input._nextAt = now() + 50;
      pump();
      return;
    }
    input._retries = 0;
    input._held = -1;
    pump();
  }
  refused(code);
}

// a refusal as a sentence (refusals.js)
export function refused(code) {
  hooks.code = code;
  loadSentences().then((m) =>
    toast((m.WHY[code] || m.GENERIC || "The board said no.") + (DEBUG ? " (" + code + ")" : ""), true));
}

// event name -> handler(message, mine, who): the sentence to tell, if any
const EVENTS = {
  __proto__: null,
  phase(m) {
    let text = "";
    toast(""); // a new phase: the last one's toast is old news
    if (m.ph === "countdown") { // the TV's events are the new match's
      ui._log = [];
      $("log").textContent = "";
      game._countdownMs = m.ms || 0;
      game._goAt = now() + game._countdownMs;
      text = "Get ready!";
    }
    if (m.ph === "active") {
      ui._goUntil = now() + 900;
      text = "GO!";
      setTimeout(draw, 950);
    }
    tick();
    if (text) {
      say(text);
    }
  },
  // the result, said to everyone (the screen shows it): a forfeit when the away player's
  // grace period has run out is a time out
  result(m) {
    const loser = 3 - m.winner;
    ui._timedOut = m.result === "forfeit" && game._away[loser] > 0 && game._away[loser] - now() < 2000;
    say(whyText(m.result, m.winner, nameHtml) + " " + resultText(m.result, m.winner, nameHtml));
  },
  meeting(m) { // told with the key_returned events after it, in one sentence
    ui._meeting = { back: [] };
    setTimeout(tellMeeting, 400);
  },
  key_returned(m) {
    if (ui._meeting) {
      ui._meeting.back.push(m);
    }
  },
  key_picked(m, mine, who) {
    if (mine) {
      buzz(60);
    }
    const what = !mine && m.owner === m.seat ? "their own key" : keyName(m.owner);
    const hint = mine && m.owner !== game._seat ? " (Drop key puts it down)" : "";
    return (mine ? "You" : who) + " picked up " + what + hint;
  },
  key_dropped(m, mine, who) {
    return (mine ? "You" : who) + " dropped " + keyName(m.owner);
  },
  exit_opened(m, mine, who) {
    if (mine) {
      buzz(80);
    }
    return mine ? "Your exit is open: step out through it!" : who + " opened an exit";
  },
  compass(m, mine, who) {
    return mine ? "Compass: your exit lies " + m.bearing : who + " read a compass";
  },
  vision(m, mine, who) {
    return mine ? "Vision! You see farther for 10 moves" : who + " found a vision artifact";
  },
  exited(m, mine, who) {
    if (mine) {
      buzz([100, 50, 100]);
    }
    return (mine ? "You are" : who + " is") + " out of the maze!";
  },
};

function onEvent(m) {
  const handler = typeof m.e === "string" && EVENTS[m.e];
  if (handler) {
    const mine = m.seat === game._seat && game._seat > 0;
    tell(handler(m, mine, nameHtml(m.seat)));
  }
}

// a meeting and the keys it sent home, in one sentence: who lost what
function tellMeeting() {
  const meeting = ui._meeting;
  const seat = game._seat;
  if (!meeting) {
    return;
  }
  ui._meeting = null;
  const parts = meeting.back.map((r) => {
    if (r.owner === r.from) {
      return r.owner === seat ? "You keep your key." : nameHtml(r.owner) + " keeps their key.";
    }
    if (r.owner === seat) {
      return "Your key is back with you!";
    }
    const holder = r.from === seat ? "You" : nameHtml(r.from);
    const home = r.owner === seat ? "you." : nameHtml(r.owner) + ".";
    return holder + " had " + keyName(r.owner) + ": it went back to " + home;
  });
  const head = seat
    ? "You met " + nameHtml(3 - seat) + ". "
    : nameHtml(1) + " met " + nameHtml(2) + ". ";
  tell(head + (parts.join(" ") || "Nobody carried a key: nothing changed."));
  if (seat) {
    buzz([60, 40, 60]);
  }
}

// an event (markup: names isolated): a toast for players, the log for spectators, said aloud
// to both
function tell(text) {
  if (!text) {
    return;
  }
  if (session.role === "play") {
    toast(text, false);
  }
  ui._log.unshift(text);
  ui._log.length = Math.min(ui._log.length, 4);
  if (session.role === "watch") {
    const list = $("log");
    list.textContent = "";
    for (const line of ui._log) {
      const item = document.createElement("li");
      item.innerHTML = line;
      list.append(item);
    }
  }
  say(text);
}

function keyName(owner) {
  if (game._seat && owner === game._seat) {
    return "your key";
  }
  return nameHtml(owner) + "'s key";
}

export function playerName(n) {
  const p = game._room?.p?.[n - 1];
  return p?.name || game._names[n] || "Player " + n;
}

// a seat's name as markup, isolated from the text around it (a right-to-left name keeps its
// place in a left-to-right sentence)
export const nameHtml = (n) => "<bdi>" + esc(playerName(n)) + "</bdi>";

// a rejected record drops the partial view; a fresh one is asked for soon
function reject(why) {
  views.part = null;
  if (!net._resyncTimer && net._ws) {
    net._resyncTimer = setTimeout(resync, RESYNC_MS);
  }
  hooks.rejected = (+hooks.rejected || 0) + 1;
  hooks.why = why;
}

function onRecord(record, raw) {
  try {
    const view = views.feed(record, raw);
    if (view) {
      showView(view);
    } else if (record.i === 0 && !net._resyncTimer) { // n > 1: the rest must come soon
      net._resyncTimer = setTimeout(resync, RESYNC_MS);
    }
  } catch (why) {
    reject(typeof why === "string" ? why : "json");
  }
}

// a complete view: shown unless older than the one shown
function showView(part) {
  const e = part.e;
  const previous = game._view;
  const sameKind = previous?.r === e.r && previous.w === e.w && previous.h === e.h;
  if (e.s < game._lastS && sameKind) {
    reject("order");
    return;
  }
  clearTimeout(net._resyncTimer);
  net._resyncTimer = 0;
  game._lastS = e.s;
  part.c = part.c.map((f) => f || -1); // line of sight: 0 is out of sight
  game._view = { ...e, st: part.st, o: part.o, c: part.c }; // the envelope (s, r, ph, w, h, m) and the whole view
  game._viewNo++;
  if (e.r !== "obs") {
    remember(part, previous);
  }
  hooks.s = e.s;
  hooks.w = e.w;
  fit();
  tick();
  pump();
}

// a player's view: into the map memory, objects as last seen, the first key's hint, the step
function remember(part, previous) {
  const e = part.e;
  const own = part.st;
  game._seat = e.r === "p1" ? 1 : 2;
  if (!game._mem || game._mem.length !== e.w * e.h) {
    newMatch(game._mn, e.w, e.h);
  }
  const mem = game._mem;
  part.c.forEach((flags, i) => {
    if (flags >= 0) {
      mem[i] = flags;
    }
  });
  // objects seen before stay where they were last seen, unless that cell is in sight now or
  // the key shows elsewhere (on the ground, or carried by a player in sight)
  const keySeen = (k) => part.o.some((o) => o[0] === 0 && o[1] === k) || own.k === k ||
    own.opponent?.k === k;
  game._remembered = game._remembered
    .filter((o) => part.c[o[3]] < 0 && !(o[0] === 0 && keySeen(o[1])))
    .concat(part.o);
  if (own.cp >= 0) {
    game._compass = own.cp;
  }
  const firstKey = !hooks.hint && part.o.find((o) => o[0] === 0); // the first key in sight
  if (firstKey) {
    hooks.hint = firstKey[1];
    if (firstKey[1] !== game._seat) {
      tell("That key is the other player's. Yours shows a " + game._seat + ".");
    }
  }
  const moved = previous ? own.p - previous.st.p : 0;
  const direction = [-e.w, 1, e.w, -1].indexOf(moved);
  if (previous?.r === e.r && direction >= 0) { // a step: said for screen readers
    const open = DIRS.filter((x, d) => wallAt(d) !== 1).join(", ") || "none";
    say("Moved " + DIRS[direction] + ". Open: " + open + ".");
  }
  if (session.mem) {
    session.mem.d = Array.from(mem);
    session.mem.o = game._remembered;
    session.mem.cp = game._compass;
    save();
  }
}
