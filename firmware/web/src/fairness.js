// Fairness (docs/log.md): the seed's commitment checked with our own SHA-256 (the board serves
// plain http, where browsers give no crypto.subtle), and the line the result shows about it.

import { PAL, SEAT_COLOURS } from "./constants.js";
import { hooks } from "./dom.js";
import { cell, draw, drawingOn, obj, pawn } from "./draw.js";
import { game } from "./state.js";

// src/sha256.js, a file of its own on the board, imported when first needed: only a match's
// end needs it (the hash, the check and the line it makes). Its path is in a constant so that esbuild leaves the import to the browser
// (it resolves against the page, /sha256.js, once the script is inline).
const SHA256_MODULE = "./sha256.js";

// src/replay.js, the instant replay of a finished match from its log (a file of its own, imported
// by the TV at a match's end and by a phone's "Watch the replay"), drawn with the page's drawing
const REPLAY_MODULE = "./replay.js";

// the replay of the match just ended, when its log is kept (fair's log, after the end)
export function replay() {
  const log = game._fair?.mn === game._mn && game._fair.log;
  if (log) {
    import(REPLAY_MODULE).then((m) => m.play(log, [cell, obj, pawn, drawingOn, PAL, SEAT_COLOURS]));
  }
}

// the commitment before a match; the committed bytes (pre) and the log after it, checked as
// soon as the hash has loaded (the result shows no verdict until then): sha256.js's check()
// sets m.ok and m.note, the result's line about the seed
export function onFair(m) {
  if (m.pre) {
    import(SHA256_MODULE).then((module) => {
      module.check(m);
      hooks.fair = m.ok ? "ok" : "bad";
      draw();
    });
  }
  game._fair = m;
  draw();
}

// the result's line about the seed, and the link to the match log ("" until it is checked)
export function fairNote() {
  const fair = game._fair;
  return fair?.note && fair.mn === game._mn ? fair.note : "";
}

// a player's button for the replay, once the log can be fetched
export const replayButton = () =>
  game._fair?.log && game._fair.mn === game._mn ? "<button id=bRp>Watch the replay</button>" : "";
