// Practice against the referee's bot from the lobby, in real headless Chromium: the form's
// "Practice against the referee's bot" (seat and level) makes the room and opens the human's
// seat at once; the bot, seated in B, plays from its own seat's frames while the human plays
// by clicks: army, Initiative, deployment on a grid of its zone, then, each turn, End turn
// (and Pass on its ARO windows, Guts by default) until the game ends by the rules. The bot
// chooses its army, deploys, spends Orders and shoots. The server's seat budgets of loop
// time are raised: here the rules core runs from its Python sources (the bot is budgeted
// like any seat).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, clickTable, scenarioForFile, withPagesState } from "./harness.mjs";

const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const scenario = scenarioForFile({ env: {
  REFEREE_WORK_SEAT_MS_PER_S: "1000", REFEREE_WORK_SEAT_BURST_MS: "5000", REFEREE_WORK_NODE_SHARE: "1.0" } });
const state = (page) => page.evaluate(() => window.referee.view.state);
const until = (page, predicate) => page.waitForFunction(`(() => { const v = window.referee.view; return v.state && !v.stale && (${predicate})(v.state); })()`, null, WAIT);
const nextAnswer = (page) => page.evaluate(() => new Promise((resolve) =>
  window.referee.addEventListener("answer", (e) => resolve(e.detail), { once: true })));
const PROGRESS = ["deploy", "end_deployment_step", "close_aro_window", "guts_move", "end_turn", "end_impetuous_phase"];

test("a game against the bot from the lobby: the human clicks, the bot plays its seat to the end", async () => {
  const page = await scenario.newPage();
  await page.goto(scenario.base + "/");
  await page.waitForSelector("#bot-seat", WAIT);
  await page.selectOption("#ruleset", "codeone");
  await page.waitForSelector('#table-select option[value="sample-open-codeone"]', { state: "attached", ...WAIT });
  await page.selectOption("#table-select", "sample-open-codeone");
  await page.selectOption("#bot-seat", "B");
  await page.selectOption("#bot-level", "sensible");
  await page.click("#create-room");
  await page.waitForFunction(() => /token=/.test(location.hash) && window.referee?.view.state, null, WAIT);
  assert.equal(await page.evaluate(() => window.referee.role), "A", "the human's seat is A");
  await page.click('[data-army="helion-c1-patrol"]');
  await until(page, (s) => s.phase === "initiative" && s.initiative?.winner);
  assert.ok((await state(page)).armies.B, "the bot chose its army");
  if ((await state(page)).initiative.winner === "A") {
    await page.waitForSelector("#initiative-panel", WAIT);
    await page.click("#keep-deployment");
    await page.click('#initiative-panel [data-choose-zone="south"]');
    await page.click('#initiative-panel [data-choose-first="false"]');
    await page.click("#confirm-initiative");
  } else {
    // The bot kept the Initiative: the human picks its zone (when asked) and deploys first.
    await page.waitForSelector('#initiative-panel [data-choose-first="true"]', WAIT);
    if (await page.$('#initiative-panel [data-choose-zone="south"]')) await page.click('#initiative-panel [data-choose-zone="south"]');
    await page.click('#initiative-panel [data-choose-first="true"]');
    await page.click("#confirm-initiative");
  }
  await until(page, (s) => s.phase !== "initiative");

  let grid = 0;
  let shown = false;
  for (let guard = 0; guard < 800; guard += 1) {
    await page.waitForFunction(() => !window.referee.view.stale, null, WAIT);
    // The state and its version in one read: a frame between two reads (the game's end
    // after our end_turn) would pair the state before it with the version after it.
    const { s, at } = await page.evaluate(() => ({ s: window.referee.view.state, at: window.referee.view.version }));
    if (s.phase === "game_over") break;
    if (!shown && s.round === 2) {
      shown = true;
      await shot(page, "bot-round-2");
    }
    const opts = await page.evaluate(() => window.referee.currentOptions());
    if (!opts || !PROGRESS.some((k) => (Array.isArray(opts[k]) ? opts[k].length : opts[k]))) {
      // The bot's move (or our options on their way): wait for the next version or options.
      await page.waitForFunction((v) => window.referee.view.version !== v || window.referee.currentOptions(), at, WAIT);
      if (!opts) continue;
      // Options none of which moves the game on: the next version is the bot's (or the
      // clock's). A timeout here says what the human was offered, to see what it waited on.
      await page.waitForFunction((v) => window.referee.view.version !== v, at, WAIT).catch(async (error) => {
        throw await withPagesState(new Error(`no new version after ${at} in ${s.phase} (round ${s.round}); ` +
          `the human was offered ${JSON.stringify(opts).slice(0, 400)}: ${error.message}`), [page]);
      });
      continue;
    }
    if (opts.deploy?.length) {
      const zone = s.deployment_zones[s.initiative.zones.A];
      const trooper = opts.deploy[0];
      await page.click(`[data-deploy="${trooper}"]`);
      const n = grid++;
      const x = zone.x0 + 1.5 + (n % 10) * 2.2, y = zone.y0 > 0 ? zone.y0 + 1.5 + Math.floor(n / 10) * 2 : zone.y1 - 1.5 - Math.floor(n / 10) * 2;
      const answer = nextAnswer(page);
      await clickTable(page, x, y);
      await answer;
    } else if (opts.end_deployment_step) {
      const answer = nextAnswer(page);
      await page.click("#end-deployment");
      await answer;
    } else if (opts.guts_move) {
      const answer = nextAnswer(page);
      await page.click("#guts-default");
      await answer;
    } else if (opts.close_aro_window) {
      const closing = page.waitForFunction((v) => window.referee.view.version !== v || !window.referee.view.window, at, WAIT);
      if (await page.$("#close-window:not([disabled])")) await page.click("#close-window");
      await closing; // (a window with nothing to declare the app closes by itself)
    } else if (opts.end_impetuous_phase) {
      const answer = nextAnswer(page);
      await page.click("#end-impetuous");
      await answer;
    } else if (opts.end_turn) {
      // The answer to end_turn, whether the app asks to confirm it (Orders left) or not.
      const answer = nextAnswer(page);
      await page.click("#end-turn");
      if (await page.$("#confirm-end-turn")) await page.click("#confirm-end-turn");
      await answer;
    }
  }
  const end = await state(page);
  await shot(page, "bot-game-over");
  assert.equal(end.phase, "game_over", "the game ended");
  assert.ok(["rounds_completed", "retreat"].includes(end.result.reason), end.result.reason);
  const log = await page.evaluate(() => window.referee.view.log.map((x) => x.event).filter(Boolean));
  assert.ok(log.some((e) => e.type === "trooper_deployed" && String(e.trooper).startsWith("B-")), "the bot deployed");
  assert.ok(log.some((e) => e.type === "order_spent" && String(e.trooper).startsWith("B-")), "the bot spent Orders");
  await page.context().close();
});
