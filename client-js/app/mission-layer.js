// The mission on the table (table.js draws it under the troopers): each objective zone as a
// gold dashed rectangle with its name, each marker (console, antenna) as a token the size of
// the rules core's markers (a Silhouette 2 base: missions/consoles.py) with its name, and per
// side that activated it a ring and a token in that side's colour ("A", "B"). A click on a
// marker says what it is (the objectives panel's marker line); it is still a point of the
// table too, so a route may end on it (a marker blocks nothing: base contact is what counts).
import { activatedBy, markerKindWords, markerText, missionOf } from "./mission-words.js";

const NS = "http://www.w3.org/2000/svg";
/** A marker's base: Silhouette 2, 25 mm (state.MARKER_SILHOUETTE). */
export const MARKER_RADIUS = 12.5 / 25.4;
const GOLD = "#f3d36b";

/** @param {string} tag @param {Record<string, any>} attrs @param {string} [text] */
function svg(tag, attrs = {}, text = undefined) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @typedef {object} LayerParts
 * @property {(p: number[]) => number[]} onScreen a table point's SVG point (labels are drawn unturned there)
 * @property {(x: number, y: number, node: SVGElement) => void} place put a screen-sized label centred at an SVG point
 * @property {(text: string, options?: Record<string, any>) => SVGElement} pill table.js's label pill
 * @property {Record<string, {fill: string, light: string, dark: string}>} colours the sides' colours
 * @property {(id: string) => void} [onMarker] a marker was clicked
 */

/**
 * Draw the mission's zones and markers into the board group `g` (inches, table coordinates).
 * Nothing without a mission.
 * @param {SVGGElement} g @param {any} state the view's state @param {LayerParts} parts
 */
export function drawMissionLayer(g, state, parts) {
  const mission = missionOf(state);
  if (!mission) return;
  const layer = svg("g", { id: "mission-layer" });
  g.append(layer);
  const zoneLabels = (mission.zones ?? []).map((/** @type {any} */ zone) => drawZone(layer, mission, zone, parts));
  for (const marker of mission.markers ?? []) drawMarker(layer, state, marker, parts, zoneLabels);
}

/** @param {SVGGElement} layer @param {any} mission @param {any} zone @param {LayerParts} parts @returns {number[]} where its label is (SVG) */
function drawZone(layer, mission, zone, parts) {
  const node = svg("rect", { x: zone.x0, y: zone.y0, width: zone.x1 - zone.x0, height: zone.y1 - zone.y0,
    fill: GOLD, "fill-opacity": 0.08, stroke: GOLD, "stroke-width": 0.14, "stroke-dasharray": "0.8 0.35", "data-mission-zone": zone.id,
    "pointer-events": "none" });
  const objectives = (mission.objectives ?? []).filter((/** @type {any} */ o) => (o.zones ?? []).includes(zone.id));
  node.append(svg("title", {}, `${zone.name}: an objective zone${objectives.length ? `. ${objectives.map((/** @type {any} */ o) => o.text).join(" ")}` : ""}`));
  layer.append(node);
  // Its name inside the zone, by its top edge as the viewer sees the table.
  const [ax, ay] = parts.onScreen([zone.x0, zone.y0]);
  const [bx, by] = parts.onScreen([zone.x1, zone.y1]);
  const at = [(ax + bx) / 2, Math.min(ay, by) + 0.7];
  parts.place(at[0], at[1], parts.pill(zone.name, { colour: GOLD, size: 10, background: "rgba(20,18,8,.6)",
    edge: GOLD, attrs: { "data-mission-zone-label": zone.id } }));
  return at;
}

/** @param {SVGGElement} layer @param {any} state @param {any} marker @param {LayerParts} parts @param {number[][]} zoneLabels where the zones' names are (SVG) */
function drawMarker(layer, state, marker, parts, zoneLabels) {
  const { x, y } = marker;
  const by = activatedBy(state, marker.id);
  const group = svg("g", { "data-mission-marker": marker.id, "data-activated-by": by.join(""), class: "mission-marker", cursor: "help" });
  group.append(svg("title", {}, markerText(state, marker.id)));
  // A ring per side that activated it, A inside, B outside.
  by.forEach((side, i) => {
    group.append(svg("circle", { cx: x, cy: y, r: MARKER_RADIUS + 0.2 + i * 0.22, fill: "none", stroke: parts.colours[side]?.fill ?? "#fff",
      "stroke-width": 0.18, "data-marker-activated": side }));
  });
  group.append(svg("circle", { cx: x, cy: y, r: MARKER_RADIUS, fill: "#15171c", stroke: GOLD, "stroke-width": 0.12 }));
  // The kind's sign: a console's screen, an antenna's mast, else a diamond.
  const s = MARKER_RADIUS * 0.55;
  if (marker.kind === "console") {
    group.append(svg("rect", { x: x - s, y: y - s * 0.7, width: 2 * s, height: 1.4 * s, rx: 0.05, fill: "none", stroke: GOLD, "stroke-width": 0.07 }));
    group.append(svg("line", { x1: x - s * 0.6, y1: y, x2: x + s * 0.6, y2: y, stroke: GOLD, "stroke-width": 0.06 }));
  } else if (marker.kind === "antenna") {
    group.append(svg("path", { d: `M ${x} ${y - s} L ${x} ${y + s} M ${x - s * 0.7} ${y + s * 0.4} L ${x} ${y + s} L ${x + s * 0.7} ${y + s * 0.4}`,
      fill: "none", stroke: GOLD, "stroke-width": 0.07 }));
  } else {
    group.append(svg("path", { d: `M ${x - s} ${y} L ${x} ${y + s} L ${x + s} ${y} L ${x} ${y - s} Z`, fill: GOLD, opacity: 0.8 }));
  }
  group.addEventListener("click", () => parts.onMarker?.(marker.id));
  layer.append(group);
  // Its name above it (as the viewer sees the table: a trooper's label goes below its base
  // first, and a trooper working the marker stands on or beside it), below it where a zone's
  // name is just above; with a token per side that activated it.
  const [sx, sy] = parts.onScreen([x, y]);
  const above = sy - MARKER_RADIUS - 1.1;
  const crowded = zoneLabels.some(([zx, zy]) => Math.abs(zx - sx) < 7 && Math.abs(zy - above) < 1.4);
  const tokens = by.map((side) => ({ code: side, fill: parts.colours[side]?.fill ?? "#999" }));
  parts.place(sx, crowded ? sy + MARKER_RADIUS + 1.1 : above, parts.pill(marker.name, { colour: GOLD, size: 10, background: "rgba(20,18,8,.72)",
    edge: by.length ? "#fff" : GOLD, tokens, attrs: { "data-mission-marker-label": marker.id, "data-marker-kind": markerKindWords(marker.kind) } }));
}
