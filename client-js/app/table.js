// The table drawn to scale in SVG (1 user unit = 1 inch): terrain, deployment zones,
// troopers on silhouette bases with a facing wedge, Camouflage markers, and for the
// selected trooper its Zone of Control, movement range, Line of Fire to the enemies it sees
// (the server's `options.sight`) and the route being drawn.
import { baseDiameter, firstMov } from "./lib/geometry.js";

const NS = "http://www.w3.org/2000/svg";
const ZOC_RADIUS = 8; // inches (DIGEST: Zone of Control)
const camera = { x: 0, y: 0, scale: 1, ready: false };

function svg(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * @param {SVGSVGElement} root
 * @param {import("./lib/view.js").LocalView} view
 * @param {string|null} role
 * @param {{selected: string|null, route: number[][]}} ui
 * @param {Record<string, any> | null} options the seat's current options (null: none)
 * @param {(p: [number, number]) => void} onClick table point clicked (inches)
 * @param {(id: string) => void} onSelect trooper clicked
 */
export function drawTable(root, view, role, ui, options, onClick, onSelect) {
  const state = view.state;
  const { width, depth } = state.table;
  if (!camera.ready) { Object.assign(camera, { x: 0, y: 0, scale: 1, ready: true }); installPanZoom(root, width, depth, onClick); }
  root.__onClick = onClick;
  applyCamera(root, width, depth);
  root.replaceChildren();
  // y grows northwards on the table, downwards in SVG: flip once here.
  const g = svg("g", { transform: `translate(0 ${depth}) scale(1 -1)` });
  root.append(g);
  g.append(svg("rect", { x: 0, y: 0, width, height: depth, fill: "#4d6b4d", stroke: "#ddd", "stroke-width": 0.1 }));
  for (const [name, z] of Object.entries(state.deployment_zones ?? {})) {
    g.append(svg("rect", { x: z.x0, y: z.y0, width: z.x1 - z.x0, height: z.y1 - z.y0, fill: name === "south" ? "#3366cc" : "#cc6633", opacity: 0.18, "data-zone": name }));
  }
  for (const piece of state.table.terrain ?? []) {
    g.append(svg("polygon", { points: piece.polygon.map((p) => p.join(",")).join(" "), fill: "#6b5a45", stroke: "#222", "stroke-width": 0.1, "data-terrain": piece.id }));
  }
  const selected = ui.selected ? view.trooper(ui.selected) : null;
  if (selected?.position) {
    const [x, y] = selected.position;
    g.append(svg("circle", { cx: x, cy: y, r: ZOC_RADIUS, fill: "none", stroke: "#ff0", "stroke-dasharray": "0.5 0.5", "stroke-width": 0.08, id: "zoc" }));
    const mov = firstMov(selected.profile);
    if (mov) g.append(svg("circle", { cx: x, cy: y, r: mov, fill: "#8f8", opacity: 0.12, id: "move-range" }));
    for (const seen of options?.sight?.[selected.id] ?? []) {
      const target = view.trooper(seen);
      if (!target?.position) continue;
      g.append(svg("line", { x1: x, y1: y, x2: target.position[0], y2: target.position[1], stroke: "#f44",
        "stroke-width": 0.1, "stroke-dasharray": "0.4 0.2", "data-lof": seen }));
    }
    if (ui.route.length) {
      g.append(svg("polyline", { points: [selected.position, ...ui.route].map((p) => p.join(",")).join(" "), fill: "none", stroke: "#fff", "stroke-width": 0.12, id: "route" }));
    }
  }
  for (const t of state.troopers) {
    if (!t.position) continue; // not deployed (or an opponent's trooper in Hidden Deployment)
    const [x, y] = t.position;
    const r = baseDiameter(t.silhouette ?? t.profile?.silhouette ?? 2) / 2;
    const group = svg("g", { "data-trooper": t.id, cursor: "pointer" });
    const colour = t.side === "A" ? "#48f" : "#f84";
    if (t.marker) {
      group.append(svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: "#222", stroke: colour, "stroke-width": 0.15 }));
    } else {
      group.append(svg("circle", { cx: x, cy: y, r, fill: t.condition && t.condition !== "normal" ? "#555" : colour, stroke: t.id === ui.selected ? "#ff0" : "#000", "stroke-width": 0.1,
        opacity: t.hidden ? 0.45 : 1, "stroke-dasharray": t.hidden ? "0.3 0.2" : "none" }));
      // facing: the front 180 degrees arc (facings are degrees, 0 = +x, counter-clockwise)
      const f = ((t.facing ?? 0) * Math.PI) / 180;
      const a0 = f - Math.PI / 2, a1 = f + Math.PI / 2;
      group.append(svg("path", { d: `M ${x + r * Math.cos(a0)} ${y + r * Math.sin(a0)} A ${r} ${r} 0 0 1 ${x + r * Math.cos(a1)} ${y + r * Math.sin(a1)} Z`, fill: "#fff", opacity: 0.45 }));
      group.append(svg("line", { x1: x, y1: y, x2: x + r * 1.4 * Math.cos(f), y2: y + r * 1.4 * Math.sin(f), stroke: "#fff", "stroke-width": 0.08 }));
    }
    const label = svg("text", { x, y: -y + r + 0.6, "font-size": 0.6, fill: "#fff", "text-anchor": "middle", transform: "scale(1 -1)" });
    label.textContent = t.marker ? `CAMO ${t.id}` : t.hidden ? `${t.id} (hidden)` : t.id;
    group.append(label);
    group.addEventListener("click", (e) => { e.stopPropagation(); onSelect(t.id); });
    g.append(group);
  }
}

function applyCamera(root, width, depth) {
  const w = width / camera.scale, h = depth / camera.scale;
  root.setAttribute("viewBox", `${camera.x - 1} ${camera.y - 1} ${w + 2} ${h + 2}`);
}

/** Wheel zooms around the pointer, dragging pans, a click without drag reports a table point. */
function installPanZoom(root, width, depth) {
  let drag = null;
  const toTable = (e) => {
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(root.getScreenCTM().inverse());
    return [Math.round(p.x * 100) / 100, Math.round((depth - p.y) * 100) / 100];
  };
  root.addEventListener("wheel", (e) => {
    e.preventDefault();
    const before = new DOMPoint(e.clientX, e.clientY).matrixTransform(root.getScreenCTM().inverse());
    camera.scale = Math.min(8, Math.max(0.5, camera.scale * (e.deltaY < 0 ? 1.2 : 1 / 1.2)));
    camera.x = before.x - (before.x - camera.x) * (camera.scale / (camera.scale * (e.deltaY < 0 ? 1.2 : 1 / 1.2)));
    applyCamera(root, width, depth);
  }, { passive: false });
  root.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: false, cx: camera.x, cy: camera.y }; });
  root.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.hypot(dx, dy) > 4) drag.moved = true;
    if (drag.moved) {
      const k = root.getScreenCTM().a;
      camera.x = drag.cx - dx / k; camera.y = drag.cy - dy / k;
      applyCamera(root, width, depth);
    }
  });
  root.addEventListener("pointerup", (e) => {
    const wasDrag = drag?.moved;
    drag = null;
    if (!wasDrag && e.target === root || (!wasDrag && !e.target.closest("[data-trooper]"))) root.__onClick(toTable(e));
  });
}
