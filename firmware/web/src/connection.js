// The WebSocket to the board: connecting, reconnecting with backoff, the heartbeat, asking for
// a fresh view, and intents: the client sequence, the outbox of the unacknowledged, the resend
// after a rejoin (docs/client.md, "Connection").

import { MOVE_TTL, now } from "./constants.js";
import { $, hooks, showConnection } from "./dom.js";
import { onMessage } from "./inbound.js";
import { overlay } from "./screens.js";
import { input, net, save, session, ui } from "./state.js";
import { views } from "./views.js";

export function connect() {
  clearTimeout(net._reconnectTimer);
  if (net._ws || !session.role) {
    return;
  }
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws");
  net._ws = socket;
  showConnection("connecting\u2026");
  const openTimer = setTimeout(() => {
    if (socket.readyState !== 1) {
      socket.close();
    }
  }, 5000);
  socket.onopen = () => {
    clearTimeout(openTimer);
    net._lastRx = now();
    const join = { t: "join", role: session.role };
    if (session.full) {
      join.view = "full";
    }
    if (session.role === "play") {
      if (session.tok) {
        join.token = session.tok;
      }
      if (session.name) {
        join.name = session.name;
      }
    }
    socket.send(JSON.stringify(join));
  };
  socket.onmessage = (e) => {
    if (socket === net._ws) {
      onMessage(e.data);
    }
  };
  socket.onclose = (e) => {
    clearTimeout(openTimer);
    if (socket.resync) {
      if (net._ws === null) {
        connect();
      }
      return;
    }
    if (socket === net._ws) {
      dropped(e.code, e.reason);
    }
  };
}

// the socket is gone: reconnect after a backoff, unless the seat was taken or the player left
export function dropped(code, reason) {
  detach();
  showConnection("offline");
  if (code === 4001) {
    ui._taken = true;
    $("ov").className = "";
    overlay("<h2>Opened elsewhere</h2><p>Your seat is now used by another window or tab.</p>" +
      "<button id='bBack' class='go'>Play here</button>");
    $("bBack").onclick = () => {
      net._tries = 0;
      ui._taken = false;
      overlay("");
      connect();
    };
    return;
  }
  if (!session.role || (code === 1000 && reason === "left")) {
    return;
  }
  const backoff = Math.min(5000, 250 * 2 ** Math.min(net._tries++, 5));
  const delay = backoff * (0.8 + Math.random() * 0.4);
  showConnection("reconnecting\u2026");
  net._reconnectTimer = setTimeout(connect, delay);
}

// a lost or out-of-order record: ask the board for the whole view again
export function resync() {
  net._resyncTimer = 0;
  views.part = null;
  if (!send({ t: "sync", c: ++session.c })) {
    rejoin();
  }
  hooks.syncs = (+hooks.syncs || 0) + 1;
}

// not joined on this socket: a rejoin with the token sends the whole view
export function rejoin() {
  const socket = net._ws;
  if (!socket || socket.readyState !== 1) {
    return;
  }
  socket.resync = true;
  detach();
  socket.close(1000, "resync");
}

// the socket no longer counts: no view half assembled, no move awaiting its answer, no beat
function detach() {
  net._ws = null;
  views.part = null;
  input._inflight = null;
  stopHeartbeat();
}

export function send(message) {
  if (net._ws?.readyState === 1) {
    net._ws.send(JSON.stringify(message));
    return true;
  }
  return false;
}

export function stopHeartbeat() {
  clearInterval(net._heartbeatTimer);
  net._heartbeatTimer = 0;
}

// the board drops a socket that says nothing for `idle` ms; one silent for two beats is dead
export function heartbeat() {
  stopHeartbeat();
  const every = Math.max(400, Math.min(5000, net._cfg.idle / 4));
  net._heartbeatTimer = setInterval(() => {
    if (!net._ws) {
      return;
    }
    if (now() - net._lastRx > every * 2 + 2000) {
      const socket = net._ws;
      dropped(1006, "");
      socket.onclose = null;
      socket.close();
      return;
    }
    send({ t: "ping", c: ++session.c });
    save(); // this tab still holds the seat
  }, every);
}

// an intent with the next client sequence, kept in the outbox until its answer; returns its c
export function intent(type, value) {
  const message = { t: type, c: ++session.c };
  if (value !== undefined) {
    message[type === "rules" ? "id" : "d"] = value;
  }
  session.ob.push({ m: message, at: Date.now() });
  save();
  send(message);
  return message.c;
}

// the answer to intent c came: it leaves the outbox; returns the intent, or null
export function settle(c) {
  const i = session.ob.findIndex((entry) => entry.m.c === c);
  if (i < 0) {
    return null;
  }
  const entry = session.ob.splice(i, 1)[0];
  save();
  return entry.m;
}

// after a welcome: drop what the board applied (c <= last) and old moves, send the rest again
export function resend(last) {
  const t = Date.now();
  session.ob = session.ob.filter((entry) => {
    const oldMove = entry.m.t === "move" && t - entry.at > MOVE_TTL;
    return entry.m.c > last && !oldMove;
  });
  save();
  for (const entry of session.ob) {
    send(entry.m);
    if (entry.m.t === "move") {
      input._inflight = entry.m.c;
      input._nextAt = 0;
    }
  }
}
