// Practice against the referee's bot from the lobby, in real headless Chromium: the form's
// "Practice against the referee's bot" (seat and level) makes the room and opens the human's
// seat at once; the bot, seated in B, chooses its army and answers the Initiative roll-off
// from its own seat's frames while the human clicks. (A whole game by clicks against the bot
// is not here yet: docs/bot.md, the whole bot games are tests/bot/.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { scenarioForFile } from "./harness.mjs";

const WAIT = { timeout: 30000 };
const scenario = scenarioForFile();
const state = (page) => page.evaluate(() => window.referee.view.state);
const until = (page, predicate) => page.waitForFunction(`(() => { const v = window.referee.view; return v.state && !v.stale && (${predicate})(v.state); })()`, null, WAIT);

test("the lobby seats the bot in B and opens the human's seat A; the bot chooses its army and plays the Initiative", async () => {
  const page = await scenario.newPage();
  await page.goto(scenario.base + "/");
  await page.waitForSelector("#bot-seat", WAIT);
  await page.selectOption("#ruleset", "codeone");
  await page.selectOption("#bot-seat", "B");
  await page.selectOption("#bot-level", "sensible");
  await page.click("#create-room");
  await page.waitForFunction(() => /token=/.test(location.hash) && window.referee?.view.state, null, WAIT);
  assert.equal(await page.evaluate(() => window.referee.role), "A", "the human's seat is A");
  await page.click('[data-army="helion-c1-patrol"]');
  await until(page, (s) => s.phase === "initiative" && s.initiative?.winner);
  assert.ok((await state(page)).armies.B, "the bot chose its army");
  const winner = (await state(page)).initiative.winner;
  if (winner === "A") {
    await page.waitForSelector("#initiative-panel", WAIT);
    await page.click("#keep-deployment");
    await page.click('#initiative-panel [data-choose-zone="south"]');
    await page.click('#initiative-panel [data-choose-first="false"]');
    await page.click("#confirm-initiative");
  } else {
    await page.waitForSelector('#initiative-panel [data-choose-first="true"]', WAIT);
    await page.click('#initiative-panel [data-choose-first="true"]');
    await page.click("#confirm-initiative");
  }
  await until(page, (s) => s.phase === "deployment");
  await page.context().close();
});
