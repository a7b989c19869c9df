// Command Tokens in the app's words (client-js/app/command-tokens.js): the status text, the
// buttons' words and handles, and the log line of command_token_spent (shapes as
// server/rules/views.py sends them: every viewer alike).
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeTokenSpent, tokensText, useKey, useText } from "../app/command-tokens.js";

const name = (/** @type {string} */ id) => (id === "A-t7" ? "Lancer 1" : id);

test("the status text: both players' tokens, the Strategic limit, none in CodeOne", () => {
  assert.equal(tokensText({ command_tokens: { held: { A: 4, B: 3 }, limited: [] } }), "A 4 | B 3");
  assert.equal(tokensText({ command_tokens: { held: { B: 2, A: 3 }, limited: ["A"] } }), "A 3 (1 this turn) | B 2");
  assert.equal(tokensText({ command_tokens: { held: {}, limited: [] } }), "-");
  assert.equal(tokensText(null), "-");
});

test("each offered body has words and a handle", () => {
  const bodies = [
    { type: "spend_command_token", use: "limit_tokens" },
    { type: "spend_command_token", use: "remove_orders", combat_groups: [1, 2] },
    { type: "spend_command_token", use: "remove_orders", combat_groups: [2] },
    { type: "spend_command_token", use: "transfer_trooper", trooper: "A-t7", combat_group: 2 },
  ];
  assert.deepEqual(bodies.map((b) => useText(b, name)), [
    "Limit the opponent to 1 Command Token this turn", "Remove 2 Regular Orders (G1, G2)",
    "Remove 1 Regular Order (G2)", "Move Lancer 1 to Combat Group 2"]);
  assert.deepEqual(bodies.map(useKey), ["limit_tokens", "remove_orders:1,2", "remove_orders:2", "transfer_trooper:A-t7:2"]);
});

test("the log line of each use", () => {
  const event = (use, extra = {}) => ({ type: "command_token_spent", side: "B", use, left: 3, combat_groups: [], trooper: null, combat_group: null, ...extra });
  assert.deepEqual(describeTokenSpent(event("remove_orders", { combat_groups: [1, 1] }), name),
    ["Player B spends a Command Token (Strategic): 2 Regular Orders removed from the opponent's pools (G1, G1); 3 left"]);
  assert.deepEqual(describeTokenSpent(event("limit_tokens"), name),
    ["Player B spends a Command Token (Strategic): the opponent may spend only 1 Command Token this turn; 3 left"]);
  assert.deepEqual(describeTokenSpent(event("transfer_trooper", { side: "A", trooper: "A-t7", combat_group: 2 }), name),
    ["Player A spends a Command Token (Executive): ", "Lancer 1", " joins Combat Group 2; 3 left"]);
  assert.deepEqual(describeTokenSpent(event("coordinated_order", { side: "A", trooper: "A-t7", combat_group: 1 }), name),
    ["Player A spends a Command Token on a Coordinated Order (Combat Group 1), Spearhead ", "Lancer 1", "; 3 left"]);
});
