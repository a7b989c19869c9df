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
