// The game page's wiring (index.html): by the link's fragment the lobby (lobby.js), a room
// organizer's page, or a game. For a game it makes the connection and the parts that draw it,
// the table (table.js), the roster, the setup panel and army picker, the order panel
// (order-panel.js), the ARO and Guts windows, the dice panel (dice-panel.js), the event log,
// and redraws them all at each change of the view. What it draws itself: the status bar, the
// selected trooper, the Lieutenant's secret appointment, the concession and a final close.
// The UI state they share is ui-state.js. Every choice the page offers comes from the
// server's `options` for this seat (the rules core decides what is legal); the app only lays
// those choices out and draws routes.
import { GameConnection, websocketUrl } from "./lib/connection.js";
import { CloseCode, ProtocolReason } from "./lib/protocol-constants.js";
import { drawTable, hoverTrooper } from "./table.js";
import { renderRoster } from "./roster.js";
import { rulerClick } from "./ruler.js";
import { resultText } from "./describe.js";
import { EventHistory } from "./history.js";
import { createAroPanel } from "./aro-panel.js";
import { createGutsPanel } from "./guts-panel.js";
import { createOrderPanel } from "./order-panel.js";
import { createDicePanel } from "./dice-panel.js";
import { createArmyPicker } from "./army-picker.js";
import { clocksFromFrame, clocksNow } from "./overlay-model.js";
import { learnWeapons, loadCatalogue, weaponName } from "./catalogue.js";
import { startLobby, startOrganizer } from "./lobby.js";
import { renderSetupPanel, seatsText } from "./setup-panel.js";
import { renderCommandTokens, tokensText } from "./command-tokens.js";
import { facingWords, isRotated, ordersSpentThisTurn, ownZone, turnStartMark } from "./seat-view.js";
import { el } from "./dom.js";
import { keepCredential } from "./credentials.js";
import { createUiState } from "./ui-state.js";
import { roomMemory } from "./room-memory.js";
import { createFireteamPanel } from "./fireteam-panel.js";
import { minePlanClick, newMinePlan } from "./mines.js";
import { baseRadius } from "./lib/geometry.js";
import { createObjectivesPanel } from "./objectives-panel.js";
import { SIDES, hasOp } from "./mission-words.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const params = new URLSearchParams(location.hash.slice(1));

const ui = createUiState();
/** What this tab keeps about the room across reloads. */
const kept = roomMemory(params.get("room"));

// The game's parts, each made once by startGame.
/** @type {GameConnection} */
let conn;
/** The event log and the results panel (live events and the history alike). @type {EventHistory} */
let eventHistory;
/** The ARO window: countdown, the reactive player's panel, the time-out notice. @type {ReturnType<typeof createAroPanel>} */
let aroPanel;
/** The Guts window: the owner picks where its trooper moves. @type {ReturnType<typeof createGutsPanel>} */
let gutsPanel;
/** @type {ReturnType<typeof createOrderPanel>} */
let orderPanel;
/** @type {ReturnType<typeof createFireteamPanel>} */
let fireteamPanel;
/** @type {ReturnType<typeof createDicePanel>} */
let dicePanel;
/** @type {ReturnType<typeof createArmyPicker>} */
let armyPicker;
/** The mission's objectives and OP (a game played on a mission). @type {ReturnType<typeof createObjectivesPanel>} */
let objectivesPanel;

const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);


/** Send a command; a rejection shows the server's reason. */
async function send(body, options = {}) {
  $("message").textContent = "";
  const answer = await conn.send(body, options);
  if (!answer.ok) $("message").textContent = answer.code === ProtocolReason.STORAGE_UNAVAILABLE
    ? "The server could not store your command for a minute: try it again."
    : `Rejected (${answer.code}): ${answer.message}`;
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
    showBanner();
    $("connection").textContent = conn.status;
  });
  conn.addEventListener("storage", showBanner);
  conn.addEventListener("fatal", (e) => showFatal(e.detail.code));
  conn.addEventListener("message", (e) => { // a delayed feed (a spectator's, a caster's) says how late it is
    const frame = /** @type {CustomEvent} */ (e).detail;
    if (frame.type === "welcome") ui.feedDelayS = Number(frame.delay_s ?? 0);
    const clocks = clocksFromFrame(frame, conn.view.version); // the chess clocks, as frames carry them
    if (clocks !== undefined) { ui.chessClocks = clocks; renderChessClocks(); }
  });
  objectivesPanel = createObjectivesPanel({ panel: $("objectives-panel"), role: () => conn.role });
  $("table").addEventListener("mission-marker", (e) => objectivesPanel.showMarker(/** @type {CustomEvent} */ (e).detail));
  eventHistory = new EventHistory({ log: $("log"), results: $("results"), conn, observers: [objectivesPanel.observe] });
  aroPanel = createAroPanel({ conn, names: eventHistory.names, send, panel: $("aro-panel"), clock: $("aro-clock"), notice: $("aro-notice") });
  gutsPanel = createGutsPanel({ conn, names: eventHistory.names, send, panel: $("guts-panel"), redraw: () => render() });
  orderPanel = createOrderPanel({ conn, ui, names: eventHistory.names, send, render, selectTrooper,
    say: (text) => { $("message").textContent = text; } });
  fireteamPanel = createFireteamPanel({ send, render, name: (id) => eventHistory.names.label(id).text ?? id,
    activated: () => { ui.resetActivation(); render(); } });
  dicePanel = createDicePanel({ conn, kept, room });
  armyPicker = createArmyPicker({ conn, send, contribute: dicePanel.contribute });
  conn.addEventListener("events", (e) => {
    if (conn.view.state) ui.turnMark = turnStartMark(conn.view.state, e.detail) ?? ui.turnMark;
    eventHistory.addLive(e.detail);
    aroPanel.onEvents(e.detail);
  });
  conn.connect();
  /** @type {any} */ (window).referee = conn; // for the browser tests and the curious
  setInterval(aroPanel.tick, 250);
  setInterval(gutsPanel.tick, 250);
  setInterval(renderChessClocks, 250);
}

/** A clock per side in the status bar: the running one counts down from its frame's remaining_ms. */
function renderChessClocks() {
  const shown = clocksNow(ui.chessClocks);
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
  showBanner();
}

/** The banner, when there is something to say: the page cannot join, the connection is lost,
 * or a command waits for the server's storage (a failover of its Redis: the connection sends
 * it again under its id by itself). */
function showBanner() {
  const text = ui.fatal
    || (conn?.status === "reconnecting" ? "Connection lost - reconnecting..." : "")
    || (conn?.waitingForStorage > 0 ? "The server could not store your last command yet: it is sent again by itself in a moment." : "");
  $("banner").textContent = text;
  $("banner").hidden = !text;
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
  dicePanel.render();
  if (!state) return;
  const options = conn.currentOptions();
  // A brought list's own weapons: one's own list whole (`arsenal`), every other list's as its
  // open summary gives them (`weapons`: those its shown troopers carry).
  for (const [side, army] of Object.entries(state.armies ?? {})) {
    learnWeapons(isSeat() && side === conn.role ? army?.arsenal : army?.weapons);
  }
  ui.rotated = isRotated(state, conn.role, ui.viewFrom);
  renderViewToggle();
  ui.guts = gutsPanel.marks();
  drawTable(/** @type {any} */ ($("table")), view, conn.role, ui, options, onTableClick, selectTrooper);
  renderRoster($("roster"), view, conn.role, ui, selectTrooper, hoverTrooper);
  renderGameOver(state);
  objectivesPanel.render(state);
  renderSetup(state, options);
  renderSelection(options);
  // Fireteams: the seat's own (N5), outside an Order in progress.
  fireteamPanel.render($("fireteam-panel"), isSeat() && options && !state.order ? options.fireteams ?? null : null);
  orderPanel.render(state, options);
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
  ui.select(id);
  render();
}

/** The result with victory points, once the game is over (everyone sees it), and the dice check. */
function renderGameOver(state) {
  const box = $("game-over");
  box.hidden = state.phase !== "game_over" || !state.result;
  box.replaceChildren();
  if (!box.hidden) {
    box.append(el("div", { id: "game-over-text" }, `Game over: ${resultText(state.result)}`));
    // On a mission: each side's OP (which decide the game) and VP (the tie-break), the winner marked.
    if (hasOp(state.result)) {
      box.append(el("div", { id: "result-score" }, ...SIDES.map((side) => el("div", { class: `result-side side-${side}${state.result.winner === side ? " winner" : ""}`, "data-result-side": side },
        `Player ${side}${state.result.winner === side ? " ★" : ""}: `, el("b", { "data-result-op": side }, String(state.result.op?.[side] ?? 0)), " OP · ",
        el("span", { "data-result-vp": side }, String(state.result.victory_points?.[side] ?? "?")), " VP"))));
    }
  }
  // Replays (issue 39, the replay viewer): the game steps through at replay.html, this tab's view first.
  if (!box.hidden) {
    const view = isSeat() ? conn.role : conn.role === "caster" ? "revealed" : "spectator";
    box.append(el("div", {}, el("a", { id: "watch-replay", href: `replay.html#room=${encodeURIComponent(params.get("room") ?? "")}&view=${view}`, target: "_blank", rel: "noopener",
      title: "Step through the game event by event, in either player's view or with everything revealed (once the record is published)" }, "Watch the replay")));
  }
  dicePanel.renderEnd(state);
}

const ROLE_NAMES = { spectator: "Spectator", caster: "Caster (both sides' hidden information)" };

/** Round, turn, phase, who is active, order counters, seats and spectators: always shown. */
function renderStatus(state) {
  const late = ui.feedDelayS > 0 ? `, ${Math.round(ui.feedDelayS)} s behind the game` : "";
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
  const spent = playing ? ordersSpentThisTurn(state, ui.turnMark) : null;
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
  if (picking) armyPicker.render(state.ruleset, options);
  renderSetupPanel($("setup-panel"), state, options, { conn, ui, send, selectTrooper, render, deploy });
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
const viewerZone = () => ownZone(conn.view.state, conn.role);

/** Loss of Lieutenant: this player picks its new Lieutenant among the server's candidates
 * (options.appoint_lieutenant); the opponent is never told who. */
function renderLieutenantPanel(state, options) {
  const panel = $("lieutenant-panel");
  const inLoss = isSeat() && (state.loss_of_lieutenant ?? []).includes(conn.role);
  const offered = (options?.appoint_lieutenant ?? []).map((c) => (typeof c === "string" ? c : c.trooper));
  const told = isSeat() ? state.lieutenant_choice : null; // the seat's own choice (its lieutenant_appointed event)
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

/** Deploy a trooper at `point` (a Minelayer with the Mines of its plan): facing the enemy's edge,
 * hidden when ticked, with the Infiltration fallback the server proposed. */
function deploy(id, point, mines = []) {
  const state = conn.view.state;
  const options = conn.currentOptions();
  const zone = state.initiative?.zones?.[conn.role];
  const facing = zone === "north" ? 270 : 90; // degrees: face the enemy's edge
  const hidden = ui.deployHidden && options.deploy_hidden.includes(id);
  // Infiltration into the enemy half: where it stands if the PH-3 Roll fails (the server's proposal).
  const fallback = options.deploy_beyond_zone?.[id]?.infiltration?.fallback;
  // Terrain with a choice of Types: the first the server offers (options.deploy_terrain).
  const terrain = options.deploy_terrain?.[id]?.[0];
  send({ type: "deploy", trooper: id, position: point, facing, hidden, ...(fallback ? { fallback, fallback_facing: facing } : {}),
    ...(mines.length ? { mines } : {}), ...(terrain ? { terrain } : {}) }).then((a) => {
    if (a.ok) { ui.deployHidden = false; ui.minePlan = null; ui.selected = mine(conn.view.state).find((x) => !x.position)?.id ?? null; render(); }
  });
}

/** A click on the table: the ruler's when on, the Guts window's destination, a deployment, else the order panel's. */
function onTableClick(point, trooper) {
  if (rulerClick(conn, point, trooper)) return; // the ruler, when on, takes table clicks
  if (gutsPanel.click(point)) return; // the Guts window's destination, while this seat owes it
  const state = conn.view.state;
  if (!state || !isSeat()) return;
  const options = conn.currentOptions();
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  if (state.phase === "deployment" && t && options?.deploy.includes(t.id)) {
    const layer = options.minelayer?.[t.id];
    if (layer) { // a Minelayer: its spot, then its Mines; the setup panel's button deploys (mines.js)
      if (ui.minePlan?.trooper !== t.id) ui.minePlan = newMinePlan(t.id);
      minePlanClick(ui.minePlan, layer, baseRadius(t), point);
      render();
      return;
    }
    deploy(t.id, point);
    return;
  }
  orderPanel.click(point);
}

if (params.get("room") && params.get("organizer")) startOrganizer(params.get("room"), params.get("organizer"));
else if (params.get("room")) startGame(params.get("room"), params.get("token"));
else startLobby();
window.addEventListener("hashchange", () => location.reload());
