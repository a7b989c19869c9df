// The table drawn to scale in SVG (1 user unit = 1 inch): terrain by kind with its height
// written on it and a shade and shadow by height, deployment zones in their side's colour,
// troopers on bases sized by Silhouette with a facing wedge, named by unit (the ids only in
// tooltips), their states as tokens by the base, casualties greyed and crossed out, enemy
// Camouflage markers as markers; for the selected trooper its Zone of Control, movement range,
// Line of Fire to the enemies it sees (the server's `options.sight`) and the routes being
// drawn; for everyone, the Order in progress: the routes its troopers moved, the firing points
// and target lines of the attacks declared by them and by the AROs, and the area of template
// weapons, until it is resolved. Zoom (wheel, +/- buttons), pan (drag), the ruler's line.
// Texts and tokens keep their size on screen at any zoom (`layoutOverlay`).
import { KIND_SHORT, bonusesAt, teamLinks } from "./fireteam.js";
import { baseRadius, declaredFrom, firstMov, routeLength, silhouetteHeight, teardropPath } from "./lib/geometry.js";
import { weapon, weaponName } from "./catalogue.js";
import { trooperNames, trooperStates, STATE_TOKENS } from "./roster.js";
import { terrainName } from "./terrain-names.js";
import { ruler, drawRuler, installRuler } from "./ruler.js";
import { facingWords, orientation } from "./seat-view.js";
import { placeLabels } from "./label-layout.js";
import { MINE_RADIUS } from "./mines.js";
import { drawMissionLayer } from "./mission-layer.js";

const NS = "http://www.w3.org/2000/svg";
const ZOC_RADIUS = 8; // inches (DIGEST: Zone of Control)
const MIN_SCALE = 0.5, MAX_SCALE = 10;
const MARGIN = 1.5; // inches around the table (the zones' labels sit there)
const camera = { x: -MARGIN, y: -MARGIN, scale: 1, ready: false };

/** Side colours: base fill, a light tint (zones, labels) and a dark edge. */
export const SIDE_COLOUR = {
  A: { fill: "#3d7eff", light: "#9cc0ff", dark: "#12306e" },
  B: { fill: "#ff7a2e", light: "#ffc09a", dark: "#6e2c06" },
};
const sideColour = (side) => SIDE_COLOUR[side] ?? { fill: "#999", light: "#ccc", dark: "#333" };

/** Terrain kinds (state.table.terrain[].kind) as drawn: hue, saturation, words for the legend. */
export const TERRAIN_KINDS = {
  building: { hue: 30, sat: 22, label: "Building" },
  wall: { hue: 40, sat: 6, label: "Wall" },
  container: { hue: 12, sat: 48, label: "Container" },
  scatter: { hue: 75, sat: 28, label: "Scatter" },
  vehicle: { hue: 210, sat: 16, label: "Vehicle" },
  scenery: { hue: 45, sat: 14, label: "Scenery" },
};
const UNKNOWN_KIND = { hue: 45, sat: 14, label: "Terrain" };

/** Fill of a terrain piece: its kind's colour, darker the taller it is. */
export function terrainFill(kind, height) {
  const k = TERRAIN_KINDS[kind] ?? UNKNOWN_KIND;
  const lightness = Math.max(24, Math.min(62, 64 - (height ?? 0) * 8));
  return `hsl(${k.hue} ${k.sat}% ${lightness}%)`;
}

/** Inches as the table writes them: 4", 2.5". */
export const inches = (n) => `${Math.round(n * 10) / 10}"`;

function svg(tag, attrs = {}, text = undefined) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** How the table is turned for this viewer (seat-view.js): North up, or South up for a seat at the North edge. */
let orient = orientation(1, 1, false);
/** A table point's SVG point (where screen-sized labels go). @param {number[]} p */
const onScreen = (p) => orient.toSvg(p);
/** The viewer's Deployment Zone, which facings are said from (null: a spectator, or before the roll-off). */
let viewerZone = /** @type {"north" | "south" | null} */ (null);

/** What was last drawn, so that zoom, the ruler and the roster's hover can redraw or re-lay it. */
let last = /** @type {any[] | null} */ (null);
/** Screen-sized things of the current drawing (labels, tokens, pills), laid out by `layoutOverlay`. */
let overlay = /** @type {any[]} */ ([]);
/** Front arcs drawn beyond the bases, resized by `layoutOverlay` so that they stay readable at any zoom. */
let arcs = /** @type {{node: SVGPathElement, x: number, y: number, f: number, r: number}[]} */ ([]);

/**
 * @param {SVGSVGElement} root
 * @param {import("./lib/view.js").LocalView} view
 * @param {string|null} role
 * @param {{selected: string|null, routes: Record<string, number[][]>, routeFor?: string|null, firingPoint: number[]|null, rotated?: boolean, guts?: any,
 *   minePlan?: import("./mines.js").MinePlan | null, placeMine?: {weapon: string, at: number[] | null} | null}} ui
 *   `rotated`: the table is seen from its South-up side (a seat at the North edge, seat-view.js)
 * @param {Record<string, any> | null} options the seat's current options (null: none)
 * @param {(p: [number, number], trooper?: Record<string, any>) => void} onClick table point clicked (inches); with the ruler on, a trooper clicked gives its position and itself
 * @param {(id: string) => void} onSelect trooper clicked
 */
export function drawTable(root, view, role, ui, options, onClick, onSelect) {
  last = [root, view, role, ui, options, onClick, onSelect];
  const state = view.state;
  const { width, depth } = state.table;
  if (!camera.ready) { camera.ready = true; installPanZoom(root, width, depth); }
  root.__onClick = onClick;
  root.__size = [width, depth];
  orient = orientation(width, depth, Boolean(ui.rotated));
  root.__orient = orient;
  viewerZone = state.initiative?.zones?.[role ?? ""] ?? null;
  applyCamera(root);
  root.replaceChildren();
  root.classList.toggle("ruler-on", ruler.active);
  overlay = [];
  arcs = [];
  const names = trooperNames(state);
  // y grows northwards on the table, downwards in SVG: flip once here (or, seen from the North
  // edge, mirror x instead: the table turned 180°). Texts go in `top`, unturned (at
  // `onScreen` of their table point), so that they read the right way up.
  const g = svg("g", { transform: orient.transform, class: "board", "data-rotated": String(orient.rotated) });
  const top = svg("g", { id: "table-overlay", "pointer-events": "none" });
  root.append(g, top);
  g.append(svg("rect", { x: 0, y: 0, width, height: depth, fill: "#46623f", stroke: "#cfd8c8", "stroke-width": 0.12 }));
  drawEdgeTicks(g, width, depth);
  drawZones(g, state, depth);
  drawSpecialTerrain(g, state);
  drawTerrain(g, state, depth);
  // The mission's zones and markers (mission-layer.js); a marker clicked is told to the page
  // as a "mission-marker" event on the table's root (main.js shows what it is).
  drawMissionLayer(g, state, { onScreen, pill, colours: SIDE_COLOUR, place: (x, y, node) => overlay.push({ ...fixedLabel(x, y, node), avoid: true }),
    onMarker: (id) => root.dispatchEvent(new CustomEvent("mission-marker", { detail: id })) });
  drawVisibilityZones(g, state);
  // Fireteams (open information): a ring round each member (solid for the leader, dashed for the
  // others) and a thin line from the leader to each member, in the side's light colour.
  for (const team of state.fireteams ?? []) {
    for (const id of team.members) {
      const t = view.trooper(id);
      if (!t?.position) continue;
      g.append(svg("circle", { cx: t.position[0], cy: t.position[1], r: baseRadius(t) + 0.6, fill: "none", stroke: sideColour(t.side).light,
        "stroke-width": 0.12, "stroke-dasharray": id === team.leader ? "none" : "0.35 0.18", "data-fireteam-ring": id }));
    }
  }
  // The leader's label names the team and its Level (open information, for every viewer).
  teamsLed = new Map((state.fireteams ?? []).map((/** @type {any} */ team) => [team.leader, team]));
  for (const link of teamLinks(state.fireteams ?? [], (id) => view.trooper(id))) {
    g.append(svg("line", { x1: link.from[0], y1: link.from[1], x2: link.to[0], y2: link.to[1], stroke: sideColour(view.trooper(link.leader)?.side ?? "A").light,
      "stroke-width": 0.14, opacity: 0.8, "stroke-linecap": "round", "data-fireteam-link": link.member, "data-fireteam-leader": link.leader }));
  }
  const selected = ui.selected ? view.trooper(ui.selected) : null;
  if (selected?.position) {
    const [x, y] = selected.position;
    g.append(svg("circle", { cx: x, cy: y, r: ZOC_RADIUS, fill: "none", stroke: "#ff0", "stroke-dasharray": "0.5 0.5", "stroke-width": 0.08, id: "zoc" }));
    // In its Order, the reach options give (Special Terrain's MOD and the Terrain bonus included).
    const offered = selected.id === state.order?.trooper ? options?.skills?.allowances?.move : undefined;
    const mov = typeof offered === "number" ? offered : firstMov(selected.profile);
    if (mov) g.append(svg("circle", { cx: x, cy: y, r: mov, fill: "#8f8", opacity: 0.12, id: "move-range" }));
    for (const seen of options?.sight?.[selected.id] ?? []) {
      const target = view.trooper(seen);
      if (!target?.position) continue;
      g.append(svg("line", { x1: x, y1: y, x2: target.position[0], y2: target.position[1], stroke: "#f44",
        "stroke-width": 0.1, "stroke-dasharray": "0.4 0.2", "data-lof": seen }));
    }
  }
  const drawing = Object.entries(ui.routes ?? {}).filter(([id, route]) => route.length && view.trooper(id)?.position);
  for (const [id, route] of drawing) {
    const t = view.trooper(id);
    const current = id === (ui.routeFor ?? ui.selected);
    g.append(svg("polyline", { points: [t.position, ...route].map((p) => p.join(",")).join(" "), fill: "none", stroke: "#fff",
      "stroke-width": current ? 0.16 : 0.1, opacity: current ? 1 : 0.75, "stroke-dasharray": "0.5 0.25", id: id === ui.selected ? "route" : `route-${id}`, "data-route": id }));
    // Its length just beyond its end (the line says whose it is).
    label(route[route.length - 1], inches(routeLength(t.position, route)), "#ffffff", depth, 0.9);
  }
  if (ui.guts) drawGuts(g, ui.guts);
  if (ui.minePlan?.at) drawMinePlan(g, view, ui.minePlan, options?.minelayer?.[ui.minePlan.trooper]);
  const placing = ui.placeMine ? options?.skills?.place_deployable?.[ui.placeMine.weapon] : null;
  if (placing && state.order) drawMineContact(g, placing, ui.placeMine.at, view.trooper(state.order.trooper)?.side ?? role);
  if (ui.firingPoint) {
    g.append(svg("circle", { cx: ui.firingPoint[0], cy: ui.firingPoint[1], r: 0.45, fill: "none", stroke: "#ff0", "stroke-width": 0.12, id: "chosen-firing-point" }));
  }
  // Casualties first, so that the living stand on top of them.
  const placed = state.troopers.filter((t) => t.position);
  const active = new Set(state.order ? [state.order.trooper, ...(state.order.peripherals ?? [])] : []);
  for (const t of placed.filter((x) => x.condition === "dead")) drawTrooper(g, t, names, ui, active, depth, onSelect, onClick);
  if (state.order) drawOrder(g, view, state.order, names, depth);
  for (const t of placed.filter((x) => x.condition !== "dead")) drawTrooper(g, t, names, ui, active, depth, onSelect, onClick);
  for (const d of state.deployables ?? []) drawMine(g, d);
  const rulerLayer = svg("g", { id: "ruler-layer" });
  g.append(rulerLayer);
  drawRuler(rulerLayer, view, names, (item) => overlay.push(item), onScreen, pill);
  renderTitle(state);
  renderLegend(state);
  for (const item of overlay) top.append(item.node);
  layoutOverlay(root);
}

/**
 * The seat's Guts window (guts-panel.js): the ring points that satisfy the rule (green dots),
 * the default end (yellow ring) and the chosen point with its straight move (white).
 * @param {SVGGElement} g @param {{start: number[], default: number[], points: number[][], chosen: number[] | null}} guts
 */
function drawGuts(g, guts) {
  for (const p of guts.points ?? []) g.append(svg("circle", { cx: p[0], cy: p[1], r: 0.12, fill: "#7f7", opacity: 0.8, class: "guts-point" }));
  g.append(svg("circle", { cx: guts.default[0], cy: guts.default[1], r: 0.4, fill: "none", stroke: "#fc6", "stroke-width": 0.12, id: "guts-default-point" }));
  const end = guts.chosen ?? guts.default;
  g.append(svg("line", { x1: guts.start[0], y1: guts.start[1], x2: end[0], y2: end[1], stroke: "#fff", "stroke-width": 0.1,
    "stroke-dasharray": "0.4 0.2", id: "guts-route" }));
  if (guts.chosen) g.append(svg("circle", { cx: guts.chosen[0], cy: guts.chosen[1], r: 0.4, fill: "none", stroke: "#fff", "stroke-width": 0.14, id: "guts-chosen-point" }));
}

/** Redraw with what was last drawn (zoom buttons, the ruler's answers). */
export function redrawTable() {
  if (last) drawTable(.../** @type {[any, any, any, any, any, any, any]} */ (last));
}

/** Inch ticks along the table edges: every 2", longer every 6", numbered every 12". */
function drawEdgeTicks(g, width, depth) {
  const ticks = svg("g", { stroke: "#cfd8c8", "stroke-width": 0.05, opacity: 0.55 });
  for (let x = 2; x < width; x += 2) {
    const l = x % 6 === 0 ? 0.6 : 0.3;
    ticks.append(svg("line", { x1: x, y1: 0, x2: x, y2: l }), svg("line", { x1: x, y1: depth, x2: x, y2: depth - l }));
  }
  for (let y = 2; y < depth; y += 2) {
    const l = y % 6 === 0 ? 0.6 : 0.3;
    ticks.append(svg("line", { x1: 0, y1: y, x2: l, y2: y }), svg("line", { x1: width, y1: y, x2: width - l, y2: y }));
  }
  g.append(ticks);
}

/** Deployment zones in the colour of the side that deploys there (neutral before that is known). */
function drawZones(g, state, depth) {
  const owner = Object.fromEntries(Object.entries(state.initiative?.zones ?? {}).map(([side, zone]) => [zone, side]));
  for (const [name, z] of Object.entries(state.deployment_zones ?? {})) {
    const side = owner[name];
    const colour = side ? sideColour(side).fill : "#c8c8c8";
    g.append(svg("rect", { x: z.x0, y: z.y0, width: z.x1 - z.x0, height: z.y1 - z.y0, fill: colour, opacity: 0.16, "data-zone": name }));
    const inner = z.y0 <= 0 ? z.y1 : z.y0; // the edge facing the middle of the table
    g.append(svg("line", { x1: z.x0, y1: inner, x2: z.x1, y2: inner, stroke: colour, "stroke-width": 0.1, "stroke-dasharray": "0.6 0.3", opacity: 0.8 }));
    // Its label outside the table, by the edge the zone runs along (inside for a zone in the middle).
    const atEdge = z.y0 <= 0 ? -0.75 : z.y1 >= state.table.depth ? state.table.depth + 0.75 : (z.y0 + z.y1) / 2;
    const text = side ? `Player ${side} deployment zone` : `${name} deployment zone`;
    overlay.push(fixedLabel(...onScreen([(z.x0 + z.x1) / 2, atEdge]), pill(text, { colour: side ? sideColour(side).light : "#ddd", size: 10, background: "rgba(0,0,0,.35)", attrs: { "data-zone-label": name } })));
  }
}

/** Terrain: a shadow that grows with height, the footprint shaded by kind and height, a
 * label with its name and height in inches, and a tooltip naming it as the rules do. */
/** Special Terrain areas (open information): a dashed footprint on the ground,
 * ochre for Difficult, red for Very Difficult, its name, MOV Difficulty and Type in a tooltip. */
function drawSpecialTerrain(g, state) {
  const TYPES = { aquatic: "Aquatic", desert: "Desert", jungle: "Jungle", mountain: "Mountain", zero_g: "Zero-G" };
  for (const area of state.table.special_terrain ?? []) {
    const very = area.difficulty === "very_difficult";
    const node = svg("polygon", { points: area.polygon.map((p) => p.join(",")).join(" "), fill: very ? "#b0413e" : "#c9a94a", opacity: 0.4,
      stroke: very ? "#f0a0a0" : "#f2dc8c", "stroke-width": 0.12, "stroke-dasharray": "0.5 0.25", "data-special-terrain": area.id, "data-difficulty": area.difficulty });
    node.append(svg("title", {}, `${area.name}: ${very ? "Very Difficult" : "Difficult"} Terrain (${TYPES[area.terrain_type] ?? area.terrain_type}): entering it ends a move; inside, MOV -1 inch${very ? " and one movement per Order" : ""}, unless the trooper has Terrain of its Type`));
    g.append(node);
  }
}

/** Smoke (grey) and Eclipse (dark) Zero Visibility Zones: circles that block LoF until the States Phase. */
function drawVisibilityZones(g, state) {
  for (const z of state.table.zones ?? []) {
    const eclipse = z.kind === "eclipse";
    const node = svg("circle", { cx: z.centre[0], cy: z.centre[1], r: z.radius, fill: eclipse ? "#1a1a2e" : "#c8c8c8",
      opacity: eclipse ? 0.7 : 0.6, stroke: eclipse ? "#8a7cff" : "#fff", "stroke-width": 0.08, "pointer-events": "none", "data-visibility-zone": z.kind });
    node.append(svg("title", {}, `${eclipse ? "Eclipse" : "Smoke"}: Zero Visibility Zone, no Line of Fire through it${eclipse ? "" : " (a Multispectral Visor sees through)"}, until the States Phase`));
    g.append(node);
  }
}

function drawTerrain(g, state, depth) {
  const pieces = state.table.terrain ?? [];
  for (const piece of pieces) {
    const h = piece.height ?? 0;
    const off = Math.min(1.2, 0.14 * h);
    g.append(svg("polygon", { points: piece.polygon.map(([x, y]) => `${x + off},${y - off}`).join(" "), fill: "#000", opacity: 0.32 }));
  }
  for (const piece of pieces) {
    const h = piece.height ?? 0;
    const node = svg("polygon", { points: piece.polygon.map((p) => p.join(",")).join(" "), fill: terrainFill(piece.kind, h),
      stroke: "#1b1b1b", "stroke-width": 0.1, "data-terrain": piece.id, "data-kind": piece.kind ?? "" });
    // The tooltip names it as the rules' messages do (never by its id): "The Refinery office
    // south-east of the centre (building): 3.5" high".
    const named = terrainName(piece, state.table);
    node.append(svg("title", {}, `${named[0].toUpperCase()}${named.slice(1)}${piece.kind ? ` (${piece.kind})` : ""}: ${inches(h)} high${piece.gives_cover === false ? ", gives no Partial Cover" : ""}`));
    g.append(node);
    if (h >= 2) { // a roof line: tall pieces read as raised blocks
      const [cx, cy] = centre(piece.polygon);
      const inset = piece.polygon.map(([x, y]) => `${cx + (x - cx) * 0.86},${cy + (y - cy) * 0.86}`).join(" ");
      g.append(svg("polygon", { points: inset, fill: "none", stroke: "#fff", "stroke-width": 0.06, opacity: 0.25 }));
    }
    const [cx, cy] = centre(piece.polygon);
    const box = bounds(piece.polygon);
    const narrow = Math.min(box.w, box.h) < 2.2;
    const look = { size: 10, colour: "#f4f0e6", background: "rgba(20,18,14,.62)", bold: false };
    // Its name and height where there is room, else its height alone (`layoutOverlay` picks).
    const full = pill(narrow || !piece.name ? `${piece.name ? `${piece.name} ` : ""}${inches(h)}` : piece.name,
      { ...look, sub: narrow || !piece.name ? undefined : inches(h), attrs: { "data-terrain-label": piece.id, "data-variant": "full" } });
    const short = pill(inches(h), { ...look, attrs: { "data-terrain-label": piece.id, "data-variant": "height" } });
    const [sx, sy] = onScreen([cx, cy]);
    const [ax, ay] = onScreen([box.x0, box.y0]), [bx, by] = onScreen([box.x0 + box.w, box.y0 + box.h]);
    overlay.push({ kind: "terrain", x: sx, y: sy, area: box.w * box.h, variants: [full, short], node: full,
      rect: { x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) } });
    overlay.push({ kind: "terrain-short", x: sx, y: sy, node: short });
  }
}

function centre(polygon) {
  const b = bounds(polygon);
  return [b.x0 + b.w / 2, b.y0 + b.h / 2];
}

function bounds(polygon) {
  const xs = polygon.map((p) => p[0]), ys = polygon.map((p) => p[1]);
  const x0 = Math.min(...xs), y0 = Math.min(...ys);
  return { x0, y0, w: Math.max(...xs) - x0, h: Math.max(...ys) - y0 };
}

/**
 * One trooper: its base to scale (Silhouette), the front arc, rings for the active and the
 * selected trooper, a cross on a casualty; its name and state tokens in a label by the base.
 */
/**
 * A Mine the viewer may know as one (its own, or one that went off): a small token with a
 * cross. The enemy's undiscovered Mines come as troopers' Camouflage markers instead.
 * @param {SVGElement} g @param {Record<string, any>} d
 */
function drawMine(g, d) {
  g.append(mineToken(d.position, d.side, { "data-deployable": d.id }, `Mine (${d.id})${d.discovered ? "" : ", a Camouflage marker to the enemy"}`));
}

/** A Mine's token (its Silhouette 2 base with a cross) at a point, in its side's colour; `planned` ones faded. */
function mineToken([x, y], sideName, attrs, title, planned = false) {
  const side = SIDE_COLOUR[/** @type {keyof typeof SIDE_COLOUR} */ (sideName)] ?? SIDE_COLOUR.A;
  const group = svg("g", { ...attrs, opacity: planned ? 0.8 : 1 });
  group.append(svg("title", {}, title));
  group.append(svg("circle", { cx: x, cy: y, r: MINE_RADIUS, fill: "#1d1f24", stroke: planned ? "#fff" : side.fill, "stroke-width": 0.14, "stroke-dasharray": "0.2 0.12" }));
  group.append(svg("path", { d: `M ${x - 0.3} ${y - 0.3} L ${x + 0.3} ${y + 0.3} M ${x - 0.3} ${y + 0.3} L ${x + 0.3} ${y - 0.3}`, stroke: side.fill, "stroke-width": 0.12 }));
  return group;
}

/**
 * A Minelayer's deployment being planned (mines.js): its base at the chosen spot (faded), its
 * Zone of Control (the dotted circle its Mines go in) and the Mines planned.
 * @param {SVGElement} g @param {import("./lib/view.js").LocalView} view @param {import("./mines.js").MinePlan} plan @param {any} offer
 */
function drawMinePlan(g, view, plan, offer) {
  const t = view.trooper(plan.trooper);
  if (!plan.at || !t) return;
  const [x, y] = plan.at;
  const r = baseRadius(t);
  const side = sideColour(t.side);
  g.append(svg("circle", { cx: x, cy: y, r: r + (offer?.zone_of_control ?? ZOC_RADIUS), fill: "#ffd24a", "fill-opacity": 0.07, stroke: "#ffd24a",
    "stroke-width": 0.12, "stroke-dasharray": "0.3 0.3", id: "mine-reach", "pointer-events": "none" }));
  g.append(svg("circle", { cx: x, cy: y, r, fill: side.fill, opacity: 0.6, stroke: "#fff", "stroke-width": 0.1, "stroke-dasharray": "0.25 0.15", id: "mine-plan-spot" }));
  plan.mines.forEach((m, i) => g.append(mineToken(m, t.side, { "data-planned-mine": String(i) }, `Mine ${i + 1} (planned)`, true)));
}

/**
 * Place Deployable being aimed (order-panel.js): the band along the trooper's path where a
 * Mine's base touches its base (the offer's `contact` between centres), and the chosen spot.
 * @param {SVGElement} g @param {{path: number[][], contact: number}} offer @param {number[] | null} at @param {string} sideName
 */
function drawMineContact(g, offer, at, sideName) {
  const points = offer.path.length > 1 ? offer.path : [offer.path[0], offer.path[0]];
  g.append(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#ffd24a", "stroke-opacity": 0.3,
    "stroke-width": 2 * (offer.contact + MINE_RADIUS), "stroke-linecap": "round", "stroke-linejoin": "round", id: "mine-contact-band", "pointer-events": "none" }));
  if (at) g.append(mineToken(at, sideName, { id: "place-mine-spot" }, "The Mine (planned)", true));
}

function drawTrooper(g, t, names, ui, active, depth, onSelect, onClick) {
  const [x, y] = t.position;
  const r = baseRadius(t);
  const side = sideColour(t.side);
  const dead = t.condition === "dead";
  const unconscious = t.condition === "unconscious";
  const name = names.get(t.id);
  const group = svg("g", { "data-trooper": t.id, "data-condition": t.condition ?? "", class: `trooper side-${t.side}${dead ? " dead" : ""}`, cursor: "pointer" });
  const facing = !dead && !unconscious && !(t.marker && !t.profile) ? `, facing ${facingWords(t.facing ?? 0, viewerZone)}` : "";
  group.append(svg("title", {}, `${name?.full ?? "?"} (${t.id})${t.marker ? ", Camouflage marker" : ""}${t.condition && t.condition !== "normal" ? `, ${t.condition}` : ""}${facing}`));
  if (!dead && !unconscious && !(t.marker && !t.profile)) {
    // The front arc (180°) as a fan reaching out of the base, under it: readable at the
    // whole-table zoom, where a base is a few pixels across (`layoutOverlay` sizes it).
    // (Not a click target: a click on it is a point of the table, as the first point of a route often is.)
    const fan = svg("path", { fill: side.light, opacity: t.hidden ? 0.18 : 0.38, stroke: side.light, "stroke-width": 0.05, "pointer-events": "none", "data-front-fan": t.id });
    arcs.push({ node: fan, x, y, f: ((t.facing ?? 0) * Math.PI) / 180, r });
    group.append(fan);
  }
  group.append(svg("circle", { cx: x, cy: y, r: r + 0.32, class: "hover-ring", fill: "none", stroke: "#fff", "stroke-width": 0.14, opacity: 0 }));
  if (active.has(t.id)) {
    group.append(svg("circle", { cx: x, cy: y, r: r + 0.42, fill: "none", stroke: "#ffd24a", "stroke-width": 0.22, "data-active-ring": t.id }));
  }
  if (t.id === ui.selected) {
    group.append(svg("circle", { cx: x, cy: y, r: r + 0.24, fill: "none", stroke: "#000", "stroke-width": 0.32, opacity: 0.6 }));
    group.append(svg("circle", { cx: x, cy: y, r: r + 0.24, fill: "none", stroke: "#fff", "stroke-width": 0.17, "data-selected-ring": t.id }));
  }
  if (t.marker && !t.profile) {
    // An enemy Camouflage Marker: a marker token, never a base, no facing (its unit is unknown).
    const s = r * 0.92;
    group.append(svg("rect", { x: x - s, y: y - s, width: 2 * s, height: 2 * s, rx: 0.12, fill: "#1d1f24", stroke: side.fill, "stroke-width": 0.16, "data-marker": t.id }));
    group.append(svg("path", { d: `M ${x - s * 0.55} ${y} L ${x} ${y + s * 0.55} L ${x + s * 0.55} ${y} L ${x} ${y - s * 0.55} Z`, fill: side.fill, opacity: 0.8 }));
  } else if (dead) {
    group.append(svg("circle", { cx: x, cy: y, r, fill: "#5a5a5a", stroke: "#222", "stroke-width": 0.08, opacity: 0.85, "data-base": t.id }));
    const d = r * 0.72;
    for (const [a, b] of [[[x - d, y - d], [x + d, y + d]], [[x - d, y + d], [x + d, y - d]]]) {
      group.append(svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#111", "stroke-width": 0.26, "stroke-linecap": "round" }));
      group.append(svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#d9d9d9", "stroke-width": 0.1, "stroke-linecap": "round", "data-casualty-cross": t.id }));
    }
  } else {
    const hidden = t.hidden;
    const base = svg("circle", { cx: x, cy: y, r, fill: unconscious ? side.dark : side.fill, stroke: unconscious ? "#ff5a3c" : "#0b0b0b",
      "stroke-width": unconscious ? 0.12 : 0.07, opacity: hidden ? 0.5 : 1, "stroke-dasharray": hidden || unconscious ? "0.25 0.15" : "none", "data-base": t.id });
    group.append(base);
    // Facing: the front 180° arc lighter, and a nose on the rim (0° = +x, counter-clockwise).
    const f = ((t.facing ?? 0) * Math.PI) / 180;
    const a0 = f - Math.PI / 2, a1 = f + Math.PI / 2;
    const at = (a, d) => `${x + d * Math.cos(a)} ${y + d * Math.sin(a)}`;
    if (!unconscious) {
      group.append(svg("path", { d: `M ${at(a0, r)} A ${r} ${r} 0 0 1 ${at(a1, r)} Z`, fill: "#fff", opacity: hidden ? 0.25 : 0.42, "data-front-arc": t.id }));
      group.append(svg("path", { d: `M ${at(f - 0.42, r * 0.98)} L ${at(f, r + Math.max(0.3, r * 0.45))} L ${at(f + 0.42, r * 0.98)} Z`,
        fill: "#fff", stroke: "#111", "stroke-width": 0.05, opacity: hidden ? 0.5 : 1, "data-facing": t.id }));
    }
    if (t.marker) { // own trooper deployed as a Camouflage Marker: the marker's outline around its base
      group.append(svg("rect", { x: x - r - 0.12, y: y - r - 0.12, width: 2 * r + 0.24, height: 2 * r + 0.24, rx: 0.12, fill: "none", stroke: side.light, "stroke-width": 0.08, "stroke-dasharray": "0.3 0.15" }));
    }
    if (t.targeted) {
      for (let i = 0; i < 4; i += 1) {
        const a = (i * Math.PI) / 2 + Math.PI / 4;
        group.append(svg("line", { x1: x + (r + 0.1) * Math.cos(a), y1: y + (r + 0.1) * Math.sin(a), x2: x + (r + 0.45) * Math.cos(a), y2: y + (r + 0.45) * Math.sin(a), stroke: "#ff3030", "stroke-width": 0.12 }));
      }
    }
  }
  group.addEventListener("click", (e) => {
    e.stopPropagation();
    if (ruler.active) onClick([x, y], t); else onSelect(t.id);
  });
  g.append(group);
  // The label: short name (small ordinal), then a token per state, in a pill by the base.
  const tokens = trooperStates(t).filter((s) => s !== "marker" || t.profile).map((s) => STATE_TOKENS[s]).filter(Boolean);
  // Its edge: white for the selected trooper, gold for the active one, else the side's colour.
  const edge = t.id === ui.selected ? "#fff" : active.has(t.id) ? "#ffd24a" : side.fill;
  const team = teamsLed.get(t.id);
  const sub = team ? `${KIND_SHORT[team.kind] ?? team.kind}${team.level ? ` L${team.level}` : ""}` : undefined;
  const label = pill(name?.short ?? "?", { ordinal: name?.ordinal, colour: dead ? "#b8b8b8" : "#fff", strike: dead, edge,
    edgeWidth: edge === side.fill ? 1.2 : 2.2, tokens, sub, attrs: { "data-label-for": t.id, "data-side": t.side,
      ...(team ? { "data-fireteam-label": t.id } : {}) } });
  if (team) label.append(svg("title", {}, `Leads a ${KIND_SHORT[team.kind] ? `Fireteam: ${KIND_SHORT[team.kind]}` : team.kind}${team.level ? `, Level ${team.level}: ${bonusesAt(team.level).join("; ")}` : ""}`));
  overlay.push({ node: label, x: onScreen([x, y])[0], y: onScreen([x, y])[1], r, kind: "trooper", priority: active.has(t.id) || t.id === ui.selected ? 0 : dead ? 2 : 1 });
}

/**
 * A label drawn in screen pixels (placed and scaled by `layoutOverlay`): text with an
 * optional small ordinal and a second line, and coloured tokens after it, on a dark pill.
 * Sized first by an estimate, then by the texts' real widths once it is in the page.
 */
export function pill(text, { ordinal = undefined, sub = undefined, size = 11, colour = "#fff", background = "rgba(12,14,18,.8)", edge = undefined,
  edgeWidth = 1.2, strike = false, bold = true, tokens = [], attrs = {} } = {}) {
  const node = svg("g", { class: "tl", ...attrs });
  const inner = svg("g", { class: "tl-inner" });
  node.append(inner);
  const pad = 4, lineH = size + 3;
  const bg = svg("rect", { x: 0, y: 0, rx: 3, fill: background, stroke: edge ?? "none", "stroke-width": edge ? edgeWidth : 0 });
  inner.append(bg);
  const main = svg("text", { x: pad, y: size + 1, "font-size": size, "font-weight": bold ? 700 : 500, fill: colour, "text-decoration": strike ? "line-through" : undefined }, text);
  main.__estimate = textWidth(text, size, bold) + (ordinal ? 2 + textWidth(String(ordinal), size * 0.78, true) : 0);
  if (ordinal) main.append(svg("tspan", { "font-size": size * 0.78, dx: 1.5, dy: -size * 0.32, fill: colour, opacity: 0.9, class: "ordinal" }, String(ordinal)));
  inner.append(main);
  let h = lineH + 2;
  let second = null;
  if (sub) {
    second = svg("text", { x: pad, y: lineH + size + 1, "font-size": size + 1, "font-weight": 700, fill: colour }, sub);
    second.__estimate = textWidth(sub, size + 1, true);
    inner.append(second);
    h += lineH;
  }
  const chips = tokens.map((token) => {
    const chip = svg("g", { class: "token", "data-token": token.code });
    const rect = svg("rect", { y: 2.5, height: h - 5, rx: 2, fill: token.fill, stroke: "#000", "stroke-width": 0.6 });
    const label = svg("text", { y: h / 2 + 3, "font-size": 8.5, "font-weight": 800, fill: token.text ?? "#fff", "text-anchor": "middle" }, token.code);
    label.__estimate = textWidth(token.code, 8.5, true);
    chip.append(rect, label);
    inner.append(chip);
    return { rect, label };
  });
  node.__pill = { bg, main, second, chips, pad, h };
  sizePill(node, (t) => t.__estimate);
  return node;
}

/** Lay a pill's parts out for the text widths `widthOf` gives. */
function sizePill(node, widthOf) {
  const { bg, main, second, chips, pad, h } = node.__pill;
  let w = pad + widthOf(main) + pad;
  if (second) {
    w = Math.max(w, pad * 2 + widthOf(second));
    for (const t of [main, second]) { t.setAttribute("x", String(w / 2)); t.setAttribute("text-anchor", "middle"); }
  }
  let x = w - 1;
  for (const { rect, label } of chips) {
    const cw = widthOf(label) + 6;
    rect.setAttribute("x", String(x));
    rect.setAttribute("width", String(cw));
    label.setAttribute("x", String(x + cw / 2));
    x += cw + 2;
  }
  if (chips.length) w = x + 1;
  bg.setAttribute("width", String(w));
  bg.setAttribute("height", String(h));
  node.__size = [w, h];
}

/** Size a pill by its texts' real widths, once it is rendered (else keep the estimate). */
function fitPill(node) {
  if (!node.__pill || node.__fitted) return;
  let rendered = true;
  sizePill(node, (t) => {
    const real = t.getComputedTextLength?.() ?? 0;
    if (!real) rendered = false;
    return real || t.__estimate;
  });
  node.__fitted = rendered;
}

/** An estimate of a text's width in pixels (system-ui): good enough until it is measured. */
function textWidth(text, size, bold) {
  let units = 0;
  for (const ch of String(text)) units += /[il.,'"|!]/.test(ch) ? 0.3 : /[mwMW]/.test(ch) ? 0.85 : /[A-Z0-9]/.test(ch) ? 0.64 : ch === " " ? 0.3 : 0.55;
  return units * size * (bold ? 1.05 : 1);
}

/** The Fireteam each leader leads (`state.fireteams`), set by the render before the troopers are drawn. @type {Map<string, any>} */
let teamsLed = new Map();

/** A label centred on a table point (SVG coordinates). */
function fixedLabel(x, y, node) {
  return { node, x, y, kind: "fixed" };
}

/**
 * Place every screen-sized label for the current zoom: centred ones at their point, trooper
 * labels by their base (below, above, right, left: the first that does not overlap a label
 * already placed or another base), all scaled to keep their size in pixels.
 */
export function layoutOverlay(root) {
  const ctm = root.getScreenCTM?.();
  if (!ctm || !ctm.a) return;
  const k = 1 / ctm.a; // SVG units (inches) per screen pixel
  root.style.setProperty("--inch-per-px", String(k));
  for (const item of overlay) fitPill(item.node);
  // Front arcs: at least 16 px beyond the base on screen, at least 0.5" in any case.
  for (const { node, x, y, f, r } of arcs) {
    const reach = r + Math.max(0.5, 16 * k);
    const at = (a) => `${x + reach * Math.cos(a)} ${y + reach * Math.sin(a)}`;
    node.setAttribute("d", `M ${x} ${y} L ${at(f - Math.PI / 2)} A ${reach} ${reach} 0 0 1 ${at(f + Math.PI / 2)} Z`);
  }
  const centred = (node, x, y) => {
    const [pw, ph] = node.__size ?? [0, 0];
    node.setAttribute("transform", `translate(${x - (pw * k) / 2} ${y - (ph * k) / 2}) scale(${k})`);
    return { x0: x - (pw * k) / 2, y0: y - (ph * k) / 2, x1: x + (pw * k) / 2, y1: y + (ph * k) / 2 };
  };
  /** Labels the troopers' labels keep clear of (the mission's zones and markers). @type {{x0: number, y0: number, x1: number, y1: number}[]} */
  const avoided = [];
  for (const item of overlay) {
    if (item.kind !== "fixed") continue;
    const box = centred(item.node, item.x, item.y);
    if (item.avoid) avoided.push(box);
  }
  // Terrain, the biggest pieces first: its name and height unless that would cover another
  // piece or the label of a bigger one, else its height alone.
  const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const pieces = overlay.filter((o) => o.kind === "terrain").sort((a, b) => b.area - a.area);
  /** @type {{x0: number, y0: number, x1: number, y1: number}[]} */
  const terrainBoxes = [];
  for (const item of pieces) {
    const [full, short] = item.variants;
    const box = centred(full, item.x, item.y);
    const fits = !terrainBoxes.some((o) => overlaps(o, box)) && !pieces.some((o) => o !== item && overlaps(o.rect, box));
    full.setAttribute("display", fits ? "inline" : "none");
    short.setAttribute("display", fits ? "none" : "inline");
    terrainBoxes.push(fits ? box : centred(short, item.x, item.y));
  }
  // Trooper labels: around their bases, never over another label or base (label-layout.js);
  // one pushed away from a crowd gets a thin line to its base.
  const troopers = overlay.filter((o) => o.kind === "trooper");
  const spots = placeLabels(troopers.map((item) => ({ x: item.x, y: item.y, r: item.r + (item.priority === 0 ? 0.45 : 0.1),
    w: item.node.__size[0] * k, h: item.node.__size[1] * k, priority: item.priority })), 2 * k, 3, avoided);
  troopers.forEach((item, i) => {
    const { x0, y0, leader } = spots[i];
    const [pw, ph] = item.node.__size;
    item.node.setAttribute("transform", `translate(${x0} ${y0}) scale(${k})`);
    item.leader?.remove();
    item.leader = null;
    if (leader) {
      const cx = Math.min(Math.max(item.x, x0), x0 + pw * k), cy = Math.min(Math.max(item.y, y0), y0 + ph * k);
      item.leader = svg("line", { x1: item.x, y1: item.y, x2: cx, y2: cy, stroke: "#fff", "stroke-width": k, opacity: 0.7, "data-label-leader": item.node.getAttribute("data-label-for") });
      item.node.parentNode?.insertBefore(item.leader, item.node);
    }
  });
}

const SKILL_COLOUR = { bs_attack: "#ff3b3b", cc_attack: "#d070ff", comms_attack: "#40e0ff", discover: "#e0e0e0" };
const ARO_COLOUR = { bs_attack: "#ffa030", cc_attack: "#ffa0ff", comms_attack: "#a0ffff", discover: "#ffe0a0" };

/** Targets a declared skill names. @param {Record<string, any>} skill @returns {string[]} */
function targetsOf(skill) {
  if (Array.isArray(skill.targets)) return skill.targets.map((/** @type {any} */ t) => t.trooper);
  return skill.target ? [skill.target] : [];
}

/**
 * The Order in progress, for every viewer: each activated trooper's path (start ghost, route
 * moved), the attacks declared from their firing points to their targets (a template's reach
 * as a wedge), and the declared AROs from the reacting trooper to its target point.
 * @param {SVGGElement} g @param {import("./lib/view.js").LocalView} view @param {Record<string, any>} order
 */
function drawOrder(g, view, order, names, depth) {
  const layer = svg("g", { id: "active-order" });
  g.append(layer);
  const activated = [order.trooper, ...(order.peripherals ?? [])];
  for (const id of activated) {
    const path = id === order.trooper ? order.path : order.peripheral_paths?.[id];
    const skills = id === order.trooper ? order.skills : order.peripheral_skills?.[id] ?? [];
    if (!path?.length) continue;
    const r = baseRadius(view.trooper(id));
    layer.append(svg("circle", { cx: path[0][0], cy: path[0][1], r, fill: "none", stroke: "#ffd24a", "stroke-width": 0.08, "stroke-dasharray": "0.25 0.15", opacity: 0.8 }));
    if (path.length > 1) {
      layer.append(svg("polyline", { points: path.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#ffd24a", "stroke-width": 0.18, opacity: 0.9, "data-order-path": id }));
      for (const p of path.slice(1, -1)) layer.append(svg("circle", { cx: p[0], cy: p[1], r: 0.15, fill: "#ffd24a" }));
    }
    const from = declaredFrom(path[0], skills);
    skills.forEach((skill, i) => drawAttack(layer, view, id, skill, from[i], SKILL_COLOUR, "data-attack-line", depth));
  }
  for (const [id, skill] of Object.entries(order.aros ?? {})) {
    const t = view.trooper(id);
    if (!t?.position) continue;
    drawAttack(layer, view, id, skill, t.position, ARO_COLOUR, "data-aro-line", depth);
    if (!targetsOf(skill).length) label(t.position, `ARO: ${String(skill.type).replace("_", " ")}`, "#ffa030", depth, baseRadius(t) + 1.1);
  }
  // Mines that went off in this Order (open): each one's Small Teardrop from its base, laid on
  // the trooper that set it off where it stood then, until the Order resolves.
  for (const trigger of order.mines ?? []) {
    const mine = (view.state?.deployables ?? []).find((/** @type {any} */ d) => d.id === trigger.mine);
    const shape = mine ? weapon(mine.weapon)?.template : null;
    const d = shape ? teardropPath(mine.position, MINE_RADIUS, trigger.at, shape) : null;
    if (!d) continue;
    layer.append(svg("path", { d, fill: "#ff3b3b", opacity: 0.22, stroke: "#ff3b3b", "stroke-width": 0.08, "data-mine-template": trigger.mine }));
    label(mine.position, `Mine: ${weaponName(mine.weapon)}`, "#ff3b3b", depth, 0.9);
  }
  // While an ARO window is open, ring the troopers that may react at this step.
  const step = view.window?.step;
  for (const id of Object.keys(order.eligible ?? {})) {
    const t = view.trooper(id);
    if (!t?.position || !order.window_open || (order.eligible_at_step?.[id] ?? step) !== step) continue;
    const r = baseRadius(t) + 0.6;
    layer.append(svg("circle", { cx: t.position[0], cy: t.position[1], r, fill: "none", stroke: "#ffa030", "stroke-width": 0.12, "stroke-dasharray": "0.3 0.2", "data-eligible": id }));
  }
}

/** One declared attack (or Discover): firing point, line to each target, template reach. */
function drawAttack(layer, view, attackerId, skill, from, colours, attribute, depth) {
  const colour = colours[skill.type];
  if (!colour || !from) return;
  const point = skill.target_point ?? null; // an ARO taken at a point of the active trooper's path
  const template = skill.type === "bs_attack" ? weapon(skill.weapon)?.template : null;
  if (skill.type === "bs_attack" && skill.firing_point) {
    layer.append(svg("circle", { cx: from[0], cy: from[1], r: 0.4, fill: "none", stroke: colour, "stroke-width": 0.12, "data-firing-point": attackerId }));
  }
  for (const targetId of targetsOf(skill)) {
    const target = view.trooper(targetId);
    const to = point ?? target?.position;
    if (!to) continue;
    const burst = skill.targets?.find((/** @type {any} */ x) => x.trooper === targetId)?.burst;
    layer.append(svg("line", { x1: from[0], y1: from[1], x2: to[0], y2: to[1], stroke: colour, "stroke-width": 0.16,
      "stroke-dasharray": skill.type === "comms_attack" ? "0.2 0.2" : skill.type === "discover" ? "0.6 0.3" : "none",
      [attribute]: `${attackerId}:${targetId}` }));
    const mid = [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2];
    const what = skill.type === "bs_attack" ? `${weaponName(skill.weapon)}${template ? "" : ` B${burst}`}`
      : skill.type === "cc_attack" ? `CC ${weaponName(skill.weapon)}`
      : skill.type === "comms_attack" ? `Hack: ${weaponName(skill.program)}` : "Discover";
    label(mid, what, colour, depth, 0);
  }
  if (template) drawTemplates(layer, view, attackerId, skill, from, template, colour);
}

/** Each teardrop of a Direct Template attack as the rules core lays it: its tip on the
 * shooter's base, aimed through the centre of the Main Target named for it (an ARO's: the
 * active trooper at its chosen point); docs/rules-decisions/geometry.md. */
function drawTemplates(layer, view, attackerId, skill, from, template, colour) {
  const radius = baseRadius(view.trooper(attackerId));
  for (const targetId of targetsOf(skill)) {
    const aim = skill.target_point ?? view.trooper(targetId)?.position;
    const d = aim ? teardropPath(from, radius, aim, template) : null;
    if (d) layer.append(svg("path", { d, fill: colour, opacity: 0.18, stroke: colour, "stroke-width": 0.06,
      "data-template": attackerId }));
  }
}

/** A text on the table at a table point (raised by `dy` inches), on a dark pill, screen-sized. */
function label([x, y], text, colour, depth, dy) {
  const [sx, sy] = onScreen([x, y]);
  overlay.push(fixedLabel(sx, sy - dy, pill(text, { colour, size: 10, edge: colour })));
}

/** The table's title and size above it. */
function renderTitle(state) {
  const node = document.getElementById("table-title");
  if (!node) return;
  const { width, depth, title } = state.table;
  node.textContent = `${title || "Table"} · ${width}" × ${depth}"`;
  node.title = state.table.id ? `Layout ${state.table.id}` : "";
}

/** The legend: terrain kinds on this table, what height means for Line of Fire, zones, marks. */
function renderLegend(state) {
  const box = document.getElementById("table-legend");
  if (!box || box.hidden) return;
  const kinds = [...new Set((state.table.terrain ?? []).map((p) => p.kind).filter((k) => k && TERRAIN_KINDS[k]))];
  const heights = [...new Set((state.table.terrain ?? []).map((p) => p.height ?? 0))].sort((a, b) => a - b);
  const zones = Object.entries(state.initiative?.zones ?? {});
  const swatch = (fill, extra = "") => `<span class="lg-swatch" style="background:${fill};${extra}"></span>`;
  const s2 = inches(silhouetteHeight(2)), s5 = inches(silhouetteHeight(5)), s1 = inches(silhouetteHeight(1));
  box.innerHTML = `
    <div class="lg-title">Legend <button type="button" class="lg-close" title="Close the legend">×</button></div>
    <div class="lg-section"><b>Terrain</b>${kinds.length ? kinds.map((k) => `<div>${swatch(terrainFill(k, 2.5))}${TERRAIN_KINDS[k].label}</div>`).join("")
      : `<div>${swatch(terrainFill(undefined, 2.5))}Scenery (kind not given)</div>`}
      <div class="lg-heights">${heights.map((h) => `<span>${swatch(terrainFill(kinds[0], h))}${inches(h)}</span>`).join(" ")}</div>
      <div class="lg-note">The number on a piece is its height in inches (darker, with a longer shadow: taller).
      Troopers are cylinders as tall as their Silhouette (S1 ${s1}, S2 ${s2}, S5 ${s5}): Line of Fire passes over a piece lower than both
      the trooper looking and its target, so a 1" wall hides no one standing behind it; a piece taller than them blocks it.
      The server decides: ask it with the Ruler.</div></div>
    ${(state.table.special_terrain ?? []).length ? `<div class="lg-section"><b>Special Terrain</b>
      <div>${swatch("#c9a94a", "opacity:.6")}Difficult ${swatch("#b0413e", "opacity:.6")}Very Difficult</div>
      <div class="lg-note">Entering one ends a trooper's move; inside, MOV is 1 inch less (Very Difficult: one move per Order),
      unless it has Terrain of the area's Type (tooltip). It blocks neither sight nor bases.</div></div>` : ""}
    ${state.mission ? `<div class="lg-section"><b>Mission: ${escapeText(state.mission.title)}</b>
      <div>${swatch("transparent", "border:2px dashed #f3d36b")}objective zone (its name inside)</div>
      <div>${swatch("#15171c", "border:2px solid #f3d36b;border-radius:50%")}mission marker (console, antenna): click it to read what it is</div>
      <div>${swatch("transparent", `border:3px solid ${SIDE_COLOUR.A.fill};border-radius:50%`)}activated by Player A ${swatch("transparent", `border:3px solid ${SIDE_COLOUR.B.fill};border-radius:50%`)}by Player B</div>
      <div class="lg-note">The objectives panel says what each objective needs and the OP each side has scored.</div></div>` : ""}
    <div class="lg-section"><b>Deployment zones</b>${zones.length ? zones.map(([side, zone]) => `<div>${swatch(sideColour(side).fill, "opacity:.5")}Player ${side}: ${zone}</div>`).join("")
      : "<div>Shown once the roll-off settles who deploys where.</div>"}</div>
    <div class="lg-section"><b>Troopers</b>
      <div>${swatch(SIDE_COLOUR.A.fill, "border-radius:50%")} Player A ${swatch(SIDE_COLOUR.B.fill, "border-radius:50%")} Player B</div>
      <div class="lg-note">Bases to scale by Silhouette (25 mm S1–S2, 40 mm S3/S5/S6, 55 mm S4/S7, 70 mm S8). The light fan beyond the base (with the nose) is its 180° front arc; the tooltip says where it faces.</div>
      <div>${swatch("transparent", "border:3px solid #ffd24a;border-radius:50%")}active (the Order in progress)</div>
      <div>${swatch("transparent", "border:2px solid #fff;border-radius:50%")}selected</div>
      <div>${swatch("transparent", "border:2px dashed #ffa030;border-radius:50%")}may react now (ARO window)</div>
      <div>${swatch("#1d1f24", `border:2px solid ${SIDE_COLOUR.B.fill}`)}Camouflage marker (what it is stays hidden)</div>
      <div>${swatch("#5a5a5a", "border-radius:50%")}<b>✕</b> casualty (Dead)</div></div>
    <div class="lg-section"><b>Tokens</b>${Object.values(STATE_TOKENS).map((t) => `<div><span class="lg-token" style="background:${t.fill};color:${t.text ?? "#fff"}">${t.code}</span>${t.name}</div>`).join("")}</div>
    <div class="lg-section"><b>Lines</b>
      <div><span class="lg-line" style="border-color:#f44;border-style:dashed"></span>Line of Fire of the selected trooper (the server's)</div>
      <div><span class="lg-line" style="border-color:#ff0;border-style:dotted"></span>its Zone of Control (8")</div>
      <div><span class="lg-line" style="border-color:#ffd24a"></span>path of the active trooper</div>
      <div><span class="lg-line" style="border-color:#ff3b3b"></span>attack declared / <span class="lg-line" style="border-color:#ffa030"></span>ARO</div>
      <div><span class="lg-line" style="border-color:#7fe8ff"></span>ruler (distance from the server)</div></div>`;
  box.querySelector(".lg-close")?.addEventListener("click", () => toggleLegend(false));
}

/** A text put in the legend's HTML. @param {string} text */
const escapeText = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function toggleLegend(show) {
  const box = document.getElementById("table-legend");
  const button = document.getElementById("legend-toggle");
  if (!box) return;
  box.hidden = show === undefined ? !box.hidden : !show;
  button?.setAttribute("aria-pressed", String(!box.hidden));
  if (!box.hidden && last) renderLegend(last[1].state);
}

function applyCamera(root) {
  const [width, depth] = root.__size;
  root.setAttribute("viewBox", `${camera.x} ${camera.y} ${(width + 2 * MARGIN) / camera.scale} ${(depth + 2 * MARGIN) / camera.scale}`);
}

/** Zoom by `factor` keeping the SVG point `p` where it is on screen. */
function zoomAt(root, p, factor) {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, camera.scale * factor));
  const actual = scale / camera.scale;
  camera.x = p.x - (p.x - camera.x) / actual;
  camera.y = p.y - (p.y - camera.y) / actual;
  camera.scale = scale;
  applyCamera(root);
  layoutOverlay(root);
}

function zoomCentre(root, factor) {
  const [width, depth] = root.__size;
  const w = (width + 2 * MARGIN) / camera.scale, h = (depth + 2 * MARGIN) / camera.scale;
  zoomAt(root, { x: camera.x + w / 2, y: camera.y + h / 2 }, factor);
}

/** Back to the whole table. */
export function resetZoom(root) {
  Object.assign(camera, { x: -MARGIN, y: -MARGIN, scale: 1 });
  applyCamera(root);
  layoutOverlay(root);
}

/** Wheel and +/- zoom, dragging pans, a click without drag reports a table point. */
function installPanZoom(root, width, depth) {
  let drag = null;
  const toTable = (e) => {
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(root.getScreenCTM().inverse());
    const [x, y] = root.__orient.toTable([p.x, p.y]); // North up or turned: the inverse of what was drawn
    return [Math.round(x * 100) / 100, Math.round(y * 100) / 100];
  };
  root.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(root.getScreenCTM().inverse());
    zoomAt(root, p, e.deltaY < 0 ? 1.2 : 1 / 1.2);
  }, { passive: false });
  root.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: false, cx: camera.x, cy: camera.y }; });
  root.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.hypot(dx, dy) > 4) drag.moved = true;
    if (drag.moved) {
      const k = root.getScreenCTM().a;
      camera.x = drag.cx - dx / k; camera.y = drag.cy - dy / k;
      applyCamera(root);
    }
  });
  root.addEventListener("pointerup", (e) => {
    const wasDrag = drag?.moved;
    drag = null;
    if (wasDrag) layoutOverlay(root);
    if (!wasDrag && e.target === root || (!wasDrag && !e.target.closest("[data-trooper]"))) root.__onClick(toTable(e));
  });
  new ResizeObserver(() => layoutOverlay(root)).observe(root);
  document.getElementById("zoom-in")?.addEventListener("click", () => zoomCentre(root, 1.4));
  document.getElementById("zoom-out")?.addEventListener("click", () => zoomCentre(root, 1 / 1.4));
  document.getElementById("zoom-reset")?.addEventListener("click", () => resetZoom(root));
  document.getElementById("legend-toggle")?.addEventListener("click", () => toggleLegend());
  installRuler(redrawTable, () => last?.[3]?.selected ?? null);
}

/** Roster hover: ring the trooper on the table. */
export function hoverTrooper(id, on) {
  const root = document.getElementById("table");
  root?.querySelector(`[data-trooper="${CSS.escape(id)}"]`)?.classList.toggle("hover", on);
}
