// Browser test of a command sent while the server's storage is away (as a Redis failover
// looks to a player): the server answers storage_unavailable, stores nothing, and asks for
// the same command id again. The page says so in its banner and sends the command again by
// itself; once the storage is back the command is applied, once, and both seats see it. The
// test server's store refuses writes while told to (tests/browser/scenario_server.py,
// /test/storage). Every wait is on a DOM or view condition. Screenshot:
// test-artifacts/browser/storage-outage-waiting.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile, shows } from "./harness.mjs";

const scenario = scenarioForFile();

const PLACEMENTS = { "A-t1": [20, 20, 90], "B-t1": [40, 44, 90] };

test("a command the storage refused is sent again by the page under its id and applied once the storage is back", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await scenario.openTable(room.seats.A.link, WAIT);
  const b = await scenario.openTable(room.seats.B.link, WAIT);
  await a.waitForSelector("#end-turn", WAIT);

  assert.deepEqual(await scenario.post("/test/storage", { down: true }), { down: true });
  await a.click("#end-turn");
  const confirm = await a.$("#confirm-end-turn");
  if (confirm) await confirm.click();
  await shows(a, "#banner", /could not store your last command yet: it is sent again by itself/);
  assert.equal(await a.$eval("#banner", (x) => x.hidden), false);
  // Sent and refused more than once by now, still waiting: nothing applied, nothing said as a rejection.
  await a.waitForFunction(() => window.__frames.filter((f) => f.includes("storage_unavailable")).length >= 2, null, WAIT);
  assert.equal(await a.evaluate(() => window.referee.view.state.active), "A");
  assert.equal(await a.$eval("#message", (x) => x.textContent), "");
  await a.screenshot({ path: join(artifacts, "storage-outage-waiting.png") });

  assert.deepEqual(await scenario.post("/test/storage", { down: false }), { down: false });
  for (const page of [a, b]) {
    await page.waitForFunction(() => window.referee.view.state.active === "B", null, WAIT);
  }
  await a.waitForFunction(() => document.getElementById("banner").hidden, null, WAIT);
  assert.equal(await a.$eval("#message", (x) => x.textContent), "");
  const refusedIds = await a.evaluate(() => [...new Set(window.__frames.filter((f) => f.includes("storage_unavailable")).map((f) => f.split(" ")[1]))]);
  assert.equal(refusedIds.length, 1, `every refusal named the one command: ${refusedIds}`);
  const turnsEnded = await b.evaluate(() => window.__frames.filter((f) => f.includes("turn_ended")).length);
  assert.equal(turnsEnded, 1, "the turn ended once");
  await closeAll(a, b);
});

// The ARO window's deadline passes while the storage is away: the server's close at the
// deadline is not stored, so the window runs again once the storage is back (a new deadline
// both pages are told), and B's counter, refused and sent again by the page meanwhile, is
// taken. Screenshot: test-artifacts/browser/storage-outage-window-again.png.
const ARO_PLACEMENTS = { "A-t7": [30, 12, 90], "A-t1": [2, 2, 90], "B-t3": [30, 30, 270], "B-t1": [46, 46, 270] };

/** A's Lancer walks into the view of B's Enforcer: the ARO window open on both pages
 * (`aroWindowS` long), A's page keeping every deadline its frames carry (`__deadlines`).
 * @returns {Promise<{a: any, b: any, deadline: number}>} the pages and the window's deadline */
async function aroWindowOpen(aroWindowS) {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: aroWindowS, seed: 1, placements: ARO_PLACEMENTS });
  const a = await scenario.openTable(room.seats.A.link, WAIT);
  const b = await scenario.openTable(room.seats.B.link, WAIT);
  await a.waitForSelector("#end-turn", WAIT);
  await a.evaluate(() => {
    window.__deadlines = [];
    window.referee.addEventListener("message", (e) => { if (e.detail?.window) window.__deadlines.push(e.detail.window.deadline_ms); });
  });
  const sent = await a.evaluate(async () => [
    (await window.referee.send({ type: "activate", trooper: "A-t7", order: "regular" })).ok,
    (await window.referee.send({ type: "declare_skill", skill: { type: "move", route: [[30, 12], [30, 14]] } })).ok]);
  assert.deepEqual(sent, [true, true]);
  await b.waitForSelector('[data-aro="B-t3"] [data-action="declare"]', WAIT);
  return { a, b, deadline: await b.evaluate(() => window.referee.view.window.deadline_ms) };
}

test("an ARO window whose deadline passed while the storage was away runs again, and the counter sent meanwhile is taken", async () => {
  const { a, b, deadline } = await aroWindowOpen(8);

  assert.deepEqual(await scenario.post("/test/storage", { down: true }), { down: true });
  await b.click('[data-aro="B-t3"] [data-action="declare"]');
  await shows(b, "#banner", /could not store your last command yet: it is sent again by itself/);
  // Past the deadline, one more refusal: the server tried its close at the deadline first.
  await b.waitForFunction((d) => Date.now() > d + 200, deadline, WAIT);
  const refusals = () => b.evaluate(() => window.__frames.filter((f) => f.includes("storage_unavailable")).length);
  const before = await refusals();
  await b.waitForFunction((n) => window.__frames.filter((f) => f.includes("storage_unavailable")).length > n, before, WAIT);
  assert.equal(await a.evaluate(() => window.referee.view.window !== null), true, "the window is not closed");

  assert.deepEqual(await scenario.post("/test/storage", { down: false }), { down: false });
  await b.waitForFunction(() => Boolean(window.referee.view.state.order?.aros?.["B-t3"]), null, WAIT);
  await a.waitForFunction((d) => window.__deadlines.some((x) => x > d), deadline, WAIT);
  const again = await a.evaluate((d) => window.__deadlines.find((x) => x > d), deadline);
  assert.ok(again >= deadline + 8000, `a full window again: ${again - deadline} ms later`);
  await b.waitForFunction(() => document.getElementById("banner").hidden, null, WAIT);
  await a.screenshot({ path: join(artifacts, "storage-outage-window-again.png") });
  for (const page of [a, b]) await shows(page, "#log", /ARO declared: Enforcer/);
  const closedByDeadline = await a.evaluate(() => window.__frames.filter((f) => f.includes("aro_window_closed")).length);
  assert.ok(closedByDeadline <= 1, "closed once, after the counter");
  await closeAll(a, b);
});

// A storage outage that ends before the ARO window's deadline: B's declaration, refused and
// sent again by the page meanwhile, is taken, and the seconds the outage took are added to
// the window's deadline, told to both pages (B's page then closes the window: its one
// eligible trooper answered). Screenshot, B's declaration taken after the outage:
// test-artifacts/browser/storage-outage-window-lengthened.png.
test("an ARO window a storage outage took seconds from gets them back on its deadline", async () => {
  const { a, b, deadline } = await aroWindowOpen(120);

  assert.deepEqual(await scenario.post("/test/storage", { down: true }), { down: true });
  await b.click('[data-aro="B-t3"] [data-action="declare"]');
  await b.waitForFunction(() => window.__frames.some((f) => f.includes("storage_unavailable")), null, WAIT);
  const refusedAt = await b.evaluate(() => Date.now());  // (the server's first refusal came before)
  await b.waitForFunction((t) => Date.now() > t + 3000, refusedAt, WAIT);
  assert.deepEqual(await scenario.post("/test/storage", { down: false }), { down: false });
  const backAt = await b.evaluate(() => Date.now());

  await b.waitForFunction(() => Boolean(window.referee.view.state.order?.aros?.["B-t3"]), null, WAIT);
  await a.waitForFunction((d) => window.__deadlines.some((x) => x > d), deadline, WAIT);
  const moved = await a.evaluate((d) => window.__deadlines.find((x) => x > d), deadline);
  assert.ok(moved - deadline >= 3000, `the outage's seconds at least: ${moved - deadline} ms`);
  assert.ok(moved - deadline <= Date.now() - refusedAt + 3000, `no more than the outage: ${moved - deadline} ms, back ${Date.now() - backAt} ms ago`);
  await b.waitForFunction(() => document.getElementById("banner").hidden, null, WAIT);
  await b.screenshot({ path: join(artifacts, "storage-outage-window-lengthened.png") });
  await closeAll(a, b);
});

// Chess clocks held while the storage is away: A has seconds left when its Order is refused
// for the storage; its deadline passes meanwhile, yet once the storage is back A is not out
// of time: the span is given back (a log line on every page), and the Order the page sent
// again is taken. Screenshot: test-artifacts/browser/storage-outage-clocks-held.png.
const CLOCK_PLACEMENTS = { "A-t5": [22.5, 4, 90], "B-t3": [22.5, 28, 270], "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 30.5, 90] };

test("a chess clock whose deadline passed while the storage was away is held for it, not run out", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "codeone", aro_window_s: 300, clock_s: 600, clock_a_s: 12, placements: CLOCK_PLACEMENTS });
  const a = await scenario.openTable(room.seats.A.link, WAIT);
  const spectator = await scenario.openTable(room.spectator_link, WAIT);
  await a.waitForSelector("#chess-clocks:not([hidden]) .chess-clock.running", WAIT);

  assert.deepEqual(await scenario.post("/test/storage", { down: true }), { down: true });
  // A's time left, as its clock shows it now ("A 0:11"): its deadline is at most that (and a second) away.
  const [minutes, secs] = (await a.$eval('#chess-clocks [data-side="A"]', (x) => x.textContent)).split(" ")[1].split(":").map(Number);
  const deadline = await a.evaluate((ms) => Date.now() + ms, (minutes * 60 + secs + 1) * 1000);
  await a.evaluate(() => { window.__activated = window.referee.send({ type: "activate", trooper: "A-t5", order: "regular" }); });
  await shows(a, "#banner", /could not store your last command yet: it is sent again by itself/);
  await a.waitForFunction((d) => Date.now() > d + 1000, deadline, WAIT);  // past A's deadline, the storage still away

  assert.deepEqual(await scenario.post("/test/storage", { down: false }), { down: false });
  assert.equal(await a.evaluate(async () => (await window.__activated).ok), true);
  for (const page of [a, spectator]) {
    await shows(page, "#log", /Chess clocks held for 0:\d\d: nobody could play while the referee was down/);
    assert.doesNotMatch(await page.$eval('#chess-clocks [data-side="A"]', (x) => x.textContent), /OUT OF TIME/);
  }
  assert.equal(await a.evaluate(() => window.__frames.filter((f) => f.includes("clock_ran_out")).length), 0);
  await a.waitForFunction(() => document.getElementById("banner").hidden, null, WAIT);
  await a.screenshot({ path: join(artifacts, "storage-outage-clocks-held.png") });
  await closeAll(a, spectator);
});
