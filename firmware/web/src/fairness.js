// Fairness (docs/log.md): the seed's commitment checked with our own SHA-256 (the board serves
// plain http, where browsers give no crypto.subtle), and the line the result shows about it.

import { hooks } from "./dom.js";
import { draw } from "./draw.js";
import { game } from "./state.js";

// src/sha256.js, a file of its own on the board, imported when first needed: only a match's
// end needs it (the hash, the check and the line it makes). Its path is in a constant so that esbuild leaves the import to the browser
// (it resolves against the page, /sha256.js, once the script is inline).
const SHA256_MODULE = "./sha256.js";

// bytes (Uint8Array) -> a promise of the hex digest
export function sha256(bytes) {
  return import(SHA256_MODULE).then((module) => module.sha256(bytes));
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
