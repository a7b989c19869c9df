// Command Tokens in the browser app (N5, DIGEST 3.3; seed 002 Executive Use), in real
// headless Chromium against tests/browser/scenario_server.py: every viewer's status bar shows
// both players' tokens; the second player gets a button for each Strategic use the server
// offers in the first player's first turn, the Active Player one for each Executive use; the
// spent tokens are log lines for all. Screenshot: test-artifacts/browser/command-tokens-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, assertFoldedWithoutSnapshot, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);

const json = (path, body) => scenario.post(path, body);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};
const tokensShown = (page, text) => page.waitForFunction((text) => document.getElementById("command-tokens").textContent === text, text, WAIT);
const logged = (page, pattern) => page.waitForFunction((source) => new RegExp(source).test(document.getElementById("log").textContent), pattern.source, WAIT);

// A's whole list but its Peripherals stands on the table: 10 Regular Orders in Combat Group 1
// and 4 in Combat Group 2, more than 10, so B may remove 2 of them (DIGEST 3.3).
const PLACEMENTS = {
  ...Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`A-t${i + 1}`, [3 + (i % 7) * 6, i < 7 ? 3 : 9, 90]])),
  "B-t1": [3.5, 44, 270], "B-t3": [24, 44, 270],
};

test("Command Tokens: counts for all, Strategic buttons for the second player, an Executive transfer, log lines", async () => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  for (const page of [a, b, spectator]) await tokensShown(page, "A 4 | B 4");

  // B, second player, in A's first turn right after its Order Count: the two Strategic uses.
  await b.waitForSelector("#command-token-panel:not([hidden])", WAIT);
  const offeredB = (await options(b)).command_tokens;
  assert.deepEqual(await b.$$eval("[data-command-token]", (xs) => xs.map((x) => x.dataset.commandToken)),
    ["limit_tokens", "remove_orders:1,1", "remove_orders:1,2", "remove_orders:2,2"]);
  // (and one Suppressive Fire use per trooper, shown for the selected trooper only)
  assert.equal(offeredB.filter((body) => body.use !== "suppressive_fire").length, 4);
  // A, the Active Player: Executive transfers only, for the selected trooper; the spectator: no panel.
  await a.waitForSelector("#command-token-panel:not([hidden])", WAIT);
  assert.match(await a.$eval("#command-token-panel", (x) => x.textContent), /select one of your troopers to move it to another Combat Group/);
  assert.equal(await a.$("[data-command-token]"), null, "no trooper selected: no transfer button");
  assert.ok((await options(a)).command_tokens.every((body) => body.use === "transfer_trooper"));
  await a.click('[data-select="A-t7"]');
  await a.waitForSelector('[data-command-token="transfer_trooper:A-t7:2"]', WAIT);
  assert.deepEqual(await a.$$eval("[data-command-token]", (xs) => xs.map((x) => x.dataset.commandToken)), ["transfer_trooper:A-t7:2"]);
  await shot(a, "command-tokens-executive-panel");
  assert.equal(await spectator.$eval("#command-token-panel", (x) => x.hidden), true);

  await b.click('[data-command-token="remove_orders:1,2"]');
  for (const page of [a, b, spectator]) {
    await logged(page, /Player B spends a Command Token \(Strategic\): 2 Regular Orders removed from the opponent's pools \(G1, G2\); 3 left/);
    await tokensShown(page, "A 4 | B 3");
  }
  await a.waitForFunction(() => JSON.stringify(window.referee.view.state.orders.pools) === '{"1":9,"2":3}', null, WAIT);

  await b.click('[data-command-token="limit_tokens"]');
  for (const page of [a, b, spectator]) await tokensShown(page, "A 4 (1 this turn) | B 2");
  // Both uses above are spent; what B may still do is put a trooper into Suppressive Fire,
  // offered for the selected trooper only: no button while none is selected.
  await b.waitForFunction(() => document.querySelectorAll("[data-command-token]").length === 0, null, WAIT);
  assert.ok((await options(b)).command_tokens.every((body) => body.use === "suppressive_fire"));

  await a.click('[data-command-token="transfer_trooper:A-t7:2"]');
  for (const page of [a, b, spectator]) {
    await logged(page, /Player A spends a Command Token \(Executive\): Lancer \d+ joins Combat Group 2; 3 left/);
    await tokensShown(page, "A 3 (1 this turn) | B 2");
  }
  await a.waitForSelector("#command-token-panel", { state: "hidden", ...WAIT });
  assert.deepEqual((await options(a)).command_tokens, [], "held to one token this turn");
  await a.waitForFunction(() => JSON.stringify(window.referee.view.state.orders.pools) === '{"1":8,"2":4}', null, WAIT);
  await shot(spectator, "command-tokens-spectator-log");
  await shot(a, "command-tokens-active-player");
  // B's Player Turn: the limit on A is over, in every view, and no view needs a snapshot
  // to know it.
  await a.click("#end-turn");
  await a.click("#confirm-end-turn"); // A has Orders left
  for (const page of [a, b, spectator]) {
    await tokensShown(page, "A 3 | B 2");
    await assertFoldedWithoutSnapshot(page, /turn_started/);
  }
  await shot(b, "command-tokens-next-turn");
  await closeAll(a, b, spectator);
});

test("a Coordinated Order started from the order panel: the Spearhead, a ticked Lancer, 1 token and 1 Regular Order", async () => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const a = await open(room.seats.A.link);
  const spectator = await open(room.spectator_link);
  await a.click('[data-select="A-t7"]');
  await a.waitForSelector('[data-coordinate="A-t8"]', WAIT);
  assert.deepEqual(await a.$$eval("[data-coordinate]", (xs) => xs.map((x) => x.dataset.coordinate)), (await options(a)).coordinate["A-t7"]);
  assert.equal(await a.$eval("#coordinate-order", (x) => x.disabled), true, "nobody ticked yet");
  await a.click('[data-coordinate="A-t8"]');
  await a.waitForSelector("#coordinate-order:not([disabled])", WAIT);
  await shot(a, "command-tokens-coordinate-form");
  await a.click("#coordinate-order");
  for (const page of [a, spectator]) {
    await logged(page, /Player A spends a Command Token on a Coordinated Order \(Combat Group 1\), Spearhead Lancer \d+; 3 left/);
    await tokensShown(page, "A 3 | B 4");
  }
  await a.waitForFunction(() => JSON.stringify(window.referee.view.state.order?.peripherals) === '["A-t8"]', null, WAIT);
  assert.equal((await options(a)).skills.coordinated, true);
  assert.equal((await options(a)).skills.bs_attack.line_rifle?.burst ?? 2, 2, "the Spearhead's Burst: 3 halved, rounded up");
  // The panel names the Order's troopers as the table does; their ids are in the tooltips.
  await a.waitForFunction(() => /Coordinated Order \d+: Spearhead Lancer \d with Lancer \d: declare skill/.test(document.getElementById("order-panel").textContent), null, WAIT);
  assert.deepEqual(await a.$$eval("#order-panel .trooper", (xs) => xs.slice(0, 2).map((x) => /id (A-t\d+)/.exec(x.title)?.[1])), ["A-t7", "A-t8"]);
  // The BS Attack's one target, and what the other trooper does with it (coordinated_order.test.mjs plays it out).
  assert.match(await a.$eval("#coordinated-troopers", (x) => x.textContent), /^With it:Lancer \d: /);
  await shot(a, "command-tokens-coordinated-order");
  await closeAll(a, spectator);
});

test("Command Tokens: B's Strategic panel before any is spent (screenshot)", async () => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, placements: PLACEMENTS });
  const b = await open(room.seats.B.link);
  await b.waitForSelector("#command-token-panel:not([hidden])", WAIT);
  await shot(b, "command-tokens-strategic-panel");
  await closeAll(b);
});

test("CodeOne has no Command Tokens: the status shows none and no panel is offered", async () => {
  const room = await json("/test/scenario", { ruleset: "codeone", aro_window_s: 120, seed: 1,
    placements: { "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 30.5, 90] } });
  const a = await open(room.seats.A.link);
  await tokensShown(a, "-");
  assert.deepEqual((await options(a)).command_tokens, []);
  assert.equal(await a.$eval("#command-token-panel", (x) => x.hidden), true);
  await closeAll(a);
});
