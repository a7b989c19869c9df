// The tournament pages (tournament.html): by the link's fragment the organizer's dashboard,
// a player's page, the public page, or the creation form. Each reads the API every few
// seconds (docs/tournaments.md: results are read from the games at every read) and redraws
// when what it read changed; the forms the organizer types into are never redrawn.
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { createForm } from "./lobby.js";
import { copyField } from "../copy-field.js";
import { pageLink, registrationText, tournamentLink } from "./model.js";
import { fillArmies, renderHeader, renderMe, renderPlayers, renderProposal, renderRounds, renderStandings } from "./render.js";
import { startDashboard } from "./organizer.js";
import { armyChoice } from "./army-choice.js";

const link = tournamentLink(location.hash);
const absolute = (/** @type {string} */ path) => new URL(path, location.href).href;
/** How often each page reads the API: the organizer's dashboard follows live tables. */
const POLL_MS = { organizer: 3000, player: 5000, public: 5000 };

window.addEventListener("hashchange", () => location.reload());

// --- the public page: registration while it is open ------------------------------------------
function setUpRegistration(/** @type {string} */ id) {
  const choice = armyChoice("register", "Your army");
  $("register-army-slot").replaceChildren(choice.node);
  $("register-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement} */ ($("register-name")).value.trim();
    $("register-message").textContent = "";
    const army = await choice.read();
    if (!army.ok) { $("register-message").textContent = `Not registered: ${army.problem}`; return; }
    const answer = await api.register(id, { name, ...army.fields });
    if (!answer.ok) { $("register-message").textContent = `Not registered: ${answer.problem}`; return; }
    $("register-form").hidden = true;
    $("registered").hidden = false;
    $("registered").replaceChildren(el("p", {}, el("b", {}, `Registered as ${name}.`), " This is your player link: keep it (it is shown only now) and share it with nobody. It opens your page, with your table's seat at each round."),
      copyField("player-link", absolute(answer.body.link)), " ",
      el("a", { href: pageLink(id, { player: answer.body.token }), id: "open-player-page", class: "open-seat" }, "Open your page"));
    refresh();
  });
}

// --- reading and redrawing -------------------------------------------------------------------------
/** What the last read said (JSON), so an unchanged answer is not drawn again. */
let drawn = "";
/** How many reads were asked, and the latest one whose answer came back. */
let reads = 0;
let answered = 0;
/** @type {null | ((data: any) => void)} the dashboard's own drawing */
let drawDashboard = null;

/** Read the API once and redraw what changed. */
export async function refresh() {
  const id = /** @type {string} */ (link.tournament);
  const asked = ++reads;
  const answer = link.mode === "organizer" ? await api.dashboard(id, /** @type {string} */ (link.token))
    : link.mode === "player" ? await api.me(id, /** @type {string} */ (link.token)) : await api.view(id);
  // An action's read and the timer's may cross: an answer older than one drawn is dropped.
  if (asked < answered) return;
  answered = asked;
  if (!answer.ok) {
    $("t-error").textContent = answer.status === 404 ? "There is no such tournament." : answer.status === 403
      ? "This link's token is not one of this tournament's: check the link." : `Could not read the tournament: ${answer.body?.message ?? answer.body?.error ?? answer.status}`;
    return; // a page already drawn stays as it was, under the message
  }
  $("t-error").textContent = "";
  $("t-refreshed").textContent = `(read at ${new Date().toLocaleTimeString()})`;
  const data = answer.body;
  // A table's caster link counts as a change (a withdrawn one is replaced); the VP's time alone does not.
  const key = JSON.stringify(data, (k, v) => (k === "vp_as_of_ms" ? undefined : v));
  if (key === drawn) return;
  drawn = key;
  const view = link.mode === "public" ? data : data.view;
  $("tournament").hidden = false;
  renderHeader(view, { organizer: "Organizer's dashboard", player: `Player page: ${data.player?.name ?? ""}`, public: "" }[link.mode] ?? "");
  renderProposal(view);
  renderStandings(view, link.mode === "player" ? data.player?.player : null);
  renderPlayers(view);
  if (link.mode === "organizer" && drawDashboard) drawDashboard(data);
  else renderRounds(view);
  if (link.mode === "player") renderMe(data);
  if (link.mode === "public") {
    const registration = registrationText(view);
    $("register").hidden = registration === null;
    $("register-state").textContent = registration?.text ?? "";
    // Closed or full: no form to fill for nothing (a registration just made keeps its link shown).
    if (registration) $("register-form").hidden = !registration.open || !$("registered").hidden;
    if (registration?.open) fillArmies(/** @type {HTMLSelectElement} */ ($("register-army")), view.settings);
  }
  /** @type {any} */ (window).tournamentPage = { data, mode: link.mode }; // for the browser tests and the curious
}

/** A tab in the background reads every 30 s; coming back to it reads at once. */
const HIDDEN_POLL_MS = 30000;
let timer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
async function poll() {
  clearTimeout(timer);
  await refresh();
  clearTimeout(timer);
  timer = setTimeout(poll, document.hidden ? HIDDEN_POLL_MS : POLL_MS[/** @type {keyof typeof POLL_MS} */ (link.mode)] ?? 5000);
}

if (link.mode === "create") {
  $("create").hidden = false;
  $("create").append(createForm());
} else {
  if (link.mode === "player") $("me").hidden = false;
  if (link.mode === "public") setUpRegistration(/** @type {string} */ (link.tournament));
  if (link.mode === "organizer") {
    $("organizer").hidden = false;
    $("players-section").hidden = true; // the dashboard's own players table says more
    $("o-round").append($("proposal")); // the proposal under the buttons that swap and start it
    drawDashboard = startDashboard(/** @type {string} */ (link.tournament), /** @type {string} */ (link.token), refresh);
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
  poll();
}
