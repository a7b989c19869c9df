// Combat Jump (Airborne Deployment) in the app's words: the log lines of trooper_kept_airborne
// (its owner's only), combat_jump_landed (passed and failed), the Combat Jump skill and the
// private Order. The events are as server/rules/views.py sends them to the opponent (B) and
// the owner (A) in tests/rules/orders/test_combat_jump.py's game.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** @type {typeof import("../app/describe.js")} */
let d;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(here, "..", "..", "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  await (await import("../app/catalogue.js")).loadCatalogue();
  d = await import("../app/describe.js");
});

const roll = (/** @type {number} */ face) => ({ trooper: "A-t15", skill: "combat_jump", target: null, weapon: null, attribute: "PH", base: 12, mods: [],
  success_value: 12, burst: 1, dice: [{ face, value: face, success: face <= 12, critical: face === 12 }], cancelled: [false],
  successes: face < 12 ? 1 : 0, criticals: face === 12 ? 1 : 0, opposed_by: [], automatic_failure: false, chosen_failure: false });
const profile = { id: "stormdrop", name: "Stormdrop Jumper", ph: 12, silhouette: 2 };
const landed = (/** @type {number} */ face, /** @type {number[]} */ position) => ({ type: "combat_jump_landed", trooper: "A-t15",
  landing: [30.0, 28.0], landing_facing: 90.0, roll: roll(face), landed: face <= 12, position, facing: 90.0, profile, side: "A" });

/** The opponent's log: it learns the trooper's name from the landing event itself. */
function opponentLog(/** @type {any[]} */ events) {
  const names = new d.TrooperNames(() => undefined);
  return events.map((e) => { names.learn(e); return d.textOf(d.describeEvent(e, { names, ruleset: "n5", viewer: "B" })); });
}

test("a passed Combat Jump: the landing, the private Order and the Long Skill", () => {
  const log = opponentLog([
    landed(5, [30.0, 28.0]),
    { type: "order_spent", order: 1, trooper: "A-t15", order_type: "regular", combat_group: 2, peripherals: [], private: true },
    { type: "skill_declared", order: 1, trooper: "A-t15", index: 1, skill: { type: "combat_jump", position: [30.0, 28.0] }, peripherals: [] },
  ]);
  assert.match(log[0], /^Combat Jump: Stormdrop Jumper.* placed at \(30(\.0)?, 28(\.0)?\), PH Roll 5 against 12: passed, it lands there$/);
  assert.match(log[1], /its own, private until now: from Hidden or Airborne Deployment/);
  assert.match(log[2], /Combat Jump \(lands at \(30(\.0)?, 28(\.0)?\); its whole Order\)/);
});

test("a failed Combat Jump lands on the Deployment Zone's table edge", () => {
  const [line] = opponentLog([landed(17, [44.0, 0.5])]);
  assert.match(line, /PH Roll 17 against 12: failed, it lands at \(44(\.0)?, 0\.5\) on its Deployment Zone's table edge$/);
});

test("the owner's line for a trooper kept airborne", () => {
  const names = new d.TrooperNames((/** @type {string} */ id) => (id === "A-t15" ? { id, profile } : undefined));
  const line = d.textOf(d.describeEvent({ type: "trooper_kept_airborne", trooper: "A-t15" }, { names, ruleset: "n5", viewer: "A" }));
  assert.match(line, /Stormdrop Jumper.* stays off the table in Airborne Deployment \(secret; Combat Jump later\)$/);
});
