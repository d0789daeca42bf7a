// Fairness (docs/log.md): the seed's commitment checked with our own SHA-256 (the board serves
// plain http, where browsers give no crypto.subtle), and the line the result shows about it.

import { hooks } from "./dom.js";
import { draw } from "./draw.js";
import { game } from "./state.js";

// src/sha256.js, a file of its own on the board, imported when first needed: only a match's
// end needs it. Its path is in a constant so that esbuild leaves the import to the browser
// (it resolves against the page, /sha256.js, once the script is inline).
const SHA256_MODULE = "./sha256.js";

// bytes (Uint8Array) -> a promise of the hex digest
export function sha256(bytes) {
  return import(SHA256_MODULE).then((module) => module.sha256(bytes));
}

// the commitment before a match; the committed bytes (pre) and the log after it, checked as
// soon as the hash has loaded (the result shows no verdict until then)
export function onFair(m) {
  if (m.pre) {
    const bytes = new Uint8Array(m.pre.match(/../g).map((x) => parseInt(x, 16)));
    sha256(bytes).then((digest) => {
      m.ok = digest === m.commit;
      hooks.fair = m.ok ? "ok" : "bad";
      draw();
    });
  }
  game._fair = m;
  draw();
}

// the result's line about the seed, and the link to the match log
export function fairNote() {
  const fair = game._fair;
  if (!(fair?.pre && fair.mn === game._mn && "ok" in fair)) {
    return "";
  }
  const verdict = fair.ok
    ? "\u2713 Fair: seed " + fair.pre.slice(32, 44) + "\u2026 matches its commitment"
    : "\u2715 Seed does not match its commitment";
  const link = fair.log
    ? " \u00b7 <a href='/log?n=" + fair.log + "' download='maze-duel-" + fair.log + ".log'>match log</a>"
    : "";
  return "<p class='dim'>" + verdict + link + "</p>";
}
