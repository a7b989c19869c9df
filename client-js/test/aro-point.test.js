// The ARO panel's choice of the point of the route (seed 000 "All at Once": the target "reacts
// with a BS Attack, choosing to shoot at the end of the Movement"): which points it offers,
// and how the chosen one goes into the declaration (`target_point`).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** @type {typeof import("../app/aro-panel.js")} */
let aro;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(here, "..", "..", "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  aro = await import("../app/aro-panel.js");
});

test("seed 000: the points of the active trooper's route, start to end, each once", () => {
  const order = { trooper: "A-t7", path: [[22.5, 4], [22.5, 6], [22.5, 6], [24, 8]],
    peripheral_paths: { "A-p1": [[10, 10]] } };
  const points = aro.routePoints(order, "A-t7");
  assert.deepEqual(points.map((p) => p.point), [[22.5, 4], [22.5, 6], [24, 8]]);
  assert.deepEqual(points.map((p) => p.text), ["the start of its route (22.5, 4.0)", "corner 1 of its route (22.5, 6.0)",
    "the end of its route (24.0, 8.0)"]);
  assert.deepEqual(aro.routePoints(order, "A-p1"), [], "a Peripheral that did not move: nothing to choose");
  assert.deepEqual(aro.routePoints({ trooper: "A-t7", path: [[1, 1]] }, "A-t7"), []);
});

test("seed 000: a shot or a Discover carries the chosen point; other AROs and the default do not", () => {
  const shot = JSON.stringify({ type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t7", burst: 1 }] });
  assert.deepEqual(JSON.parse(aro.withTargetPoint(shot, "[22.5,8]")),
    { type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t7", burst: 1 }], target_point: [22.5, 8] });
  assert.equal(aro.withTargetPoint(shot, ""), shot, "no point chosen: the server's default");
  const discover = JSON.stringify({ type: "discover", target: "A-t3" });
  assert.deepEqual(JSON.parse(aro.withTargetPoint(discover, "[1,2]")).target_point, [1, 2]);
  const dodge = JSON.stringify({ type: "dodge" });
  assert.equal(aro.withTargetPoint(dodge, "[1,2]"), dodge);
  assert.equal(aro.withTargetPoint("pass", "[1,2]"), "pass");
});

test("seed 000: the log names the point an ARO was taken at", async () => {
  const catalogue = await import("../app/catalogue.js");
  await catalogue.loadCatalogue();
  const d = await import("../app/describe.js");
  const skill = { type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t7", burst: 1 }], target_point: [30, 12] };
  assert.match(d.textOf(d.skillText(skill)), /at A-t7 \(B1\) as it passes \(30\.0, 12\.0\)$/);
  assert.match(d.textOf(d.skillText({ type: "discover", target: "A-t3", target_point: [1, 2] })), /as it passes \(1\.0, 2\.0\)$/);
  assert.doesNotMatch(d.textOf(d.skillText({ ...skill, target_point: undefined })), /passes/);
});

test("the point choices are the server's: its default, then only the points of the route where the ARO resolves, each with its SV", () => {
  const order = { trooper: "A-t7", path: [[14, 8], [18, 8]] };
  const at = (/** @type {number[] | null} */ point, /** @type {number} */ sv) => ({ point, template: false, distance: 15, attribute: "BS", base: 12,
    mods: [{ source: "range", value: sv - 12 }], sv, range: { from: 8, up_to: 16, mod: sv - 12 }, automatic_failure: null });
  // The server left out the start (no Line of Fire there): so does the panel.
  const choice = { value: "{}", kind: "shoot", target: "A-t7", text: "", points: [at(null, 12), at([18, 8], 12)] };
  assert.deepEqual(aro.pointChoices(choice, order), [
    { value: "", text: "at the last point it is seen: BS 12 +0 range 8-16\" = SV 12 at 15.0\"" },
    { value: "[18,8]", text: "at the end of its route (18.0, 8.0): BS 12 +0 range 8-16\" = SV 12 at 15.0\"" }]);
  assert.deepEqual(aro.pointChoices({ value: "pass", kind: "pass", text: "No ARO" }, order), [], "no point for a pass");
});
