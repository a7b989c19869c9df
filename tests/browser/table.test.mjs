// Browser tests of the table and the roster in real headless Chromium (as game.test.mjs):
// names by the bases instead of ids, the roster of each side (own troopers, the enemy troopers
// the view shows, never an enemy in Hidden Deployment, a marker as a marker), casualties drawn
// as casualties, terrain labelled with its height, and the ruler answered by the server.
// Every wait is on a DOM or view condition; the dice are injected, so every run plays alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);

const json = (path, body) => scenario.post(path, body);
const state = (page) => page.evaluate(() => window.referee.view.state);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `table-${name}.png`) });

/** The label by each trooper's base: {id: text}. */
const labels = (page) => page.$$eval("#table [data-label-for]", (xs) => Object.fromEntries(xs.map((x) => [x.dataset.labelFor, x.textContent])));
/** The roster's rows: {id: text}. */
const rosterRows = (page) => page.$$eval("#roster [data-roster-trooper]", (xs) => Object.fromEntries(xs.map((x) => [x.dataset.rosterTrooper, x.textContent])));

// N5: A's Lancer (A-t7) faces B's Enforcers B-t3 and B-t4 (turned away, so no ARO); the
// Pathfinder A-t3 stands as a Camouflage Marker; B's Ghost B-t2 is in Hidden Deployment.
const PLACEMENTS = {
  "A-t7": [4, 4, 90], "A-t1": [12, 3, 90], "A-t3": [30, 8, 90],
  "B-t3": [3, 16, 90], "B-t4": [5, 16, 90], "B-t1": [24, 44, 270], "B-t2": [30, 40, 270, "hidden"], "B-t14": [44, 44, 90],
};

test("names instead of ids, each side's roster without the enemy's hidden trooper, casualties drawn as casualties, terrain heights", async () => {
  // Line Rifle Burst 3: 1, 2, 3 hit (2 on B-t3, 1 on B-t4); the three saves roll 20 and fail.
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: [1, 2, 3, 20, 20, 20], placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // Names, not ids: short unit names, a small ordinal where a side shows several of a unit.
  const ids = (await state(b)).troopers.map((t) => t.id);
  const la = await labels(a);
  assert.deepEqual(Object.keys(la).sort(), ["A-t1", "A-t3", "A-t7", "B-t1", "B-t14", "B-t3", "B-t4"]);
  for (const [id, text] of Object.entries(la)) for (const other of ids) assert.ok(!text.includes(other), `${id}'s label "${text}" shows an id`);
  assert.equal(la["A-t7"], "Lancer");
  assert.equal(la["A-t1"], "WardenLT", "A's own Lieutenant, marked for A only");
  assert.equal(la["A-t3"], "PathfinderCAMO", "A's own marker: its unit, marked as a marker");
  assert.equal(la["B-t1"], "Boss", "the enemy Lieutenant is not marked");
  assert.deepEqual([la["B-t3"], la["B-t4"], la["B-t14"]], ["Enforcer1", "Enforcer2", "Enforcer3"]);
  const lb = await labels(b);
  assert.equal(lb["A-t3"], "Camo", "an enemy Camouflage Marker is a marker, never its unit");
  assert.equal(lb["B-t2"], "GhostHIDDEN", "B's own Ghost in Hidden Deployment");
  assert.equal(lb["B-t1"], "BossLT");
  assert.equal(lb["A-t1"], "Warden");
  assert.deepEqual(await labels(spectator), { ...Object.fromEntries(Object.entries(lb).filter(([id]) => id !== "B-t2")), "B-t1": "Boss" },
    "the spectator sees what both players may see");
  assert.match(await a.$eval('#table [data-trooper="B-t3"] title', (x) => x.textContent), /Syndicate Enforcer \(B-t3\)/, "the id in the tooltip");

  // Terrain: each piece labelled with its height in inches (and its name, room allowing: on this open table, always).
  const terrain = (await state(a)).table.terrain;
  assert.ok(terrain.length > 0);
  for (const piece of terrain) {
    const text = await a.$eval(`#table [data-terrain-label="${piece.id}"]:not([display="none"])`, (x) => x.textContent);
    assert.ok(text.includes(`${piece.height}"`), `${piece.id}: "${text}" shows its height`);
    if (piece.name) assert.ok(text.includes(piece.name), `${piece.id}: "${text}" shows its name`);
  }
  assert.match(await a.$eval("#table-title", (x) => x.textContent), /48" × 48"/);

  // The roster: A's own troopers and the enemies its view shows; never B's hidden Ghost.
  const ra = await rosterRows(a);
  assert.deepEqual(Object.keys(ra).filter((id) => id.startsWith("B-")).sort(), ["B-t1", "B-t14", "B-t3", "B-t4"]);
  for (const id of ["A-t1", "A-t3", "A-t7"]) assert.ok(id in ra, `A's roster lists its own ${id}`);
  assert.match(ra["A-t1"], /Warden.*Lieutenant/);
  assert.match(ra["A-t7"], /Lancer Line Trooper.*REG.*4-4\s*13\s*11\s*10\s*13\s*1\s*0\s*1\s*2/s, "the profile line MOV CC BS PH WIP ARM BTS W S");
  assert.doesNotMatch(ra["B-t1"], /Lieutenant/, "the enemy Lieutenant is not named");
  const rb = await rosterRows(b);
  assert.match(rb["B-t2"], /Ghost.*Hidden/s, "B's own hidden Ghost in B's roster");
  assert.match(rb["A-t3"], /Camo.*what it is stays hidden/s);
  assert.ok(!rb["A-t3"].includes("Pathfinder"), "B's roster does not say what the marker is");
  const rs = await rosterRows(spectator);
  assert.ok(!("B-t2" in rs) && !rs["A-t3"].includes("Pathfinder"));
  for (const page of [a, spectator]) assert.ok(!(await page.$eval("#layout", (x) => x.textContent)).includes("Ghost"), "no trace of the hidden Ghost");
  await shot(a, "names-roster-A");
  await shot(b, "names-roster-B");

  // A row click selects the trooper; the table rings it.
  await a.click('#roster [data-roster-trooper="A-t7"]');
  await a.waitForSelector('#table [data-selected-ring="A-t7"]', { state: "attached", ...WAIT });
  await a.waitForSelector('#roster [data-roster-trooper="A-t7"].rt-selected', WAIT);

  // The Order: the active trooper is ringed for everyone; then the BS Attack and its casualties.
  await a.click('[data-order="regular"]');
  for (const page of [a, b, spectator]) await page.waitForSelector('#table [data-active-ring="A-t7"]', { state: "attached", ...WAIT });
  await shot(spectator, "active-trooper-spectator");
  await a.waitForSelector("#declare-bs", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  // Targets come in id order (docs/fair-play.md): the app's default puts the Burst on the
  // first one, so the split is written out for every target.
  for (const other of await a.$$eval("[data-burst]", (xs) => xs.map((x) => x.dataset.burst))) {
    await a.fill(`[data-burst="${other}"]`, "0");
    await a.dispatchEvent(`[data-burst="${other}"]`, "change");
  }
  await a.fill('[data-burst="B-t3"]', "2");
  await a.dispatchEvent('[data-burst="B-t3"]', "change");
  await a.fill('[data-burst="B-t4"]', "1");
  await a.dispatchEvent('[data-burst="B-t4"]', "change");
  await a.click("#declare-bs");
  // B had nothing to declare: its app closed the window; A declares the second skill.
  await a.waitForFunction(() => window.referee.currentOptions()?.skills?.index === 2 && document.getElementById("declare-idle"), null, WAIT);
  await a.click("#declare-idle");
  for (const page of [a, b, spectator]) {
    await page.waitForSelector('#table [data-trooper="B-t3"][data-condition="dead"] [data-casualty-cross]', { state: "attached", ...WAIT });
    // The Dead one: greyed and crossed out, no facing, a DEAD token, its name struck through.
    assert.equal(await page.$('#table [data-trooper="B-t3"] [data-facing]'), null);
    assert.equal(await page.$eval('#table [data-label-for="B-t3"]', (x) => x.textContent), "Enforcer1DEAD");
    assert.equal(await page.$eval('#table [data-label-for="B-t3"] text', (x) => x.getAttribute("text-decoration")), "line-through");
    // The Unconscious one is not drawn as a casualty.
    await page.waitForSelector('#table [data-trooper="B-t4"][data-condition="unconscious"]', { state: "attached", ...WAIT });
    assert.equal(await page.$('#table [data-trooper="B-t4"] [data-casualty-cross]'), null);
    assert.equal(await page.$eval('#table [data-label-for="B-t4"]', (x) => x.textContent), "Enforcer2UNCPRONE");
    const rows = await rosterRows(page);
    assert.match(rows["B-t3"], /Dead/);
    assert.match(rows["B-t4"], /1\/1 W lost.*Unconscious.*Prone/s);
    assert.ok(await page.$('#roster [data-roster-trooper="B-t3"].rt-dead'));
  }
  assert.match((await rosterRows(a))["B-t14"], /Enforcer3/, "ordinals stay put after a casualty");
  await shot(a, "casualties-A");
  await shot(b, "casualties-B");
  await a.click("#legend-toggle");
  await a.waitForSelector("#table-legend:not([hidden]) .lg-token", WAIT);
  assert.match(await a.$eval("#table-legend", (x) => x.textContent), /height in inches.*Line of Fire/s);
  await shot(a, "legend");
  await closeAll(a, b, spectator);
});

test("zoom buttons keep the labels at their size on screen", async () => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const size = () => a.$eval('#table [data-label-for="A-t7"] rect', (x) => { const r = x.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; });
  const base = async () => a.$eval('#table [data-base="A-t7"]', (x) => x.getBoundingClientRect().width);
  const [before, baseBefore] = [await size(), await base()];
  await a.click("#zoom-in");
  await a.click("#zoom-in");
  await a.waitForFunction((w) => document.querySelector('#table [data-base="A-t7"]').getBoundingClientRect().width > w * 1.5, baseBefore, WAIT);
  assert.deepEqual(await size(), before, "a label keeps its size in pixels");
  await a.click("#zoom-reset");
  await a.waitForFunction((w) => Math.abs(document.querySelector('#table [data-base="A-t7"]').getBoundingClientRect().width - w) < 0.5, baseBefore, WAIT);
  // The wheel zooms around the pointer: the Lancer stays under it.
  const centre = () => a.$eval('#table [data-base="A-t7"]', (x) => { const r = x.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; });
  const [cx, cy] = await centre();
  await a.mouse.move(cx, cy);
  for (let i = 1; i <= 4; i += 1) {
    await a.mouse.wheel(0, -100);
    await a.waitForFunction(([w, k]) => document.querySelector('#table [data-base="A-t7"]').getBoundingClientRect().width > w * k, [baseBefore, 1.1 ** i], WAIT);
  }
  const [zx, zy] = await centre();
  assert.ok(Math.hypot(zx - cx, zy - cy) < 2, `the Lancer stays under the pointer (${cx},${cy} -> ${zx},${zy})`);
  assert.deepEqual(await size(), before);
  await shot(a, "zoomed");
  await closeAll(a);
});

test("the ruler: the line at once, the distance, Line of Fire and front arc as the server answers", async (t) => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  await a.click('#roster [data-roster-trooper="A-t7"]');
  await a.click("#ruler-toggle");
  await a.waitForSelector("#ruler-readout:not([hidden])", WAIT);
  assert.match(await a.$eval("#ruler-readout", (x) => x.textContent), /Ruler from Lancer: click where to measure to/);
  await clickTable(a, 4, 20);
  await a.waitForSelector("#ruler-line", { state: "attached", ...WAIT });
  const measures = await a.evaluate(() => typeof window.referee.measure === "function");
  if (!measures) {
    // The library cannot ask yet: the line is drawn, no distance is made up.
    await a.waitForSelector("#ruler-readout .ruler-error", WAIT);
    assert.equal(await a.$("#ruler-distance"), null);
    await closeAll(a);
    t.skip("conn.measure is not in the library yet");
    return;
  }
  await a.waitForSelector("#ruler-distance", WAIT);
  const answer = await a.evaluate(() => window.referee.measure({ from: "A-t7", to: [4, 20] }));
  assert.equal(await a.$eval("#ruler-distance", (x) => x.textContent), `${answer.distance.toFixed(1)}"`);
  assert.equal(await a.$eval("#ruler-lof", (x) => x.textContent), answer.line_of_fire ? "yes" : "no");
  assert.equal(await a.$eval("#ruler-arc", (x) => x.textContent), answer.in_front_arc ? "yes" : "no");
  assert.match(await a.$eval("[data-ruler-label]", (x) => x.textContent), new RegExp(`^${answer.distance.toFixed(1)}"`));
  await shot(a, "ruler-from-trooper");
  // Two points: centre to centre, no Line of Fire asked.
  await a.click("#ruler-clear");
  await clickTable(a, 10, 10);
  await clickTable(a, 10, 30);
  await a.waitForFunction(() => document.getElementById("ruler-distance")?.textContent === '20.0"', null, WAIT);
  assert.equal(await a.$("#ruler-lof"), null);
  await shot(a, "ruler-two-points");
  await a.keyboard.press("Escape");
  await a.waitForSelector("#ruler-readout", { state: "hidden", ...WAIT });
  await closeAll(a);
});
