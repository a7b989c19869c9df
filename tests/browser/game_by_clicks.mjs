// Playing a game to its end by clicks, as the whole-game browser tests do (whole_game.test.mjs
// with shipped lists, whole_game_brought.test.mjs with a brought code and list file): the
// deployment on a grid of points of each zone, and the Orders loop (shots where a trooper sees
// an enemy, else a move towards the enemy's edge, ARO windows, the end of each turn) until the
// game is over. A test adds its own moments through hooks. The test reads a seat's `options`
// and view only to decide which click a player would make, and to wait.
import assert from "node:assert/strict";
import { WAIT, clickTable, withPagesState } from "./harness.mjs";

export { WAIT };

export const state = (page) => page.evaluate(() => window.referee.view.state);
export const version = (page) => page.evaluate(() => window.referee.view.version);
export const role = (page) => page.evaluate(() => window.referee.role);
/** The seat's options at the version it holds (waits for them). */
export const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};
/** The next answer to a command of this page (listen before the click that sends it). */
export const nextAnswer = (page) => page.evaluate(() => new Promise((resolve) =>
  window.referee.addEventListener("answer", (e) => resolve(e.detail), { once: true })));

/** Click, and wait for the command it sends to be answered; returns the answer. */
export async function clickAndAnswer(page, selector) {
  const answer = nextAnswer(page);
  await page.click(selector);
  return answer;
}

/**
 * The room's latest events: every page waits until it holds the same version (each audience
 * numbers its own events, so "the same" is: no page moves any more after the last answer).
 * The room is quiet once both seats' options are for their current versions.
 */
export async function settle(...pages) {
  for (let round = 0; round < 3; round += 1) {
    const before = await Promise.all(pages.map(version));
    await Promise.all(pages.map((p) => p.waitForFunction(() => !window.referee.view.stale, null, WAIT)));
    for (const p of pages) if ((await role(p)) !== "spectator") await options(p);
    const after = await Promise.all(pages.map(version));
    if (before.every((v, i) => v === after[i])) return;
  }
}

/**
 * Open a seat (in `scenario`, harness.mjs) whose browser draws its "random" bytes from `seed`:
 * its contribution to the dice (sent with its army choice) is then the same every run, and
 * with the room's fixed seed so are the dice, so the test plays the same game each time (the
 * room's seed alone does not fix them: the dice key mixes both players' contributions).
 */
export async function openSeat(scenario, link, seed) {
  const page = await scenario.newPage();
  await page.addInitScript((seed) => {
    let n = seed >>> 0;
    Object.defineProperty(crypto, "getRandomValues", { value: (bytes) => {
      for (let i = 0; i < bytes.length; i += 1) { n = (Math.imul(n, 1103515245) + 12345) >>> 0; bytes[i] = n >>> 24; }
      return bytes;
    } });
  }, seed);
  await page.goto(scenario.base + link);
  await page.waitForFunction(() => window.referee?.view.state, null, WAIT);
  return page;
}

/** The event log of a page as event types, from the view the app holds. */
export const logged = (page, type) => page.evaluate((type) => window.referee.view.log.filter((x) => x.event?.type === type).map((x) => x.event), type);

/**
 * Before a shot is declared the player sees its final Success Value with its MODs (or that a
 * template hits without a roll, or that it fails automatically): every target listed in the
 * shot picker has its preview. Returns how many it checked.
 */
export async function assertShotPreviews(page) {
  const previews = await page.$$eval("[data-shot-sv]", (xs) => xs.map((x) => x.textContent.trim()));
  assert.ok(previews.length > 0, `the shot picker shows a preview beside its targets: ${await page.textContent("#order-panel")}`);
  for (const text of previews) assert.match(text, /= SV -?\d+ at|Direct Template|fails automatically/);
  return previews.length;
}

/**
 * The Initiative by clicks: the roll-off winner keeps Deployment (the south zone, deploying
 * second) and the loser then plays first. `beforeChoice(winnerPage)` runs once the winner's
 * panel shows (e.g. a screenshot). Returns the winner's side once A's page is in deployment.
 */
export async function initiativeByClicks(a, b, { beforeChoice } = {}) {
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.initiative?.winner, null, WAIT)
    .catch(async (error) => { throw await withPagesState(error, [a, b]); });
  const winner = (await state(a)).initiative.winner;
  const [w, l] = winner === "A" ? [a, b] : [b, a];
  await w.waitForSelector("#initiative-panel", WAIT);
  if (beforeChoice) await beforeChoice(w);
  await w.click("#keep-deployment");
  await w.click('#initiative-panel [data-choose-zone="south"]');
  await w.click('#initiative-panel [data-choose-first="false"]');
  await w.click("#confirm-initiative");
  await l.waitForSelector('#initiative-panel [data-choose-first="true"]', WAIT);
  await l.click('#initiative-panel [data-choose-first="true"]');
  await l.click("#confirm-initiative");
  await a.waitForFunction(() => window.referee.view.state.phase === "deployment", null, WAIT);
  return winner;
}

/** Until `done` holds on A's page, B passes every ARO window it is offered (its panel's "Pass
 * all / Done"; a window where B has nothing to declare its app closes by itself). */
export async function passAroWindowsUntil(a, b, done, wait = WAIT) {
  for (;;) {
    const next = await Promise.race([
      a.waitForFunction(done, null, wait).then(() => "done"),
      b.waitForSelector("#close-window:not([disabled])", wait).then(() => "aro"),
    ]);
    if (next === "done") return;
    await b.click("#close-window");
    await b.waitForSelector("#close-window", { state: "hidden", ...wait });
  }
}

/** The default grid: 15 points to a row, 3" apart, rows 2.5" apart from the zone's table edge. */
function edgeGrid(zone, n) {
  const north = zone.y0 > 0;
  const x = zone.x0 + 2 + (n % 15) * 3;
  return [x, north ? zone.y0 + 2 + Math.floor(n / 15) * 2.5 : zone.y1 - 2 - Math.floor(n / 15) * 2.5];
}

/**
 * Deploy both armies by clicks on a grid of points of each zone (a point on terrain, or a
 * Peripheral away from its Controller, is refused: the next point is tried). A trooper the
 * seat may deploy hidden is deployed hidden, first. Returns the ids deployed hidden.
 * `grid(zone, n)`: the seat's n-th point in its zone (the default fits a 48" table);
 * `tries`: clicks at most, against a hung test.
 */
export async function deployByClicks(a, b, { grid = edgeGrid, tries = 200 } = {}) {
  const used = { A: 0, B: 0 };
  const hidden = [];
  for (let guard = 0; guard < tries; guard += 1) {
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
    const trooper = opts.deploy_hidden[0] ?? opts.deploy[0];
    await page.click(`[data-deploy="${trooper}"]`);
    if (opts.deploy_hidden.includes(trooper)) {
      await page.check("#deploy-hidden");
      hidden.push(trooper);
    }
    const [x, y] = grid(zone, used[side]++);
    const answer = nextAnswer(page);
    await clickTable(page, x, y);
    // A Minelayer's click only picks its spot (the Mines come next): it deploys without them.
    if (opts.minelayer?.[trooper]) await page.click("#deploy-without-mines");
    await answer; // accepted, or refused: next point
  }
  return hidden;
}

/**
 * Play Orders, turn by turn, until the game ends by itself after its last round. Each turn the
 * active player spends `ordersPerTurn` Orders (activating the trooper that sees an enemy if
 * one does, else the next one ready: it shoots if it sees someone, else moves towards the
 * enemy's edge, else stays Idle) and ends the turn; an Order's later skills shoot what they
 * see, else Idle. Hooks, each called with `{a, b, active, reactive, state, ...}`:
 * - `onAroWindow({aros, ids, window})`: an ARO window where the reactive seat has troopers to
 *   answer with; returns true once it handled it, else the window is closed (no ARO).
 * - `beforeOrder({mine, spent})`, between Orders (after the Impetuous phase): returns null when it did nothing, else the
 *   number of Orders it spent.
 * - `onEndTurn()`: the active player clicked End turn and a confirmation shows.
 * Returns `{shotPreviews}`: how many shot previews were checked.
 */
export async function playOrdersToTheEnd(a, b, { watchers = [], ordersPerTurn = 2, onAroWindow, beforeOrder, onEndTurn } = {}) {
  const seat = { A: a, B: b };
  const pages = [a, b, ...watchers];
  let shotPreviews = 0;
  let spent = 0;
  let turnKey = "";
  for (let guard = 0; guard < 400; guard += 1) {
    await settle(...pages);
    const s = await state(a);
    if (s.phase === "game_over") return { shotPreviews };
    const key = `${s.round}:${s.turn}:${s.active}`;
    if (key !== turnKey) { turnKey = key; spent = 0; }
    const active = seat[s.active];
    const reactive = active === a ? b : a;
    const at = { a, b, active, reactive, state: s };
    const aroWindow = await a.evaluate(() => window.referee.view.window);
    if (aroWindow) {
      const aros = (await options(reactive)).aros ?? {};
      const ids = Object.keys(aros);
      if (!ids.length) { // the reactive app closes such a window by itself
        await reactive.waitForFunction((w) => window.referee.view.window?.order !== w.order || window.referee.view.window?.step !== w.step, aroWindow, WAIT);
        continue;
      }
      if (onAroWindow && await onAroWindow({ ...at, aros, ids, window: aroWindow })) continue;
      await clickAndAnswer(reactive, "#close-window");
      continue;
    }
    const mine = await options(active);
    if (s.order && mine.skills) { // the Order's next skill: shoot what it sees, else Idle
      const shots = Object.keys(mine.skills.bs_attack ?? {});
      if (shots.length && await active.$("#declare-bs:not([disabled])")) {
        shotPreviews += await assertShotPreviews(active);
        await clickAndAnswer(active, "#declare-bs");
      } else await clickAndAnswer(active, "#declare-idle");
      continue;
    }
    if (s.order) continue; // resolving: the next frame brings it
    if (mine.end_impetuous_phase) { await clickAndAnswer(active, "#end-impetuous"); continue; }
    const done = beforeOrder ? await beforeOrder({ ...at, mine, spent }) : null;
    if (done !== null && done !== undefined) { spent += done; continue; }
    const ready = Object.keys(mine.activate ?? {});
    if (spent >= ordersPerTurn || !ready.length) {
      // The answer to end_turn, whether the app asks to confirm it (Orders left) or not: the
      // next turn's state is read only once the room has moved on.
      const answer = nextAnswer(active);
      await active.click("#end-turn");
      if (await active.$("#confirm-end-turn")) {
        if (onEndTurn) await onEndTurn(at);
        await active.click("#confirm-end-turn");
      }
      await answer;
      continue;
    }
    // Activate the trooper that sees an enemy if one does, else the next one ready, and
    // move it towards the enemy's edge (or shoot at once when it sees someone).
    const sight = mine.sight ?? {};
    const trooper = ready.find((id) => (sight[id] ?? []).length) ?? ready[spent % ready.length];
    await active.click(`[data-select="${trooper}"]`);
    const order = await active.$(`[data-order="regular"]`) ? '[data-order="regular"]' : "[data-order]";
    assert.equal((await clickAndAnswer(active, order)).ok, true);
    spent += 1;
    await settle(...pages);
    const skills = (await options(active)).skills;
    if ((sight[trooper] ?? []).length && await active.$("#declare-bs:not([disabled])")) {
      shotPreviews += await assertShotPreviews(active);
      await clickAndAnswer(active, "#declare-bs");
      continue;
    }
    if (skills?.route_skills?.includes("move")) {
      const t = (await state(active)).troopers.find((x) => x.id === trooper);
      const north = (await state(active)).initiative.zones[await role(active)] === "north";
      let moved = false;
      // Between the columns of the deployment grid (3" apart), so the click lands on open table.
      for (const dx of [1.5, -1.5, 4.5, -4.5]) {
        const dy = north ? -3 : 3;
        await clickTable(active, t.position[0] + dx, t.position[1] + dy);
        if (!await active.$('[data-skill="move"]:not([disabled])')) { await active.click("#clear-route"); continue; }
        const answer = await clickAndAnswer(active, '[data-skill="move"]');
        if (answer.ok) { moved = true; break; }
        await active.click("#clear-route");
      }
      if (moved) continue;
    }
    await clickAndAnswer(active, "#declare-idle");
  }
  assert.fail("the game did not end within 400 steps of the loop");
}
