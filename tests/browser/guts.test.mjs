// The Guts window in the browser app, in real headless Chromium against
// tests/browser/scenario_server.py: A's Lancer shoots B's Enforcer standing past the end of a
// block; the save passes and the Guts Roll fails (injected dice), so B's app shows its Guts
// panel (the trooper, the rule, the default, a countdown), B clicks another point behind the
// block on the table and confirms; every viewer sees the Enforcer there. The spectator sees who
// is choosing. Every wait is on a DOM or view condition. Screenshots:
// test-artifacts/browser/guts-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile, shows } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `guts-${name}.png`) });

// tests/rules/scenarios/guts_roll.json: the block hides the Enforcer's east side from the Lancer.
const TERRAIN = [{ id: "block", polygon: [[25.5, 26], [35, 26], [35, 28], [25.5, 28]], height: 4 }];
const PLACEMENTS = { "A-t7": [24, 16, 90], "B-t3": [24.5, 30, 270], "B-t2": [40, 47, 90], "A-t1": [1, 1, 270], "B-t1": [1, 47, 90] };
// Line Rifle Burst 3: 2 hits, 16 and 17 miss (SV 14); the save (5) passes; Guts (18) fails.
const DICE = [2, 16, 17, 5, 18];

test("a failed Guts Roll: the owner clicks where its trooper moves and confirms", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: DICE,
    placements: PLACEMENTS, terrain: TERRAIN });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  await a.click('#roster [data-roster-trooper="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#declare-bs", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  for (const target of await a.$$eval("[data-burst]", (xs) => xs.map((x) => x.dataset.burst))) {
    await a.fill(`[data-burst="${target}"]`, target === "B-t3" ? "3" : "0");
    await a.dispatchEvent(`[data-burst="${target}"]`, "change");
  }
  await a.click("#declare-bs");
  await b.waitForSelector('[data-aro="B-t3"]', WAIT);
  await b.click("#close-window"); // no ARO: the Enforcer takes the shot
  await a.waitForFunction(() => window.referee.currentOptions()?.skills?.index === 2 && document.getElementById("declare-idle"), null, WAIT);
  await a.click("#declare-idle");

  // B's app: the Guts panel, with the default; the table's countdown says whose move it is.
  await b.waitForSelector("#guts-panel:not([hidden]) #guts-default", WAIT);
  await shows(b, "#guts-panel", /Enforcer.* failed its Guts Roll: it must move up to 2" out of the attackers' Line of Fire/);
  await shows(b, "#guts-panel", /Default: \(26\.3, 29\.2\)/);
  await shows(b, "#aro-clock", /Your Guts move \d/);
  await b.waitForSelector("#table #guts-default-point", { state: "attached", ...WAIT });
  assert.equal(await b.$eval("#aro-panel", (x) => x.hidden), true, "no ARO panel for a Guts window");
  await shows(spectator, "#guts-panel", /Guts: player B chooses/);
  await shows(a, "#aro-clock", /Guts move: player B/);
  await shot(b, "window-B");

  // A point behind the block that no ring holds: B clicks it and confirms.
  await clickTable(b, 26.4, 29.6);
  await shows(b, "#guts-chosen", /Chosen: \(26\.4, 29\.6\)/);
  await b.waitForSelector("#table #guts-chosen-point", { state: "attached", ...WAIT });
  await shot(b, "chosen-B");
  await b.click("#guts-confirm");

  for (const page of [a, b, spectator]) {
    await page.waitForFunction(() => window.referee.view.state.order === null
      && Math.abs(window.referee.view.state.troopers.find((t) => t.id === "B-t3").position[0] - 26.4) < 0.05, null, WAIT);
    const at = await page.evaluate(() => window.referee.view.state.troopers.find((t) => t.id === "B-t3").position);
    assert.ok(Math.abs(at[1] - 29.6) < 0.05, `B-t3 at ${at}`);
    await shows(page, "#log", /Guts: .*moves .* \(failed Guts Roll: out of Line of Fire\) \(its owner's choice\)/);
    assert.equal(await page.$eval("#guts-panel", (x) => x.hidden), true);
  }
  await shot(spectator, "moved-spectator");
  await closeAll(a, b, spectator);
});
