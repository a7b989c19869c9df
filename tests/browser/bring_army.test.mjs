// Bringing one's own list in the browser (issue 35): seat A pastes an army code (built by the
// project's encoder from the invented data of testkit/army_data, which this server reads as its
// operator's army data), seat B loads a list file in the project's army JSON. Each sees the
// other's items the referee does not play (a spectator both lists'), both accept, and the game
// reaches the Initiative.
// A bad code and a file that is not JSON are refused next to their fields, the code with the
// server's own message. Screenshots: test-artifacts/browser/bring-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile, startScenario } from "./harness.mjs";

const scenario = scenarioForFile({ env: { REFEREE_ARMY_DATA: "testkit/army_data" } });

const state = (page) => page.evaluate(() => window.referee.view.state);
const shot = (page, name, selector = null) => (selector ? page.locator(selector) : page).screenshot({ path: join(artifacts, `bring-${name}.png`) });
const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};
/** The next answer to a command of this page (listen before the click that sends it). */
const nextAnswer = (page) => page.evaluate(() => new Promise((resolve) =>
  window.referee.addEventListener("answer", (e) => resolve(e.detail), { once: true })));
async function clickAndAnswer(page, selector) {
  const answer = nextAnswer(page);
  await page.click(selector);
  return answer;
}

/** B's list file: the project's army JSON (docs/armies.md), one trooper carrying an item the referee does not play. */
const LIST_FILE = {
  id: "ember-patrol", name: "Ember Patrol", faction: "Cinder Compact", format: "standard", points: 150,
  units: [
    { id: "ember", name: "Ember Regular", troop_type: "li", training: "regular", mov: [4, 4], cc: 13, bs: 11, ph: 10, wip: 13,
      arm: 1, bts: 0, vita: 1, structure: false, silhouette: 2, weapons: ["line_rifle", "sidearm", "combat_knife"], cost: 12, swc: 0 },
    { id: "warden", name: "Ember Warden", troop_type: "mi", training: "regular", mov: [4, 4], cc: 15, bs: 12, ph: 11, wip: 14,
      arm: 2, bts: 3, vita: 1, structure: false, silhouette: 2, weapons: ["line_rifle", "sidearm"], cost: 24, swc: 0 },
  ],
  entries: [
    { id: "t1", unit: "warden", combat_group: 1, lieutenant: true },
    { id: "t2", unit: "ember", combat_group: 1, not_refereed: ["Glare Visor"] },
    { id: "t3", unit: "ember", combat_group: 1 },
    { id: "t4", unit: "ember", combat_group: 1 },
  ],
};

/** Each not-refereed item a seat's own view lists on its entries. */
const ownItems = async (page) => (await state(page)).armies[await page.evaluate(() => window.referee.role)].entries
  .flatMap((e) => e.not_refereed ?? []);

test("seat A pastes an army code, seat B loads a list file; both read the other's not-refereed items, accept, and the game reaches the Initiative", async () => {
  const created = await fetch(`${scenario.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "n5", aro_window_s: 8, seed: 5 }) });
  assert.equal(created.status, 201);
  const room = await created.json();
  const a = await scenario.open(room.seats.A.link, WAIT);
  const b = await scenario.open(room.seats.B.link, WAIT);

  // Both ways are offered: this server has army data.
  assert.deepEqual([...(await options(a)).bring_army].sort(), ["code", "list"]);
  await a.waitForSelector("#army-bring:not([hidden]) #army-code:not([disabled])", WAIT);
  await shot(a, "01-army-step");

  // A bad code: refused with the server's own message, next to the field.
  await a.fill("#army-code", "this is not an army code at all, just words");
  const refused = await clickAndAnswer(a, "#army-code-send");
  assert.equal(refused.ok, false);
  assert.ok(["bad_army_list", "bad_command"].includes(refused.code), `refused as a bad list: ${refused.code}`);
  await a.waitForFunction(() => document.getElementById("army-code-error").textContent.length > 0, null, WAIT);
  const said = await a.textContent("#army-code-error");
  assert.ok(said.includes(refused.message), `the field says the server's message: ${said}`);
  assert.ok(said.includes(refused.code));
  await shot(a, "02-bad-code", "#army-picker");

  // A's real code: Lamplighters (one the Lieutenant) and a Wirewright of the invented Lantern Accord.
  const { code } = await scenario.post("/test/army_code", { faction: 901, slug: "lantern-accord", name: "Lantern Night Shift", points: 150,
    groups: [[[11, 1, 3], [11, 1, 1], [11, 1, 2], [12, 1, 1]]] });
  await a.fill("#army-code", code);
  const chosenA = await clickAndAnswer(a, "#army-code-send");
  assert.equal(chosenA.ok, true, `the code is accepted: ${chosenA.message}`);
  await a.waitForSelector("#own-list", WAIT);
  const ownList = await a.textContent("#own-list");
  assert.match(ownList, /Lamplighter/);
  assert.match(ownList, /Wirewright/);
  assert.match(ownList, /Lieutenant \(secret\)/);
  assert.match(ownList, /Combat Group 1/);
  assert.match(ownList, /\d+ pts/);
  assert.equal(await a.isHidden("#army-picker"), true, "the picker is gone once the list is chosen");
  await shot(a, "03-imported-roster");

  // B: a file that is not JSON is refused before anything is sent; then the list file.
  await b.waitForSelector("#army-bring:not([hidden]) #army-file", WAIT);
  await b.setInputFiles("#army-file", { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("Ember x3, a Warden") });
  await b.waitForFunction(() => document.getElementById("army-file-error").textContent.includes("is not a JSON file"), null, WAIT);
  assert.equal((await state(b)).armies.B, undefined, "nothing was chosen");
  const chosenB = nextAnswer(b);
  await b.setInputFiles("#army-file", { name: "ember-patrol.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(LIST_FILE)) });
  assert.equal((await chosenB).ok, true, "the list file is accepted");

  // The review: each sees the other's items (from the summary) and its own.
  for (const page of [a, b]) await page.waitForSelector("#army-review #accept-armies", WAIT);
  const itemsA = await ownItems(a);
  const itemsB = await ownItems(b);
  assert.deepEqual(itemsB, ["Glare Visor"]);
  for (const [page, theirs, side] of [[a, itemsB, "B"], [b, itemsA, "A"]]) {
    const block = await page.textContent(`#army-review [data-not-refereed="${side}"]`);
    for (const item of theirs) assert.ok(block.includes(item), `${side}'s item "${item}" is shown to its opponent: ${block}`);
  }
  assert.match(await a.textContent('#army-review [data-not-refereed="B"]'), /Ember Regular \(Combat Group 1\)Glare Visor/);
  // The code's conversion names what the referee does not play (the Wirewright's Relay Antenna).
  assert.ok(itemsA.includes("Relay Antenna — played without it"), JSON.stringify(itemsA));
  // A spectator reads both lists' open items, each under its player.
  const spectator = await scenario.open(room.spectator_link, WAIT);
  await spectator.waitForSelector("#army-review", WAIT);
  assert.match(await spectator.textContent('#army-review [data-not-refereed="A"]'), /Player A's list, Lantern Night Shift.*Relay Antenna — played without it/s);
  assert.match(await spectator.textContent('#army-review [data-not-refereed="B"]'), /Player B's list, Ember Patrol.*Glare Visor/s);
  assert.equal(await spectator.$("#accept-armies"), null, "a spectator has nothing to accept");
  await shot(a, "04-review-a");
  await shot(b, "05-review-b");

  // A accepts: waits for B; B's log says A accepted. Then B accepts: the Initiative.
  assert.equal((await clickAndAnswer(a, "#accept-armies")).ok, true);
  await a.waitForSelector("#accept-waiting", WAIT);
  assert.match(await a.textContent("#accept-waiting"), /Waiting for the opponent to accept/);
  await b.waitForFunction(() => [...document.querySelectorAll("#log li")].some((li) => li.textContent.includes("Player A accepted both lists")), null, WAIT);
  assert.match(await b.textContent("#army-review"), /Your opponent has accepted/);
  await spectator.waitForFunction(() => document.getElementById("accept-waiting")?.textContent === "Player A has accepted. Player B has not accepted yet.", null, WAIT);
  await shot(a, "06-accepted-waiting");
  assert.equal((await clickAndAnswer(b, "#accept-armies")).ok, true);
  for (const page of [a, b]) {
    await page.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.phase === "initiative", null, WAIT);
    await page.waitForSelector("#initiative-panel", WAIT);
    assert.equal(await page.isHidden("#army-review"), true);
  }
  await shot(b, "07-initiative");
  await closeAll(a, b, spectator);
});

test("on a server without army data the code field is disabled and says why; a list over its points is refused next to the file field; the how-to's example list is accepted", async () => {
  const bare = await startScenario({ env: { REFEREE_ARMY_DATA: "" } });
  try {
    const created = await fetch(`${bare.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ ruleset: "n5", aro_window_s: 8, seed: 5 }) });
    const room = await created.json();
    const a = await bare.open(room.seats.A.link, WAIT);
    assert.deepEqual((await options(a)).bring_army, ["list"]);
    await a.waitForSelector("#army-bring:not([hidden]) #army-code[disabled]", WAIT);
    assert.equal(await a.isDisabled("#army-code-send"), true);
    assert.match(await a.textContent("#army-code-note"), /This server has no army data, so it cannot read army codes: load a list file instead/);
    await shot(a, "08-no-army-data", "#army-picker");
    const over = { ...LIST_FILE, points: 30 };
    const answer = nextAnswer(a);
    await a.setInputFiles("#army-file", { name: "over.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(over)) });
    const refused = await answer;
    assert.equal(refused.ok, false);
    assert.equal(refused.code, "bad_army_list");
    await a.waitForFunction(() => document.getElementById("army-file-error").textContent.length > 0, null, WAIT);
    const said = await a.textContent("#army-file-error");
    assert.ok(said.startsWith("over.json: ") && said.includes(refused.message) && said.includes("bad_army_list"), said);
    assert.equal((await state(a)).armies.A, undefined, "nothing was chosen");
    await shot(a, "09-over-limit", "#army-picker");
    // The example list file of How to play here is a list this server accepts.
    const howTo = await a.context().newPage();
    await howTo.goto(`${bare.base}/how-to.html#h-own-list`);
    const example = await howTo.textContent("pre.example");
    await howTo.screenshot({ path: join(artifacts, "bring-10-how-to.png") });
    await howTo.close();
    const accepted = nextAnswer(a);
    await a.setInputFiles("#army-file", { name: "example.json", mimeType: "application/json", buffer: Buffer.from(example) });
    assert.equal((await accepted).ok, true, "the how-to's example list is accepted");
    await a.waitForSelector("#own-list", WAIT);
    assert.equal(await a.textContent("#army-file-error"), "", "the earlier refusal is gone");
    await closeAll(a);
  } finally {
    await bare.stop();
  }
});
