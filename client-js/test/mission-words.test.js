// Missions in words (client-js/app/mission-words.js) and on the overlay's scoreboard
// (overlay-model.js): a view's state shaped as server/rules/views.py shapes it for a game on
// the shipped mission "Relay Station" (its mission, OP so far, activations), and the events
// the rules core sends (objective_activated, objective_points_scored, classified_drawn as
// the owner and as the opponent see it, classified_achieved, game_ended with `op`).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");

/** @type {typeof import("../app/mission-words.js")} */
let w;
/** @type {typeof import("../app/describe.js")} */
let d;
/** @type {typeof import("../app/overlay-model.js")} */
let m;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(repo, "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  await (await import("../app/catalogue.js")).loadCatalogue();
  w = await import("../app/mission-words.js");
  d = await import("../app/describe.js");
  m = await import("../app/overlay-model.js");
});

const MISSION = {
  id: "n5-relay-station", title: "Relay Station", rounds: 3, max_op: 10,
  zones: [{ id: "relay-core", name: "Relay Core", x0: 16, y0: 18, x1: 32, y1: 30 }],
  markers: [{ id: "console-west", name: "West Relay Console", kind: "console", x: 18, y: 20 },
    { id: "console-east", name: "East Relay Console", kind: "console", x: 30, y: 28 }],
  objectives: [
    { id: "hold-core", kind: "dominate", op: 1, zones: ["relay-core"], when: ["round_end"], text: "1 OP for dominating the Relay Core..." },
    { id: "wake-consoles", kind: "activate", op: 1, markers: ["console-west", "console-east"], when: "game_end", specialists_only: true, per_round: false, text: "..." },
    { id: "uplink", kind: "activate", op: 2, markers: ["uplink"], when: "round_end", per_round: true, text: "..." },
    { id: "decapitate", kind: "kill_lieutenant", op: 2, text: "..." },
  ],
  classified: { draw: 2, op: 1 },
};

const stateWith = (extra = {}) => ({ ruleset: "n5", phase: "orders", round: 2, turn: 1, troopers: [], mission: MISSION,
  objective_points: { A: 2 }, objective_activations: [{ side: "A", marker: "console-west", round: 1, trooper: "A-t14" }], result: null, ...extra });

test("names: zones, markers, objectives by kind; an award that is no objective", () => {
  assert.equal(w.markerName(MISSION, "console-east"), "East Relay Console");
  assert.equal(w.zoneName(MISSION, "relay-core"), "Relay Core");
  assert.equal(w.objectiveTitle(MISSION, "hold-core"), "Dominate the Relay Core");
  assert.equal(w.objectiveTitle(MISSION, "wake-consoles"), "Activate the West Relay Console and the East Relay Console");
  assert.equal(w.objectiveTitle(MISSION, "decapitate"), "Kill the enemy Lieutenant");
  assert.equal(w.objectiveTitle(MISSION, "concession"), "Concession");
});

test("a marker: what it is, what it needs, who activated it (this round only when once per round)", () => {
  const state = stateWith();
  assert.equal(w.markerText(state, "console-west"), "West Relay Console (console): a Specialist trooper in base contact activates it with the Short Skill Activate "
    + "and a WIP Roll, once in the game for each side (1 OP, scored at the end of the game). Activated by Player A (round 1).");
  assert.match(w.markerText(state, "console-east"), /Not activated yet\.$/);
  assert.deepEqual(w.activatedBy(state, "console-west"), ["A"]);
  assert.deepEqual(w.activatedBy(state, "console-east"), []);
  // A marker activated once per round counts only in the round it was activated in.
  const perRound = { ...MISSION, markers: [...MISSION.markers, { id: "uplink", name: "Uplink", kind: "antenna", x: 4, y: 16 }] };
  const uplink = stateWith({ mission: perRound, objective_activations: [{ side: "B", marker: "uplink", round: 1, trooper: "B-t3" }] });
  assert.deepEqual(w.activatedBy({ ...uplink, round: 1 }, "uplink"), ["B"]);
  assert.deepEqual(w.activatedBy(uplink, "uplink"), []);
});

test("the log: a marker activated, OP scored with the reasons, Classified Objectives drawn (own and opponent's) and achieved", () => {
  const state = stateWith({ classified: { A: { count: 2, op: 1, cards: [{ id: "quiet-blade", title: "Quiet Blade", text: "...", achieved: true },
    { id: "cut-the-wires", title: "Cut the Wires", text: "...", achieved: false }] }, B: { count: 2, op: 0, cards: [] } } });
  const names = new d.TrooperNames(() => ({ profile: { name: "Signal Adept" } }));
  const ctx = { names, ruleset: "n5", viewer: "A", state };
  const line = (/** @type {any} */ e) => d.textOf(d.describeEvent(e, ctx));
  assert.equal(line({ type: "objective_activated", side: "A", trooper: "A-t14", marker: "console-west", round: 1 }),
    "Signal Adept (A-t14) activates the West Relay Console for Player A (round 1): 1 OP at the end of the game");
  assert.equal(line({ type: "objective_points_scored", when: "round_end", round: 1, awards: [
    { side: "B", objective: "hold-core", op: 1, reason: "dominates the Relay Core (22 points inside against 20)" }] }),
  "End of round 1, Objective Points: Player B scores 1 OP for Dominate the Relay Core: dominates the Relay Core (22 points inside against 20)");
  assert.equal(line({ type: "objective_points_scored", when: "game_end", round: 3, awards: [
    { side: "A", objective: "wake-consoles", op: 1, reason: "1 activation (West Relay Console)" },
    { side: "A", objective: "decapitate", op: 2, reason: "the enemy Lieutenant is dead" }] }),
  "End of the game, Objective Points: Player A scores 1 OP for Activate the West Relay Console and the East Relay Console: 1 activation (West Relay Console); "
    + "Player A scores 2 OP for Kill the enemy Lieutenant: the enemy Lieutenant is dead");
  assert.equal(line({ type: "classified_drawn", side: "A", cards: ["quiet-blade", "cut-the-wires"], count: 2 }),
    "Player A draws 2 Classified Objectives: Quiet Blade, Cut the Wires (secret from the opponent)");
  // The opponent's draw: a count, never a card.
  assert.equal(line({ type: "classified_drawn", side: "B", count: 2 }), "Player B draws 2 Classified Objectives (secret: the opponent sees them only once achieved)");
  assert.equal(line({ type: "classified_achieved", side: "A", card: "quiet-blade", op: 1, reason: "killed an enemy in close combat" }),
    "Player A achieves the Classified Objective Quiet Blade: 1 OP (killed an enemy in close combat)");
  assert.equal(d.textOf(d.skillText({ type: "activate", marker: "console-east" }, ctx)), "Activate the East Relay Console (a WIP Roll)");
});

test("the tally: OP per objective and side from the events, each event once; the classified ones apart", () => {
  const tally = new w.ObjectiveTally();
  const scored = { type: "objective_points_scored", when: "round_end", round: 1, awards: [{ side: "A", objective: "hold-core", op: 1, reason: "r" }] };
  tally.add(4, scored);
  tally.add(4, scored); // the same version again (a history loaded after live events): counted once
  tally.add(9, { type: "objective_points_scored", when: "round_end", round: 2, awards: [{ side: "B", objective: "hold-core", op: 1, reason: "r" },
    { side: "A", objective: "wake-consoles", op: 1, reason: "r" }] });
  tally.add(12, { type: "classified_achieved", side: "B", card: "quiet-blade", op: 1, reason: "r" });
  tally.add(13, { type: "turn_started", round: 3 });
  assert.deepEqual(tally.of("hold-core"), { A: 1, B: 1 });
  assert.deepEqual(tally.of("wake-consoles"), { A: 1, B: 0 });
  assert.deepEqual(tally.of("classified"), { A: 0, B: 1 });
  assert.deepEqual(tally.of("decapitate"), { A: 0, B: 0 });
  assert.deepEqual(tally.total(), { A: 2, B: 2 });
});

test("Classified Objectives as a view holds them: the own cards, the opponent's count, its achieved ones", () => {
  const state = stateWith({ classified: { A: { count: 2, op: 1, cards: [{ id: "x", title: "X", text: "", achieved: true }] } } });
  assert.deepEqual(w.classifiedOf(state, "A"), { count: 2, op: 1, cards: [{ id: "x", title: "X", text: "", achieved: true }], hidden: 1 });
  assert.equal(w.classifiedOf(state, "B"), null);
  assert.equal(w.classifiedOf(stateWith(), "A"), null, "a view without Classified Objectives");
  assert.equal(w.cardTitle(state, "A", "x"), "X");
  assert.equal(w.cardTitle(state, "A", "y"), "a Classified Objective");
});

test("the result: OP first, then VP, and how it was decided; a game without a mission reads as before", () => {
  const won = { winner: "A", victory_points: { A: 180, B: 260 }, op: { A: 5, B: 2 }, reason: "rounds_completed" };
  assert.equal(d.resultText(won), "player A wins (A 5 OP, B 2 OP; A 180 VP, B 260 VP), won on Objective Points, rounds completed");
  assert.equal(d.resultText({ ...won, winner: "B", op: { A: 3, B: 3 } }), "player B wins (A 3 OP, B 3 OP; A 180 VP, B 260 VP), OP level: won on Victory Points, rounds completed");
  assert.equal(d.resultText({ ...won, winner: null, op: { A: 3, B: 3 }, victory_points: { A: 200, B: 200 } }),
    "a draw (A 3 OP, B 3 OP; A 200 VP, B 200 VP), OP and VP level, rounds completed");
  assert.equal(d.resultText({ ...won, winner: "B", reason: "concession" }), "player B wins (A 5 OP, B 2 OP; A 180 VP, B 260 VP), concession");
  // No mission: `op` is empty and the words are the annihilation game's.
  assert.equal(d.resultText({ winner: "B", victory_points: { A: 180, B: 260 }, op: {}, reason: "rounds_completed" }), "player B wins (A 180 VP, B 260 VP), rounds completed");
});

test("the overlay's scoreboard: the mission's title and each side's OP so far, the result's at the end; none without a mission", () => {
  const board = m.scoreboard(stateWith());
  assert.equal(board.mission, "Relay Station");
  assert.deepEqual([board.sides.A.op, board.sides.B.op], [2, 0]);
  const over = m.scoreboard(stateWith({ phase: "game_over", objective_points: { A: 4 },
    result: { winner: "A", victory_points: { A: 1, B: 1 }, op: { A: 4, B: 1 }, reason: "rounds_completed" } }));
  assert.deepEqual([over.sides.A.op, over.sides.B.op], [4, 1]);
  const plain = m.scoreboard(stateWith({ mission: null }));
  assert.equal(plain.mission, null);
  assert.deepEqual([plain.sides.A.op, plain.sides.B.op], [null, null]);
});
