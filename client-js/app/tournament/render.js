// What the tournament pages draw from the API's answers (the public parts every page shows,
// and the player's own page); the words come from model.js.
import { armies } from "./api.js";
import { $, el, fill, fillSelect } from "./dom.js";
import { armyHint, exportLinks, hasRecord, missionsText, missionText, namer, ownListText, pairingText, resultHistory, resultText, settingsText, STANDING_COLUMNS, standingRow,
  statusText, tableTitle } from "./model.js";

/** Whether any round of the tournament has a mission (else no round says "no mission"). */
const playsMissions = (/** @type {any} */ view) => (view.missions ?? []).some((/** @type {any} */ r) => r.mission);

/** What a bye scores (the tournament's table; 4 before tables could be chosen). */
const byeTp = (/** @type {any} */ view) => view.settings?.scoring?.bye ?? 4;

/** A table of a round in the rounds list: its players, layout, result and links. */
function roundTableRow(/** @type {any} */ t, /** @type {(id: string) => string} */ name, /** @type {(t: any, round: number) => any} */ controls, /** @type {number} */ round) {
  const history = resultHistory(t.result, t.a, t.b, name);
  return el("tr", { "data-round": round, "data-table": t.table },
    el("td", {}, String(t.table)),
    el("td", { class: "t-players" }, tableTitle(t, name), t.repeat ? el("span", { class: "t-flag", title: "These two players already met: no pairing without a repeat existed, or a swap made it" }, " repeat") : null),
    el("td", { class: "t-result" }, resultText(t.result, t.a, t.b, name),
      history.length ? el("ul", { class: "t-history hint" }, history.map((h) => el("li", {}, h))) : null),
    el("td", { class: "t-links" },
      t.spectator_link ? el("a", { href: t.spectator_link, "data-link": "spectator" }, "watch") : null,
      hasRecord(t.result) && t.record ? [" ", el("a", { href: t.record, "data-link": "record" }, "record")] : null,
      // Replays (issue 39, the replay viewer): a finished table's game, step by step.
      hasRecord(t.result) && t.room ? [" ", el("a", { href: `/replay.html#room=${encodeURIComponent(t.room)}`, "data-link": "replay" }, "replay")] : null),
    el("td", {}, controls(t, round)));
}

/** Every started round, newest first: byes, swaps with their reasons, tables with their results. */
export function renderRounds(/** @type {any} */ view, /** @type {(t: any, round: number) => any} */ controls = () => null) {
  const name = namer(view);
  const rounds = [...(view.rounds ?? [])].reverse();
  $("rounds").replaceChildren(...(rounds.length ? rounds.map((r) => el("div", { class: "t-round", "data-round": r.round },
    el("h3", {}, `Round ${r.round}`),
    playsMissions(view) ? el("div", { class: "t-mission", "data-round-mission": r.round }, missionText(r.mission)) : null,
    r.bye ? el("div", { class: "t-bye" }, `Bye: ${name(r.bye)} (${byeTp(view)} TP)`) : null,
    (r.swaps ?? []).map((/** @type {any} */ s) => el("div", { class: "hint" }, `Swapped by the organizer: ${name(s.players[0])} and ${name(s.players[1])}${s.reason ? ` (${s.reason})` : ""}`)),
    el("table", { class: "t-table" }, el("tr", {}, ...["Table", "Players", "Result", "Links", ""].map((h) => el("th", {}, h))),
      r.tables.map((/** @type {any} */ t) => roundTableRow(t, name, controls, r.round)))))
    : [el("p", { class: "hint" }, "No round started yet.")]));
}

/** The proposal waiting for the organizer to start the round (public: players see it coming). */
export function renderProposal(/** @type {any} */ view) {
  const box = $("proposal");
  const p = view.proposal;
  box.hidden = !p;
  if (!p) { box.replaceChildren(); return; }
  const name = namer(view);
  fill(box, el("h2", {}, `Proposed pairings for round ${p.round}`),
    el("div", { class: "hint" }, "Not started yet: the organizer may still swap players."),
    playsMissions(view) ? el("div", { class: "t-mission", id: "proposal-mission" }, missionText(p.mission)) : null,
    el("table", { class: "t-table", id: "proposal-tables" }, el("tr", {}, el("th", {}, "Table"), el("th", {}, "Players")),
      p.tables.map((/** @type {any} */ t) => el("tr", { "data-table": t.table }, el("td", {}, String(t.table)),
        el("td", { class: "t-players" }, tableTitle(t, name), t.repeat ? el("span", { class: "t-flag" }, " repeat") : null)))),
    p.bye ? el("div", { class: "t-bye" }, `Bye: ${name(p.bye)}`) : null,
    (p.swaps ?? []).map((/** @type {any} */ s) => el("div", { class: "hint" }, `Swapped: ${name(s.players[0])} and ${name(s.players[1])}${s.reason ? ` (${s.reason})` : ""}`)));
}

/** The standings table with its CSV and JSON export links. */
export function renderStandings(/** @type {any} */ view, /** @type {string|null} */ mine = null) {
  const links = exportLinks(view.tournament);
  $("exports").replaceChildren(el("a", { href: links.csv, id: "export-csv", download: `${view.tournament}-standings.csv` }, "CSV"), " ",
    el("a", { href: links.json, id: "export-json" }, "JSON"));
  const rows = (view.standings ?? []).map((/** @type {any} */ s) => standingRow(s, view));
  fill($("standings"), el("tr", {}, STANDING_COLUMNS.map(([, header]) => el("th", {}, header))),
    rows.map((row, i) => el("tr", { "data-player": view.standings[i].player, class: [view.standings[i].dropped ? "dropped" : "", view.standings[i].player === mine ? "me" : ""].join(" ").trim() || null },
      STANDING_COLUMNS.map(([key]) => el("td", { "data-col": key }, row[key])))));
}

export function renderPlayers(/** @type {any} */ view) {
  $("players").replaceChildren(...(view.players ?? []).map((/** @type {any} */ p) => el("li", { "data-player": p.player },
    `${p.name}, ${p.army_name ?? p.army}${p.seed != null ? `, seed ${p.seed}` : ""}${p.dropped ? " (dropped)" : ""}`)));
  if (!view.players?.length) $("players").replaceChildren(el("li", { class: "hint" }, "Nobody has registered yet."));
}

export function renderHeader(/** @type {any} */ view, /** @type {string} */ role) {
  document.title = `${view.name}: Infinity tournament`;
  $("t-name").textContent = view.name;
  $("t-role").textContent = role;
  $("t-status").textContent = statusText(view);
  $("t-settings").textContent = [settingsText(view.settings), missionsText(view)].filter(Boolean).join(". ");
}

/** Fill an army select with the ruleset's armies (once per ruleset), over the point limit marked. */
export async function fillArmies(/** @type {HTMLSelectElement} */ select, /** @type {any} */ settings) {
  if (select.dataset.ruleset === settings.ruleset) return;
  select.dataset.ruleset = settings.ruleset;
  const list = await armies(settings.ruleset);
  fillSelect(select, list.map((/** @type {any} */ a) => [a.id, `${a.name} (${a.faction}, ${a.points} pts)${a.points > settings.point_limit ? ": over the limit" : ""}`]));
}

// --- the player's page ----------------------------------------------------------------------------
export function renderMe(/** @type {any} */ me) {
  const view = me.view;
  const name = namer(view);
  $("me-pairing").textContent = pairingText(me, name);
  const c = me.current;
  $("me-links").replaceChildren(...(c ? [
    el("a", { href: c.seat_link, id: "seat-link", class: "open-seat big-link" }, `Open your table (seat ${c.seat})`),
    " ", el("a", { href: c.spectator_link, id: "me-spectator-link" }, "spectator link"), el("span", { class: "hint" }, " (for anyone who wants to watch)"),
    armyHint(me) ? el("div", { id: "me-army" }, armyHint(me)) : null] : []));
  $("me-result").textContent = c?.result ? `Result: ${resultText(c.result, c.seat === "A" ? me.player.player : c.opponent, c.seat === "A" ? c.opponent : me.player.player, name)}` : "";
  $("me-list").textContent = ownListText(me.registration);
  const s = me.standing;
  $("me-standing").textContent = s ? `You are ${ordinal(s.rank)} of ${view.standings.length}: ${s.tp} TP, ${s.op} OP, ${s.vp} VP (${s.wins} won, ${s.draws} tied, ${s.losses} lost${s.byes ? `, ${s.byes} bye${s.byes === 1 ? "" : "s"}` : ""}).${me.player.dropped ? " You have been dropped: you are paired no more." : ""}` : "";
  // Its games and its byes (the API lists games; the rounds say who had the bye), by round.
  const byes = (view.rounds ?? []).filter((/** @type {any} */ r) => r.bye === me.player.player).map((/** @type {any} */ r) => ({ round: r.round, bye: true }));
  const rows = [...(me.games ?? []), ...byes].sort((x, y) => x.round - y.round);
  fill($("me-games"), el("tr", {}, ...["Round", "Table", "Opponent", "Seat", "Result", ""].map((h) => el("th", {}, h))),
    rows.map((/** @type {any} */ g) => {
      if (g.bye) return el("tr", { "data-round": g.round }, el("td", {}, String(g.round)), el("td", { colspan: 5 }, `Bye (${byeTp(view)} TP)`));
      const [a, b] = g.seat === "A" ? [me.player.player, g.opponent] : [g.opponent, me.player.player];
      return el("tr", { "data-round": g.round }, el("td", {}, String(g.round)), el("td", {}, String(g.table)), el("td", {}, name(g.opponent)),
        el("td", {}, g.seat), el("td", {}, resultText(g.result, a, b, name)), el("td", {}, hasRecord(g.result) && g.record ? el("a", { href: g.record }, "record") : "",
          hasRecord(g.result) && g.room ? [" ", el("a", { href: `/replay.html#room=${encodeURIComponent(g.room)}&view=${g.seat}`, "data-link": "replay" }, "replay")] : ""));
    }),
    rows.length ? null : el("tr", {}, el("td", { colspan: 6, class: "hint" }, "No game yet.")));
}

const ordinal = (/** @type {number} */ n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

