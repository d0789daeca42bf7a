// Parsing messages and reassembling view records by (s, n), by the decoder's rules
// (tools/view_decoder.py, docs/protocol.md "Rules for a decoder"). No side effects: the golden
// view tests drive parse() and views.feed() alone (window.__md).

import { HEX, PHASES, isInt } from "./constants.js";

const SAME = ["v", "t", "s", "r", "ph", "w", "h", "m"]; // equal in every record of a view

const isObject = (x) => x && typeof x === "object" && !Array.isArray(x);

// a record is refused for `why` (the decoder's reason word) unless `ok`
function need(ok, why) {
  if (!ok) {
    throw why;
  }
}

// a message as an object; null if it is not a JSON object
export function parse(data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch (e) {
    return null;
  }
  return isObject(message) ? message : null;
}

export const views = { // the reassembler
  part: null, // the view being assembled: {e: its chunk 0, next: index expected, st, o, c}
  // one parsed record: the view it completes, or null; throws the reason word
  feed(r, raw) {
    need(raw.length <= 512 && new TextEncoder().encode(raw).length <= 512, "size");
    need(r.v === 1, "version");
    need(r.t === "view", "type");
    need(["s", "w", "h", "m", "i", "n"].every((k) => isInt(r[k])), "envelope");
    need(["p1", "p2", "obs"].includes(r.r) && PHASES.includes(r.ph), "envelope");
    need(r.w >= 5 && r.h >= 5 && r.w <= 32 && r.h <= 32, "envelope");
    need(r.n >= 1 && r.i < r.n, "count");
    let part = this.part;
    if (r.i === 0) { // a new view; an unfinished one was abandoned for a newer state
      need(isObject(r.st), "status");
      const cells = new Int8Array(r.w * r.h).fill(-1);
      part = this.part = { e: r, next: 0, st: r.st, o: [], c: cells };
    } else {
      need(part && r.i === part.next, "gap");
      need(r.n === part.e.n, "count");
      need(SAME.every((k) => r[k] === part.e[k]), "mismatch");
      need(!("st" in r), "status");
    }
    const objects = "o" in r ? r.o : [];
    const runs = "c" in r ? r.c : [];
    const size = r.w * r.h;
    need(Array.isArray(objects), "objects");
    for (const x of objects) {
      need(Array.isArray(x) && x.length === 4 && x.every(isInt) && x[3] < size, "objects");
      part.o.push(x);
    }
    need(Array.isArray(runs), "cells");
    for (const run of runs) {
      const valid = Array.isArray(run) && run.length === 2 && isInt(run[0]) &&
        typeof run[1] === "string" && run[1] && run[0] + run[1].length <= size;
      need(valid, "cells");
      for (let k = 0; k < run[1].length; k++) {
        const flags = HEX.indexOf(run[1][k]);
        need(flags >= 0 && part.c[run[0] + k] < 0, "cells");
        part.c[run[0] + k] = flags;
      }
    }
    part.next = r.i + 1;
    if (part.next < r.n) {
      return null;
    }
    this.part = null;
    return part;
  },
};
