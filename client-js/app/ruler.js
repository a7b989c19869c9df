// The ruler: a toggle ("Ruler"), then two clicks on the table (points or troopers), or a
// selected trooper and a click. The line is drawn at once; the distance, and from a trooper
// whether it has Line of Fire to a trooper standing at the other end, whether that end is in
// its front arc, and any range MODs, are the server's answer (`conn.measure`): the app never
// computes its own.

/** The ruler's state: on or off, its two ends, the server's answer. */
export const ruler = {
  active: false,
  /** a trooper id, or [x, y] (inches), or null */
  from: /** @type {string | number[] | null} */ (null),
  to: /** @type {number[] | null} */ (null),
  /** Silhouette of the trooper imagined at `to` (null: the measuring trooper's own, the
   * server's default; a trooper clicked there: its own) */
  silhouette: /** @type {number | null} */ (null),
  /** the trooper clicked at `to`, if one was (its name in the readout) */
  toTrooper: /** @type {string | null} */ (null),
  pending: false,
  answer: /** @type {Record<string, any> | null} */ (null),
  /** where the `from` trooper stood and faced when measured: a move makes the answer stale */
  fromAt: /** @type {string | null} */ (null),
  /** each request's number: an old answer arriving late is dropped */
  request: 0,
};

let redraw = () => {};
let selection = /** @type {() => string | null} */ (() => null);
const currentSelection = () => selection();
let connection = /** @type {any} */ (null);

/** Wire the toggle once; `redrawTable` redraws the table, `selected` says which trooper is selected. */
export function installRuler(redrawTable, selected) {
  redraw = redrawTable;
  selection = selected;
  const toggle = document.getElementById("ruler-toggle");
  toggle?.addEventListener("click", () => setActive(!ruler.active));
  // Esc closes the ruler first (and only that: the ARO panel's Esc waits for the next press).
  window.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !ruler.active) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    setActive(false);
  }, true);
}

/** Turn the ruler on (measuring from the selected trooper, if any) or off. */
export function setActive(on, selected = currentSelection()) {
  Object.assign(ruler, { active: on, from: on && selected ? selected : null, to: null, toTrooper: null, answer: null, pending: false, fromAt: null });
  ruler.request += 1;
  document.getElementById("ruler-toggle")?.setAttribute("aria-pressed", String(on));
  renderReadout();
  redraw();
}


/**
 * A click on the table while the ruler is on (main.js's onTableClick passes it first).
 * Returns true when the ruler took the click.
 * @param {any} conn @param {number[]} point @param {Record<string, any>} [trooper] the trooper clicked, if any
 */
export function rulerClick(conn, point, trooper = undefined) {
  if (!ruler.active) return false;
  connection = conn;
  const fromTrooper = typeof ruler.from === "string";
  if (ruler.from === null || (ruler.to !== null && !fromTrooper)) {
    // first end (or a new measurement between two points)
    Object.assign(ruler, { from: trooper ? trooper.id : point, to: null, toTrooper: null, answer: null, pending: false });
    renderReadout();
    redraw();
    return true;
  }
  if (trooper && trooper.id === ruler.from) return true;
  const wasTrooper = ruler.toTrooper !== null;
  ruler.to = point;
  ruler.toTrooper = trooper?.id ?? null;
  if (trooper) ruler.silhouette = trooper.profile?.silhouette ?? trooper.silhouette ?? null;
  else if (wasTrooper) ruler.silhouette = null; // back to a bare point: the default target
  measure();
  return true;
}

/** Ask the server; draw the line meanwhile. */
function measure() {
  const conn = connection;
  ruler.answer = null;
  const request = (ruler.request += 1);
  if (typeof conn?.measure !== "function") {
    ruler.pending = false;
    ruler.answer = { error: "unavailable", message: "This server does not measure yet: the line is drawn, the distance is not known." };
    renderReadout();
    redraw();
    return;
  }
  ruler.pending = true;
  const from = ruler.from;
  const fromTrooper = typeof from === "string" ? conn.view.trooper(from) : null;
  ruler.fromAt = fromTrooper ? JSON.stringify([fromTrooper.position, fromTrooper.facing]) : null;
  renderReadout();
  redraw();
  const body = { from, to: ruler.to, ...(typeof from === "string" && ruler.silhouette !== null ? { silhouette: ruler.silhouette } : {}) };
  Promise.resolve().then(() => conn.measure(body)).then((answer) => {
    if (request !== ruler.request) return;
    Object.assign(ruler, { pending: false, answer: answer ?? { error: "no_answer", message: "No answer." } });
    renderReadout();
    redraw();
  }, (error) => {
    if (request !== ruler.request) return;
    Object.assign(ruler, { pending: false, answer: { error: "failed", message: String(error?.message ?? error) } });
    renderReadout();
    redraw();
  });
}

/** Where an end of the ruler is now (a trooper's current position), or null. */
function endPoint(view, end) {
  if (typeof end === "string") return view.trooper(end)?.position ?? null;
  return end;
}

/** Inches to one decimal, as the ruler shows the server's distance. */
export const formatDistance = (d) => `${Number(d).toFixed(1)}"`;

const yesNo = (v) => (v === true ? "yes" : v === false ? "no" : null);

/** The server's answer in a few words, or null while none. */
function answerLines(answer, names) {
  if (!answer) return null;
  if (answer.error) return { error: answer.message ?? answer.error };
  const lines = [];
  const fromTrooper = typeof ruler.from === "string";
  if (typeof answer.distance === "number") {
    lines.push([fromTrooper ? "Distance (base to base)" : "Distance (centre to centre)", formatDistance(answer.distance), "ruler-distance"]);
  }
  if (fromTrooper) {
    const size = answer.silhouette ?? ruler.silhouette;
    const target = ruler.toTrooper ? names?.get(ruler.toTrooper)?.label ?? "that trooper" : `an S${size ?? "?"} trooper there`;
    const lof = yesNo(answer.line_of_fire);
    if (lof) lines.push([`Line of Fire to ${target}`, lof, "ruler-lof"]);
    const arc = yesNo(answer.in_front_arc);
    if (arc) lines.push(["In its front arc", arc, "ruler-arc"]);
  }
  const mods = answer.weapons ?? answer.range_mods ?? null;
  if (Array.isArray(answer.weapons)) {
    const text = answer.weapons.map((w) => `${w.name ?? String(w.weapon).replace(/_/g, " ")} ${w.mod === null || w.mod === undefined ? "out of range" : signed(w.mod)}`).join(", ");
    if (text) lines.push(["Range MODs", text, "ruler-mods"]);
  } else if (mods && typeof mods === "object") {
    const text = Array.isArray(mods)
      ? mods.map((m) => (typeof m === "object" ? `${m.weapon ?? m.name ?? ""} ${signed(m.mod ?? m.value)}`.trim() : String(m))).join(", ")
      : Object.entries(mods).map(([w, m]) => `${w.replace(/_/g, " ")} ${typeof m === "number" ? signed(m) : m === null ? "out of range" : String(m)}`).join(", ");
    if (text) lines.push(["Range MODs", text, "ruler-mods"]);
  } else if (typeof answer.range_mod === "number") lines.push(["Range MOD", signed(answer.range_mod), "ruler-mods"]);
  return { lines };
}

const signed = (n) => (typeof n === "number" ? (n > 0 ? `+${n}` : String(n)) : String(n ?? ""));

let lastNames = /** @type {Map<string, any> | null} */ (null);
let lastView = /** @type {any} */ (null);

/** The readout box over the table: what to click next, the server's answer. */
export function renderReadout() {
  const box = document.getElementById("ruler-readout");
  if (!box) return;
  box.hidden = !ruler.active;
  if (!ruler.active) return;
  const fromName = typeof ruler.from === "string" ? lastNames?.get(ruler.from)?.label ?? ruler.from : null;
  const head = ruler.from === null ? "Ruler: click where to measure from (a trooper, or a point)."
    : ruler.to === null ? `Ruler from ${fromName ?? `(${ruler.from.join(", ")})`}: click where to measure to.`
    : `Ruler from ${fromName ?? `(${/** @type {number[]} */ (ruler.from).join(", ")})`} to ${ruler.toTrooper ? lastNames?.get(ruler.toTrooper)?.label ?? "a trooper" : `(${ruler.to.join(", ")})`}`;
  box.replaceChildren();
  const p = document.createElement("div");
  p.className = "ruler-head";
  p.textContent = head;
  box.append(p);
  const stale = ruler.fromAt && typeof ruler.from === "string" && lastView
    ? JSON.stringify([lastView.trooper(ruler.from)?.position, lastView.trooper(ruler.from)?.facing]) !== ruler.fromAt : false;
  if (ruler.pending) box.append(Object.assign(document.createElement("div"), { className: "ruler-pending", textContent: "Asking the server..." }));
  const shown = answerLines(ruler.answer, lastNames);
  if (shown?.error) box.append(Object.assign(document.createElement("div"), { className: "ruler-error", textContent: shown.error }));
  for (const [what, value, id] of shown?.lines ?? []) {
    const line = document.createElement("div");
    line.className = "ruler-line";
    const b = document.createElement("b");
    b.id = id;
    b.textContent = value;
    if (value === "yes" || value === "no") b.className = value;
    line.append(`${what}: `, b);
    box.append(line);
  }
  if (stale) box.append(Object.assign(document.createElement("div"), { className: "ruler-error", textContent: "It has moved since: click again to measure anew." }));
  if (typeof ruler.from === "string" && !ruler.toTrooper) {
    const label = document.createElement("label");
    label.className = "ruler-sil";
    const select = document.createElement("select");
    select.id = "ruler-silhouette";
    select.append(new Option("its own Silhouette", "", false, ruler.silhouette === null));
    for (const s of [0, 1, 2, 3, 4, 5, 6, 7, 8]) select.append(new Option(`S${s}`, String(s), false, s === ruler.silhouette));
    select.addEventListener("change", () => { ruler.silhouette = select.value === "" ? null : Number(select.value); if (ruler.to) measure(); });
    label.append("Trooper imagined at the point: ", select);
    box.append(label);
  }
  const clear = document.createElement("button");
  clear.type = "button";
  clear.id = "ruler-clear";
  clear.textContent = "Clear";
  clear.addEventListener("click", () => { Object.assign(ruler, { from: null, to: null, toTrooper: null, answer: null, pending: false }); ruler.request += 1; renderReadout(); redraw(); });
  const off = document.createElement("button");
  off.type = "button";
  off.textContent = "Close ruler (Esc)";
  off.addEventListener("click", () => setActive(false));
  box.append(clear, off);
}

/**
 * The ruler on the table (inside the table's turned group): the line between its ends, its end
 * points, and the server's distance in a pill at the middle (`addLabel` places screen-sized
 * labels: {node, x, y, kind: "fixed"} in SVG coordinates, `onScreen` gives a table point's;
 * `makePill(text, options)` makes one).
 */
export function drawRuler(layer, view, names, addLabel, onScreen, makePill) {
  lastNames = names;
  lastView = view;
  if (!ruler.active) return;
  const NS = "http://www.w3.org/2000/svg";
  const make = (tag, attrs) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    return node;
  };
  const a = endPoint(view, ruler.from);
  const b = ruler.to;
  if (a) layer.append(make("circle", { cx: a[0], cy: a[1], r: 0.22, fill: "#7fe8ff", stroke: "#000", "stroke-width": 0.05, "data-ruler-end": "from" }));
  if (!a || !b) return;
  layer.append(make("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#000", "stroke-width": 0.26, opacity: 0.6 }));
  layer.append(make("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#7fe8ff", "stroke-width": 0.12,
    "stroke-dasharray": ruler.pending || !ruler.answer || ruler.answer.error ? "0.4 0.25" : "none", id: "ruler-line" }));
  layer.append(make("circle", { cx: b[0], cy: b[1], r: 0.22, fill: "#7fe8ff", stroke: "#000", "stroke-width": 0.05, "data-ruler-end": "to" }));
  const answer = ruler.answer;
  const text = ruler.pending ? "…" : answer && !answer.error && typeof answer.distance === "number"
    ? `${formatDistance(answer.distance)}${typeof ruler.from === "string" && typeof answer.line_of_fire === "boolean" ? answer.line_of_fire ? " · LoF" : " · no LoF" : ""}`
    : "?";
  const g = makePill(text, { size: 12, colour: "#dff8ff", background: "#0b2630", edge: "#7fe8ff", attrs: { "data-ruler-label": "" } });
  const [x, y] = onScreen([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
  addLabel({ node: g, x, y, kind: "fixed" });
  renderReadout();
}
