// The table drawn to scale in SVG (1 user unit = 1 inch): terrain, deployment zones,
// troopers on silhouette bases with a facing wedge, Camouflage markers, and for the
// selected trooper its Zone of Control, movement range, Line of Fire to the enemies it sees
// (the server's `options.sight`) and the routes being drawn; for everyone, the Order in
// progress: the routes its troopers moved, the firing points and target lines of the attacks
// declared by them and by the AROs, and the area of template weapons, until it is resolved.
import { baseDiameter, declaredFrom, firstMov, TEMPLATE_LENGTH } from "./lib/geometry.js";
import { weapon, weaponName } from "./catalogue.js";

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
 * @param {{selected: string|null, routes: Record<string, number[][]>, firingPoint: number[]|null, facingTo: number[]|null}} ui
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
  }
  for (const [id, route] of Object.entries(ui.routes ?? {})) {
    const t = view.trooper(id);
    if (!t?.position || !route.length) continue;
    g.append(svg("polyline", { points: [t.position, ...route].map((p) => p.join(",")).join(" "), fill: "none", stroke: "#fff",
      "stroke-width": 0.12, "stroke-dasharray": "0.5 0.25", id: id === ui.selected ? "route" : `route-${id}`, "data-route": id }));
  }
  if (ui.firingPoint) {
    g.append(svg("circle", { cx: ui.firingPoint[0], cy: ui.firingPoint[1], r: 0.45, fill: "none", stroke: "#ff0", "stroke-width": 0.12, id: "chosen-firing-point" }));
  }
  if (state.order) drawOrder(g, view, state.order);
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
function drawOrder(g, view, order) {
  const layer = svg("g", { id: "active-order" });
  g.append(layer);
  const activated = [order.trooper, ...(order.peripherals ?? [])];
  for (const id of activated) {
    const path = id === order.trooper ? order.path : order.peripheral_paths?.[id];
    const skills = id === order.trooper ? order.skills : order.peripheral_skills?.[id] ?? [];
    if (!path?.length) continue;
    const t = view.trooper(id);
    const r = baseDiameter(t?.silhouette ?? t?.profile?.silhouette ?? 2) / 2;
    layer.append(svg("circle", { cx: path[0][0], cy: path[0][1], r, fill: "none", stroke: "#ffd24a", "stroke-width": 0.08, "stroke-dasharray": "0.25 0.15", opacity: 0.8 }));
    if (path.length > 1) {
      layer.append(svg("polyline", { points: path.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#ffd24a", "stroke-width": 0.18, opacity: 0.9, "data-order-path": id }));
      for (const p of path.slice(1, -1)) layer.append(svg("circle", { cx: p[0], cy: p[1], r: 0.15, fill: "#ffd24a" }));
    }
    const from = declaredFrom(path[0], skills);
    skills.forEach((skill, i) => drawAttack(layer, view, id, skill, from[i], SKILL_COLOUR, "data-attack-line"));
  }
  for (const [id, skill] of Object.entries(order.aros ?? {})) {
    const t = view.trooper(id);
    if (!t?.position) continue;
    drawAttack(layer, view, id, skill, t.position, ARO_COLOUR, "data-aro-line");
    if (!targetsOf(skill).length) label(layer, t.position, `ARO: ${skill.type}`, "#ffa030", 1.2);
  }
  // While an ARO window is open, ring the troopers that may react at this step.
  const step = view.window?.step;
  for (const id of Object.keys(order.eligible ?? {})) {
    const t = view.trooper(id);
    if (!t?.position || !order.window_open || (order.eligible_at_step?.[id] ?? step) !== step) continue;
    const r = baseDiameter(t.silhouette ?? t.profile?.silhouette ?? 2) / 2 + 0.35;
    layer.append(svg("circle", { cx: t.position[0], cy: t.position[1], r, fill: "none", stroke: "#ffa030", "stroke-width": 0.1, "stroke-dasharray": "0.3 0.2", "data-eligible": id }));
  }
}

/** One declared attack (or Discover): firing point, line to each target, template reach. */
function drawAttack(layer, view, attackerId, skill, from, colours, attribute) {
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
    label(layer, mid, what, colour, 0);
  }
  if (template && TEMPLATE_LENGTH[template]) {
    const length = TEMPLATE_LENGTH[template];
    const angles = targetsOf(skill).map((id) => view.trooper(id)?.position).filter(Boolean)
      .map((p) => Math.atan2(p[1] - from[1], p[0] - from[0]));
    if (angles.length) {
      const lo = Math.min(...angles) - 0.2, hi = Math.max(...angles) + 0.2;
      const at = (a) => `${from[0] + length * Math.cos(a)} ${from[1] + length * Math.sin(a)}`;
      layer.append(svg("path", { d: `M ${from[0]} ${from[1]} L ${at(lo)} A ${length} ${length} 0 0 1 ${at(hi)} Z`,
        fill: colour, opacity: 0.18, stroke: colour, "stroke-width": 0.06, "data-template": attackerId }));
    }
  }
}

/** Text on the (y-flipped) table. */
function label(layer, [x, y], text, colour, dy) {
  const node = svg("text", { x, y: -y - dy, "font-size": 0.7, fill: colour, "text-anchor": "middle", transform: "scale(1 -1)",
    stroke: "#000", "stroke-width": 0.04, "paint-order": "stroke" });
  node.textContent = text;
  layer.append(node);
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
