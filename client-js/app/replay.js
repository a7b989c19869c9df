// The replay viewer's wiring (replay.html): a finished game's replay, `#room=<room>` (or a
// record file loaded here, `#replay=<id>`), with `&view=A|B|spectator|revealed&step=i`. The
// server folds every step's state with the rules core (the replay contract: GET
// /api/rooms/{room}/replay for the steps with their events, …/replay/state for one step's view
// state, event, ARO window and clocks); this page only draws them, with the live app's own
// parts: the table (table.js), the roster, the event log and results (history.js: the log up to
// the step, from the steps list's events, as a tab that loaded the history shows it), the ARO
// countdown and panel (aro-panel.js), the objectives panel and the dice check (dice-panel.js).
// They read a replay "connection" (`conn` below): a view holding the step's state, the view's
// role, no options (a replay plays no commands) and the history of the step's events. The positions (stepping by event,
// Order, turn and round, the matching step of another view, play speeds) are replay-model.js.
import { LocalView } from "./lib/view.js";
import { drawTable, hoverTrooper } from "./table.js";
import { renderRoster } from "./roster.js";
import { resultText } from "./describe.js";
import { EventHistory } from "./history.js";
import { createAroPanel } from "./aro-panel.js";
import { showDiceCheck } from "./dice-panel.js";
import { clocksNow } from "./overlay-model.js";
import { learnWeapons, loadCatalogue, weaponName } from "./catalogue.js";
import { tokensText } from "./command-tokens.js";
import { isRotated } from "./seat-view.js";
import { createUiState } from "./ui-state.js";
import { createObjectivesPanel } from "./objectives-panel.js";
import { el } from "./dom.js";
import { SPEEDS, VIEWS, VIEW_NAMES, clocksAt, historyUpTo, matchingStep, parseReplayHash, playDelayMs, positionText, refusalText,
  replayHash, replayUrls, roleOf, roomGapMs, standingAt, stepTarget } from "./replay-model.js";

/** @typedef {import("./replay-model.js").Step} Step @typedef {import("./replay-model.js").ReplayView} ReplayView */
/**
 * One step as the server answers it (…/replay/state).
 * @typedef {{index: number, version: number, state: Record<string, any>, event: Record<string, any> | null,
 *   window: Record<string, any> | null, clocks: Record<string, any> | null}} StepState
 */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Where the page is: the replay (room or loaded record), the view and the step. */
const link = parseReplayHash(location.hash);
/** The replay of the current view (the steps endpoint's answer), or null before it loads. @type {Record<string, any> | null} */
let replay = null;
/** @type {Step[]} */
let steps = [];
/** The step drawn. */
let index = 0;
/** The step last asked for (drawn once it arrives): steps and keys go on from it, not from the one still on screen. */
let wanted = 0;
/** The step drawn, as the server gave it. @type {StepState | null} */
let shown = null;
/** When the step was drawn (this page's clock): the clocks run from there while playing. */
let shownAt = Date.now();
/** The record file loaded in this tab (posted again if the server forgot it; its dice are checked here). */
let loadedRecord = /** @type {any} */ (null);
let playing = false;
let speed = 1;
let timer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
/** Each request to show a step; an older one that answers late is dropped. */
let showing = 0;

/** The states of the last few steps drawn (the log's events come with the steps list). @type {Map<number, StepState>} */
const states = new Map();
const STATES_KEPT = 48;

const ui = createUiState();

/** What the app's parts read as "the connection": the step's view, the view's role, no options. */
const conn = {
  view: new LocalView(),
  role: /** @type {string | null} */ (roleOf(link.view)),
  settings: /** @type {Record<string, any>} */ ({}),
  spectators: 0,
  diceCommitment: null,
  currentOptions: () => null,
  send: async () => ({ ok: false, code: "replay", message: "A replay plays no commands." }),
  /** The events of every step up to the one drawn (from the steps list): the log shows them as a tab that loaded its history. */
  loadHistory: async () => historyUpTo(steps, index),
};

/** The event log and the results, and the objectives panel that tallies them: made again when stepping back. */
let eventHistory = /** @type {EventHistory} */ (/** @type {unknown} */ (null));
let objectivesPanel = /** @type {ReturnType<typeof createObjectivesPanel>} */ (/** @type {unknown} */ (null));
/** The ARO panel names troopers as the current log does. */
const names = { label: (/** @type {string} */ id) => eventHistory.names.label(id) };
const aroPanel = createAroPanel({ conn, names, send: conn.send, panel: $("aro-panel"), clock: $("aro-clock"), notice: $("aro-notice") });

function newHistory() {
  $("log").replaceChildren();
  $("results").replaceChildren();
  objectivesPanel = createObjectivesPanel({ panel: $("objectives-panel"), role: () => conn.role });
  eventHistory = new EventHistory({ log: $("log"), results: $("results"), conn, observers: [objectivesPanel.observe] });
}
$("table").addEventListener("mission-marker", (e) => objectivesPanel.showMarker(/** @type {CustomEvent} */ (e).detail));

// --- fetching --------------------------------------------------------------------------------

class Refused extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    super(refusalText(status, body));
    this.status = status;
    this.code = body?.error ?? "";
  }
}

/** GET a JSON answer; a refusal throws Refused. A loaded record the server forgot is posted again once. @param {string} url */
async function getJson(url) {
  let response = await fetch(url);
  if (response.status === 404 && loadedRecord && link.replay) {
    const again = await response.clone().json().catch(() => null);
    if (again?.error === "replay_not_found") {
      await postRecord(loadedRecord);
      response = await fetch(url);
    }
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Refused(response.status, body);
  return body;
}

const urls = () => replayUrls(link, link.view);

/** One step of the current view (kept among the last few). @param {number} i @returns {Promise<StepState>} */
async function stepState(i) {
  const kept = states.get(i);
  if (kept) {
    states.delete(i);
    states.set(i, kept);
    return kept;
  }
  const view = link.view;
  const answer = /** @type {StepState} */ (await getJson(urls().state(i)));
  if (view !== link.view) throw new Error("the view changed");
  states.set(i, answer);
  while (states.size > STATES_KEPT) states.delete(/** @type {number} */ (states.keys().next().value));
  return answer;
}

/** Post a record file; the replay's id. @param {any} record */
async function postRecord(record) {
  const response = await fetch("/api/replays", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(record) });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Refused(response.status, body);
  return String(body.replay);
}

// --- showing a step -------------------------------------------------------------------------------

function say(/** @type {string} */ text) {
  $("replay-message").textContent = text;
  $("replay-message").hidden = !text;
}

/**
 * Load the current view's steps (unless given) and show the step `at` (clamped).
 * @param {number} at @param {Record<string, any>} [answer] the view's steps, already fetched
 */
async function load(at, answer) {
  say("");
  states.clear();
  try {
    replay = answer ?? await getJson(urls().steps);
  } catch (error) {
    say(String(/** @type {Error} */ (error).message));
    return;
  }
  steps = /** @type {Step[]} */ (replay?.steps ?? []);
  conn.settings = replay?.settings ?? {};
  conn.role = roleOf(link.view);
  const slider = /** @type {HTMLInputElement} */ ($("replay-slider"));
  slider.max = String(Math.max(0, steps.length - 1));
  $("replay-title").textContent = link.room ? `Replay of room ${link.room}` : "Replay of a loaded record";
  /** @type {HTMLAnchorElement} */ ($("download-record")).href = link.room ? `/api/rooms/${encodeURIComponent(link.room)}/record` : "#";
  $("download-record").hidden = !link.room;
  $("download-record").setAttribute("download", `infinity-game-${link.room}.json`);
  $("dice-check").hidden = false;
  newHistory();
  index = -1;
  wanted = 0;
  await go(Math.max(0, Math.min(steps.length - 1, at)));
}

/**
 * Draw step `target`: its state, the log up to it, the ARO window and the clocks as they stood.
 * @param {number} target
 * @param {boolean} [played] play's own next step: dropped if play was paused while it loaded
 */
async function go(target, played = false) {
  if (!steps.length) return;
  const request = ++showing;
  wanted = target;
  let data;
  try {
    data = await stepState(target);
  } catch (error) {
    if (request === showing) { wanted = index; say(String(/** @type {Error} */ (error).message)); setPlaying(false); }
    return;
  }
  if (request !== showing) return;
  if (played && !playing) { wanted = index; return; }
  say("");
  const previous = index;
  index = target;
  shown = data;
  shownAt = Date.now();
  conn.view.applySnapshot({ version: data.version, state: data.state, window: data.window ? standingAt(data.window, 0, shownAt) : null, seats: {} });
  // Back (or a new view): the log and the results start again from the game's first event.
  if (eventHistory.next - 1 > data.version) newHistory();
  history.replaceState(null, "", replayHash({ ...link, step: index }));
  if (target === previous + 1 && data.event) aroPanel.onEvents([{ version: data.version, event: data.event }]);
  render();
  schedule();
}

function render() {
  const state = conn.view.state;
  const step = steps[index];
  /** @type {HTMLInputElement} */ ($("replay-slider")).value = String(index);
  $("replay-position").textContent = positionText(steps, index);
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#replay-bar [data-step]"))) {
    button.disabled = Number(button.dataset.dir) < 0 ? index <= 0 : index >= steps.length - 1;
  }
  $("role").textContent = `Replay: ${VIEW_NAMES[link.view]}`;
  $("version").textContent = String(conn.view.version);
  if (!state || !step) return;
  $("phase").textContent = state.phase;
  $("round").textContent = `round ${state.round}, turn ${state.turn}, active ${state.active ?? "-"}`;
  $("command-tokens").textContent = tokensText(state);
  for (const [side, army] of Object.entries(state.armies ?? {})) learnWeapons(army?.arsenal ?? army?.weapons);
  ui.rotated = isRotated(state, conn.role, ui.viewFrom);
  const toggle = $("view-toggle");
  toggle.textContent = ui.rotated ? "South ↑" : "North ↑";
  toggle.setAttribute("aria-pressed", String(ui.rotated));
  drawTable(/** @type {any} */ ($("table")), conn.view, conn.role, ui, null, () => {}, select);
  renderRoster($("roster"), conn.view, conn.role, ui, select, hoverTrooper);
  renderGameOver(state);
  objectivesPanel.render(state);
  renderSelection();
  aroPanel.render();
  eventHistory.catchUp();
  // A history that arrived after a step back holds later events: the log starts again.
  if (eventHistory.next - 1 > conn.view.version) { newHistory(); eventHistory.catchUp(); }
  eventHistory.refreshNames();
  markCurrent();
  tick();
}

/** The log's line of the step drawn stands out. */
function markCurrent() {
  for (const line of $("log").querySelectorAll("li.current")) line.classList.remove("current");
  const line = $("log").querySelector(`li[data-version="${conn.view.version}"]`);
  if (!line) return;
  line.classList.add("current");
  // Scroll the log only (scrollIntoView would scroll the side panel too, hiding its top).
  const log = $("log");
  const top = line.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop;
  if (top < log.scrollTop || top + line.clientHeight > log.scrollTop + log.clientHeight) log.scrollTop = top - log.clientHeight / 2;
}
// The log fills as the history arrives: mark the step's line then.
new MutationObserver(markCurrent).observe($("log"), { childList: true });

function select(/** @type {string} */ id) {
  ui.select(ui.selected === id ? null : id);
  render();
}

/** The selected trooper's profile and state, as this view held it. */
function renderSelection() {
  const t = ui.selected ? conn.view.trooper(ui.selected) : null;
  const box = $("selection");
  box.replaceChildren();
  if (!t) return;
  const p = t.profile;
  const name = eventHistory.names.label(t.id);
  box.append(el("div", { class: "panel", id: "selected-trooper", title: name.title ?? "" }, t.marker && !p ? `${name.text}: Camouflage marker` :
    `${name.text}: ${p?.name ?? "?"} MOV ${p?.mov?.join("-")} CC ${p?.cc} BS ${p?.bs} PH ${p?.ph} WIP ${p?.wip} ARM ${p?.arm} BTS ${p?.bts} W ${p?.vita} S${p?.silhouette}`
    + ` | wounds ${t.wounds ?? 0} ${t.condition ?? ""}${t.prone ? " prone" : ""}${t.hidden ? " (hidden)" : ""}${t.marker ? " (Camouflage marker)" : ""}`
    + `${t.entry?.lieutenant ? " | Lieutenant (secret)" : ""} | ${(p?.weapons ?? []).map(weaponName).join(", ")}`));
}

/** The result, at the game's end. */
function renderGameOver(/** @type {any} */ state) {
  const box = $("game-over");
  box.hidden = state.phase !== "game_over" || !state.result;
  box.replaceChildren();
  if (!box.hidden) box.append(el("div", { id: "game-over-text" }, `Game over: ${resultText(state.result)}`));
}

/**
 * The clocks and the ARO countdown as they stood at the step; while playing they run with the
 * room's time (scaled by the speed) until the next step, as they ran in the game.
 */
function tick() {
  if (!shown) return;
  const now = Date.now();
  const elapsed = playing ? Math.min(roomGapMs(steps, index), (now - shownAt) * speed) : 0;
  conn.view.window = /** @type {any} */ (standingAt(shown.window, elapsed, now));
  aroPanel.tick();
  if (shown.window && shown.window.remaining_ms == null) {
    // A loaded record has no times: the window is shown without a countdown.
    $("aro-clock").textContent = `${shown.window.guts ? "Guts move" : "ARO"}: player ${shown.window.reactive}`;
    $("aro-clock").classList.remove("urgent");
    const inPanel = document.getElementById("countdown");
    if (inPanel) { inPanel.textContent = "(no time in the record)"; inPanel.classList.remove("urgent"); }
  }
  const clocks = clocksNow(/** @type {any} */ (clocksAt(shown.clocks, elapsed, now)), now);
  $("chess-clocks").hidden = !clocks;
  if (!clocks) return;
  for (const side of /** @type {const} */ (["A", "B"])) {
    const clock = clocks[side];
    const face = /** @type {HTMLElement} */ ($("chess-clocks").querySelector(`[data-side="${side}"]`));
    face.textContent = `${side} ${clock.text}`;
    face.className = `chess-clock${clock.running ? " running" : ""}${clock.low ? " low" : ""}${clock.outOfTime ? " out" : ""}`;
  }
}
setInterval(tick, 250);

// --- controls ---------------------------------------------------------------------------------

/** Play on from the step drawn: the next one after the room's time between them, scaled (replay-model.js). */
function schedule() {
  clearTimeout(timer);
  if (!playing) return;
  const delay = playDelayMs(steps, index, speed);
  if (delay === null) { setPlaying(false); return; }
  timer = setTimeout(() => go(index + 1, true), delay);
}

function setPlaying(/** @type {boolean} */ on) {
  playing = on && index < steps.length - 1;
  const button = $("play");
  button.textContent = playing ? "⏸ pause" : "▶ play";
  button.setAttribute("aria-pressed", String(playing));
  shownAt = Date.now();
  tick(); // paused: the clocks stand as the step's frame carried them, at once
  schedule();
}

/** @param {import("./replay-model.js").StepUnit} unit @param {1 | -1} direction */
function stepBy(unit, direction) {
  go(stepTarget(steps, wanted, unit, direction));
}

for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#replay-bar [data-step]"))) {
  button.addEventListener("click", () => stepBy(/** @type {any} */ (button.dataset.step), Number(button.dataset.dir) < 0 ? -1 : 1));
}
$("play").addEventListener("click", () => setPlaying(!playing));
$("replay-slider").addEventListener("input", (e) => go(Number(/** @type {HTMLInputElement} */ (e.target).value)));

const speedPicker = /** @type {HTMLSelectElement} */ ($("replay-speed"));
speedPicker.append(...SPEEDS.map((s) => el("option", { value: s }, `${s}×`)));
speedPicker.addEventListener("change", () => { speed = Number(speedPicker.value); shownAt = Date.now(); schedule(); });

const viewPicker = /** @type {HTMLSelectElement} */ ($("replay-view"));
viewPicker.append(...VIEWS.map((v) => el("option", { value: v }, VIEW_NAMES[v])));
viewPicker.value = link.view;
viewPicker.addEventListener("change", () => switchView(/** @type {ReplayView} */ (viewPicker.value)));

/** Another view at the same moment of the game (replay-model.js matchingStep). @param {ReplayView} view */
async function switchView(view) {
  const before = steps;
  const at = index;
  link.view = view;
  const wasPlaying = playing;
  setPlaying(false);
  ui.select(null);
  let answer;
  try {
    answer = await getJson(urls().steps);
  } catch (error) {
    say(String(/** @type {Error} */ (error).message));
    return;
  }
  await load(matchingStep(before, at, answer?.steps ?? []), answer);
  if (wasPlaying) setPlaying(true);
}

$("view-toggle").addEventListener("click", () => { ui.viewFrom = ui.rotated ? "north" : "south"; render(); });

// Keys: ←/→ an event, Shift+←/→ an Order, Space play/pause (not while typing or on the slider).
document.addEventListener("keydown", (e) => {
  const target = /** @type {HTMLElement} */ (e.target);
  if (["INPUT", "SELECT", "TEXTAREA"].includes(target?.tagName) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    e.preventDefault();
    stepBy(e.shiftKey ? "order" : "event", e.key === "ArrowLeft" ? -1 : 1);
  } else if (e.key === " ") {
    e.preventDefault();
    setPlaying(!playing);
  }
});

// "Verify the dice": the live app's check of the record's dice and events (dice-panel.js).
$("verify-dice").addEventListener("click", async () => {
  const out = $("verify-result");
  out.className = "";
  if (!globalThis.crypto?.subtle) {
    out.className = "bad";
    out.replaceChildren("This browser offers the cryptography needed only on a secure page (https, or localhost). Download the game record and check it elsewhere (server/verify.py).");
    return;
  }
  let record = loadedRecord;
  if (!record && link.room) {
    out.replaceChildren("Fetching the game record...");
    try {
      record = await getJson(`/api/rooms/${encodeURIComponent(link.room)}/record`);
    } catch (error) {
      out.className = "bad";
      out.replaceChildren(`Could not fetch the game record: ${/** @type {Error} */ (error).message}`);
      return;
    }
  }
  if (!record) {
    out.className = "bad";
    out.replaceChildren("Load the record file again to check its dice (this tab no longer holds it).");
    return;
  }
  await showDiceCheck(out, record);
});

// "Load a record file": posted to the server, which folds it (POST /api/replays).
$("record-file").addEventListener("change", async (e) => {
  const file = /** @type {HTMLInputElement} */ (e.target).files?.[0];
  if (!file) return;
  let record;
  try {
    record = JSON.parse(await file.text());
  } catch {
    say("This file is not JSON: load a game record (infinity-referee-record/1).");
    return;
  }
  try {
    const id = await postRecord(record);
    loadedRecord = record;
    setPlaying(false);
    Object.assign(link, { room: null, replay: id, step: 0 });
    $("verify-result").replaceChildren();
    await load(0);
  } catch (error) {
    say(String(/** @type {Error} */ (error).message));
  }
});

/** For the browser tests and the curious: the step drawn and the view. */
/** @type {any} */ (window).replayViewer = {
  get index() { return index; },
  get view() { return link.view; },
  get steps() { return steps; },
  get shown() { return shown; },
  get playing() { return playing; },
};
/** @type {any} */ (window).referee = conn;

await loadCatalogue();
if (link.room || link.replay) {
  await load(link.step ?? 0);
} else {
  say("No game chosen: open a finished game's replay from the lobby, or load a record file.");
}
