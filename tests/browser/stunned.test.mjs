// Browser test of the Stunned State in real headless Chromium (as table.test.mjs): the
// Warden's Stunner (Stun) on an Enforcer makes it Stunned; a STUN token shows by its base and
// in the roster for both seats and the spectator; the log says so; ending the turn runs the
// States Phase, which cancels it, and the token goes. The dice are injected; every wait is on
// a DOM or view condition. Screenshots: test-artifacts/browser/stunned-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);

const shot = (page, name) => page.screenshot({ path: join(artifacts, `stunned-${name}.png`) });
const label = (page, id) => page.$eval(`#table [data-label-for="${id}"]`, (x) => x.textContent);
const rosterRow = (page, id) => page.$eval(`#roster [data-roster-trooper="${id}"]`, (x) => x.textContent);

// N5: A's Warden (A-t1) faces B's Enforcer B-t3, which is turned away (no ARO); B's Boss far
// off, turned away too.
const PLACEMENTS = { "A-t1": [20, 20, 90], "B-t3": [20, 30, 90], "B-t1": [40, 44, 90] };

test("a Stunner hit shows a STUN token on the table and in the roster, and the States Phase removes it", async () => {
  // Stunner Burst 2: 1 and 2 hit; the two BTS saves (BTS 0 + PS 6) roll 20 and fail.
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: [1, 2, 20, 20], placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  await a.click('#roster [data-roster-trooper="A-t1"]');
  await a.waitForSelector('#table [data-selected-ring="A-t1"]', { state: "attached", ...WAIT });
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#declare-bs", WAIT);
  await a.selectOption("#weapon", "stunner");
  // The whole Burst on the Enforcer (the form puts it on its first target by default).
  for (const target of await a.$$eval("[data-burst]", (xs) => xs.map((x) => x.dataset.burst))) {
    await a.fill(`[data-burst="${target}"]`, target === "B-t3" ? "2" : "0");
    await a.dispatchEvent(`[data-burst="${target}"]`, "change");
  }
  await a.click("#declare-bs");
  await a.waitForFunction(() => window.referee.currentOptions()?.skills?.index === 2 && document.getElementById("declare-idle"), null, WAIT);
  await a.click("#declare-idle");

  for (const page of [a, b, spectator]) {
    await page.waitForFunction(() => window.referee.view.state.troopers.find((t) => t.id === "B-t3")?.stunned_in, null, WAIT);
    assert.match(await label(page, "B-t3"), /STUN/);
    assert.match(await rosterRow(page, "B-t3"), /Stunned/);
    const log = await page.$eval("body", (x) => x.textContent);
    assert.match(log, /is Stunned until the States Phase \(Stunner \(Stun\)\)/);
    assert.equal((await page.evaluate(() => window.referee.view.state.troopers.find((t) => t.id === "B-t3"))).condition, "normal", "Stun deals no wound");
  }
  await shot(a, "token-A");
  await shot(spectator, "token-spectator");

  await a.click("#end-turn");
  const confirm = await a.$("#confirm-end-turn");
  if (confirm) await confirm.click();
  for (const page of [a, b, spectator]) {
    await page.waitForFunction(() => window.referee.view.state.active === "B" && !window.referee.view.state.troopers.find((t) => t.id === "B-t3")?.stunned_in, null, WAIT);
    assert.doesNotMatch(await label(page, "B-t3"), /STUN/);
    const log = await page.$eval("body", (x) => x.textContent);
    assert.match(log, /States Phase: .* is no longer Stunned \(cancelled automatically, no roll\)/);
  }
  await shot(b, "cancelled-B");
  await closeAll(a, b, spectator);
});
