// What the tournament pages say, from the tournament API's answers (docs/tournaments.md):
// pure functions, no DOM, so that test/tournament-model.test.js checks them with hand-made
// answers. page.js draws them.
import { refusalWords, waitRefusal } from "../refusals.js";

/**
 * Which page a fragment opens: the organizer's dashboard (`#tournament=…&organizer=…`), a
 * player's page (`#tournament=…&player=…`), the public page (`#tournament=…`), or, without a
 * tournament, the creation form.
 * @param {string} hash
 * @returns {{mode: "organizer"|"player"|"public"|"create", tournament: string|null, token: string|null}}
 */
export function tournamentLink(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const tournament = params.get("tournament");
  if (!tournament) return { mode: "create", tournament: null, token: null };
  const organizer = params.get("organizer");
  if (organizer) return { mode: "organizer", tournament, token: organizer };
  const player = params.get("player");
  if (player) return { mode: "player", tournament, token: player };
  return { mode: "public", tournament, token: null };
}

/** The page of a tournament (this app's own file), for links inside the app. */
export const pageLink = (/** @type {string} */ tournament, /** @type {Record<string, string>} */ more = {}) =>
  `tournament.html#${new URLSearchParams({ tournament, ...more })}`;

/** The standings exports of a tournament. */
export const exportLinks = (/** @type {string} */ tournament) => ({
  json: `/api/tournaments/${encodeURIComponent(tournament)}/standings`,
  csv: `/api/tournaments/${encodeURIComponent(tournament)}/standings.csv`,
});

/**
 * A fresh `action_id` (32 hex characters): sent again unchanged when the same action is
 * retried, so the server applies it once. getRandomValues works on insecure pages too
 * (randomUUID does not).
 * @param {{getRandomValues: (a: Uint8Array) => Uint8Array}} [random]
 */
export function newActionId(random = globalThis.crypto) {
  return [...random.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Player id -> name, from the public view; an unknown id is shown as itself. */
export function namer(/** @type {any} */ view) {
  const names = new Map((view?.players ?? []).map((/** @type {any} */ p) => [p.player, p.name]));
  return (/** @type {string|null|undefined} */ id) => (id == null ? "-" : names.get(id) ?? id);
}

const STATUS = {
  registration: "Registration open",
  paired: "Round {next} paired, not started yet",
  playing: "Round {round} of {rounds} being played",
  between_rounds: "Round {round} of {rounds} finished",
  finished: "Finished",
};

/** The tournament's status in words ("Round 1 of 2 being played"); registration says when it is closed or full. */
export function statusText(/** @type {any} */ view) {
  if (view.status === "registration" && view.registration_closed) return "Registration closed";
  if (view.status === "registration" && view.settings?.max_players && view.places_taken >= view.settings.max_players) return "Registration full";
  const template = STATUS[/** @type {keyof typeof STATUS} */ (view.status)] ?? String(view.status);
  return template.replace("{round}", String(view.round)).replace("{rounds}", String(view.settings?.rounds ?? "?"))
    .replace("{next}", String(view.proposal?.round ?? view.round + 1));
}

/** The settings every table of the tournament is played with, in words. */
export function settingsText(/** @type {any} */ settings) {
  const parts = [`${settings.rounds} round${settings.rounds === 1 ? "" : "s"}`, RULESETS[settings.ruleset] ?? settings.ruleset,
    `${settings.point_limit} points`, `ARO window ${settings.aro_window_s} s`,
    settings.clock_s ? `chess clock ${clockText(settings.clock_s * 1000)} each` : "no chess clock",
    settings.spectator_delay_s ? `spectators ${settings.spectator_delay_s} s behind` : "spectators live",
    settings.visibility === "private" ? "private" : "public"];
  return parts.join(", ") + (settings.scoring ? `. ${scoringText(settings.scoring)}` : "");
}
const RULESETS = { n5: "N5", codeone: "CodeOne" };

/** The tournament points table in words ("Tournament points (ITS): victory 4, tie 2, ..."). */
export function scoringText(/** @type {any} */ t) {
  const label = { its: " (ITS)", classic: "", custom: " (the organizer's)" }[/** @type {string} */ (t.name)] ?? "";
  const parts = [`victory ${t.win}`, `tie ${t.draw}`, `defeat ${t.loss}`, `bye ${t.bye}`];
  if (t.offensive_bonus_op != null) parts.push(`+1 for ${t.offensive_bonus_op} OP or more`);
  if (t.defensive_bonus_margin != null) parts.push(`+1 for a defeat by ${t.defensive_bonus_margin} OP or fewer`);
  return `Tournament points${label}: ${parts.join(", ")}`;
}

/** A round's mission in words: its title, or the annihilation game when it has none. */
export const missionText = (/** @type {any} */ mission) => (mission ? `Mission: ${mission.title ?? mission.id}` : "No mission (annihilation, won on VP)");

/** A creation's `missions` from the form's choice per round: [] when no round has one, else up to the last chosen. */
export function creationMissions(/** @type {string[]} */ chosen) {
  const last = chosen.reduce((at, id, i) => (id ? i : at), -1);
  return chosen.slice(0, last + 1);
}

/** Every round's mission in one line ("" when no round has one). */
export function missionsText(/** @type {any} */ view) {
  const rounds = view.missions ?? [];
  if (!rounds.some((/** @type {any} */ r) => r.mission)) return "";
  return `Missions: ${rounds.map((/** @type {any} */ r) => `round ${r.round} ${r.mission ? r.mission.title ?? r.mission.id : "none"}`).join(", ")}`;
}

/** Milliseconds as h:mm:ss or m:ss (never negative). */
export function clockText(/** @type {number} */ ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * Each side's chess clock now: the stored time left, less the time the running side has run
 * since `since_ms` (the dashboard is polled; the page ticks between polls).
 * @param {{A: number, B: number, running: "A"|"B"|null, since_ms: number}|null} clocks @param {number} nowMs
 * @returns {{A: number, B: number, running: "A"|"B"|null}|null}
 */
export function clocksNow(clocks, nowMs) {
  if (!clocks) return null;
  const left = { A: clocks.A, B: clocks.B, running: clocks.running };
  if (clocks.running) left[clocks.running] = Math.max(0, clocks[clocks.running] - Math.max(0, nowMs - clocks.since_ms));
  return left;
}

/** The rules core's reasons a game ended (server/rules/orders/game_sequence.py), in words. */
const REASONS = {
  rounds_completed: "after the last game round",
  victory_points: "on victory points",
  concession: "by concession",
  concede: "by concession",
  retreat: "by Retreat!",
};

/**
 * A result's score in words: "Alice beat Bob 215-140 VP (4-0 TP)", or a tie.
 * @param {any} result @param {string} a @param {string} b player ids of seats A and B
 * @param {(id: string) => string} name
 */
export function scoreText(result, a, b, name) {
  const vp = (/** @type {string} */ p) => result.vp?.[p] ?? 0;
  const op = (/** @type {string} */ p) => result.op?.[p] ?? 0;
  const tp = (/** @type {string} */ p) => result.tp?.[p];
  const [first, second] = result.winner === b ? [b, a] : [a, b];
  const ops = op(first) || op(second) ? `, ${op(first)}-${op(second)} OP` : "";
  const tps = tp(first) === undefined ? "" : ` (${tp(first)}-${tp(second)} TP)`;
  return result.winner
    ? `${name(first)} beat ${name(second)} ${vp(first)}-${vp(second)} VP${ops}${tps}`
    : `${name(a)} and ${name(b)} tie ${vp(a)}-${vp(b)} VP${ops}${tps}`;
}

/**
 * A result in words, with how it came: "Alice beat Bob 215-140 VP (4-0 TP), by concession";
 * an organizer's result says so with its reason.
 * @param {any} result @param {string} a @param {string} b @param {(id: string) => string} name
 */
export function resultText(result, a, b, name) {
  if (!result) return "no result yet";
  const text = scoreText(result, a, b, name);
  if (result.source === "organizer") {
    const kind = result.corrections?.at(-1)?.kind === "close" ? "closed by the organizer" : "corrected by the organizer";
    return `${text}, ${kind}: ${result.reason}`;
  }
  return `${text}, ${REASONS[/** @type {keyof typeof REASONS} */ (result.reason)] ?? result.reason}`;
}

/**
 * Whether a table's result comes with a game record to link: only when the game itself
 * finished (the result's `original`). A table the organizer closed unfinished has none (its
 * record answers 409 game_not_over).
 */
export function hasRecord(/** @type {any} */ result) {
  return Boolean(result?.original);
}

/**
 * What a result in force replaced, oldest first: the game's own result (or that it had not
 * finished), then each correction before the last (the one in force is resultText's).
 * @returns {string[]}
 */
export function resultHistory(/** @type {any} */ result, /** @type {string} */ a, /** @type {string} */ b, /** @type {(id: string) => string} */ name) {
  if (!result || result.source !== "organizer") return [];
  const lines = [result.original ? `The game's result: ${resultText(result.original, a, b, name)}` : "The game had not finished."];
  for (const c of (result.corrections ?? []).slice(0, -1)) {
    lines.push(`Then ${c.kind === "close" ? "closed" : "corrected"}: ${scoreText(c, a, b, name)} (${c.reason})`);
  }
  return lines;
}

/** The columns of the standings table, in order, with their headers. */
export const STANDING_COLUMNS = /** @type {const} */ ([
  ["rank", "#"], ["name", "Player"], ["army", "Army"], ["tp", "TP"], ["op", "OP"], ["vp", "VP"], ["sos", "SoS"],
  ["played", "Played"], ["record", "W-D-L"], ["byes", "Byes"],
]);

/**
 * One row of the standings as shown: the army by its name (the view's players name it),
 * wins-draws-losses together, a dropped player marked.
 * @param {any} standing @param {any} view
 * @returns {Record<string, string>}
 */
export function standingRow(standing, view) {
  const player = (view?.players ?? []).find((/** @type {any} */ p) => p.player === standing.player);
  return {
    rank: String(standing.rank), name: `${standing.name}${standing.dropped ? " (dropped)" : ""}`,
    army: player?.army_name ?? standing.army, tp: String(standing.tp), op: String(standing.op), vp: String(standing.vp),
    sos: String(standing.sos), played: String(standing.played), record: `${standing.wins}-${standing.draws}-${standing.losses}`,
    byes: String(standing.byes),
  };
}

/** A rules-core phase in words ("army_selection" -> "army selection"). */
export const phaseWords = (/** @type {string} */ phase) => String(phase).replaceAll("_", " ");

/**
 * A live table's state in words for the dashboard: where the game is, the clocks, VP so far.
 * @param {any} table a row of the dashboard's `tables` @param {number} nowMs
 */
export function liveTableText(table, nowMs) {
  const where = table.over || table.phase === "game_over" ? "game over"
    : table.gone ? "the room is gone (a game never begun expires after 24 h): close the table with a result"
      : table.game_round ? `${phaseWords(table.phase)}, round ${table.game_round} turn ${table.turn}, ${table.active ? `player ${table.active} active` : "nobody active"}`
        : phaseWords(table.phase ?? "not started");
  const clocks = clocksNow(table.clocks, nowMs);
  const clockWords = clocks ? `A ${clockText(clocks.A)}${clocks.running === "A" ? " (running)" : ""}, B ${clockText(clocks.B)}${clocks.running === "B" ? " (running)" : ""}` : "no chess clock";
  // A finished game's VP are open: its result says them (the casters' view may still be 60 s behind).
  const vp = (table.over || table.phase === "game_over") && table.result ? "final VP in the result"
    : table.vp ? `A ${table.vp.A} - B ${table.vp.B} VP` : "VP not shown yet";
  return { where, clocks: clockWords, vp };
}

/**
 * The body of a correction's or a close's `result` from the form's fields, or the reason it
 * cannot be sent. `winner`: a player id, or "" for a tie.
 * @param {{a: string, b: string, winner: string, vpA: string, vpB: string, opA: string, opB: string, reason: string}} form
 * @returns {{ok: true, result: any, reason: string} | {ok: false, problem: string}}
 */
export function resultBody(form) {
  const int = (/** @type {string} */ s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : NaN);
  const vpA = int(form.vpA), vpB = int(form.vpB);
  if (Number.isNaN(vpA) || Number.isNaN(vpB)) return { ok: false, problem: "Victory points are whole numbers, 0 or more." };
  const opA = form.opA.trim() === "" ? 0 : int(form.opA), opB = form.opB.trim() === "" ? 0 : int(form.opB);
  if (Number.isNaN(opA) || Number.isNaN(opB) || opA > 10 || opB > 10) return { ok: false, problem: "Objective points are whole numbers from 0 to 10." };
  const reason = form.reason.trim();
  if (!reason) return { ok: false, problem: "Say why (the reason is kept with the result)." };
  if (reason.length > 200) return { ok: false, problem: "The reason is at most 200 characters." };
  if (form.winner !== "" && form.winner !== form.a && form.winner !== form.b) return { ok: false, problem: "The winner must be one of the table's players." };
  return { ok: true, reason, result: { winner: form.winner === "" ? null : form.winner, vp: { [form.a]: vpA, [form.b]: vpB }, op: { [form.a]: opA, [form.b]: opB } } };
}

/**
 * The server's refusal in words: a limit's refusal (registration limits, a full or closed
 * tournament, a round's rooms over the room limits) says what happened and how long to wait
 * (refusals.js); any other, its message with its code.
 * @param {any} answer @param {number} status @param {{retryAfter?: string|null, nowMs?: number}} [more]
 */
export function refusalText(answer, status, more = {}) {
  return refusalWords(answer, status, more);
}

/**
 * Whether a write refused with this status and code may be sent again at once with the same
 * action_id. Not a limit's refusal that says how long to wait (503 `lobby_busy` of a round's
 * rooms): sending it again before then is refused again.
 */
export const retryable = (/** @type {number} */ status, /** @type {string|undefined} */ code, /** @type {any} */ body = null) =>
  !waitRefusal(body) && (status === 503 || status === 502 || status === 504 || code === "busy" || code === "storage_unavailable");

/**
 * The registration's state for the pages: open or closed, and the places taken of
 * `max_players` ("Registration open: 5 of 16 places taken"). Null once round 1 is paired
 * (players no longer register themselves).
 * @param {any} view
 * @returns {{open: boolean, text: string} | null}
 */
export function registrationText(view) {
  if (view.status !== "registration") return null;
  const max = view.settings?.max_players;
  const taken = view.places_taken ?? (view.players ?? []).filter((/** @type {any} */ p) => !p.dropped).length;
  const places = max ? `${taken} of ${max} places taken` : `${taken} place${taken === 1 ? "" : "s"} taken`;
  const full = max !== undefined && taken >= max;
  if (view.registration_closed) return { open: false, text: `Registration closed by the organizer: ${places}.` };
  if (full) return { open: false, text: `The tournament is full: ${places}.` };
  return { open: true, text: `Registration open: ${places}.` };
}

/** What the organizer may do now, from the public view's status (docs/tournaments.md, the actions' "when"). */
export function organizerCan(/** @type {any} */ view) {
  const s = view.status;
  const inRound = s === "playing";
  return {
    pair: s === "registration" || s === "between_rounds" || s === "paired", // paired: pairs again, the swaps dropped
    start: s === "registration" || s === "between_rounds" || s === "paired",
    swap: s === "paired",
    addPlayer: s !== "playing" && s !== "finished",
    drop: !inRound && s !== "finished",
    seed: view.round === 0,
    // before round 1 is paired (docs/tournaments.md, close_registration / open_registration)
    closeRegistration: s === "registration" && !view.registration_closed,
    openRegistration: s === "registration" && Boolean(view.registration_closed),
  };
}

/**
 * The player's own table this round in words, for its page.
 * @param {any} me the answer of `POST /api/tournaments/{id}/me` @param {(id: string) => string} name
 */
export function pairingText(me, name) {
  const round = me.view?.round ?? 0;
  if (me.bye) return `Round ${round}: you have the bye (${me.view?.settings?.scoring?.bye ?? 4} TP, no game to play).`;
  if (!me.current) {
    if (me.view?.status === "paired") return `Round ${me.view.proposal?.round ?? round + 1} is paired; your table appears here when the organizer starts it.`;
    return round === 0 ? "The first round has not started yet." : "You have no table this round.";
  }
  const c = me.current;
  const mission = c.mission ? ` ${missionText(c.mission)}.` : "";
  return `Round ${c.round}, table ${c.table}: you play ${name(c.opponent)} as Player ${c.seat}.${mission}`;
}

/**
 * Which army to pick at the table: the room's army choice offers every army of the ruleset,
 * and nothing there holds a player to the list it registered with, so its page says it.
 * Empty without a table to play (none this round, the bye, a result in).
 * @param {any} me the answer of `POST /api/tournaments/{id}/me`
 */
export function armyHint(me) {
  if (!me.current || me.current.result) return "";
  return `Choose the army you registered when the table asks: ${me.player?.army_name ?? me.player?.army}.`;
}

/** The two players of a table with their seats ("Alice (A) v Bob (B)"). */
export const tableTitle = (/** @type {any} */ t, /** @type {(id: string) => string} */ name) => `${name(t.a)} (A) v ${name(t.b)} (B)`;

/**
 * The players a swap can choose between: every player of the proposal's tables and its bye.
 * @returns {string[]}
 */
export function proposalPlayers(/** @type {any} */ proposal) {
  if (!proposal) return [];
  return [...proposal.tables.flatMap((/** @type {any} */ t) => [t.a, t.b]), ...(proposal.bye ? [proposal.bye] : [])];
}

/** The largest list file read (the server takes a document of at most 16 KiB of JSON). */
export const MAX_LIST_FILE_BYTES = 64 * 1024;

/**
 * The army fields of a registration from the form's choice: a shipped list's id, an army
 * code (as the army builder exports it, pasted), or a list file's text (our army JSON,
 * docs/armies.md); or the reason it cannot be sent yet.
 * @param {"army"|"code"|"list"} source
 * @param {{army?: string, code?: string, fileText?: string|null, fileName?: string, fileSize?: number}} given
 *   `fileSize`: the file's bytes, checked before its text is read (`fileText` null then)
 * @returns {{ok: true, fields: Record<string, any>} | {ok: false, problem: string}}
 */
export function armyFields(source, given) {
  if (source === "army") {
    return given.army ? { ok: true, fields: { army: given.army } } : { ok: false, problem: "Choose an army list." };
  }
  if (source === "code") {
    const code = (given.code ?? "").trim();
    return code ? { ok: true, fields: { code } } : { ok: false, problem: "Paste your army code (in the army builder: export the list, copy its code)." };
  }
  const text = given.fileText;
  const file = given.fileName ? `${given.fileName}: ` : "";
  if ((given.fileSize ?? 0) > MAX_LIST_FILE_BYTES) return { ok: false, problem: `${file}the file is too large for an army list.` };
  if (text == null || text === "") return { ok: false, problem: "Choose your list file (an army list in JSON, docs/armies.md)." };
  if (text.length > MAX_LIST_FILE_BYTES) return { ok: false, problem: `${file}the file is too large for an army list.` };
  let list;
  try { list = JSON.parse(text); } catch (error) { return { ok: false, problem: `${file}not a JSON file (${/** @type {Error} */ (error).message}).` }; }
  if (!list || typeof list !== "object" || Array.isArray(list)) return { ok: false, problem: `${file}an army list is a JSON object (docs/armies.md).` };
  return { ok: true, fields: { list } };
}

/** How a registration's army came, in words. */
export const SOURCE_WORDS = /** @type {Record<string, string>} */ ({ army: "shipped list", list: "list file", code: "army code" });

/**
 * A registration's coverage in words: "all refereed", or the troopers with items the
 * referee does not play ("2 troopers: Wirewright (Sensor); Gloam Stalker (Visor L1, Sensor)").
 * @param {any} coverage the registration's `coverage` (null: the list is not valid)
 */
export function coverageText(coverage) {
  const { summary, lines } = coverageLines(coverage);
  return lines.length ? `${summary}: ${lines.join("; ")}` : summary;
}

/**
 * A registration's coverage as a summary and one line per trooper carrying items the referee
 * does not play ("Wirewright: Relay Antenna — played without it"), for the organizer's table.
 * @param {any} coverage the registration's `coverage` (null: the list is not valid)
 * @returns {{summary: string, lines: string[]}}
 */
export function coverageLines(coverage) {
  if (!coverage) return { summary: "-", lines: [] };
  if (!coverage.troopers) return { summary: "all refereed", lines: [] };
  return { summary: `${coverage.troopers} trooper${coverage.troopers === 1 ? "" : "s"} not fully refereed`,
    lines: (coverage.items ?? []).map((/** @type {any} */ t) => `${t.unit}: ${t.not_refereed.join(", ")}`) };
}

/**
 * One row of the organizer's registrations table (the dashboard's `registrations`): the
 * player, its list (name, faction, how it came), valid or the problem, points spent of the
 * limit, and the coverage.
 * @param {any} r
 * @returns {{player: string, name: string, list: string, source: string, status: string, valid: boolean, points: string, coverage: string}}
 */
export function registrationRow(r) {
  const list = r.list ?? {};
  const faction = list.faction ? ` (${list.faction})` : "";
  return {
    player: r.player, name: `${r.name}${r.dropped ? " (dropped)" : ""}`, list: `${list.name ?? r.army}${faction}`,
    source: SOURCE_WORDS[r.army_source] ?? String(r.army_source), valid: Boolean(r.valid),
    status: r.valid ? "valid" : `not valid: ${r.problem}`,
    points: r.valid ? `${list.cost} of ${list.points} pts, ${list.troopers} troopers` : "-",
    coverage: coverageText(r.coverage),
  };
}

/**
 * The player's own registered list on its page: "Your list: Night Shift (Vesper Syndicate),
 * list file: valid, 300 of 300 pts, 15 troopers; all refereed" (its page alone shows it).
 * @param {any} registration the `/me` answer's `registration`
 */
export function ownListText(registration) {
  if (!registration) return "";
  const row = registrationRow(registration);
  return row.valid ? `Your list: ${row.list}, ${row.source}: valid, ${row.points}; ${row.coverage}.`
    : `Your list: ${row.list}, ${row.source}: ${row.status} Ask the organizer.`;
}
