// Parsing messages and reassembling view records by (s, n), by the decoder's rules
// (tools/view_decoder.py, docs/protocol.md "Rules for a decoder"). No side effects: the golden
// view tests drive parse() and views.feed() alone (window.__md).

import { HEX, PHASES, isInt } from "./constants.js";

const SAME = ["v", "t", "s", "r", "ph", "w", "h", "m"]; // equal in every record of a view

// a message as an object; null if it is not a JSON object
export function parse(data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch (e) {
    return null;
  }
  const isObject = message && typeof message === "object" && !Array.isArray(message);
  return isObject ? message : null;
}

export const views = { // the reassembler
  part: null, // the view being assembled: {e: its chunk 0, next: index expected, st, o, c}
  // one parsed record: the view it completes, or null; throws the reason word
  feed(r, raw) {
    if (raw.length > 512 || new TextEncoder().encode(raw).length > 512) {
      throw "size";
    }
    if (r.v !== 1) {
      throw "version";
    }
    if (r.t !== "view") {
      throw "type";
    }
    for (const k of ["s", "w", "h", "m", "i", "n"]) {
      if (!isInt(r[k])) {
        throw "envelope";
      }
    }
    if (!["p1", "p2", "obs"].includes(r.r) || !PHASES.includes(r.ph)) {
      throw "envelope";
    }
    if (r.w < 5 || r.h < 5 || r.w > 32 || r.h > 32) {
      throw "envelope";
    }
    if (r.n < 1 || r.i >= r.n) {
      throw "count";
    }
    let part = this.part;
    if (r.i === 0) { // a new view; an unfinished one was abandoned for a newer state
      if (!r.st || typeof r.st !== "object" || Array.isArray(r.st)) {
        throw "status";
      }
      const cells = new Int8Array(r.w * r.h).fill(-1);
      part = this.part = { e: r, next: 0, st: r.st, o: [], c: cells };
    } else {
      if (!part || r.i !== part.next) {
        throw "gap";
      }
      if (r.n !== part.e.n) {
        throw "count";
      }
      for (const k of SAME) {
        if (r[k] !== part.e[k]) {
          throw "mismatch";
        }
      }
      if ("st" in r) {
        throw "status";
      }
    }
    const objects = "o" in r ? r.o : [];
    const runs = "c" in r ? r.c : [];
    const size = r.w * r.h;
    if (!Array.isArray(objects)) {
      throw "objects";
    }
    for (const x of objects) {
      if (!Array.isArray(x) || x.length !== 4 || !x.every(isInt) || x[3] >= size) {
        throw "objects";
      }
      part.o.push(x);
    }
    if (!Array.isArray(runs)) {
      throw "cells";
    }
    for (const run of runs) {
      const valid = Array.isArray(run) && run.length === 2 && isInt(run[0]) &&
        typeof run[1] === "string" && run[1] && run[0] + run[1].length <= size;
      if (!valid) {
        throw "cells";
      }
      for (let k = 0; k < run[1].length; k++) {
        const flags = HEX.indexOf(run[1][k]);
        if (flags < 0 || part.c[run[0] + k] >= 0) {
          throw "cells";
        }
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
