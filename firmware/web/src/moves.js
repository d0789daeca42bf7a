// Moves: the D-pad, swipes and keys; one unacknowledged move at a time, paced by the cooldown
// (docs/client.md, "Controls").

import { BIT, LETTERS, now } from "./constants.js";
import { intent } from "./connection.js";
import { $, hooks } from "./dom.js";
import { replay } from "./fairness.js";
import { refused } from "./inbound.js";
import { game, input, net } from "./state.js";

const KEYS = {
  ArrowUp: 0, w: 0, W: 0,
  ArrowRight: 1, d: 1, D: 1,
  ArrowDown: 2, s: 2, S: 2,
  ArrowLeft: 3, a: 3, A: 3,
};
const SWIPE_PX = 24; // a swipe takes its direction once the finger has moved this far

// toward direction d from the player's cell: 1 a known wall, 0 open, 2 the step out of the
// player's own exit
export function wallAt(d) {
  const view = game._view;
  if (!view || view.r === "obs") {
    return 1;
  }
  const cell = view.st.p;
  const flags = view.c[cell];
  if (flags >= 0 && flags & BIT[d]) {
    return 0;
  }
  for (const o of view.o) {
    if (o[0] === 1 && o[1] === game._seat && o[3] === cell && o[2] === d) {
      return 2;
    }
  }
  return flags >= 0 ? 1 : 0;
}

export function canMove() {
  const view = game._view;
  return view && (view.ph === "active" || view.ph === "countdown") && !view.st.xd;
}

const padButton = (d) => document.querySelector("#pad [data-d='" + d + "']");

function press(d, hold) {
  if (!canMove()) {
    return;
  }
  if (wallAt(d) === 1) { // the other player's exit (on its cell, outward), or a wall
    const view = game._view;
    refused(view.o.some((o) => o[0] === 1 && o[3] === view.st.p && o[2] === d) ? "NOT_YOUR_EXIT" : "WALL");
    return;
  }
  input._queued = d;
  if (hold) {
    input._held = d;
    padButton(d).classList.add("on");
  }
  pump();
}

// a finger lifted (or a key): the hold ends, the button is up again; no d: every direction
export function release(d) {
  if (d === undefined || input._held === d) {
    input._held = hooks.held = -1;
  }
  for (const button of document.querySelectorAll("#pad .on")) {
    if (d === undefined || +button.dataset.d === d) {
      button.classList.remove("on");
    }
  }
}

// send the next move if one is wanted and its turn has come, else wait for that turn
export function pump() {
  clearTimeout(input._pumpTimer);
  showQueued();
  hooks.held = input._held;
  if (input._inflight || !net._ws || !canMove()) {
    return;
  }
  const d = input._queued >= 0 ? input._queued : input._held;
  if (d < 0) {
    return;
  }
  if (input._waitView === game._viewNo) { // the view showing the last step has not come yet
    input._pumpTimer = setTimeout(() => {
      input._waitView = -1;
      pump();
    }, 1500);
    return;
  }
  const t = now();
  if (t < input._nextAt) {
    input._pumpTimer = setTimeout(pump, input._nextAt - t);
    return;
  }
  const fresh = input._queued >= 0;
  input._queued = -1;
  showQueued();
  if (wallAt(d) === 1) { // a held direction reaches a wall: it just stops there
    input._held = hooks.held = -1;
    if (fresh) {
      refused("WALL");
    }
    return;
  }
  input._inflight = intent("move", LETTERS[d]);
  // the board counts the cooldown from its receipt of the move
  input._nextAt = t + net._cfg.cool + 20;
}

// a tap waiting for its turn shows on its button
function showQueued() {
  for (let d = 0; d < 4; d++) {
    padButton(d).classList.toggle("q", input._queued === d);
  }
}

export function bindControls() {
  for (const button of document.querySelectorAll("#pad button")) {
    const d = +button.dataset.d;
    button.onpointerdown = (e) => {
      e.preventDefault();
      button.setPointerCapture(e.pointerId);
      press(d, true);
    };
    button.onpointerup = button.onpointercancel = button.onlostpointercapture = () => release(d);
    button.onclick = (e) => {
      if (e.detail === 0) { // keyboard activation: one step
        press(d, false);
      }
    };
    button.oncontextmenu = (e) => e.preventDefault();
  }
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.ctrlKey || e.metaKey || e.altKey || $("help").open) {
      return;
    }
    const d = KEYS[e.key];
    if (d !== undefined && hooks.screen === "play") {
      e.preventDefault();
      if (!e.repeat) {
        press(d, true);
      }
    } else if ((e.key === "x" || e.key === "X") && !$("bDrop").disabled) {
      $("bDrop").click();
    }
  });
  document.addEventListener("keyup", (e) => {
    const d = KEYS[e.key];
    if (d !== undefined) {
      release(d);
    }
  });
  addEventListener("blur", () => release());
  bindSwipes($("stage"));
  $("bDrop").onclick = () => intent("drop");
  $("ov").onclick = $("end").onclick = (e) => {
    const ruleset = e.target.dataset.rs;
    if (ruleset) {
      intent("rules", ruleset);
    }
    if (e.target.id === "bRp") {
      replay();
    }
  };
  $("bReady").onclick = () => {
    intent(game._view?.ph === "finished" ? "rematch" : "ready");
    $("bReady").disabled = true;
  };
}

// a swipe on the maze: the direction once past SWIPE_PX, held until the finger lifts
function bindSwipes(stage) {
  stage.onpointerdown = (e) => {
    if (hooks.screen === "play" && e.target.tagName !== "BUTTON") {
      input._swipe = { x: e.clientX, y: e.clientY, id: e.pointerId, d: -1 };
    }
  };
  stage.onpointermove = (e) => {
    const swipe = input._swipe;
    if (!swipe || swipe.id !== e.pointerId) {
      return;
    }
    const dx = e.clientX - swipe.x;
    const dy = e.clientY - swipe.y;
    if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_PX) {
      return;
    }
    const d = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? 1 : 3) : (dy > 0 ? 2 : 0);
    if (d !== swipe.d) {
      release(swipe.d);
      swipe.d = d;
      press(d, true);
    }
    swipe.x = e.clientX;
    swipe.y = e.clientY;
  };
  stage.onpointerup = stage.onpointercancel = (e) => {
    const swipe = input._swipe;
    if (swipe?.id === e.pointerId) {
      release(swipe.d);
      input._swipe = null;
    }
  };
}
