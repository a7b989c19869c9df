// A shipped N5 list's Fireteam in the browser app (orrery-veil, with its own Fireteams Chart: a
// Choir Acolytes team that needs a Choir Acolyte and takes one Doctor, the Breacher a wildcard),
// in real headless Chromium against tests/browser/scenario_server.py. A forms the Core from the
// panel (which says why the Bastion standing with them may not join, and that the Doctor and
// the Breacher alone are no team of the chart), activates it on one Regular Order;
// A, B (the opponent) and a spectator see the team's Level and Bonuses (the panel, the
// leader's label on the table, the roster) and the log line naming the Fireteam's Order.
// And petrel-skyborne's: a Core with its Paramedic and a Duo of two units, each on one Order.
// Screenshots: test-artifacts/browser/fireteam-shipped-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile, shows } from "./harness.mjs";
import { passAroWindowsUntil } from "./game_by_clicks.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

// A: orrery-veil's Lieutenant at home; Combat Group 2's Acolytes (t12, t13), their Doctor (t14),
// the Breacher (t15) 2" apart, and Combat Group 1's Bastion (t7, no Fireteam) beside them. B's troopers far off.
const PLACEMENTS = { "A-t1": [2, 2, 90], "A-t7": [26, 10, 90], "A-t12": [18, 10, 90], "A-t13": [20, 10, 90],
  "A-t14": [22, 10, 90], "A-t15": [24, 10, 90], "B-t3": [40, 44, 270], "B-t1": [46, 46, 270] };

test("a shipped list's Fireteam: formed, its Level and Bonuses seen by all, activated on one Order, named in the log", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 5, placements: PLACEMENTS,
    armies: { A: "orrery-veil" } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const watcher = await open(room.spectator_link);

  // The Doctor and the wildcard Breacher alone are no team of the army's chart (it needs a Choir Acolyte).
  await a.waitForSelector("#ft-form", WAIT);
  await a.selectOption("#ft-kind", "core");
  await a.selectOption("#ft-leader", "A-t14");
  await a.click('[data-ft-member="A-t15"]');
  assert.equal(await a.$eval("#ft-send", (x) => x.disabled), true);
  assert.match(await a.textContent("#ft-why"), /^Your army's Fireteams Chart has no such Fireteam: Core: Choir Acolytes \(Choir Acolyte 1-5\*, Choir Acolyte \(Doctor\) 0-1, wildcards\)\.$/);
  // Form a Core led by an Acolyte; the Bastion is not offered, and the panel says why (the chart's rule).
  await a.selectOption("#ft-leader", "A-t12");
  assert.match(await a.textContent('[data-ft-unable="A-t7"]'), /^Orrery Bastion \(A-t7\) is in no Fireteam: Core of your army's Fireteams Chart\.$/);
  for (const member of ["A-t13", "A-t14", "A-t15"]) await a.click(`[data-ft-member="${member}"]`);
  await shot(a, "fireteam-shipped-form-seat-A");
  await a.click("#ft-send");
  await shows(a, '[data-team="A-t12"]', /Fireteam: Core, Level 3: .*Bonuses: one Order for the whole team; BS Attack \+1 SD; Discover \+3; Dodge \+1\./);

  // Every viewer: the leader's label on the table and the roster's chips give the Level.
  for (const page of [a, b, watcher]) {
    await shows(page, '[data-fireteam-label="A-t12"]', /Core L3/);
    await shows(page, '[data-roster-trooper="A-t12"] [data-fireteam]', /^FT leader L3$/);
    await shows(page, '[data-fireteam-bonuses="A-t12"]', /^Fireteam: Core, Level 3: one Order for the whole team · BS Attack \+1 SD · Discover \+3 · Dodge \+1$/);
    assert.match(await page.getAttribute('[data-roster-trooper="A-t13"] [data-fireteam]', "title"),
      /^Fireteam: Core, Level 3: 4 members\. Bonuses: .*Dodge \+1$/);
  }

  // One Regular Order for the team: the leader declares Idle twice, the members follow it.
  const poolBefore = await a.evaluate(() => window.referee.view.state.orders.pools["2"]);
  await a.click('[data-activate-team="A-t12"]');
  await a.waitForFunction(() => window.referee.view.state.order?.peripherals?.length === 3, null, WAIT);
  assert.equal(await a.evaluate(() => window.referee.view.state.orders.pools["2"]), poolBefore - 1, "one Order for the whole team");
  for (const page of [a, b, watcher]) {
    await shows(page, "#log", /Fireteam \(Core, Level 3\) activated on a Regular Order from Combat Group 2: leader Acolyte.* with Acolyte.*Acolyte.*Breacher/);
  }
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => document.getElementById("declare-idle") && window.referee.view.state.order?.skills?.length === 1
    && !window.referee.view.state.order.window_open, WAIT);
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);
  await shot(a, "fireteam-shipped-seat-A");
  await shot(b, "fireteam-shipped-seat-B");
  await shot(watcher, "fireteam-shipped-spectator");
  await closeAll(a, b, watcher);
});

// A: petrel-skyborne's Lieutenant at home; Combat Group 1's Deckhands (t7, t8) and their
// Paramedic (t9, counted as a Deckhand) 2" apart: a Core of Level 3; Combat Group 2's Door
// Gunner (t14) and Marksman (t15), who may only pair up: a Duo of two units, Level 1. B's
// troopers far off.
const PETREL = { "A-t1": [2, 2, 90], "A-t7": [18, 10, 90], "A-t8": [20, 10, 90], "A-t9": [22, 10, 90],
  "A-t14": [18, 16, 90], "A-t15": [20, 16, 90], "B-t3": [40, 44, 270], "B-t1": [46, 46, 270] };

test("the other shipped N5 list's Fireteams: a Core with its Paramedic and a Duo of the Gunner and the Marksman, each activated on one Order", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 5, placements: PETREL,
    armies: { A: "petrel-skyborne" } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  await a.waitForSelector("#ft-form", WAIT);
  await a.selectOption("#ft-kind", "core");
  await a.selectOption("#ft-leader", "A-t7");
  for (const member of ["A-t8", "A-t9"]) await a.click(`[data-ft-member="${member}"]`);
  await a.click("#ft-send");
  await shows(a, '[data-team="A-t7"]', /Fireteam: Core, Level 3: .*Bonuses: one Order for the whole team; BS Attack \+1 SD; Discover \+3; Dodge \+1\./);
  await a.selectOption("#ft-kind", "duo");
  await a.selectOption("#ft-leader", "A-t14");
  await a.click('[data-ft-member="A-t15"]');
  await a.click("#ft-send");
  await shows(a, '[data-team="A-t14"]', /Fireteam: Duo, Level 1: .*Bonuses: one Order for the whole team\./);
  await shows(b, '[data-fireteam-label="A-t7"]', /Core L3/);
  await shows(b, '[data-fireteam-label="A-t14"]', /Duo L1/);

  for (const [leader, group, members] of [["A-t7", "1", 2], ["A-t14", "2", 1]]) {
    const poolBefore = await a.evaluate((g) => window.referee.view.state.orders.pools[g], group);
    await a.click(`[data-activate-team="${leader}"]`);
    await a.waitForFunction((n) => window.referee.view.state.order?.peripherals?.length === n, members, WAIT);
    assert.equal(await a.evaluate((g) => window.referee.view.state.orders.pools[g], group), poolBefore - 1, "one Order for the whole team");
    await a.click("#declare-idle");
    await passAroWindowsUntil(a, b, () => document.getElementById("declare-idle") && window.referee.view.state.order?.skills?.length === 1
      && !window.referee.view.state.order.window_open, WAIT);
    await a.click("#declare-idle");
    await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);
  }
  await shows(b, "#log", /Fireteam \(Duo, Level 1\) activated on a Regular Order from Combat Group 2: leader .*Gunner.* with .*Marksman/);
  await shot(a, "fireteam-shipped-petrel-seat-A");
  await closeAll(a, b);
});
