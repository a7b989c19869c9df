// A Fireteam played in the browser app (N5, DIGEST 3.5), in real headless Chromium against
// tests/browser/scenario_server.py: A forms a Fireteam: Core of three Lancers from the
// Fireteam panel (one Command Token between Orders), sees its Level and Bonuses, activates the
// team on one Regular Order, draws only the leader's route (the members follow it, keeping
// their places: coherency kept), moves, then Idles; B (the opponent) and a spectator see the
// team marked on the table and in the roster. Screenshots: test-artifacts/browser/fireteam-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile, shows } from "./harness.mjs";
import { passAroWindowsUntil } from "./game_by_clicks.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

// Three Lancers of Combat Group 1 side by side 2" apart (inside each other's Zone of Control),
// A's Lieutenant at home; B's troopers far off.
const PLACEMENTS = { "A-t1": [2, 2, 90], "A-t7": [20, 10, 90], "A-t8": [22, 10, 90], "A-t9": [18, 10, 90],
  "B-t3": [40, 44, 270], "B-t1": [46, 46, 270] };
const ABLE = { "A-t7": ["core", "duo"], "A-t8": ["core", "duo"], "A-t9": ["core", "duo"] };

test("a Fireteam formed from the panel, activated on one Order, the members following the leader's move", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: PLACEMENTS, fireteam_able: ABLE });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const watcher = await open(room.spectator_link);

  // Form: a Core led by A-t7 with the two others; the button says why until the choice is whole.
  await a.waitForSelector("#ft-form", WAIT);
  await a.selectOption("#ft-kind", "core");
  await a.selectOption("#ft-leader", "A-t7");
  assert.equal(await a.$eval("#ft-send", (x) => x.disabled), true);
  assert.match(await a.textContent("#ft-why"), /A Fireteam: Core has 2 to 5 members \(leader included\); 1 chosen/);
  await a.click('[data-ft-member="A-t8"]');
  await a.click('[data-ft-member="A-t9"]');
  assert.match(await a.textContent("#ft-send"), /Form Fireteam \(1 Command Token\)/);
  await shot(a, "fireteam-form-seat-A");
  await a.click("#ft-send");
  await shows(a, '[data-team="A-t7"]', /Fireteam: Core, Level 3: Lancer.*\(Lancer.*leads\)Bonuses: one Order for the whole team; BS Attack \+1 SD; Discover \+3; Dodge \+1\./);
  for (const page of [a, b, watcher]) {
    for (const member of ["A-t8", "A-t9"]) await page.waitForSelector(`[data-fireteam-link="${member}"]`, { state: "attached", ...WAIT });
    await page.waitForSelector('[data-fireteam="A-t7"]', { state: "attached", ...WAIT }); // the roster's FT chip
    await page.waitForSelector('[data-fireteam-ring="A-t7"]', { state: "attached", ...WAIT });
  }
  assert.equal(await b.$("#ft-form"), null, "the opponent has no Fireteam panel of A's");
  await shot(a, "fireteam-formed-seat-A");

  // Activate: one Regular Order, the leader's route only; the members follow it.
  const poolBefore = await a.evaluate(() => window.referee.view.state.orders.pools["1"]);
  await a.click('[data-activate-team="A-t7"]');
  await a.waitForFunction(() => JSON.stringify(window.referee.view.state.order?.peripherals) === '["A-t8","A-t9"]', null, WAIT);
  assert.equal(await a.evaluate(() => window.referee.view.state.orders.pools["1"]), poolBefore - 1, "one Order for the whole team");
  await a.waitForSelector("#ft-route-hint", WAIT);
  await clickTable(a, 20, 13);
  await a.waitForFunction(() => /^Lancer.\d?: Route 3\.00" of MOV 4"/.test(document.getElementById("route-length-A-t8")?.textContent ?? ""), null, WAIT);
  assert.match(await a.textContent("#route-length-A-t9"), /Route 3\.00"/, "the default route: the leader's, kept in place");
  assert.match(await a.textContent("#order-title"), /^Fireteam Order \d+: Lancer.\d? leads Lancer.\d? and Lancer.\d?: declare skill 1/);
  assert.doesNotMatch(await a.textContent("#order-panel"), /Peripherals/, "no Peripherals' choices: the members follow or Idle");
  // The player adjusts one member: its own route, 2" only; the other still follows.
  await a.click('[data-route-for="A-t9"]');
  await clickTable(a, 18, 12);
  await a.waitForFunction(() => /Route 2\.00"/.test(document.getElementById("route-length-A-t9")?.textContent ?? ""), null, WAIT);
  assert.match(await a.textContent("#route-length-A-t8"), /Route 3\.00"/);
  for (const id of ["A-t7", "A-t8", "A-t9"]) await a.waitForSelector(`[data-route="${id}"]`, { state: "attached", ...WAIT });
  await shot(a, "fireteam-routes-seat-A");
  await a.click('[data-skill="move"]');
  for (const page of [a, b]) {
    await page.waitForFunction(() => window.referee.view.state.order?.peripheral_paths?.["A-t8"]?.length === 2, null, WAIT);
  }
  await passAroWindowsUntil(a, b, () => document.getElementById("declare-idle") && window.referee.view.state.order?.skills?.length === 1
    && !window.referee.view.state.order.window_open, WAIT);
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => window.referee.view.state.order === null, WAIT);

  // Moved together (the leader and A-t8 3" north, A-t9 its own 2"), still one team (coherency kept: no fireteam_left).
  for (const page of [a, b, watcher]) {
    await page.waitForFunction(() => Object.entries({ "A-t7": 13, "A-t8": 13, "A-t9": 12 }).every(([id, y]) => Math.abs(window.referee.view.trooper(id).position[1] - y) < 0.01)
      && window.referee.view.state.fireteams?.[0]?.members?.length === 3, null, WAIT);
  }
  const left = (await a.evaluate(() => window.referee.loadHistory())).map((x) => x.event).filter((e) => e.type === "fireteam_left");
  assert.deepEqual(left, []);
  await shot(a, "fireteam-moved-seat-A");
  await shot(b, "fireteam-moved-seat-B");
  await shot(watcher, "fireteam-moved-spectator");
  await closeAll(a, b, watcher);
});
