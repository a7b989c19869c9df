// Suppressive Fire in the browser app (N5; DIGEST 3.3, 8, 9), in real headless Chromium
// against tests/browser/scenario_server.py: the second player selects a trooper and puts it
// into Suppressive Fire with a Command Token (its Strategic use); every viewer sees the
// SUP.FIRE state in the roster and on the table and the log line; the Enforcer's ARO panel
// offers its SF Mode shot with Burst 3; the Lancer's roll lists the -3 of the enemy's
// Suppressive Fire; the order panel offers the Entire Order to a trooper with a Suppressive
// Fire weapon; in deployment, the first player's Strategic hold-back of one more trooper.
// Screenshots: test-artifacts/browser/suppressive-fire-*.png, hold-back-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile, shows } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};

// A's Lancer and B's Enforcer face each other 18" apart on a clear line (x 30).
const PLACEMENTS = { "A-t7": [30, 12, 90], "A-t1": [2, 2, 90], "B-t3": [30, 30, 270], "B-t1": [46, 46, 270] };

test("the Strategic use puts the Enforcer into Suppressive Fire; its ARO is the SF Mode's B3; the Lancer takes -3", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // B (second player, A's first turn): the panel asks for a trooper, then offers its button.
  await b.waitForSelector("#command-token-panel:not([hidden])", WAIT);
  assert.match(await b.$eval("#command-token-panel", (x) => x.textContent), /select one of your troopers to put it into Suppressive Fire/);
  assert.deepEqual((await options(b)).command_tokens.filter((x) => x.use === "suppressive_fire").map((x) => x.trooper).sort(), ["B-t1", "B-t3"]);
  await b.click('[data-roster-trooper="B-t3"]');
  await b.waitForSelector('[data-command-token="suppressive_fire:B-t3"]', WAIT);
  await shot(b, "suppressive-fire-strategic-panel");
  await b.click('[data-command-token="suppressive_fire:B-t3"]');
  for (const page of [a, b, spectator]) {
    await shows(page, "#log", /Player B spends a Command Token \(Strategic\): Enforcer( \d)? enters Suppressive Fire; 3 left/);
    await page.waitForSelector("#roster .rt-state-suppressive_fire", WAIT);
  }
  await shot(spectator, "suppressive-fire-state-spectator");

  // A: the Lancer shoots the Enforcer with its full Burst.
  await a.click('[data-roster-trooper="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#declare-bs:not([disabled])", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  await a.fill('[data-burst="B-t3"]', "3");
  await a.dispatchEvent('[data-burst="B-t3"]', "change");
  await a.click("#declare-bs");

  // B: the Punch Carbine's ARO is offered in SF Mode, Burst 3; declared as offered.
  await b.waitForSelector('[data-aro="B-t3"] [data-aro-choice] option[data-kind="shoot"]', { state: "attached", ...WAIT });
  assert.deepEqual((await options(b)).aros["B-t3"].bs_burst, { punch_carbine: 3, sidearm: 1 });
  const shots = await b.$$eval('[data-aro-choice="B-t3"] option[data-kind="shoot"]', (xs) => xs.map((x) => ({ text: x.textContent, value: JSON.parse(x.value) })));
  const sf = shots.find((x) => x.value.weapon === "punch_carbine");
  assert.ok(sf && /Suppressive Fire Mode, B3/.test(sf.text), JSON.stringify(shots));
  assert.deepEqual(sf.value.targets, [{ trooper: "A-t7", burst: 3 }]);
  await b.selectOption('[data-aro-choice="B-t3"]', JSON.stringify(sf.value));
  await shot(b, "suppressive-fire-aro");
  await b.click('[data-aro="B-t3"] [data-action="declare"]');

  // A ends the Order with Idle; the Lancer's roll lists the enemy's Suppressive Fire -3.
  await a.waitForSelector("#declare-idle", WAIT);
  await a.click("#declare-idle");
  for (const page of [a, b, spectator]) await shows(page, "body", /enemy Suppressive Fire/);
  await shot(a, "suppressive-fire-result");
  await closeAll(a, b, spectator);
});

test("the order panel offers the Suppressive Fire Entire Order; the State shows on the table", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await a.click('[data-roster-trooper="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#declare-suppressive-fire", WAIT);
  await a.click("#declare-suppressive-fire");
  for (const page of [a, b]) {
    await shows(page, "#log", /Suppressive Fire \(enters the Suppressive Fire State\)/);
    await page.waitForSelector("#roster .rt-state-suppressive_fire", WAIT);
  }
  await b.waitForFunction(() => window.referee.view.state.troopers.find((t) => t.id === "A-t7")?.suppressive_fire === true, null, WAIT);
  await shot(b, "suppressive-fire-table");
  await closeAll(a, b);
});

test("deployment: the first player holds back one more trooper with a Command Token; two wait for its reserve step", async () => {
  const room = await scenario.post("/api/rooms", { ruleset: "n5", aro_window_s: 30, seed: 7 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await Promise.all([a.click('[data-army="helion-vanguard"]'), b.click('[data-army="vesper-raiders"]')]);
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.initiative?.winner, null, WAIT);
  const winner = await a.evaluate(() => window.referee.view.state.initiative.winner);
  const [w, l] = winner === "A" ? [a, b] : [b, a];
  // The winner plays first; the loser lets it deploy first too.
  await w.click("#keep-initiative");
  await w.click('#initiative-panel [data-choose-first="true"]');
  await w.click("#confirm-initiative");
  await l.click('#initiative-panel [data-choose-zone="north"]');
  await l.click('#initiative-panel [data-choose-first="false"]');
  await l.click("#confirm-initiative");
  await w.waitForFunction(() => window.referee.view.state.phase === "deployment", null, WAIT);

  await w.waitForSelector('[data-command-token="hold_back"]', WAIT);
  assert.match(await w.$eval("#command-token-panel", (x) => x.textContent), /Strategic use \(your deployment\)/);
  assert.equal(await l.$eval("#command-token-panel", (x) => x.hidden), true, "not for the second player");
  await shot(w, "hold-back-panel");
  await w.click('[data-command-token="hold_back"]');
  for (const page of [w, l]) {
    await shows(page, "#log", /spends a Command Token \(Strategic\): one more trooper is held back to deploy with the reserve; 3 left/);
  }
  await w.waitForSelector("#command-token-panel", { state: "hidden", ...WAIT });
  // Deploy what is offered (sent as the deployment panel would), until two main troopers wait.
  for (let guard = 0; guard < 40; guard += 1) {
    const opts = await options(w);
    if (!opts.deploy.length) break;
    const s = await w.evaluate(() => window.referee.view.state);
    const role = await w.evaluate(() => window.referee.role);
    const zone = s.deployment_zones[s.initiative.zones[role]];
    const n = guard;
    const position = [zone.x0 + 2 + (n % 8) * 2.8, zone.y0 + 2 + Math.floor(n / 8) * 3];
    await w.evaluate(([trooper, position]) => window.referee.send({ type: "deploy", trooper, position, facing: 90 }), [opts.deploy[0], position]);
  }
  const opts = await options(w);
  assert.equal(opts.reserves.length, 2);
  assert.equal(opts.end_deployment_step, true);
  await w.waitForSelector("#reserve-note", WAIT);
  assert.match(await w.$eval("#reserve-note", (x) => x.textContent), /^In reserve: .+, .+\. They deploy in step 3/);
  assert.match(await w.$eval("#deployment-steps", (x) => x.textContent), /You: all troopers but two \(one held back\).*You: the two troopers kept in reserve/);
  await shot(w, "hold-back-two-reserves");
  await closeAll(a, b);
});
