// Infiltration, Forward Deployment, Chain of Command, Climbing Plus and Super-Jump in the app's words: the roster labels
// and the log lines of infiltration_rolled (passed, failed, a Camouflage Marker's without its
// roll record as the opponent gets it) and chain_of_command_took_over (its owner's only). The
// events are shaped as server/rules/views.py sends them (tests/rules/orders/test_infiltration.py,
// test_chain_of_command.py).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { skillsOf } from "../app/skill-labels.js";

const here = dirname(fileURLToPath(import.meta.url));
/** @type {typeof import("../app/describe.js")} */
let d;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(here, "..", "..", "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  await (await import("../app/catalogue.js")).loadCatalogue();
  d = await import("../app/describe.js");
});

const profile = { id: "bulwark", name: "Bulwark Heavy Trooper", ph: 13, silhouette: 2, infiltration: true };
const roll = (/** @type {number} */ face) => ({ trooper: "A-t2", skill: "infiltration", target: null, weapon: null, attribute: "PH", base: 13,
  mods: [{ source: "infiltration", value: -3 }], success_value: 10, burst: 1, dice: [{ face, value: face, success: face <= 10, critical: face === 10 }],
  cancelled: [false], successes: face < 10 ? 1 : 0, criticals: face === 10 ? 1 : 0, opposed_by: [], automatic_failure: false, chosen_failure: false });
const rolled = (/** @type {number} */ face, /** @type {boolean} */ withRoll = true) => ({ type: "infiltration_rolled", trooper: "A-t2",
  position: [4.0, 30.0], facing: 90.0, roll: withRoll ? roll(face) : null, passed: face <= 10, marker: !withRoll });

function line(/** @type {any} */ event) {
  const names = new d.TrooperNames((/** @type {string} */ id) => (id === "A-t2" ? { id, profile } : undefined));
  return d.textOf(d.describeEvent(event, { names, ruleset: "n5", viewer: "A" }));
}

test("the roster names the deployment skills in the rules' words", () => {
  assert.deepEqual(skillsOf({ infiltration: true, forward_deployment: 4, chain_of_command: true }),
    ["Infiltration", "Forward Deployment (+4\")", "Chain of Command"]);
  assert.deepEqual(skillsOf({ climbing_plus: true, super_jump: true }), ["Climbing Plus", "Super-Jump"]);
  assert.deepEqual(skillsOf({ forward_deployment: 0 }), []);
});

test("a passed and a failed Infiltration Roll", () => {
  assert.match(line(rolled(7)), /^Infiltration: Bulwark Heavy Trooper.* into the enemy half at \(4(\.0)?, 30(\.0)?\), PH-3 Roll 7 against 10: passed, it deploys there$/);
  assert.match(line(rolled(15)), /PH-3 Roll 15 against 10: failed, it deploys as a model in its own Deployment Zone$/);
});

test("a Camouflage Marker's Infiltration as the opponent sees it: no roll record", () => {
  assert.match(line(rolled(3, false)), /into the enemy half at \(4(\.0)?, 30(\.0)?\): passed, it deploys there$/);
});

test("Chain of Command: the owner's line", () => {
  assert.match(line({ type: "chain_of_command_took_over", side: "A", trooper: "A-t2" }),
    /^Chain of Command: Bulwark Heavy Trooper.* is your new Lieutenant \(secret; no Loss of Lieutenant\)$/);
});
