// The table from a player's seat, in real headless Chromium against
// tests/browser/scenario_server.py: B, whose Deployment Zone is the North edge, sees the table
// turned 180° (its own zone at the bottom), A and spectators North up, each may turn it with
// the toolbar's toggle; a click on a turned table lands on the table point under the pointer
// (the ruler's end and its distance agree with A's); front arcs readable at the whole-table
// zoom, facings said from the seat's side, no casualty among the troopers to face, labels of
// a crowd of bases apart from each other, the status bar on one line. Screenshots:
// test-artifacts/browser/seat-view-*.png, from both seats and a spectator.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, closeAll, scenarioForFile, tablePointOnPage } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });

// Six Lancers in a row, bases touching (a crowd for the labels), A's Lieutenant at home; B's
// Enforcer and Boss up the table.
const PLACEMENTS = { "A-t1": [2, 2, 90], ...Object.fromEntries([7, 8, 9, 10, 11, 12].map((n, i) => [`A-t${n}`, [20 + i, 10, 90]])),
  "B-t3": [23, 26, 270], "B-t1": [30, 40, 270] };

const zoneLabelY = (page, zone) => page.$eval(`[data-zone-label="${zone}"]`, (x) => x.getBoundingClientRect().y);

test("each seat sees the table from its own edge; clicks on a turned table land where the pointer is", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // B deploys from the North edge: its table is turned, its zone at the bottom; A's and the
  // spectator's are North up.
  assert.equal(await b.$eval("#table g.board", (x) => x.dataset.rotated), "true");
  for (const page of [a, spectator]) assert.equal(await page.$eval("#table g.board", (x) => x.dataset.rotated), "false");
  assert.ok(await zoneLabelY(b, "north") > await zoneLabelY(b, "south"), "B's own (North) zone at the bottom of B's screen");
  assert.ok(await zoneLabelY(a, "south") > await zoneLabelY(a, "north"), "A's own (South) zone at the bottom of A's screen");
  assert.equal(await b.textContent("#view-toggle"), "South ↑");
  // The Enforcer (x 23) and the Boss (x 30): East is on B's left.
  const [enforcer, boss] = await Promise.all(["B-t3", "B-t1"].map((id) => b.$eval(`[data-base="${id}"]`, (x) => x.getBoundingClientRect().x)));
  assert.ok(boss < enforcer, "the turned table mirrors East and West too");
  await shot(b, "seat-view-B-from-its-edge");
  await shot(a, "seat-view-A-from-its-edge");

  // The same measurement from both seats: the ruler's end is the table point clicked.
  for (const page of [a, b]) {
    await page.click('[data-roster-trooper="B-t3"]');
    await page.click("#ruler-toggle");
    await clickTable(page, 23, 36);
    await page.waitForFunction(() => /\d/.test(document.getElementById("ruler-readout")?.textContent ?? ""), null, WAIT);
    const end = await page.$eval('[data-ruler-end="to"]', (x) => [Number(x.getAttribute("cx")), Number(x.getAttribute("cy"))]);
    assert.ok(Math.abs(end[0] - 23) < 0.1 && Math.abs(end[1] - 36) < 0.1, `the ruler ends at (23, 36), not ${end}`);
  }
  const readout = (page) => page.$eval("#ruler-readout", (x) => /(\d+\.\d)"/.exec(x.textContent)?.[1]);
  assert.equal(await readout(b), await readout(a));
  await shot(b, "seat-view-B-ruler");
  for (const page of [a, b]) await page.click("#ruler-toggle");

  // The toggle turns B's table North up, and back; a click still lands where the pointer is.
  await b.click("#view-toggle");
  await b.waitForFunction(() => document.querySelector("#table g.board").dataset.rotated === "false", null, WAIT);
  assert.equal(await b.textContent("#view-toggle"), "North ↑");
  const [sx, sy] = await tablePointOnPage(b, 23, 26);
  const hit = await b.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest("[data-trooper]")?.dataset.trooper, [sx, sy]);
  assert.equal(hit, "B-t3", "the Enforcer is under its table point, North up too");
  await b.click("#view-toggle");
  await b.waitForFunction(() => document.querySelector("#table g.board").dataset.rotated === "true", null, WAIT);
  // A spectator may turn it as well.
  await spectator.click("#view-toggle");
  await spectator.waitForFunction(() => document.querySelector("#table g.board").dataset.rotated === "true", null, WAIT);
  await shot(spectator, "seat-view-spectator-turned");
  await closeAll(a, b, spectator);
});

test("facings: arcs readable at the whole table, words from the seat's side; labels apart; the status bar on one line", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  // Each living trooper's front arc reaches well beyond its base on screen.
  for (const page of [a, b]) {
    const sizes = await page.$$eval("[data-front-fan]", (xs) => xs.map((x) => {
      const fan = x.getBoundingClientRect();
      const base = document.querySelector(`[data-base="${x.dataset.frontFan}"]`).getBoundingClientRect();
      return Math.max(fan.width, fan.height) - base.width;
    }));
    assert.equal(sizes.length, 9);
    for (const extra of sizes) assert.ok(extra >= 14, `the arc reaches ${extra} px beyond the base`);
  }
  await a.click('[data-roster-trooper="A-t7"]');
  assert.match(await a.textContent("#selected-facing"), /^Facing towards the enemy edge \(north\)$/);
  await b.click('[data-roster-trooper="B-t3"]');
  assert.match(await b.textContent("#selected-facing"), /^Facing towards the enemy edge \(south\)$/);
  await a.click('[data-roster-trooper="B-t3"]');
  assert.match(await a.textContent("#selected-facing"), /^Facing towards your edge \(south\)$/, "the enemy faces A's edge");

  // The six Lancers' labels and the others: none covers another.
  for (const page of [a, b]) {
    const boxes = await page.$$eval("[data-label-for]", (xs) => xs.map((x) => {
      const r = x.querySelector("rect").getBoundingClientRect();
      return { id: x.dataset.labelFor, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
    }));
    assert.equal(boxes.length, 9);
    for (const p of boxes) for (const q of boxes) {
      if (p.id < q.id) assert.ok(!(p.x0 < q.x1 - 0.5 && q.x0 < p.x1 - 0.5 && p.y0 < q.y1 - 0.5 && q.y0 < p.y1 - 0.5), `labels of ${p.id} and ${q.id} overlap`);
    }
  }
  await a.click("#zoom-in");
  await shot(a, "seat-view-A-crowd-zoomed");
  await a.click("#zoom-reset");

  // The status bar stays one line, at the test's width and narrower; the Orders it counts are this turn's.
  for (const width of [1400, 1100]) {
    await a.setViewportSize({ width, height: 900 });
    assert.ok(await a.$eval("#status-bar", (x) => x.getBoundingClientRect().height) <= 30, `one line at ${width} px`);
  }
  assert.match(await a.textContent("#orders"), /^A: 0 spent this turn · left G1 \d+/);
  await shot(a, "seat-view-A-narrow");
  await closeAll(a, b);
});
