// Everything around the maze that follows the view: the top bar, the player's HUD and
// buttons, the waiting room and countdown over the maze, the result card, the spectator's
// cards and panel, the D-pad's walls, the canvas's description and the test hooks.

import { BEARINGS, DIRS, now } from "./constants.js";
import { $, esc, hooks, setHtml } from "./dom.js";
import { fairNote, replayButton } from "./fairness.js";
import { nameHtml, playerName } from "./inbound.js";
import { canMove, wallAt } from "./moves.js";
import { overlay } from "./screens.js";
import { game, session, ui } from "./state.js";

const canvas = $("cv");
const PHASE_TEXT = { waiting: "Waiting", countdown: "Get ready", active: "Playing", finished: "Finished" };

const secs = (ms) => (ms / 1000).toFixed(1) + " s";
export const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(s / 60) + ":" + ("0" + s % 60).slice(-2);
}

// the compass bearing as a rotated arrow and its letters
function arrow(bearing) {
  return "<span class='arr' style='transform:rotate(" + bearing * 45 + "deg)'>\u2191</span> " +
    BEARINGS[bearing];
}

// a seat's symbol in its colour; the caller closes the span
const mark = (n) => "<span class='p" + n + "'>" + (n === 1 ? "\u25cf" : "\u25c6") + " ";

function xy(at) {
  return "column " + (at % game._view.w + 1) + ", row " + (Math.floor(at / game._view.w) + 1);
}

// the countdown, the clock and an away player's grace period: redrawn while they run
export function tick() {
  if (ui._tickTimer) {
    return;
  }
  ui._tickTimer = setInterval(() => {
    const view = game._view;
    if (view && (view.ph === "countdown" || view.ph === "active" || game._away[1] || game._away[2] ||
      game._room?.p.some((p) => p?.by))) {
      hud();
    } else {
      clearInterval(ui._tickTimer);
      ui._tickTimer = 0;
    }
  }, 250);
}

// the result line: "You win!", "Ann wins", "Draw!", ... (name: the seat's name as text, or as
// isolated markup); a forfeit after the grace period ran out is told as timed out
export function resultText(res, winner, name) {
  const seat = game._seat;
  if (res === "win") {
    return !seat ? name(winner) + " wins!" : winner === seat ? "You win!" : name(winner) + " wins";
  }
  if (res === "draw") {
    return "Draw!";
  }
  if (res === "forfeit") {
    if (!seat) {
      return name(winner) + " wins (" + (ui._timedOut ? "time out)" : "forfeit)");
    }
    return winner === seat
      ? name(3 - seat) + (ui._timedOut ? " timed out" : " gave up") + ": you win!"
      : ui._timedOut ? "You timed out" : "You forfeited";
  }
  return "";
}

// the one line of why under the result
export function whyText(result, winner, name) {
  if (result === "draw") {
    return "Both got out within 0.2 s of each other.";
  }
  if (result === "forfeit") {
    return name(3 - winner) + (ui._timedOut ? " did not come back in time." : " left the match.");
  }
  return (winner === game._seat ? "You" : name(winner)) + " got out first.";
}

// the series: "Ann 1 \u2013 0 Bob, best of 3" (with a series or a score), and who won it
function seriesHtml(phase, bestOf) {
  const score = game._room?.sc;
  if (!score || !(bestOf > 1 || score[0] + score[1])) {
    return "";
  }
  const lead = score[0] > score[1] ? 1 : 2;
  return nameHtml(1) + " " + score[0] + " \u2013 " + score[1] + " " + nameHtml(2) +
    (bestOf > 1 ? ", best of " + bestOf : "") +
    (phase === "finished" && bestOf > 1 && score[lead - 1] > bestOf / 2 ? "<br>" + nameHtml(lead) + " wins the series!" : "");
}

export function hud() {
  const view = game._view;
  const seat = game._seat;
  const own = view.st;
  const watching = !seat; // a TV: the whole maze (obs), or both players' views (pairs)
  const phase = view.ph;
  const t = now();
  const end = game._end;
  const finished = phase === "finished";
  $("ph").textContent = phase === "active" && t < ui._goUntil ? "GO!" : PHASE_TEXT[phase];
  $("clk").textContent = phase === "active"
    ? clock(t - game._goAt)
    : end ? clock(end.end - game._countdownMs) : "";
  hooks.phase = phase;
  const result = resultText(own.res, own.win, playerName);
  hooks.result = result;
  const other = 3 - seat;
  const seats = game._room?.p || [];
  const ready = (n) => seats[n - 1] && seats[n - 1].ready;
  const secondsLeft = (n) => game._away[n] ? Math.max(0, Math.ceil((game._away[n] - t) / 1000)) : -1;
  const rules = game._rules;
  const bestOf = rules?.rs.bo;
  // the lobby shows while waiting, and again once a series is won
  const seriesWon = () => phase === "finished" && Math.max(...game._room.sc) > bestOf / 2;
  let lobby = "";
  if (rules && (phase === "waiting" || seriesWon())) {
    lobby = lobbyHtml(rules, watching || rules.fixed || rules.by !== seat);
  }
  // who is away, and how long they have to come back
  const away = [1, 2]
    .filter((n) => secondsLeft(n) >= 0 && n !== seat)
    .map((n) => nameHtml(n) + " disconnected \u00b7 " + secondsLeft(n) + " s to return")
    .join(" \u00b7 ");
  setHtml($("away"), away);
  $("away").hidden = !away;
  hooks.away = $("away").textContent;
  const origin = location.origin + "/";
  let over = "";
  if (phase === "waiting") {
    const seatLine = (n) => seatLineHtml(n, seats[n - 1], ready(n));
    const waitingFor = ready(seat)
      ? "Waiting for " + (seats[other - 1] ? nameHtml(other) : "a second player") + "\u2026"
      : "Tap <b>Ready</b> when you are.";
    over = "<h2>Waiting room</h2>" + lobby + "<ul>" + seatLine(1) + seatLine(2) + "</ul>" +
      (watching ? ui._join : "<p>" + waitingFor + "</p>") +
      "<button class='help'>How to play</button>";
  }
  let countdown = "";
  if (phase === "countdown") {
    countdown = game._goAt > t ? Math.ceil((game._goAt - t) / 1000) : "\u2026";
  } else if (phase === "active" && t < ui._goUntil) {
    countdown = "GO!";
  }
  if (countdown !== "" && !watching) {
    over = "<div class='big'>" + countdown + "</div>" + (phase === "countdown" ? "<p>Get ready</p>" : "");
  }
  if (!ui._taken) { // spectators: nothing over the maze once it is played (the side panel tells)
    overlay(over);
    $("ov").className = countdown !== "" ? "lite" : "";
  }
  // a free seat: the join code, large in the waiting room (over the maze), small beside it after
  setHtml($("jn"), watching ? (phase !== "waiting" && !(seats[0] && seats[1])
    ? "<img src='/url.svg' alt='QR code of the game address'>" : "") +
    "Join from your phone: " + esc(origin) : "");
  const series = seriesHtml(phase, bestOf);
  if (watching) {
    const headline = countdown === "" ? "" : countdown === "GO!" ? countdown : "Starting in " + countdown;
    $("who").textContent = "Spectator \u00b7 match " + game._mn;
    // the result first and largest, then the series, the figures and the seed's line
    setHtml($("res"), phase === "finished"
      ? resultHtml(own) + series + "</p>" + figuresHtml([1, 2]) + fairNote()
      : [headline, series, away].filter((x) => x).join("<br>"));
    // each seat's status: the whole maze's, or (players mode) its own view's, with its exit
    // time once the match's figures are public
    const player = (n) => (view.r === "obs"
      ? own.players[n - 1]
      : { xt: game._end?.xt[n - 1], ...game._panes[n].v?.st }) || {};
    const where = [1, 2].map((n) => {
      seatCard(n, player(n));
      return player(n).p >= 0 ? playerName(n) + " at " + xy(player(n).p) : "";
    }).join(". ");
    canvas.setAttribute("aria-label", (view.r === "obs" ? "Whole maze. " : "Both players' views. ") + where);
    $("bView").hidden = !game._full;
    $("bView").textContent = session.full ? "Players' views" : "Whole maze";
    return;
  }
  setHtml($("who"), mark(seat) + nameHtml(seat) + "</span> " +
    (seats[other - 1] ? "vs " + nameHtml(other) : "\u00b7 waiting for an opponent"));
  setHtml($("hud"), statusHtml(own, game._compass, true) +
    (series && !finished ? "<span id=hSer>" + series + "</span>" : ""));
  const running = phase === "active" || phase === "countdown";
  const readyButton = $("bReady");
  readyButton.hidden = running || (finished && !seats[other - 1]); // a rematch needs someone to play
  readyButton.textContent = finished ? "Rematch" : "Ready";
  readyButton.disabled = !!ready(seat) || session.ob.some((o) => o.m.t === "ready" || o.m.t === "rematch");
  $("bDrop").hidden = !running;
  $("bDrop").disabled = !own.k || phase !== "active" || !!own.xd;
  $("pad").hidden = $("hud").hidden = finished;
  const card = $("end");
  card.hidden = !finished;
  if (finished) {
    setHtml(card, resultCardHtml(own, seats, ready, series, lobby));
  }
  const open = padWalls();
  hooks.pos = own.p;
  hooks.key = own.k;
  hooks.seat = seat;
  hooks.seen = game._mem ? game._mem.reduce((a, f) => a + (f >= 0), 0) : 0;
  hooks.vis = view.c.reduce((a, f) => a + (f >= 0), 0);
  hooks.om = game._remembered.filter((o) => view.c[o[3]] < 0).length;
  canvas.setAttribute("aria-label", "Maze, you are at " + xy(own.p) +
    (open.length ? ". Open: " + open.join(", ") : "") +
    (own.opponent ? ". " + playerName(other) + " at " + xy(own.opponent.p) : ""));
}

// the ruleset's label and description; for the player who chooses, a button per ruleset
function lobbyHtml(rules, cannotChoose) {
  const ruleset = rules.rs;
  const buttons = cannotChoose
    ? ""
    : rules.ids.map((id, i) => "<button data-rs=" + id + ">" + esc(rules.labels[i]) + "</button>").join("");
  return "<p>" + esc(ruleset.label + (rules.fixed ? " (fixed)" : "") + ": " + ruleset.desc) + "<br>" +
    buttons + "</p>";
}

// a seat in the waiting room: its player, away, ready
function seatLineHtml(n, player, isReady) {
  const who = player
    ? nameHtml(n) + (n === game._seat ? " (you)" : "") + (player.on ? "" : " \u2013 away") +
      (isReady ? " \u2013 <b>\u2713 ready</b>" : " \u2013 not ready" + // (and the seconds left to be)
        (player.by ? " (" + Math.max(0, Math.ceil((player.by - now()) / 1000)) + " s)" : ""))
    : "<span class='dim'>free seat</span>";
  return "<li>" + mark(n) + n + "</span> " + who + "</li>";
}

// the result and why, and the series's paragraph opened (the caller closes it)
function resultHtml(own) {
  return "<h2>" + (resultText(own.res, own.win, nameHtml) || "Finished") + "</h2><p>" +
    whyText(own.res, own.win, nameHtml) + "</p><p id=series>";
}

// both players' times out of the maze and moves, in the order of seats
function figuresHtml(order) {
  const end = game._end;
  const row = (n) => "<tr><td>" + mark(n) + nameHtml(n) + "</span></td><td>" + (end
    ? (end.xt[n - 1] >= 0 ? "out at " + secs(end.xt[n - 1] - game._countdownMs) : "inside") +
      "</td><td>" + plural(end.mv[n - 1], "move")
    : "</td><td>") + "</td></tr>";
  return "<table>" + order.map(row).join("") + "</table>";
}

// a player's result card: the result and why, the series, both players' times and moves, the
// rematch state and the fairness line
function resultCardHtml(own, seats, ready, series, lobby) {
  const seat = game._seat;
  const other = 3 - seat;
  let rematch = "Play again?";
  if (!seats[other - 1]) {
    rematch = nameHtml(other) + " left. Stay here for a new player, or Leave.";
  } else if (ready(seat)) {
    rematch = "Rematch asked. Waiting for " + nameHtml(other) + "\u2026";
  } else if (ready(other)) {
    rematch = nameHtml(other) + " wants a rematch!";
  }
  return resultHtml(own) + series + "</p>" + figuresHtml([seat, other]) + lobby +
    "<p>" + rematch + "</p>" + replayButton() + fairNote();
}

// the D-pad: a button toward a known wall is disabled, the own exit's marked; the open
// directions, for the canvas's description
function padWalls() {
  const open = [];
  for (const button of document.querySelectorAll("#pad button")) {
    const d = +button.dataset.d;
    const wall = wallAt(d);
    button.disabled = !canMove() || wall === 1;
    button.classList.toggle("x", wall === 2 && canMove());
    const note = wall === 2 ? " (out through your exit)" : wall === 1 ? " (wall)" : "";
    button.setAttribute("aria-label", "Move " + DIRS[d] + note);
    if (wall !== 1) {
      open.push(DIRS[d]);
    }
  }
  return open;
}

// a spectator's card of seat n: connected, ready, moves, and its status
function seatCard(n, player) {
  const inRoom = game._room?.p?.[n - 1];
  const end = game._end;
  const phase = game._view.ph;
  let presence = "free seat";
  if (inRoom) {
    const lobby = phase === "waiting" || phase === "finished";
    presence = (inRoom.on ? "connected" : "away") +
      (lobby ? (inRoom.ready ? ", \u2713 ready" : ", not ready") : "");
  }
  setHtml($("c" + n), "<h3>" + mark(n) + n + " " + nameHtml(n) + "</span></h3>" +
    "<p class='dim'>" + presence + (end ? ", " + plural(end.mv[n - 1], "move") : "") + "</p>" +
    "<p>" + statusHtml(player, -1, false) + "</p>");
}

// a player's key, vision, compass (else the last reading) and exit: the player's HUD (withIds:
// its values have ids) and a spectator's card
function statusHtml(player, lastCompass, withIds) {
  let compass = "none";
  if (player.cp >= 0) {
    compass = arrow(player.cp);
  } else if (lastCompass >= 0) {
    compass = arrow(lastCompass) + " <span class='dim'>(last reading)</span>";
  }
  let exit = player.xo ? "OPEN" : "closed";
  if (player.xd) {
    exit = "out" + (player.xt >= 0 ? " at " + secs(player.xt - game._countdownMs) : "");
  }
  const fields = [ // [label, the HUD's id, value]
    ["Key", "hKey", player.k ? (player.k === game._seat ? "your key" : nameHtml(player.k) + "'s key") : "none"],
    ["Vision", "hVis", player.vm ? plural(player.vm, "move") : "off"],
    ["Compass", "hCmp", compass],
    ["Exit", "hExit", exit],
  ];
  return fields.map(([label, id, value]) =>
    "<span>" + label + ": <b" + (withIds ? " id=" + id : "") + ">" + value + "</b></span>").join("");
}
