// The screens (join, play, watch), the overlay over the maze, the join screen's status line,
// joining and leaving, and the how-to-play dialog (its text fetched from the board when first
// opened, help.html) with its legend drawn by the map's own code.

import { PAL } from "./constants.js";
import { connect, intent, rejoin, stopHeartbeat } from "./connection.js";
import { $, body, hooks, setHtml, toast } from "./dom.js";
import { cell, drawingOn, fit, obj, pawn } from "./draw.js";
import { forgetSeat, game, net, save, session, ui } from "./state.js";

const PHASE_WORDS = {
  waiting: "waiting for players",
  countdown: "starting",
  active: "being played",
  finished: "just finished",
};

// name: "join", "play" or "watch"
export function screen(name) {
  hooks.screen = name;
  $("join").hidden = name !== "join";
  $("game").hidden = name === "join";
  body.className = name === "watch" ? "obs" : name === "play" ? "ply" : "";
  toast(""); // a toast belongs to the screen it was shown on
  if (name !== "join") {
    fit();
  }
}

export function joinScreen(message) {
  screen("join");
  $("jmsg").textContent = message || "";
  $("nm").value = session.name || "";
  $("jinfo").textContent = "";
  poll();
}

// html over the maze ("" hides it); its How to play buttons open the help
export function overlay(html) {
  const el = $("ov");
  if (!setHtml(el, html)) {
    return;
  }
  el.hidden = !html;
  for (const button of el.querySelectorAll(".help")) {
    button.onclick = showHelp;
  }
}

// the board's /status, to `then`; nothing when it does not answer
export function status(then) {
  fetch("/status", { cache: "no-store" }).then((r) => r.json()).then(then).catch(() => {});
}

// the join screen's line, kept fresh while it shows
function poll() {
  clearTimeout(ui._pollTimer);
  if (hooks.screen !== "join") {
    return;
  }
  status((s) => {
    if (s.phase && hooks.screen === "join") {
      $("jinfo").textContent = "Match " + s.match + " is " + PHASE_WORDS[s.phase] +
        " \u00b7 " + s.seats + " of 2 seats taken \u00b7 " + s.observers + " watching";
    }
  });
  ui._pollTimer = setTimeout(poll, 3000);
}

// the board's rule (net/intents.py clean_name): 12 printable characters (code points), no
// markup. A longer name is cut between graphemes (a family emoji stays whole; Intl.Segmenter,
// else code points) and ends with a visible "\u2026".
function cleanName(text) {
  const name = text.replace(/[\0-\x1f\x7f-\x9f<>&"'`\\]/g, "").trim();
  if ([...name].length <= 12) {
    return name;
  }
  let out = "";
  for (const g of Intl.Segmenter ? new Intl.Segmenter().segment(name) : name) {
    const piece = g.segment || g;
    if ([...out + piece].length > 11) {
      break;
    }
    out += piece;
  }
  return out.trim() + "\u2026";
}

// role: "play" (take a seat) or "watch"
export function start(role) {
  session.name = cleanName($("nm").value);
  $("nm").value = session.name;
  if (session.role !== role || role === "watch") {
    forgetSeat();
  }
  session.role = role;
  save();
  $("jmsg").textContent = "Connecting\u2026";
  net._tries = 0;
  connect();
}

function leave() {
  const view = game._view;
  const playing = view && (view.ph === "active" || view.ph === "countdown");
  if (session.role === "play" && playing && !confirm("Leave the match? You forfeit it.")) {
    return;
  }
  if (session.role === "play") {
    intent("leave");
  }
  quit("");
}

// back to the join screen for good (left, or turned away): the seat or place forgotten, the
// socket closed (after 150 ms: time for a last intent to go out), no reconnect
export function quit(message) {
  forgetSeat();
  session.role = null;
  save();
  game._mem = null;
  const socket = net._ws;
  net._ws = null;
  if (socket) {
    setTimeout(() => socket.close(1000, "left"), 150);
  }
  stopHeartbeat();
  joinScreen(message);
}

// the how-to-play dialog. Its text is the file help.html of the board, fetched the first time
// (most players never open it, so it is not part of the page); the legend of its canvases is
// drawn in the reader's own colours each time.
let helpText = null; // the promise of help.html's markup, once asked for

export function showHelp() {
  helpText ||= fetch("/help.html").then((r) => r.ok ? r.text() : Promise.reject()).catch(() => {
    helpText = null; // asked again next time
    return "<p>The board did not answer. Try again.</p>";
  });
  helpText.then((html) => {
    setHtml($("hb"), html);
    drawLegend();
    if (!$("help").open) {
      $("help").showModal();
    }
  });
}

function drawLegend() {
  const me = game._seat || 1;
  const other = 3 - me;
  for (const legend of document.querySelectorAll("#leg canvas")) {
    legend.width = legend.height = 80;
    const g = legend.getContext("2d");
    g.scale(2, 2);
    g.fillStyle = PAL.fl;
    g.fillRect(0, 0, 40, 40);
    const what = legend.dataset.l;
    drawingOn(g, () => {
      if (what === "me") {
        pawn(0, 0, 40, me, true, 0);
      } else if (what === "op") {
        pawn(0, 0, 40, other, false, me);
      } else if (what === "k" || what === "k2") {
        obj(0, 0, 40, 0, what === "k" ? me : other, 0, 0);
      } else if (what === "x" || what === "xo") {
        obj(0, 0, 40, 1, me, 1, what === "xo");
      } else if (what === "c") {
        obj(0, 0, 40, 2, me, 0, 0);
      } else if (what === "e") {
        obj(0, 0, 40, 3, 0, 0, 0);
      } else if (what === "m") {
        cell(0, 0, 40, 5, false);
      } else {
        g.fillStyle = PAL.bg;
        g.fillRect(0, 0, 40, 40);
        cell(0, 0, 40, -1, false);
      }
    });
  }
}

export function bindScreens() {
  for (const button of document.querySelectorAll(".help")) {
    button.onclick = showHelp;
  }
  $("bPlay").onclick = () => start("play");
  $("bWatch").onclick = () => start("watch");
  $("nm").onkeydown = (e) => {
    if (e.key === "Enter") {
      start("play");
    }
  };
  $("bLeave").onclick = leave;
  $("bView").onclick = () => { // a TV: the whole maze or the players' views (where allowed)
    session.full = !session.full;
    save();
    rejoin();
  };
}
