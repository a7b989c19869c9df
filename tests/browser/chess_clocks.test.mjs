// Browser test of the chess clocks in real headless Chromium: the lobby's form sends clock_s;
// a clock per side in the status bar, the running one counting down (the active player's,
// then the reactive player's while an ARO window waits on it); a spectator and the stream
// overlay show them too; a player whose time runs out is shown OUT OF TIME, the log says so
// and its turn ends. Every wait is on a DOM or view condition (the short clock's own run-out
// is the server's timer). Screenshots: test-artifacts/browser/chess-clocks-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, assertFoldedWithoutSnapshot, startScenario } from "./harness.mjs";


let scenario;

before(async () => {
  scenario = await startScenario();
});

after(async () => {
  await scenario?.stop();
});

const shot = (page, name) => page.screenshot({ path: join(artifacts, `chess-clocks-${name}.png`) });
const face = (page, side) => page.$eval(`#chess-clocks [data-side="${side}"]`, (x) => ({ text: x.textContent, cls: x.className }));
const seconds = (text) => { const [m, s] = text.split(" ")[1].split(":").map(Number); return m * 60 + s; };

// CodeOne: A's Line Trooper A-t5 walks up the column B's Enforcer B-t3 watches.
const PLACEMENTS = { "A-t5": [22.5, 4, 90], "B-t3": [22.5, 28, 270], "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 30.5, 90] };

test("the lobby's form asks for chess clocks in minutes per player", async () => {
  const page = await scenario.newPage();
  await page.goto(scenario.base + "/");
  await page.fill("#clock-min", "75");
  const sent = page.waitForRequest((r) => r.url().endsWith("/api/rooms") && r.method() === "POST");
  await page.click("#create-room");
  assert.equal(JSON.parse((await sent).postData() ?? "{}").clock_s, 4500);
  await page.waitForSelector("#links:not([hidden])", WAIT);
  const seat = await page.inputValue("#link-a-text");
  await page.goto(seat);
  await page.waitForFunction(() => window.referee?.view.state, null, WAIT);
  await page.waitForSelector("#chess-clocks:not([hidden])", WAIT);
  // Army selection: no clock runs yet.
  assert.deepEqual(await face(page, "A"), { text: "A 1:15:00", cls: "chess-clock" });
  await page.context().close();
});

test("a clock per side: the running one counts down, the ARO window runs the reactive player's; spectator and overlay too", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "codeone", aro_window_s: 300, clock_s: 600, placements: PLACEMENTS });
  const a = await scenario.open(room.seats.A.link, WAIT);
  const b = await scenario.open(room.seats.B.link, WAIT);
  const spectator = await scenario.open(room.spectator_link, WAIT);
  await a.waitForSelector("#chess-clocks:not([hidden]) .chess-clock.running", WAIT);
  const first = await face(a, "A");
  assert.match(first.cls, /running/);
  assert.equal((await face(a, "B")).text, "B 10:00");
  // The running clock counts down locally between frames.
  await a.waitForFunction((shown) => document.querySelector('#chess-clocks [data-side="A"]').textContent !== shown, first.text, WAIT);
  assert.ok(seconds((await face(a, "A")).text) < 600);
  // The order panel names the troopers as the table does (a real room's ids are random), the id in the tooltip.
  const pick = await a.waitForSelector('[data-select="A-t5"]', WAIT);
  assert.match(await pick.textContent() ?? "", /^[A-Z][a-z]/, "a trooper's name, not its id");
  assert.match(await pick.getAttribute("title") ?? "", /id A-t5/);

  // A's Order opens an ARO window that waits on B: B's clock runs, A's stops.
  await a.evaluate(async () => {
    await window.referee.send({ type: "activate", trooper: "A-t5", order: "regular" });
    await window.referee.send({ type: "declare_skill", skill: { type: "move", route: [[22.5, 4], [22.5, 6]] } });
  });
  for (const page of [a, b, spectator]) {
    await page.waitForFunction(() => /running/.test(document.querySelector('#chess-clocks [data-side="B"]').className), null, WAIT);
    assert.doesNotMatch((await face(page, "A")).cls, /running/);
    await assertFoldedWithoutSnapshot(page, /clock_switched/); // no viewer asks for a snapshot for it
  }
  await shot(b, "01-aro-window-b-runs");
  await shot(spectator, "02-spectator");

  const overlay = await scenario.newPage({ viewport: { width: 1920, height: 1080 } });
  await overlay.goto(scenario.base + room.spectator_link.replace("/#", "/overlay#"));
  await overlay.waitForFunction(() => document.querySelector("#side-B .stat-clock.running")
    && !document.querySelector("#side-A .stat-clock").classList.contains("running"), null, WAIT);
  assert.match(await overlay.$eval("#side-A .stat-clock .clock", (x) => x.textContent), /^9:\d\d$/);
  await shot(overlay, "03-overlay");
  await Promise.all([a, b, spectator, overlay].map((p) => p.context().close()));
});

test("a player out of time: OUT OF TIME in the status bar, a log line, its turn ends", async () => {
  // A starts with 2 s left, B with 10 minutes.
  const room = await scenario.post("/test/scenario", { ruleset: "codeone", aro_window_s: 300, clock_s: 600, clock_a_s: 2, placements: PLACEMENTS });
  const a = await scenario.open(room.seats.A.link, WAIT);
  const spectator = await scenario.open(room.spectator_link, WAIT);
  for (const page of [a, spectator]) {
    await page.waitForFunction(() => [...document.querySelectorAll("#log li")].some((li) => /Player A's time ran out/.test(li.textContent ?? "")), null, WAIT);
    assert.deepEqual(await face(page, "A"), { text: "A OUT OF TIME", cls: "chess-clock out" });
    await page.waitForFunction(() => window.referee.view.state.active === "B", null, WAIT);
    assert.match((await face(page, "B")).cls, /running/);
  }
  await shot(a, "04-out-of-time");
  await Promise.all([a, spectator].map((p) => p.context().close()));
});
