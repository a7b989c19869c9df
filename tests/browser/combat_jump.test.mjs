// Browser test of Combat Jump (Airborne Deployment) in real headless Chromium: A's Stormdrop
// Jumper (A-t15) starts airborne (tests.support.skirmish "airborne"); A's order panel offers
// "Combat Jump", a click on the table names the landing spot, the PH Roll (injected: 5, passed)
// lands it there, and B and the spectator, who saw nothing of it before, now see it on the
// table and read the landing in the log; B gets its ARO window. Every wait is on a DOM or view
// condition. Screenshots: test-artifacts/browser/combat-jump-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile } from "./harness.mjs";

const JUMPER = "A-t15";

const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);

const shot = (page, name) => page.screenshot({ path: join(artifacts, `combat-jump-${name}.png`) });
const onTable = (page, id) => page.evaluate((id) => window.referee.view.state.troopers.some((t) => t.id === id && t.position), id);

const PLACEMENTS = {
  "A-t1": [10, 6, 90], "A-t3": [24, 6, 90], "A-t11": [16, 6, 90],
  "B-t1": [6, 44, 270], "B-t3": [20, 40, 270], "B-t4": [30, 40, 270],
  [JUMPER]: [0, 0, 0, "airborne"],
};

test("an airborne trooper is offered a Combat Jump, lands where clicked and is then seen by all", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: [5], placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // Before it lands, B and the spectator know nothing of it.
  for (const page of [b, spectator]) {
    assert.equal(await onTable(page, JUMPER), false);
    assert.doesNotMatch(await page.$eval("body", (x) => x.textContent), /Stormdrop/);
  }
  await a.waitForSelector(`[data-combat-jump="${JUMPER}"]`, WAIT);
  await a.click(`[data-combat-jump="${JUMPER}"]`);
  await a.waitForSelector("#combat-jump-hint", WAIT);
  assert.match(await a.$eval("#combat-jump-hint", (x) => x.textContent), /Click the landing spot on the table \(PH 12 roll; if it fails/);
  await shot(a, "offered-A");

  await clickTable(a, 30, 28);
  for (const page of [a, b, spectator]) {
    await page.waitForFunction((id) => window.referee.view.state.troopers.some((t) => t.id === id && t.position), JUMPER, WAIT);
    const jumper = await page.evaluate((id) => window.referee.view.state.troopers.find((t) => t.id === id), JUMPER);
    assert.deepEqual(jumper.position, [30, 28]);
    await page.waitForFunction(() => /Combat Jump: .*PH Roll 5 against 12: passed, it lands there/.test(document.body.textContent), null, WAIT);
  }
  // The reactive player's ARO window opens as for any Order.
  await b.waitForFunction(() => window.referee.currentOptions()?.close_aro_window, null, WAIT);
  await shot(a, "landed-A");
  await shot(b, "landed-B");
  await closeAll(a, b, spectator);
});
