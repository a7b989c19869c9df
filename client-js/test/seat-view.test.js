// The table from a player's seat (client-js/app/seat-view.js): which way up each viewer sees
// it, the mapping between table inches and the drawing (and back, for clicks), facings in a
// seat's words, the names of a path's points, and the Orders spent this Player Turn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compassPoint, facingWords, isRotated, orientation, ordersSpentThisTurn, pathPointNames, turnStartMark } from "../app/seat-view.js";

const zones = { initiative: { zones: { A: "south", B: "north" } } };

test("the seat whose zone is the North edge sees the table turned; A, spectators and the undecided see North up", () => {
  assert.equal(isRotated(zones, "B"), true);
  assert.equal(isRotated(zones, "A"), false);
  assert.equal(isRotated(zones, "spectator"), false);
  assert.equal(isRotated({ initiative: null }, "B"), false, "before the roll-off settles the zones");
  assert.equal(isRotated(zones, "B", "north"), false, "the toggle: North up");
  assert.equal(isRotated(zones, "spectator", "south"), true, "a spectator may turn it");
});

test("orientation: a table point and its drawn point, both ways, North up and turned", () => {
  const north = orientation(48, 48, false), south = orientation(48, 48, true);
  assert.deepEqual(north.toSvg([10, 40]), [10, 8], "North up: the North edge (y 48) at the top (SVG y 0)");
  assert.deepEqual(south.toSvg([10, 40]), [38, 40], "turned: North at the bottom, East on the left");
  assert.deepEqual(south.toSvg([0, 48]), [48, 48]);
  const wide = orientation(32, 24, true);
  for (const o of [north, south, wide, orientation(32, 24, false)]) {
    for (const p of [[0, 0], [10, 40], [3.25, 17.5], [48, 0]]) assert.deepEqual(o.toTable(o.toSvg(p)), p, "the inverse maps a click back");
  }
  assert.equal(north.transform, "translate(0 48) scale(1 -1)");
  assert.equal(south.transform, "translate(48 0) scale(-1 1)");
  // The transform does what toSvg says: (x, y) -> (48 - x, y).
  assert.equal(south.screenAngle(90), 270, "North points down the screen once turned");
  assert.equal(north.screenAngle(90), 90);
});

test("facings in a seat's words: ahead is the enemy edge, whichever edge the seat holds; the compass after it", () => {
  assert.equal(facingWords(90, "south"), "towards the enemy edge (north)");
  assert.equal(facingWords(270, "north"), "towards the enemy edge (south)");
  assert.equal(facingWords(270, "south"), "towards your edge (south)");
  assert.equal(facingWords(180, "south"), "towards the left flank (west)", "sitting at the South edge, West is on the left");
  assert.equal(facingWords(0, "north"), "towards the left flank (east)", "sitting at the North edge, East is on the left");
  assert.equal(facingWords(45, "south"), "towards the enemy edge, half right (north-east)");
  assert.equal(facingWords(118, "south"), "about towards the enemy edge, half left (north-west)", "118° is near north-west");
  assert.equal(facingWords(118, null), "about north-west", "a spectator: the compass point");
  assert.equal(facingWords(-90, null), "south");
  assert.equal(compassPoint(359), "east");
});

test("a path's points are named by their place on it: start, corners, where it stands", () => {
  const path = [[40, 8], [44, 10], [44, 14]];
  const names = pathPointNames(path, [[40, 8], [44, 10]]);
  assert.equal(names.here, "where it stands, end of the move (44, 14)");
  assert.deepEqual(names.corners, ["start of the move (40, 8)", "corner 1 (44, 10)"]);
  assert.equal(pathPointNames([[1, 1]], []).here, "where it stands");
});

test("Orders spent this Player Turn: from the turn's start seen live, else the snapshot's record, else unknown", () => {
  const state = { round: 2, turn: 1, active: "A", orders_spent: 23, command_tokens: { held: { A: 3, B: 4 }, turn_start_orders: 20 } };
  assert.equal(ordersSpentThisTurn(state, null), 3, "N5: the snapshot's start of the turn");
  const frame = [{ event: { type: "turn_ended" } }, { event: { type: "turn_started" } }, { event: { type: "orders_counted" } }, { event: { type: "order_spent" } }];
  const mark = turnStartMark({ ...state, orders_spent: 21 }, frame);
  assert.deepEqual(mark, { round: 2, turn: 1, active: "A", start: 20 });
  assert.equal(ordersSpentThisTurn({ ...state, orders_spent: 24 }, mark), 4);
  assert.equal(turnStartMark(state, [{ event: { type: "order_spent" } }]), null, "no turn started in the frame");
  assert.equal(ordersSpentThisTurn({ round: 1, turn: 2, active: "B", orders_spent: 9, command_tokens: { held: {} } }, null), null,
    "CodeOne (no tokens record) joined mid-turn: unknown, said so");
});

test("the deployment panel says where a zone is as the table is drawn now: North at the bottom when it is turned South up", async () => {
  const { zoneSide } = await import("../app/setup-panel.js");
  assert.equal(zoneSide("north", false), "the top of the table as drawn here");
  assert.equal(zoneSide("north", true), "the bottom of the table as drawn here", "player B sees its own (North) edge at the bottom");
  assert.equal(zoneSide("south", true), "the top of the table as drawn here");
  assert.equal(zoneSide("east", false), "", "a zone off the North-South axis is named without a side");
});
