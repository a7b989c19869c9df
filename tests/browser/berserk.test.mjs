// Browser test of Berserk (issue 36; server/rules/orders/berserk.py) in real headless Chromium
// (as stunned.test.mjs): the roster names "Berserk (+3)"; the order panel offers Berserk on the
// Enforcer with the CC roll's final Success Value; one click declares it, the Lancer moves into
// contact, the Enforcer's player closes its ARO window, and every seat's log tells the Berserk
// and the CC roll with its MOD. Every wait is on a DOM or view condition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile } from "./harness.mjs";
import { passAroWindowsUntil } from "./game_by_clicks.mjs";

const scenario = scenarioForFile();
const open = (link) => scenario.openTable(link, WAIT);

// N5: A's Lancer (A-t7, MOV 4-4, CC 13, Berserk (+3)) faces B's Enforcer (B-t3) 7" away in a
// straight line: beyond its first MOV value, within both. The Lieutenants are far off.
const PLACEMENTS = { "A-t7": [12, 5, 90], "B-t3": [12, 13, 270], "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46, 90] };

test("Berserk: offered with its final SV, declared with one click, the trooper charges and rolls CC with +3", async () => {
  const room = await scenario.post("/test/scenario", {
    ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS,
    profile_fields: { "A-t7": { berserk: true, berserk_mod: 3 } },
  });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  const row = await a.$eval('#roster [data-roster-trooper="A-t7"]', (x) => x.textContent);
  assert.match(row, /Berserk \(\+3\)/);
  await a.click('#roster [data-roster-trooper="A-t7"]');
  await a.waitForSelector('#table [data-selected-ring="A-t7"]', { state: "attached", ...WAIT });
  await a.click('[data-order="regular"]');
  await a.waitForSelector('[data-berserk="B-t3"]', WAIT);
  assert.match(await a.$eval('[data-berserk="B-t3"]', (x) => x.textContent), /SV 16/);
  await a.click('[data-berserk="B-t3"]');

  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null
    && document.body.textContent.includes("Berserk on"), WAIT);
  const lancer = await a.evaluate(() => window.referee.view.state.troopers.find((t) => t.id === "A-t7"));
  assert.ok(Math.abs(lancer.position[1] - (13 - 2 * 0.4921259842519685)) < 0.01, "it moved into contact");
  for (const page of [a, b]) {
    const log = await page.$eval("body", (x) => x.textContent);
    assert.match(log, /Berserk on Enforcer with Combat Knife.*: a 7.0" move into contact, then a CC Attack/);
    assert.match(log, /CC 13 \+3 Berserk = SV 16/);
  }
  await a.screenshot({ path: join(artifacts, "berserk-A.png") });
  await closeAll(a, b);
});
