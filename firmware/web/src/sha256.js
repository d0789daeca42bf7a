// SHA-256 for the seed's commitment (src/fairness.js): the board serves plain http, where
// browsers give no crypto.subtle, so the page brings its own. Not bundled into the page: the
// build (tools/build_image.py) makes this module the file sha256.js of the board's web/ folder,
// which the page imports when a match ends (docs/client.md, "The build").

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

// A `fair` message after the end (src/fairness.js): m.ok says whether the committed bytes (pre)
// hash to the commitment, and m.note is the result's line about it, with the match log's link.
export function check(m) {
  const bytes = new Uint8Array(m.pre.match(/../g).map((x) => parseInt(x, 16)));
  m.ok = sha256(bytes) === m.commit;
  const verdict = m.ok
    ? "\u2713 Fair: seed " + m.pre.slice(32, 44) + "\u2026 matches its commitment"
    : "\u2715 Seed does not match its commitment";
  const link = m.log
    ? " \u00b7 <a href='/log?n=" + m.log + "' download='maze-duel-" + m.log + ".log'>match log</a>"
    : "";
  m.note = "<p class='dim'>" + verdict + link + "</p>";
}
