// The TV's module (the spectator page, /#watch): its styles and its join panel. Not bundled
// into the page: a file of its own on the board (web/tv.js), imported when a spectator joins,
// so a phone never loads it. The styles are src/tv.css, minified by the build into TV_CSS
// (tools/build_image.py). The join panel is the Wi-Fi's QR code, drawn in the page from the
// network's name and password the board reports (/status), with both in words, and the game
// address's QR code (/url.svg); the QR encoder is lean-qr's (npm, pinned in package.json),
// bundled into this file by the build.

import { generate } from "lean-qr/nano";

/* global TV_CSS */
const style = document.createElement("style");
style.textContent = TV_CSS;
document.head.append(style);

// the text phone cameras offer to join: WIFI:T:WPA;S:<ssid>;P:<password>;; with \ ; , " :
// escaped by a backslash (the format's special characters)
export function wifiText(ssid, password) {
  const escape = (text) => text.replace(/[\\;,":]/g, "\\$&");
  return "WIFI:T:WPA;S:" + escape(ssid) + ";P:" + escape(password) + ";;";
}

// the QR code of text as SVG markup: black modules on white, with the 4-module quiet zone,
// sized by its viewBox only (the page's CSS scales it)
export function qrSvg(text, label) {
  const code = generate(text);
  const n = code.size;
  let path = "";
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (code.get(x, y)) {
        path += "M" + (x + 4) + " " + (y + 4) + "h1v1h-1z";
      }
    }
  }
  return "<svg viewBox='0 0 " + (n + 8) + " " + (n + 8) + "' shape-rendering='crispEdges' role='img' aria-label='" + label +
    "'><rect width='100%' height='100%' fill='#fff'/><path d='" + path + "'/></svg>";
}

const esc = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");

// the panel's markup from /status (ssid, password) and the game's address
export function panel(status, origin) {
  return "<div class='qr'><figure>" + qrSvg(wifiText(status.ssid, status.password), "QR code: join the Wi-Fi") +
    "<figcaption>1. Join the Wi-Fi <b>" + esc(status.ssid) + "</b><br>password <b>" + esc(status.password) +
    "</b></figcaption></figure><figure><img src='/url.svg' alt='QR code of the game address'>" +
    "<figcaption>2. Open <b>" + esc(origin) + "</b></figcaption></figure></div>" +
    "<p>Scan with the phone camera. The match starts when both players are ready.</p>";
}
