// A whole N5 game with brought lists, in real headless Chromium (issue 35, "Done when"): seat A
// pastes an army code (written by the project's encoder from the invented data of
// testkit/army_data, which this server reads as its operator's army data), seat B loads a list
// file in the project's army JSON (a shipped list with items of its own the referee does not
// play). Both read the other's not-refereed items and accept; then the game is played to its
// end by clicks (game_by_clicks.mjs: deployment, Orders with moves and shots, AROs answered
// with shots or left to time out, the end of each turn) until the game is over. The record
// says the game ended by itself, holds both acceptances and both lists' items, and shows the
// code's converted weapons fired. Fixed dice (a seed). Screenshots:
// test-artifacts/browser/brought-*.png, and the
// game record brought-record.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { artifacts, closeAll, repo, scenarioForFile } from "./harness.mjs";
import { WAIT, clickAndAnswer, deployByClicks, initiativeByClicks, nextAnswer, openSeat, playOrdersToTheEnd, settle, state } from "./game_by_clicks.mjs";

const scenario = scenarioForFile({ env: { REFEREE_ARMY_DATA: "testkit/army_data" } });

const shot = (page, name, selector = null) => (selector ? page.locator(selector) : page).screenshot({ path: join(artifacts, `brought-${name}.png`) });

/**
 * A's code: the invented Lantern Accord's Lamplighters (one the Lieutenant, one with a
 * launcher the conversion leaves off), a Wirewright (Hacker; a Relay Antenna not refereed), an
 * Ashen Zealot (Impetuous; a CC weapon and a Direct Template; Drift Walk not refereed) and a
 * Loom Keeper with its Loom Mite Peripheral (testkit/army_data/README.md). Every weapon is a
 * converted one (`w-<data weapon id>-<mode>`).
 */
const CODE = { faction: 901, slug: "lantern-accord", name: "Lantern Long Night", points: 300,
  groups: [[[11, 1, 3], [11, 1, 1], [11, 1, 2], [12, 1, 1], [15, 1, 1], [16, 1, 1], [17, 1, 1]]] };

/** B's list file: the shipped Helion Vanguard as a player's own file, two troopers carrying an
 * item the referee does not play (neither in Hidden Deployment nor Combat Jump, so A sees them). */
const shipped = JSON.parse(readFileSync(join(repo, "server", "rules", "data", "armies", "helion-vanguard.json"), "utf8"));
const B_ITEMS = { t2: "Flare Pouch", t7: "Cable Spool" };
const LIST_FILE = {
  ...shipped, id: "my-vanguard", name: "My Vanguard",
  entries: shipped.entries.map((e) => (B_ITEMS[e.id] ? { ...e, not_refereed: [B_ITEMS[e.id]] } : e)),
};

test("a code from the invented data and an inline list file play a whole game in the browser after both players accept each other's not-refereed items", async () => {
  const layouts = await (await fetch(`${scenario.base}/api/tables?ruleset=n5`)).json();
  const table = (layouts.tables ?? []).find((t) => !t.id.startsWith("sample"))?.id;
  assert.ok(table, "the server offers a tournament layout for N5");
  const created = await fetch(`${scenario.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "n5", aro_window_s: 8, seed: 7, table }) });
  assert.equal(created.status, 201);
  const room = await created.json();
  const a = await openSeat(scenario, room.seats.A.link, 11);
  const b = await openSeat(scenario, room.seats.B.link, 22);

  // A pastes the code; B loads the file.
  const { code } = await scenario.post("/test/army_code", CODE);
  await a.waitForSelector("#army-bring:not([hidden]) #army-code:not([disabled])", WAIT);
  await a.fill("#army-code", code);
  const chosenA = await clickAndAnswer(a, "#army-code-send");
  assert.equal(chosenA.ok, true, `the code is accepted: ${chosenA.message}`);
  await b.waitForSelector("#army-bring:not([hidden]) #army-file", WAIT);
  const chosenB = nextAnswer(b);
  await b.setInputFiles("#army-file", { name: "my-vanguard.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(LIST_FILE)) });
  assert.equal((await chosenB).ok, true, "the list file is accepted");

  // The review: each reads the other's items, then both accept.
  for (const page of [a, b]) await page.waitForSelector("#army-review #accept-armies", WAIT);
  const ownA = (await state(a)).armies.A;
  const carried = ownA.entries.flatMap((e) => e.profile.weapons);
  assert.ok(carried.length && carried.every((id) => /^w-\d+-\d+$/.test(id)), `A's troopers carry the weapons the code converted: ${carried}`);
  const itemsA = ownA.entries.flatMap((e) => e.not_refereed ?? []);
  assert.ok(itemsA.includes("Relay Antenna — played without it"), JSON.stringify(itemsA));
  assert.ok(itemsA.includes("Drift Walk — played without it"), JSON.stringify(itemsA));
  const seenByB = await b.textContent('#army-review [data-not-refereed="A"]');
  for (const item of itemsA) assert.ok(seenByB.includes(item), `A's item "${item}" is shown to B: ${seenByB}`);
  const seenByA = await a.textContent('#army-review [data-not-refereed="B"]');
  for (const item of Object.values(B_ITEMS)) assert.ok(seenByA.includes(item), `B's item "${item}" is shown to A: ${seenByA}`);
  await shot(a, "01-review-a");
  await shot(b, "02-review-b");
  assert.equal((await clickAndAnswer(a, "#accept-armies")).ok, true);
  assert.equal((await clickAndAnswer(b, "#accept-armies")).ok, true);

  // Initiative: the winner keeps Deployment (south, deploys second); the loser plays first.
  await initiativeByClicks(a, b);

  await deployByClicks(a, b);
  await settle(a, b);
  assert.ok(["orders", "impetuous"].includes((await state(a)).phase));
  const deployedA = (await state(a)).troopers.filter((t) => t.id.startsWith("A-"));
  assert.equal(deployedA.length, CODE.groups[0].length, "every trooper of the code is on the table");
  await shot(a, "03-deployed-a");

  // Orders to the end. AROs: the first window with a shot on offer is left to time out; every
  // later one is answered with the first shot on offer, else closed without an ARO.
  const goals = { timedOut: false, aroShots: 0 };
  const played = await playOrdersToTheEnd(a, b, {
    async onAroWindow({ reactive, aros, ids }) {
      const shooter = ids.find((id) => aros[id].bs_attack?.length);
      if (!shooter) return false;
      if (!goals.timedOut) {
        await reactive.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed" && x.event.reason === "deadline"), null, WAIT);
        goals.timedOut = true;
        return true;
      }
      await reactive.waitForSelector(`[data-aro="${shooter}"]`, WAIT);
      const choice = `[data-aro-choice="${shooter}"]`;
      await reactive.selectOption(choice, await reactive.$eval(`${choice} option[data-kind="shoot"]`, (x) => x.value));
      assert.equal((await clickAndAnswer(reactive, `[data-aro="${shooter}"] [data-action="declare"]`)).ok, true);
      goals.aroShots += 1;
      if (await reactive.$("#close-window")) await clickAndAnswer(reactive, "#close-window");
      return true;
    },
  });
  for (const page of [a, b]) await page.waitForSelector("#game-over:not([hidden])", WAIT);
  await shot(a, "04-game-over-a");
  await shot(b, "05-game-over-b");
  assert.ok(played.shotPreviews > 0, "shots were declared with their Success Values shown");
  assert.ok(goals.timedOut, "an ARO window was left to time out");

  // The record: the game ended by itself, after both acceptances, with both lists' items.
  const record = await (await fetch(`${scenario.base}/api/rooms/${room.room}/record`)).json();
  writeFileSync(join(artifacts, "brought-record.json"), JSON.stringify(record, null, 1));
  const events = record.events.map((e) => e.event);
  const ended = events.find((e) => e.type === "game_ended");
  assert.ok(ended, "the record ends with game_ended");
  assert.notEqual(ended.result.reason, "concession", "the game ended by itself");
  assert.deepEqual(events.filter((e) => e.type === "armies_accepted").map((e) => e.side).sort(), ["A", "B"]);
  const recorded = (side) => record.not_refereed[side].flatMap((x) => x.items);
  assert.deepEqual(recorded("A").sort(), [...itemsA].sort());
  assert.deepEqual(recorded("B").sort(), Object.values(B_ITEMS).sort());
  for (const page of [a, b]) assert.deepEqual((await state(page)).result, ended.result);

  // A's troopers fired the code's converted weapons (every weapon of A's list is one), in its
  // own Orders or in ARO, and the shots were resolved.
  const attacks = events.filter((e) => ["skill_declared", "aro_declared"].includes(e.type)
    && e.trooper.startsWith("A-") && e.skill?.weapon);
  assert.ok(attacks.length > 0, "A's troopers attacked");
  for (const attack of attacks) assert.match(attack.skill.weapon, /^w-\d+-\d+$/, "with a converted weapon");
  const rolled = events.filter((e) => e.type === "order_resolved").flatMap((e) => e.outcome.rolls ?? [])
    .filter((roll) => roll.trooper.startsWith("A-") && ["bs_attack", "cc_attack"].includes(roll.skill));
  assert.ok(rolled.length > 0 && rolled.every((roll) => /^w-\d+-\d+$/.test(roll.weapon)), "their attacks were rolled with the converted weapons");
  const used = [...new Set(attacks.map((x) => x.skill.weapon))];
  const inAro = attacks.filter((x) => x.type === "aro_declared").length;
  console.log(`A attacked ${attacks.length} times (${inAro} in ARO) with ${used.join(", ")}; ${goals.aroShots} ARO shots declared by clicks; ended: ${ended.result.reason} ${JSON.stringify(ended.result.victory_points ?? {})}`);
  await closeAll(a, b);
});
