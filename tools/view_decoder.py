# Host-side decoder of view records (docs/protocol.md, "View records"): reassembles the records
# of one view into a dict and rejects what a client must reject: a record over 512 bytes, bad
# JSON, a wrong protocol version or record type, a gap in the chunk sequence, a chunk count that
# changes inside a view, records of different views mixed together, and malformed members.
# The phone client follows the same rules: both decoders give the same verdicts on the golden
# records of host_tests/golden_views/. Runs on CPython and on MicroPython (core tests).
#
#   dec = ViewDecoder()
#   for rec in records:
#       view = dec.feed(rec)         # None until the last chunk, then the whole view
#   view = decode(records)           # the same for one complete list of records
#
# A view: {"v", "s", "r", "ph", "w", "h", "m", "n": envelope values, "st": the role status,
# "objects": [(kind, owner, variant, cell), ...] in record order, "cells": {index: flags}}.
import json

from game.rules import MAX_SIDE as SIDE_MAX
from game.rules import MIN_SIDE as SIDE_MIN
from game.rules import PHASE_NAMES as PHASES
from game.rules import PROTOCOL_VERSION, RECORD_MAX
from game.rules import ROLE_NAMES as ROLES

# Members every record of one view repeats unchanged (besides "i").
_SAME = ("v", "t", "s", "r", "ph", "w", "h", "m", "n")
_ENVELOPE = ("v", "t", "s", "r", "ph", "w", "h", "m", "i", "n")
_HEX = "0123456789abcdef"


class ViewError(ValueError):
    """A record the decoder rejects; .reason is one word (version, gap, count, ...)."""

    def __init__(self, reason, detail=""):
        super().__init__(reason + (": " + detail if detail else ""))
        self.reason = reason


def _is_int(value):
    return type(value) is int  # JSON true/false are bools, not ints


class ViewDecoder:
    """Feeds records in order; after any error the partial view is dropped and the decoder
    waits for the chunk 0 of a new view."""

    def __init__(self):
        self.reset()

    def reset(self):
        self._first = None  # envelope of chunk 0 of the view being assembled
        self._next = 0  # chunk index expected next
        self._view = None

    def feed(self, record):
        """Add one record (bytes, bytearray, memoryview or str). Returns the complete view after
        its last record, else None. Raises ViewError (and resets) on any violation."""
        try:
            return self._feed(record)
        except ViewError:
            self.reset()
            raise

    def _feed(self, record):
        if isinstance(record, str):
            data = record.encode("utf-8")
        else:
            data = bytes(record)
        if len(data) > RECORD_MAX:
            raise ViewError("size", "%d bytes" % len(data))
        try:
            rec = json.loads(data.decode("utf-8"))
        except (ValueError, UnicodeError) as exc:
            raise ViewError("json", str(exc))
        if not isinstance(rec, dict):
            raise ViewError("json", "not an object")
        # The version first: another version's envelope may differ (a missing v is no v1).
        if rec.get("v") != PROTOCOL_VERSION or not _is_int(rec["v"]):
            raise ViewError("version", repr(rec.get("v")))
        if rec.get("t") != "view":
            raise ViewError("type", repr(rec.get("t")))
        for key in _ENVELOPE:
            if key not in rec:
                raise ViewError("envelope", "missing " + key)
        self._check_envelope(rec)
        i = rec["i"]
        n = rec["n"]
        # Chunk 0 always starts a view: the board abandons a half-sent view when a newer state
        # exists and starts over with the newest one (docs/protocol.md, "Rules for a decoder").
        if i != self._next and i != 0:
            raise ViewError("gap", "expected chunk %d, got %d" % (self._next, i))
        if i == 0:
            if "st" not in rec or not isinstance(rec["st"], dict):
                raise ViewError("status", "chunk 0 has no status")
            self._first = rec
            self._view = {
                "v": rec["v"],
                "s": rec["s"],
                "r": rec["r"],
                "ph": rec["ph"],
                "w": rec["w"],
                "h": rec["h"],
                "m": rec["m"],
                "n": n,
                "st": rec["st"],
                "objects": [],
                "cells": {},
            }
        else:
            if n != self._first["n"]:
                raise ViewError("count", "chunk count %d, then %d" % (self._first["n"], n))
            for key in _SAME:
                if rec[key] != self._first[key]:
                    raise ViewError("mismatch", "member %s differs inside one view" % key)
            if "st" in rec:
                raise ViewError("status", "status outside chunk 0")
        self._add_objects(rec.get("o", []))
        self._add_cells(rec.get("c", []))
        self._next = i + 1
        if self._next == n:
            view = self._view
            self.reset()
            return view
        return None

    def _check_envelope(self, rec):
        for key in ("s", "w", "h", "m", "i", "n"):
            if not _is_int(rec[key]) or rec[key] < 0:
                raise ViewError("envelope", key + " must be a non-negative int")
        if rec["r"] not in ROLES:
            raise ViewError("envelope", "unknown role")
        if rec["ph"] not in PHASES:
            raise ViewError("envelope", "unknown phase")
        for key in ("w", "h"):
            if rec[key] < SIDE_MIN or rec[key] > SIDE_MAX:
                raise ViewError("envelope", "%s outside %d..%d" % (key, SIDE_MIN, SIDE_MAX))
        if rec["n"] < 1 or rec["i"] >= rec["n"]:
            raise ViewError("count", "chunk %d of %d" % (rec["i"], rec["n"]))

    def _add_objects(self, objects):
        if not isinstance(objects, list):
            raise ViewError("objects", "not a list")
        n_cells = self._view["w"] * self._view["h"]
        for obj in objects:
            if not isinstance(obj, list) or len(obj) != 4:
                raise ViewError("objects", "an object is [kind, owner, variant, cell]")
            for value in obj:
                if not _is_int(value) or value < 0:
                    raise ViewError("objects", "non-negative ints only")
            if obj[3] >= n_cells:
                raise ViewError("objects", "cell outside the maze")
            self._view["objects"].append((obj[0], obj[1], obj[2], obj[3]))

    def _add_cells(self, runs):
        if not isinstance(runs, list):
            raise ViewError("cells", "not a list")
        cells = self._view["cells"]
        n_cells = self._view["w"] * self._view["h"]
        for run in runs:
            if (
                not isinstance(run, list)
                or len(run) != 2
                or not _is_int(run[0])
                or not isinstance(run[1], str)
                or not run[1]
            ):
                raise ViewError("cells", "a run is [first index, hex digits]")
            first = run[0]
            flags = run[1]
            if first < 0 or first + len(flags) > n_cells:
                raise ViewError("cells", "run outside the maze")
            for k in range(len(flags)):
                digit = _HEX.find(flags[k])
                if digit < 0:
                    raise ViewError("cells", "not a lowercase hex digit")
                if first + k in cells:
                    raise ViewError("cells", "cell %d sent twice" % (first + k))
                cells[first + k] = digit


def decode(records):
    """The view of one complete list of records; ViewError if any is rejected or one is
    missing at the end."""
    dec = ViewDecoder()
    view = None
    for k in range(len(records)):
        if view is not None:
            raise ViewError("count", "records after the last chunk")
        view = dec.feed(records[k])
    if view is None:
        raise ViewError("count", "incomplete view")
    return view
