// verify.js against a record whose dice the server's own functions made
// (test/make_record_fixture.py -> test/fixtures/record.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { verifyRecord, diceCommitment, diceKey } from "../src/verify.js";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/record.json", import.meta.url), "utf8"));
const copy = () => structuredClone(fixture);
/** The n-th record entry whose event generated dice. */
const rolling = (record, n) => record.events.filter((e) => e.event.dice?.drawn.length)[n];

test("the fixture record verifies: every die, the commitment and the key", async () => {
  const result = await verifyRecord(copy());
  assert.equal(result.ok, true, result.problem);
  assert.equal(result.dice, 48);
  assert.equal(result.events, 12);
  assert.equal(result.commitment, fixture.dice.commitment);
  assert.equal(result.key, rolling(fixture, 0).event.dice.key);
});

test("commitment and key are the server's (same bytes in, same hex out)", async () => {
  assert.equal(await diceCommitment(fixture.dice.secret), fixture.dice.commitment);
  const { A, B } = fixture.dice.contributions;
  assert.equal(await diceKey(fixture.dice.secret, A, B), rolling(fixture, 0).event.dice.key);
});

test("a changed die is found and named: its number, its event and both faces", async () => {
  const record = copy();
  const entry = rolling(record, 2); // order 3: dice 6..10
  const first = entry.event.dice.cursor - entry.event.dice.drawn.length;
  const was = entry.event.dice.drawn[1];
  entry.event.dice.drawn[1] = was === 20 ? 1 : was + 1;
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.die, first + 1);
  assert.equal(result.event, entry.index);
  assert.match(result.problem, new RegExp(`^Die ${first + 1} \\(event ${entry.index}, order_resolved\\) does not match: the record says ${entry.event.dice.drawn[1]}, the committed dice give ${was}\\.$`));
});

test("a changed commitment is refused", async () => {
  const record = copy();
  record.dice.commitment = record.dice.commitment.replace(/^./, (c) => (c === "0" ? "1" : "0"));
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.commitment");
  assert.match(result.problem, /does not match the commitment/);
});

test("the commitment shown at the welcome must be the record's", async () => {
  const other = "ab".repeat(32);
  const result = await verifyRecord(copy(), { commitmentSeen: other });
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.commitment");
  assert.match(result.problem, /not the one this browser was shown/);
  const same = await verifyRecord(copy(), { commitmentSeen: fixture.dice.commitment });
  assert.equal(same.ok, true);
  assert.ok(same.checked.includes("the commitment is the one shown to you when you joined"));
});

test("a changed contribution changes the key: the first die is refused", async () => {
  const record = copy();
  // Changed everywhere it appears (dice section, army choice, game_ended): only the dice can tell.
  record.dice.contributions.B = "00".repeat(32);
  record.events.find((e) => e.event.type === "army_chosen" && e.event.side === "B").event.entropy = "00".repeat(32);
  record.events.at(-1).event.dice_revealed.contributions.B = "00".repeat(32);
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.key");
  assert.match(result.problem, /The dice key of event 3 \(initiative_rolled\) is not the one/);
});

test("the player's own contribution must be in the record", async () => {
  const mine = fixture.dice.contributions.A;
  assert.equal((await verifyRecord(copy(), { seat: "A", contribution: mine })).ok, true);
  const result = await verifyRecord(copy(), { seat: "A", contribution: "12".repeat(32) });
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.contributions.A");
  assert.match(result.problem, /Your contribution to the dice \(player A/);
});

test("dice missing from the record or used twice: the cursor must continue the count", async () => {
  const gap = copy();
  const entry = rolling(gap, 1);
  gap.events = gap.events.filter((e) => e !== rolling(gap, 0)); // drop the initiative roll
  const result = await verifyRecord(gap);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.cursor");
  assert.match(result.problem, new RegExp(`^Event ${entry.index} \\(order_resolved\\) starts at die 2, but only 0 dice came before it: dice 0 to 1 are missing`));
});

test("a game_ended that reveals something else than the record's dice section is refused", async () => {
  const record = copy();
  record.events.at(-1).event.dice_revealed.contributions.A = "34".repeat(32);
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice_revealed.contributions.A");
});

test("malformed records say which field", async () => {
  const bad = copy();
  bad.dice.secret = "XYZ";
  assert.equal((await verifyRecord(bad)).field, "dice.secret");
  const algo = copy();
  algo.dice.algorithm = "mt19937";
  assert.equal((await verifyRecord(algo)).field, "dice.algorithm");
  assert.equal((await verifyRecord({ format: "x" })).field, "format");
});

test("the faces a roll showed must be the dice it drew", async () => {
  const record = copy();
  const entry = rolling(record, 1); // order 1: an attack roll and a save
  entry.event.outcome.rolls[0].dice[0].face = entry.event.outcome.rolls[0].dice[0].face === 20 ? 1 : entry.event.outcome.rolls[0].dice[0].face + 1;
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.event, entry.index);
  assert.equal(result.field, "outcome");
  assert.match(result.problem, /^Event \d+ \(order_resolved\) shows the faces .*, but it drew /);
  const initiative = copy();
  rolling(initiative, 0).event.attempts[0].reverse();
  assert.equal((await verifyRecord(initiative)).field, "attempts");
  assert.ok((await verifyRecord(copy())).checked.includes("the faces each roll showed during the game are the dice it drew"));
});

test("a contribution must be the entropy of its army choice", async () => {
  const record = copy();
  record.events.find((e) => e.event.type === "army_chosen" && e.event.side === "B").event.entropy = "56".repeat(32);
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.contributions.B");
});

test("a game over before both contributions: no die may have been rolled", async () => {
  const early = copy();
  early.dice.contributions.B = "";
  early.events = early.events.filter((e) => !e.event.dice && !(e.event.type === "army_chosen" && e.event.side === "B"));
  early.events.at(-1).event.dice_revealed.contributions.B = "";
  const fine = await verifyRecord(early);
  assert.equal(fine.ok, true, fine.problem);
  assert.equal(fine.dice, 0);
  const rolled = copy();
  rolled.dice.contributions.B = "";
  rolled.events = rolled.events.filter((e) => !(e.event.type === "army_chosen" && e.event.side === "B"));
  rolled.events.at(-1).event.dice_revealed.contributions.B = "";
  const result = await verifyRecord(rolled);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.contributions.B");
  assert.match(result.problem, /never contributed to the dice .* yet event 3 \(initiative_rolled\) rolled dice/);
});

test("faces set by hand are refused: a live game never injects faces", async () => {
  const record = copy();
  rolling(record, 3).event.dice.injected = [20];
  const result = await verifyRecord(record);
  assert.equal(result.ok, false);
  assert.equal(result.field, "dice.injected");
});
