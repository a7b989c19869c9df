// The browser app: lobby, table, orders, AROs, results. Plain ES module over the library.
import { GameConnection, websocketUrl, windowRemainingMs } from "./lib/connection.js";
import { routeLength, baseDiameter, orderMov, firstMov } from "./lib/geometry.js";
import { drawTable } from "./table.js";
import { describeEvent, renderOutcome } from "./describe.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const params = new URLSearchParams(location.hash.slice(1));

/** UI state that is not game state. */
const ui = { selected: /** @type {string|null} */ (null), route: /** @type {number[][]} */ ([]), deployIndex: 0 };
/** @type {GameConnection} */
let conn;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, String(v));
  }
  node.append(...children);
  return node;
}
const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

async function send(body) {
  $("message").textContent = "";
  const answer = await conn.send(body);
  if (!answer.ok) $("message").textContent = `Rejected (${answer.code}): ${answer.message}`;
  return answer;
}

// --- lobby -------------------------------------------------------------------------------
$("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target));
  const response = await fetch("/api/rooms", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: form.get("ruleset"), aro_window_s: Number(form.get("aro_window_s")) }) });
  const room = await response.json();
  if (!response.ok) { alert(room.message); return; }
  const abs = (/** @type {string} */ link) => new URL(link, location.href).href;
  /** @type {HTMLInputElement} */ ($("link-b")).value = abs(room.seats.B.link);
  /** @type {HTMLInputElement} */ ($("link-spectator")).value = abs(room.spectator_link);
  $("link-a").setAttribute("href", room.seats.A.link);
  $("links").hidden = false;
});

// --- game --------------------------------------------------------------------------------
function startGame(room, token) {
  $("lobby").hidden = true;
  $("game").hidden = false;
  conn = new GameConnection({ url: websocketUrl(location), room, token, backoff: { initialMs: 200, maxMs: 4000 } });
  conn.addEventListener("change", render);
  conn.addEventListener("status", () => { $("banner").hidden = conn.status !== "reconnecting"; });
  conn.addEventListener("fatal", (e) => { $("banner").hidden = false; $("banner").textContent = `Cannot join: close code ${e.detail.code}`; });
  conn.addEventListener("events", (e) => {
    for (const { version, event } of e.detail) {
      $("log").append(el("li", { value: version }, event ? describeEvent(event) : "(hidden event)"));
      if (event?.type === "order_resolved") $("results").prepend(renderOutcome(event.outcome, conn.view));
    }
    $("log").scrollTop = $("log").scrollHeight;
  });
  conn.connect();
  /** @type {any} */ (window).referee = conn; // for the browser tests and the curious
  setInterval(renderCountdown, 250);
}

function render() {
  const view = conn.view;
  const state = view.state;
  $("role").textContent = conn.role === "spectator" ? "Spectator" : `Player ${conn.role ?? "?"}`;
  $("version").textContent = String(view.version);
  $("seats").textContent = Object.entries(view.seats).map(([s, v]) => `${s}:${v}`).join(" ");
  if (!state) return;
  $("phase").textContent = `phase ${state.phase}`;
  $("round").textContent = `round ${state.round} turn ${state.turn} active ${state.active ?? "-"}`;
  drawTable(/** @type {any} */ ($("table")), view, conn.role, ui, onTableClick, (id) => { ui.selected = id; ui.route = []; render(); });
  renderSetup(state);
  renderOrders(state);
  renderSelection(state);
  renderOrderPanel(state);
  renderAroPanel(state);
}

const mine = (state) => state.troopers.filter((t) => t.side === conn.role);

function renderSetup(state) {
  const panel = $("setup-panel");
  panel.replaceChildren();
  $("army-picker").hidden = !(state.phase === "army_selection" && conn.role !== "spectator" && !state.armies?.[conn.role]);
  if (!$("army-picker").hidden) renderArmyPicker();
  if (conn.role === "spectator") return;
  if (state.phase === "initiative") {
    const ini = state.initiative ?? {};
    panel.append(el("p", {}, `Initiative roll-off won by ${ini.winner ?? "?"}`));
    if (ini.winner === conn.role && !ini.winner_kept) {
      panel.append(button("Keep Initiative, play first", () => send({ type: "choose_initiative", keep: "initiative", first: true }), { id: "keep-initiative" }),
        button("Keep Deployment, deploy first in south", () => send({ type: "choose_initiative", keep: "deployment", first: true, zone: "south" })));
    } else if (ini.winner && ini.winner !== conn.role && ini.winner_kept) {
      const zone = ini.winner_kept === "initiative";
      panel.append(button(zone ? "Deploy first, north zone" : "Play first", () => send({ type: "choose_remaining", first: true, zone: zone ? "north" : null }), { id: "choose-remaining" }));
    }
  }
  if (state.phase === "deployment") {
    const waiting = mine(state).filter((t) => !t.position);
    panel.append(el("p", {}, `Deployment step ${state.deployment?.step}. Select a trooper, click in your zone. Undeployed: ${waiting.length}`));
    for (const t of waiting) panel.append(button(`${t.profile?.name ?? t.id}`, () => { ui.selected = t.id; render(); }, { "data-deploy": t.id }));
    panel.append(el("br"), button("End deployment step", () => send({ type: "end_deployment_step" }), { id: "end-deployment" }));
  }
  if (state.phase === "orders" && state.active === conn.role && !state.order) {
    panel.append(button("End turn", () => send({ type: "end_turn" }), { id: "end-turn" }));
  }
}

let armiesRendered = false;
async function renderArmyPicker() {
  if (armiesRendered) return;
  armiesRendered = true;
  const armies = await (await fetch("armies.json")).json();
  const format = conn.view.state.ruleset === "codeone" ? "codeone" : "standard";
  $("army-list").replaceChildren(...armies.filter((a) => (a.format ?? "standard") === format || true).map((a) =>
    el("div", {}, button(`${a.name} (${a.faction}, ${a.points} pts, ${a.format})`, () => send({ type: "choose_army", army: a.id }), { "data-army": a.id }))));
}

function renderOrders(state) {
  const o = state.orders ?? {};
  const pools = Object.entries(o.pools ?? {}).map(([g, n]) => `group ${g}: ${n}`).join(", ");
  $("orders").textContent = state.phase === "orders" || state.phase === "tactical"
    ? `Orders (${state.active}) - regular ${pools || "-"}; irregular ${(o.irregular ?? []).length}; tactical ${(o.tactical ?? []).length}; lieutenant ${o.lieutenant ? "yes" : "no"}; impetuous ${(o.impetuous ?? []).length}; spent in game ${state.orders_spent ?? 0}`
    : "";
}

function renderSelection(state) {
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  const box = $("selection");
  box.replaceChildren();
  if (!t) return;
  const p = t.profile;
  box.append(el("div", { class: "panel" }, t.marker ? `${t.id}: Camouflage marker` :
    `${t.id}: ${p?.name ?? "?"} MOV ${p?.mov?.join("-")} CC ${p?.cc} BS ${p?.bs} PH ${p?.ph} WIP ${p?.wip} ARM ${p?.arm} BTS ${p?.bts} W ${p?.vita} S${p?.silhouette} | wounds ${t.wounds ?? 0} ${t.condition ?? ""}${t.prone ? " prone" : ""} | ${(p?.weapons ?? []).join(", ")}`));
}

function orderTypesFor(state, t) {
  const o = state.orders ?? {};
  const types = [];
  if ((o.pools?.[String(t.entry?.combat_group ?? t.combat_group)] ?? 0) > 0) types.push("regular");
  for (const kind of ["irregular", "tactical", "impetuous"]) if ((o[kind] ?? []).includes(t.id)) types.push(kind);
  if (o.lieutenant === t.id) types.push("lieutenant");
  return types;
}

function renderOrderPanel(state) {
  const panel = $("order-panel");
  panel.replaceChildren();
  const myTurn = state.phase === "orders" && state.active === conn.role;
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  panel.hidden = !myTurn || !t || t.side !== conn.role;
  if (panel.hidden) return;
  panel.className = "panel";
  if (!state.order) {
    panel.append(el("div", {}, "Spend an order on this trooper:"));
    for (const kind of orderTypesFor(state, t)) panel.append(button(kind, () => send({ type: "activate", trooper: t.id, order: kind }), { "data-order": kind }));
    return;
  }
  if (state.order.trooper !== t.id || conn.view.window) return;
  const declared = state.order.skills?.length ?? 0;
  panel.append(el("div", {}, `Order ${state.order.number} (${state.order.order_type}) - declare skill ${declared + 1}`));
  const mov = declared === 0 ? firstMov(t.profile) : (t.profile?.mov?.[1] ?? 0);
  const length = routeLength(t.position, ui.route);
  panel.append(el("div", { id: "route-length" }, `Route: ${length.toFixed(2)}" of MOV ${mov}" (${ui.route.length} points; click the table to add)`),
    button("Move", () => declare({ type: "move", route: ui.route }), { id: "declare-move" }),
    button("Clear route", () => { ui.route = []; render(); }));
  const weapons = t.profile?.weapons ?? [];
  const enemies = state.troopers.filter((x) => x.side !== conn.role && x.position);
  const weapon = el("select", { id: "weapon" }, ...weapons.map((w) => el("option", { value: w }, w)));
  const target = el("select", { id: "target" }, ...enemies.map((x) => el("option", { value: x.id }, `${x.id} ${x.marker ? "(marker)" : x.profile?.name ?? ""}`)));
  const burst = el("input", { id: "burst", type: "number", value: 1, min: 1, max: 5, style: "width:3em" });
  panel.append(el("div", {}, "Attack: ", weapon, target, "burst ", burst,
    button("BS Attack", () => declare({ type: "bs_attack", weapon: weapon.value, targets: [{ trooper: target.value, burst: Number(burst.value) }] }), { id: "declare-bs" }),
    button("CC Attack", () => declare({ type: "cc_attack", weapon: weapon.value, target: target.value })),
    button("Discover", () => declare({ type: "discover", target: target.value }))));
  panel.append(el("div", {}, button("Dodge", () => declare({ type: "dodge" })), button("Reset", () => declare({ type: "reset" })),
    button("Idle", () => declare({ type: "idle" }), { id: "declare-idle" }), button("Cautious move", () => declare({ type: "cautious_move", route: ui.route }))));
}

async function declare(skill) {
  const answer = await send({ type: "declare_skill", skill });
  if (answer.ok) { ui.route = []; render(); }
}

function renderAroPanel(state) {
  const panel = $("aro-panel");
  const w = conn.view.window;
  panel.hidden = !w;
  if (!w) return;
  panel.className = "panel";
  panel.replaceChildren(el("div", {}, `ARO window (order ${w.order}, step ${w.step}) for player ${w.reactive}: `, el("span", { class: "countdown", id: "countdown" }, "")));
  if (w.reactive !== conn.role) { panel.append(el("div", {}, "Waiting for the reactive player.")); return; }
  const order = state.order ?? {};
  const eligible = Object.values(order.eligible ?? {}).filter((e) => (order.eligible_at_step?.[e.trooper] ?? w.step) === w.step);
  const answered = new Set([...Object.keys(order.aros ?? {}), ...(order.passed ?? [])]);
  for (const e of eligible) {
    const t = conn.view.trooper(e.trooper);
    const row = el("div", { "data-aro": e.trooper }, `${e.trooper} ${t?.profile?.name ?? ""} (${e.line_of_fire ? "LoF" : ""}${e.zone_of_control ? " ZoC" : ""}): `);
    if (answered.has(e.trooper)) { row.append(order.aros?.[e.trooper] ? `declared ${order.aros[e.trooper].type}` : "passed"); panel.append(row); continue; }
    const weapons = t?.profile?.weapons ?? [];
    const weapon = el("select", {}, ...weapons.map((x) => el("option", { value: x }, x)));
    if (e.line_of_fire) row.append(weapon, button("Shoot", () => send({ type: "declare_aro", trooper: e.trooper, skill: { type: "bs_attack", weapon: weapon.value, targets: [{ trooper: order.trooper, burst: 1 }] } }), { "data-action": "shoot" }));
    row.append(button("Dodge", () => send({ type: "declare_aro", trooper: e.trooper, skill: { type: "dodge" } }), { "data-action": "dodge" }),
      button("Pass", () => send({ type: "pass_aro", trooper: e.trooper }), { "data-action": "pass" }));
    panel.append(row);
  }
  panel.append(button("Close window", () => send({ type: "close_aro_window", order: w.order, step: w.step }), { id: "close-window" }));
  renderCountdown();
}

function renderCountdown() {
  const node = document.getElementById("countdown");
  if (node && conn?.view.window) node.textContent = `${(windowRemainingMs(conn.view.window) / 1000).toFixed(1)} s`;
}

function onTableClick(point) {
  const state = conn.view.state;
  if (!state || conn.role === "spectator") return;
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  if (state.phase === "deployment" && t && t.side === conn.role && !t.position) {
    const facing = point[1] < state.table.depth / 2 ? Math.PI / 2 : -Math.PI / 2; // face the enemy edge
    send({ type: "deploy", trooper: t.id, position: point, facing }).then((a) => {
      if (a.ok) { ui.selected = mine(conn.view.state).find((x) => !x.position)?.id ?? null; render(); }
    });
    return;
  }
  if (state.order && t && state.order.trooper === t.id) {
    ui.route.push(point);
    render();
  }
}

if (params.get("room")) startGame(params.get("room"), params.get("token"));
window.addEventListener("hashchange", () => location.reload());
