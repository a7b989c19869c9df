// Mines as a player lays them (app/mines.js): a Minelayer's deployment plan by table clicks (its
// spot, then its Mines within its Zone of Control, at most as many as offered), and the spot a
// Place Deployable click names (in base contact with the nearest point of the trooper's path).
// The reach is the rules core's: Zone of Control base to base (server/rules/combat/mines.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { MINE_RADIUS, mineReach, minePlanClick, newMinePlan, placeMineSpot } from "../app/mines.js";

const OFFER = { weapon: "tripwire_mines", name: "Tripwire Mines (Shock)", mines: 1, zone_of_control: 8 };
const S2 = 25 / 25.4 / 2; // a Silhouette 2 base's radius, inches

test("a Mine's base is a Silhouette 2 marker's; its reach is 8 inches base to base", () => {
  assert.equal(MINE_RADIUS, S2);
  assert.equal(mineReach(OFFER, S2), 8 + 2 * S2);
});

test("the first click names the Minelayer's spot, the next its Mines, at most as many as offered", () => {
  const plan = newMinePlan("B-t2");
  minePlanClick(plan, OFFER, S2, [16, 38]);
  assert.deepEqual(plan.at, [16, 38]);
  assert.deepEqual(plan.mines, []);
  minePlanClick(plan, OFFER, S2, [16, 30]);
  assert.deepEqual(plan.mines, [[16, 30]]);
  minePlanClick(plan, OFFER, S2, [17, 31]);
  assert.deepEqual(plan.mines, [[16, 30]], "one Mine at most");
  assert.match(plan.note, /^It lays at most 1 Mine: remove one to place it elsewhere\.$/);
});

test("a Mine click beyond the Zone of Control is not taken, and says why", () => {
  const plan = newMinePlan("B-t2");
  minePlanClick(plan, { ...OFFER, mines: 2 }, S2, [16, 38]);
  minePlanClick(plan, { ...OFFER, mines: 2 }, S2, [16, 38 - (8 + 2 * S2) - 0.01]);
  assert.deepEqual(plan.mines, []);
  assert.match(plan.note, /^Out of reach: a Mine goes within its Zone of Control \(8" from its base/);
  minePlanClick(plan, { ...OFFER, mines: 2 }, S2, [16, 38 - (8 + 2 * S2) + 0.01]);
  assert.equal(plan.mines.length, 1, "just inside: taken");
  assert.equal(plan.note, "");
});

test("a Place Deployable click goes in base contact with the nearest point of the path, on the click's side", () => {
  const path = [[10, 10], [14, 10], [14, 14]];
  const contact = 2 * S2;
  const near = (p, q) => assert.ok(Math.hypot(p[0] - q[0], p[1] - q[1]) < 1e-9, `${p} is ${q}`);
  near(placeMineSpot(path, contact, [12, 7]), [12, 10 - contact]); // beside the first segment
  near(placeMineSpot(path, contact, [17, 12]), [14 + contact, 12]); // beside the second
  near(placeMineSpot(path, contact, [14, 20]), [14, 14 + contact]); // beyond its end
  near(placeMineSpot([[5, 5]], contact, [5, 1]), [5, 5 - contact]); // not moved: around its base
  assert.equal(placeMineSpot(path, contact, [12, 10]), null, "on the path itself: no side to put it on");
});
