// Browser tests in real headless Chromium (Debian's, via playwright-core): two players and a
// spectator in three browser contexts against a real server (tests/browser/scenario_server.py:
// the app plus a test-only route creating rooms from a scenario). Every wait is on a DOM or
// view condition; the dice are seeded, so every run plays the same game.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { chromium } = createRequire(join(repo, "client-js", "package.json"))("playwright-core");
const artifacts = join(repo, "test-artifacts", "browser");
mkdirSync(artifacts, { recursive: true });
const WAIT = { timeout: 20000 };

let server, browser, base;

before(async () => {
  server = spawn(join(repo, ".venv", "bin", "python"), ["-m", "tests.browser.scenario_server"],
    { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: server.stdout });
  base = await new Promise((resolve, reject) => {
    server.once("exit", (code) => reject(new Error(`scenario server exited with ${code}`)));
    lines.on("line", (line) => { if (line.startsWith("PORT ")) resolve(`http://127.0.0.1:${line.slice(5)}`); });
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"] });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

async function open(link) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(base + link);
  await page.waitForFunction(() => window.referee?.view.state, null, WAIT);
  return page;
}

const json = async (path, body) => (await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" },
  body: JSON.stringify(body) })).json();
const state = (page) => page.evaluate(() => window.referee.view.state);
const version = (page) => page.evaluate(() => window.referee.view.version);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
/** Wait until the page holds the seat options of its current version. */
const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};
/** Wait until the page's view has caught up with version v. */
const reach = (page, v) => page.waitForFunction((v) => window.referee.view.version >= v && !window.referee.view.stale, v, WAIT);

/** Click the table at a point in inches, through the SVG's own screen transform. */
async function clickTable(page, x, y) {
  const [sx, sy] = await page.evaluate(([x, y]) => {
    const svg = document.getElementById("table");
    const depth = window.referee.view.state.table.depth;
    const p = new DOMPoint(x, depth - y).matrixTransform(svg.getScreenCTM());
    return [p.x, p.y];
  }, [x, y]);
  await page.mouse.click(sx, sy);
}

/** Send a command's answer back to the test: waits for the next answer of this page. */
const nextAnswer = (page) => page.evaluate(() => new Promise((resolve) =>
  window.referee.addEventListener("answer", (e) => resolve(e.detail), { once: true })));

const closeAll = (...pages) => Promise.all(pages.map((p) => p.context().close()));

test("lobby creates a room with opponent and spectator links", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + "/");
  await page.click("#create-room");
  await page.waitForSelector("#links:not([hidden])");
  assert.match(await page.inputValue("#link-b"), /#room=.+&token=.+/);
  assert.match(await page.inputValue("#link-spectator"), /#room=[^&]+$/);
  await shot(page, "01-lobby");
  await context.close();
});

test("two players and a spectator: armies picked at once, initiative, deployment by clicks, first order", async () => {
  const room = await json("/api/rooms", { ruleset: "codeone", aro_window_s: 30, seed: 7 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // Both click at once: the second command is issued against an older version and must be
  // re-issued (this race made the old test fail 2 runs in 5).
  await Promise.all([a.click('[data-army="helion-c1-patrol"]'), b.click('[data-army="vesper-c1-cell"]')]);
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.initiative?.winner, null, WAIT);
  await shot(a, "02-armies-chosen");
  const winner = (await state(a)).initiative.winner;
  const [w, l] = winner === "A" ? [a, b] : [b, a];
  await w.click("#keep-initiative");
  await l.click("#choose-remaining");
  await a.waitForFunction(() => window.referee.view.state.phase === "deployment", null, WAIT);

  // Deployment: whoever may deploy clicks troopers into a grid of points of its zone.
  const used = { A: 0, B: 0 };
  for (let guard = 0; guard < 60; guard += 1) {
    const v = Math.max(await version(a), await version(b));
    await reach(a, v);
    await reach(b, v);
    if ((await state(a)).phase !== "deployment") break;
    const mineA = await options(a);
    const page = mineA.deploy.length || mineA.end_deployment_step ? a : b;
    const opts = await options(page);
    if (opts.end_deployment_step && opts.deploy.length <= 1) {
      const ended = nextAnswer(page); // listening before the click: the answer cannot be missed
      await page.click("#end-deployment");
      assert.equal((await ended).ok, true);
      continue;
    }
    const s = await state(page);
    const role = await page.evaluate(() => window.referee.role);
    const zone = s.deployment_zones[s.initiative.zones[role]];
    await page.click(`[data-deploy="${opts.deploy[0]}"]`);
    const n = used[role]++;
    const x = zone.x0 + 2 + (n % 8) * 2.8, y = zone.y0 + 2 + Math.floor(n / 8) * 3;
    const answer = nextAnswer(page);
    await clickTable(page, x, y);
    await answer; // accepted, or rejected (e.g. a Peripheral away from its Controller): next point
  }
  assert.equal((await state(a)).phase, "orders");
  await shot(spectator, "03-spectator-after-deployment");
  const active = (await state(a)).active;
  const player = active === "A" ? a : b;
  const ready = Object.keys((await options(player)).activate);
  assert.ok(ready.length > 0, "the active player has troopers to activate");
  await player.click(`[data-select="${ready[0]}"]`);
  await player.click('[data-order="regular"], [data-order="irregular"], [data-order="lieutenant"]');
  await player.waitForSelector("#declare-idle", WAIT);
  await player.click("#declare-idle");
  await spectator.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "skill_declared"), null, WAIT);
  assert.equal(await spectator.evaluate(() => window.referee.role), "spectator");
  await closeAll(a, b, spectator);
});

// A's Lancer (A-t5) faces B's Enforcer (B-t3) along x = 22.5; the others are out of the way.
const PLACEMENTS = {
  "A-t5": [22.5, 4.0, 90.0], "B-t3": [22.5, 28.0, 270.0], "B-t4": [1.5, 30.0, 90.0],
  "A-t1": [3.5, 1.5, 90.0], "B-t1": [3.5, 30.5, 90.0],
};

test("an order with a counter-shooting ARO, resolved face to face with die faces for all, then a reconnect", async () => {
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 120, seed: 1 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  await spectator.waitForFunction(() => document.getElementById("spectators").textContent === "1", null, WAIT);
  await a.waitForFunction(() => document.getElementById("spectators").textContent === "1", null, WAIT);

  // Only legal choices: A-t5 offers exactly the order types the server listed.
  await a.click('[data-select="A-t5"]');
  assert.deepEqual(await a.$$eval("[data-order]", (xs) => xs.map((x) => x.dataset.order)), (await options(a)).activate["A-t5"]);
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 22.5, 6);
  await a.waitForFunction(() => document.getElementById("route-length").textContent.startsWith('Route 2.00" of MOV 4"'), null, WAIT);
  await a.waitForSelector('[data-lof="B-t3"]', { state: "attached", ...WAIT }); // Line of Fire drawn to the troopers it sees
  await shot(a, "04-route-against-mov");
  await a.click('[data-skill="move"]');

  // B: the ARO panel with the countdown and only what B-t3 may do.
  await b.waitForSelector('[data-aro="B-t3"] [data-action="shoot"]', WAIT);
  await a.waitForSelector("#aro-panel:not([hidden]) #countdown", WAIT);
  assert.equal(await b.$$eval("[data-aro]", (xs) => xs.length), 1, "only the eligible trooper");
  await shot(b, "05-aro-window");
  await b.selectOption('[data-aro-weapon="B-t3"]', "punch_carbine");
  await b.click('[data-aro="B-t3"] [data-action="shoot"]');

  // A's second skill: BS Attack with the full Burst 3 split on B-t3.
  await a.waitForSelector("#declare-bs:not([disabled])", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  await a.fill('[data-burst="B-t3"]', "3");
  await a.dispatchEvent('[data-burst="B-t3"]', "change");
  await a.waitForFunction(() => document.getElementById("burst-total").textContent.trim() === "3/3", null, WAIT);
  await a.click("#declare-bs");

  const results = async (page) => {
    await page.waitForSelector("#results .roll .die", WAIT);
    return page.$eval("#results .outcome", (x) => x.textContent);
  };
  const [ra, rb, rs] = [await results(a), await results(b), await results(spectator)];
  assert.equal(ra, rb);
  assert.equal(ra, rs);
  assert.match(ra, /A-t5 bs_attack \(line_rifle\)/);
  assert.match(ra, /B-t3 bs_attack \(punch_carbine\)/);
  await shot(a, "06-face-to-face-results");
  await shot(spectator, "07-spectator-results");

  // Reconnect: B's socket drops and its reconnects fail (the URL points nowhere) while A plays;
  // the banner stays up. Then the server is reachable again and B resumes by itself.
  const goodUrl = await b.evaluate(() => window.referee.options.url);
  await b.evaluate(() => { Object.assign(window.referee.options, { url: "ws://127.0.0.1:1/ws", backoff: { initialMs: 100, maxMs: 300 } }); window.referee.dropForTest(); });
  await b.waitForSelector("#banner:not([hidden])", WAIT);
  await a.waitForFunction(() => window.referee.view.seats.B === "away", null, WAIT);
  await a.click("#end-turn");
  await a.waitForFunction(() => window.referee.view.state.active === "B" && !window.referee.view.stale, null, WAIT);
  await shot(b, "08-connection-lost-banner");
  await b.evaluate((url) => { window.referee.options.url = url; }, goodUrl);
  await b.waitForSelector("#banner", { state: "hidden", ...WAIT });
  await reach(b, await version(a));
  assert.equal((await state(b)).active, "B", "B resumed with the events it missed");
  await b.waitForSelector("#end-turn", WAIT); // B is active now and may end its turn

  // A reloaded page gets back into its seat.
  await b.reload();
  await b.waitForFunction(() => window.referee?.view.state && window.referee.role === "B", null, WAIT);
  await reach(b, await version(a));
  await shot(b, "09-reloaded-seat");
  await closeAll(a, b, spectator);
});

test("an ARO window that times out: the undeclared ARO is lost and the order goes on", async () => {
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 1.5, seed: 1 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await a.click('[data-select="A-t5"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 22.5, 6);
  await a.waitForSelector('[data-skill="move"]:not([disabled])', WAIT);
  await a.click('[data-skill="move"]');
  // B does nothing: the server's clock closes the window at its deadline.
  await b.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed" && x.event.reason === "deadline"), null, WAIT);
  assert.match(await b.$eval("#log", (x) => x.textContent), /ARO window closed \(deadline\); lost: B-t3/);
  await shot(b, "10-aro-window-timed-out");
  await a.waitForSelector("#declare-bs", WAIT);
  await a.click("#declare-bs"); // line_rifle, full Burst on the first target
  await a.waitForSelector("#results .roll .die", WAIT);
  await closeAll(a, b);
});
