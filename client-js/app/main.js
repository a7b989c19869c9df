// The browser app: lobby, table, orders, AROs, results. Plain ES module over the library.
// Every choice it offers comes from the server's `options` for this seat (the rules core
// decides what is legal); the app only lays those choices out and draws routes.
import { GameConnection, websocketUrl } from "./lib/connection.js";
import { CloseCode } from "./lib/protocol-constants.js";
import { routeLength } from "./lib/geometry.js";
import { drawTable, hoverTrooper } from "./table.js";
import { renderRoster } from "./roster.js";
import { rulerClick } from "./ruler.js";
import { resultText, shotPreviewText } from "./describe.js";
import { EventHistory } from "./history.js";
import { createAroPanel } from "./aro-panel.js";
import { createGutsPanel } from "./guts-panel.js";
import { clocksFromFrame, clocksNow } from "./overlay-model.js";
import { loadCatalogue, weaponName } from "./catalogue.js";
import { verifyRecord } from "./lib/verify.js";
import { startLobby, startOrganizer } from "./lobby.js";
import { renderSetupPanel, seatsText } from "./setup-panel.js";
import { renderCommandTokens, renderCoordinate, tokensText } from "./command-tokens.js";
import { coordinatedBlocker, participantSkill } from "./coordinated-order.js";
import { facingWords, isRotated, ordersSpentThisTurn, pathPointNames, turnStartMark } from "./seat-view.js";
import { weapon as catalogueWeapon } from "./catalogue.js";
import { el } from "./dom.js";
import { keepCredential } from "./credentials.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const params = new URLSearchParams(location.hash.slice(1));

/** UI state that is not game state. */
const ui = {
  selected: /** @type {string|null} */ (null),
  /** routes being drawn, per activated trooper (a joint activation draws one per trooper) */
  routes: /** @type {Record<string, number[][]>} */ ({}),
  /** which activated trooper table clicks draw the route of */
  routeFor: /** @type {string|null} */ (null),
  /** the movement skill the route is drawn for */
  routeSkill: "move",
  /** end facing of a movement: "auto" (along the last segment), degrees, or "enemy:<id>" */
  facing: "auto",
  /** BS Attack form: weapon and burst per target, kept across re-renders */
  attack: { weapon: /** @type {string|null} */ (null), split: /** @type {Record<string, number>} */ ({}) },
  /** a corner of the path already moved, chosen as the BS Attack's firing point (null: where it stands) */
  firingPoint: /** @type {number[]|null} */ (null),
  /** Peripherals ticked to activate with the selected Controller */
  peripherals: /** @type {Set<string>} */ (new Set()),
  /** per Peripheral, the chosen detail of its skill for the current declaration (JSON of a skill) */
  peripheralChoice: /** @type {Record<string, string>} */ ({}),
  deployHidden: false,
  /** what the table draws for this seat's Guts window (guts-panel.js `marks`), or null */
  guts: /** @type {any} */ (null),
  /** the trooper in Airborne Deployment whose landing spot the next table click names (Combat Jump) */
  jumping: /** @type {string|null} */ (null),
  /** the inline "really concede?" question is showing */
  confirmConcede: false,
  /** the whole commitment is shown (no clipboard to copy it to) */
  fullCommitment: false,
  /** the turn and Orders spent ("round:turn:side:spent") whose "End turn with Orders unspent?" question is showing */
  confirmEndTurn: /** @type {string|null} */ (null),
  /** why this tab cannot join (a final close other than 4010), shown in the banner */
  fatal: /** @type {string|null} */ (null),
  /** which way up the table is drawn: from the seat's own edge ("seat"; North up for spectators), or as toggled */
  viewFrom: /** @type {"seat" | "north" | "south"} */ ("seat"),
  /** the table is drawn South up (set from viewFrom at each render; table.js reads it) */
  rotated: false,
};
/** Where the current Player Turn's Orders started, seen live (seat-view.js turnStartMark). */
let turnMark = /** @type {ReturnType<typeof turnStartMark>} */ (null);
const resetDeclaration = () => Object.assign(ui, { routes: {}, routeFor: null, facing: "auto", attack: { weapon: null, split: {} },
  firingPoint: null, peripheralChoice: {} });
/** @type {GameConnection} */
let conn;
/** The event log and the results panel (live events and the history alike). @type {EventHistory} */
let eventHistory;
/** The ARO window: countdown, the reactive player's panel, the time-out notice. @type {ReturnType<typeof createAroPanel>} */
let aroPanel;
/** The Guts window: the owner picks where its trooper moves. @type {ReturnType<typeof createGutsPanel>} */
let gutsPanel;

const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/** What this tab keeps about a room across reloads (sessionStorage, per room). */
const kept = {
  key: (/** @type {string} */ name) => `referee:${params.get("room")}:${name}`,
  get(/** @type {string} */ name) { try { return sessionStorage.getItem(kept.key(name)); } catch { return null; } },
  set(/** @type {string} */ name, /** @type {string} */ value) { try { sessionStorage.setItem(kept.key(name), value); } catch { /* private mode */ } },
  remove(/** @type {string} */ name) { try { sessionStorage.removeItem(kept.key(name)); } catch { /* private mode */ } },
};

/** 32 fresh random bytes as 64 lowercase hex: this player's own contribution to the dice. */
function freshEntropy() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Send a command; a rejection shows the server's reason. */
async function send(body, options = {}) {
  $("message").textContent = "";
  const answer = await conn.send(body, options);
  if (!answer.ok) $("message").textContent = `Rejected (${answer.code}): ${answer.message}`;
  return answer;
}

// The lobby (creating a room, its links, the public rooms) is lobby.js.

// --- game --------------------------------------------------------------------------------
async function startGame(room, token) {
  $("lobby").hidden = true;
  $("game").hidden = false;
  await loadCatalogue();
  conn = new GameConnection({ url: websocketUrl(location), room, token, backoff: { initialMs: 200, maxMs: 4000 } });
  conn.addEventListener("change", render);
  // A seat's token of a room that has been played in lets this browser's later room
  // creations use the node's reserve when its limits refuse them (credentials.js).
  let credentialKept = false;
  conn.addEventListener("change", () => {
    if (credentialKept || !token || (conn.role !== "A" && conn.role !== "B") || !(conn.view.version > 0)) return;
    credentialKept = true;
    keepCredential({ room, token }, { played: true });
  });
  conn.addEventListener("status", () => {
    const lost = conn.status === "reconnecting";
    $("banner").hidden = !lost && !ui.fatal;
    $("connection").textContent = conn.status;
  });
  conn.addEventListener("fatal", (e) => showFatal(e.detail.code));
  conn.addEventListener("message", (e) => { // a delayed feed (a spectator's, a caster's) says how late it is
    const frame = /** @type {CustomEvent} */ (e).detail;
    if (frame.type === "welcome") feedDelayS = Number(frame.delay_s ?? 0);
    const clocks = clocksFromFrame(frame, conn.view.version); // the chess clocks, as frames carry them
    if (clocks !== undefined) { chessClocks = clocks; renderChessClocks(); }
  });
  eventHistory = new EventHistory({ log: $("log"), results: $("results"), conn });
  aroPanel = createAroPanel({ conn, names: eventHistory.names, send, panel: $("aro-panel"), clock: $("aro-clock"), notice: $("aro-notice") });
  gutsPanel = createGutsPanel({ conn, names: eventHistory.names, send, panel: $("guts-panel"), redraw: () => render() });
  conn.addEventListener("events", (e) => {
    if (conn.view.state) turnMark = turnStartMark(conn.view.state, e.detail) ?? turnMark;
    eventHistory.addLive(e.detail);
    aroPanel.onEvents(e.detail);
  });
  conn.connect();
  /** @type {any} */ (window).referee = conn; // for the browser tests and the curious
  setInterval(aroPanel.tick, 250);
  setInterval(gutsPanel.tick, 250);
  setInterval(renderChessClocks, 250);
}

/** The frames' chess clocks (null: the room plays without them), stamped with their arrival. @type {import("./overlay-model.js").Clocks | null} */
let chessClocks = null;

/** A clock per side in the status bar: the running one counts down from its frame's remaining_ms. */
function renderChessClocks() {
  const shown = clocksNow(chessClocks);
  $("chess-clocks").hidden = !shown;
  if (!shown) return;
  for (const side of /** @type {const} */ (["A", "B"])) {
    const clock = shown[side];
    const face = /** @type {HTMLElement} */ ($("chess-clocks").querySelector(`[data-side="${side}"]`));
    face.textContent = `${side} ${clock.text}`;
    face.className = `chess-clock${clock.running ? " running" : ""}${clock.low ? " low" : ""}${clock.outOfTime ? " out" : ""}`;
    face.title = `Player ${side}'s chess clock${clock.running ? ": running" : ""}${clock.outOfTime ? ": out of time, plays no more Orders (still declares AROs)" : ""}`;
  }
}

const isSeat = () => conn.role === "A" || conn.role === "B";

/** A final close: the seat opened elsewhere (4010) may be taken back; any other is said in words. */
function showFatal(code) {
  if (code === CloseCode.REPLACED) {
    $("seat-elsewhere").hidden = false;
    $("game").classList.add("elsewhere");
    return;
  }
  const why = { [CloseCode.BAD_TOKEN]: "this link opens no seat of this room", [CloseCode.ROOM_NOT_FOUND]: "there is no such room",
    [CloseCode.UNSUPPORTED_VERSION]: "this page is older than the server: reload it" }[code];
  ui.fatal = code === CloseCode.CASTER_WITHDRAWN
    ? "This caster link was withdrawn by the room's organizer: ask the organizer for a new one."
    : `Cannot join: ${why ?? `close code ${code}`}.`;
  $("banner").textContent = ui.fatal;
  $("banner").hidden = false;
}
$("take-seat-back").addEventListener("click", () => {
  $("seat-elsewhere").hidden = true;
  $("game").classList.remove("elsewhere");
  conn.reconnect();
});

function render() {
  const view = conn.view;
  const state = view.state;
  renderStatus(state);
  renderDice();
  if (!state) return;
  const options = conn.currentOptions();
  ui.rotated = isRotated(state, conn.role, ui.viewFrom);
  renderViewToggle();
  ui.guts = gutsPanel.marks();
  drawTable(/** @type {any} */ ($("table")), view, conn.role, ui, options, onTableClick, selectTrooper);
  renderRoster($("roster"), view, conn.role, ui, selectTrooper, hoverTrooper);
  renderGameOver(state);
  renderSetup(state, options);
  renderSelection(options);
  renderOrderPanel(state, options);
  aroPanel.render();
  aroPanel.answer(options);
  gutsPanel.render();
  eventHistory.catchUp();
  eventHistory.refreshNames();
  renderLieutenantPanel(state, options);
  renderCommandTokens($("command-token-panel"), state, options, { el, button, send, render, role: conn.role, selected: ui.selected,
    name: (id) => eventHistory.names.label(id).text ?? id });
  renderConcede(state);
}

/** The toolbar's "North ↑" / "South ↑" toggle: turns the table 180° (a seat starts from its own edge). */
function renderViewToggle() {
  const toggle = $("view-toggle");
  toggle.textContent = ui.rotated ? "South ↑" : "North ↑";
  toggle.title = `${ui.rotated ? "South is at the top (the table seen from its North edge)" : "North is at the top"}: click to turn the table 180°`;
  toggle.setAttribute("aria-pressed", String(ui.rotated));
}
$("view-toggle").addEventListener("click", () => { ui.viewFrom = ui.rotated ? "north" : "south"; render(); });

function selectTrooper(id) {
  if (ui.selected !== id) { resetDeclaration(); ui.peripherals = new Set(); }
  ui.selected = id;
  render();
}

/** The result with victory points, once the game is over (everyone sees it), and the dice check. */
function renderGameOver(state) {
  const box = $("game-over");
  box.hidden = state.phase !== "game_over" || !state.result;
  box.textContent = box.hidden ? "" : `Game over: ${resultText(state.result)}`;
  $("dice-check").hidden = state.phase !== "game_over";
  /** @type {HTMLAnchorElement} */ ($("download-record")).href = recordUrl();
  $("download-record").setAttribute("download", `infinity-game-${params.get("room")}.json`);
}

const recordUrl = () => `/api/rooms/${encodeURIComponent(params.get("room") ?? "")}/record`;

/** The room's dice commitment in the status bar (short, full on hover, copy button) and the
 * warning of a test room whose dice were fixed at creation. */
function renderDice() {
  const commitment = conn.diceCommitment;
  $("dice").hidden = !commitment;
  if (commitment) {
    const first = kept.get("commitment");
    if (!first) kept.set("commitment", commitment);
    const code = $("dice-commitment");
    code.textContent = ui.fullCommitment ? commitment : `${commitment.slice(0, 16)}…`;
    code.title = `SHA-256 commitment to this room's dice secret, published before the first roll: ${commitment}`;
    $("commitment-changed").hidden = !first || first === commitment;
  }
  $("fixed-dice-banner").hidden = !conn.fixedDice;
}

$("copy-commitment").addEventListener("click", async () => {
  const commitment = conn?.diceCommitment ?? "";
  try {
    await navigator.clipboard.writeText(commitment);
    $("copy-commitment").textContent = "copied";
  } catch {
    // No clipboard (an insecure page, or refused): select the full value for a manual copy.
    ui.fullCommitment = true;
    renderDice();
    getSelection()?.selectAllChildren($("dice-commitment"));
  }
});

/**
 * Why the record is not published yet. A game this page shows as over may still be ahead of
 * the room's delayed spectators: the server publishes its record once the end is that old.
 */
function notOverText() {
  const delay = Number(conn.settings?.spectator_delay_s ?? 0);
  if (conn.view.state?.phase === "game_over" && delay > 0) {
    return `The record is published once the spectators, ${delay} s behind the game, have seen its end: try again in a moment.`;
  }
  return "The record is published once the game is over.";
}

/** Fetch the game record and check every die against the commitment; say the outcome in words. */
async function verifyDice() {
  const out = $("verify-result");
  out.className = "";
  out.replaceChildren("Fetching the game record...");
  if (!globalThis.crypto?.subtle) {
    out.className = "bad";
    out.replaceChildren("This browser offers the cryptography needed only on a secure page (https, or localhost). Download the game record and check it elsewhere (server/verify.py).");
    return;
  }
  let record;
  try {
    const response = await fetch(recordUrl());
    record = await response.json();
    if (!response.ok) {
      out.className = "bad";
      out.replaceChildren(record.error === "game_not_over" ? notOverText() : `The server refused the record: ${record.error}: ${record.message ?? ""}`);
      return;
    }
  } catch (error) {
    out.className = "bad";
    out.replaceChildren(`Could not fetch the game record: ${error}`);
    return;
  }
  out.replaceChildren("Checking every die...");
  const seat = isSeat() ? /** @type {string} */ (conn.role) : undefined;
  const result = await verifyRecord(record, { commitmentSeen: kept.get("commitment") ?? conn.diceCommitment ?? undefined,
    seat, contribution: seat ? kept.get(`${seat}:entropy`) ?? undefined : undefined });
  if (!result.ok) {
    out.className = "bad";
    out.replaceChildren(el("b", {}, "The dice do not check out. "), result.problem);
    return;
  }
  out.className = "good";
  const headline = result.dice
    ? `All ${result.dice} dice of this game match the commitment published before the first roll.`
    : "No die was generated in this game; the revealed secret matches the commitment published before it.";
  const checked = [...result.checked];
  if (seat && !kept.get(`${seat}:entropy`)) checked.push("(this browser did not keep your contribution, so it could not check that one)");
  out.replaceChildren(el("b", { id: "verify-headline" }, headline),
    el("ul", {}, ...checked.map((c) => el("li", {}, c))),
    record.fixed_dice ? el("div", { class: "warning-text" }, "This was a test room: whoever created it chose the number the secret comes from, so they could know every die in advance.") : "");
}
$("verify-dice").addEventListener("click", verifyDice);

/** How many seconds behind the game this connection's feed runs (the welcome's delay_s). */
let feedDelayS = 0;
const ROLE_NAMES = { spectator: "Spectator", caster: "Caster (both sides' hidden information)" };

/** Round, turn, phase, who is active, order counters, seats and spectators: always shown. */
function renderStatus(state) {
  const late = feedDelayS > 0 ? `, ${Math.round(feedDelayS)} s behind the game` : "";
  $("role").textContent = `${ROLE_NAMES[conn.role ?? ""] ?? `Player ${conn.role ?? "?"}`}${late}`;
  $("version").textContent = String(conn.view.version);
  $("seats").textContent = seatsText(conn.view.seats, conn.role);
  $("spectators").textContent = String(conn.spectators);
  if (!state) return;
  $("phase").textContent = state.phase;
  $("round").textContent = `round ${state.round}, turn ${state.turn}, active ${state.active ?? "-"}`;
  $("command-tokens").textContent = tokensText(state);
  const o = state.orders ?? {};
  const pools = Object.entries(o.pools ?? {}).map(([g, n]) => `G${g} ${n}`).join(" ");
  const lieutenant = o.lieutenant === true || typeof o.lieutenant === "string" ? 1 : 0;
  const playing = state.phase === "orders" || state.phase === "impetuous";
  const spent = playing ? ordersSpentThisTurn(state, turnMark) : null;
  // The Active Player's Orders left per pool and those it spent this Player Turn (the
  // whole game's count only when this tab cannot know the turn's: it says so).
  $("orders").textContent = playing
    ? `${state.active}: ${spent === null ? `${state.orders_spent ?? 0} spent in the game` : `${spent} spent this turn`} · left ${pools || "0"} · IRR ${(o.irregular ?? []).length} · LT ${lieutenant} · TAC ${(o.tactical ?? []).length} · IMP ${(o.impetuous ?? []).length}${(o.hidden ?? []).length ? ` · private ${o.hidden.length} ` : ""}`
    : "-";
  $("orders").title = playing ? `${spent === null ? "Orders spent by both players in the whole game (this tab did not see this turn start)" : `Orders Player ${state.active} spent this turn`}; Player ${state.active}'s Orders left: regular per Combat Group (G1, G2...), IRR irregular, LT the Lieutenant's, TAC tactical, IMP impetuous${(o.hidden ?? []).length ? "; private: Orders of troopers in Hidden or Airborne Deployment (yours only)" : ""}` : "";
}

const mine = (state) => state.troopers.filter((t) => t.side === conn.role);

/** The army picker, then setup-panel.js: who is here, the Initiative choice, deployment, and what each side waits for. */
function renderSetup(state, options) {
  const picking = state.phase === "army_selection" && isSeat() && !state.armies?.[conn.role];
  $("army-picker").hidden = !picking;
  if (picking) renderArmyPicker(state.ruleset, options);
  renderSetupPanel($("setup-panel"), state, options, { conn, ui, send, selectTrooper, render });
}

let armiesShown = null;
let catalogue = { ruleset: "", armies: /** @type {any[] | null} */ (null) };
/** The armies the server offers this seat (`options.choose_army`: at a tournament table only
 * the player's registered army), each with its roster from /api/armies. Nothing until the
 * options are here, so the table never shows a list it would refuse. */
async function renderArmyPicker(ruleset, options) {
  const offered = Array.isArray(options?.choose_army) ? options.choose_army : null;
  const key = offered && `${ruleset}:${offered.join(",")}`;
  if (armiesShown === key) return;
  armiesShown = key;
  if (!offered) { $("army-list").replaceChildren(); return; }
  if (catalogue.ruleset !== ruleset || !catalogue.armies) {
    const { armies } = await (await fetch(`/api/armies?ruleset=${encodeURIComponent(ruleset)}`)).json();
    catalogue = { ruleset, armies };
  }
  if (armiesShown !== key) return; // newer options came while the catalogue loaded
  const armies = (catalogue.armies ?? []).filter((a) => offered.includes(a.id));
  $("army-list").replaceChildren(...armies.map((a) => el("div", { class: "army" },
    button(`${a.name} (${a.faction}, ${a.points} pts)`, () => chooseArmy(a.id), { "data-army": a.id }),
    el("div", { class: "roster" }, a.roster.map((r) => r.unit).join(", ")))));
}

let choosingArmy = false;
/** Pick an army with a fresh contribution to the dice (drawn here, for this choice only, kept
 * in this tab so that the dice check at the end can find it in the game record). */
async function chooseArmy(army) {
  if (choosingArmy) return;
  choosingArmy = true;
  const name = `${conn.role}:entropy`;
  const entropy = freshEntropy();
  kept.set(name, entropy);
  try {
    const answer = await send({ type: "choose_army", army, entropy }, { retryStale: true });
    if (!answer.ok && kept.get(name) === entropy) kept.remove(name);
  } finally {
    choosingArmy = false;
  }
}

/** A trooper as the table names it ("Lancer 3"), the unit's full name and the id in its tooltip. @param {string} id */
function named(id) {
  const piece = eventHistory.names.label(id);
  return el("span", { class: piece.cls ?? "trooper", title: piece.title ?? id }, piece.text);
}

/** A button naming a trooper as the table does ("Lancer 3"), its id in the tooltip: a room's ids are random, unreadable. */
function trooperButton(id, onclick, attrs = {}) {
  const piece = eventHistory.names.label(id);
  return button(piece.text ?? id, onclick, { title: piece.title ?? id, ...attrs });
}

function renderSelection(options) {
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  const box = $("selection");
  box.replaceChildren();
  if (!t) return;
  const p = t.profile;
  // The table's name for it ("Lancer 3"); the id only in the tooltip.
  const tableName = eventHistory.names.label(t.id);
  const panel = el("div", { class: "panel", id: "selected-trooper", title: tableName.title }, t.marker && !p ? `${tableName.text}: Camouflage marker` :
    `${tableName.text}: ${p?.name ?? "?"}${t.marker ? " (deployed as a Camouflage marker)" : ""} MOV ${p?.mov?.join("-")} CC ${p?.cc} BS ${p?.bs} PH ${p?.ph} WIP ${p?.wip} ARM ${p?.arm} BTS ${p?.bts} W ${p?.vita} S${p?.silhouette}${p?.hacker ? " Hacker" : ""}${p?.repeater ? " Repeater" : ""} | wounds ${t.wounds ?? 0} ${t.condition ?? ""}${t.prone ? " prone" : ""}${t.targeted ? " Targeted" : ""}${t.hidden ? " (hidden)" : ""}${t.entry?.lieutenant ? " | your Lieutenant (secret)" : ""} | ${(p?.weapons ?? []).map(weaponName).join(", ")}`);
  // N5: the owner's standing choice to fail this trooper's Guts Rolls (secret until used).
  if (options?.guts_failure && t.id in options.guts_failure) {
    const box = el("input", { type: "checkbox", id: "guts-failure", checked: options.guts_failure[t.id],
      onchange: (e) => send({ type: "choose_guts_failure", trooper: t.id, fail: e.target.checked }) });
    panel.append(el("div", {}, el("label", { title: "A standing choice: its Guts Rolls fail without a die. The opponent learns it only when one is used." },
      box, " Choose to fail its Guts Rolls (secret)")));
  }
  if (t.position && t.condition !== "dead" && !(t.marker && !p)) {
    panel.append(el("div", { id: "selected-facing" }, `Facing ${facingWords(t.facing ?? 0, viewerZone())}`));
  }
  box.append(panel);
}

/** The viewer's own Deployment Zone (facings are said relative to it), null for a spectator or before the roll-off. */
const viewerZone = () => conn.view.state?.initiative?.zones?.[conn.role ?? ""] ?? null;

/** Movement allowance of the next movement skill, as the rules core counts it. */
function allowance(t, skillsSoFar, skill) {
  const mov = t.profile?.mov ?? [0, 0];
  if (skill === "jump") return mov[0] + 2;
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

/** The order types offered for a trooper, with where a Regular Order comes from. */
function orderLabel(t, kind, state) {
  if (kind !== "regular") return `${kind} order`;
  const group = t?.entry?.combat_group ?? t?.combat_group;
  return `regular order (Combat Group ${group}: ${state.orders?.pools?.[group] ?? 0} left)`;
}

function renderOrderPanel(state, options) {
  const panel = $("order-panel");
  panel.replaceChildren();
  panel.hidden = !(isSeat() && options && state.active === conn.role && (state.phase === "orders" || state.phase === "impetuous"));
  if (panel.hidden) return;
  if (!state.order) {
    const ready = Object.keys(options.activate);
    panel.append(el("div", {}, ready.length ? "Select a trooper and spend an order:" : "No trooper can be activated."));
    for (const id of ready) panel.append(trooperButton(id, () => selectTrooper(id), { "data-select": id, class: ui.selected === id ? "chosen" : "" }));
    const kinds = ui.selected ? options.activate[ui.selected] ?? [] : [];
    const t = ui.selected ? conn.view.trooper(ui.selected) : null;
    if (kinds.length) {
      panel.append(el("div", {}, named(ui.selected), ": ", ...kinds.map((kind) => button(orderLabel(t, kind, state), () => activate(ui.selected, kind), { "data-order": kind }))));
      // Regular Orders only activate troopers of their own Combat Group (the rules core
      // refuses any other pool), so the pool is named, not chosen.
      const joining = options.peripherals?.[ui.selected] ?? [];
      if (joining.length) {
        panel.append(el("div", {}, "Activate with its Peripherals (same Order, same skills): ",
          ...joining.map((p) => el("label", {}, el("input", { type: "checkbox", "data-peripheral": p, checked: ui.peripherals.has(p),
            onchange: (e) => { if (e.target.checked) ui.peripherals.add(p); else ui.peripherals.delete(p); } }), " ", named(p), " "))));
      }
    }
    renderCoordinate(panel, options, { el, button, send, render, selected: ui.selected, name: (id) => eventHistory.names.label(id).text ?? id });
    for (const id of options.reveal) panel.append(el("div", {}, button(`Reveal ${eventHistory.names.label(id).text} on its own private Order (Hidden Deployment)`, () => send({ type: "reveal", trooper: id }), { "data-reveal": id })));
    for (const [id, jump] of Object.entries(options.combat_jump ?? {})) {
      // Combat Jump: pick the landing spot on the table; a failed PH Roll lands at the offered edge spot.
      const name = eventHistory.names.label(id).text;
      panel.append(el("div", {}, button(`Combat Jump: ${name} on its own private Order`, () => { ui.jumping = ui.jumping === id ? null : id; render(); },
        { "data-combat-jump": id, class: ui.jumping === id ? "chosen" : "" })));
      if (ui.jumping === id) {
        panel.append(el("div", { id: "combat-jump-hint", class: "hint" }, `Click the landing spot on the table (PH ${jump.ph} roll; if it fails, ${name} lands at `
          + `(${jump.fallback.map((v) => v.toFixed(1)).join(", ")}) on your table edge). Not on scenery or in contact with enemies or cover.`));
      }
    }
    if (options.end_impetuous_phase) panel.append(button("End impetuous phase", () => send({ type: "end_impetuous_phase" }), { id: "end-impetuous" }));
    if (options.end_turn) panel.append(endTurnControl(state, options));
    return;
  }
  const skills = options.skills;
  if (!skills) { panel.append(el("div", {}, conn.view.window ? "ARO window open: waiting for the reactive player." : "Resolving...")); return; }
  const order = state.order;
  const t = conn.view.trooper(order.trooper);
  if (ui.selected !== t.id) { ui.selected = t.id; }
  const peripheralSkills = skills.peripherals ?? {};
  const activated = [t.id, ...Object.keys(peripheralSkills)];
  const joint = activated.length > 1;
  const coordinated = joint && skills.coordinated === true;
  panel.append(el("div", {}, ...(coordinated
    ? [`Coordinated Order ${order.number}: Spearhead `, named(t.id), " with ", ...activated.slice(1).flatMap((id, i) => [...(i ? [" and "] : []), named(id)])]
    : [`Order ${order.number} (${order.order_type}) on `, ...activated.flatMap((id, i) => [...(i ? [" + "] : []), named(id)])]),
  `: declare skill ${skills.index}${skills.index === 2 ? " (or Idle)" : ""}`));
  if (coordinated) panel.append(el("div", { class: "hint" }, "Every trooper declares the Spearhead's skill; an attack has the Spearhead's one target (Burst: half for the Spearhead, 1 for the others)."));
  const imp = skills.impetuous; // DIGEST 3.6: what an Impetuous activation's route must do
  if (imp) panel.append(el("div", { id: "impetuous-hint" }, imp.charge.length
    ? `Impetuous: the move must end in base contact with ${imp.charge.map((id) => eventHistory.names.label(id).text ?? id).join(" or ")}.`
    : imp.inside_enemy_zone ? "Impetuous: inside the enemy Deployment Zone it moves freely, staying inside."
      : `Impetuous: move the full MOV (${imp.full_mov.move}") towards the enemy Deployment Zone (${imp.enemy_zone}), never away from it.`));
  // A skill type is offered when every activated trooper may perform it (DIGEST 2: same skills);
  // in a Coordinated Order the Spearhead's choice decides, and another trooper that cannot
  // perform it performs Idle (DIGEST 3.4: coordinated-order.js says what each one does).
  const nameOf = (id) => eventHistory.names.label(id).text ?? id;
  const all = coordinated
    ? (test, type) => test(skills) && (type ? coordinatedBlocker(type, skills, nameOf) === null : true)
    : (test) => test(skills) && Object.values(peripheralSkills).every(test);
  const routeSkills = skills.route_skills.filter((s) => all((x) => x.route_skills.includes(s), s));
  if (routeSkills.length) renderRouteForm(panel, order, activated, routeSkills);
  renderFiringPoints(panel, skills, order);
  if (coordinated) renderCoordinatedAttackForm(panel, skills);
  else renderAttackForm(panel, skills, joint && all((x) => Object.keys(x.bs_attack).length > 0));
  /** Why a joint activation's attack button is off: the Peripheral(s) without that skill. */
  const lacking = (test, what) => `${Object.entries(peripheralSkills).filter(([, x]) => !test(x)).map(([id]) => nameOf(id)).join(", ")} has no ${what} now (a Peripheral declares its Controller's skill)`;
  const ccTest = (x) => Object.keys(x.cc_attack).length > 0;
  const cc = coordinated || all(ccTest);
  for (const [weapon, targets] of Object.entries(skills.cc_attack)) {
    for (const target of targets) {
      const coupDeGrace = conn.view.trooper(target)?.condition === "unconscious";
      const skill = { type: "cc_attack", weapon, target };
      const notes = coordinated ? coordinatedNotes(skill, peripheralSkills) : [];
      panel.append(button(`${coupDeGrace ? "Coup de Grâce on" : "CC Attack on"} ${nameOf(target)} (${weaponName(weapon)})`,
        () => declare(skill, "cc_attack"), { "data-cc": target, disabled: !cc, title: cc ? notes.join("; ") : lacking(ccTest, "CC target") }));
      if (!cc) panel.append(el("span", { class: "why", "data-why": `cc:${target}` }, lacking(ccTest, "CC target")));
      if (notes.length) panel.append(el("div", { class: "hint", "data-coordinated-cc": target }, `With it: ${notes.join("; ")}.`));
    }
  }
  const discoverTest = (x) => x.discover.length > 0;
  const discover = coordinated || all(discoverTest);
  for (const target of skills.discover) {
    panel.append(button(`Discover ${nameOf(target)}`, () => declare({ type: "discover", target }, "discover"),
      { "data-discover": target, disabled: !discover, title: discover ? "" : lacking(discoverTest, "Discover target") }));
  }
  const hackTest = (x) => Object.keys(x.comms_attack ?? {}).length > 0;
  // In a Coordinated Order every trooper declares the Comms Attack too: each must be a Hacker.
  const noHackers = coordinated ? Object.keys(peripheralSkills).filter((id) => !conn.view.trooper(id)?.profile?.hacker) : [];
  const hack = coordinated ? noHackers.length === 0 : all(hackTest);
  const hackWhy = hack ? "" : coordinated ? `${noHackers.map(nameOf).join(", ")} is no Hacker: a Coordinated Order's troopers all declare the same skill` : lacking(hackTest, "Comms Attack target");
  for (const [program, targets] of Object.entries(skills.comms_attack ?? {})) {
    for (const target of targets) {
      panel.append(button(`Comms Attack: ${weaponName(program)} on ${nameOf(target)}`, () => declare({ type: "comms_attack", program, target }, "comms_attack"),
        { "data-hack": target, "data-program": program, disabled: !hack, title: hackWhy }));
    }
  }
  if (hackWhy && Object.keys(skills.comms_attack ?? {}).length) panel.append(el("div", { class: "why" }, hackWhy));
  if (joint && !coordinated) renderPeripheralChoices(panel, peripheralSkills);
  const simple = el("div", {});
  if (all((x) => x.dodge, "dodge")) simple.append(button("Dodge", () => declare({ type: "dodge" }, "dodge"), { id: "declare-dodge" }));
  if (all((x) => x.reset, "reset")) simple.append(button("Reset", () => declare({ type: "reset" }, "reset"), { id: "declare-reset" }));
  if (all((x) => x.idle, "idle")) simple.append(button("Idle", () => declare({ type: "idle" }, "idle"), { id: "declare-idle" }));
  if (all((x) => x.suppressive_fire, "suppressive_fire")) simple.append(button("Suppressive Fire (Entire Order)", () => declare({ type: "suppressive_fire" }, "suppressive_fire"), { id: "declare-suppressive-fire" }));
  panel.append(simple);
}

/** What each other trooper of a Coordinated Order does with the Spearhead's `skill`, in words. */
function coordinatedNotes(skill, peripheralSkills) {
  return Object.entries(peripheralSkills).map(([id, offered]) =>
    `${eventHistory.names.label(id).text}: ${participantSkill(skill, offered, participantContext(id)).note}`);
}

/** A Coordinated Order's trooper for participantSkill: its weapons, the catalogue, names, the weapon picked for it. */
function participantContext(id) {
  return { weapons: conn.view.trooper(id)?.profile?.weapons ?? [], kindOf: (w) => catalogueWeapon(w)?.kind,
    name: (t) => eventHistory.names.label(t).text ?? t, weaponName, preferred: ui.peripheralChoice[id] ?? null };
}

/**
 * A Coordinated Order's BS Attack (DIGEST 3.4): the Spearhead's weapon and its one target
 * (half the Burst, rounded up, all on it); each other trooper shoots that target with B1 with
 * a weapon of its own that reaches it (chosen here when it has several), or, without Line of
 * Fire to it, declares the attack and performs Idle. Always declarable once the Spearhead has
 * a target; what each trooper will do is written under it.
 */
function renderCoordinatedAttackForm(panel, skills) {
  const shots = shotsNow(skills);
  const weapons = Object.keys(shots);
  if (!weapons.length) return;
  if (!weapons.includes(ui.attack.weapon ?? "")) ui.attack = { weapon: weapons[0], split: {} };
  const info = shots[ui.attack.weapon];
  let target = Object.keys(ui.attack.split)[0];
  if (!info.targets.includes(target)) { target = info.targets[0]; ui.attack.split = { [target]: 1 }; }
  const weaponSelect = el("select", { id: "weapon", onchange: (e) => { ui.attack = { weapon: e.target.value, split: ui.attack.split }; render(); } },
    ...weapons.map((w) => el("option", { value: w, selected: w === ui.attack.weapon }, `${weaponName(w)} (${shots[w].template ? "template" : `B${shots[w].burst}`})`)));
  const targetSelect = el("select", { id: "coordinated-target", onchange: (e) => { ui.attack.split = { [e.target.value]: 1 }; render(); } },
    ...info.targets.map((t) => el("option", { value: t, selected: t === target }, eventHistory.names.label(t).text)));
  const skill = { type: "bs_attack", weapon: ui.attack.weapon, targets: [{ trooper: target, burst: info.template ? 1 : info.burst }],
    ...(ui.firingPoint ? { firing_point: ui.firingPoint } : {}) };
  // The Success Value of each trooper's shot, before it is declared (the server's previews).
  const sv = (/** @type {any} */ preview, /** @type {Record<string, string>} */ attrs) => el("span",
    { class: `shot-sv${preview?.automatic_failure ? " auto-fail" : ""}`, ...attrs }, ` ${shotPreviewText(preview)}`);
  const form = el("div", { class: "attack", id: "coordinated-attack" }, "BS Attack: ", weaponSelect, " at ", targetSelect,
    el("span", { id: "burst-total" }, ` ${info.template ? "template" : `B${info.burst}`} `),
    sv(info.shots?.[target], { "data-shot-sv": target }),
    button("Declare BS Attack", () => declare(skill, "bs_attack"), { id: "declare-bs" }));
  const rows = el("div", { id: "coordinated-troopers" }, "With it:");
  for (const [id, offered] of Object.entries(skills.peripherals ?? {})) {
    const { note, acts, skill: own } = participantSkill(skill, offered, participantContext(id));
    const reaching = Object.entries(offered.bs_attack ?? {}).filter(([, s]) => s.targets.includes(target)).map(([w]) => w);
    const row = el("div", { "data-participant": id, class: acts ? "" : "idle-note" }, named(id), `: ${note}`);
    const preview = acts ? offered.bs_attack?.[own.weapon]?.shots?.[target] : null;
    if (preview) row.append(sv(preview, { "data-participant-sv": id }));
    if (reaching.length > 1) {
      row.append(" ", el("select", { "data-peripheral-choice": id, onchange: (e) => { ui.peripheralChoice[id] = e.target.value; render(); } },
        ...reaching.map((w) => el("option", { value: w, selected: (ui.peripheralChoice[id] ?? reaching[0]) === w }, weaponName(w)))));
    }
    rows.append(row);
  }
  form.append(rows);
  panel.append(form);
}

/** The route(s) being drawn, their length against MOV, the end facing and the movement skills. */
function renderRouteForm(panel, order, activated, routeSkills) {
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
    ...enemies.map((x) => el("option", { value: `enemy:${x.id}`, selected: ui.facing === `enemy:${x.id}` }, `towards ${eventHistory.names.label(x.id).text}`)));
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
  row.append(button("Clear route", () => { ui.routes[ui.routeFor] = []; render(); }, { id: "clear-route" }));
  panel.append(row);
  if (why) panel.append(el("div", { class: "why", id: "route-why" }, why));
}

/** Firing point of a BS Attack after a move: where it stands, or a corner of its path. */
function renderFiringPoints(panel, skills, order) {
  const corners = skills.firing_points ?? [];
  if (!corners.length || !Object.keys(skills.bs_attack).length && !corners.some((f) => Object.keys(f.bs_attack).length)) return;
  const same = (p) => ui.firingPoint && p[0] === ui.firingPoint[0] && p[1] === ui.firingPoint[1];
  if (ui.firingPoint && !corners.some((f) => same(f.point))) ui.firingPoint = null;
  const choose = (point) => { ui.firingPoint = point; ui.attack = { weapon: null, split: {} }; render(); };
  const names = pathPointNames(order.path ?? [], corners.map((f) => f.point));
  panel.append(el("div", { id: "firing-points" }, "Fire from: ",
    button(names.here, () => choose(null), { "data-firing-point": "here", class: ui.firingPoint ? "" : "chosen" }),
    ...corners.map((f, i) => button(names.corners[i], () => choose(f.point), { "data-firing-point": f.point.join(","), class: same(f.point) ? "chosen" : "" })),
    el("span", { class: "hint" }, " (or click a marked point of the path)")));
}

/** The BS Attack choices at the chosen firing point. */
function shotsNow(skills) {
  if (!ui.firingPoint) return skills.bs_attack;
  const f = (skills.firing_points ?? []).find((x) => x.point[0] === ui.firingPoint[0] && x.point[1] === ui.firingPoint[1]);
  return f?.bs_attack ?? {};
}

/** BS Attack: a legal weapon, then its Burst split between the targets it may hit. */
function renderAttackForm(panel, skills, jointOk) {
  const shots = shotsNow(skills);
  const weapons = Object.keys(shots);
  if (!weapons.length) return;
  const joint = Object.keys(skills.peripherals ?? {}).length > 0;
  if (!weapons.includes(ui.attack.weapon ?? "")) ui.attack = { weapon: weapons[0], split: {} };
  const info = shots[ui.attack.weapon];
  const select = el("select", { id: "weapon", onchange: (e) => { ui.attack = { weapon: e.target.value, split: {} }; render(); } },
    ...weapons.map((w) => el("option", { value: w, selected: w === ui.attack.weapon }, `${weaponName(w)} (${shots[w].template ? "template" : `B${shots[w].burst}`})`)));
  const form = el("div", { class: "attack" }, "BS Attack: ", select);
  const split = ui.attack.split;
  if (!Object.keys(split).length) split[info.targets[0]] = info.template ? 1 : info.burst;
  for (const target of info.targets) {
    const input = el("input", { type: "number", min: 0, max: info.template ? 1 : info.burst, value: split[target] ?? 0, "data-burst": target, style: "width:3em",
      onchange: (e) => { split[target] = Number(e.target.value); render(); } });
    // The server's preview of the full Burst on this target: final SV with every MOD (or
    // the template's reach), flagged when the shot would fail without dice.
    const preview = info.shots?.[target];
    form.append(el("label", {}, " ", named(target), " ", input,
      el("span", { class: `shot-sv${preview?.automatic_failure ? " auto-fail" : ""}`, "data-shot-sv": target }, ` ${shotPreviewText(preview)}`)));
  }
  const assigned = Object.values(split).reduce((a, b) => a + b, 0);
  // A template weapon places one teardrop per Burst point, each aimed at the target it names.
  const valid = (!info.template || Object.values(split).every((n) => n === 0 || n === 1)) && assigned === info.burst;
  const why = !valid ? (info.template ? `Name ${info.burst} Main Target${info.burst > 1 ? "s" : ""}, one per template (1 each).` : `Split the whole Burst: ${assigned} of ${info.burst} assigned.`)
    : joint && !jointOk ? `${Object.entries(skills.peripherals ?? {}).filter(([, x]) => !Object.keys(x.bs_attack).length).map(([id]) => eventHistory.names.label(id).text).join(", ")} has no target to shoot (a Peripheral declares its Controller's skill).`
      : "";
  form.append(el("span", { id: "burst-total", class: valid ? "" : "over" }, ` ${assigned}/${info.burst}${info.template ? " template" : ""} `),
    button("Declare BS Attack", () => declare({ type: "bs_attack", weapon: ui.attack.weapon,
      targets: Object.entries(split).filter(([, n]) => n > 0).map(([trooper, burst]) => ({ trooper, burst })),
      ...(ui.firingPoint ? { firing_point: ui.firingPoint } : {}) }, "bs_attack"), { id: "declare-bs", disabled: Boolean(why), title: why }));
  if (why) form.append(el("div", { class: "why", id: "bs-why" }, why));
  panel.append(form);
}

/** A joint activation: each Peripheral's own details for the skill its Controller declares. */
function renderPeripheralChoices(panel, peripheralSkills) {
  const box = el("div", { class: "panel", id: "peripheral-choices" }, "Peripherals (their own targets for the same skill):");
  for (const [id, s] of Object.entries(peripheralSkills)) {
    /** @type {[string, Record<string, any>][]} */
    const choices = [];
    for (const [weapon, shot] of Object.entries(s.bs_attack)) for (const target of shot.targets) {
      choices.push([`shoot ${eventHistory.names.label(target).text} with ${weaponName(weapon)} (${shot.template ? "template" : `B${shot.burst}`}: ${shotPreviewText(shot.shots?.[target])})`, { type: "bs_attack", weapon, targets: [{ trooper: target, burst: shot.template ? 1 : shot.burst }] }]);
    }
    for (const [weapon, targets] of Object.entries(s.cc_attack)) for (const target of targets) choices.push([`CC ${eventHistory.names.label(target).text} (${weaponName(weapon)})`, { type: "cc_attack", weapon, target }]);
    for (const target of s.discover) choices.push([`Discover ${eventHistory.names.label(target).text}`, { type: "discover", target }]);
    for (const [program, targets] of Object.entries(s.comms_attack ?? {})) for (const target of targets) choices.push([`${weaponName(program)} on ${eventHistory.names.label(target).text}`, { type: "comms_attack", program, target }]);
    if (!choices.length) continue;
    const select = el("select", { "data-peripheral-choice": id, onchange: (e) => { ui.peripheralChoice[id] = e.target.value; } },
      ...choices.map(([text, skill]) => el("option", { value: JSON.stringify(skill), selected: ui.peripheralChoice[id] === JSON.stringify(skill) }, text)));
    ui.peripheralChoice[id] ??= select.value;
    box.append(el("div", {}, named(id), " (for an attack or Discover): ", select));
  }
  panel.append(box);
}

/** Each Peripheral's skill of type `type` for a joint declaration (null: one has no such choice). */
function peripheralsFor(type, routes, skill) {
  const skills = conn.currentOptions()?.skills;
  const all = skills?.peripherals ?? {};
  const ids = Object.keys(all);
  const out = [];
  for (const id of ids) {
    // A Coordinated Order's trooper whose state forbids the skill performs Idle (DIGEST 3.4).
    if (all[id]?.idle_for?.includes(type)) { out.push({ trooper: id, skill: { type: "idle" } }); continue; }
    if (routes?.[id]) { out.push({ trooper: id, skill: routes[id] }); continue; }
    // The Spearhead's skill and target, as each other trooper declares it (coordinated-order.js).
    if (skills?.coordinated) { out.push({ trooper: id, skill: participantSkill(skill, all[id], participantContext(id)).skill }); continue; }
    if (["idle", "dodge", "reset"].includes(type)) { out.push({ trooper: id, skill: { type } }); continue; }
    const chosen = ui.peripheralChoice[id] ? JSON.parse(ui.peripheralChoice[id]) : null;
    if (!chosen || chosen.type !== type) {
      $("message").textContent = `Choose ${eventHistory.names.label(id).text}'s ${type.replace("_", " ")} (its own target) in the Peripherals panel first.`;
      return null;
    }
    out.push({ trooper: id, skill: chosen });
  }
  return out;
}

async function activate(trooper, order) {
  const peripherals = [...ui.peripherals].filter((p) => conn.currentOptions()?.peripherals?.[trooper]?.includes(p));
  const answer = await send({ type: "activate", trooper, order, ...(peripherals.length ? { peripherals } : {}) });
  if (answer.ok) { resetDeclaration(); ui.peripherals = new Set(); render(); }
}

/** Declare the active trooper's skill (and, in a joint activation, each Peripheral's). */
async function declare(skill, type = skill.type, routes = undefined) {
  const peripherals = peripheralsFor(type, routes, skill);
  if (!peripherals) return;
  const answer = await send({ type: "declare_skill", skill, ...(peripherals.length ? { peripherals } : {}) });
  if (answer.ok) { resetDeclaration(); render(); }
}

/** Loss of Lieutenant: this player picks its new Lieutenant among the server's candidates
 * (options.appoint_lieutenant); the opponent is never told who. */
function renderLieutenantPanel(state, options) {
  const panel = $("lieutenant-panel");
  const inLoss = isSeat() && (state.loss_of_lieutenant ?? []).includes(conn.role);
  const offered = (options?.appoint_lieutenant ?? []).map((c) => (typeof c === "string" ? c : c.trooper));
  const told = state.lieutenant_choice?.[conn.role ?? ""]; // the seat's own lieutenant_appointed event
  if (told && told !== kept.get(`${conn.role}:lieutenant`)) kept.set(`${conn.role}:lieutenant`, told);
  let chosen = kept.get(`${conn.role}:lieutenant`);
  if (chosen && isSeat() && !inLoss && state.loss_of_lieutenant) { kept.remove(`${conn.role}:lieutenant`); chosen = null; } // appointed: over
  panel.hidden = !(inLoss || offered.length) || (!offered.length && !chosen);
  panel.replaceChildren();
  if (panel.hidden) return;
  const name = (id) => `${conn.view.trooper(id)?.profile?.name ?? ""} ${id}`.trim();
  if (chosen) panel.append(el("div", { id: "lieutenant-chosen" }, `Your Lieutenant will be ${name(chosen)} (secret from your opponent).`));
  if (!offered.length) return;
  panel.append(el("div", {}, chosen ? "Change your choice:" : "Choose your new Lieutenant (secret from your opponent):"));
  for (const id of offered) {
    panel.append(button(name(id), async () => {
      const answer = await send({ type: "appoint_lieutenant", trooper: id });
      if (answer.ok) { kept.set(`${conn.role}:lieutenant`, id); render(); }
    }, { "data-lieutenant": id, class: chosen === id ? "chosen" : "" }));
  }
}

/** Orders this player has left this turn, counted as the server counts them (order_pool.orders_left). */
function ordersLeft(orders) {
  return Object.values(orders?.pools ?? {}).reduce((n, k) => n + k, 0) + (orders?.irregular ?? []).length
    + (orders?.tactical ?? []).length + (orders?.lieutenant ? 1 : 0);
}

/**
 * End turn; with Orders left that a trooper may still spend, public or private, ask first ("End turn with 7 Orders
 * unspent?"). The game never ends a turn by itself when the Orders run out (a private Order may remain, and the
 * opponent must not tell), so once they are spent the button says so; the app never sends end_turn by itself either.
 */
function endTurnControl(state, options) {
  const usable = Object.keys(options.activate ?? {}).length > 0 ? ordersLeft(state.orders) : 0;
  const privateLeft = (options.reveal ?? []).length + Object.keys(options.combat_jump ?? {}).length;
  const left = usable + privateLeft;
  const turn = `${state.round}:${state.turn}:${state.active}:${state.orders_spent ?? 0}`; // an Order spent meanwhile: ask again
  const end = async () => { ui.confirmEndTurn = null; render(); await send({ type: "end_turn" }); };
  if (ui.confirmEndTurn !== turn) {
    const endButton = button("End turn", left > 0 ? () => { ui.confirmEndTurn = turn; render(); } : end, { id: "end-turn" });
    if (ordersLeft(state.orders) > 0) return endButton;
    const hint = privateLeft > 0 ? "All your public Orders are spent; your private Order is still yours to use. " : "All your Orders are spent. ";
    return el("div", { id: "orders-spent" }, hint, endButton);
  }
  const counted = [...(usable ? [`${usable} Order${usable === 1 ? "" : "s"}`] : []),
    ...(privateLeft ? [`${privateLeft} private Order${privateLeft === 1 ? "" : "s"}`] : [])].join(" and ");
  return el("div", { id: "end-turn-confirm", class: "confirm" }, `End turn with ${counted} unspent? `,
    button("Yes, end turn", end, { id: "confirm-end-turn", class: "danger" }),
    button("No, keep playing", () => { ui.confirmEndTurn = null; render(); }, { id: "cancel-end-turn" }));
}

/** A seat may concede at any time before the game is over, after a confirmation. */
function renderConcede(state) {
  const box = $("concede-box");
  box.hidden = !isSeat() || state.phase === "game_over";
  box.replaceChildren();
  if (box.hidden) return;
  if (!ui.confirmConcede) {
    box.append(button("Concede the game...", () => { ui.confirmConcede = true; render(); }, { id: "concede" }));
    return;
  }
  box.append(el("span", {}, "Concede? Your opponent wins the game. "),
    button("Yes, concede", async () => { ui.confirmConcede = false; await send({ type: "concede" }); render(); }, { id: "confirm-concede", class: "danger" }),
    button("No, play on", () => { ui.confirmConcede = false; render(); }, { id: "cancel-concede" }));
}

function onTableClick(point, trooper) {
  if (rulerClick(conn, point, trooper)) return; // the ruler, when on, takes table clicks
  if (gutsPanel.click(point)) return; // the Guts window's destination, while this seat owes it
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
  const jump = ui.jumping ? options?.combat_jump?.[ui.jumping] : null;
  if (jump && !state.order) {
    const zone = state.initiative?.zones?.[conn.role];
    const facing = zone === "north" ? 270 : 90;
    send({ type: "combat_jump", trooper: ui.jumping, position: point, facing, fallback: jump.fallback, fallback_facing: jump.fallback_facing })
      .then((a) => { if (a.ok) { ui.jumping = null; render(); } });
    return;
  }
  const skills = options?.skills;
  if (!state.order || !skills) return;
  // A click on (or near) a corner of the path already moved picks it as the firing point.
  const corner = (skills.firing_points ?? []).find((f) => Math.hypot(f.point[0] - point[0], f.point[1] - point[1]) < 0.6);
  if (corner) { ui.firingPoint = corner.point; ui.attack = { weapon: null, split: {} }; render(); return; }
  if (skills.route_skills.length) {
    const id = ui.routeFor ?? state.order.trooper;
    (ui.routes[id] ??= []).push(point);
    render();
  }
}

if (params.get("room") && params.get("organizer")) startOrganizer(params.get("room"), params.get("organizer"));
else if (params.get("room")) startGame(params.get("room"), params.get("token"));
else startLobby();
window.addEventListener("hashchange", () => location.reload());
