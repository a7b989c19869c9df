// The stream overlay's readings (client-js/app/overlay-model.js): the link, the top bar
// (round, turn, active player, Orders per pool, VP, casualties), the ARO countdown, the chess
// clocks from hand-made frames, and the last roll from real events (test/fixtures/events.json,
// the games describe.test.js reads).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const fixture = JSON.parse(readFileSync(join(here, "fixtures", "events.json"), "utf8"));

/** @type {typeof import("../app/overlay-model.js")} */
let m;
/** @type {typeof import("../app/describe.js")} */
let d;

before(async () => {
  // The weapon names come from the catalogue the app fetches: serve the server's file.
  const weapons = JSON.parse(readFileSync(join(repo, "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  await (await import("../app/catalogue.js")).loadCatalogue();
  d = await import("../app/describe.js");
  m = await import("../app/overlay-model.js");
});

test("the link: a spectator link's room, a caster link's token; a seat's role is let go", () => {
  assert.deepEqual(m.overlayLink("#room=r1"), { room: "r1", token: null });
  assert.deepEqual(m.overlayLink("#room=r1&token=c-tok"), { room: "r1", token: "c-tok" });
  assert.deepEqual(m.overlayLink(""), { room: null, token: null });
  assert.deepEqual(["A", "B", "spectator", "caster", null].map(m.isSeat), [true, true, false, false, false]);
  // The lobby's seat check decides whether the token may be said in a hello.
  assert.deepEqual([200, 403, 404, 429, 500, null].map(m.seatCheck), ["seat", "not_seat", "no_room", "retry", "retry", "retry"]);
});

/** A spectator's view in an Orders Phase, as views.py shapes it (armies as summaries: no costs). */
const spectatorState = () => ({
  ruleset: "n5", phase: "orders", round: 2, turn: 1, active: "B",
  armies: { A: { name: "Helion Patrol", faction: "PanOceania", points: 150, roster: [] },
    B: { name: "Vesper Cell", faction: "Nomads", points: 150, roster: [] } },
  orders: { pools: { 2: 0, 1: 5 }, irregular: ["B-t7", "B-t8"], impetuous: ["B-t9"], tactical: [], lieutenant: true, hidden: [] },
  troopers: [
    { id: "A-t1", side: "A", condition: "dead", profile: { name: "Lancer" } },
    { id: "A-t2", side: "A", condition: "unconscious", profile: { name: "Lancer" } },
    { id: "A-t3", side: "A", condition: "normal", profile: { name: "Warden" } },
    { id: "A-m1", side: "A", marker: true },
    { id: "B-t1", side: "B", condition: "normal", profile: { name: "Boss" } },
  ],
  result: null,
});

test("Orders left: the active side's Regular pool per Combat Group, Irregular, Impetuous, Lieutenant; none outside its turn", () => {
  const orders = m.ordersLeft(spectatorState());
  assert.equal(orders?.side, "B");
  assert.deepEqual(orders?.pools.map((p) => `${p.key}:${p.left}`), ["G1:5", "G2:0", "IRR:2", "IMP:1", "LT:1"]);
  assert.equal(orders?.total, 8, "5 Regular + 2 Irregular + the Lieutenant's; Impetuous apart");
  assert.equal(m.ordersLeft({ ...spectatorState(), phase: "deployment" }), null);
  assert.equal(m.ordersLeft({ ...spectatorState(), active: null }), null);
  const tactical = m.ordersLeft({ ...spectatorState(), orders: { pools: { 1: 2 }, irregular: [], impetuous: [], tactical: ["B-t2"], lieutenant: false } });
  assert.deepEqual(tactical?.pools.map((p) => `${p.key}:${p.left}`), ["G1:2", "IRR:0", "IMP:0", "TAC:1"]);
});

test("the top bar: round, turn, phase, the active player, armies, casualties; a spectator's VP unknown until the result", () => {
  const board = m.scoreboard(spectatorState());
  assert.deepEqual([board.round, board.turn, board.phase, board.active], [2, 1, "Orders Phase", "B"]);
  assert.deepEqual([board.sides.A.player, board.sides.A.army, board.sides.A.faction, board.sides.A.points], ["Player A", "Helion Patrol", "PanOceania", 150]);
  assert.deepEqual(board.sides.A.casualties, { total: 2, dead: 1, unconscious: 1 }, "a marker has no condition: not a casualty");
  assert.deepEqual(board.sides.B.casualties, { total: 0, dead: 0, unconscious: 0 });
  assert.equal(board.sides.B.active, true);
  assert.equal(board.sides.A.orders, null, "the side not playing has no Order Count");
  assert.equal(board.sides.B.orders.total, 8);
  assert.equal(board.sides.A.vp, null, "a spectator's view has no unit costs: no guess");
  const over = m.scoreboard({ ...spectatorState(), phase: "game_over", active: null,
    result: { winner: "A", victory_points: { A: 96, B: 40 }, reason: "concession" } });
  assert.deepEqual([over.sides.A.vp, over.sides.B.vp, over.sides.A.winner, over.sides.B.winner, over.over], [96, 40, true, false, true]);
  // The view folds game_ended without clearing `active`: over, no one is active.
  const ended = m.scoreboard({ ...spectatorState(), phase: "game_over", result: { winner: null, victory_points: { A: 1, B: 1 }, reason: "rounds_completed" } });
  assert.deepEqual([ended.active, ended.sides.B.active, ended.sides.B.orders, ended.sides.A.winner], [null, false, null, false]);
  assert.equal(m.scoreboard(null).sides.A.army, null);
});

test("VP from a view that holds a side's whole list with costs: the points of its troopers not Null", () => {
  const state = spectatorState();
  state.armies.A = { ...state.armies.A, entries: [] };
  state.troopers = state.troopers.filter((t) => !t.marker).map((t) => ({ ...t, profile: { ...t.profile, cost: t.id === "A-t3" ? 30 : 20 } }));
  assert.equal(m.victoryPoints(state, "A"), 30, "A-t1 dead and A-t2 unconscious count nothing");
  assert.equal(m.victoryPoints(state, "B"), null, "B's list is a summary");
});

test("the ARO countdown runs down from the frame's remaining_ms, urgent in its last 5 s, none without a window", () => {
  const window = { order: 3, step: 1, reactive: "B", deadline_ms: 0, remaining_ms: 30000, received_at: 1000 };
  const at = m.aroCountdown(window, 30, 3500);
  assert.deepEqual([at?.reactive, at?.seconds, at?.urgent], ["B", "27.5", false]);
  assert.ok(Math.abs((at?.fraction ?? 0) - 27.5 / 30) < 1e-9);
  assert.deepEqual([m.aroCountdown(window, 30, 26000)?.seconds, m.aroCountdown(window, 30, 26000)?.urgent], ["5.0", true]);
  assert.equal(m.aroCountdown(window, 30, 60000)?.seconds, "0.0", "never below zero");
  assert.equal(m.aroCountdown(window, null, 3500)?.fraction, null, "no bar without the room's window length");
  assert.equal(m.aroCountdown(null, 30, 0), null);
});

const CLOCKS = { A: { remaining_ms: 4_500_000, running: true, out_of_time: false }, B: { remaining_ms: 2_700_500, running: false, out_of_time: false } };

test("clocks: a snapshot's and a current events frame's are taken, stamped; an old resend's are not; nil or absent is no clock", () => {
  const snap = m.clocksFromFrame({ type: "snapshot", version: 12, clocks: CLOCKS }, 12, 500);
  assert.deepEqual(snap, { A: { ...CLOCKS.A, received_at: 500 }, B: { ...CLOCKS.B, received_at: 500 } });
  assert.deepEqual(m.clocksFromFrame({ type: "events", first: 13, events: [{}, {}], clocks: CLOCKS }, 14, 9)?.A.received_at, 9);
  assert.equal(m.clocksFromFrame({ type: "events", first: 10, events: [{}], clocks: CLOCKS }, 14, 9), undefined, "an old resend");
  assert.equal(m.clocksFromFrame({ type: "events", first: 15, events: [], clocks: null }, 14, 9), null, "an empty frame at the version held");
  assert.equal(m.clocksFromFrame({ type: "snapshot", version: 3 }, 3, 0), null, "a room without clocks");
  assert.equal(m.clocksFromFrame({ type: "spectators", count: 2 }, 3, 0), undefined);
});

test("clocks: the running one counts down locally, the other stands; low under 5 minutes; out of time", () => {
  const clocks = /** @type {any} */ (m.clocksFromFrame({ type: "snapshot", version: 1, clocks: CLOCKS }, 1, 1000));
  const now = m.clocksNow(clocks, 1000);
  assert.deepEqual([now?.A.text, now?.A.running, now?.B.text, now?.B.running], ["1:15:00", true, "45:01", false]);
  const later = m.clocksNow(clocks, 1000 + 61_000);
  assert.deepEqual([later?.A.text, later?.B.text], ["1:13:59", "45:01"]);
  assert.equal(m.clocksNow(clocks, 1000 + 4_300_000)?.A.low, true);
  assert.equal(m.clocksNow(clocks, 1000 + 9_000_000)?.A.text, "0:00", "never below zero");
  const out = m.clocksNow({ A: { remaining_ms: 0, running: false, out_of_time: true }, B: { ...CLOCKS.B, received_at: 0 } }, 5);
  assert.deepEqual([out?.A.text, out?.A.outOfTime, out?.A.low, out?.A.running], ["OUT OF TIME", true, false, false]);
  assert.equal(m.clocksNow(null), null);
  assert.deepEqual([m.clockText(0), m.clockText(999), m.clockText(60_000), m.clockText(3_599_001)], ["0:00", "0:01", "1:00", "1:00:00"]);
});

/** The game's events for a viewer, learnt as the overlay learns them; its last roll. */
function lastRollOf(/** @type {string} */ name, viewer = "spectator") {
  const game = fixture[name];
  const { state, events } = game.viewers[viewer];
  const names = new d.TrooperNames((id) => state.troopers.find((/** @type {any} */ t) => t.id === id));
  let last = null;
  let active = null;
  for (const event of events) {
    names.learn(event);
    if (event.type === "order_resolved") [last, active] = [event, names.activeTrooper];
  }
  // The next Order starting does not rename the trooper of the roll shown.
  names.learn({ type: "order_spent", trooper: "B-t1", order: 99, order_type: "regular", combat_group: 1 });
  return m.lastRoll(last, { names, ruleset: game.ruleset, viewer }, active);
}

const diceText = (/** @type {any[]} */ dice) => dice.map((p) => `${p.text}:${p.cls.replace(/^die /, "")}`);

test("the last roll: each side's dice as the results panel styles them, MODs and SV, who won the Face to Face, the save", () => {
  const roll = lastRollOf("shot_and_counter_shot");
  assert.equal(roll?.order, 1);
  assert.equal(roll?.active?.text, "Lancer Line Trooper (A-t5)");
  assert.equal(roll?.headline, "Face to Face: Player A wins");
  assert.equal(roll?.winner, "A");
  const [shot, counter] = roll?.rolls ?? [];
  assert.deepEqual([shot.side, shot.who.text, shot.skill, shot.weapon, shot.target.text], ["A", "Lancer Line Trooper (A-t5)", "BS Attack", "Line Rifle", "Syndicate Enforcer (B-t3)"]);
  assert.equal(shot.sv, "BS 11 +3 range = SV 14");
  assert.deepEqual(diceText(shot.dice), ["5:cancelled", "13:success", "17:miss"]);
  assert.equal(shot.verdict, "1 hit on Syndicate Enforcer (B-t3).");
  assert.equal(shot.success, true);
  assert.deepEqual([counter.side, counter.sv, counter.success, counter.verdict], ["B", "BS 12 +0 range = SV 12", false, "No hit."]);
  assert.deepEqual(diceText(counter.dice), ["11:cancelled"]);
  assert.equal(roll?.saves.length, 1);
  const [save] = roll?.saves ?? [];
  assert.deepEqual([save.side, save.who.text, save.against, save.target, save.verdict], ["B", "Syndicate Enforcer (B-t3)", "Line Rifle (N), 1 hit", "fails on 11 or less", "1 failed"]);
  assert.deepEqual(diceText(save.dice), ["4:failed"]);
  assert.deepEqual(roll?.effects, ["Syndicate Enforcer (B-t3) now has 1 wound: Unconscious", "Syndicate Enforcer (B-t3) goes Prone (Unconscious)"]);
});

test("the last roll stays on screen through Orders that roll nothing (a move, an Idle); a roll without a die or a save alone replaces it", () => {
  const shot = fixture.shot_and_counter_shot.viewers.spectator.events.find((/** @type {any} */ e) => e.type === "order_resolved");
  assert.equal(m.rolledOrder(shot), true);
  const range = fixture.out_of_range.viewers.spectator.events.find((/** @type {any} */ e) => e.type === "order_resolved");
  assert.equal(m.rolledOrder(range), true, "an automatic failure is a roll without a die");
  assert.equal(m.rolledOrder({ type: "order_resolved", order: 4, outcome: { rolls: [], saves: [], effects: [] } }), false);
  assert.equal(m.rolledOrder({ type: "order_resolved", order: 4 }), false);
  assert.equal(m.rolledOrder({ type: "order_resolved", order: 4, outcome: { saves: [{ trooper: "B-t1" }] } }), true);
  assert.equal(m.rolledOrder({ type: "turn_started" }), false);
  assert.equal(m.rolledOrder(null), false);
});

test("the last roll: a Normal Roll, a roll without dice, N5 saves; nothing before the first Order resolves", () => {
  const range = lastRollOf("out_of_range");
  assert.equal(range?.headline, "Normal Roll");
  assert.equal(range?.rolls[0].noDice, "automatic failure: no die");
  assert.deepEqual(range?.rolls[0].dice, []);
  const dodge = lastRollOf("dodge");
  assert.ok(dodge?.rolls.every((r) => r.dice.length > 0 || r.noDice));
  for (const s of lastRollOf("direct_template")?.saves ?? []) assert.match(s.target, /^fails on \d+ or less$/, "CodeOne: fails on");
  for (const s of lastRollOf("comms_attack")?.saves ?? []) assert.match(s.target, /^saves on \d+ or less$/, "N5: saves on");
  assert.equal(m.lastRoll(null, { names: new d.TrooperNames() }), null);
  assert.equal(m.lastRoll({ type: "turn_started" }, { names: new d.TrooperNames() }), null);
});

test("a save's weapon says its ammunition once: a name that already carries it is left alone", async () => {
  const { withAmmo } = await import("../app/overlay-model.js");
  assert.equal(withAmmo("Lance Rifle (DA)", "DA"), "Lance Rifle (DA)");
  assert.equal(withAmmo("Line Rifle", "N"), "Line Rifle (N)");
  assert.equal(withAmmo("Line Rifle", null), "Line Rifle");
});

test("the last roll's rows all fit: smaller rows, then two columns, as they grow", async () => {
  const { rollDensity } = await import("../app/overlay-model.js");
  const roll = (n, saves = 0, effects = 0) => ({ rolls: Array(n).fill({}), saves: Array(saves).fill({}), effects: Array(effects).fill("") });
  assert.equal(rollDensity(roll(2, 1)), "normal");
  assert.equal(rollDensity(roll(4, 1, 2)), "compact");
  assert.equal(rollDensity(roll(4, 3, 2)), "dense");
});
