// The lobby: create a room (ruleset, ARO window, spectator delay, table), hand out its links
// with Copy buttons (both seats, spectators, and the organizer's, which makes caster links),
// list the public rooms and the public tournaments (tournament-lobby.js), and the organizer's
// page (#room=...&organizer=...). Links are shown in copy-field.js's fields.

import { copyField } from "./copy-field.js";
import { el } from "./dom.js";

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

/** A table read from a JSON file, sent inline instead of a layout id (null: none). */
let tableFromFile = /** @type {any} */ (null);

async function showTables() {
  const ruleset = /** @type {HTMLSelectElement} */ ($("ruleset")).value;
  const tables = await fetchTables(ruleset);
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
    spectator_delay_s: Number(form.get("spectator_delay_s") ?? 0), clock_s: Math.round(Number(form.get("clock_min") ?? 0) * 60) });
  if (!$("table-choice").hidden) {
    if (tableFromFile !== null) body.table = tableFromFile;
    else if (form.get("table")) body.table = form.get("table");
  }
  $("lobby-message").textContent = "";
  let room;
  try {
    const response = await fetch("/api/rooms", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    room = await response.json();
    if (!response.ok) { $("lobby-message").textContent = `The server refused the room: ${room.message ?? room.error}`; return; }
  } catch (error) {
    $("lobby-message").textContent = `Could not reach the server: ${error}`;
    return;
  }
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

/** The public rooms, with a marker on test rooms whose dice were fixed at creation. */
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
    el("a", { href: r.spectator_link, title: "Watch as a spectator" }, r.room), ` ${r.ruleset}, ${r.phase}${r.round ? ` (round ${r.round}, turn ${r.turn})` : ""}, `,
    `${r.seats_taken} of 2 seats taken, ${r.spectators} watching `,
    r.fixed_dice ? el("span", { class: "fixed-marker", title: "The dice of this room come from a number chosen by whoever created it: they are not random for them." }, "test room: fixed dice") : ""))
    : [el("li", {}, "No public room yet.")]));
}

/**
 * A "Make a caster link" button for the room's organizer, and the links it made (each with
 * its Copy button, and the stream overlay's link on the same caster feed).
 * @param {HTMLElement} box @param {string} room @param {string} organizer
 */
export function casterMaker(box, room, organizer) {
  const list = el("ol", { class: "caster-links" });
  const message = el("div", { class: "warning-text caster-message" });
  const make = el("button", { type: "button", class: "make-caster", onclick: async () => {
    message.textContent = "";
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(room)}/casters`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ organizer }) });
      const made = await response.json();
      if (!response.ok) { message.textContent = `The server refused: ${made.message ?? made.error}`; return; }
      const n = list.children.length + 1;
      list.append(el("li", { "data-caster": n }, `Caster link (${made.delay_s} s behind the game): `,
        copyField(`link-caster-${n}`, absolute(made.caster.link)), " stream overlay: ",
        copyField(`link-caster-overlay-${n}`, absolute(made.caster.overlay_link))));
    } catch (error) {
      message.textContent = `Could not reach the server: ${error}`;
    }
  } }, "Make a caster link");
  box.replaceChildren(el("div", { class: "hint" }, "A caster sees both sides' hidden information (Hidden Deployment, Lieutenants, Camouflage markers), never sooner than 60 s after it happened. Give a caster link only to a caster."),
    make, message, list);
}

/** The organizer's page: make caster links for the room of an organizer link. */
export function startOrganizer(/** @type {string} */ room, /** @type {string} */ organizer) {
  $("organizer").hidden = false;
  $("organizer-room").textContent = room;
  casterMaker(/** @type {HTMLElement} */ ($("organizer").querySelector(".caster-maker")), room, organizer);
}

/** Show the lobby: the form, the table choices the server offers, the public rooms. */
export function startLobby() {
  // A tournament's links (/#tournament=…, docs/tournaments.md) open its page.
  if (new URLSearchParams(location.hash.slice(1)).get("tournament")) { location.replace(`tournament.html${location.hash}`); return; }
  $("lobby").hidden = false;
  $("create-form").addEventListener("submit", createRoom);
  $("ruleset").addEventListener("change", showTables);
  $("table-file").addEventListener("change", loadTableFile);
  $("clear-table-file").addEventListener("click", clearTableFile);
  $("refresh-rooms").addEventListener("click", loadRoomList);
  showTables();
  loadRoomList();
  // The public tournaments and the form that creates one, after the rooms.
  import("./tournament-lobby.js").then(({ tournamentSection }) => $("lobby").append(tournamentSection()));
}
