// A Coordinated Order played to its end in the browser app (N5, DIGEST 3.4), in real headless
// Chromium against tests/browser/scenario_server.py: A spends a Command Token on three
// Lancers, draws each one's route (named and measured, drawn on the table), moves them, then
// declares a BS Attack on the Spearhead's target: the Spearhead with half its Burst, the
// Lancer that sees the target with B1, the one that turned its back declaring it and
// performing Idle (said under the form); B passes its AROs; the Order resolves. Screenshots:
// test-artifacts/browser/coordinated-*.png, from both seats.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile, shows } from "./harness.mjs";
import { passAroWindowsUntil } from "./game_by_clicks.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const options = (page) => page.evaluate(() => window.referee.currentOptions());

// Three Lancers of Combat Group 1 (A-t9 faces away from the Enforcer and stays put), A's
// Lieutenant at home; B's Enforcer 14" in front of them, another of B's troopers far off.
const PLACEMENTS = { "A-t1": [2, 2, 90], "A-t7": [20, 10, 90], "A-t8": [17, 10, 90], "A-t9": [26, 10, 270],
  "B-t3": [23, 26, 270], "B-t1": [46, 46, 270] };

test("a Coordinated Order: routes named and drawn per trooper, a BS Attack on one target, resolved", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  await a.click('[data-select="A-t7"]');
  await a.waitForSelector('[data-coordinate="A-t8"]', WAIT);
  await a.click('[data-coordinate="A-t8"]');
  await a.click('[data-coordinate="A-t9"]');
  await a.click("#coordinate-order");
  await a.waitForFunction(() => JSON.stringify(window.referee.view.state.order?.peripherals) === '["A-t8","A-t9"]', null, WAIT);
  await shows(a, "#order-panel", /Coordinated Order \d+: Spearhead Lancer.\d? with Lancer.\d? and Lancer.\d?: declare skill 1/);

  // Skill 1, a Move: each trooper's route, named as the table names it and measured.
  await a.waitForSelector('[data-route-for="A-t8"]', WAIT);
  assert.equal(await a.$eval('[data-skill="move"]', (x) => x.disabled), true);
  assert.match(await a.textContent("#route-why"), /Draw a route first/, "a disabled button says why");
  await clickTable(a, 20, 12);
  await a.click('[data-route-for="A-t8"]');
  await a.waitForSelector('[data-route-for="A-t8"].chosen', WAIT);
  await clickTable(a, 17, 13);
  await a.waitForFunction(() => /^Lancer.\d?: Route 3\.00" of MOV 4"/.test(document.getElementById("route-length-A-t8").textContent), null, WAIT);
  assert.match(await a.textContent("#route-length-A-t9"), /^Lancer.\d?: Route 0\.00" of MOV 4" \(0 points: stays put\)/);
  for (const id of ["A-t8", "A-t9"]) assert.doesNotMatch(await a.textContent(`#route-length-${id}`), /A-t\d/, "no internal id");
  for (const id of ["A-t7", "A-t8"]) await a.waitForSelector(`[data-route="${id}"]`, { state: "attached", ...WAIT });
  await shot(a, "coordinated-routes-seat-A");
  await a.click('[data-skill="move"]');
  for (const page of [a, b]) {
    await page.waitForFunction(() => window.referee.view.state.order?.path?.length === 2
      && window.referee.view.state.order.peripheral_paths?.["A-t8"]?.length === 2, null, WAIT);
  }
  await shot(b, "coordinated-moved-seat-B");
  await passAroWindowsUntil(a, b, () => document.getElementById("coordinated-attack"), WAIT);

  // Skill 2, a BS Attack on the Enforcer: the form names what each trooper does.
  await a.waitForSelector("#coordinated-attack", WAIT);
  const skills = (await options(a)).skills;
  assert.equal(skills.coordinated, true);
  assert.deepEqual(skills.peripherals["A-t8"].cc_attack, {}, "no CC target 13\" away");
  await a.selectOption("#coordinated-target", "B-t3");
  assert.equal(await a.$eval("#declare-bs", (x) => x.disabled), false);
  await shows(a, '[data-participant="A-t8"]', /shoots Enforcer with Line Rifle \(B1\)/);
  await shows(a, '[data-participant="A-t9"]', /no Line of Fire to Enforcer: declares the attack, performs Idle/);
  await shot(a, "coordinated-bs-attack-seat-A");
  await a.click("#declare-bs");
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);

  // Resolved: the Spearhead rolls B2 and A-t8 B1 at the Enforcer; A-t9 is Idle (no Line of Fire).
  const resolved = (await a.evaluate(() => window.referee.loadHistory())).map((x) => x.event).filter((e) => e.type === "order_resolved").pop();
  const shots = resolved.outcome.rolls.filter((r) => r.skill === "bs_attack" && r.trooper.startsWith("A-"));
  assert.deepEqual(shots.map((r) => [r.trooper, r.burst, r.target]), [["A-t7", 2, "B-t3"], ["A-t8", 1, "B-t3"]]);
  assert.deepEqual(resolved.outcome.effects.filter((x) => x.type === "became_idle").map((x) => [x.trooper, x.reason]), [["A-t9", "no_line_of_fire"]]);
  for (const page of [a, b]) {
    await page.waitForFunction(() => window.referee.view.state.order === null, null, WAIT);
    await shows(page, "#results", /Line Rifle/);
  }
  await shot(a, "coordinated-resolved-seat-A");
  await shot(b, "coordinated-resolved-seat-B");
  await closeAll(a, b);
});

// A Spearhead and a second Lancer in base contact with the Enforcer, a third 8" off.
const CONTACT = 2 * 0.4921259842519685; // two 25 mm bases touching
const MELEE = { "A-t1": [1, 1, 270], "A-t7": [20, 20 - CONTACT, 90], "A-t8": [20 - CONTACT, 20, 0], "A-t9": [26, 14, 90],
  "B-t3": [20, 20, 270], "B-t1": [46, 46, 90] };

test("a Coordinated CC Attack: offered only in base contact, the Spearhead rolls with +1 B for the ally touching the target", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: MELEE });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await a.click('[data-select="A-t7"]');
  await a.waitForSelector('[data-coordinate="A-t8"]', WAIT);
  await a.click('[data-coordinate="A-t8"]');
  await a.click('[data-coordinate="A-t9"]');
  await a.click("#coordinate-order");
  await a.waitForSelector('[data-cc="B-t3"]', WAIT);
  const skills = (await options(a)).skills;
  assert.deepEqual(skills.peripherals["A-t8"].cc_attack, { combat_knife: ["B-t3"] });
  assert.deepEqual(skills.peripherals["A-t9"].cc_attack, {}, "8\" away: no CC target offered");
  assert.equal(await a.$eval('[data-cc="B-t3"]', (x) => x.disabled), false);
  const notes = await a.textContent('[data-coordinated-cc="B-t3"]');
  assert.match(notes, /Lancer.\d?: in base contact with Enforcer: \+1 B to the Spearhead's attack/);
  assert.match(notes, /Lancer.\d?: not in base contact with Enforcer: adds nothing/);
  await shot(a, "coordinated-cc-seat-A");
  await a.click('[data-cc="B-t3"]');
  // (the first skill's panel had an Idle button too: wait for the second skill's)
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order?.skills?.length === 1
    && !window.referee.view.state.order.window_open && document.getElementById("declare-idle"), WAIT);
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);
  const resolved = (await a.evaluate(() => window.referee.loadHistory())).map((x) => x.event).filter((e) => e.type === "order_resolved").pop();
  const attacks = resolved.outcome.rolls.filter((r) => r.skill === "cc_attack");
  assert.deepEqual(attacks.map((r) => [r.trooper, r.burst]), [["A-t7", 2]], "Combat Knife B1 halved (1) + 1 for the Lancer touching the Enforcer");
  await shot(b, "coordinated-cc-resolved-seat-B");
  await closeAll(a, b);
});
