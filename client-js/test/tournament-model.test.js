// The tournament pages' readings (client-js/app/tournament/model.js) from hand-made answers
// shaped as docs/tournaments.md says, and the API client's writes (tournament/api.js): an
// action retried after a lost answer or a 503 carries the same action_id.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as m from "../app/tournament/model.js";
import { write } from "../app/tournament/api.js";

const view = {
  tournament: "t1", name: "Cup", version: 9, status: "playing", round: 1,
  settings: { rounds: 3, ruleset: "n5", point_limit: 300, aro_window_s: 30, spectator_delay_s: 0, clock_s: 2700, tables: [], visibility: "public" },
  players: [
    { player: "p1", name: "Alice", army: "helion-vanguard", army_name: "Helion Vanguard", seed: 1, dropped: false },
    { player: "p2", name: "Bruno", army: "vesper-raiders", army_name: "Vesper Raiders", seed: null, dropped: false },
    { player: "p3", name: "Chiara", army: "helion-vanguard", army_name: "Helion Vanguard", seed: null, dropped: true },
  ],
  proposal: null, rounds: [], standings: [],
};
const name = m.namer(view);

test("the link: organizer, player, public, or the creation form", () => {
  assert.deepEqual(m.tournamentLink("#tournament=t1&organizer=o-tok"), { mode: "organizer", tournament: "t1", token: "o-tok" });
  assert.deepEqual(m.tournamentLink("#tournament=t1&player=p-tok"), { mode: "player", tournament: "t1", token: "p-tok" });
  assert.deepEqual(m.tournamentLink("#tournament=t1"), { mode: "public", tournament: "t1", token: null });
  assert.deepEqual(m.tournamentLink(""), { mode: "create", tournament: null, token: null });
  assert.equal(m.pageLink("t1"), "tournament.html#tournament=t1");
  assert.equal(m.pageLink("t1", { player: "a+b" }), "tournament.html#tournament=t1&player=a%2Bb");
  assert.deepEqual(m.exportLinks("t 1"), { json: "/api/tournaments/t%201/standings", csv: "/api/tournaments/t%201/standings.csv" });
});

test("action ids: 32 hex characters from the random source, fresh each time", () => {
  let n = 0;
  const random = { getRandomValues: (/** @type {Uint8Array} */ a) => a.map(() => n++) };
  assert.equal(m.newActionId(random), "000102030405060708090a0b0c0d0e0f");
  assert.match(m.newActionId(), /^[0-9a-f]{32}$/);
  assert.notEqual(m.newActionId(), m.newActionId());
});

test("status and settings in words", () => {
  assert.equal(m.statusText(view), "Round 1 of 3 being played");
  assert.equal(m.statusText({ ...view, status: "registration", round: 0 }), "Registration open");
  assert.equal(m.statusText({ ...view, status: "paired", round: 1, proposal: { round: 2 } }), "Round 2 paired, not started yet");
  assert.equal(m.statusText({ ...view, status: "between_rounds" }), "Round 1 of 3 finished");
  assert.equal(m.statusText({ ...view, status: "finished", round: 3 }), "Finished");
  assert.equal(m.settingsText(view.settings), "3 rounds, N5, 300 points, ARO window 30 s, chess clock 45:00 each, spectators live, public");
  assert.equal(m.settingsText({ ...view.settings, rounds: 1, ruleset: "codeone", clock_s: null, spectator_delay_s: 120, visibility: "private" }),
    "1 round, CodeOne, 300 points, ARO window 30 s, no chess clock, spectators 120 s behind, private");
  assert.equal(name("p2"), "Bruno");
  assert.equal(name("p9"), "p9", "an unknown id is shown as itself");
  assert.equal(name(null), "-");
});

test("clocks: the running side's time runs down from since_ms, never below zero", () => {
  assert.equal(m.clockText(2700_000), "45:00");
  assert.equal(m.clockText(61_001), "1:02", "a started second counts");
  assert.equal(m.clockText(3_725_000), "1:02:05");
  assert.equal(m.clockText(-5), "0:00");
  const clocks = { A: 600_000, B: 500_000, running: /** @type {"A"} */ ("A"), since_ms: 1_000_000 };
  assert.deepEqual(m.clocksNow(clocks, 1_030_000), { A: 570_000, B: 500_000, running: "A" });
  assert.deepEqual(m.clocksNow(clocks, 999_000), { A: 600_000, B: 500_000, running: "A" }, "a clock behind since_ms takes nothing");
  assert.deepEqual(m.clocksNow({ ...clocks, running: null }, 9_999_999), { A: 600_000, B: 500_000, running: null });
  assert.deepEqual(m.clocksNow(clocks, 5_000_000).A, 0);
  assert.equal(m.clocksNow(null, 0), null);
});

test("results in words: the game's, a tie, the organizer's close and correction with what they replaced", () => {
  const game = { winner: "p1", tp: { p1: 4, p2: 0 }, op: { p1: 0, p2: 0 }, vp: { p1: 215, p2: 140 }, source: "game", reason: "rounds_completed", original: null, corrections: [] };
  assert.equal(m.resultText(game, "p1", "p2", name), "Alice beat Bruno 215-140 VP (4-0 TP), after the last game round");
  assert.equal(m.resultText({ ...game, winner: "p2", vp: { p1: 0, p2: 0 }, tp: { p1: 0, p2: 4 }, reason: "concession" }, "p1", "p2", name),
    "Bruno beat Alice 0-0 VP (4-0 TP), by concession");
  assert.equal(m.resultText({ ...game, winner: null, tp: { p1: 2, p2: 2 }, vp: { p1: 100, p2: 100 }, op: { p1: 3, p2: 1 } }, "p1", "p2", name),
    "Alice and Bruno tie 100-100 VP, 3-1 OP (2-2 TP), after the last game round");
  assert.equal(m.resultText(null, "p1", "p2", name), "no result yet");
  assert.deepEqual(m.resultHistory(game, "p1", "p2", name), [], "a game's own result replaced nothing");

  const corrected = { winner: null, tp: { p1: 2, p2: 2 }, op: { p1: 0, p2: 0 }, vp: { p1: 150, p2: 150 }, source: "organizer", reason: "agreed a draw",
    original: { winner: "p1", tp: { p1: 4, p2: 0 }, op: { p1: 0, p2: 0 }, vp: { p1: 215, p2: 140 }, reason: "concession" },
    corrections: [
      { winner: "p2", tp: { p1: 0, p2: 4 }, op: { p1: 0, p2: 2 }, vp: { p1: 10, p2: 20 }, reason: "wrong table", kind: "correct", at_version: 12 },
      { winner: null, tp: { p1: 2, p2: 2 }, op: { p1: 0, p2: 0 }, vp: { p1: 150, p2: 150 }, reason: "agreed a draw", kind: "correct", at_version: 13 }] };
  assert.equal(m.resultText(corrected, "p1", "p2", name), "Alice and Bruno tie 150-150 VP (2-2 TP), corrected by the organizer: agreed a draw");
  assert.deepEqual(m.resultHistory(corrected, "p1", "p2", name), [
    "The game's result: Alice beat Bruno 215-140 VP (4-0 TP), by concession",
    "Then corrected: Bruno beat Alice 20-10 VP, 2-0 OP (4-0 TP) (wrong table)"]);

  const closed = { winner: "p2", tp: { p1: 0, p2: 4 }, op: {}, vp: { p1: 120, p2: 180 }, source: "organizer", reason: "time called", original: null,
    corrections: [{ winner: "p2", tp: { p1: 0, p2: 4 }, op: {}, vp: { p1: 120, p2: 180 }, reason: "time called", kind: "close", at_version: 20 }] };
  assert.equal(m.resultText(closed, "p1", "p2", name), "Bruno beat Alice 180-120 VP (4-0 TP), closed by the organizer: time called");
  assert.deepEqual(m.resultHistory(closed, "p1", "p2", name), ["The game had not finished."]);

  // A record link only where the game finished: a table closed unfinished has no record (409 game_not_over).
  assert.equal(m.hasRecord(closed), false);
  assert.equal(m.hasRecord(corrected), true);
  assert.equal(m.hasRecord({ ...game, original: { ...game, original: undefined } }), true, "a game's result: its original is itself");
  assert.equal(m.hasRecord(null), false);
});

test("the result form: whole numbers, OP 0-10 (empty: 0), a reason, a winner of the table or a tie", () => {
  const form = { a: "p1", b: "p2", winner: "p2", vpA: "120", vpB: " 180 ", opA: "", opB: "3", reason: "  time called " };
  assert.deepEqual(m.resultBody(form), { ok: true, reason: "time called",
    result: { winner: "p2", vp: { p1: 120, p2: 180 }, op: { p1: 0, p2: 3 } } });
  assert.equal(/** @type {any} */ (m.resultBody({ ...form, winner: "" })).result.winner, null, "a tie");
  const problem = (/** @type {Record<string, string>} */ change) => /** @type {any} */ (m.resultBody({ ...form, ...change })).problem;
  assert.equal(problem({ vpA: "-1" }), "Victory points are whole numbers, 0 or more.");
  assert.equal(problem({ vpB: "1.5" }), "Victory points are whole numbers, 0 or more.");
  assert.equal(problem({ vpB: "" }), "Victory points are whole numbers, 0 or more.");
  assert.equal(problem({ opA: "11" }), "Objective points are whole numbers from 0 to 10.");
  assert.equal(problem({ reason: "   " }), "Say why (the reason is kept with the result).");
  assert.equal(problem({ reason: "x".repeat(201) }), "The reason is at most 200 characters.");
  assert.equal(problem({ winner: "p3" }), "The winner must be one of the table's players.");
});

test("standings rows: the army by name, W-D-L, a dropped player marked", () => {
  const standing = { rank: 2, player: "p3", name: "Chiara", army: "helion-vanguard", dropped: true, played: 2, wins: 1, draws: 0, losses: 1, byes: 0, tp: 4, op: 0, vp: 300, sos: 6 };
  assert.deepEqual(m.standingRow(standing, view), { rank: "2", name: "Chiara (dropped)", army: "Helion Vanguard", tp: "4", op: "0", vp: "300",
    sos: "6", played: "2", record: "1-0-1", byes: "0" });
  assert.deepEqual(m.STANDING_COLUMNS.map(([key]) => key), ["rank", "name", "army", "tp", "op", "vp", "sos", "played", "record", "byes"]);
  assert.equal(m.standingRow({ ...standing, player: "p9", army: "x" }, view).army, "x", "an army the view does not name: its id");
});

test("a live table on the dashboard: where the game is, the clocks, the VP as casters see them", () => {
  const row = { round: 1, table: 1, a: "p1", b: "p2", phase: "orders", game_round: 2, turn: 1, active: "B", over: false,
    clocks: { A: 1_200_000, B: 900_000, running: "B", since_ms: 10_000 }, vp: { A: 120, B: 95 }, vp_as_of_ms: 5_000 };
  assert.deepEqual(m.liveTableText(row, 70_000), { where: "orders, round 2 turn 1, player B active", clocks: "A 20:00, B 14:00 (running)", vp: "A 120 - B 95 VP" });
  assert.deepEqual(m.liveTableText({ ...row, phase: "army_selection", game_round: 0, active: null, clocks: null, vp: null }, 0),
    { where: "army selection", clocks: "no chess clock", vp: "VP not shown yet" });
  assert.deepEqual(m.liveTableText({ ...row, phase: "game_over", over: true, vp: null }, 0), { where: "game over", clocks: "A 20:00, B 15:00 (running)", vp: "VP not shown yet" });
  assert.equal(m.liveTableText({ ...row, phase: "game_over", over: true, vp: null, result: { winner: "p1" } }, 0).vp, "final VP in the result");
  assert.equal(m.liveTableText({ ...row, gone: true, phase: null, game_round: null }, 0).where, "the room is gone (a game never begun expires after 24 h): close the table with a result");
});

test("what the organizer may do in each status", () => {
  const can = (/** @type {string} */ status, round = 1, closed = false) => m.organizerCan({ ...view, status, round, registration_closed: closed });
  const none = { closeRegistration: false, openRegistration: false };
  assert.deepEqual(can("registration", 0), { pair: true, start: true, swap: false, addPlayer: true, drop: true, seed: true, closeRegistration: true, openRegistration: false });
  assert.deepEqual(can("registration", 0, true), { pair: true, start: true, swap: false, addPlayer: true, drop: true, seed: true, closeRegistration: false, openRegistration: true });
  assert.deepEqual(can("paired", 0), { pair: true, start: true, swap: true, addPlayer: true, drop: true, seed: true, ...none });
  assert.deepEqual(can("playing"), { pair: false, start: false, swap: false, addPlayer: false, drop: false, seed: false, ...none });
  assert.deepEqual(can("between_rounds"), { pair: true, start: true, swap: false, addPlayer: true, drop: true, seed: false, ...none });
  assert.deepEqual(can("finished", 3), { pair: false, start: false, swap: false, addPlayer: false, drop: false, seed: false, ...none });
});

test("the registration's state: open or closed, places taken of max_players, nothing once paired", () => {
  const viewAt = (/** @type {Record<string, any>} */ more) => ({ ...view, status: "registration", round: 0,
    settings: { ...view.settings, max_players: 16 }, registration_closed: false, places_taken: 5, ...more });
  const at = (/** @type {Record<string, any>} */ more) => m.registrationText(viewAt(more));
  assert.deepEqual(at({}), { open: true, text: "Registration open: 5 of 16 places taken." });
  assert.deepEqual(at({ registration_closed: true }), { open: false, text: "Registration closed by the organizer: 5 of 16 places taken." });
  assert.deepEqual(at({ places_taken: 16 }), { open: false, text: "The tournament is full: 16 of 16 places taken." });
  assert.equal(m.statusText(viewAt({})), "Registration open");
  assert.equal(m.statusText(viewAt({ registration_closed: true })), "Registration closed");
  assert.equal(m.statusText(viewAt({ places_taken: 16 })), "Registration full");
  assert.equal(m.registrationText({ ...view, status: "paired" }), null);
  assert.equal(m.registrationText({ ...view, status: "playing" }), null);
});

test("a player's pairing in words: its table, a bye, nothing yet", () => {
  const me = { player: view.players[0], bye: false, view, current: { round: 1, table: 2, opponent: "p2", seat: "B" } };
  assert.equal(m.pairingText(me, name), "Round 1, table 2: you play Bruno as Player B.");
  assert.equal(m.pairingText({ ...me, current: null, bye: true }, name), "Round 1: you have the bye (4 TP, no game to play).");
  assert.equal(m.pairingText({ ...me, current: null, view: { ...view, round: 0, status: "registration" } }, name), "The first round has not started yet.");
  assert.equal(m.pairingText({ ...me, current: null, view: { ...view, round: 1, status: "paired", proposal: { round: 2 } } }, name),
    "Round 2 is paired; your table appears here when the organizer starts it.");
  assert.equal(m.tableTitle({ a: "p1", b: "p2" }, name), "Alice (A) v Bruno (B)");
  assert.deepEqual(m.proposalPlayers({ tables: [{ a: "p1", b: "p2" }], bye: "p3" }), ["p1", "p2", "p3"]);
  assert.deepEqual(m.proposalPlayers(null), []);
  // The room offers every army: the page says which one the player registered.
  const army = { ...me, player: { ...me.player, army_name: "Vesper Raiders" } };
  assert.equal(m.armyHint(army), "Choose the army you registered when the table asks: Vesper Raiders.");
  assert.equal(m.armyHint({ ...army, current: { ...me.current, result: { winner: "p2" } } }), "", "nothing to choose once the game has its result");
  assert.equal(m.armyHint({ ...army, current: null, bye: true }), "");
});

test("refusals in words, and which ones are retried", () => {
  assert.equal(m.refusalText({ error: "round_in_progress", message: "round 1 is being played" }, 409), "round 1 is being played (round_in_progress)");
  assert.equal(m.refusalText(null, 500), "HTTP 500");
  assert.deepEqual([[503, "storage_unavailable"], [503, "busy"], [409, "round_in_progress"], [400, "bad_field"], [502, undefined]]
    .map(([s, c]) => m.retryable(/** @type {number} */ (s), /** @type {any} */ (c))), [true, true, false, false, true]);
  // A limit's 503 says how long to wait: sending it again at once would be refused again.
  assert.equal(m.retryable(503, "lobby_busy", { error: "lobby_busy", retry_after_s: 30 }), false);
});

/** A fetch that answers from a list, recording each body. */
function fakeFetch(/** @type {Array<{status: number, body: any, retryAfter?: string} | "unreachable">} */ answers) {
  const sent = /** @type {any[]} */ ([]);
  const fetcher = async (/** @type {string} */ _path, /** @type {any} */ init) => {
    sent.push(JSON.parse(init.body));
    const next = answers.shift();
    if (!next || next === "unreachable") throw new TypeError("Failed to fetch");
    return { ok: next.status < 300, status: next.status, json: async () => next.body,
      headers: { get: (/** @type {string} */ h) => (h.toLowerCase() === "retry-after" ? next.retryAfter ?? null : null) } };
  };
  return { sent, fetcher: /** @type {any} */ (fetcher) };
}

test("a write is sent again with the same action_id after a lost answer or a 503, not after a refusal", async () => {
  const noWait = { waitMs: () => 0 };
  const lost = fakeFetch(["unreachable", { status: 503, body: { error: "storage_unavailable" } }, { status: 200, body: { version: 3, duplicate: true } }]);
  const done = await write("/api/tournaments/t1/actions", { organizer: "o", type: "pair" }, { ...noWait, fetcher: lost.fetcher, actionId: "a".repeat(32) });
  assert.equal(done.ok, true);
  assert.equal(done.problem, null);
  assert.deepEqual(lost.sent.map((b) => b.action_id), ["a".repeat(32), "a".repeat(32), "a".repeat(32)]);
  assert.deepEqual(lost.sent[0], { organizer: "o", type: "pair", action_id: "a".repeat(32) });

  const refused = fakeFetch([{ status: 409, body: { error: "round_in_progress", message: "round 1 is being played" } }]);
  const answer = await write("/x", { type: "pair" }, { ...noWait, fetcher: refused.fetcher });
  assert.equal(refused.sent.length, 1, "a refusal is final");
  assert.deepEqual([answer.ok, answer.status, answer.problem], [false, 409, "round 1 is being played (round_in_progress)"]);

  const down = fakeFetch([]);
  const never = await write("/x", {}, { ...noWait, fetcher: down.fetcher, tries: 3 });
  assert.equal(down.sent.length, 3);
  assert.equal(new Set(down.sent.map((b) => b.action_id)).size, 1);
  assert.equal(never.status, 0);
  assert.match(/** @type {string} */ (never.problem), /^could not reach the server/);
});

test("a round refused by the room limits is not sent again; its refusal names the round's size and the wait", async () => {
  const noWait = { waitMs: () => 0 };
  const busy = fakeFetch([{ status: 503, retryAfter: "95", body: { error: "lobby_busy", retry_after_s: 95,
    message: "a round of 128 tables is more rooms than this server may create now; try again in 95 s" } }]);
  const answer = await write("/api/tournaments/t1/actions", { organizer: "o", type: "start_round" }, { ...noWait, fetcher: busy.fetcher });
  assert.equal(busy.sent.length, 1, "a wait-refusal is final: the organizer starts again after the wait");
  assert.equal(answer.retryAfter, "95");
  assert.match(/** @type {string} */ (answer.problem),
    /^The server is busy creating rooms\. A round of 128 tables is more rooms than this server may create now; try again in 1 min 35 s\. \(That is at .+\.\)$/);

  const full = fakeFetch([{ status: 409, body: { error: "tournament_full", message: "this tournament takes at most 16 players (a player dropped before playing frees a place)" } }]);
  const refused = await write("/api/tournaments/t1/players", { name: "Zed", army: "x" }, { ...noWait, fetcher: full.fetcher });
  assert.equal(refused.problem, "The tournament is full: every place is taken. This tournament takes at most 16 players (a player dropped before playing frees a place).");
});

test("a registration's army fields: a shipped list, a pasted code, a list file; what is missing in words", () => {
  assert.deepEqual(m.armyFields("army", { army: "helion-vanguard" }), { ok: true, fields: { army: "helion-vanguard" } });
  assert.deepEqual(m.armyFields("army", { army: "" }), { ok: false, problem: "Choose an army list." });
  assert.deepEqual(m.armyFields("code", { code: "  gQ9sYW50ZXJu \n" }), { ok: true, fields: { code: "gQ9sYW50ZXJu" } });
  assert.equal(m.armyFields("code", { code: "  " }).ok, false);
  const list = { id: "mine", name: "Mine", faction: "F", format: "standard", points: 300, units: [], entries: [] };
  assert.deepEqual(m.armyFields("list", { fileText: JSON.stringify(list), fileName: "mine.json" }), { ok: true, fields: { list } });
  assert.deepEqual(m.armyFields("list", { fileText: null }), { ok: false, problem: "Choose your list file (an army list in JSON, docs/armies.md)." });
  const broken = m.armyFields("list", { fileText: "{oops", fileName: "mine.json" });
  assert.equal(broken.ok, false);
  assert.match(/** @type {any} */ (broken).problem, /^mine\.json: not a JSON file \(/);
  assert.deepEqual(m.armyFields("list", { fileText: "[1, 2]", fileName: "a.json" }), { ok: false, problem: "a.json: an army list is a JSON object (docs/armies.md)." });
  assert.deepEqual(m.armyFields("list", { fileText: " ".repeat(m.MAX_LIST_FILE_BYTES + 1), fileName: "big.json" }), { ok: false, problem: "big.json: the file is too large for an army list." });
  assert.deepEqual(m.armyFields("list", { fileText: null, fileSize: 5e6, fileName: "huge.json" }), { ok: false, problem: "huge.json: the file is too large for an army list." });
});

test("the organizer's registrations: the list, how it came, valid or its problem, points and coverage", () => {
  const valid = { player: "p1", name: "Nia", army: "lantern-patrol", army_source: "code", dropped: false, valid: true, problem: null,
    list: { id: "lantern-patrol", name: "Lantern Patrol", faction: "Lantern Accord", format: "standard", points: 300, cost: 77, swc: 1.5, troopers: 5, roster: [] },
    coverage: { troopers: 2, items: [{ entry: "t4", unit: "Wirewright", not_refereed: ["Sensor"] }, { entry: "t5", unit: "Gloam Stalker", not_refereed: ["Visor L1", "Sensor"] }] } };
  assert.deepEqual(m.registrationRow(valid), {
    player: "p1", name: "Nia", list: "Lantern Patrol (Lantern Accord)", source: "army code", valid: true, status: "valid",
    points: "77 of 300 pts, 5 troopers", coverage: "2 troopers not fully refereed: Wirewright: Sensor; Gloam Stalker: Visor L1, Sensor" });
  assert.deepEqual(m.coverageLines(valid.coverage), { summary: "2 troopers not fully refereed", lines: ["Wirewright: Sensor", "Gloam Stalker: Visor L1, Sensor"] });
  assert.deepEqual(m.coverageLines(null), { summary: "-", lines: [] });
  assert.equal(m.registrationRow({ ...valid, coverage: { troopers: 0, items: [] } }).coverage, "all refereed");
  const invalid = { player: "p2", name: "Rae", army: "my-cell", army_source: "list", dropped: true, valid: false,
    problem: "Unit 'enforcer' carries unknown weapon 'laser_spoon'.", list: { id: "my-cell", name: "Night Shift", faction: null }, coverage: null };
  assert.deepEqual(m.registrationRow(invalid), {
    player: "p2", name: "Rae (dropped)", list: "Night Shift", source: "list file", valid: false,
    status: "not valid: Unit 'enforcer' carries unknown weapon 'laser_spoon'.", points: "-", coverage: "-" });
});

test("the player's own list on its page", () => {
  const registration = { player: "p1", name: "Nia", army: "night-shift", army_source: "list", dropped: false, valid: true, problem: null,
    list: { name: "Night Shift", faction: "Vesper Syndicate", points: 300, cost: 300, troopers: 15 }, coverage: { troopers: 0, items: [] } };
  assert.equal(m.ownListText(registration), "Your list: Night Shift (Vesper Syndicate), list file: valid, 300 of 300 pts, 15 troopers; all refereed.");
  assert.equal(m.ownListText({ ...registration, valid: false, problem: "There is no army 'x'.", coverage: null }),
    "Your list: Night Shift (Vesper Syndicate), list file: not valid: There is no army 'x'. Ask the organizer.");
  assert.equal(m.ownListText(undefined), "");
});

test("the scoring table and each round's mission in words", () => {
  const its = { name: "its", win: 4, draw: 2, loss: 0, bye: 4, offensive_bonus_op: 5, defensive_bonus_margin: 2 };
  assert.equal(m.scoringText(its), "Tournament points (ITS): victory 4, tie 2, defeat 0, bye 4, +1 for 5 OP or more, +1 for a defeat by 2 OP or fewer");
  assert.equal(m.scoringText({ ...its, name: "classic", offensive_bonus_op: null, defensive_bonus_margin: null }),
    "Tournament points: victory 4, tie 2, defeat 0, bye 4");
  assert.equal(m.settingsText({ ...view.settings, scoring: { ...its, name: "custom", win: 3, defensive_bonus_margin: null } }),
    "3 rounds, N5, 300 points, ARO window 30 s, chess clock 45:00 each, spectators live, public. Tournament points (the organizer's): victory 3, tie 2, defeat 0, bye 4, +1 for 5 OP or more");
  assert.equal(m.missionText({ id: "c1-uplink", title: "Uplink Grab" }), "Mission: Uplink Grab");
  assert.equal(m.missionText(null), "No mission (annihilation, won on VP)");
  assert.equal(m.missionsText({ missions: [{ round: 1, mission: { id: "c1-uplink", title: "Uplink Grab" } }, { round: 2, mission: null }] }),
    "Missions: round 1 Uplink Grab, round 2 none");
  assert.equal(m.missionsText({ missions: [{ round: 1, mission: null }] }), "");
  assert.equal(m.missionsText({}), "");
});

test("a refused typed result is said with the server's sentence and its code", () => {
  const body = { error: "winner_fewer_op", message: "Dana is named the winner with 2 OP against Alice's 5: the player with more Objective Points wins. Name the winner again, or correct the points." };
  assert.equal(m.refusalText(body, 400), `${body.message} (winner_fewer_op)`);
});

test("a player's pairing names its game's mission; a bye says the table's TP", () => {
  const me = { view: { ...view, round: 2 }, bye: false, current: { round: 2, table: 3, opponent: "p2", seat: "B", mission: { id: "c1-uplink", title: "Uplink Grab" } } };
  assert.equal(m.pairingText(me, name), "Round 2, table 3: you play Bruno as Player B. Mission: Uplink Grab.");
  assert.equal(m.pairingText({ ...me, current: { ...me.current, mission: null } }, name), "Round 2, table 3: you play Bruno as Player B.");
  const bye = { view: { ...view, round: 2, settings: { ...view.settings, scoring: { bye: 3 } } }, bye: true, current: null };
  assert.equal(m.pairingText(bye, name), "Round 2: you have the bye (3 TP, no game to play).");
});

test("a creation's missions: none chosen sends none, else up to the last round chosen", () => {
  assert.deepEqual(m.creationMissions(["", "", ""]), []);
  assert.deepEqual(m.creationMissions(["c1-uplink", "", ""]), ["c1-uplink"]);
  assert.deepEqual(m.creationMissions(["", "c1-vault", ""]), ["", "c1-vault"]);
  assert.deepEqual(m.creationMissions([]), []);
});
