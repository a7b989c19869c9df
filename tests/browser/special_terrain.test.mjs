// Special Terrain in real headless Chromium (infinitythewiki "Difficult Terrain"): a swamp
// (Difficult Terrain, Aquatic) is drawn on the table for both seats with its name, MOV
// Difficulty and Type; A's Bulwark (MOV 4-2) stands in it, so the route form counts its first
// Move against 3 inches (options.skills.allowances, 4 - 1), and a 3-inch Move is accepted.
// Screenshots: test-artifacts/browser/special-terrain-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile } from "./harness.mjs";

const scenario = scenarioForFile();
const open = (link) => scenario.open(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `special-terrain-${name}.png`) });

const SWAMP = { id: "swamp", name: "Swamp", polygon: [[20, 16], [28, 16], [28, 24], [20, 24]], difficulty: "difficult", terrain_type: "aquatic" };
const PLACEMENTS = { "A-t2": [24, 18, 90], "A-t1": [47, 1, 270], "B-t1": [2, 47, 90] };

test("a Difficult Terrain area is drawn for both seats and the Move inside it counts MOV - 1", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, terrain: [], special_terrain: [SWAMP], placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  for (const page of [a, b]) {
    await page.waitForSelector('#table [data-special-terrain="swamp"]', { state: "attached", ...WAIT });
    const title = await page.$eval('#table [data-special-terrain="swamp"] title', (x) => x.textContent);
    assert.match(title, /^Swamp: Difficult Terrain \(Aquatic\): entering it ends a move; inside, MOV -1 inch/);
  }

  await a.click('[data-roster-trooper="A-t2"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  assert.deepEqual(await a.evaluate(() => window.referee.currentOptions()?.skills?.allowances?.move), 3);
  await clickTable(a, 24, 21);
  await a.waitForFunction(() => document.getElementById("route-length").textContent.startsWith('Route 3.00" of MOV 3"'), null, WAIT);
  await shot(a, "route-in-swamp");
  await a.click('[data-skill="move"]');
  await a.waitForFunction(() => window.referee.view.state.troopers.find((t) => t.id === "A-t2")?.position?.[1] === 21, null, WAIT);
  await closeAll(a, b);
});
