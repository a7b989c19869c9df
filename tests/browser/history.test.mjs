// The event log and the results survive a reload: a seat and a spectator reload in the middle
// of a game (after an Order with dice) and show exactly what they showed before, and a
// spectator who joins late sees the same; later live events append without duplicates.
// Real headless Chromium against tests/browser/scenario_server.py, as game.test.mjs; every
// wait is on a DOM or view condition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);

const json = (path, body) => scenario.post(path, body);

/** What a page shows of the game's past: the log and the results, exactly (markup included). */
const shown = (page) => page.evaluate(() => ({ log: document.getElementById("log").innerHTML, results: document.getElementById("results").innerHTML }));

/** Wait until the page's view has reached `atLeast` and its log holds every event of the view,
 * each version once and in order. Without `atLeast`, a page that has not yet received the
 * latest events counts as complete at its older version. */
async function logComplete(page, atLeast = 1) {
  await page.waitForFunction((atLeast) => {
    const items = [...document.querySelectorAll("#log li[data-version]")].map((x) => Number(x.dataset.version));
    const v = window.referee.view.version;
    return v >= atLeast && items.length === v && items.every((n, i) => n === i + 1);
  }, atLeast, WAIT);
}

/** Wait until the page shows exactly `expected` (after a reload or a late join). */
const showsAgain = (page, expected) => page.waitForFunction((expected) =>
  document.getElementById("log").innerHTML === expected.log && document.getElementById("results").innerHTML === expected.results, expected, WAIT);

const PLACEMENTS = {
  "A-t5": [22.5, 4.0, 90.0], "B-t3": [22.5, 28.0, 270.0], "B-t4": [1.5, 30.0, 90.0],
  "A-t1": [3.5, 1.5, 90.0], "B-t1": [3.5, 30.5, 90.0],
};

test("a seat and a spectator reload mid-game and show the same log and results; a late spectator too", async () => {
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 120, seed: 1 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);

  // An Order with dice: A moves, B shoots back (its default ARO, declared with Enter), A shoots.
  await a.click('[data-select="A-t5"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 22.5, 6);
  await a.waitForSelector('[data-skill="move"]:not([disabled])', WAIT);
  await a.click('[data-skill="move"]');
  await b.waitForSelector('[data-aro="B-t3"] [data-aro-choice]', WAIT);
  await b.keyboard.press("Enter");
  await a.waitForSelector("#declare-bs:not([disabled])", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  await a.click("#declare-bs");
  for (const page of [a, b, spectator]) await page.waitForSelector("#results .outcome .die", WAIT);
  for (const page of [b, spectator]) await logComplete(page);
  const before = { b: await shown(b), spectator: await shown(spectator) };
  assert.match(before.spectator.results, /die (success|critical|miss|cancelled)/);
  assert.match(before.spectator.log, /ARO declared: .*Enforcer 1/);

  await b.reload();
  await spectator.reload();
  for (const page of [b, spectator]) await page.waitForFunction(() => window.referee?.view.state, null, WAIT);
  await showsAgain(b, before.b);
  await showsAgain(spectator, before.spectator);
  assert.deepEqual(await shown(b), before.b);
  assert.deepEqual(await shown(spectator), before.spectator);
  await b.screenshot({ path: join(artifacts, "21-history-after-reload-seat.png") });

  const late = await open(room.spectator_link);
  await showsAgain(late, before.spectator);
  assert.deepEqual(await shown(late), before.spectator);
  await late.locator("#side").screenshot({ path: join(artifacts, "22-history-late-spectator.png") });

  // Later live events append, once each, in every tab alike.
  await a.waitForSelector("#end-turn", WAIT);
  await a.click("#end-turn");
  await a.click("#confirm-end-turn"); // A has Orders left
  await a.waitForFunction(() => window.referee.view.state.active === "B" && !window.referee.view.stale, null, WAIT);
  const version = await a.evaluate(() => window.referee.view.version);
  for (const page of [b, spectator, late]) await logComplete(page, version);
  assert.deepEqual(await shown(late), await shown(spectator));
  assert.ok((await shown(b)).log.startsWith(before.b.log.slice(0, -"</li>".length)), "the reloaded seat's log continues what it showed");
  await Promise.all([a, b, spectator, late].map((p) => p.context().close()));
});
