// The maze canvas: fitting it to the screen, cells, objects, pawns and their slides, both paths
// after the match (docs/client.md, "Drawing the maze"). The HUD is redrawn with it (hud.js).

import { BIT, PAL, SEAT_COLOURS, SLIDE_MS, now } from "./constants.js";
import { $, hooks } from "./dom.js";
import { hud } from "./hud.js";
import { game, grid, ui } from "./state.js";

const canvas = $("cv");
const stage = $("stage");
let g = canvas.getContext("2d"); // where cell(), obj() and pawn() draw

// shapes, as points in cells from the cell's corner (polyline())
const WALLS = [ // by direction: the wall's line
  [[0, 0], [1, 0]],
  [[1, 0], [1, 1]],
  [[0, 1], [1, 1]],
  [[0, 0], [0, 1]],
];
const KEY_SHAFT = [[.47, .5], [.85, .5], [.85, .68]];
const KEY_TOOTH = [[.7, .5], [.7, .66]];
const NEEDLE = [[.5, .22], [.6, .5], [.5, .78], [.4, .5]]; // the compass's
const EXIT_ARROW = [[.5, .04], [.64, .2], [.36, .2]]; // pointing out of the north side
const DIAMOND = [[.5, .086], [.914, .5], [.5, .914], [.086, .5]]; // seat 2's pawn

// draw on another canvas's context for a while (the legend of the help)
export function drawingOn(context, paint) {
  const keep = g;
  g = context;
  try {
    paint();
  } finally {
    g = keep;
  }
}

// a TV of the players mode: both players' views side by side, each in a pane of its own
export const pairs = () => !game._seat && game._view?.r !== "obs";

// size the canvas to its box (portrait: the maze as large as the controls leave room for),
// choose the window on the maze, and draw
export function fit() {
  const view = game._view;
  if (!view) {
    return;
  }
  const whole = view.r === "obs" || revealShown() || pairs();
  const vw = whole ? view.w : Math.min(view.w, 15);
  const vh = whole ? view.h : Math.min(view.h, 15);
  const cols = pairs() ? 2 * vw + 1 : vw; // (two panes, a column apart)
  hud();
  const side = $("side");
  const main = $("main");
  const wide = getComputedStyle(main).flexDirection === "row";
  stage.style.height = "";
  let box = stage.getBoundingClientRect();
  let height = box.height;
  if (!wide) { // portrait: the maze as large as the rest allows, the controls share what is left
    stage.style.height = "0px";
    side.style.flex = "none";
    height = main.clientHeight - side.offsetHeight;
    side.style.flex = "";
    box = { width: main.clientWidth };
  }
  const size = Math.max(8, Math.floor(Math.min((box.width - 8) / cols, (height - 8) / vh)));
  const width = size * cols;
  const canvasHeight = size * vh;
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(canvasHeight * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(canvasHeight * dpr);
    canvas.style.width = width + "px";
    canvas.style.height = canvasHeight + "px";
  }
  if (!wide) {
    stage.style.height = canvasHeight + 8 + "px";
  }
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  grid._cs = size;
  const px = whole ? 0 : view.st.p % view.w;
  const py = whole ? 0 : Math.floor(view.st.p / view.w);
  grid._ox = whole ? 0 : Math.max(0, Math.min(view.w - vw, px - (vw >> 1)));
  grid._oy = whole ? 0 : Math.max(0, Math.min(view.h - vh, py - (vh >> 1)));
  grid._vw = vw;
  grid._vh = vh;
  draw();
}

// the match is over and its whole maze has come
export function revealShown() {
  const view = game._view;
  return view?.ph === "finished" && game._reveal?.mn === game._mn;
}

// one cell: floor and the walls around it, or an unseen dot
export function cell(X, Y, cs, flags, inSight) {
  if (flags < 0) {
    g.fillStyle = PAL.dot;
    g.fillRect(X + cs / 2 - 2, Y + cs / 2 - 2, 4, 4);
    return;
  }
  g.fillStyle = inSight ? PAL.fl : PAL.fm;
  g.fillRect(X, Y, cs, cs);
  g.strokeStyle = inSight ? PAL.wl : PAL.wm;
  g.lineWidth = Math.max(2, Math.round(cs / 9));
  g.beginPath();
  WALLS.forEach((wall, d) => {
    if (!(flags & BIT[d])) {
      polyline(X, Y, cs, wall);
    }
  });
  g.stroke();
}

export function draw() {
  const view = game._view;
  if (!view) {
    return;
  }
  if (pairs()) { // each seat's view in its pane, framed in its colour, drawn as its phone does
    g.fillStyle = PAL.bg;
    g.fillRect(0, 0, canvas.width, canvas.height);
    const side = (view.w + 1) * grid._cs;
    hooks.panes = [1, 2].filter((n) => {
      const pane = game._panes[n];
      if (pane.v) {
        [game._view, game._mem, game._remembered, game._seat] = [pane.v, pane.m, pane.o, n];
        g.save();
        g.translate(side * (n - 1), 0);
        paint();
        g.strokeStyle = SEAT_COLOURS[n];
        g.lineWidth = 3;
        g.strokeRect(1, 1, side - grid._cs - 2, view.h * grid._cs - 2);
        g.restore();
      }
      return pane.v;
    }).length;
    [game._view, game._mem, game._seat] = [view, 0, 0];
  } else {
    paint();
  }
  hud();
}

// the view shown (a TV's pane: that seat's), its pawns and objects
function paint() {
  const view = game._view;
  const { _cs: cs, _ox: ox, _oy: oy, _vw: vw, _vh: vh } = grid;
  const watching = view.r === "obs";
  const w = view.w;
  const own = view.st;
  const reveal = revealShown() ? game._reveal : null;
  g.fillStyle = PAL.bg;
  g.fillRect(0, 0, vw * cs, vh * cs);
  for (let y = oy; y < oy + vh; y++) {
    for (let x = ox; x < ox + vw; x++) {
      const i = y * w + x;
      const inSight = view.c[i] >= 0;
      const remembered = reveal?.c[i] >= 0 ? reveal.c[i] & 15 : game._mem ? game._mem[i] : -1;
      cell((x - ox) * cs, (y - oy) * cs, cs, inSight ? view.c[i] : remembered, inSight || watching);
    }
  }
  drawPaths(reveal, view);
  const statusOf = (o) => watching ? own.players[o[1] - 1] : o[1] === game._seat ? own : null;
  if (!watching) { // objects as last seen, where the view does not show their cell
    for (const o of game._remembered) {
      if (view.c[o[3]] < 0) {
        put(o, statusOf(o));
      }
    }
  }
  for (const o of view.o) {
    put(o, statusOf(o));
  }
  const pawns = []; // [seat, cell, own pawn, key carried]
  if (watching) {
    for (const n of [1, 2]) {
      const player = own.players[n - 1]; // (none in a TV's waiting room)
      if (player?.xd === 0) {
        pawns.push([n, player.p, false, player.k]);
      }
    }
  } else {
    // toasts at the edge of the maze away from the player's own pawn
    $("stage").classList.toggle("lo", (Math.floor(own.p / w) - oy) * 2 >= vh);
    if (own.opponent) {
      pawns.push([3 - game._seat, own.opponent.p, false, own.opponent.k]);
    }
    if (!own.xd) {
      pawns.push([game._seat, own.p, true, own.k]);
    }
  }
  const shared = pawns.length === 2 && pawns[0][1] === pawns[1][1]; // two on one cell: side by side
  let moving = false;
  for (const [n, at, self, key] of pawns) {
    let [X, Y] = cellXY(at);
    const anim = slide(n, at);
    if (anim) {
      const [X0, Y0] = cellXY(anim.from);
      const f = Math.min(1, (now() - anim.t0) / SLIDE_MS);
      X = X0 + (X - X0) * f;
      Y = Y0 + (Y - Y0) * f;
      moving = moving || f < 1;
    }
    if (shared) {
      pawn(X + cs * (n === 1 ? -.07 : .37), Y + cs * .15, cs * .7, n, self, key);
    } else {
      pawn(X, Y, cs, n, self, key);
    }
  }
  if (moving && !ui._frame) {
    ui._frame = requestAnimationFrame(() => {
      ui._frame = 0;
      draw();
    });
  }
}

// both paths, once the match is over: a dot in each player's colour on every cell it stood on
function drawPaths(reveal, view) {
  const cs = grid._cs;
  const counts = [0, 0, 0];
  if (reveal) {
    for (const n of [1, 2]) {
      g.fillStyle = SEAT_COLOURS[n];
      for (let i = 0; i < view.w * view.h; i++) {
        if (reveal.c[i] > 0 && reveal.c[i] & 8 << n) {
          counts[n]++;
          const [X, Y] = cellXY(i);
          const offset = n === 1 ? .35 : .65;
          circle(X + cs * offset, Y + cs * offset, cs * .12);
          g.fill();
        }
      }
    }
  }
  hooks.rv = reveal ? reveal.c.filter((f) => f >= 0).length : 0; // cells of the revealed maze
  hooks.path = counts[1] + "," + counts[2]; // cells of the two paths drawn
}

// a pawn that moved one cell glides there instead of jumping: its slide, or null
function slide(n, at) {
  const was = ui._pos[n];
  ui._pos[n] = at;
  const step = Math.abs(was - at);
  if (was >= 0 && was !== at && game._view && (step === 1 || step === game._view.w)) {
    ui._anim[n] = { from: was, to: at, t0: now() };
    hooks.anim = (+hooks.anim || 0) + 1;
  }
  const anim = ui._anim[n];
  return anim?.to === at && now() - anim.t0 < SLIDE_MS ? anim : null;
}

// the canvas position of a cell
function cellXY(at) {
  const { _cs: cs, _ox: ox, _oy: oy } = grid;
  return [(at % game._view.w - ox) * cs, (Math.floor(at / game._view.w) - oy) * cs];
}

// text centred on (x, y); outlined: edged in the background colour, to stand out on any floor
function label(text, x, y, size, colour, outlined) {
  g.font = "bold " + Math.round(size) + "px system-ui,sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  if (outlined) {
    g.lineWidth = Math.max(2, size / 4);
    g.strokeStyle = PAL.bg;
    g.strokeText(text, x, y);
  }
  g.fillStyle = colour;
  g.fillText(text, x, y);
}

// a new path: a circle
function circle(x, y, r) {
  g.beginPath();
  g.arc(x, y, r, 0, 7);
}

// lines through points given in cells ([x, y] from the cell's corner X, Y), added to the path
function polyline(X, Y, cs, points) {
  points.forEach(([x, y], i) => {
    if (i) {
      g.lineTo(X + x * cs, Y + y * cs);
    } else {
      g.moveTo(X + x * cs, Y + y * cs);
    }
  });
}

// an object of a view (or remembered) at its cell; owner: its owner's status (an open exit)
function put(o, owner) {
  const [X, Y] = cellXY(o[3]);
  const cs = grid._cs;
  if (X >= 0 && Y >= 0 && X < grid._vw * cs && Y < grid._vh * cs) {
    obj(X, Y, cs, o[0], o[1], o[2], o[0] === 1 && owner?.xo);
  }
}

// kind 0 key, 1 exit (variant: its side), 2 compass, 3 vision artifact; who: its owner's seat
export function obj(X, Y, cs, kind, who, variant, open) {
  const colour = SEAT_COLOURS[who];
  const m = cs / 2;
  g.lineWidth = Math.max(2, cs / 12);
  g.strokeStyle = g.fillStyle = colour;
  if (kind === 0) { // key: ring and shaft with a tooth
    circle(X + cs * .32, Y + m, cs * .15);
    polyline(X, Y, cs, KEY_SHAFT);
    polyline(X, Y, cs, KEY_TOOTH);
    g.stroke();
    label(who, X + cs * .62, Y + cs * .28, cs * .34, colour, true);
  } else if (kind === 1) { // exit: a door on the outward side, an arrow out once known open
    g.save();
    g.translate(X + m, Y + m);
    g.rotate(variant * Math.PI / 2); // drawn as the north side's, turned to its own
    g.translate(-m, -m);
    g.fillRect(0, 0, cs, cs * .22);
    if (open) {
      g.fillStyle = "#fff";
      g.beginPath();
      polyline(0, 0, cs, EXIT_ARROW);
      g.fill();
    }
    g.restore();
    label("E" + who, X + m, Y + m, cs * .34, colour, true);
  } else if (kind === 2) { // compass: a ring with a needle
    circle(X + m, Y + m, cs * .3);
    g.stroke();
    g.beginPath();
    polyline(X, Y, cs, NEEDLE);
    g.fill();
    label(who, X + cs * .82, Y + cs * .2, cs * .3, colour, true);
  } else { // vision artifact: an eye
    g.strokeStyle = g.fillStyle = "#d9f99d";
    g.beginPath();
    g.ellipse(X + m, Y + m, cs * .34, cs * .18, 0, 0, 7);
    g.stroke();
    circle(X + m, Y + m, cs * .1);
    g.fill();
  }
}

// seat 1 a circle, seat 2 a diamond, both numbered; self: a white ring; key: a disc in its
// owner's colour
export function pawn(X, Y, cs, n, self, key) {
  const m = cs / 2;
  g.fillStyle = SEAT_COLOURS[n];
  g.strokeStyle = self ? "#fff" : PAL.bg;
  g.lineWidth = self ? Math.max(2, cs / 10) : 2;
  if (n === 1) {
    circle(X + m, Y + m, cs * .36);
  } else {
    g.beginPath();
    polyline(X, Y, cs, DIAMOND);
    g.closePath();
  }
  g.fill();
  g.stroke();
  label(n, X + m, Y + m + 1, cs * .4, PAL.bg);
  if (key) {
    g.fillStyle = SEAT_COLOURS[key];
    g.strokeStyle = PAL.bg;
    g.lineWidth = 1.5;
    circle(X + cs * .84, Y + cs * .16, cs * .13);
    g.fill();
    g.stroke();
  }
}
