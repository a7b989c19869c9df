// The lobby's tournaments: the public ones listed with links to their pages, and the form that
// creates one (the settings every table of it is played with) and then hands out the
// organizer's link. Also shown by tournament.html opened without a tournament.
import { api, layouts, missions } from "./api.js";
import { creationMissions, pageLink, statusText } from "./model.js";
import { copyField } from "../copy-field.js";
import { el } from "./dom.js";

const absolute = (/** @type {string} */ link) => new URL(link, location.href).href;

/** The public tournaments as list items (null: this server has no tournaments). */
export async function tournamentItems() {
  const answer = await api.list();
  if (answer.status === 404 || answer.status === 405) return null;
  if (!answer.ok) return [el("li", {}, "Could not load the tournaments.")];
  const list = answer.body?.tournaments ?? [];
  if (!list.length) return [el("li", {}, "No public tournament yet.")];
  return list.map((/** @type {any} */ t) => el("li", { "data-tournament": t.tournament },
    el("a", { href: pageLink(t.tournament), title: "Its pairings, tables, results and standings" }, t.name),
    ` ${t.ruleset === "codeone" ? "CodeOne" : "N5"}, ${t.players} player${t.players === 1 ? "" : "s"}, `,
    statusText({ status: t.status, round: t.round, settings: { rounds: t.rounds }, proposal: null })));
}

/** How many times each box was asked to fill itself: an answer to an older ask is dropped,
 * so the box shows the ruleset chosen last, whichever answer comes back last. */
const asks = new WeakMap();
/** @param {HTMLElement} box @returns {() => boolean} whether this ask is still the latest */
function newAsk(box) {
  const ask = (asks.get(box) ?? 0) + 1;
  asks.set(box, ask);
  return () => asks.get(box) === ask;
}

/** Fill the layouts a ruleset offers as checkboxes (none ticked: the ruleset's default). */
async function showLayouts(/** @type {HTMLElement} */ box, /** @type {string} */ ruleset) {
  const latest = newAsk(box);
  const tables = await layouts(ruleset);
  if (!latest()) return;
  box.hidden = tables === null;
  if (!tables) return;
  box.replaceChildren(el("legend", {}, "Table layouts"),
    el("div", { class: "hint" }, "Ticked layouts rotate: table 1 of round 1 plays the first, table 2 the next, and each round starts one further. None ticked: the ruleset's default layout."),
    ...tables.map((t) => el("label", { class: "layout-choice" }, el("input", { type: "checkbox", name: "tables", value: t.id }), ` ${t.title ?? t.id}`)));
}

/**
 * One mission choice per round (none chosen: the annihilation game); hidden when the server
 * ships no mission for the ruleset. Rebuilt when the ruleset or the rounds change, keeping
 * the choices of the rounds still there.
 */
async function showMissions(/** @type {HTMLElement} */ box, /** @type {string} */ ruleset, /** @type {number} */ rounds) {
  const latest = newAsk(box);
  const list = await missions(ruleset);
  if (!latest()) return;
  box.hidden = list === null;
  if (!list) { box.replaceChildren(); return; }
  const kept = [...box.querySelectorAll("select")].map((x) => /** @type {HTMLSelectElement} */ (x).value);
  const options = [["", "no mission (annihilation, won on VP)"], ...list.map((/** @type {any} */ m) => [m.id, m.title ?? m.id])];
  box.replaceChildren(el("legend", {}, "Missions"),
    el("div", { class: "hint" }, "The mission each round is played on; the dashboard may change a round's until it starts."),
    ...Array.from({ length: Math.max(1, Math.min(rounds || 1, 10)) }, (_, i) => el("label", { class: "mission-choice" }, `Round ${i + 1} `,
      el("select", { name: "missions", id: `tournament-mission-${i + 1}` }, options.map(([value, text]) => {
        const option = el("option", { value }, text);
        if (kept[i] === value) /** @type {HTMLOptionElement} */ (option).selected = true;
        return option;
      })))));
}

/**
 * The creation form; on success it shows the organizer's link (`out`) and calls `onCreated`.
 * @param {() => void} [onCreated]
 */
export function createForm(onCreated = () => {}) {
  const out = el("div", { id: "tournament-created", hidden: true });
  const message = el("div", { id: "tournament-message", class: "warning-text" });
  const layoutsBox = el("fieldset", { id: "tournament-layouts", hidden: true });
  const missionsBox = el("fieldset", { id: "tournament-missions", hidden: true });
  const refreshMissions = () => showMissions(missionsBox, ruleset.value, Number(/** @type {HTMLInputElement} */ (form.querySelector("#tournament-rounds")).value));
  // The format's usual game size (as the server's default): a limit the organizer left at
  // one format's size follows the ruleset to the other's.
  const GAME_SIZE = /** @type {Record<string, string>} */ ({ n5: "300", codeone: "30" });
  const followSize = () => {
    const limit = /** @type {HTMLInputElement} */ (form.querySelector("#tournament-point-limit"));
    if (Object.values(GAME_SIZE).includes(limit.value)) limit.value = GAME_SIZE[ruleset.value] ?? limit.value;
  };
  const ruleset = /** @type {HTMLSelectElement} */ (el("select", { name: "ruleset", id: "tournament-ruleset",
    onchange: () => { showLayouts(layoutsBox, ruleset.value); refreshMissions(); followSize(); } },
  el("option", { value: "n5" }, "N5"), el("option", { value: "codeone" }, "CodeOne")));
  const number = (/** @type {string} */ name, /** @type {string} */ value, /** @type {Record<string, any>} */ more = {}) =>
    el("input", { name, id: `tournament-${name.replaceAll("_", "-")}`, type: "number", value, ...more });
  const form = /** @type {HTMLFormElement} */ (el("form", { id: "tournament-form", class: "create-form" },
    el("h2", {}, "Organize a tournament"),
    el("div", { class: "hint" }, "A Swiss event: players register with their army, the server pairs each round and opens a room per table; results come from the games."),
    el("label", {}, "Name ", el("input", { name: "name", id: "tournament-name", required: true, maxlength: 80, size: 30 })),
    el("label", {}, "Rounds ", number("rounds", "3", { min: 1, max: 10, onchange: () => refreshMissions() })),
    el("label", {}, "Ruleset ", ruleset),
    el("label", {}, "Point limit ", number("point_limit", "300", { min: 10, max: 1000 }), " points"),
    el("label", {}, "ARO window ", number("aro_window_s", "30", { min: 1, max: 600 }), " seconds"),
    el("label", {}, "Chess clock ", number("clock_min", "", { min: 1, max: 240, placeholder: "none" }), " minutes per player (empty: none; ITS plays 75)"),
    el("label", {}, "Spectator delay ", number("spectator_delay_s", "0", { min: 0, max: 3600 }), " seconds"),
    el("label", {}, "Places ", number("max_players", "256", { min: 2, max: 256 }), " players at most (the organizer may still close registration earlier)"),
    layoutsBox,
    missionsBox,
    el("label", {}, "Tournament points ", el("select", { name: "scoring", id: "tournament-scoring" },
      el("option", { value: "" }, "ITS with missions, classic without"),
      el("option", { value: "its" }, "ITS: victory 4, tie 2, defeat 0, +1 for 5 OP or more, +1 for a defeat by 2 OP or fewer"),
      el("option", { value: "classic" }, "classic: victory 4, tie 2, defeat 0"))),
    el("label", {}, "Visibility ", el("select", { name: "visibility", id: "tournament-visibility" },
      el("option", { value: "public" }, "public: listed here, its tables listed as public rooms"),
      el("option", { value: "private" }, "private: only who has a link"))),
    el("button", { type: "submit", id: "create-tournament" }, "Create tournament")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = /** @type {Record<string, any>} */ ({ name: String(data.get("name") ?? "").trim(), rounds: Number(data.get("rounds")),
      ruleset: data.get("ruleset"), point_limit: Number(data.get("point_limit")), aro_window_s: Number(data.get("aro_window_s")),
      spectator_delay_s: Number(data.get("spectator_delay_s") || 0), tables: data.getAll("tables").map(String),
      visibility: data.get("visibility"), max_players: Number(data.get("max_players") || 256) });
    if (data.get("clock_min")) body.clock_s = Number(data.get("clock_min")) * 60;
    const chosen = creationMissions(data.getAll("missions").map(String));
    if (chosen.length) body.missions = chosen;
    if (data.get("scoring")) body.scoring = data.get("scoring");
    message.textContent = "";
    const submit = /** @type {HTMLButtonElement} */ (form.querySelector("#create-tournament"));
    submit.disabled = true;
    const answer = await api.create(body);
    submit.disabled = false;
    if (!answer.ok) { message.textContent = `The server refused the tournament: ${answer.problem}`; return; }
    const { tournament, organizer } = answer.body;
    out.replaceChildren(el("h2", {}, `Tournament created: ${answer.body.view?.name ?? body.name}`),
      el("div", { class: "link-row" }, el("b", {}, "Your organizer link"), ": keep it, and share it with nobody. It is the only way back to the dashboard (pairings, tables, results).",
        el("div", {}, copyField("tournament-organizer-link", absolute(organizer.link)), " ",
          el("a", { id: "open-dashboard", class: "open-seat", href: pageLink(tournament, { organizer: organizer.token }) }, "Open the dashboard"))),
      el("div", { class: "link-row" }, el("b", {}, "The tournament's public page"), ": send it to the players; they register there, and anyone can follow the standings.",
        el("div", {}, copyField("tournament-public-link", absolute(`/#tournament=${encodeURIComponent(tournament)}`)))));
    out.hidden = false;
    out.scrollIntoView?.({ block: "nearest" });
    onCreated(); // the lobby's list shows the new public tournament without a Refresh click
  });
  showLayouts(layoutsBox, "n5");
  refreshMissions();
  return el("div", {}, form, message, out);
}

/** The lobby's section: the public tournaments (refreshable) and the creation form, folded. */
export function tournamentSection() {
  const list = el("ul", { id: "tournament-list" }, el("li", {}, "Loading..."));
  const section = el("section", { id: "tournaments" },
    el("h2", {}, "Tournaments ", el("button", { type: "button", id: "refresh-tournaments", onclick: () => load() }, "Refresh")),
    list, el("details", { id: "organize" }, el("summary", {}, "Organize a tournament..."), createForm(() => load())));
  async function load() {
    const items = await tournamentItems();
    if (items === null) { section.hidden = true; return; } // a server without tournaments
    list.replaceChildren(...items);
  }
  load();
  return section;
}
