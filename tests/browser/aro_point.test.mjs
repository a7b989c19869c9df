// Seed 000 "All at Once" in the browser app: the reactive player chooses the point of the active
// trooper's route its ARO is taken at ("its target reacts with a BS Attack, choosing to shoot at
// the end of the Movement"), in real headless Chromium against tests/browser/scenario_server.py.
// A's Lancer walks 2" towards B's Enforcer (from 17" to 15" between the bases, x 30 is a clear
// line); B's panel offers the route's start and end beside the default; B shoots at the start,
// and the roll is measured from there (the Punch Carbine's -3 band, not the 0 of the end).
// Screenshots: test-artifacts/browser/aro-point-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, scenarioForFile, shows } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

const PLACEMENTS = { "A-t7": [30, 12, 90], "A-t1": [2, 2, 90], "B-t3": [30, 30, 270], "B-t1": [46, 46, 270] };

test("seed 000: the ARO panel chooses the point of the route; the shot is measured from there", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: [20], placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  await a.click('[data-roster-trooper="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 30, 14);
  await a.waitForFunction(() => document.getElementById("route-length").textContent.startsWith('Route 2.00"'), null, WAIT);
  await a.click('[data-skill="move"]');

  // B: beside the shot, where on the route: the default, the start or the end, each with the
  // shot's final Success Value there (the server's preview), before declaring.
  await b.waitForSelector('[data-aro-point="B-t3"]', WAIT);
  const points = await b.$$eval('[data-aro-point="B-t3"] option', (xs) => xs.map((x) => ({ text: x.textContent, value: x.value })));
  assert.deepEqual(points.map((p) => p.text), [
    "at the last point it is seen: BS 12 +0 range 8-16\" = SV 12 at 15.0\"",
    "at the start of its route (30.0, 12.0): BS 12 \u22123 range 16-24\" = SV 9 at 17.0\"",
    "at the end of its route (30.0, 14.0): BS 12 +0 range 8-16\" = SV 12 at 15.0\""]);
  assert.equal(JSON.parse(await b.$eval('[data-aro-choice="B-t3"]', (x) => x.value)).type, "bs_attack");
  await b.selectOption('[data-aro-point="B-t3"]', points[1].value);
  await shows(b, '[data-aro-sv="B-t3"]', /^BS 12 \u22123 range 16-24" = SV 9 at 17\.0"$/); // the SV at the chosen point
  await shot(b, "aro-point-chosen");
  await b.click('[data-aro="B-t3"] [data-action="declare"]');
  await b.waitForFunction(() => window.referee.view.state.order?.aros?.["B-t3"]?.target_point?.join(",") === "30,12", null, WAIT);
  for (const page of [a, b]) await shows(page, "#log", /ARO declared: Enforcer: BS Attack with Punch Carbine \(AP\) at Lancer \(B1\) as it passes \(30\.0, 12\.0\)/);

  // B's app closes the window (nothing left to declare); A ends the Order with Idle: the ARO
  // is a Normal Roll at the start's -3 range band.
  await a.waitForSelector("#declare-idle", WAIT);
  await a.click("#declare-idle");
  for (const page of [a, b]) await shows(page, "body", /BS 12 \u22123 range = SV 9/);
  await shot(a, "aro-point-result");
  await Promise.all([a, b].map((p) => p.context().close()));
});
