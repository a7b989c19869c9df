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

test("events already held are skipped; a gap is refused; hidden events still advance the version", () => {
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
