// The phone client's entry: the build (tools/build_image.py) bundles this module and the ones
// it imports into one script inlined in index.html (docs/client.md). Binds the controls and
// the page's life cycle, then resumes a stored seat or spectator place, or shows the join
// screen.

import { PAL } from "./constants.js";
import { connect, send } from "./connection.js";
import { $ } from "./dom.js";
import { fit } from "./draw.js";
import { bindControls, release } from "./moves.js";
import { bindScreens, joinScreen, screen, start } from "./screens.js";
import { net, save, session, setPageGone } from "./state.js";
import { parse, views } from "./views.js";

// for the tests: the golden views (parse, views), the map's contrast (PAL)
window.__md = { parse, views, PAL };

// closed or reloaded: the seat is free for the next tab
addEventListener("pagehide", () => {
  setPageGone(true);
  save();
});
bindScreens();
document.addEventListener("visibilitychange", () => {
  if (document.hidden) {
    release();
    return;
  }
  if (!session.role) {
    return;
  }
  if (!net._ws) { // back in front: reconnect at once, or find out that the socket died
    net._tries = 0;
    connect();
  } else {
    send({ t: "ping", c: ++session.c });
  }
});
addEventListener("pageshow", (e) => {
  setPageGone(false);
  if (e.persisted && session.role && !net._ws) {
    connect();
  }
});
bindControls();
addEventListener("resize", fit);

if (!session.role && location.hash === "#watch") { // a TV opens the page with #watch
  start("watch");
} else if (session.role) {
  screen(session.role === "watch" ? "watch" : "play");
  $("who").textContent = "Reconnecting\u2026";
  connect();
} else {
  joinScreen("");
}
