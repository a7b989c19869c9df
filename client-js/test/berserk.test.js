// Berserk and Warhorse in the client's words (issue 36): the roster label with its MOD, the declaration
// and the Idle it becomes when it cannot reach (server/rules/orders/berserk.py).
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

test("the roster names Berserk with the MOD in brackets when it has one", () => {
  assert.deepEqual(skillsOf({ berserk: true, berserk_mod: 3 }), ["Berserk (+3)"]);
  assert.deepEqual(skillsOf({ berserk: true, berserk_mod: 0 }), ["Berserk"]);
  assert.deepEqual(skillsOf({ berserk: false, berserk_mod: 0 }), []);
});

test("the log says what a Berserk declared, and why one that could not reach is Idle", () => {
  const names = new d.TrooperNames((id) => ({ "A-t7": { id, side: "A", profile: { name: "Lancer" } }, "B-t3": { id, side: "B", profile: { name: "Enforcer" } } })[id]);
  const ctx = { names };
  const skill = { type: "berserk", weapon: "combat_knife", target: "B-t3", route: [[12, 5], [12, 12]] };
  assert.match(d.textOf(d.skillText(skill, ctx)), /^Berserk on Enforcer \(B-t3\) with .+: a 7\.0" move into contact, then a CC Attack \(its whole Order\)$/);
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "A-t7", skill: "berserk", reason: "berserk_out_of_reach", target: "B-t3", aro: false }, ctx)),
    "Lancer (A-t7) declared Berserk at Enforcer (B-t3): it could not reach Silhouette contact with its target (Berserk): it did not move, the Order is lost (Idle)");
});

test("the roster names Warhorse (N5's Veteran)", () => {
  assert.deepEqual(skillsOf({ warhorse: true }), ["Warhorse"]);
});
