// The browser app: lobby, table, orders, AROs, results. Plain ES module over the library.
// Every choice it offers comes from the server's `options` for this seat (the rules core
// decides what is legal); the app only lays those choices out and draws routes.
import { GameConnection, websocketUrl, windowRemainingMs } from "./lib/connection.js";
import { routeLength } from "./lib/geometry.js";
import { drawTable } from "./table.js";
import { describeEvent, renderOutcome } from "./describe.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const params = new URLSearchParams(location.hash.slice(1));

/** UI state that is not game state. */
const ui = {
  selected: /** @type {string|null} */ (null),
  route: /** @type {number[][]} */ ([]),
  /** the movement skill the route is drawn for */
  routeSkill: "move",
  /** BS Attack form: weapon and burst per target, kept across re-renders */
  attack: { weapon: /** @type {string|null} */ (null), split: /** @type {Record<string, number>} */ ({}) },
  deployHidden: false,
};
/** @type {GameConnection} */
let conn;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children);
  return node;
}
const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/** Send a command; a rejection shows the server's reason. */
async function send(body, options = {}) {
  $("message").textContent = "";
  const answer = await conn.send(body, options);
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
  if (!response.ok) { $("lobby-message").textContent = `${room.error}: ${room.message}`; return; }
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
  conn.addEventListener("status", () => {
    const lost = conn.status === "reconnecting";
    $("banner").hidden = !lost;
    $("connection").textContent = conn.status;
  });
  conn.addEventListener("fatal", (e) => { $("banner").hidden = false; $("banner").textContent = `Cannot join: close code ${e.detail.code}`; });
  conn.addEventListener("events", (e) => {
    for (const { version, event } of e.detail) {
      $("log").append(el("li", { value: version }, event ? describeEvent(event) : "(hidden event)"));
      if (event?.type === "order_resolved") $("results").prepend(renderOutcome(event.outcome));
    }
    $("log").scrollTop = $("log").scrollHeight;
  });
  conn.connect();
  /** @type {any} */ (window).referee = conn; // for the browser tests and the curious
  setInterval(renderCountdown, 250);
}

const isSeat = () => conn.role === "A" || conn.role === "B";

function render() {
  const view = conn.view;
  const state = view.state;
  renderStatus(state);
  if (!state) return;
  const options = conn.currentOptions();
  drawTable(/** @type {any} */ ($("table")), view, conn.role, ui, options, onTableClick, selectTrooper);
  renderSetup(state, options);
  renderSelection();
  renderOrderPanel(state, options);
  renderAroPanel(state, options);
}

function selectTrooper(id) {
  if (ui.selected !== id) { ui.route = []; ui.attack = { weapon: null, split: {} }; }
  ui.selected = id;
  render();
}

/** Round, turn, phase, who is active, order counters, seats and spectators: always shown. */
function renderStatus(state) {
  $("role").textContent = conn.role === "spectator" ? "Spectator" : `Player ${conn.role ?? "?"}`;
  $("version").textContent = String(conn.view.version);
  $("seats").textContent = Object.entries(conn.view.seats).map(([s, v]) => `${s} ${v}`).join(", ");
  $("spectators").textContent = String(conn.spectators);
  if (!state) return;
  $("phase").textContent = state.phase;
  $("round").textContent = `round ${state.round}, turn ${state.turn}, active ${state.active ?? "-"}`;
  const o = state.orders ?? {};
  const pools = Object.entries(o.pools ?? {}).map(([g, n]) => `G${g}: ${n}`).join(" ");
  const lieutenant = o.lieutenant === true || typeof o.lieutenant === "string" ? 1 : 0;
  $("orders").textContent = state.phase === "orders" || state.phase === "impetuous"
    ? `${state.active} orders - regular ${pools || "0"} | irregular ${(o.irregular ?? []).length} | lieutenant ${lieutenant} | tactical ${(o.tactical ?? []).length} | impetuous ${(o.impetuous ?? []).length} | spent ${state.orders_spent ?? 0}`
    : "-";
}

const mine = (state) => state.troopers.filter((t) => t.side === conn.role);

function renderSetup(state, options) {
  const panel = $("setup-panel");
  panel.replaceChildren();
  const picking = state.phase === "army_selection" && isSeat() && !state.armies?.[conn.role];
  $("army-picker").hidden = !picking;
  if (picking) renderArmyPicker(state.ruleset);
  if (!isSeat()) return;
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
  if (state.phase === "deployment" && options) {
    if (!options.deploy.length && !options.end_deployment_step) {
      panel.append(el("p", {}, `Deployment step ${state.deployment?.step}: the opponent deploys.`));
      return;
    }
    panel.append(el("p", {}, `Deployment step ${state.deployment?.step}: select a trooper, click in your zone. Waiting: ${options.deploy.length}`));
    for (const id of options.deploy) {
      const t = conn.view.trooper(id);
      panel.append(button(`${t?.profile?.name ?? id}`, () => selectTrooper(id), { "data-deploy": id, class: ui.selected === id ? "chosen" : "" }));
    }
    if (ui.selected && options.deploy_hidden.includes(ui.selected)) {
      const box = el("input", { type: "checkbox", id: "deploy-hidden", checked: ui.deployHidden, onchange: (e) => { ui.deployHidden = e.target.checked; } });
      panel.append(el("label", {}, box, " Hidden Deployment (secret, revealed later)"));
    }
    if (options.end_deployment_step) panel.append(el("br"), button("End deployment step", () => send({ type: "end_deployment_step" }), { id: "end-deployment" }));
  }
}

let armiesFor = null;
async function renderArmyPicker(ruleset) {
  if (armiesFor === ruleset) return;
  armiesFor = ruleset;
  const { armies } = await (await fetch(`/api/armies?ruleset=${encodeURIComponent(ruleset)}`)).json();
  $("army-list").replaceChildren(...armies.map((a) => el("div", { class: "army" },
    button(`${a.name} (${a.faction}, ${a.points} pts)`, () => send({ type: "choose_army", army: a.id }, { retryStale: true }), { "data-army": a.id }),
    el("div", { class: "roster" }, a.roster.map((r) => r.unit).join(", ")))));
}

function renderSelection() {
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  const box = $("selection");
  box.replaceChildren();
  if (!t) return;
  const p = t.profile;
  box.append(el("div", { class: "panel", id: "selected-trooper" }, t.marker ? `${t.id}: Camouflage marker` :
    `${t.id}: ${p?.name ?? "?"} MOV ${p?.mov?.join("-")} CC ${p?.cc} BS ${p?.bs} PH ${p?.ph} WIP ${p?.wip} ARM ${p?.arm} BTS ${p?.bts} W ${p?.vita} S${p?.silhouette} | wounds ${t.wounds ?? 0} ${t.condition ?? ""}${t.prone ? " prone" : ""}${t.hidden ? " (hidden)" : ""} | ${(p?.weapons ?? []).join(", ")}`));
}

/** Movement allowance of the next movement skill, as the rules core counts it. */
function allowance(t, state, skill) {
  const mov = t.profile?.mov ?? [0, 0];
  if (skill === "jump") return mov[0] + 2;
  const movedBefore = (state.order?.skills ?? []).some((s) => Array.isArray(s.route));
  return movedBefore ? mov[1] : mov[0];
}

function renderOrderPanel(state, options) {
  const panel = $("order-panel");
  panel.replaceChildren();
  panel.hidden = !(isSeat() && options && state.active === conn.role && (state.phase === "orders" || state.phase === "impetuous"));
  if (panel.hidden) return;
  if (!state.order) {
    const ready = Object.keys(options.activate);
    panel.append(el("div", {}, ready.length ? "Select a trooper and spend an order:" : "No trooper can be activated."));
    for (const id of ready) panel.append(button(id, () => selectTrooper(id), { "data-select": id, class: ui.selected === id ? "chosen" : "" }));
    const kinds = ui.selected ? options.activate[ui.selected] ?? [] : [];
    if (kinds.length) panel.append(el("div", {}, `${ui.selected}: `, ...kinds.map((kind) => button(`${kind} order`, () => activate(ui.selected, kind), { "data-order": kind }))));
    for (const id of options.reveal) panel.append(el("div", {}, button(`Reveal ${id} (Hidden Deployment)`, () => send({ type: "reveal", trooper: id }), { "data-reveal": id })));
    if (options.end_impetuous_phase) panel.append(button("End impetuous phase", () => send({ type: "end_impetuous_phase" }), { id: "end-impetuous" }));
    if (options.end_turn) panel.append(button("End turn", () => send({ type: "end_turn" }), { id: "end-turn" }));
    return;
  }
  const skills = options.skills;
  if (!skills) { panel.append(el("div", {}, conn.view.window ? "ARO window open: waiting for the reactive player." : "Resolving...")); return; }
  const t = conn.view.trooper(state.order.trooper);
  if (ui.selected !== t.id) { ui.selected = t.id; }
  panel.append(el("div", {}, `Order ${state.order.number} (${state.order.order_type}) on ${t.id}: declare skill ${skills.index}${skills.index === 2 ? " (or Idle)" : ""}`));
  if (skills.route_skills.length) {
    if (!skills.route_skills.includes(ui.routeSkill)) ui.routeSkill = skills.route_skills[0];
    const max = allowance(t, state, ui.routeSkill);
    const length = routeLength(t.position, ui.route);
    panel.append(el("div", { id: "route-length", class: length > max + 1e-6 ? "over" : "" },
      `Route ${length.toFixed(2)}" of ${ui.routeSkill === "jump" ? "Jump" : "MOV"} ${max}" (${ui.route.length} points: click the table)`));
    const row = el("div", {});
    for (const skill of skills.route_skills) {
      row.append(button(skill.replace("_", " "), () => { ui.routeSkill = skill; declare({ type: skill, route: [t.position, ...ui.route] }); },
        { "data-skill": skill, disabled: !ui.route.length }));
    }
    row.append(button("Clear route", () => { ui.route = []; render(); }, { id: "clear-route" }));
    panel.append(row);
  }
  renderAttackForm(panel, skills);
  const ccs = Object.entries(skills.cc_attack);
  for (const [weapon, targets] of ccs) for (const target of targets) panel.append(button(`CC ${weapon} vs ${target}`, () => declare({ type: "cc_attack", weapon, target })));
  for (const target of skills.discover) panel.append(button(`Discover ${target}`, () => declare({ type: "discover", target }), { "data-discover": target }));
  const simple = el("div", {});
  if (skills.dodge) simple.append(button("Dodge", () => declare({ type: "dodge" }), { id: "declare-dodge" }));
  if (skills.reset) simple.append(button("Reset", () => declare({ type: "reset" }), { id: "declare-reset" }));
  if (skills.idle) simple.append(button("Idle", () => declare({ type: "idle" }), { id: "declare-idle" }));
  panel.append(simple);
}

/** BS Attack: a legal weapon, then its Burst split between the targets it may hit. */
function renderAttackForm(panel, skills) {
  const weapons = Object.keys(skills.bs_attack);
  if (!weapons.length) return;
  if (!weapons.includes(ui.attack.weapon ?? "")) ui.attack = { weapon: weapons[0], split: {} };
  const info = skills.bs_attack[ui.attack.weapon];
  const select = el("select", { id: "weapon", onchange: (e) => { ui.attack = { weapon: e.target.value, split: {} }; render(); } },
    ...weapons.map((w) => el("option", { value: w, selected: w === ui.attack.weapon }, `${w} (B${info && w === ui.attack.weapon ? info.burst : skills.bs_attack[w].burst})`)));
  const form = el("div", { class: "attack" }, "BS Attack: ", select);
  const split = ui.attack.split;
  if (!Object.keys(split).length) split[info.targets[0]] = info.template ? 1 : info.burst;
  for (const target of info.targets) {
    const input = el("input", { type: "number", min: 0, max: info.template ? 1 : info.burst, value: split[target] ?? 0, "data-burst": target, style: "width:3em",
      onchange: (e) => { split[target] = Number(e.target.value); render(); } });
    form.append(el("label", {}, ` ${target} `, input));
  }
  const assigned = Object.values(split).reduce((a, b) => a + b, 0);
  const valid = info.template ? Object.values(split).every((n) => n === 0 || n === 1) && assigned > 0 : assigned === info.burst;
  form.append(el("span", { id: "burst-total", class: valid ? "" : "over" }, ` ${assigned}/${info.template ? "template" : info.burst} `),
    button("Declare BS Attack", () => declare({ type: "bs_attack", weapon: ui.attack.weapon,
      targets: Object.entries(split).filter(([, n]) => n > 0).map(([trooper, burst]) => ({ trooper, burst })) }), { id: "declare-bs", disabled: !valid }));
  panel.append(form);
}

async function activate(trooper, order) {
  const answer = await send({ type: "activate", trooper, order });
  if (answer.ok) { ui.route = []; ui.attack = { weapon: null, split: {} }; render(); }
}

async function declare(skill) {
  const answer = await send({ type: "declare_skill", skill });
  if (answer.ok) { ui.route = []; ui.attack = { weapon: null, split: {} }; render(); }
}

function renderAroPanel(state, options) {
  const panel = $("aro-panel");
  const w = conn.view.window;
  panel.hidden = !w;
  if (!w) return;
  panel.className = "panel";
  const mine = w.reactive === conn.role;
  panel.replaceChildren(el("div", {}, `ARO window (order ${w.order}, step ${w.step}) for player ${w.reactive}: `, el("span", { class: "countdown", id: "countdown" }, "")));
  const order = state.order ?? {};
  const active = order.trooper;
  if (!mine || !options) {
    const eligible = Object.keys(order.eligible ?? {}).filter((id) => (order.eligible_at_step?.[id] ?? w.step) === w.step);
    panel.append(el("div", {}, `${mine ? "Loading your options..." : "Waiting for the reactive player."} Eligible: ${eligible.join(", ") || "none shown"}`));
    renderCountdown();
    return;
  }
  const aros = options.aros;
  for (const [id, can] of Object.entries(aros)) {
    const t = conn.view.trooper(id);
    const why = [can.line_of_fire ? "LoF" : "", can.zone_of_control ? "ZoC" : ""].filter(Boolean).join("+");
    const row = el("div", { "data-aro": id, class: "aro-row" }, `${id} ${t?.profile?.name ?? ""} (${why}): `);
    if (can.bs_attack.length) {
      const weapon = el("select", { "data-aro-weapon": id }, ...can.bs_attack.map((x) => el("option", { value: x }, x)));
      row.append(weapon, button(`Shoot ${active}`, () => send({ type: "declare_aro", trooper: id, skill: { type: "bs_attack", weapon: weapon.value, targets: [{ trooper: active, burst: 1 }] } }), { "data-action": "shoot" }));
    }
    for (const weapon of can.cc_attack) row.append(button(`CC ${weapon}`, () => send({ type: "declare_aro", trooper: id, skill: { type: "cc_attack", weapon, target: active } })));
    if (can.discover) row.append(button("Discover", () => send({ type: "declare_aro", trooper: id, skill: { type: "discover", target: active } }), { "data-action": "discover" }));
    if (can.dodge) row.append(button("Dodge", () => send({ type: "declare_aro", trooper: id, skill: { type: "dodge" } }), { "data-action": "dodge" }));
    if (can.reset) row.append(button("Reset", () => send({ type: "declare_aro", trooper: id, skill: { type: "reset" } }), { "data-action": "reset" }));
    row.append(button("Pass", () => send({ type: "pass_aro", trooper: id }), { "data-action": "pass" }));
    panel.append(row);
  }
  const answered = [...Object.keys(order.aros ?? {}).map((id) => `${id}: ${order.aros[id].type}`), ...(order.passed ?? []).map((id) => `${id}: pass`)];
  if (answered.length) panel.append(el("div", {}, `Declared: ${answered.join(", ")}`));
  panel.append(button("Done: close window", () => send({ type: "close_aro_window", order: w.order, step: w.step }), { id: "close-window" }));
  renderCountdown();
}

function renderCountdown() {
  const node = document.getElementById("countdown");
  if (node && conn?.view.window) node.textContent = `${(windowRemainingMs(conn.view.window) / 1000).toFixed(1)} s left`;
}

function onTableClick(point) {
  const state = conn.view.state;
  if (!state || !isSeat()) return;
  const options = conn.currentOptions();
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  if (state.phase === "deployment" && t && options?.deploy.includes(t.id)) {
    const zone = state.initiative?.zones?.[conn.role];
    const facing = zone === "north" ? 270 : 90; // degrees: face the enemy's edge
    const hidden = ui.deployHidden && options.deploy_hidden.includes(t.id);
    send({ type: "deploy", trooper: t.id, position: point, facing, hidden }).then((a) => {
      if (a.ok) { ui.deployHidden = false; ui.selected = mine(conn.view.state).find((x) => !x.position)?.id ?? null; render(); }
    });
    return;
  }
  if (state.order && t && state.order.trooper === t.id && options?.skills?.route_skills.length) {
    ui.route.push(point);
    render();
  }
}

if (params.get("room")) startGame(params.get("room"), params.get("token"));
window.addEventListener("hashchange", () => location.reload());
