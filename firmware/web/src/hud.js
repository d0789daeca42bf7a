// Everything around the maze that follows the view: the top bar, the player's HUD and
// buttons, the waiting room and countdown over the maze, the result card, the spectator's
// cards and panel, the D-pad's walls, the canvas's description and the test hooks.

import { BEARINGS, DIRS, now } from "./constants.js";
import { $, esc, hooks, setHtml } from "./dom.js";
import { fairNote } from "./fairness.js";
import { playerName } from "./inbound.js";
import { canMove, wallAt } from "./moves.js";
import { overlay } from "./screens.js";
import { game, session, ui } from "./state.js";

const canvas = $("cv");
const PHASE_TEXT = { waiting: "Waiting", countdown: "Get ready", active: "Playing", finished: "Finished" };

const secs = (ms) => (ms / 1000).toFixed(1) + " s";

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
    if (view && (view.ph === "countdown" || view.ph === "active" || game._away[1] || game._away[2])) {
      hud();
    } else {
      clearInterval(ui._tickTimer);
      ui._tickTimer = 0;
    }
  }, 250);
}

// the result line: "You win!", "Ann wins", "Draw!", ...
function resultText(own, watching) {
  const seat = game._seat;
  const winner = own.win;
  if (own.res === "win") {
    return watching ? playerName(winner) + " wins!" : winner === seat ? "You win!" : playerName(winner) + " wins";
  }
  if (own.res === "draw") {
    return "Draw!";
  }
  if (own.res === "forfeit") {
    if (watching) {
      return playerName(winner) + " wins (forfeit)";
    }
    return winner === seat ? playerName(3 - seat) + " gave up: you win!" : "You forfeited";
  }
  return "";
}

// the one line of why under the result
function whyText(result, winner) {
  if (result === "draw") {
    return "Both got out within 0.2 s of each other.";
  }
  if (result === "forfeit") {
    return playerName(3 - winner) + " left the match.";
  }
  return (winner === game._seat ? "You" : playerName(winner)) + " got out first.";
}

export function hud() {
  const view = game._view;
  const seat = game._seat;
  const own = view.st;
  const watching = !seat; // a TV: the whole maze (obs), or both players' views (pairs)
  const phase = view.ph;
  const t = now();
  const end = game._end;
  $("ph").textContent = phase === "active" && t < ui._goUntil ? "GO!" : PHASE_TEXT[phase];
  $("clk").textContent = phase === "active"
    ? clock(t - game._goAt)
    : end ? clock(end.end - game._countdownMs) : "";
  hooks.phase = phase;
  const result = resultText(own, watching);
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
    .map((n) => playerName(n) + " disconnected \u00b7 " + secondsLeft(n) + " s to return")
    .join(" \u00b7 ");
  $("away").textContent = away;
  $("away").hidden = !away;
  hooks.away = away;
  const origin = location.origin + "/";
  let over = "";
  if (phase === "waiting") {
    const seatLine = (n) => seatLineHtml(n, seats[n - 1], ready(n));
    const waitingFor = ready(seat)
      ? "Waiting for " + (seats[other - 1] ? esc(playerName(other)) : "a second player") + "\u2026"
      : "Tap <b>Ready</b> when you are.";
    over = "<h2>Waiting room</h2>" + lobby + "<ul>" + seatLine(1) + seatLine(2) + "</ul>" +
      (watching ? joinCodesHtml(origin) : "<p>" + waitingFor + "</p>") +
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
  $("jn").textContent = watching ? "Join from your phone: " + origin : "";
  const score = game._room?.sc;
  const series = score && seats[0] && seats[1] && score[0] + score[1]
    ? "Series: " + playerName(1) + " " + score[0] + " \u2013 " + score[1] + " " + playerName(2)
    : "";
  if (watching) {
    const headline = countdown === "" ? result : countdown === "GO!" ? countdown : "Starting in " + countdown;
    $("who").textContent = "Spectator \u00b7 match " + game._mn;
    $("res").innerHTML = esc([headline, series, away].filter((x) => x).join("\n")) +
      (phase === "finished" ? fairNote() : "");
    // each seat's status: the whole maze's, or (players mode) its own view's
    const player = (n) => (view.r === "obs" ? own.players[n - 1] : game._panes[n].v?.st) || {};
    const where = [1, 2].map((n) => {
      seatCard(n, player(n));
      return player(n).p >= 0 ? playerName(n) + " at " + xy(player(n).p) : "";
    }).join(". ");
    canvas.setAttribute("aria-label", (view.r === "obs" ? "Whole maze. " : "Both players' views. ") + where);
    $("bView").hidden = !game._full;
    $("bView").textContent = session.full ? "Players' views" : "Whole maze";
    return;
  }
  $("who").innerHTML = mark(seat) + esc(playerName(seat)) + "</span> " +
    (seats[other - 1] ? "vs " + esc(playerName(other)) : "\u00b7 waiting for an opponent");
  setHtml($("hud"), statusHtml(own, game._compass, true));
  const running = phase === "active" || phase === "countdown";
  const finished = phase === "finished";
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
    setHtml(card, resultCardHtml(result, own, seats, ready, series, lobby, bestOf));
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
    ? esc(playerName(n)) + (n === game._seat ? " (you)" : "") + (player.on ? "" : " \u2013 away") +
      (isReady ? " \u2013 <b>\u2713 ready</b>" : " \u2013 not ready")
    : "<span class='dim'>free seat</span>";
  return "<li>" + mark(n) + n + "</span> " + who + "</li>";
}

// the TV's waiting room: both join QR codes large
function joinCodesHtml(origin) {
  return "<div class='qr'><figure><img src='/wifi.svg' alt='QR code: join the Wi-Fi' onerror='this.remove()'>" +
    "<figcaption>1. Join the Wi-Fi <b>" + esc(ui._ssid) + "</b></figcaption></figure>" +
    "<figure><img src='/url.svg' alt='QR code of the game address'><figcaption>2. Open <b>" + esc(origin) +
    "</b></figcaption></figure></div><p>Scan with the phone camera. The match starts when both players are ready.</p>";
}

// a player's result card: the result and why, both players' times and moves, the series, the
// rematch state and the fairness line
function resultCardHtml(result, own, seats, ready, series, lobby, bestOf) {
  const end = game._end;
  const seat = game._seat;
  const other = 3 - seat;
  const row = (n) => {
    const figures = end
      ? (end.xt[n - 1] >= 0 ? "out at " + secs(end.xt[n - 1] - game._countdownMs) : "inside") +
        "</td><td>" + end.mv[n - 1] + " moves"
      : "</td><td>";
    return "<tr><td>" + mark(n) + esc(playerName(n)) + "</span></td><td>" + figures + "</td></tr>";
  };
  let rematch = "Play again?";
  if (!seats[other - 1]) {
    rematch = esc(playerName(other)) + " left. Stay here for a new player, or Leave.";
  } else if (ready(seat)) {
    rematch = "Rematch asked. Waiting for " + esc(playerName(other)) + "\u2026";
  } else if (ready(other)) {
    rematch = esc(playerName(other)) + " wants a rematch!";
  }
  return "<h2>" + esc(result || "Finished") + "</h2><p>" + esc(whyText(own.res, own.win)) + "</p><table>" +
    row(seat) + row(other) + "</table><p id=series>" +
    esc(series + (bestOf > 1 ? " (best of " + bestOf + ")" : "")) + "</p>" + lobby +
    "<p>" + rematch + "</p>" + fairNote();
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
  $("c" + n).innerHTML = "<h3>" + mark(n) + n + " " + esc(playerName(n)) + "</span></h3>" +
    "<p class='dim'>" + presence + (end ? ", " + end.mv[n - 1] + " moves" : "") + "</p>" +
    "<p>" + statusHtml(player, -1, false) + "</p>";
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
    ["Key", "hKey", player.k ? (player.k === game._seat ? "your key" : esc(playerName(player.k)) + "'s key") : "none"],
    ["Vision", "hVis", player.vm ? player.vm + " moves" : "off"],
    ["Compass", "hCmp", compass],
    ["Exit", "hExit", exit],
  ];
  return fields.map(([label, id, value]) =>
    "<span>" + label + ": <b" + (withIds ? " id=" + id : "") + ">" + value + "</b></span>").join("");
}
