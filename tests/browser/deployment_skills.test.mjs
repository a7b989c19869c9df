// Infiltration and Forward Deployment in real headless Chromium (issue 36): both seats bring a
// list file; A's has an Infiltrator and a Forward Deployment (+4") trooper. The roster names
// both skills; in A's deployment step a click 3" beyond its zone deploys the Forward Deployment
// trooper (no roll), and a click in the enemy half deploys the Infiltrator on its PH-3 Roll
// (passed: there; failed: at the fallback the server offered in A's zone), which both players
// read in the log. The rest deploys on a grid (game_by_clicks.mjs). Fixed dice (a seed).
// Screenshots: test-artifacts/browser/deployment-skills-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { artifacts, clickTable, closeAll, scenarioForFile } from "./harness.mjs";
import { WAIT, clickAndAnswer, initiativeByClicks, nextAnswer, openSeat, options, role, settle, state } from "./game_by_clicks.mjs";

const scenario = scenarioForFile();
const shot = (page, name) => page.screenshot({ path: join(artifacts, `deployment-skills-${name}.png`) });

const unit = (id, name, extra = {}) => ({ id, name, troop_type: "li", training: "regular", mov: [4, 4], cc: 13, bs: 11, ph: 10, wip: 13,
  arm: 1, bts: 0, vita: 1, structure: false, silhouette: 2, weapons: ["line_rifle", "sidearm", "combat_knife"], cost: 12, swc: 0, ...extra });
const list = (id, extraUnits) => ({
  id, name: id, faction: "Cinder Compact", format: "standard", points: 150,
  units: [unit("ember", "Ember Regular"), { ...unit("warden", "Ember Warden"), wip: 14, cost: 24 }, ...extraUnits],
  entries: [
    { id: "t1", unit: "warden", combat_group: 1, lieutenant: true },
    { id: "t2", unit: extraUnits.length ? "infiltrator" : "ember", combat_group: 1 },
    { id: "t3", unit: extraUnits.length ? "forward" : "ember", combat_group: 1 },
    { id: "t4", unit: "ember", combat_group: 1 },
  ],
});
const LIST_A = list("ember-infiltrators", [unit("infiltrator", "Ember Infiltrator", { infiltration: true }),
  unit("forward", "Ember Vanguard", { forward_deployment: 4 })]);
const LIST_B = list("ember-patrol", []);

async function bring(page, file) {
  await page.waitForSelector("#army-bring:not([hidden]) #army-file", WAIT);
  const answer = nextAnswer(page);
  await page.setInputFiles("#army-file", { name: `${file.id}.json`, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
  assert.equal((await answer).ok, true, `${file.id} is accepted`);
}

test("Forward Deployment deploys beyond the zone and Infiltration into the enemy half on its PH-3 Roll, by clicks", async () => {
  const created = await fetch(`${scenario.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "n5", aro_window_s: 8, seed: 9 }) });
  assert.equal(created.status, 201);
  const room = await created.json();
  const a = await openSeat(scenario, room.seats.A.link, 31);
  const b = await openSeat(scenario, room.seats.B.link, 32);
  await bring(a, LIST_A);
  await bring(b, LIST_B);

  // Initiative: the winner keeps Deployment (south, deploys second).
  await initiativeByClicks(a, b);
  assert.match(await a.textContent("body"), /Infiltration/);
  assert.match(await a.textContent("body"), /Forward Deployment \(\+4"\)/);

  const used = { A: 0, B: 0 };
  const placed = {};
  for (let guard = 0; guard < 60; guard += 1) {
    await settle(a, b);
    if ((await state(a)).phase !== "deployment") break;
    const page = ((await options(a)).deploy.length || (await options(a)).end_deployment_step) ? a : b;
    const opts = await options(page);
    if (opts.end_deployment_step && opts.deploy.length === 0) {
      assert.equal((await clickAndAnswer(page, "#end-deployment")).ok, true);
      continue;
    }
    const s = await state(page);
    const side = await role(page);
    const zone = s.deployment_zones[s.initiative.zones[side]];
    const north = zone.y0 > 0;
    const beyond = Object.entries(opts.deploy_beyond_zone ?? {}).find(([id]) => !placed[id] && opts.deploy.includes(id));
    if (beyond) {
      const [trooper, how] = beyond;
      // Forward Deployment: 3" beyond the zone; Infiltration: 6" past the middle line.
      const y = how.infiltration ? (north ? s.table.depth / 2 - 6 : s.table.depth / 2 + 6) : (north ? zone.y0 - 3 : zone.y1 + 3);
      let got = null, x = 0;
      for (x of [2, 46, 5, 43, 17, 31]) { // the first spot clear of scenery
        await page.click(`[data-deploy="${trooper}"]`);
        const answer = nextAnswer(page);
        await clickTable(page, x, y);
        got = await answer;
        if (got.ok || got.code !== "bad_position") break;
      }
      assert.equal(got.ok, true, `${trooper} deploys beyond its zone: ${got.message}`);
      placed[trooper] = { x, y, how };
      continue;
    }
    const trooper = opts.deploy[0];
    await page.click(`[data-deploy="${trooper}"]`);
    const n = used[side]++;
    const x = zone.x0 + 8 + (n % 12) * 3, y = north ? zone.y0 + 2 : zone.y1 - 2;
    const answer = nextAnswer(page);
    await clickTable(page, x, y);
    await answer; // accepted, or refused: next point
  }
  await settle(a, b);
  assert.equal(Object.keys(placed).length, 2, "both troopers deployed beyond the zone");
  const troopers = (await state(a)).troopers;
  for (const [id, { x, y, how }] of Object.entries(placed)) {
    const t = troopers.find((t) => t.id === id);
    if (!how.infiltration) {
      assert.ok(Math.abs(t.position[0] - x) < 0.6 && Math.abs(t.position[1] - y) < 0.6, `Forward Deployment at the click: ${t.position}`);
      continue;
    }
    const text = await b.textContent("#log");
    const line = /Infiltration: .* into the enemy half at .*, PH-3 Roll \d+ against 7: (passed|failed)/.exec(text);
    assert.ok(line, `B reads the Infiltration Roll in its log: ${text}`);
    const passed = line[1] === "passed";
    if (passed) assert.ok(Math.abs(t.position[1] - y) < 0.6, `it stands where it was clicked: ${t.position}`);
    else assert.deepEqual(t.position, how.infiltration.fallback, "it stands at the offered fallback");
  }
  await shot(a, "a");
  await shot(b, "b");
  await closeAll(a, b);
});
