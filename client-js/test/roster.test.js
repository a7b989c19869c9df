// The names the table writes by each base and the roster lists (app/roster.js), and the
// Silhouette helpers the table sizes bases with (src/geometry.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { familyWords, shortUnitName, trooperNames, trooperStates, resetOrdinals } from "../app/roster.js";
import { baseDiameter, baseRadius, silhouetteHeight, silhouetteOf } from "../src/geometry.js";

const VESPER = ["Syndicate Boss", "Ghost Infiltrator", "Syndicate Enforcer", "Syndicate Enforcer (Scorch Hose)", "Razorback Berserker",
  "Syndicate Ganger", "Hauler Gun Drone", "Syndicate Lookout", "Tusker Brute"];
const HELION = ["Warden Officer", "Bulwark Heavy Trooper", "Pathfinder Scout", "Field Tinker (Controller)", "Gnat Drone (Peripheral)",
  "Strider Walker", "Colossus Assault Frame", "Lancer Line Trooper", "Lancer Line Trooper (Chain Spray)", "Signal Adept (Hacker)"];

test("short unit names: the army's family word left out, long names cut to their first word, variants dropped", () => {
  const vesper = familyWords(VESPER);
  assert.deepEqual([...vesper], ["Syndicate"]);
  assert.deepEqual(VESPER.map((n) => shortUnitName(n, vesper)),
    ["Boss", "Ghost", "Enforcer", "Enforcer", "Razorback", "Ganger", "Hauler", "Lookout", "Tusker Brute"]);
  const helion = familyWords(HELION);
  assert.equal(helion.size, 0, "Lancer Line Trooper and its Chain Spray variant are one unit");
  assert.deepEqual(HELION.map((n) => shortUnitName(n, helion)),
    ["Warden", "Bulwark", "Pathfinder", "Field Tinker", "Gnat Drone", "Strider", "Colossus", "Lancer", "Lancer", "Signal Adept"]);
});

const trooper = (id, side, name, extra = {}) => ({ id, side, position: [1, 1], profile: { name, silhouette: 2 }, ...extra });

test("ordinals: only where two or more of a unit stand on the table, given once and kept; a marker is Camo", () => {
  resetOrdinals();
  const state = { armies: { B: { roster: VESPER.map((unit) => ({ unit })) } }, troopers: [
    trooper("B-x1", "B", "Syndicate Boss"),
    trooper("B-x2", "B", "Syndicate Enforcer"),
    trooper("B-x3", "B", "Syndicate Enforcer (Scorch Hose)"),
    trooper("A-m1", "A", undefined, { profile: undefined, marker: true, camouflage: 3, silhouette: 2 }),
  ] };
  let names = trooperNames(state);
  assert.deepEqual([...names.values()].map((n) => n.label), ["Boss", "Enforcer 1", "Enforcer 2", "Camo"]);
  assert.equal(names.get("A-m1")?.full, "Camouflage marker (CAMO -3)");
  // A hidden Enforcer of its own side gets no ordinal until it stands on the table in the open.
  state.troopers.push(trooper("B-x4", "B", "Syndicate Enforcer", { hidden: true }));
  names = trooperNames(state);
  assert.equal(names.get("B-x4")?.label, "Enforcer");
  // The first Enforcer dies and the hidden one is revealed: nobody is renumbered.
  state.troopers[1].condition = "dead";
  state.troopers[4].hidden = false;
  names = trooperNames(state);
  assert.deepEqual(["B-x2", "B-x3", "B-x4"].map((id) => names.get(id)?.label), ["Enforcer 1", "Enforcer 2", "Enforcer 3"]);
});

test("states: what the view carries, the Lieutenant only on one's own troopers", () => {
  assert.deepEqual(trooperStates({ condition: "dead", prone: true }), ["dead", "prone"]);
  assert.deepEqual(trooperStates({ condition: "unconscious", prone: true, targeted: true }), ["unconscious", "prone", "targeted"]);
  assert.deepEqual(trooperStates({ entry: { lieutenant: true }, hidden: true }), ["lieutenant", "hidden"]);
  assert.deepEqual(trooperStates({ marker: true, immobilized: true, isolated: true }), ["immobilized", "isolated", "marker"]);
  assert.deepEqual(trooperStates({ immobilized_b: true, isolated: true }), ["immobilized", "isolated"]);
  assert.deepEqual(trooperStates({ condition: "normal" }), []);
});

test("bases by Silhouette: a profile's, or a marker's own, 25 mm when unknown", () => {
  assert.equal(silhouetteOf({ profile: { silhouette: 5 } }), 5);
  assert.equal(silhouetteOf({ marker: true, silhouette: 3 }), 3);
  assert.equal(silhouetteOf({}), 2);
  assert.equal(baseRadius({ profile: { silhouette: 8 } }), baseDiameter(8) / 2);
  assert.equal(baseDiameter(8), 70 / 25.4);
  assert.equal(silhouetteHeight(2), 40 / 25.4);
});

test("states: Stunned shows while the view carries the turn it was caused in", async () => {
  const { STATE_TOKENS } = await import("../app/roster.js");
  assert.deepEqual(trooperStates({ stunned_in: [1, 1], prone: true }), ["prone", "stunned"]);
  assert.deepEqual(trooperStates({ stunned_in: null }), []);
  assert.equal(STATE_TOKENS.stunned.code, "STUN");
});

test("a trooper kept up by NWI or Dogged shows its token instead of Unconscious", () => {
  assert.deepEqual(trooperStates({ condition: "normal", wounds: 1, profile: { nwi: true, vita: 1 } }), ["nwi"]);
  assert.deepEqual(trooperStates({ condition: "normal", wounds: 0, profile: { nwi: true, vita: 1 } }), []);
  assert.deepEqual(trooperStates({ condition: "normal", wounds: 1, dogged_in: [1, 1], profile: { dogged: true, vita: 1 } }), ["dogged"]);
  assert.deepEqual(trooperStates({ condition: "dead", wounds: 2, profile: { nwi: true, vita: 1 } }), ["dead"]);
});
