// A Coordinated Order's declaration for each trooper beside the Spearhead (N5, DIGEST 3.4;
// client-js/app/coordinated-order.js), from the options shapes server/rules/options.py sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { coordinatedBlocker, participantSkill } from "../app/coordinated-order.js";

const kinds = { line_rifle: "ballistic", sidearm: "ballistic", combat_knife: "close_combat" };
const ctx = { weapons: ["line_rifle", "sidearm", "combat_knife"], kindOf: (w) => kinds[w], name: (id) => ({ "B-t1": "Enforcer" })[id] ?? id };
const offered = (extra = {}) => ({ bs_attack: {}, cc_attack: {}, discover: [], comms_attack: {}, route_skills: ["move"], idle: true, dodge: true, reset: true, idle_for: [], ...extra });
const shot = { type: "bs_attack", weapon: "line_rifle", targets: [{ trooper: "B-t1", burst: 2 }] };

test("a BS Attack: the Spearhead's target with B1, with a weapon that reaches it (the player's pick first)", () => {
  const sees = offered({ bs_attack: { line_rifle: { burst: 1, targets: ["B-t1", "B-t3"] }, sidearm: { burst: 1, targets: ["B-t1"] } } });
  assert.deepEqual(participantSkill(shot, sees, ctx), { skill: { type: "bs_attack", weapon: "line_rifle", targets: [{ trooper: "B-t1", burst: 1 }] },
    acts: true, note: "shoots Enforcer with line_rifle (B1)" });
  assert.equal(participantSkill(shot, sees, { ...ctx, preferred: "sidearm" }).skill.weapon, "sidearm");
});

test("a BS Attack the trooper cannot make (no Line of Fire to the target): it declares it and performs Idle", () => {
  const blind = offered({ bs_attack: { line_rifle: { burst: 1, targets: ["B-t3"] } } });
  const { skill, acts, note } = participantSkill(shot, blind, ctx);
  assert.deepEqual(skill, { type: "bs_attack", weapon: "line_rifle", targets: [{ trooper: "B-t1", burst: 1 }] }, "the same target: the rules core's one-target check");
  assert.equal(acts, false);
  assert.match(note, /no Line of Fire to Enforcer: declares the attack, performs Idle/);
  assert.equal(participantSkill(shot, offered(), ctx).skill.weapon, "line_rifle", "no shot offered at all: its own shooting weapon");
});

test("a CC Attack: only the Spearhead rolls; a trooper in base contact adds +1 B, one away adds nothing", () => {
  const knife = { type: "cc_attack", weapon: "combat_knife", target: "B-t1" };
  const touching = participantSkill(knife, offered({ cc_attack: { combat_knife: ["B-t1"] } }), ctx);
  assert.deepEqual(touching, { skill: knife, acts: true, note: "in base contact with Enforcer: +1 B to the Spearhead's attack" });
  const away = participantSkill(knife, offered(), ctx);
  assert.deepEqual(away.skill, knife);
  assert.equal(away.acts, false);
  assert.match(away.note, /not in base contact/);
});

test("a skill the trooper's own state forbids is Idle in its place; simple skills are the Spearhead's", () => {
  assert.deepEqual(participantSkill(shot, offered({ idle_for: ["bs_attack"] }), ctx).skill, { type: "idle" });
  assert.deepEqual(participantSkill({ type: "dodge" }, offered(), ctx).skill, { type: "dodge" });
});

test("what blocks a skill type: a trooper that may not move blocks a Move unless it performs it as Idle", () => {
  const skills = { peripherals: { "A-t8": offered({ route_skills: [] }), "A-t9": offered() } };
  assert.equal(coordinatedBlocker("move", skills), "A-t8 may not move now");
  skills.peripherals["A-t8"].idle_for = ["move"];
  assert.equal(coordinatedBlocker("move", skills), null);
  assert.equal(coordinatedBlocker("bs_attack", skills), null, "an attack never blocks: a trooper without it performs Idle");
});
