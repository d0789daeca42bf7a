// Fairness (docs/log.md): the seed's commitment checked with our own SHA-256 (the board serves
// plain http, where browsers give no crypto.subtle), and the line the result shows about it.

import { hooks } from "./dom.js";
import { draw } from "./draw.js";
import { game } from "./state.js";

// bytes (Uint8Array) -> hex digest
export function sha256(bytes) {
  const K = [];
  const H = [];
  const rotr = (x, n) => x >>> n | x << 32 - n;
  const length = bytes.length;
  const padded = new Uint8Array(length + 72 >> 6 << 6);
  const data = new DataView(padded.buffer);
  // the constants: fractions of the square and cube roots of the first 64 primes
  for (let i = 2, n = 0; n < 64; i++) {
    let prime = 1;
    for (let j = 2; j * j <= i; j++) {
      if (i % j === 0) {
        prime = 0;
      }
    }
    if (prime) {
      if (n < 8) {
        H[n] = i ** .5 * 2 ** 32 | 0;
      }
      K[n++] = i ** (1 / 3) * 2 ** 32 | 0;
    }
  }
  padded.set(bytes);
  padded[length] = 128;
  data.setUint32(padded.length - 4, length * 8);
  for (let o = 0; o < padded.length; o += 64) {
    const w = [];
    const h = H.slice();
    for (let i = 0; i < 64; i++) {
      const a = w[i - 15];
      const c = w[i - 2];
      const [A, B, C, , E, F, G, X] = h;
      w[i] = i < 16
        ? data.getUint32(o + i * 4)
        : (rotr(c, 17) ^ rotr(c, 19) ^ c >>> 10) + w[i - 7] + (rotr(a, 7) ^ rotr(a, 18) ^ a >>> 3) + w[i - 16] | 0;
      const t = X + (rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25)) + (E & F ^ ~E & G) + K[i] + w[i] | 0;
      h.unshift(t + (rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22)) + (A & B ^ A & C ^ B & C) | 0);
      h[4] = h[4] + t | 0;
      h.pop();
    }
    H.forEach((x, i) => {
      H[i] = x + h[i] | 0;
    });
  }
  return H.map((x) => (x >>> 0).toString(16).padStart(8, "0")).join("");
}

// the commitment before a match; the committed bytes (pre) and the log after it
export function onFair(m) {
  if (m.pre) {
    const bytes = new Uint8Array(m.pre.match(/../g).map((x) => parseInt(x, 16)));
    m.ok = sha256(bytes) === m.commit;
    hooks.fair = m.ok ? "ok" : "bad";
  }
  game._fair = m;
  draw();
}

// the result's line about the seed, and the link to the match log
export function fairNote() {
  const fair = game._fair;
  if (!(fair?.pre && fair.mn === game._mn)) {
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
