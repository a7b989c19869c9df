import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalView, VersionGap } from "../src/view.js";
import { backoffDelay } from "../src/backoff.js";
import { routeLength, baseDiameter } from "../src/geometry.js";
import { encodeMessage, decodeMessage, MalformedMessage } from "../src/codec.js";

function viewWith(troopers) {
  const view = new LocalView();
  view.applySnapshot({ version: 10, window: null, seats: {}, state: {
    phase: "orders", round: 1, turn: 1, active: "A", orders_spent: 0, order: null,
    orders: { pools: { 1: 2 }, irregular: ["t9"], tactical: [], lieutenant: "t1", impetuous: [] },
    troopers } });
  return view;
}
const trooper = (id, side, position) => ({ id, side, position, facing: 0, marker: false, wounds: 0, condition: "normal" });

test("spending a regular Order takes it from the trooper's Combat Group pool", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [{ type: "order_spent", order: 1, trooper: "t1", order_type: "regular", combat_group: 1 }]);
  assert.equal(view.state.orders.pools["1"], 1);
  assert.equal(view.state.order.trooper, "t1");
  assert.equal(view.state.orders_spent, 1);
});

test("an irregular Order is the trooper's own and disappears when spent", () => {
  const view = viewWith([trooper("t9", "A", [5, 5])]);
  view.applyEvents(11, [{ type: "order_spent", order: 1, trooper: "t9", order_type: "irregular", combat_group: 1 }]);
  assert.deepEqual(view.state.orders.irregular, []);
});

test("a hidden trooper's private Order (seeds 002/004) is counted apart and spent by its reveal, not from the pool", () => {
  const view = viewWith([{ ...trooper("t4", "A", [9, 9]), hidden: true }]);
  view.applyEvents(11, [{ type: "orders_counted", side: "A", pools: { 1: 2 }, irregular: [], tactical: [], lieutenant: "t1", impetuous: [], hidden: ["t4"] }]);
  assert.deepEqual(view.state.orders.hidden, ["t4"]);
  view.applyEvents(12, [
    { type: "trooper_revealed", trooper: "t4", position: [9, 9], facing: 0 },
    { type: "order_spent", order: 1, trooper: "t4", order_type: "regular", combat_group: 1, private: true },
  ]);
  assert.deepEqual(view.state.orders.hidden, []);
  assert.equal(view.state.orders.pools["1"], 2, "the pool is untouched");
  assert.equal(view.state.order.trooper, "t4");
  assert.equal(view.trooper("t4").hidden, false);
});

test("a declared Move places the trooper at the route's end facing along its last segment", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [
    { type: "order_spent", order: 1, trooper: "t1", order_type: "regular", combat_group: 1 },
    { type: "skill_declared", order: 1, trooper: "t1", index: 0, skill: { type: "move", route: [[5, 7], [7, 7]], facing: null } },
  ]);
  assert.deepEqual(view.trooper("t1").position, [7, 7]);
  assert.equal(view.trooper("t1").facing, 0);
});

test("resolution effects: wounds and state, dodge movement, turning", () => {
  const view = viewWith([trooper("t1", "A", [5, 5]), trooper("t2", "B", [5, 20])]);
  view.applyEvents(11, [{ type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
    { type: "wounded", trooper: "t2", wounds: 1, condition: "unconscious" },
    { type: "moved", trooper: "t1", route: [[6, 5]], reason: "dodge" },
    { type: "turned", trooper: "t1", facing: 1.5, reason: "alert" },
  ] } }]);
  assert.equal(view.trooper("t2").condition, "unconscious");
  assert.deepEqual(view.trooper("t1").position, [6, 5]);
  assert.equal(view.trooper("t1").facing, 1.5);
  assert.equal(view.state.order, null);
});

test("a Conclusion that waits on a Guts move keeps the Order until order_concluded", () => {
  const view = viewWith([trooper("t1", "A", [5, 5]), trooper("t2", "B", [5, 20])]);
  view.applyEvents(11, [
    { type: "order_spent", order: 1, trooper: "t1", order_type: "regular", combat_group: 1 },
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [] },
      conclusion: { guts: [{ trooper: "t2", attackers: ["t1"], hackers: [] }], attacked: [["t2", "t1"]] } },
    { type: "guts_window_opened", order: 1, trooper: "t2", side: "B", reason: "guts_out_of_line_of_fire", default: [[5, 20], [6, 21]] },
  ]);
  assert.equal(view.state.order.step, "conclusion");
  assert.equal(view.state.order.guts_window, true);
  view.applyEvents(14, [
    { type: "guts_reacted", order: 1, trooper: "t2", choice: "chosen",
      effect: { type: "moved", trooper: "t2", route: [[5, 20], [4, 21.5]], reason: "guts_out_of_line_of_fire" } },
    { type: "order_concluded", order: 1, effects: [{ type: "turned", trooper: "t2", facing: 270, reason: "alert" }] },
  ]);
  assert.deepEqual(view.trooper("t2").position, [4, 21.5]);
  assert.equal(view.trooper("t2").facing, 270);
  assert.equal(view.state.order, null);
});

test("events already held are skipped; a gap is refused; a null (an old server's placeholder) is tolerated", () => {
  const view = viewWith([]);
  view.applyEvents(11, [null, { type: "phase_started", phase: "states" }]);
  assert.equal(view.version, 12);
  assert.equal(view.state.phase, "states");
  assert.equal(view.applyEvents(12, [{ type: "phase_started", phase: "orders" }]).length, 0);
  assert.equal(view.state.phase, "states");
  assert.throws(() => view.applyEvents(14, [null]), VersionGap);
  assert.equal(view.log.length, 2);
});

test("an opponent's deployed trooper appears in the view with its open profile", () => {
  const view = viewWith([]);
  view.applyEvents(11, [{ type: "trooper_deployed", trooper: "t5", side: "B", position: [3, 40], facing: 3.1,
    hidden: false, marker: true, camouflage: 1, silhouette: 2 }]);
  assert.equal(view.trooper("t5").marker, true);
  assert.equal(view.trooper("t5").side, "B");
});

test("back-off doubles up to the cap and jitter stays within half to full", () => {
  assert.deepEqual([0, 1, 2, 10].map((a) => backoffDelay(a, { initialMs: 100, maxMs: 1000 })), [100, 200, 400, 1000]);
  assert.equal(backoffDelay(3, { initialMs: 100, random: () => 0 }), 400);
});

test("route length sums its segments from the start point; bases follow the Silhouette table", () => {
  assert.equal(routeLength([0, 0], [[3, 4], [3, 10]]), 11);
  assert.ok(Math.abs(baseDiameter(3) - 40 / 25.4) < 1e-9);
});

test("codec round-trips a message and refuses unknown tags", () => {
  const bytes = encodeMessage({ type: "accepted", id: "x", version: 3 });
  assert.deepEqual(decodeMessage(bytes), { type: "accepted", id: "x", version: 3 });
  assert.throws(() => decodeMessage(encodeMessage({ type: "hello" })), MalformedMessage);
});

test("a joint activation: each Peripheral's declared skill moves it along its own path", () => {
  const view = viewWith([trooper("t4", "A", [5, 5]), trooper("p1", "A", [9, 5])]);
  view.applyEvents(11, [
    { type: "order_spent", order: 1, trooper: "t4", order_type: "regular", combat_group: 1, peripherals: ["p1"] },
    { type: "skill_declared", order: 1, trooper: "t4", index: 1, skill: { type: "move", route: [[5, 5], [5, 7]] },
      peripherals: [{ trooper: "p1", skill: { type: "move", route: [[9, 5], [9, 9]], facing: 180 } }] },
  ]);
  assert.deepEqual(view.trooper("p1").position, [9, 9]);
  assert.equal(view.trooper("p1").facing, 180);
  assert.deepEqual(view.state.order.peripheral_paths.p1, [[9, 5], [9, 9]]);
  assert.deepEqual(view.state.order.path, [[5, 5], [5, 7]]);
  assert.equal(view.state.order.peripheral_skills.p1[0].type, "move");
  assert.equal(view.stale, false);
});

test("a standing Guts choice and a Targeted state are folded; an ARO that reveals a hidden trooper asks for a snapshot (its facing)", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [
    { type: "guts_failure_chosen", trooper: "t1", fail: true },
    { type: "order_spent", order: 1, trooper: "t1", order_type: "regular", combat_group: 1 },
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [{ type: "targeted_set", trooper: "t1", program: "tracer_ping" }] } },
  ]);
  assert.equal(view.trooper("t1").fails_guts, true);
  assert.equal(view.trooper("t1").targeted, true);
  assert.equal(view.stale, false);
  view.applyEvents(14, [
    { type: "order_spent", order: 2, trooper: "t1", order_type: "regular", combat_group: 1 },
    { type: "aro_declared", order: 2, step: 1, trooper: "t7", skill: { type: "dodge" }, revealed: true, position: [8, 20], profile: { name: "Ghost" } },
  ]);
  assert.equal(view.stale, true, "the event names where it stands, not which way it faces");
});

test("the Isolated and Immobilized-B states are folded from E/M and cleared by a Reset", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
      { type: "isolated_set", trooper: "t1", weapon: "em_rifle" }, { type: "immobilized_b_set", trooper: "t1", weapon: "em_rifle" }] } },
  ]);
  assert.equal(view.trooper("t1").isolated, true);
  assert.equal(view.trooper("t1").immobilized_b, true);
  view.applyEvents(12, [
    { type: "order_resolved", order: 2, outcome: { rolls: [], saves: [], effects: [
      { type: "isolated_cleared", trooper: "t1" }, { type: "immobilized_b_cleared", trooper: "t1" }] } },
  ]);
  assert.equal(view.trooper("t1").isolated, false);
  assert.equal(view.trooper("t1").immobilized_b, false);
  assert.equal(view.stale, false);
});

test("skills are declared from the path reached before them; a declared firing point wins", async () => {
  const { declaredFrom } = await import("../src/geometry.js");
  const move = { type: "move", route: [[0, 0], [0, 4]] };
  assert.deepEqual(declaredFrom([0, 0], [move, { type: "bs_attack" }]), [[0, 0], [0, 4]]);
  assert.deepEqual(declaredFrom([0, 0], [move, { type: "bs_attack", firing_point: [0, 2] }])[1], [0, 2]);
  assert.deepEqual(declaredFrom([0, 0], [{ type: "bs_attack" }, move]), [[0, 0], [0, 0]]);
});

test("a player's own lieutenant_appointed is folded (no snapshot needed) as its secret choice", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [{ type: "lieutenant_appointed", side: "A", trooper: "t1" }]);
  assert.equal(view.stale, false);
  assert.equal(view.state.lieutenant_choice, "t1", "as a snapshot holds it: the seat's own choice");
  view.applyEvents(12, [{ type: "lieutenant_appointed", side: "A", trooper: "t2" }]);
  assert.equal(view.state.lieutenant_choice, "t2");
});

test("the End of Turn of a side in Loss of Lieutenant folds its new Lieutenant as each viewer is told of it", () => {
  const withEntry = (t, lieutenant) => ({ ...t, entry: { id: t.id, combat_group: 1, lieutenant, controller: null } });
  // Its own seat (and a caster) is told whom: the one Lieutenant of its side, the choice spent.
  const own = viewWith([withEntry(trooper("t1", "A", [5, 5]), true), withEntry(trooper("t2", "A", [6, 6]), false),
    trooper("b1", "B", [9, 9])]);
  Object.assign(own.state, { loss_of_lieutenant: ["A", "B"], lieutenant_choice: "t2" });
  own.applyEvents(11, [{ type: "turn_ended", round: 1, turn: 1, side: "A", unused_orders: 0,
    lieutenant_appointed: true, new_lieutenant: "t2" }]);
  assert.equal(own.stale, false);
  assert.deepEqual(own.state.loss_of_lieutenant, ["B"]);
  assert.deepEqual([own.trooper("t1").entry.lieutenant, own.trooper("t2").entry.lieutenant], [false, true]);
  assert.equal(own.state.lieutenant_choice, null);
  // The opponent and spectators: only that one took office.
  const other = viewWith([trooper("t1", "A", [5, 5])]);
  other.state.loss_of_lieutenant = ["A"];
  other.applyEvents(11, [{ type: "turn_ended", round: 1, turn: 1, side: "A", unused_orders: 0,
    lieutenant_appointed: true, new_lieutenant: null }]);
  assert.equal(other.stale, false);
  assert.deepEqual(other.state.loss_of_lieutenant, []);
  assert.equal(other.trooper("t1").entry, undefined);
  // Nobody could lead: the side stays in Loss of Lieutenant.
  const nobody = viewWith([trooper("t1", "A", [5, 5])]);
  nobody.state.loss_of_lieutenant = ["A"];
  nobody.applyEvents(11, [{ type: "turn_ended", round: 1, turn: 1, side: "A", unused_orders: 0,
    lieutenant_appointed: false, new_lieutenant: null }]);
  assert.equal(nobody.stale, false);
  assert.deepEqual(nobody.state.loss_of_lieutenant, ["A"]);
});

test("a turn_ended recorded before the server named the new Lieutenant asks for a snapshot, and only for the side in Loss of Lieutenant", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.state.loss_of_lieutenant = ["A"];
  view.applyEvents(11, [{ type: "turn_ended", round: 1, turn: 1, side: "B", unused_orders: 0 }]);
  assert.equal(view.stale, false);
  view.applyEvents(12, [{ type: "turn_ended", round: 1, turn: 2, side: "A", unused_orders: 0 }]);
  assert.equal(view.stale, true);
});

test("Command Tokens: each use is folded as the server applies it, and a new Player Turn clears the turn's record", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.state.orders_spent = 6;
  view.state.command_tokens = { held: { A: 4, B: 4 }, spent_this_turn: {}, limited: [], strategic_used: [],
    turn_start_orders: 6, coordinated_order: 0, spearhead: null };
  view.applyEvents(11, [{ type: "command_token_spent", side: "B", use: "limit_tokens", left: 3, combat_groups: [],
    trooper: null, combat_group: null }]);
  view.applyEvents(12, [{ type: "command_token_spent", side: "B", use: "remove_orders", left: 2, combat_groups: [1],
    trooper: null, combat_group: null }]);
  view.applyEvents(13, [{ type: "command_token_spent", side: "A", use: "coordinated_order", left: 3, combat_groups: [],
    trooper: "t1", combat_group: null }]);
  assert.equal(view.stale, false);
  assert.deepEqual(view.state.command_tokens, { held: { A: 3, B: 2 }, spent_this_turn: { A: 1, B: 2 }, limited: ["A"],
    strategic_used: ["limit_tokens", "remove_orders"], turn_start_orders: 6, coordinated_order: 7, spearhead: "t1" });
  assert.equal(view.state.orders.pools[1], 1, "one Regular Order of Combat Group 1 removed");
  view.applyEvents(14, [{ type: "turn_started", round: 1, turn: 2, active: "B" }]);
  assert.deepEqual(view.state.command_tokens, { held: { A: 3, B: 2 }, spent_this_turn: {}, limited: [],
    strategic_used: ["limit_tokens", "remove_orders"], turn_start_orders: 6, coordinated_order: 7, spearhead: "t1" });
  // A trooper moved to another Combat Group moves Orders between pools: a snapshot brings them.
  view.applyEvents(15, [{ type: "command_token_spent", side: "B", use: "transfer_trooper", left: 1, combat_groups: [],
    trooper: "b1", combat_group: 2 }]);
  assert.equal(view.stale, true);
});

test("the Stunned state is folded from a Stun hit and cleared by the States Phase check", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
      { type: "stunned_set", trooper: "t1", weapon: "stunner" }] } },
  ]);
  assert.deepEqual(view.trooper("t1").stunned_in, [1, 1]);
  view.applyEvents(12, [
    { type: "phase_started", phase: "states" },
    { type: "states_phase_checked", round: 1, turn: 1, stunned_cancelled: ["t1"] },
  ]);
  assert.equal(view.trooper("t1").stunned_in, null);
  assert.equal(view.stale, false);
});

test("Dogged is folded from its effect and the States Phase check kills the trooper; NWI changes nothing but the wounds", () => {
  const view = viewWith([trooper("t1", "A", [5, 5]), trooper("t2", "A", [9, 5])]);
  view.applyEvents(11, [
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
      { type: "wounded", trooper: "t1", wounds: 1, condition: "normal" },
      { type: "incapacitation_ignored", trooper: "t1", skill: "dogged" },
      { type: "wounded", trooper: "t2", wounds: 1, condition: "normal" },
      { type: "incapacitation_ignored", trooper: "t2", skill: "nwi" }] } },
  ]);
  assert.deepEqual(view.trooper("t1").dogged_in, [1, 1]);
  assert.equal(view.trooper("t2").dogged_in ?? null, null);
  view.applyEvents(12, [
    { type: "phase_started", phase: "states" },
    { type: "states_phase_checked", round: 1, turn: 1, stunned_cancelled: [], dogged_dead: ["t1"] },
  ]);
  assert.equal(view.trooper("t1").condition, "dead");
  assert.equal(view.trooper("t1").dogged_in, null);
  assert.equal(view.trooper("t2").condition, "normal");
});

test("a Smoke zone is folded onto the table and the States Phase removes it", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.state.table = { width: 48, depth: 48, terrain: [], zones: [] };
  const zone = { kind: "smoke", centre: [10, 10], radius: 1.5, placed_by: "t1" };
  view.applyEvents(11, [
    { type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
      { type: "zone_placed", trooper: "t1", weapon: "smoke_grenades", zone }] } },
  ]);
  assert.deepEqual(view.state.table.zones, [zone]);
  view.applyEvents(12, [
    { type: "phase_started", phase: "states" },
    { type: "states_phase_checked", round: 1, turn: 1, stunned_cancelled: [], zones_removed: 1 },
  ]);
  assert.deepEqual(view.state.table.zones, []);
  assert.equal(view.stale, false);
});

test("the chess clocks' events are folded without a snapshot: the view holds no clocks (frames carry them)", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  const before = structuredClone(view.state);
  view.applyEvents(11, [
    { type: "clock_switched", at_ms: 1000, running: "B", remaining: { A: 590_000, B: 600_000 } },
    { type: "clocks_held", from_ms: 2000, to_ms: 9000, remaining: { A: 590_000, B: 599_000 } },
    { type: "clock_ran_out", side: "B", at_ms: 10_000 },
  ]);
  assert.equal(view.stale, false);
  assert.equal(view.version, 13);
  assert.deepEqual(view.state, before);
});

test("Loss of Lieutenant, Retreat!, an objective activated and Objective Points scored are folded as the server's view shows them", () => {
  const view = viewWith([trooper("t1", "A", [5, 5])]);
  view.applyEvents(11, [{ type: "loss_of_lieutenant", side: "B" }]);
  assert.deepEqual(view.state.loss_of_lieutenant, ["B"]);
  view.applyEvents(12, [{ type: "retreat_declared", side: "A", victory_points: 40, threshold: 75 },
    { type: "loss_of_lieutenant", side: "A" }]);
  assert.deepEqual(view.state.retreat, ["A"]);
  assert.deepEqual(view.state.loss_of_lieutenant, ["A", "B"], "sorted, each side once");
  view.applyEvents(14, [{ type: "objective_activated", side: "A", trooper: "t1", marker: "west-console", round: 1 }]);
  assert.deepEqual(view.state.objective_activations, [{ side: "A", marker: "west-console", round: 1, trooper: "t1" }]);
  view.state.objective_points = { A: 2 };
  view.applyEvents(15, [{ type: "objective_points_scored", when: "round_end", round: 1, awards: [
    { side: "A", objective: "dominate", op: 1, reason: "r" }, { side: "B", objective: "dominate", op: 3, reason: "r" },
    { side: "B", objective: "consoles", op: 0, reason: "r" }] }]);
  assert.deepEqual(view.state.objective_points, { A: 3, B: 3 });
  assert.equal(view.stale, false);
});

test("Airborne Deployment: its owner folds the trooper kept off the table and its landing; others meet it at its landing", () => {
  const own = viewWith([{ ...trooper("j1", "A", null), profile: { name: "Jumper" } }]);
  own.applyEvents(11, [{ type: "trooper_kept_airborne", trooper: "j1" }]);
  assert.equal(own.trooper("j1").airborne, true);
  const landed = { type: "combat_jump_landed", trooper: "j1", landing: [20, 20], landing_facing: 90, roll: {}, landed: false,
    position: [3, 1], facing: 90 };
  own.applyEvents(12, [landed]);
  assert.deepEqual([own.trooper("j1").airborne, own.trooper("j1").position, own.trooper("j1").profile.name], [false, [3, 1], "Jumper"]);
  const other = viewWith([]);
  other.applyEvents(11, [{ ...landed, side: "A", profile: { name: "Jumper" }, combat_group: 2 }]);
  assert.deepEqual(other.trooper("j1"), { id: "j1", side: "A", position: [3, 1], facing: 90, profile: { name: "Jumper" },
    combat_group: 2, marker: false, wounds: 0, condition: "normal", prone: false });
  assert.equal(own.stale || other.stale, false);
});

test("a trooper revealed from Hidden Deployment joins the opponent's view with its Combat Group", () => {
  const view = viewWith([]);
  view.applyEvents(11, [{ type: "trooper_revealed", trooper: "h1", position: [4, 4], facing: 0, side: "B",
    profile: { name: "Ghost" }, combat_group: 1 }]);
  assert.equal(view.trooper("h1").combat_group, 1);
  assert.equal(view.stale, false);
});

test("a Classified card achieved is folded: the holder marks it, others add its words by id, OP never past the mission's cap", () => {
  const card = (id, achieved) => ({ id, title: id, text: "t", achieved, kind: "k" });
  const holder = viewWith([]);
  Object.assign(holder.state, { mission: { max_op: 10 }, objective_points: { A: 9 },
    classified: { A: { count: 2, op: 0, cards: [card("quiet-blade", false), card("deep-footprint", false)] } } });
  holder.applyEvents(11, [{ type: "classified_achieved", side: "A", card: "deep-footprint", op: 2, reason: "r" }]);
  assert.deepEqual(holder.state.classified.A, { count: 2, op: 2, cards: [card("quiet-blade", false), card("deep-footprint", true)] });
  assert.deepEqual(holder.state.objective_points, { A: 10 }, "capped at the mission's 10");
  const other = viewWith([]);
  Object.assign(other.state, { mission: { max_op: 10 }, objective_points: {},
    classified: { A: { count: 2, op: 1, cards: [card("quiet-blade", true)] } } });
  other.applyEvents(11, [{ type: "classified_achieved", side: "A", card: "deep-footprint", op: 1, reason: "r",
    card_view: card("deep-footprint", true) }]);
  assert.deepEqual(other.state.classified.A.cards.map((c) => c.id), ["deep-footprint", "quiet-blade"]);
  assert.deepEqual([other.state.classified.A.op, other.state.objective_points.A], [2, 1]);
  assert.equal(holder.stale || other.stale, false);
});

test("the game's end folds when every Classified card is readable already, else asks for a snapshot", () => {
  const card = (id) => ({ id, title: id, text: "t", achieved: false, kind: "k" });
  const ended = { type: "game_ended", result: { winner: "A" }, classified: { A: [{ id: "quiet-blade", achieved: false, op: 0 }] } };
  const holder = viewWith([]);
  holder.state.classified = { A: { count: 1, op: 0, cards: [card("quiet-blade")] } };
  holder.applyEvents(11, [ended]);
  assert.equal(holder.stale, false);
  const other = viewWith([]);
  other.state.classified = { A: { count: 1, op: 0, cards: [] } };
  other.applyEvents(11, [ended]);
  assert.equal(other.stale, true);
});

test("a Camouflage Marker revealed becomes the trooper the server shows: its profile and Combat Group, no marker fields", () => {
  const view = viewWith([{ ...trooper("m1", "B", [5, 5]), marker: true, camouflage: 6, silhouette: 2 }]);
  view.applyEvents(11, [{ type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
    { type: "revealed", trooper: "m1" }] }, profiles: { m1: { name: "Scout" } }, combat_groups: { m1: 2 } }]);
  const revealed = view.trooper("m1");
  assert.deepEqual([revealed.marker, revealed.profile.name, revealed.combat_group, "camouflage" in revealed, "silhouette" in revealed],
    [false, "Scout", 2, false, false]);
});

test("a Camouflage Marker revealed by its ARO becomes the trooper the server shows, and what a trooper failed to Discover lasts the turn", () => {
  const view = viewWith([{ id: "m1", side: "B", position: [5, 5], facing: 0, marker: true, camouflage: 6, silhouette: 2 },
    { ...trooper("t1", "A", [9, 9]), entry: { id: "t1", combat_group: 1, lieutenant: false, controller: null } }]);
  view.state.order = { trooper: "t1", aros: {}, passed: [] };
  view.applyEvents(11, [{ type: "aro_declared", trooper: "m1", skill: { type: "dodge" }, step: 1, revealed: true,
    profile: { name: "Scout" }, combat_group: 2 }]);
  const revealed = view.trooper("m1");
  assert.deepEqual({ ...revealed, profile: revealed.profile.name }, { id: "m1", side: "B", position: [5, 5], facing: 0,
    marker: false, profile: "Scout", combat_group: 2, wounds: 0, condition: "normal" });
  view.applyEvents(12, [{ type: "order_resolved", order: 1, outcome: { rolls: [], saves: [], effects: [
    { type: "discover_failed", trooper: "t1", marker: "m9" }, { type: "discover_failed", trooper: "m1", marker: "t1" }] } }]);
  assert.deepEqual(view.trooper("t1").failed_discover, ["m9"]);
  assert.equal(view.trooper("m1").failed_discover, undefined, "an enemy's is not in this view");
  view.applyEvents(13, [{ type: "turn_started", round: 1, turn: 2, active: "B" }]);
  assert.deepEqual(view.trooper("t1").failed_discover, []);
  assert.equal(view.stale, false);
});
