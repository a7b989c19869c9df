// The lobby: create a room (ruleset, ARO window, uniform windows, spectator delay, mission, table, practice bot), hand out its links
// with Copy buttons (both seats, spectators, and the organizer's, which makes caster links),
// list the public rooms and the public tournaments (tournament/lobby.js), and the organizer's
// page (#room=...&organizer=...). Links are shown in copy-field.js's fields.

import { copyField } from "./copy-field.js";
import { el } from "./dom.js";
import { credentialToSend, keepCredential } from "./credentials.js";
import { refusalWords } from "./refusals.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));


const absolute = (/** @type {string} */ link) => new URL(link, location.href).href;

/** The table layouts the server offers for a ruleset, or null when it has no /api/tables. */
async function fetchTables(/** @type {string} */ ruleset) {
  try {
    const response = await fetch(`/api/tables?ruleset=${encodeURIComponent(ruleset)}`);
    if (!response.ok) return null;
    const body = await response.json();
    const list = Array.isArray(body) ? body : body.tables ?? body.layouts;
    return Array.isArray(list) ? list : null;
  } catch {
    return null;
  }
}

/** How many terrain pieces a layout (or an inline table) has, from whichever field says it. */
const pieceCount = (/** @type {any} */ t) => (typeof t.pieces === "number" ? t.pieces : typeof t.piece_count === "number" ? t.piece_count
  : Array.isArray(t.terrain) ? t.terrain.length : Array.isArray(t.pieces) ? t.pieces.length : null);
const tableLabel = (/** @type {any} */ t) => {
  const n = pieceCount(t);
  return `${t.title ?? t.id}${n === null ? "" : ` (${n} terrain piece${n === 1 ? "" : "s"})`}`;
};

/**
 * The missions the server offers for a ruleset (`GET /api/missions?ruleset=`: each with its
 * id, title, description, objectives in words), or null when it has no such route.
 * @param {string} ruleset @returns {Promise<any[] | null>}
 */
async function fetchMissions(ruleset) {
  try {
    const response = await fetch(`/api/missions?ruleset=${encodeURIComponent(ruleset)}`);
    if (!response.ok) return null;
    const body = await response.json();
    const list = Array.isArray(body) ? body : body.missions;
    return Array.isArray(list) ? list : null;
  } catch {
    return null;
  }
}

/** The missions listed for the ruleset shown, by id (the summary under the picker reads them). */
let missionsShown = /** @type {Map<string, any>} */ (new Map());

/** The mission picker: "No mission" first (the annihilation game), then the ruleset's missions. */
async function showMissions() {
  const ruleset = /** @type {HTMLSelectElement} */ ($("ruleset")).value;
  const missions = await fetchMissions(ruleset);
  if (/** @type {HTMLSelectElement} */ ($("ruleset")).value !== ruleset) return; // changed meanwhile
  $("mission-choice").hidden = missions === null; // a server without missions: annihilation only
  missionsShown = new Map((missions ?? []).map((x) => [String(x.id), x]));
  const select = /** @type {HTMLSelectElement} */ ($("mission-select"));
  select.replaceChildren(el("option", { value: "" }, "No mission (annihilation, won on Victory Points)"),
    ...(missions ?? []).map((x) => el("option", { value: x.id }, x.title ?? x.id)));
  showMissionSummary();
}

/** What the chosen mission is: its briefing, each objective in words, its Classified Objectives. */
function showMissionSummary() {
  const chosen = missionsShown.get(/** @type {HTMLSelectElement} */ ($("mission-select")).value);
  const box = $("mission-summary");
  if (!chosen) { box.replaceChildren(); return; }
  const classified = chosen.classified?.draw ? [el("li", {}, `Classified Objectives: each player draws ${chosen.classified.draw}, secret; ${chosen.classified.op} OP each once achieved.`)] : [];
  box.replaceChildren(...(chosen.description ? [el("p", {}, chosen.description)] : []),
    el("div", {}, `${chosen.rounds ?? 3} Game Rounds, up to ${chosen.max_op ?? 10} OP each:`),
    el("ul", {}, ...(chosen.objectives ?? []).map((/** @type {any} */ o) => el("li", { "data-objective": o.id }, o.text ?? o.id)), ...classified),
    ...(chosen.special_rules ?? []).map((/** @type {string} */ rule) => el("p", { class: "hint" }, rule)));
}

/** A table read from a JSON file, sent inline instead of a layout id (null: none). */
let tableFromFile = /** @type {any} */ (null);

async function showTables() {
  const ruleset = /** @type {HTMLSelectElement} */ ($("ruleset")).value;
  const tables = await fetchTables(ruleset);
  if (/** @type {HTMLSelectElement} */ ($("ruleset")).value !== ruleset) return; // changed meanwhile
  $("table-choice").hidden = tables === null; // a server without table layouts: the default table only
  if (!tables) return;
  const select = /** @type {HTMLSelectElement} */ ($("table-select"));
  select.replaceChildren(...tables.map((t) => el("option", { value: t.id, selected: t.default === true }, `${tableLabel(t)}${t.default ? ", the default" : ""}`)));
  select.disabled = tableFromFile !== null;
}

async function loadTableFile(/** @type {Event} */ event) {
  const input = /** @type {HTMLInputElement} */ (event.target);
  const file = input.files?.[0];
  const out = $("table-file-result");
  out.className = "hint";
  tableFromFile = null;
  if (file) {
    try {
      tableFromFile = JSON.parse(await file.text());
      if (typeof tableFromFile !== "object" || tableFromFile === null || Array.isArray(tableFromFile)) throw new Error("not a JSON object");
      out.textContent = `From ${file.name}: ${tableLabel(tableFromFile)}. The server checks it when the room is created.`;
    } catch (error) {
      tableFromFile = null;
      out.className = "warning-text";
      out.textContent = `${file.name} is not a table file (${error instanceof Error ? error.message : error}); the layout is used.`;
    }
  } else {
    out.textContent = "";
  }
  $("clear-table-file").hidden = tableFromFile === null;
  /** @type {HTMLSelectElement} */ ($("table-select")).disabled = tableFromFile !== null;
}

function clearTableFile() {
  tableFromFile = null;
  /** @type {HTMLInputElement} */ ($("table-file")).value = "";
  $("table-file-result").textContent = "";
  $("clear-table-file").hidden = true;
  /** @type {HTMLSelectElement} */ ($("table-select")).disabled = false;
}

async function createRoom(/** @type {SubmitEvent} */ event) {
  event.preventDefault();
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target));
  const body = /** @type {Record<string, any>} */ ({ ruleset: form.get("ruleset"), aro_window_s: Number(form.get("aro_window_s")),
    spectator_delay_s: Number(form.get("spectator_delay_s") ?? 0), clock_s: Math.round(Number(form.get("clock_min") ?? 0) * 60),
    aro_min_open_s: Number(form.get("aro_min_open_s") ?? 0) });
  const mission = form.get("mission");
  if (!$("mission-choice").hidden && mission) body.mission = mission; // none: the annihilation game
  if (!$("table-choice").hidden) {
    if (tableFromFile !== null) body.table = tableFromFile;
    else if (form.get("table")) body.table = form.get("table");
  }
  // A token of a room this browser played in (or of a tournament it runs): when the node's
  // own limits refuse the room, the server may take it from its reserve for known players.
  // Practice against the referee's bot (server/bot, docs/bot.md): the seat it plays and its level.
  if (form.get("bot")) Object.assign(body, { bot: form.get("bot"), bot_level: form.get("bot_level") || "sensible" });
  const credential = credentialToSend();
  if (credential) body.credential = credential;
  $("lobby-message").textContent = "";
  let room;
  try {
    const response = await fetch("/api/rooms", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    room = await response.json().catch(() => null);
    if (!response.ok) {
      $("lobby-message").textContent = `The server refused the room: ${refusalWords(room, response.status,
        { retryAfter: response.headers.get("retry-after"), nowMs: Date.now() })}`;
      return;
    }
  } catch (error) {
    $("lobby-message").textContent = `Could not reach the server: ${error}`;
    return;
  }
  // Its organizer token proves this browser to the reserve once a seat has played in it.
  keepCredential({ room: room.room, token: room.organizer.token }, { played: false });
  // A room against the bot has one human seat (the bot's token stays on the server): open it.
  if (body.bot) { location.assign(room.seats[body.bot === "A" ? "B" : "A"].link); return; }
  const links = { A: absolute(room.seats.A.link), B: absolute(room.seats.B.link), spectator: absolute(room.spectator_link) };
  // This tab keeps the opponent's and the spectators' links, so that the creator's seat can
  // still offer them while it waits for the opponent to join.
  try { sessionStorage.setItem(`referee:${room.room}:invite`, JSON.stringify(links)); } catch { /* private mode */ }
  $("link-a").setAttribute("href", room.seats.A.link);
  $("link-a-field").replaceChildren(copyField("link-a-text", links.A));
  $("link-b-field").replaceChildren(copyField("link-b", links.B));
  $("link-spectator-field").replaceChildren(copyField("link-spectator", links.spectator));
  $("link-organizer-field").replaceChildren(copyField("link-organizer", absolute(room.organizer.link)));
  casterMaker(/** @type {HTMLElement} */ ($("links").querySelector(".caster-maker")), room.room, room.organizer.token);
  $("links").hidden = false;
  $("links").scrollIntoView?.({ block: "nearest" });
  loadRoomList();
}

/**
 * A tournament table's name in the room list ("Winter Cup — round 2, table 3"), linked to the
 * tournament's public page; "" for a room of no public tournament.
 * @param {{ name: string, round: number, table: number, link: string } | null | undefined} t
 */
export function tournamentLabel(t) {
  if (!t) return "";
  return el("a", { class: "room-tournament", href: t.link, title: "The tournament's page: pairings, results and standings" },
    `${t.name} — round ${t.round}, table ${t.table}`);
}

/** The public rooms, with their tournament and round/table if they are a public tournament's table, and a marker on test rooms whose dice were fixed at creation. */
export async function loadRoomList() {
  const list = $("room-list");
  let rooms = [];
  try {
    const response = await fetch("/api/rooms");
    rooms = (await response.json()).rooms ?? [];
  } catch {
    list.replaceChildren(el("li", {}, "Could not load the room list."));
    return;
  }
  list.replaceChildren(...(rooms.length ? rooms.map((r) => el("li", { "data-room": r.room },
    el("a", { href: r.spectator_link, title: "Watch as a spectator" }, r.room), r.tournament ? " " : "", tournamentLabel(r.tournament),
    `${r.tournament ? "," : ""} ${r.ruleset}, ${r.phase}${r.round ? ` (round ${r.round}, turn ${r.turn})` : ""}, `,
    `${r.seats_taken} of 2 seats taken, ${r.spectators} watching `,
    r.fixed_dice ? el("span", { class: "fixed-marker", title: "The dice of this room come from a number chosen by whoever created it: they are not random for them." }, "test room: fixed dice") : "",
    // Replays (issue 39, the replay viewer): a finished game steps through at replay.html.
    r.phase === "game_over" ? el("a", { class: "room-replay", href: `replay.html#room=${encodeURIComponent(r.room)}`, "data-replay": r.room,
      title: "Step through the game: every event, in any player's view or with everything revealed" }, " Replay") : ""))
    : [el("li", {}, "No public room yet.")]));
}

/**
 * The organizer's caster links: a "Make a caster link" button, the links made so far as the
 * server records them (POST …/casters/list: each with its Copy button, its stream overlay's
 * link and a Withdraw button; a withdrawn one says when), and a field that withdraws a link
 * pasted into it (one not listed: made before rooms recorded their links). Withdrawing is at once, on
 * every node: the casters watching with that link are disconnected and it opens nothing
 * more (protocol/README.md, "Organizer and casters").
 * @param {HTMLElement} box @param {string} room @param {string} organizer
 */
export function casterMaker(box, room, organizer) {
  const list = el("ol", { class: "caster-links" });
  const message = el("div", { class: "warning-text caster-message", role: "status" });
  const done = el("div", { class: "caster-done", role: "status" });
  /** POST the organizer token to …/casters<path>; the answer, or an Error saying the refusal. */
  const post = async (/** @type {string} */ path) => {
    const response = await fetch(`/api/rooms/${encodeURIComponent(room)}/casters${path}`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ organizer }) });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw Object.assign(new Error(body.message ?? body.error ?? `HTTP ${response.status}`), { refused: true });
    return body;
  };
  /** Run an action; a failure is said under the button. */
  const act = async (/** @type {() => Promise<void>} */ action) => {
    message.textContent = "";
    try {
      await action();
    } catch (/** @type {any} */ error) {
      message.textContent = error?.refused ? `The server refused: ${error.message}` : `Could not reach the server: ${error}`;
    }
  };
  const refresh = async () => {
    const listed = await post("/list");
    list.replaceChildren(...listed.casters.map((/** @type {any} */ c, /** @type {number} */ i) => row(c, i + 1, listed.delay_s)));
  };
  const withdraw = (/** @type {string} */ nonce) => act(async () => {
    const answer = await post(`/${encodeURIComponent(nonce)}/withdraw`);
    done.textContent = answer.already_withdrawn ? `Caster link ${nonce} was already withdrawn (${clock(answer.withdrawn_ms)}).`
      : `Caster link ${nonce} withdrawn: whoever watches with it is disconnected, and it opens nothing any more.`;
    await refresh();
  });
  /** One recorded link: its links and a Withdraw button while it is in use. */
  function row(/** @type {any} */ c, /** @type {number} */ n, /** @type {number} */ delay) {
    if (!c.caster) {
      return el("li", { "data-caster": n, "data-nonce": c.nonce, class: "caster-withdrawn" },
        `Caster link ${c.nonce}: withdrawn ${clock(c.withdrawn_ms)}`, c.created_ms ? "" : " (a link not made on this page)");
    }
    return el("li", { "data-caster": n, "data-nonce": c.nonce }, `Caster link (${delay} s behind the game, made ${clock(c.created_ms)}): `,
      copyField(`link-caster-${n}`, absolute(c.caster.link)), " stream overlay: ",
      copyField(`link-caster-overlay-${n}`, absolute(c.caster.overlay_link)), " ",
      el("button", { type: "button", class: "withdraw-caster", "data-nonce": c.nonce, title: "Disconnect whoever watches with this link, and make it open nothing any more",
        onclick: () => withdraw(c.nonce) }, "Withdraw"));
  }
  const make = el("button", { type: "button", class: "make-caster", onclick: () => act(async () => {
    done.textContent = "";
    await post("");
    await refresh();
  }) }, "Make a caster link");
  const pasted = el("input", { type: "text", class: "withdraw-pasted", placeholder: "paste a caster link (or its token)", "aria-label": "A caster link to withdraw" });
  const withdrawPasted = el("button", { type: "button", class: "withdraw-pasted-button", onclick: () => {
    const text = /** @type {HTMLInputElement} */ (pasted).value;
    const nonce = casterNonce(text);
    const other = /[#&]room=([^&]+)/.exec(text)?.[1];
    if (nonce === null) { message.textContent = "This is not a caster link (…#room=…&token=c.…)."; return; }
    if (other && decodeURIComponent(other) !== room) { message.textContent = "This caster link is another room's: withdraw it from that room's organizer page."; return; }
    /** @type {HTMLInputElement} */ (pasted).value = "";
    withdraw(nonce);
  } }, "Withdraw this link");
  box.replaceChildren(el("div", { class: "hint" }, "A caster sees both sides' hidden information (Hidden Deployment, Lieutenants, Camouflage markers), never sooner than 60 s after it happened. Give a caster link only to a caster; if one leaks, withdraw it."),
    make, message, done, list,
    el("div", { class: "withdraw-other" }, "A link not listed here (e.g. one made before links were listed): ", pasted, " ", withdrawPasted));
  act(refresh);
}

/** "at 14:05:09" for Unix ms, or "" when unknown. */
const clock = (/** @type {number | null} */ ms) => (ms ? `at ${new Date(ms).toLocaleTimeString()}` : "");

/**
 * The nonce of a caster link or token (`…&token=c.<nonce>.<mac>`, or the token alone), else null.
 * @param {string} text
 */
export function casterNonce(text) {
  const match = /(?:^|[#&]token=)c\.([A-Za-z0-9_-]{1,64})\.[A-Za-z0-9_-]+/.exec(text.trim());
  return match ? match[1] : null;
}

/** The organizer's page: make caster links for the room of an organizer link. */
export function startOrganizer(/** @type {string} */ room, /** @type {string} */ organizer) {
  $("organizer").hidden = false;
  $("organizer-room").textContent = room;
  casterMaker(/** @type {HTMLElement} */ ($("organizer").querySelector(".caster-maker")), room, organizer);
}

/** Show the lobby: the form, the missions and table choices the server offers, the public rooms. */
export function startLobby() {
  // A tournament's links (/#tournament=…, docs/tournaments.md) open its page.
  if (new URLSearchParams(location.hash.slice(1)).get("tournament")) { location.replace(`tournament.html${location.hash}`); return; }
  $("lobby").hidden = false;
  $("create-form").addEventListener("submit", createRoom);
  $("ruleset").addEventListener("change", showTables);
  $("ruleset").addEventListener("change", showMissions);
  $("mission-select").addEventListener("change", showMissionSummary);
  $("table-file").addEventListener("change", loadTableFile);
  $("clear-table-file").addEventListener("click", clearTableFile);
  $("refresh-rooms").addEventListener("click", loadRoomList);
  showTables();
  showMissions();
  loadRoomList();
  // The public tournaments and the form that creates one, after the rooms.
  import("./tournament/lobby.js").then(({ tournamentSection }) => $("lobby").append(tournamentSection()));
}
