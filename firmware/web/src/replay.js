// The instant replay (docs/client.md, "Instant replay"): a finished match's log (GET /log?n=N,
// docs/log.md) read, its maze and objects made again from the log's seed exactly as the board
// made them (firmware/game/prng.py, maze.py, placement.py), its logged moves applied on that
// maze (game/engine.py's rules for keys, meetings, eyes and exits), and played back over the
// whole maze in 15-30 s whatever the match's length, skippable (its button, Escape or S).
// A file of its own on the board, imported only when a replay is asked for (src/fairness.js):
// none of it is in the page, and the board sends nothing for it but the log it keeps anyway.
// It imports nothing: the page lends it its drawing (kit: cell, obj, pawn, drawingOn, PAL and
// the seats' colours).

const BITS = [1, 2, 4, 8]; // a cell's passage flag per direction N, E, S, W
const HOLD_MS = 1500; // the last state stays this long before the result
const body = document.body;
let shown = null; // the replay on screen: {stop(state)}
let held = null; // the replay's time set by seek() (the tests), null: its own clock

// ---- the log (docs/log.md, format 1) --------------------------------------------------------

// Fletcher-16 of b[start:end], continuing from the sums a, b (game.matchlog's Header.sum)
function sum(b, start, end, a, c) {
  for (let i = start; i < end; i++) {
    a = (a + b[i]) % 255;
    c = (c + a) % 255;
  }
  return c << 8 | a;
}

const uint = (b, off, n) => {
  let v = 0;
  for (let i = off; i < off + n; i++) {
    v = v * 256 + b[i];
  }
  return v;
};

// bytes (Uint8Array) -> the header's fields and the valid entries ([kind, seat, arg, t]; up to
// the first invalid one, as game.replay reads them), or null for what is not a log of this
// format and rules version
export function parse(b) {
  if (b.length < 208 || uint(b, 0, 4) !== 0x4d444c47 || b[4] !== 1 || b[5] !== 1 ||
    uint(b, 206, 2) !== sum(b, 0, 206, 0, 0)) {
    return null;
  }
  const name = (at) => new TextDecoder().decode(b.subarray(at + 1, at + 1 + Math.min(b[at], 48)));
  const log = {
    w: b[6],
    h: b[7],
    pairs: b[8],
    braid: b[9],
    cool: uint(b, 10, 2),
    cd: uint(b, 12, 2),
    rs: b[14] >> 4,
    seed: (b[16] & 63) * 2 ** 24 + uint(b, 17, 3),
    mn: uint(b, 64, 2),
    names: ["", name(108), name(157)],
    e: [],
  };
  for (let i = 0, off = 208; off + 8 <= b.length; i++, off += 8) {
    if (uint(b, off + 6, 2) !== sum(b, off, off + 6, i & 255, i >> 8 & 255)) {
      break;
    }
    const kind = b[off] >> 4;
    const seat = b[off] >> 2 & 3;
    if (kind < 1 || kind > 7 || (kind < 3 || kind === 4) && !seat || seat > 2) {
      break;
    }
    log.e.push([kind, seat, b[off] & 3, kind === 5 ? 0 : (b[off + 2] & 63) * 2 ** 24 + uint(b, off + 3, 3)]);
  }
  return log;
}

// ---- the maze and its objects, made again from the seed -------------------------------------

// game.prng: the seed mixed, then xorshift32; below(n) is uniform in 0..n-1 by rejection
function prng(seed) {
  let x = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  x = (x ^ x >>> 13) >>> 0 || 0x6d2b79f5;
  return (n) => {
    const r = 2 ** 32 % n;
    for (;;) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      if (x < 2 ** 32 - r) {
        return x % n;
      }
    }
  };
}

const sides = (f) => (f & 1) + (f >> 1 & 1) + (f >> 2 & 1) + (f >> 3 & 1);

// game.maze.generate and game.placement.Placer.place: {cells, start: [, 1, 2], objects
// [kind, owner, variant, cell] in the engine's slot order}
export function make(w, h, seed, braid, pairs) {
  const n = w * h;
  const below = prng(seed);
  const cells = new Uint8Array(n);
  const step = [-w, 1, w, -1];
  const near = (c, d) => {
    const x = c % w + [0, 1, 0, -1][d];
    const y = Math.floor(c / w) + [-1, 0, 1, 0][d];
    return x < 0 || y < 0 || x >= w || y >= h ? -1 : y * w + x;
  };
  const open = (c, d) => { // the passage and its mirror image
    const o = c + step[d];
    const back = (d + 2) % 4;
    cells[c] |= BITS[d];
    cells[o] |= BITS[back];
    cells[n - 1 - c] |= BITS[back];
    cells[n - 1 - o] |= BITS[d];
  };
  // Kruskal over pairs of mirrored walls (a wall: its cell * 2, + 1 for the south one)
  const parent = [];
  const walls = [];
  for (let c = 0; c < n; c++) {
    parent[c] = c;
    if (c % w < w - 1 && c * 2 <= (n - 2 - c) * 2) {
      walls.push(c * 2);
    }
    if (Math.floor(c / w) < h - 1 && c * 2 + 1 <= (n - 1 - c - w) * 2 + 1) {
      walls.push(c * 2 + 1);
    }
  }
  for (let i = walls.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [walls[i], walls[j]] = [walls[j], walls[i]];
  }
  const find = (i) => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (const wall of walls) {
    const c = wall >> 1;
    const d = wall & 1 ? 2 : 1;
    const o = c + step[d];
    const a = find(c);
    const b = find(o);
    if (a !== b) {
      parent[a] = b;
      const ma = find(n - 1 - c);
      const mb = find(n - 1 - o);
      if (ma !== mb) {
        parent[ma] = mb;
      }
      open(c, d);
    }
  }
  // braid: a dead end opened one more side, with a chance of braid percent
  for (let c = 0; c < n; c++) {
    if (sides(cells[c]) !== 1 || below(100) >= braid) {
      continue;
    }
    let best = -1;
    for (let d = 0; d < 4; d++) {
      const o = near(c, d);
      if (!(cells[c] & BITS[d]) && o >= 0 && o !== n - 1 - c && (best < 0 || sides(cells[o]) === 1)) {
        best = d;
      }
    }
    if (best >= 0) {
      open(c, best);
    }
  }
  // placement: player 1's start, key, exit, compass and artifacts; player 2's their mirrors
  const distances = (from) => {
    const dist = new Array(n).fill(-1);
    const queue = [from];
    dist[from] = 0;
    for (const c of queue) {
      for (let d = 0; d < 4; d++) {
        if (cells[c] & BITS[d] && dist[c + step[d]] < 0) {
          dist[c + step[d]] = dist[c] + 1;
          queue.push(c + step[d]);
        }
      }
    }
    return dist;
  };
  const span = w + h;
  const outward = (c) => {
    const x = c % w;
    const y = Math.floor(c / w);
    return y === 0 ? 0 : x === w - 1 ? 1 : y === h - 1 ? 2 : x === 0 ? 3 : -1;
  };
  const used = [];
  let fromStart = [];
  let fromKey = [];
  const free = (c) => c !== n - 1 - c && !used.some((u) => u === c || u === n - 1 - c);
  const accept = (rule, c) => {
    const d = fromStart[c];
    return [
      c % w < Math.floor((w + 2) / 3) && Math.floor(c / w) < Math.floor((h + 2) / 3),
      span >> 1 <= d && d <= span,
      outward(c) >= 0 && fromKey[c] >= span >> 1 && d >= 3,
      d >= 2 && d <= Math.floor(span / 3) + 2,
      d >= 3,
    ][rule];
  };
  const pick = (rule) => {
    let cell = -1;
    let from = 0;
    for (let k = 0; k < 64 && cell < 0; k++) {
      const c = below(n);
      if (free(c) && accept(rule, c)) {
        cell = c;
      }
    }
    if (cell < 0) {
      from = below(n);
      for (let k = 0; k < n && cell < 0; k++) {
        const c = (from + k) % n;
        if (free(c) && accept(rule, c)) {
          cell = c;
        }
      }
    }
    for (let k = 0; k < n && cell < 0; k++) { // relaxed: an exit stays on the border
      const c = (from + k) % n;
      if (free(c) && (rule !== 2 || outward(c) >= 0)) {
        cell = c;
      }
    }
    used.push(cell);
    return cell;
  };
  const start = pick(0);
  fromStart = distances(start);
  const key = pick(1);
  fromKey = distances(key);
  const exit = pick(2);
  const compass = pick(3);
  const objects = [];
  const put = (kind, cell, variant) => {
    objects.push([kind, kind === 3 ? 0 : 1, variant, cell],
      [kind, kind === 3 ? 0 : 2, kind === 1 ? (variant + 2) % 4 : 0, n - 1 - cell]);
  };
  put(0, key, 0);
  put(1, exit, outward(exit));
  put(2, compass, 0);
  for (let k = 0; k < pairs; k++) {
    put(3, pick(4), 0);
  }
  return { cells, start: [0, start, n - 1 - start], objects };
}

// ---- the match, move by move ----------------------------------------------------------------

// the log played on its maze: {w, h, cells, objects, cd, end, names, steps}, each step the
// state after one logged command, forfeit or end: {t, seat, moved, p, k (keys carried per
// seat), g (keys' cells, -1 carried), eye (artifacts present), o (exits open), x (out),
// mark: [what, seat, cell, text] or null}; null when the log does not replay on the maze made
// from its seed (an engine this module does not know)
export function build(log) {
  const { w, h, names } = log;
  const made = make(w, h, log.seed, log.braid, log.pairs);
  const { cells, objects } = made;
  const isolate = (n) => "\u2068" + (names[n] || "Player " + n) + "\u2069";
  const keyName = (seat, owner) => seat === owner ? "their own key" : isolate(owner) + "'s key";
  const p = made.start.slice();
  const k = [0, 0, 0];
  const g = [0, objects[0][3], objects[1][3]];
  const eye = objects.map((o) => o[0] === 3);
  const o = [0, 0, 0];
  const x = [0, 0, 0];
  const snap = () => ({ p: p.slice(), k: k.slice(), g: g.slice(), eye: eye.slice(), o: o.slice(), x: x.slice() });
  const first = snap();
  const steps = [];
  let end = 0;
  const RESULTS = ["", " wins!", "Draw!", " wins (forfeit)"];
  for (const [kind, seat, arg, t] of log.e) {
    let mark = null;
    let moved = 0;
    end = Math.max(end, t);
    if (kind === 1) { // a move
      const here = p[seat];
      if (x[seat]) {
        return null;
      }
      moved = seat;
      if (!(cells[here] & BITS[arg])) { // out through its own exit
        if (here !== objects[seat + 1][3] || arg !== objects[seat + 1][2] || !o[seat]) {
          return null;
        }
        x[seat] = 1;
        mark = ["out", seat, here, isolate(seat) + " is out of the maze!"];
      } else {
        const dest = here + [-w, 1, w, -1][arg];
        p[seat] = dest;
        objects.forEach((ob, slot) => {
          if (eye[slot] && ob[3] === dest) {
            eye[slot] = false;
            mark = ["eye", seat, dest, isolate(seat) + " found a vision artifact"];
          }
        });
        for (const owner of [1, 2]) {
          if (!k[seat] && g[owner] === dest) {
            g[owner] = -1;
            k[seat] = owner;
            mark = ["key", owner, dest, isolate(seat) + " picked up " + keyName(seat, owner)];
          }
        }
        const other = 3 - seat;
        if (!x[other] && p[other] === dest) { // a meeting: every carried key goes home
          const [, c1, c2] = k;
          k[1] = k[2] = 0;
          for (const c of [c1, c2]) {
            if (c) {
              k[c] = c;
            }
          }
          mark = ["meet", 0, dest, isolate(1) + " met " + isolate(2) +
            (c1 || c2 ? ": the keys went home" : "")];
        }
        if (dest === objects[seat + 1][3] && k[seat] === seat && !o[seat]) {
          o[seat] = 1;
          mark = ["open", seat, dest, isolate(seat) + " opened their exit"];
        }
      }
    } else if (kind === 2) { // a key dropped
      const owner = k[seat];
      if (!owner) {
        return null;
      }
      k[seat] = 0;
      g[owner] = p[seat];
      mark = ["drop", owner, p[seat], isolate(seat) + " dropped " + keyName(seat, owner)];
    } else if (kind === 4) {
      mark = ["gave", seat, -1, isolate(seat) + " gave up"];
    } else if (kind === 6 || kind === 7) {
      const result = kind === 7 ? 2 : arg;
      mark = ["end", seat, -1, result === 2 ? RESULTS[2] : result ? isolate(seat) + RESULTS[result] : "The end"];
    } else {
      continue;
    }
    steps.push({ t, seat, moved, mark, ...snap() });
  }
  return { w, h, cells, objects, start: made.start, first, cd: log.cd, end, names, steps };
}

// ---- playing it back ------------------------------------------------------------------------

// the tests' hand on the replay's clock: the replay shows its time ms and stays there (null:
// it goes on from there on its own)
export function seek(ms) {
  held = ms;
}

// the replay of match log n over the page (kit: the page's drawing); resolves when it is over
// ("done", "skipped", "stopped" when the page left the result, "none" when there is nothing to
// replay). Body attributes for the tests: data-rp (that state, or "playing"), data-rp-steps
// and data-rp-of (each seat's moves drawn and in all, "a,b"), data-rp-marks (events marked on
// the maze), data-rp-ms (the replay's length, ms).
export function play(n, kit) {
  if (shown) {
    return Promise.resolve("playing");
  }
  body.dataset.rp = "loading";
  return fetch("/log?n=" + n).then((r) => r.ok ? r.arrayBuffer() : null).catch(() => null)
    .then((data) => {
      const log = data && parse(new Uint8Array(data));
      const match = log && build(log);
      if (!match || !match.steps.some((s) => s.moved) || shown) {
        body.dataset.rp = "none";
        return "none";
      }
      return new Promise((resolve) => show(match, kit, resolve));
    });
}

function show(match, [cell, obj, pawn, drawingOn, PAL, COLOURS], resolve) {
  const { w, h, steps, cd } = match;
  const span = Math.max(0, match.end - cd); // the match after GO
  const length = Math.min(28000, Math.max(13500, span)); // its replay, then HOLD_MS
  const box = document.createElement("div");
  const back = document.activeElement;
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  box.setAttribute("aria-label", "Replay of the match");
  box.style.cssText = "position:fixed;inset:0;z-index:99;display:flex;flex-direction:column;" +
    "align-items:center;justify-content:center;gap:.3em;background:" + PAL.bg;
  box.innerHTML = "<h2 style='margin:0'>Replay</h2><canvas role=img></canvas>" +
    "<p aria-live=polite style='margin:0;min-height:1.4em;font-size:1.3em;text-align:center'></p>" +
    "<button>Skip replay</button>";
  const [, canvas, caption, button] = box.children;
  const g = canvas.getContext("2d");
  body.append(box);
  let t0 = performance.now();
  let frame = 0;
  let told = null;
  const stop = (state) => {
    cancelAnimationFrame(frame);
    removeEventListener("keydown", onKey, true);
    box.remove();
    shown = held = null;
    body.dataset.rp = state;
    back?.focus?.();
    resolve(state);
  };
  const onKey = (e) => {
    if (e.key === "Escape" || e.key === "s" || e.key === "S") {
      e.preventDefault();
      e.stopPropagation();
      stop("skipped");
    }
  };
  addEventListener("keydown", onKey, true);
  button.onclick = () => stop("skipped");
  button.focus();
  shown = { stop };
  body.dataset.rp = "playing";
  body.dataset.rpMs = length + HOLD_MS;
  body.dataset.rpOf = [1, 2].map((n) => steps.filter((s) => s.moved === n).length).join();
  const render = () => {
    frame = requestAnimationFrame(render);
    if (body.dataset.phase && body.dataset.phase !== "finished") { // a new match began
      stop("stopped");
      return;
    }
    if (held !== null) {
      t0 = performance.now() - held;
    }
    const e = performance.now() - t0;
    const at = cd + Math.min(e, length) * span / length; // the match's clock shown
    let i = 0;
    while (i < steps.length && steps[i].t <= at) {
      i++;
    }
    paint(match, i, canvas, g, { cell, obj, pawn, drawingOn, PAL, COLOURS });
    const last = steps.slice(0, i).reverse().find((s) => s.mark);
    if (last && last !== told) {
      told = last;
      const s = Math.max(0, Math.floor((last.t - cd) / 1000));
      caption.textContent = Math.floor(s / 60) + ":" + ("0" + s % 60).slice(-2) + " " + last.mark[3];
    }
    if (e >= length + HOLD_MS) {
      stop("done");
    }
  };
  render();
}

// the state after the first i steps, drawn on canvas: the maze, the objects still there, both
// paths so far, the events marked, the pawns
function paint(match, i, canvas, g, kit) {
  const { w, h, cells, objects, steps, start } = match;
  const cs = Math.max(8, Math.floor(Math.min((innerWidth - 16) / w, (innerHeight - 150) / h)));
  const dpr = devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * cs * dpr)) {
    canvas.width = Math.round(w * cs * dpr);
    canvas.height = Math.round(h * cs * dpr);
    canvas.style.width = w * cs + "px";
    canvas.style.height = h * cs + "px";
  }
  const now = i ? steps[i - 1] : match.first;
  const xy = (c) => [c % w * cs, Math.floor(c / w) * cs];
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = kit.PAL.bg;
  g.fillRect(0, 0, w * cs, h * cs);
  const counts = [0, 0, 0];
  const marks = steps.slice(0, i).filter((s) => s.mark && s.mark[2] >= 0);
  kit.drawingOn(g, () => {
    for (let c = 0; c < w * h; c++) {
      kit.cell(...xy(c), cs, cells[c], true);
    }
    objects.forEach((o, slot) => {
      const there = o[0] === 0 ? now.g[o[1]] : o[0] === 3 ? now.eye[slot] && o[3] : o[3];
      if (there >= 0 && there !== false) {
        kit.obj(...xy(there), cs, o[0], o[1], o[2], o[0] === 1 && now.o[o[1]]);
      }
    });
    for (const n of [1, 2]) { // the path: a line through the centres of the cells stood on
      const shift = cs * (n === 1 ? .42 : .58);
      g.strokeStyle = kit.COLOURS[n];
      g.lineWidth = Math.max(2, cs / 7);
      g.lineJoin = "round";
      g.globalAlpha = .75;
      g.beginPath();
      g.moveTo(...xy(start[n]).map((v) => v + shift));
      for (let s = 0; s < i; s++) {
        if (steps[s].moved === n) {
          counts[n]++;
          g.lineTo(...xy(steps[s].p[n]).map((v) => v + shift));
        }
      }
      g.stroke();
      g.globalAlpha = 1;
    }
    for (const s of marks) { // a ring for every event where it happened, in its colour
      const [X, Y] = xy(s.mark[2]);
      g.strokeStyle = s.mark[0] === "meet" ? "#fff" : kit.COLOURS[s.mark[1]];
      g.lineWidth = Math.max(2, cs / 10);
      g.beginPath();
      g.arc(X + cs / 2, Y + cs / 2, cs * .45, 0, 7);
      g.stroke();
    }
    for (const n of [1, 2]) {
      if (!now.x[n]) {
        kit.pawn(...xy(now.p[n]), cs, n, false, now.k[n]);
      }
    }
  });
  body.dataset.rpSteps = counts.slice(1).join();
  body.dataset.rpMarks = marks.length;
  canvas.setAttribute("aria-label", "The whole maze with both paths: " +
    match.names.slice(1).map((name, k) => (name || "Player " + (k + 1)) + " " + counts[k + 1] + " moves").join(", "));
}
