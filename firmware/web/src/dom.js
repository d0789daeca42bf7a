// The page's elements and the small things every module writes to: the test hooks on <body>,
// the live region, toasts and the connection line. Imports nothing, so every module may use
// it as it loads.

export const $ = (id) => document.getElementById(id);
export const body = document.body;
// <body data-*>: the state the end-to-end tests read (docs/client.md, "Test hooks")
export const hooks = body.dataset;

let toastTimer = 0;

export function esc(text) {
  const span = document.createElement("span");
  span.textContent = text;
  return span.innerHTML;
}

// an element's markup, rewritten only when it changes (so a redraw keeps focus and selection);
// false when it was already so
export function setHtml(el, html) {
  if (el.dataset.h === html) {
    return false;
  }
  el.dataset.h = html;
  el.innerHTML = html;
  return true;
}

// text: markup (names in <bdi>)
export function say(text) {
  $("say").innerHTML = text;
}

// text: markup (names in <bdi>); "" clears the toast
export function toast(text, isError) {
  const el = $("toast");
  el.className = isError ? "err" : "";
  el.innerHTML = text && (isError ? "\u2715 " : "") + text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.textContent = "";
  }, isError ? 1800 : 3000);
  if (isError) {
    say(text);
  }
}

export function showConnection(text) {
  const el = $("conn");
  el.textContent = text;
  el.className = text ? "off" : "";
  hooks.conn = text ? "off" : "on";
}
