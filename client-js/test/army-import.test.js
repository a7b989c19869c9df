// Bringing one's own list (app/army-import.js): reading a list file, the choose_army command,
// what options offer, and the not-refereed items and the review as views of each side show them.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LIST_FILE_MAX_BYTES, armyCodeInput, bringOffer, chooseArmyCommand, notRefereedByTrooper, notRefereedSummary,
  ownRoster, readListFile, reviewStatus, trooperLabel,
} from "../app/army-import.js";

const file = (name, text, size = new TextEncoder().encode(text).length) => ({ name, size, text: async () => text });
const ENTROPY = "ab".repeat(32);

test("a list file holding a JSON object is the list", async () => {
  const list = { id: "mine", name: "My List", points: 150, units: [], entries: [] };
  assert.deepEqual(await readListFile(file("mine.json", JSON.stringify(list))), { list });
});

test("a list file that is not JSON is refused in words, naming the file", async () => {
  const read = await readListFile(file("notes.txt", "Kestrel Sniper x2, 150 pts"));
  assert.ok("error" in read);
  assert.match(read.error, /^notes\.txt is not a JSON file \(.+\)\. Choose the army list's \.json file/);
});

test("JSON that is not one object (an array, a number, null) is not a list", async () => {
  for (const text of ["[1, 2]", "42", "null", "\"code\""]) {
    const read = await readListFile(file("odd.json", text));
    assert.ok("error" in read, text);
    assert.match(read.error, /odd\.json is JSON but not an army list/);
  }
});

test("a list file over 16 KiB is refused before it is read", async () => {
  let read = false;
  const big = { name: "big.json", size: LIST_FILE_MAX_BYTES + 1, text: async () => { read = true; return "{}"; } };
  const answer = await readListFile(big);
  assert.equal(read, false);
  assert.ok("error" in answer);
  assert.equal(answer.error, "big.json is too large (16385 bytes): a list file holds at most 16 KiB (16384 bytes).");
  // Exactly 16 KiB is still a list.
  const padded = `{"name":"${"x".repeat(LIST_FILE_MAX_BYTES - 11)}"}`;
  assert.equal(new TextEncoder().encode(padded).length, LIST_FILE_MAX_BYTES);
  assert.ok("list" in (await readListFile(file("edge.json", padded))));
});

test("a file whose text is larger than its stated size is measured by what would be sent", async () => {
  const answer = await readListFile(file("multi.json", `{"n":"${"é".repeat(LIST_FILE_MAX_BYTES / 2)}"}`, 100));
  assert.ok("error" in answer);
  assert.match(answer.error, /multi\.json is too large \(16392 bytes\)/);
});

test("the code field sends the code trimmed; an empty field says what to paste", () => {
  assert.deepEqual(armyCodeInput("  g4MBa2V5 \n"), { code: "g4MBa2V5" });
  const empty = armyCodeInput("   ");
  assert.ok("error" in empty);
  assert.match(empty.error, /Paste the army code first/);
});

test("choose_army carries exactly one of army, list or code, with the entropy", () => {
  const list = { name: "L" };
  assert.deepEqual(chooseArmyCommand({ army: "helion-vanguard" }, ENTROPY), { type: "choose_army", army: "helion-vanguard", entropy: ENTROPY });
  assert.deepEqual(chooseArmyCommand({ list }, ENTROPY), { type: "choose_army", list, entropy: ENTROPY });
  assert.deepEqual(chooseArmyCommand({ code: "g4MB" }, ENTROPY), { type: "choose_army", code: "g4MB", entropy: ENTROPY });
  assert.throws(() => chooseArmyCommand(/** @type {any} */ ({ army: "a", code: "b" }), ENTROPY), /exactly one of army, list or code/);
  assert.throws(() => chooseArmyCommand(/** @type {any} */ ({}), ENTROPY), /got none/);
});

test("what options offer: list and code, list only (no army data), or nothing", () => {
  assert.deepEqual(bringOffer({ choose_army: ["a"], bring_army: ["list", "code"] }), { list: true, code: true });
  assert.deepEqual(bringOffer({ choose_army: ["a"], bring_army: ["list"] }), { list: true, code: false });
  assert.equal(bringOffer({ choose_army: ["registered"] }), null);
  assert.equal(bringOffer(null), null);
  assert.equal(bringOffer({ bring_army: [] }), null);
});

// A seat's own list as the view carries it (to_plain of the ArmyList) and the opponent's summary.
const OWN = {
  id: "code-901", name: "Night Shift", faction: "Synthetic Guild", format: "standard", points: 150,
  arsenal: [{ id: "w-12-0", name: "Hush Rifle", kind: "ballistic" }],
  entries: [
    { id: "t1", combat_group: 1, lieutenant: true, controller: null, not_refereed: ["Multispectral Visor L1"],
      profile: { name: "Kestrel Sniper", mov: [4, 2], cc: 13, bs: 12, ph: 10, wip: 13, arm: 1, bts: 0, vita: 1, structure: false,
        silhouette: 2, troop_type: "mi", training: "regular", weapons: ["w-12-0", "sidearm"], cost: 35, swc: 1.5 } },
    { id: "t2", combat_group: 2, lieutenant: false, controller: null, not_refereed: [],
      profile: { name: "Rover Bot", mov: [6, 4], cc: 8, bs: 10, ph: 8, wip: 13, arm: 0, bts: 3, vita: 1, structure: true,
        silhouette: 3, troop_type: "rem", training: "irregular", weapons: [], cost: 12, swc: 0 } },
    { id: "p1", combat_group: 1, lieutenant: false, controller: "t1", not_refereed: ["Sensor", "Repeater L2"],
      profile: { name: "Gnat", mov: [6, 4], vita: 1, structure: true, troop_type: "peripheral", weapons: [], cost: 3, swc: 0 } },
  ],
};
const SUMMARY = {
  id: "code-902", name: "Day Shift", faction: "Synthetic Guild", format: "standard", points: 150,
  roster: [
    { unit: "Wren Trooper", combat_group: 1, not_refereed: ["Sensor"] },
    { unit: "Wren Trooper", combat_group: 1, not_refereed: [] },
  ],
};

test("the not-refereed items per trooper, from one's own list and from the opponent's summary", () => {
  assert.deepEqual(notRefereedByTrooper(OWN), [
    { name: "Kestrel Sniper", combatGroup: 1, items: ["Multispectral Visor L1"] },
    { name: "Gnat", combatGroup: 1, items: ["Sensor", "Repeater L2"] },
  ]);
  assert.deepEqual(notRefereedByTrooper(SUMMARY), [{ name: "Wren Trooper", combatGroup: 1, items: ["Sensor"] }]);
  // A shipped list's view (no not_refereed anywhere) has nothing to list.
  assert.deepEqual(notRefereedByTrooper({ roster: [{ unit: "Lancer", combat_group: 1 }] }), []);
  assert.deepEqual(notRefereedByTrooper(null), []);
});

test("the not-refereed list in words, for one's own list and for the opponent's: each trooper, its items as the server words them", () => {
  assert.equal(trooperLabel({ name: "Gnat", combatGroup: 1 }), "Gnat (Combat Group 1)");
  const own = notRefereedSummary(OWN, "own");
  assert.equal(own.heading, "Your list, Night Shift");
  assert.deepEqual(own.troopers, [{ label: "Kestrel Sniper (Combat Group 1)", items: ["Multispectral Visor L1"] },
    { label: "Gnat (Combat Group 1)", items: ["Sensor", "Repeater L2"] }]);
  assert.equal(own.empty, null);
  assert.equal(own.privateNote, null);
  const theirs = notRefereedSummary(SUMMARY, "opponent");
  assert.equal(theirs.heading, "Your opponent's list, Day Shift");
  assert.deepEqual(theirs.troopers, [{ label: "Wren Trooper (Combat Group 1)", items: ["Sensor"] }]);
  assert.match(theirs.privateNote ?? "", /Hidden Deployment or Airborne Deployment are private/);
  assert.match(notRefereedSummary({ name: "Plain", roster: [] }, "opponent").empty ?? "", /^Nothing that you can see/);
  // A spectator reads "Player B's list"; a caster, who holds both lists whole, gets no private note.
  assert.equal(notRefereedSummary(SUMMARY, "B").heading, "Player B's list, Day Shift");
  assert.equal(notRefereedSummary({ ...SUMMARY, source: "list" }, "opponent").source,
    "From a list file: its profiles are as the player wrote them.");
  assert.equal(notRefereedSummary({ ...SUMMARY, source: "code" }, "opponent").source,
    "From an army code: its profiles are the army builder's, read by the server.");
  assert.equal(notRefereedSummary(SUMMARY, "opponent").source, null);
  assert.match(notRefereedSummary(SUMMARY, "B").privateNote ?? "", /private/);
  assert.equal(notRefereedSummary(OWN, "A").privateNote, null);
  assert.match(notRefereedSummary({ name: "Plain", entries: [] }, "A").empty ?? "", /^Nothing: the referee plays every .* of this list\./);
  // Alike troopers (same unit, group and items) are said once with their number.
  const twins = { name: "Twins", roster: [
    { unit: "Wren Trooper", combat_group: 1, not_refereed: ["Sensor"] }, { unit: "Wren Trooper", combat_group: 1, not_refereed: ["Sensor"] },
    { unit: "Wren Trooper", combat_group: 2, not_refereed: ["Sensor"] }, { unit: "Wren Trooper", combat_group: 1, not_refereed: ["Sensor", "Visor"] }] };
  assert.deepEqual(notRefereedSummary(twins, "opponent").troopers, [
    { label: "Wren Trooper (Combat Group 1) ×2", items: ["Sensor"] }, { label: "Wren Trooper (Combat Group 2)", items: ["Sensor"] },
    { label: "Wren Trooper (Combat Group 1)", items: ["Sensor", "Visor"] }]);
});

test("one's own imported roster: groups, profiles, costs, SWC, the list's own weapon names, the Lieutenant", () => {
  const roster = ownRoster(OWN, (id) => (id === "sidearm" ? "Sidearm" : id));
  assert.equal(roster.points, 50);
  assert.equal(roster.limit, 150);
  assert.equal(roster.swc, 1.5);
  assert.deepEqual(roster.groups.map((g) => [g.number, g.troopers.map((t) => t.name)]), [[1, ["Kestrel Sniper", "Gnat"]], [2, ["Rover Bot"]]]);
  const [sniper, gnat] = roster.groups[0].troopers;
  assert.equal(sniper.lieutenant, true);
  assert.deepEqual(sniper.weapons, ["Hush Rifle", "Sidearm"]);
  assert.deepEqual(sniper.stats, { MOV: "4-2", CC: 13, BS: 12, PH: 10, WIP: 13, ARM: 1, BTS: 0, W: 1, S: 2 });
  assert.equal(sniper.type, "MI, Regular");
  assert.equal(sniper.cost, 35);
  assert.equal(gnat.controller, "Kestrel Sniper");
  assert.equal(sniper.structure, false);
  assert.deepEqual([roster.groups[1].troopers[0].stats.W, roster.groups[1].troopers[0].structure, roster.groups[1].troopers[0].type], [1, true, "REM, Irregular"]);
  assert.equal(gnat.type, "Peripheral");
});

test("the review: both lists chosen in army selection; who accepted, from events, the state or the options", () => {
  const state = { phase: "army_selection", armies: { A: OWN, B: SUMMARY } };
  let status = reviewStatus(state, { accept_armies: true }, [], "A");
  assert.deepEqual([status.review, status.canAccept, [...status.accepted]], [true, true, []]);
  // B accepted (its event); A has not.
  status = reviewStatus(state, { accept_armies: true }, [{ event: { type: "armies_accepted", side: "B" } }], "A");
  assert.deepEqual([...status.accepted], ["B"]);
  // A accepted: its options no longer offer it.
  status = reviewStatus(state, {}, [], "A");
  assert.deepEqual([status.canAccept, [...status.accepted]], [false, ["A"]]);
  // Options not here yet (a new version's are on their way): nothing is assumed accepted, and
  // a seat that has not accepted keeps its button, the opponent's acceptance shown.
  status = reviewStatus(state, null, [{ event: { type: "armies_accepted", side: "B" } }], "A");
  assert.deepEqual([status.canAccept, [...status.accepted]], [true, ["B"]]);
  // ... but not once its own acceptance is in, nor for a spectator.
  assert.equal(reviewStatus(state, null, [{ event: { type: "armies_accepted", side: "A" } }], "A").canAccept, false);
  assert.equal(reviewStatus(state, null, [], "spectator").canAccept, false);
  // A state field, if the server keeps one.
  assert.deepEqual([...reviewStatus({ ...state, armies_accepted: ["A", "B"] }, null, [], "spectator").accepted], ["A", "B"]);
  // One list chosen, or the game past army selection: no review.
  assert.equal(reviewStatus({ phase: "army_selection", armies: { A: OWN } }, {}, [], "A").review, false);
  assert.equal(reviewStatus({ phase: "initiative", armies: { A: OWN, B: SUMMARY } }, {}, [], "A").review, false);
});

test("a brought list's own weapons are named like shipped ones once learnt; a shipped id keeps the shipped weapon", async () => {
  const catalogue = await import("../app/catalogue.js");
  assert.equal(catalogue.weaponName("w-501-0"), "w-501-0");
  catalogue.learnWeapons([{ id: "w-501-0", name: "Pulse Carbine", kind: "ballistic" }]);
  assert.equal(catalogue.weaponName("w-501-0"), "Pulse Carbine");
  catalogue.learnWeapons([{ id: "w-501-0", name: "Changed" }]);
  assert.equal(catalogue.weaponName("w-501-0"), "Pulse Carbine");
  catalogue.learnWeapons(undefined);
});
