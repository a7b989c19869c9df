// The Fireteam panel's pure parts (client-js/app/fireteam.js): a choice of members judged as
// options.fireteams offers it, a Level's Bonuses in words, a member's default route, the table's links.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bonusesAt, chartTeamFits, followRoute, formProblem, teamLinks } from "../app/fireteam.js";

const FORM = {
  core: { name: "Fireteam: Core", sizes: [2, 5], leaders: { "A-t7": ["A-t8", "A-t9"], "A-t8": ["A-t7"] } },
  haris: { name: "Fireteam: Haris", sizes: [3, 3], leaders: { "A-t7": ["A-t8", "A-t9"] } },
};

test("a choice of members: whole only with an offered type, leader, members and size", () => {
  assert.equal(formProblem(FORM, "duo", "A-t7", []), "Choose a Fireteam type.");
  assert.equal(formProblem(FORM, "core", "A-t9", ["A-t7"]), "Choose the leader.");
  assert.equal(formProblem(FORM, "core", "A-t8", ["A-t9"], (id) => `L${id.slice(-1)}`), "L9 may not join a Fireteam: Core led by L8.");
  assert.equal(formProblem(FORM, "core", "A-t7", []), "A Fireteam: Core has 2 to 5 members (leader included); 1 chosen.");
  assert.equal(formProblem(FORM, "haris", "A-t7", ["A-t8"]), "A Fireteam: Haris has 3 members (leader included); 2 chosen.");
  assert.equal(formProblem(FORM, "core", "A-t7", ["A-t8"]), null);
  assert.equal(formProblem(FORM, "haris", "A-t7", ["A-t8", "A-t9"]), null);
});

test("with the army's own Fireteams Chart, a choice must be one of its teams", () => {
  const chart = [{ name: "Lancers", wildcards: ["A-t1"], units: [
    { name: "Lancer", min: 1, max: 5, required: false, troopers: ["A-t7", "A-t8"] },
    { name: "Chain Spray Lancer", min: 0, max: 1, required: false, troopers: ["A-t10"] }] }];
  const form = { core: { name: "Fireteam: Core", sizes: [2, 5], chart,
    leaders: { "A-t10": ["A-t1", "A-t7"], "A-t7": ["A-t1", "A-t8", "A-t10"] } } };
  assert.equal(formProblem(form, "core", "A-t10", ["A-t1"]),
    "Your army's Fireteams Chart has no such Fireteam: Core: Lancers (Lancer 1-5, Chain Spray Lancer 0-1, wildcards).");
  assert.equal(formProblem(form, "core", "A-t10", ["A-t1", "A-t7"]), null);
  assert.equal(chartTeamFits(chart[0], ["A-t7", "A-t8", "A-t1"]), true);
});

test("a Level's Bonuses are cumulative (all refereed: combat/fireteam_bonuses.py)", () => {
  assert.deepEqual(bonusesAt(1), ["one Order for the whole team"]);
  assert.equal(bonusesAt(3).length, 4);
  assert.deepEqual(bonusesAt(5).slice(-2), ["BS +1", "Sixth Sense"]);
  assert.ok(bonusesAt(2).includes("BS Attack +1 SD"));
  assert.ok(bonusesAt(5).every((words) => !/not refereed/.test(words)));
});

test("a member's default route is the leader's, moved by the member's place in the team", () => {
  assert.deepEqual(followRoute([20, 10], [[20, 13], [24, 13]], [22, 9]), [[22, 12], [26, 12]]);
  assert.deepEqual(followRoute([20, 10], [], [22, 9]), [], "no leader route: the member stays put");
});

test("the table's links join each leader to its members on the table", () => {
  const at = { "A-t7": [1, 1], "A-t8": [2, 1], "A-t9": null };
  const links = teamLinks([{ leader: "A-t7", members: ["A-t7", "A-t8", "A-t9"] }], (id) => ({ position: at[id] }));
  assert.deepEqual(links, [{ leader: "A-t7", member: "A-t8", from: [1, 1], to: [2, 1] }]);
});
