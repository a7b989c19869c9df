// Fireteams (N5) in the event log and the roster (client-js/app/describe.js, skill-labels.js):
// the words of fireteam_formed / fireteam_left / the Command Token spent to form one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { skillsOf } from "../app/skill-labels.js";

test("a Fireteam formed, a member leaving, a team cancelled, in words", async () => {
  const d = await import("../app/describe.js");
  const formed = d.textOf(d.describeEvent({ type: "fireteam_formed", side: "A", kind: "core", leader: "A-t7",
    members: ["A-t7", "A-t8", "A-t9"], level: 3 }));
  assert.match(formed, /^Player A forms a Fireteam: Core \(Level 3\) led by .*A-t7/);
  const left = d.textOf(d.describeEvent({ type: "fireteam_left", side: "A", leader: "A-t7", trooper: "A-t9",
    reason: "coherency", cancelled: false }));
  assert.match(left, /A-t9.* leaves its Fireteam \(out of Coherency with its leader\)$/);
  const broke = d.textOf(d.describeEvent({ type: "fireteam_left", side: "A", leader: "A-t7", trooper: "A-t8",
    reason: "activated_alone", cancelled: true }));
  assert.match(broke, /activated on its own Order\); the Fireteam is cancelled$/);
  const token = d.textOf(d.describeEvent({ type: "command_token_spent", side: "A", use: "form_fireteam", left: 3,
    trooper: "A-t7" }));
  assert.match(token, /^Player A spends a Command Token to form a Fireteam led by .*A-t7.*; 3 left$/);
});

test("the roster names the Fireteam types a trooper may join", () => {
  assert.deepEqual(skillsOf({ fireteam_core: true, fireteam_duo: true, fireteam_unit: "Lancer" }),
    ["Fireteam: Core", "Fireteam: Duo"]);
});

test("the local view folds a Fireteam formed, led by whoever declares its Order, losing members", async () => {
  const { LocalView } = await import("../src/view.js");
  const view = new LocalView();
  view.applySnapshot({ version: 1, window: null, seats: {}, state: {
    phase: "orders", troopers: [], orders: { pools: { 1: 5 } }, orders_spent: 0, fireteams: [] } });
  view.applyEvents(2, [{ type: "fireteam_formed", side: "A", kind: "core", leader: "t1", members: ["t1", "t2", "t3"], level: 3 }]);
  view.applyEvents(3, [{ type: "order_spent", order: 1, trooper: "t2", order_type: "regular", combat_group: 1, peripherals: ["t1", "t3"] }]);
  assert.deepEqual(view.state.fireteams, [{ side: "A", kind: "core", leader: "t2", members: ["t1", "t2", "t3"], level: 3 }]);
  view.applyEvents(4, [{ type: "fireteam_left", side: "A", leader: "t2", trooper: "t2", reason: "coherency", cancelled: false }]);
  assert.deepEqual(view.state.fireteams, [{ side: "A", kind: "core", leader: "t1", members: ["t1", "t3"], level: 3 }]);
  view.applyEvents(5, [{ type: "fireteam_left", side: "A", leader: "t1", trooper: "t3", reason: "null", cancelled: true }]);
  assert.deepEqual(view.state.fireteams, []);
  assert.equal(view.stale, false);
});

test("a Fireteam's Order in the log names the team, its Level, its leader and who follows", async () => {
  const d = await import("../app/describe.js");
  const line = d.textOf(d.describeEvent({ type: "order_spent", order: 4, trooper: "A-t7", order_type: "regular", combat_group: 1,
    peripherals: ["A-t8", "A-t9"], fireteam: "core", fireteam_level: 3 }));
  assert.match(line, /^Order 4: Fireteam \(Core, Level 3\) activated on a Regular Order from Combat Group 1: leader .*A-t7.* with .*A-t8.*A-t9/);
  const alone = d.textOf(d.describeEvent({ type: "order_spent", order: 5, trooper: "A-t1", order_type: "regular", combat_group: 1 }));
  assert.doesNotMatch(alone, /Fireteam/);
  const left = d.textOf(d.describeEvent({ type: "fireteam_left", side: "A", leader: "A-t7", trooper: "A-t9",
    reason: "coherency", cancelled: false, level: 2 }));
  assert.match(left, /leaves its Fireteam \(out of Coherency with its leader\); the Fireteam is Level 2 now$/);
});

test("the local view keeps each team's Level: as formed, then as a member leaves", async () => {
  const { LocalView } = await import("../src/view.js");
  const view = new LocalView();
  view.applySnapshot({ version: 1, window: null, seats: {}, state: {
    phase: "orders", troopers: [], orders: { pools: { 1: 5 } }, orders_spent: 0, fireteams: [] } });
  view.applyEvents(2, [{ type: "fireteam_formed", side: "A", kind: "core", leader: "t1", members: ["t1", "t2", "t3"], level: 3 }]);
  assert.equal(view.state.fireteams[0].level, 3);
  view.applyEvents(3, [{ type: "fireteam_left", side: "A", leader: "t1", trooper: "t3", reason: "null", cancelled: false, level: 2 }]);
  assert.deepEqual(view.state.fireteams, [{ side: "A", kind: "core", leader: "t1", members: ["t1", "t2"], level: 2 }]);
});

test("the bonuses of a Level, all refereed, and a team's title", async () => {
  const { bonusesAt, teamTitle } = await import("../app/fireteam.js");
  assert.deepEqual(bonusesAt(3), ["one Order for the whole team", "BS Attack +1 SD", "Discover +3", "Dodge +1"]);
  assert.equal(teamTitle({ kind: "haris", level: 2 }), "Fireteam: Haris, Level 2");
});
