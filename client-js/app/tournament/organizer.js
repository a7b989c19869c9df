// The organizer's dashboard (tournament.html#tournament=…&organizer=…): players (add, drop,
// reinstate, seed), the next round (propose pairings, swap, start), every table of the round
// with its live state and links, and results (correct with a reason, close an unfinished
// table with a result). The forms are built once and never redrawn by a refresh, so a
// refresh never eats what the organizer is typing; only their choices are refilled.
import { api, missions } from "./api.js";
import { $, el, fillSelect } from "./dom.js";
import { copyField } from "../copy-field.js";
import { fillArmies, renderRounds } from "./render.js";
import { clockText, clocksNow, coverageLines, hasRecord, liveTableText, missionText, namer, organizerCan, proposalPlayers, registrationRow, registrationText, resultBody, resultText, tableTitle } from "./model.js";
import { keepCredential } from "../credentials.js";
import { armyChoice } from "./army-choice.js";

/** What a refused action's message starts with: the organizer's words for the action. */
const REFUSED = /** @type {Record<string, string>} */ ({
  start_round: "The round was not started", pair: "No pairings proposed", close_registration: "Registration not closed", set_mission: "Mission not set",
  open_registration: "Registration not reopened", drop: "Not dropped", reinstate: "Not reinstated", seed: "Seed not set", swap: "Not swapped",
});

const absolute = (/** @type {string} */ path) => new URL(path, location.href).href;

/**
 * Set up the dashboard's forms; returns the function that draws each dashboard answer.
 * @param {string} id the tournament @param {string} organizer its organizer token
 * @param {() => Promise<void>} refresh read the API again (after every action)
 */
export function startDashboard(id, organizer, refresh) {
  /** The last dashboard answer drawn. @type {any} */
  let data = null;
  const say = (/** @type {string} */ text) => { $("o-message").textContent = text; };
  $("o-public").replaceChildren(el("b", {}, "Public page"), ": send it to the players (they register there) and to anyone following the event. ",
    copyField("o-public-link", absolute(`/#tournament=${encodeURIComponent(id)}`)));

  /** Send an organizer action, disable its button meanwhile, then read again. */
  async function act(/** @type {string} */ type, /** @type {Record<string, any>} */ fields = {}, /** @type {HTMLButtonElement|null} */ button = null) {
    say("");
    if (button) button.disabled = true;
    const answer = await api.action(id, organizer, type, fields);
    if (button) button.disabled = false;
    if (!answer.ok) say(`${REFUSED[type] ?? `Refused (${type})`}: ${answer.problem}`);
    await refresh();
    return answer;
  }

  // Players: add (the new player's link is shown here, once), seed.
  const added = /** @type {Array<{name: string, link: string}>} */ (JSON.parse(sessionStorage.getItem(`tournament:${id}:added`) ?? "[]"));
  const showAdded = () => $("added-players").replaceChildren(...(added.length ? [el("div", {}, el("b", {}, "Players added here"),
    " (send each their link; it is shown only in this tab):"), el("ul", {}, added.map((p, i) => el("li", {}, `${p.name}: `, copyField(`added-link-${i + 1}`, p.link))))] : []));
  showAdded();
  const choice = armyChoice("add", "Army");
  $("add-army-slot").replaceChildren(choice.node);
  $("add-player-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement} */ ($("add-name")).value.trim();
    say("");
    const army = await choice.read();
    if (!army.ok) { say(`Not added: ${army.problem}`); return; }
    const answer = await api.register(id, { name, ...army.fields, organizer });
    if (!answer.ok) { say(`Not added: ${answer.problem}`); return; }
    choice.clear();
    added.push({ name, link: absolute(answer.body.link) });
    try { sessionStorage.setItem(`tournament:${id}:added`, JSON.stringify(added)); } catch { /* private mode */ }
    /** @type {HTMLInputElement} */ ($("add-name")).value = "";
    showAdded();
    await refresh();
  });
  $("seed-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = /** @type {HTMLInputElement} */ ($("seed-value")).value;
    act("seed", { player: /** @type {HTMLSelectElement} */ ($("seed-player")).value, seed: value === "" ? null : Number(value) }, /** @type {HTMLButtonElement} */ ($("set-seed")));
  });

  // Registration: closed and reopened before round 1 is paired.
  $("close-registration").addEventListener("click", (e) => act("close_registration", {}, /** @type {HTMLButtonElement} */ (e.currentTarget)));
  $("open-registration").addEventListener("click", (e) => act("open_registration", {}, /** @type {HTMLButtonElement} */ (e.currentTarget)));

  // The next round.
  $("pair-round").addEventListener("click", (e) => act("pair", {}, /** @type {HTMLButtonElement} */ (e.currentTarget)));
  $("start-round").addEventListener("click", (e) => act("start_round", {}, /** @type {HTMLButtonElement} */ (e.currentTarget)));
  $("swap-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = [/** @type {HTMLSelectElement} */ ($("swap-a")).value, /** @type {HTMLSelectElement} */ ($("swap-b")).value];
    if (players[0] === players[1]) { say("Choose two different players to swap."); return; }
    const answer = await act("swap", { players, reason: /** @type {HTMLInputElement} */ ($("swap-reason")).value.trim() }, /** @type {HTMLButtonElement} */ ($("swap")));
    if (answer.ok) /** @type {HTMLInputElement} */ ($("swap-reason")).value = "";
  });
  // The next round's mission (the server's missions of the ruleset; none shipped: no form).
  /** @type {Promise<any[]|null>|null} */
  let missionList = null;
  $("mission-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("set_mission", { round: Number($("mission-round").textContent), mission: /** @type {HTMLSelectElement} */ ($("mission-choice")).value },
      /** @type {HTMLButtonElement} */ ($("set-mission")));
  });
  async function drawMission(/** @type {any} */ view, /** @type {number} */ next) {
    missionList ??= missions(view.settings.ruleset);
    const list = await missionList;
    const form = $("mission-form");
    form.hidden = !list || next > view.settings.rounds || view.status === "finished";
    if (form.hidden || !list) return;
    if ($("mission-round").textContent !== String(next)) {
      $("mission-round").textContent = String(next);
      const planned = view.missions?.find((/** @type {any} */ r) => r.round === next)?.mission?.id ?? "";
      fillSelect(/** @type {HTMLSelectElement} */ ($("mission-choice")), [["", "no mission (annihilation)"], ...list.map((m) => /** @type {[string, string]} */ ([m.id, m.title ?? m.id]))]);
      /** @type {HTMLSelectElement} */ ($("mission-choice")).value = planned;
    }
  }

  // Results: one editor at a time, for a correction or a close, outside the redrawn tables.
  /** @param {any} table a table of a round @param {number} round @param {"correct"|"close"} kind */
  function openEditor(table, round, kind) {
    const name = namer(data.view);
    const box = $("result-editor");
    const r = table.result;
    const input = (/** @type {string} */ field, /** @type {any} */ value) => el("input", { id: `edit-${field}`, type: "number", min: 0, value: value ?? "", size: 4 });
    const winner = /** @type {HTMLSelectElement} */ (el("select", { id: "edit-winner" },
      el("option", { value: table.a }, `${name(table.a)} won`), el("option", { value: table.b }, `${name(table.b)} won`), el("option", { value: "" }, "a tie")));
    winner.value = r ? r.winner ?? "" : table.a;
    const reason = el("input", { id: "edit-reason", maxlength: 200, size: 40 });
    const problem = el("div", { class: "warning-text", id: "edit-problem" });
    const value = (/** @type {string} */ f) => /** @type {HTMLInputElement} */ (box.querySelector(`#edit-${f}`)).value;
    const submit = el("button", { type: "submit", id: "edit-submit", class: "primary" }, kind === "close" ? "Close the table with this result" : "Correct the result");
    const form = el("form", { class: "inline-form", onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      const body = resultBody({ a: table.a, b: table.b, winner: winner.value, vpA: value("vp-a"), vpB: value("vp-b"),
        opA: value("op-a"), opB: value("op-b"), reason: value("reason") });
      if (!body.ok) { problem.textContent = body.problem; return; }
      const answer = await act(kind, { round, table: table.table, result: body.result, reason: body.reason }, /** @type {HTMLButtonElement} */ (submit));
      if (answer.ok) closeEditor(); else problem.textContent = answer.problem ?? "";
    } },
    winner, el("label", {}, `VP ${name(table.a)} `, input("vp-a", r?.vp?.[table.a] ?? 0)), el("label", {}, `VP ${name(table.b)} `, input("vp-b", r?.vp?.[table.b] ?? 0)),
    el("label", {}, `OP ${name(table.a)} `, input("op-a", r?.op?.[table.a] ?? 0)), el("label", {}, `OP ${name(table.b)} `, input("op-b", r?.op?.[table.b] ?? 0)),
    el("label", {}, "Reason ", reason), submit, el("button", { type: "button", id: "edit-cancel", onclick: closeEditor }, "Cancel"));
    box.replaceChildren(el("h2", {}, `${kind === "close" ? "Close" : "Correct"} round ${round}, table ${table.table}: ${tableTitle(table, name)}`),
      el("div", { class: "hint" }, kind === "close" ? "For a game that will not finish: this result counts, and a result the game reaches later does not replace it."
        : `Now: ${resultText(r, table.a, table.b, name)}. The result it replaces is kept beside it, with your reason.`),
      form, problem);
    box.hidden = false;
    box.dataset.table = `${round}:${table.table}`;
    box.scrollIntoView?.({ block: "nearest" });
    reason.focus();
  }
  function closeEditor() { $("result-editor").hidden = true; $("result-editor").replaceChildren(); }

  /** The correct / close buttons of a table. */
  const resultControls = (/** @type {any} */ table, /** @type {number} */ round) => {
    if (table.result) return el("button", { type: "button", "data-correct": `${round}:${table.table}`, onclick: () => openEditor(table, round, "correct") }, "Correct...");
    if (round === data.view.round) return el("button", { type: "button", "data-close": `${round}:${table.table}`, onclick: () => openEditor(table, round, "close") }, "Close with a result...");
    return null;
  };

  function drawPlayers(/** @type {any} */ view, /** @type {ReturnType<typeof organizerCan>} */ can) {
    $("o-player-table").replaceChildren(el("tr", {}, ...["Id", "Name", "Army", "Seed", ""].map((h) => el("th", {}, h))),
      ...view.players.map((/** @type {any} */ p) => el("tr", { "data-player": p.player, class: p.dropped ? "dropped" : null },
        el("td", {}, p.player), el("td", {}, p.name), el("td", {}, p.army_name ?? p.army), el("td", {}, p.seed ?? "-"),
        el("td", {}, can.drop ? el("button", { type: "button", [p.dropped ? "data-reinstate" : "data-drop"]: p.player,
          onclick: (/** @type {Event} */ e) => act(p.dropped ? "reinstate" : "drop", { player: p.player }, /** @type {HTMLButtonElement} */ (e.currentTarget)) },
        p.dropped ? "Reinstate" : "Drop") : (p.dropped ? "dropped" : "")))));
    const registration = registrationText(view);
    $("o-registration").hidden = registration === null;
    $("o-registration-state").textContent = registration?.text ?? "";
    $("close-registration").hidden = !can.closeRegistration;
    $("open-registration").hidden = !can.openRegistration;
    $("add-player-form").hidden = !can.addPlayer;
    $("seed-form").hidden = !can.seed;
    fillSelect(/** @type {HTMLSelectElement} */ ($("seed-player")), view.players.map((/** @type {any} */ p) => [p.player, p.name]));
    fillArmies(/** @type {HTMLSelectElement} */ ($("add-army")), view.settings);
  }

  /** The not-refereed items of a list: how many troopers, then one line per trooper. */
  const coverageCell = (/** @type {any} */ coverage) => {
    const { summary, lines } = coverageLines(coverage);
    return el("td", { "data-field": "coverage" }, el("span", { "data-field": "coverage-summary" }, summary),
      lines.length ? el("ul", { class: "t-coverage" }, lines.map((line) => el("li", {}, line))) : null);
  };

  /** Each registration's list: valid or its problem, points, and what the referee does not play. */
  function drawRegistrations(/** @type {any[]} */ registrations) {
    const head = ["Player", "List", "Registered as", "Check", "Points", "Not refereed"];
    $("o-registration-table").replaceChildren(el("tr", {}, ...head.map((h) => el("th", {}, h))),
      ...(registrations.length ? registrations.map((r) => {
        const row = registrationRow(r);
        return el("tr", { "data-registration": row.player, class: row.valid ? null : "invalid" },
          el("td", {}, row.name), el("td", {}, row.list), el("td", {}, row.source),
          el("td", { "data-field": "check", class: row.valid ? "ok-text" : "warning-text" }, row.status),
          el("td", {}, row.points), coverageCell(r.coverage));
      }) : [el("tr", {}, el("td", { colspan: head.length, class: "hint" }, "Nobody has registered yet."))]));
  }

  function drawRound(/** @type {any} */ view, /** @type {ReturnType<typeof organizerCan>} */ can) {
    const name = namer(view);
    const active = view.players.filter((/** @type {any} */ p) => !p.dropped).length;
    const next = view.proposal?.round ?? view.round + 1;
    $("o-round-state").textContent = view.status === "finished" ? "The last round is over: the tournament is finished."
      : view.status === "playing" ? `Round ${view.round} is being played: the next round can be paired when every table has a result.`
        : view.status === "paired" ? `Round ${next} is paired (below). Swap players if needed, then start it: a room opens for each table.`
          : `Round ${next} of ${view.settings.rounds}: ${active} active player${active === 1 ? "" : "s"}. Propose the pairings to check them first, or start the round at once.`;
    const planned = view.missions?.find((/** @type {any} */ r) => r.round === next);
    if (planned && view.status !== "finished" && view.missions.some((/** @type {any} */ r) => r.mission)) $("o-round-state").textContent += ` Round ${next}: ${missionText(planned.mission)}.`;
    drawMission(view, next);
    $("pair-round").hidden = !can.pair;
    $("pair-round").textContent = view.status === "paired" ? "Pair again (drops the swaps)" : "Propose pairings";
    $("start-round").hidden = !can.start;
    $("start-round").textContent = `Start round ${next}`;
    $("swap-form").hidden = !can.swap;
    const options = proposalPlayers(view.proposal).map((p) => /** @type {[string, string]} */ ([p, `${name(p)}${p === view.proposal?.bye ? " (bye)" : ""}`]));
    fillSelect(/** @type {HTMLSelectElement} */ ($("swap-a")), options);
    fillSelect(/** @type {HTMLSelectElement} */ ($("swap-b")), options);
  }

  /** A live table: where its game is, clocks (ticking), VP, its links, its result and controls. */
  function liveRow(/** @type {any} */ t, /** @type {(id: string) => string} */ name) {
    // The room's own caster link (the server's: the same until the room's organizer withdraws it).
    const caster = t.caster_link ? { caster: t.caster_link, overlay: t.overlay_link } : null;
    const state = liveTableText(t, Date.now());
    const anchor = (/** @type {string} */ kind, /** @type {string} */ href, /** @type {string} */ text, /** @type {string} */ title) =>
      el("a", { href, "data-link": kind, title, target: "_blank", rel: "noopener" }, text);
    return el("div", { class: "t-live", "data-table": t.table, "data-room": t.room },
      el("div", { class: "t-live-title" }, el("b", {}, `Table ${t.table}`), ` ${tableTitle(t, name)}`),
      el("div", { class: "t-live-state" }, el("span", { "data-field": "where" }, state.where), " | clocks ",
        el("span", { "data-field": "clocks", "data-clocks": JSON.stringify(t.clocks) }, state.clocks), " | ",
        el("span", { "data-field": "vp", title: "Victory points so far, as casters see them: from the game at least 60 s ago (hidden troopers count)" }, state.vp)),
      el("div", { class: "t-live-links" },
        anchor("spectator", t.spectator_link, "spectator", "What any spectator sees (public)"), " ",
        anchor("organizer", t.organizer_link, "room organizer", "The room's organizer page: its caster links (make, list, withdraw)"), " ",
        caster ? [anchor("caster", caster.caster, "caster", "Both sides' hidden information, 60 s late: for a stream's commentators only"), " ",
          anchor("overlay", absolute(caster.overlay), "stream overlay", "A caster's overlay for a streaming program's browser source"), " "] : null,
        hasRecord(t.result) ? anchor("record", `/api/rooms/${encodeURIComponent(t.room)}/record`, "record", "The finished game's record (every die, checkable)") : null),
      el("div", { class: "t-live-result" }, resultText(t.result, t.a, t.b, name), " ", resultControls(t, t.round)));
  }

  /** Tick the running clocks between reads. */
  setInterval(() => {
    for (const span of document.querySelectorAll("[data-clocks]")) {
      const clocks = clocksNow(JSON.parse(/** @type {HTMLElement} */ (span).dataset.clocks ?? "null"), Date.now());
      if (!clocks) continue;
      const text = `A ${clockText(clocks.A)}${clocks.running === "A" ? " (running)" : ""}, B ${clockText(clocks.B)}${clocks.running === "B" ? " (running)" : ""}`;
      if (span.textContent !== text) span.textContent = text;
    }
  }, 1000);

  return (/** @type {any} */ answer) => {
    data = answer;
    const view = answer.view;
    // Once a round has started, this token lets the lobby's room creations use the node's
    // reserve when its limits refuse them (credentials.js).
    if (view.round > 0) keepCredential({ tournament: id, organizer }, { played: true });
    const can = organizerCan(view);
    const name = namer(view);
    drawPlayers(view, can);
    drawRegistrations(answer.registrations ?? []);
    drawRound(view, can);
    const tables = answer.tables ?? [];
    $("o-tables").replaceChildren(...(tables.length ? tables.map((t) => liveRow(t, name))
      : [el("p", { class: "hint" }, "No round started yet: start one above, and its tables appear here.")]));
    renderRounds(view, resultControls);
  };
}
