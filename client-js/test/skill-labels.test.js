import { test } from "node:test";
import assert from "node:assert/strict";
import { skillsOf } from "../app/skill-labels.js";

test("a trooper's skills in the rules' words, its Camouflage's own Mimetism not repeated", () => {
  assert.deepEqual(skillsOf({ camouflage: 3, mimetism: 3, hacker: true, impetuous: false }),
    ["Camouflage (CAMO −3)", "Hacker"]);
  assert.deepEqual(skillsOf({ mimetism: 6, combat_jump: true }), ["Mimetism (−6)", "Airborne Deployment (Combat Jump)"]);
  assert.deepEqual(skillsOf({ bs: 12 }), []);
  assert.deepEqual(skillsOf(null), []);
});

test("the fighting skills' labels: NWI, Dogged, Courage, each Immunity, Martial Arts with its Level; no empty Immunity", () => {
  assert.deepEqual(skillsOf({ nwi: true, dogged: true, courage: true, immunities: ["Shock", "total"], martial_arts: 3 }),
    ["No Wound Incapacitation", "Dogged", "Courage", "Immunity (Shock), Immunity (Total)", "Martial Arts L3"]);
  assert.deepEqual(skillsOf({ immunities: [], martial_arts: 0 }), []);
});

test("a Multispectral Visor is named with its level", () => {
  assert.deepEqual(skillsOf({ multispectral_visor: 2, sixth_sense: true }), ["Multispectral Visor L2", "Sixth Sense"]);
  assert.deepEqual(skillsOf({ multispectral_visor: 0 }), []);
});

test("ECM is named with the Hacker MOD it imposes", () => {
  assert.deepEqual(skillsOf({ ecm_hacker: 3 }), ["ECM (Hacker −3)"]);
});

test("Terrain is named with its Type, or Total when it covers all five; none without it", () => {
  assert.deepEqual(skillsOf({ terrain: ["aquatic", "desert", "jungle", "mountain", "zero_g"] }), ["Terrain (Total)"]);
  assert.deepEqual(skillsOf({ terrain: ["zero_g"] }), ["Terrain (Zero-G)"]);
  assert.deepEqual(skillsOf({ terrain: [] }), []);
});
