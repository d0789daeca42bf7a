// Fixed values shared by the modules: directions, phases, colours, timings, small helpers.

export const DIRS = ["north", "east", "south", "west"]; // index = direction (0 N, 1 E, 2 S, 3 W)
export const LETTERS = "NESW"; // the wire's direction letters, by index
export const BIT = [1, 2, 4, 8]; // a cell's passage flag per direction
export const BEARINGS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
export const PHASES = ["waiting", "countdown", "active", "finished"];
export const HEX = "0123456789abcdef";
// seat colours: 0 = nobody, 1 = seat 1 (blue), 2 = seat 2 (orange)
export const SEAT_COLOURS = ["#9fb0c2", "#4cc3ff", "#ffb03a"];
// the map's colours: floor in sight / out of sight, walls in sight / out of sight, unseen dots,
// the background (host_tests/browser/test_client_feel.py checks their contrast)
export const PAL = {
  bg: "#0a0e13",
  fl: "#2b3a4c",
  fm: "#151c25",
  wl: "#e8edf3",
  wm: "#7d8da1",
  dot: "#5c6b7d",
};
export const DEBUG = location.hash === "#debug"; // refusals end with their code
export const MOVE_TTL = 5000; // a move older than this is not resent after a reconnect
export const RESYNC_MS = 700; // a view left incomplete this long asks for a fresh one
export const STALE = 15000; // a stored seat no tab has touched for this long is free to resume
export const SLIDE_MS = 140; // a pawn's slide to the next cell

export const now = () => performance.now();
export const isInt = (x) => Number.isInteger(x) && x >= 0;

export function buzz(pattern) {
  if (navigator.vibrate) {
    navigator.vibrate(pattern);
  }
}
