// A Minelayer's Mine in the browser app (N5 Minelayer and Mines, issue 36), in real headless
// Chromium against tests/browser/scenario_server.py, with the shipped vesper-raiders list: its
// Ghost Infiltrator (B-t2) is a Minelayer with Tripwire Mines. The game starts in B's reserve
// step (every other trooper placed); B picks the Ghost's spot by a click, then its Mine by a
// click within its Zone of Control (a click out of reach is not taken; a Mine planned can be
// removed), and deploys with it. A's app shows a Camouflage marker there, never a Mine; A's
// Lancer walks into the Mine's Trigger Area, the Mine goes off and both logs say so, its
// template drawn on the table until the Order resolves. In B's turn the Ghost places another
// Mine by Place Deployable from the order panel. Screenshots: test-artifacts/browser/minelayer-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile, shows } from "./harness.mjs";
import { clickAndAnswer, passAroWindowsUntil } from "./game_by_clicks.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

// B: every vesper-raiders trooper but the Ghost on its back line (north); A: its Lieutenant and
// a Lancer at x 16, clear of the central scenery, 11.5" south of where B's Mine goes.
const PLACEMENTS = { "A-t1": [2, 2, 90], "A-t7": [16, 18.5, 90] };
for (let i = 1; i <= 15; i += 1) if (i !== 2) PLACEMENTS[`B-t${i}`] = [3 + 3 * i, 45, 270];

test("a Minelayer lays its Mine by clicks; the enemy sees a marker; it goes off in the Trigger Area", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: PLACEMENTS,
    deployment_step: 4 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  // B's reserve step: the Ghost's spot, then its Mine within its Zone of Control.
  await b.click('[data-deploy="B-t2"]');
  await shows(b, "#minelayer", /Ghost Infiltrator may lay up to 1 Mine \(Tripwire Mines \(Shock\)\) as it deploys/);
  await clickTable(b, 16, 38);
  await b.waitForSelector("#table #mine-reach", WAIT);
  await clickTable(b, 16, 20); // 18" away: out of reach, not taken
  await shows(b, "#mine-note", /^Out of reach: a Mine goes within its Zone of Control \(8" from its base/);
  assert.equal(await b.$$eval("#table [data-planned-mine]", (xs) => xs.length), 0);
  await clickTable(b, 20, 31);
  await b.waitForSelector('#table [data-planned-mine="0"]', WAIT);
  await b.click('[data-remove-mine="0"]'); // removed, then placed elsewhere
  assert.equal(await b.$$eval("#table [data-planned-mine]", (xs) => xs.length), 0);
  await clickTable(b, 16, 30);
  await shows(b, '[data-planned-mine-row="0"]', /^Mine 1 at \(16\.0, 30\.0\)/);
  await shot(b, "minelayer-planned-seat-B");
  assert.equal((await clickAndAnswer(b, "#deploy-with-mines")).ok, true);
  await shows(b, "#log", /Ghost.* lays a Mine \(Tripwire Mines \(Shock\)\) at \(16(\.0)?, 30(\.0)?\) by Minelayer/);
  // The Mine reaches B's state with the snapshot the app asks for after a placement.
  await b.waitForFunction(() => window.referee.view.state.deployables?.length > 0, null, WAIT);
  const mine = await b.evaluate(() => window.referee.view.state.deployables[0]);
  assert.deepEqual(mine.position, [16, 30]);
  await b.waitForSelector(`#table [data-deployable="${mine.id}"]`, { state: "attached", ...WAIT });
  assert.equal((await clickAndAnswer(b, "#end-deployment")).ok, true);

  // A's app: a Camouflage marker where the Mine is, nothing that says Mine.
  await a.waitForSelector(`#table [data-marker="${mine.id}"]`, { state: "attached", ...WAIT });
  assert.equal(await a.$$eval("#table [data-deployable]", (xs) => xs.length), 0);
  const seen = await a.evaluate((id) => window.referee.view.trooper(id), mine.id);
  assert.equal(seen.marker, true);
  assert.equal(seen.profile ?? null, null);
  await shows(a, "#log", /deployed at \(16\.0, 30\.0\) as a Camouflage marker/);
  assert.doesNotMatch(await a.textContent("#log"), /Mine/);
  await shot(a, "minelayer-marker-seat-A");

  // A's Lancer walks 4" north, into the Trigger Area: the Mine goes off before B's ARO window.
  await a.click('[data-select="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 16, 22.5);
  await a.click('[data-skill="move"]');
  for (const page of [a, b]) {
    await shows(page, "#log", /A Mine \(Tripwire Mines \(Shock\)\) at \(16\.0, 30\.0\) goes off against Lancer.* at \(16\.0, 21\.\d\)/);
  }
  await a.waitForSelector(`#table [data-mine-template="${mine.id}"]`, { state: "attached", ...WAIT });
  // A waits for B's answer and sees who may react (models only): the panel names them once their event is in.
  await shows(a, "#aro-panel", /Eligible: .*Boss/);
  await shot(a, "minelayer-triggered-seat-A");
  await passAroWindowsUntil(a, b, () => document.getElementById("declare-idle") && !window.referee.view.state.order?.window_open, WAIT);
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);
  // The Mine has left the table: no marker for A, no Mine for B.
  await a.waitForFunction((id) => !window.referee.view.trooper(id) && !document.querySelector(`#table [data-marker="${id}"]`), mine.id, WAIT);
  await b.waitForFunction(() => (window.referee.view.state.deployables ?? []).length === 0, null, WAIT);
  await shot(a, "minelayer-result-seat-A");

  // B's turn: the Ghost places another Mine by Place Deployable (a Short Skill) from the order
  // panel; a click beside it puts the Mine in base contact with its base.
  await a.click("#end-turn");
  await a.click("#confirm-end-turn");
  await b.waitForSelector("#end-impetuous", WAIT); // its Razorbacks' Impetuous Orders: not taken
  assert.equal((await clickAndAnswer(b, "#end-impetuous")).ok, true);
  await b.waitForSelector('[data-select="B-t2"]', WAIT);
  await b.click('[data-select="B-t2"]');
  await b.click('[data-order="regular"]');
  await b.click('[data-place-mine="tripwire_mines"]');
  await b.waitForSelector("#table #mine-contact-band", { state: "attached", ...WAIT });
  await clickTable(b, 19, 38);
  await shows(b, "#declare-place-mine", /^Declare Place Deployable at \(17\.0, 38\.0\)$/);
  await b.waitForSelector("#table #place-mine-spot", { state: "attached", ...WAIT });
  await shot(b, "minelayer-place-seat-B");
  assert.equal((await clickAndAnswer(b, "#declare-place-mine")).ok, true);
  await passAroWindowsUntil(b, a, () => document.getElementById("declare-idle") && !window.referee.view.state.order?.window_open, WAIT);
  await b.click("#declare-idle");
  await passAroWindowsUntil(b, a, () => window.referee.view.state.order === null, WAIT);
  await shows(b, "#log", /Ghost places a Mine \(Tripwire Mines \(Shock\)\) at \(17\.0, 38\.0\)/);
  // The Mine reaches B's state with the snapshot the app asks for after a placement (the log
  // line comes from the events, before it).
  await b.waitForFunction(() => window.referee.view.state.deployables?.length > 0, null, WAIT);
  const placed = await b.evaluate(() => window.referee.view.state.deployables[0]);
  assert.ok(Math.abs(placed.position[0] - (16 + 25 / 25.4)) < 1e-6 && placed.position[1] === 38, `in base contact: ${placed.position}`);
  await a.waitForSelector(`#table [data-marker="${placed.id}"]`, { state: "attached", ...WAIT });
  assert.equal(await a.$$eval("#table [data-deployable]", (xs) => xs.length), 0);
  await closeAll(a, b);
});
