// A whole N5 game through the UI, from army selection to the final score, in real headless
// Chromium: two players and a spectator in three browser contexts, a late spectator and a
// reload of a seat mid-game, a Coordinated Order, and the Success Value of every shot on
// screen before the player declares it (active shots and AROs alike). Every action is a click in the app (the test reads the seat's
// `options` and view only to decide which click a player would make, and to wait). Fixed dice
// (the room's seed and each seat's contribution, game_by_clicks.mjs openSeat), so a run plays
// the same game every time. Screenshots of the key moments go to
// test-artifacts/browser/whole-*.png for a reviewer to look at.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { artifacts, scenarioForFile } from "./harness.mjs";
import { WAIT, clickAndAnswer, deployByClicks, initiativeByClicks, logged, openSeat, playOrdersToTheEnd, settle, state } from "./game_by_clicks.mjs";

/** Orders each player spends per turn before ending it (the rest are left unspent). */
const ORDERS_PER_TURN = 2;

const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `whole-${name}.png`) });

/** The texts of the event log and of the results panel, as a player reads them. */
const history = (page) => page.evaluate(() => ({
  log: [...document.querySelectorAll("#log li")].map((x) => x.textContent),
  results: document.getElementById("results").textContent,
}));

test("a whole N5 game in the browser: armies, initiative, Hidden Deployment (revealed on its own private Order), Orders with AROs (one declared, one timed out), a reload and a late spectator with the full history, to the final score", async () => {
  const layouts = await (await fetch(`${scenario.base}/api/tables?ruleset=n5`)).json();
  const table = (layouts.tables ?? []).find((t) => !t.id.startsWith("sample"))?.id;
  assert.ok(table, "the server offers a tournament layout for N5");
  const created = await fetch(`${scenario.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "n5", aro_window_s: 8, seed: 3, table }) });
  assert.equal(created.status, 201);
  const room = await created.json();
  const a = await openSeat(scenario, room.seats.A.link, 11);
  const b = await openSeat(scenario, room.seats.B.link, 22);
  const spectator = await open(room.spectator_link);
  assert.equal((await state(a)).table.id, table);

  // Armies: Vesper Raiders bring a Hidden Deployment infiltrator and Impetuous troopers.
  await Promise.all([a.click('[data-army="helion-vanguard"]'), b.click('[data-army="vesper-raiders"]')]);
  // The winner keeps Deployment (south, deploys second); the loser then chooses to play first.
  const winner = await initiativeByClicks(a, b, { beforeChoice: (w) => shot(w, "01-initiative-winner") });
  const settled = (await state(a)).initiative;
  assert.equal(settled.zones[winner], "south");
  assert.equal(settled.first_player, winner === "A" ? "B" : "A");

  // Deployment by clicks on a grid of points of each zone (a point on terrain is refused: the
  // next one is tried); Vesper's infiltrator deploys hidden.
  const hiddenId = (await deployByClicks(a, b)).at(-1) ?? null;
  await settle(a, b, spectator);
  assert.equal((await state(a)).phase === "orders" || (await state(a)).phase === "impetuous", true);
  assert.ok(hiddenId, "Vesper's infiltrator was offered for Hidden Deployment");
  const ownerOfHidden = hiddenId.startsWith("A-") ? a : b;
  const opponentOfHidden = ownerOfHidden === a ? b : a;
  assert.equal((await state(ownerOfHidden)).troopers.find((t) => t.id === hiddenId)?.hidden, true);
  for (const page of [opponentOfHidden, spectator]) {
    assert.equal((await state(page)).troopers.some((t) => t.id === hiddenId), false, "the hidden trooper is not in the opponent's or a spectator's view");
    assert.equal((await page.content()).includes(hiddenId), false, "nor anywhere in their page");
  }
  await shot(ownerOfHidden, "02-deployed-hidden-owner");
  await shot(spectator, "03-deployed-spectator");

  // Orders, turn by turn, until the game ends by itself after its last round.
  const goals = { declared: false, timedOut: false, reloaded: false, late: null, revealed: false,
    coordinated: false, shotPreviews: 0, aroPreviews: 0, confirmShot: false };
  const played = await playOrdersToTheEnd(a, b, {
    watchers: [spectator],
    ordersPerTurn: ORDERS_PER_TURN,
    async onAroWindow({ active, reactive, aros, ids }) {
      if (!goals.declared) {
        const shooter = ids.find((id) => aros[id].bs_attack?.length) ?? ids[0];
        await reactive.waitForSelector(`[data-aro="${shooter}"]`, WAIT);
        if (aros[shooter].bs_attack?.length) { // the player picks a shot: its SV shows before it is declared
          const choice = `[data-aro-choice="${shooter}"]`;
          await reactive.selectOption(choice, await reactive.$eval(`${choice} option[data-kind="shoot"]`, (x) => x.value));
          await reactive.waitForSelector(`[data-aro-sv="${shooter}"]`, WAIT);
          assert.match(await reactive.$eval(`[data-aro-sv="${shooter}"]`, (x) => x.textContent), /= SV -?\d+ at|Direct Template|fails automatically/);
          goals.aroPreviews += 1;
        }
        await shot(reactive, "04-aro-window-reactive");
        await shot(active, "05-aro-window-active");
        assert.equal((await clickAndAnswer(reactive, `[data-aro="${shooter}"] [data-action="declare"]`)).ok, true);
        goals.declared = true;
        if (await reactive.$("#close-window")) await clickAndAnswer(reactive, "#close-window");
        return true;
      }
      if (!goals.timedOut) {
        // Left to its deadline: every viewer sees the countdown, then the notice of lost AROs.
        await spectator.waitForSelector("#countdown, .countdown", WAIT);
        for (const page of [a, b, spectator]) {
          await page.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed" && x.event.reason === "deadline"), null, WAIT);
        }
        await shot(spectator, "06-aro-window-timed-out-spectator");
        goals.timedOut = true;
        return true;
      }
      return false;
    },
    async beforeOrder({ active, mine, spent }) {
      // Mid-game, between Orders, once an Order has been resolved with dice after a declared
      // ARO: a seat reloads and a spectator joins late; both get the whole history back.
      if (!goals.reloaded && (await logged(spectator, "order_resolved")).length >= 1 && goals.declared) {
        await settle(a, b, spectator);
        const beforeReload = await history(b);
        await b.reload();
        await b.waitForFunction(() => window.referee?.view.state, null, WAIT);
        await b.waitForFunction((n) => document.querySelectorAll("#log li").length >= n, beforeReload.log.length, WAIT);
        const afterReload = await history(b);
        assert.deepEqual(afterReload.log, beforeReload.log, "the reloaded seat's event log is the one it showed");
        assert.equal(afterReload.results, beforeReload.results, "and so are its results, dice included");
        await shot(b, "08-reloaded-seat-history");
        goals.late = await open(room.spectator_link);
        const watched = await history(spectator);
        await goals.late.waitForFunction((n) => document.querySelectorAll("#log li").length >= n, watched.log.length, WAIT);
        assert.deepEqual((await history(goals.late)).log, watched.log, "a late spectator gets the whole log");
        assert.equal((await history(goals.late)).results, watched.results);
        await shot(goals.late, "09-late-spectator-history");
        goals.reloaded = true;
        return 0;
      }
      // The hidden trooper's own Order is its owner's secret (seeds 002/004) until the owner
      // reveals the trooper with it: a Reveal click opens an Order like any other.
      if (!goals.revealed && active === ownerOfHidden && (mine.reveal ?? []).includes(hiddenId)) {
        assert.match(await ownerOfHidden.textContent("#orders"), /private 1 /);
        for (const page of [opponentOfHidden, spectator]) assert.doesNotMatch(await page.textContent("#orders"), /private/);
        await shot(ownerOfHidden, "07b-private-order-owner");
        assert.equal((await clickAndAnswer(ownerOfHidden, `[data-reveal="${hiddenId}"]`)).ok, true);
        goals.revealed = true;
        return 1;
      }
      // Once, at the first chance: a Coordinated Order (a Command Token and one Regular Order,
      // DIGEST 3.4) of two troopers of one Combat Group, played to its end like any Order.
      const spearheads = Object.keys(mine.coordinate ?? {});
      if (!goals.coordinated && spearheads.length && spent < ORDERS_PER_TURN) {
        const spearhead = spearheads[0];
        const partner = mine.coordinate[spearhead][0];
        await active.click(`[data-select="${spearhead}"]`);
        await active.waitForSelector(`[data-coordinate="${partner}"]`, WAIT);
        await active.click(`[data-coordinate="${partner}"]`);
        assert.equal((await clickAndAnswer(active, "#coordinate-order")).ok, true);
        await shot(active, "07c-coordinated-order");
        goals.coordinated = true;
        return 1;
      }
      return null;
    },
    async onEndTurn({ active }) {
      if (!goals.confirmShot) { await active.locator("#end-turn-confirm").screenshot({ path: join(artifacts, "whole-07-end-turn-confirm.png") }); goals.confirmShot = true; }
    },
  });
  goals.shotPreviews += played.shotPreviews;
  const pages = [a, b, spectator, goals.late].filter(Boolean);
  for (const page of pages) await page.waitForSelector("#game-over:not([hidden])", WAIT);
  assert.ok(goals.declared, "an ARO was declared in its window");
  assert.ok(goals.timedOut, "an ARO window was left to time out");
  assert.ok(goals.reloaded, "a seat reloaded mid-game");
  assert.ok(goals.revealed, "the hidden trooper revealed itself on its own private Order");
  assert.ok(goals.coordinated, "a Coordinated Order was given");
  assert.ok(goals.shotPreviews > 0 && goals.aroPreviews > 0, `Success Values shown before shots (${goals.shotPreviews}) and AROs (${goals.aroPreviews})`);

  // The final score shown is the server's: the record's game_ended result.
  const record = await (await fetch(`${scenario.base}/api/rooms/${room.room}/record`)).json();
  const ended = record.events.map((e) => e.event).find((e) => e.type === "game_ended");
  assert.ok(ended, "the record ends with game_ended");
  assert.notEqual(ended.result.reason, "concession", "the game ended by itself");
  // The Coordinated Order went through to its resolution: a token spent on it, an Order of
  // two troopers, resolved.
  const events = record.events.map((e) => e.event);
  const token = events.findIndex((e) => e.type === "command_token_spent" && /coordinat/.test(e.use));
  assert.ok(token >= 0, "the record holds the Command Token spent on the Coordinated Order");
  assert.ok(events.slice(token).some((e) => e.type === "order_resolved"), "and the Order resolved");
  for (const page of pages) {
    assert.deepEqual((await state(page)).result, ended.result);
    const shown = await page.$eval("#game-over", (x) => x.textContent);
    for (const [side, vp] of Object.entries(ended.result.victory_points ?? {})) assert.match(shown, new RegExp(`${side}\\D+${vp} VP|${vp} VP`));
  }
  // After the game, the Hidden Deployment trooper is open to everyone.
  await shot(a, "10-game-over-player-a");
  await shot(spectator, "11-game-over-spectator");
  for (const page of pages) await page.context().close();
});
