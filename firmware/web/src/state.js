// Everything the page changes after start-up, in named objects, one field per line.
//
// The fields of net, game, input, ui and grid start with "_": they are the page's own, never
// on the wire nor stored, so the build shortens their names (esbuild --mangle-props, for
// PRIVATE_PROPS of tools/build_image.py). session's fields are a stored format: they keep theirs.
//
// session: who this tab is, saved in sessionStorage "md" (a reload keeps it, every tab has its
// own); a player's seat is also kept in localStorage "md:<token>" with the time a tab last used
// it, so a new tab after the browser was closed resumes it, but never a seat another open tab
// uses. Its field names are the stored format: role, tok (seat token), name, c (the last client
// sequence), ob (the outbox: [{m, at}]), mem (the map memory: {k: token:match, d: flags per
// cell, -1 = never seen, o: objects as last seen, cp: the last compass reading}), full (a TV
// that asks for the whole maze).

import { STALE } from "./constants.js";

const tabStore = sessionStorage;
const browserStore = localStorage;

function load(store, key) {
  try {
    return JSON.parse(store.getItem(key));
  } catch (e) {
    return null;
  }
}

// a seat stored by a tab that is gone (closed, or not seen for STALE ms), to resume
function adoptStoredSeat() {
  const old = load(browserStore, "md"); // a page from before tabs had their own identity
  if (old?.tok) {
    browserStore.setItem("md:" + old.tok, JSON.stringify(old));
  }
  browserStore.removeItem("md");
  for (let i = 0; i < browserStore.length; i++) {
    const key = browserStore.key(i);
    const stored = key.startsWith("md:") && load(browserStore, key);
    if (stored?.role === "play" && !(Date.now() - (stored.at || 0) < STALE)) {
      return stored;
    }
  }
  return null;
}

export let session = load(tabStore, "md") || {};
if (!session.role) {
  session = adoptStoredSeat() || session;
}
session.c = session.c || 0;
session.ob = session.ob || [];

let pageGone = false; // pagehide came: every save from then on frees the seat

export function setPageGone(gone) {
  pageGone = gone;
}

export function save() {
  try {
    tabStore.setItem("md", JSON.stringify(session));
    if (session.tok) {
      const at = pageGone ? 0 : Date.now();
      browserStore.setItem("md:" + session.tok, JSON.stringify({ ...session, at }));
    }
  } catch (e) {
    // storage full: the tab plays on without it
  }
}

export function forgetSeat() {
  if (session.tok) {
    browserStore.removeItem("md:" + session.tok);
  }
  session.tok = null;
  session.ob = [];
  session.mem = null;
}

export const net = { // the connection
  _ws: null, // the socket; null while there is none
  _tries: 0, // reconnects since a welcome (backoff)
  _reconnectTimer: 0, // reconnect timeout
  _heartbeatTimer: 0, // heartbeat interval
  _lastRx: 0, // now() of the last message in
  _cfg: { cool: 250, idle: 20000 }, // from welcome (ms)
  _resyncTimer: 0, // timeout that asks for a fresh view
};

export const game = { // the match
  _seat: 0, // own seat; 0 = spectator
  _mn: 0, // match number
  _boot: "", // the board run (welcome): a restart starts everything afresh
  _room: null, // the last room line
  _rules: null, // the last rules line (the lobby)
  _fair: null, // the last fair line (the seed's commitment)
  _names: ["", "", ""], // the last names seen per seat (a freed seat keeps its player's name)
  _away: [0, 0, 0], // now() when an away seat's grace period ends, 0 = present
  _view: null, // the view shown (c: flags, -1 = not in it)
  _lastS: -1, // its s: older views are refused
  _viewNo: 0, // complete views so far
  _mem: null, // map memory (-1 = never seen)
  _remembered: [], // objects seen earlier, as last seen
  _compass: -1, // the last compass reading
  _countdownMs: 0, // countdown length (ms)
  _goAt: 0, // now() of GO (the end of the countdown)
  _size: 0, // cells of the maze (welcome)
  _end: null, // the figures of match mn (its first maze message)
  _reveal: null, // the revealed maze of match mn: {mn, c: flags + 16/32 for the paths}
  _panes: [0, {}, {}], // a TV of the players mode: per seat {v: its view, m: map memory, o: objects seen}
  _full: false, // a TV: the board sends the whole maze to a TV that asks (welcome.full)
};

export const input = { // moves, one in flight at a time
  _held: -1, // direction held, -1 = none
  _queued: -1, // direction tapped during a wait
  _retries: 0, // COOLDOWN retries of this move
  _inflight: null, // c of the move awaiting its answer
  _nextAt: 0, // no move before this now()
  _waitView: -1, // viewNo at the last ack: wait for a newer one
  _pumpTimer: 0, // pump() timeout
  _swipe: null, // {x, y, id, d}
};

export const ui = { // the screen, besides the view
  _taken: false, // seat opened elsewhere (4001)
  _tickTimer: 0, // countdown and clock redraw interval
  _goUntil: 0, // "GO!" shows until this now()
  _log: [], // the last four events (spectators)
  _meeting: null, // a meeting being told: {back: [key_returned events]}
  _pollTimer: 0, // the join screen's /status poll
  _join: "", // the TV's join panel: the Wi-Fi's and the address's QR codes (markup, by tv.js)
  _timedOut: false, // the match's forfeit came at the end of a grace period (a time out)
  _pos: [0, -1, -1], // where each pawn was drawn last
  _anim: [0, null, null], // pawn slides: {from, to, t0}
  _frame: 0, // animation frame pending
};

export const grid = { // the canvas window on the maze
  _cs: 20, // cell size (CSS px)
  _ox: 0, // first column shown
  _oy: 0, // first row shown
  _vw: 0, // columns shown
  _vh: 0, // rows shown
};
