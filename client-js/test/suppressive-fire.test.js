// Suppressive Fire and the remaining Strategic Command Token uses in the app's words: the
// buttons for the suppressive_fire and hold_back uses, their log lines, the declared skill's
// line, the SUP.FIRE state token and the -3 MOD's name (shapes as server/rules/views.py sends).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeTokenSpent, useKey, useText } from "../app/command-tokens.js";
import { STATE_TOKENS, trooperStates } from "../app/roster.js";

const here = dirname(fileURLToPath(import.meta.url));
const name = (/** @type {string} */ id) => (id === "B-t3" ? "Enforcer 1" : id);
/** @type {typeof import("../app/describe.js")} */
let d;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(here, "..", "..", "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  await (await import("../app/catalogue.js")).loadCatalogue();
  d = await import("../app/describe.js");
});

test("the Strategic Suppressive Fire and hold-back uses have words and handles", () => {
  const sf = { type: "spend_command_token", use: "suppressive_fire", trooper: "B-t3" };
  const hold = { type: "spend_command_token", use: "hold_back" };
  assert.equal(useText(sf, name), "Put Enforcer 1 into Suppressive Fire");
  assert.equal(useText(hold, name), "Hold back one more trooper (and its Peripherals) to deploy with your reserve");
  assert.deepEqual([useKey(sf), useKey(hold)], ["suppressive_fire:B-t3", "hold_back"]);
});

test("their log lines", () => {
  const event = (/** @type {string} */ use, extra = {}) => ({ type: "command_token_spent", side: "B", use, left: 3, combat_groups: [], trooper: null, combat_group: null, ...extra });
  assert.deepEqual(describeTokenSpent(event("suppressive_fire", { trooper: "B-t3" }), name),
    ["Player B spends a Command Token (Strategic): ", "Enforcer 1", " enters Suppressive Fire; 3 left"]);
  assert.deepEqual(describeTokenSpent(event("hold_back", { side: "A" }), name),
    ["Player A spends a Command Token (Strategic): one more trooper is held back to deploy with the reserve; 3 left"]);
});

test("the declared skill, the State token and the MOD", () => {
  assert.equal(d.textOf(d.skillText({ type: "suppressive_fire" })), "Suppressive Fire (enters the Suppressive Fire State)");
  assert.deepEqual(trooperStates({ suppressive_fire: true, condition: "normal" }), ["suppressive_fire"]);
  assert.deepEqual(trooperStates({ suppressive_fire: false, condition: "normal" }), []);
  assert.equal(STATE_TOKENS.suppressive_fire.code, "SUP.FIRE");
  const roll = { trooper: "A-t7", skill: "bs_attack", attribute: "BS", base: 11, mods: [{ source: "range", value: -3 }, { source: "suppressive_fire", value: -3 }], success_value: 5 };
  assert.match(d.successValueText(roll), /enemy Suppressive Fire/);
});

test("the State's changes in the log, and folded into the local view", async () => {
  const ctx = { names: { label: (/** @type {string} */ id) => ({ text: name(id) }) } };
  const on = d.textOf(d.describeEvent({ type: "suppressive_fire_changed", trooper: "B-t3", active: true, reason: "command_token" }, ctx));
  const off = d.textOf(d.describeEvent({ type: "suppressive_fire_changed", trooper: "B-t3", active: false, reason: "other_aro" }, ctx));
  assert.match(on, /enters Suppressive Fire$/);
  assert.match(off, /leaves Suppressive Fire \(it declared another ARO\)$/);
  const { LocalView } = await import("../src/view.js");
  const view = new LocalView();
  view.applySnapshot({ version: 1, window: null, seats: {}, state: { phase: "orders", order: null,
    troopers: [{ id: "B-t3", side: "B", position: [30, 30], suppressive_fire: false }] } });
  view.applyEvents(2, [{ type: "suppressive_fire_changed", trooper: "B-t3", active: true, reason: "command_token" }]);
  assert.equal(view.stale, false);
  assert.equal(view.state.troopers[0].suppressive_fire, true);
  view.applyEvents(3, [{ type: "suppressive_fire_changed", trooper: "B-t3", active: false, reason: "engaged" }]);
  assert.equal(view.state.troopers[0].suppressive_fire, false);
});
