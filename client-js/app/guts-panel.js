// The Guts window (server combat/guts_window.py): a trooper failed its Guts Roll and its
// owner chooses where it moves, within the rule, before the deadline. The owner's panel shows
// the trooper, the rule and the default destination; a click on the table picks another
// point (a straight move from where it stands), Confirm sends it, "Take the default" (or the
// deadline) takes the server's. The server judges the point (options.guts_move names the
// default and the ring points that satisfy the rule); the others see who is choosing.
import { windowRemainingMs } from "./lib/connection.js";
import { GUTS_RULE, inches, point as pointText, toNodes } from "./describe.js";
import { el } from "./dom.js";

const URGENT_MS = 5000;

/** The open window when it is a Guts window (`guts`: the trooper that moves), else null. */
export const gutsWindow = (/** @type {any} */ w) => (w && w.guts ? w : null);

/**
 * @param {{conn: any, names: any, send: (body: any) => Promise<any>, panel: HTMLElement, redraw: () => void}} parts
 */
export function createGutsPanel({ conn, names, send, panel, redraw }) {
  /** The point the owner clicked, per window ("order:trooper" -> [x, y]). */
  const chosen = new Map();
  let busy = false;
  let shownKey = "";
  const keyOf = (/** @type {any} */ w) => `${w.order}:${w.guts}`;

  /** The offer this seat must answer now (options.guts_move for the open window), or null. */
  function offer() {
    const w = gutsWindow(conn.view.window);
    const options = conn.currentOptions();
    const found = options?.guts_move;
    if (!w || w.reactive !== conn.role || !found || found.trooper !== w.guts || found.order !== w.order) return null;
    return found;
  }

  /** What the table draws for the window: the trooper's default end, the ring points, the chosen point. */
  function marks() {
    const w = gutsWindow(conn.view.window);
    const found = offer();
    if (!w || !found) return null;
    return { trooper: w.guts, start: found.default[0], default: found.default[1], points: found.points, chosen: chosen.get(keyOf(w)) ?? null };
  }

  /** A table click while this seat owes a Guts choice picks the destination: true when taken. */
  function click(/** @type {number[]} */ point) {
    const w = gutsWindow(conn.view.window);
    if (!w || !offer() || busy) return false;
    chosen.set(keyOf(w), [Number(point[0].toFixed(3)), Number(point[1].toFixed(3))]);
    shownKey = "";
    render();
    redraw();
    return true;
  }

  async function answer(/** @type {boolean} */ useDefault) {
    const w = gutsWindow(conn.view.window);
    const found = offer();
    if (!w || !found || busy) return;
    const point = chosen.get(keyOf(w));
    const body = { type: "choose_guts_move", order: found.order, trooper: found.trooper };
    if (!useDefault && point) Object.assign(body, { route: [found.default[0], point] });
    busy = true;
    shownKey = "";
    render();
    try {
      const result = await send(body);
      if (!result.ok) chosen.delete(keyOf(w)); // the reason is on screen: pick again
    } finally {
      busy = false;
      shownKey = "";
      render();
      redraw();
    }
  }

  function render() {
    const w = gutsWindow(conn.view.window);
    const state = conn.view.state;
    panel.hidden = !w || !state;
    if (!w || !state) { shownKey = ""; return; }
    const found = offer();
    const mine = w.reactive === conn.role;
    const point = chosen.get(keyOf(w)) ?? null;
    const key = JSON.stringify([keyOf(w), mine, found, point, busy]);
    renderCountdown(w);
    if (key === shownKey) return;
    shownKey = key;
    const who = names.label(w.guts);
    panel.className = `panel${mine ? " mine" : ""}`;
    const heading = el("div", { class: "guts-heading" },
      el("span", {}, el("b", {}, mine ? "Your Guts move" : `Guts: player ${w.reactive} chooses`), " (Order ", String(w.order), ")"),
      el("span", { class: "countdown", id: "guts-countdown" }, ""));
    panel.replaceChildren(heading);
    renderCountdown(w);
    if (!mine || !found) {
      panel.append(el("div", { class: "guts-waiting" }, toNodes([who]), mine ? " failed its Guts Roll: loading your options..."
        : " failed its Guts Roll: waiting for its owner to choose where it moves (the default applies at the deadline)."));
      return;
    }
    const rule = GUTS_RULE[/** @type {keyof typeof GUTS_RULE} */ (found.reason)] ?? String(found.reason).replace(/_/g, " ");
    const start = found.default[0];
    const length = point ? Math.hypot(point[0] - start[0], point[1] - start[1]) : 0;
    panel.append(
      el("div", { class: "guts-rule" }, toNodes([who]), ` failed its Guts Roll: it must move ${rule}.`),
      el("div", { class: "guts-default" }, `Default: ${pointText(found.default[1])} (yellow ring on the table).`),
      el("div", { class: "guts-chosen", id: "guts-chosen" }, point
        ? `Chosen: ${pointText(point)}, ${inches(length)}${length > found.max_move + 1e-6 ? ` (more than ${found.max_move}": the server will refuse it)` : ""}.`
        : `Click the table to choose another point within ${found.max_move}" (green dots satisfy the rule), or take the default.`),
      el("div", { class: "guts-actions" },
        el("button", { id: "guts-confirm", class: "primary", disabled: busy || !point, onclick: () => answer(false),
          title: "Move to the chosen point" }, "Confirm move"),
        el("button", { id: "guts-default", disabled: busy, onclick: () => answer(true),
          title: "Move to the default point" }, "Take the default")));
  }

  function renderCountdown(/** @type {any} */ w) {
    const node = document.getElementById("guts-countdown");
    if (!node) return;
    const left = windowRemainingMs(w);
    node.textContent = `${(left / 1000).toFixed(1)} s left`;
    node.classList.toggle("urgent", left < URGENT_MS);
  }

  return { render, click, marks, tick: () => { const w = gutsWindow(conn.view.window); if (w && !panel.hidden) renderCountdown(w); } };
}
