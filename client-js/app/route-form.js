// The route form of the order panel (order-panel.js): a movement skill's route(s) drawn by
// clicks on the table, each activated trooper's length against its MOV (or Jump) allowance,
// the end facing (along the last segment, a compass direction said from the viewer's edge, or
// towards an enemy), the movement skills to declare and "Clear route". The routes, the skill
// and the facing being chosen are shared UI state (ui-state.js): the table draws them.
import { routeLength } from "./lib/geometry.js";
import { facingWords, ownZone } from "./seat-view.js";
import { el } from "./dom.js";
import { followRoute } from "./fireteam.js";

const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/**
 * @param {object} parts
 * @param {import("./lib/connection.js").GameConnection} parts.conn
 * @param {import("./ui-state.js").UiState} parts.ui
 * @param {any} parts.names the troopers' names as the table shows them (history.js TrooperNames)
 * @param {() => void} parts.render draw the whole page again
 * @param {(skill: any, type: string, routes: Record<string, any>) => void} parts.declare the order panel's declaration
 * @param {(id: string) => HTMLElement} parts.named a trooper's name as the table shows it
 * @param {(id: string, onclick: () => void, attrs?: Record<string, any>) => HTMLElement} parts.trooperButton
 */
export function createRouteForm({ conn, ui, names, render, declare, named, trooperButton }) {
  /** The viewer's own Deployment Zone (facings are said relative to it), null for a spectator or before the roll-off. */
  const viewerZone = () => ownZone(conn.view.state, conn.role);

  /** Movement allowance of the next movement skill, as the rules core counts it. */
  function allowance(t, skillsSoFar, skill) {
    // options say it when an Order is open (Special Terrain included): the rules' own figure.
    const skills = conn.currentOptions()?.skills;
    const offered = (t.id === conn.view.state.order?.trooper ? skills : skills?.peripherals?.[t.id])?.allowances?.[skill];
    if (typeof offered === "number") return offered;
    const mov = t.profile?.mov ?? [0, 0];
    if (skill === "jump" && !t.profile?.super_jump) return mov[0] + 2; // Super-Jump: a MOV value, as a Move
    const movedBefore = skillsSoFar.some((s) => Array.isArray(s.route) && s.type !== "dodge");
    return movedBefore ? mov[1] : mov[0];
  }

  const COMPASS = [["east", 0], ["north-east", 45], ["north", 90], ["north-west", 135], ["west", 180], ["south-west", 225], ["south", 270], ["south-east", 315]];

  /** A direction's angle from the viewer's enemy edge (its facing choices start there, turning left). @param {number} deg */
  function relativeTo(deg) {
    const zone = viewerZone();
    return zone ? (((deg - (zone === "north" ? 270 : 90)) % 360) + 360) % 360 : 0;
  }

  /** The declared end facing (degrees) for a route, or undefined: along the last segment. */
  function endFacing(route) {
    if (ui.facing === "auto" || !route.length) return undefined;
    if (ui.facing.startsWith("enemy:")) {
      const enemy = conn.view.trooper(ui.facing.slice(6));
      const end = route[route.length - 1];
      if (!enemy?.position) return undefined;
      return ((Math.atan2(enemy.position[1] - end[1], enemy.position[0] - end[0]) * 180) / Math.PI + 360) % 360;
    }
    return Number(ui.facing);
  }

  /** In a Fireteam's Order (`skills.fireteam`): each member whose route the player has not drawn
   * follows the leader's route, keeping its place in the team (fireteam.js followRoute). */
  function follow() {
    const order = conn.view.state.order;
    if (!order || !conn.currentOptions()?.skills?.fireteam) return;
    const leader = conn.view.trooper(order.trooper);
    for (const id of order.peripherals ?? []) {
      const member = conn.view.trooper(id);
      if (ui.handRoutes.has(id) || !leader?.position || !member?.position) continue;
      ui.routes[id] = followRoute(leader.position, ui.routes[order.trooper] ?? [], member.position);
    }
  }

  /** A table click drawing the route of `id`: a Fireteam member's first click starts its own route. */
  function addPoint(id, point) {
    const order = conn.view.state.order;
    if (conn.currentOptions()?.skills?.fireteam && id !== order?.trooper && !ui.handRoutes.has(id)) {
      ui.handRoutes.add(id);
      ui.routes[id] = [];
    }
    (ui.routes[id] ??= []).push(point);
    follow();
  }

  /** The route(s) being drawn, their length against MOV, the end facing and the movement skills. */
  function renderRouteForm(panel, order, activated, routeSkills) {
    const fireteam = conn.currentOptions()?.skills?.fireteam === true;
    follow();
    if (fireteam) {
      panel.append(el("div", { class: "hint", id: "ft-route-hint" }, "Fireteam: draw the leader's route; each member follows it, "
        + "keeping its place in the team, unless you pick the member and draw its own. Every member must end in the leader's Zone of Control. "
        + "Any other skill: the leader alone, the members Idle."));
    }
    if (!routeSkills.includes(ui.routeSkill)) ui.routeSkill = routeSkills[0];
    if (!activated.includes(ui.routeFor ?? "")) ui.routeFor = activated[0];
    if (activated.length > 1) {
      panel.append(el("div", {}, "Draw the route of: ", ...activated.map((id) =>
        trooperButton(id, () => { ui.routeFor = id; render(); }, { "data-route-for": id, class: ui.routeFor === id ? "chosen" : "" }))));
    }
    let tooLong = false;
    const peripheralSkills = conn.currentOptions()?.skills?.peripherals ?? {};
    for (const id of activated) {
      const who = conn.view.trooper(id);
      if (peripheralSkills[id]?.idle_for?.includes(ui.routeSkill)) { // DIGEST 3.4: it performs Idle instead
        panel.append(el("div", { id: `route-length-${id}`, class: "idle-note" }, named(id), `: its state forbids it to ${ui.routeSkill.replace("_", " ")}: Idle, stays put`));
        continue;
      }
      const soFar = id === order.trooper ? order.skills : order.peripheral_skills?.[id] ?? [];
      const max = allowance(who, soFar, ui.routeSkill);
      const route = ui.routes[id] ?? [];
      const length = routeLength(who.position, route);
      tooLong ||= length > max + 1e-6;
      panel.append(el("div", { id: id === order.trooper ? "route-length" : `route-length-${id}`, class: length > max + 1e-6 ? "over" : "" },
        ...(activated.length > 1 ? [named(id), ": "] : []),
        `Route ${length.toFixed(2)}" of ${ui.routeSkill === "jump" ? "Jump" : "MOV"} ${max}" (${route.length} point${route.length === 1 ? "" : "s"}${route.length ? "" : activated.length > 1 && id !== ui.routeFor ? ": stays put" : ": click the table"})`));
    }
    // Enemies to face: the living ones on the table (a casualty is no one to turn to).
    const enemies = conn.view.state.troopers.filter((x) => x.side !== conn.role && x.position && x.condition !== "dead");
    const facing = el("select", { id: "end-facing", onchange: (e) => { ui.facing = e.target.value; } },
      el("option", { value: "auto", selected: ui.facing === "auto" }, "along the last segment"),
      ...COMPASS.map(([, deg]) => Number(deg)).sort((a, b) => relativeTo(a) - relativeTo(b)).map((deg) => el("option", { value: String(deg), selected: ui.facing === String(deg) }, facingWords(deg, viewerZone()))),
      ...enemies.map((x) => el("option", { value: `enemy:${x.id}`, selected: ui.facing === `enemy:${x.id}` }, `towards ${names.label(x.id).text}`)));
    panel.append(el("div", {}, "End facing: ", facing));
    const row = el("div", {});
    const drawn = activated.some((id) => (ui.routes[id] ?? []).length);
    const why = !drawn ? "Draw a route first: click points on the table." : tooLong ? "A route is longer than its movement allowance: clear it and draw a shorter one." : "";
    for (const skill of routeSkills) {
      row.append(button(skill.replace("_", " "), () => {
        ui.routeSkill = skill;
        const routeOf = (id) => {
          const route = [conn.view.trooper(id).position, ...(ui.routes[id] ?? [])];
          const facing = endFacing(route.slice(1));
          return facing === undefined ? { type: skill, route } : { type: skill, route, facing };
        };
        declare(routeOf(order.trooper), skill, Object.fromEntries(activated.slice(1).map((id) => [id, routeOf(id)])));
      }, { "data-skill": skill, disabled: Boolean(why), title: why }));
    }
    row.append(button("Clear route", () => {
      ui.routes[ui.routeFor] = [];
      if (fireteam && ui.routeFor !== order.trooper) ui.handRoutes.add(ui.routeFor); // it stays put
      follow();
      render();
    }, { id: "clear-route" }));
    panel.append(row);
    if (why) panel.append(el("div", { class: "why", id: "route-why" }, why));
  }

  return { render: renderRouteForm, addPoint };
}
