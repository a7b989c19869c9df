// The connection's queries: loadHistory() pages the server's `history` up to the version the
// view holds; measure() asks the server's geometry. Both are answered by their id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GameConnection, QueryFailed } from "../src/connection.js";
import { CloseCode, PROTOCOL_VERSION } from "../src/protocol-constants.js";
import { harness } from "./fake-socket.js";

function joined({ version = 5, role = "B", token = "tok-b" } = {}) {
  const h = harness();
  const conn = new GameConnection({ url: "ws://x/ws", room: "r1", token, createSocket: h.createSocket,
    setTimer: h.setTimer, clearTimer: h.clearTimer, newId: () => "c1" });
  conn.connect();
  h.last().open();
  h.last().deliver({ type: "welcome", protocol: PROTOCOL_VERSION, room: "r1", role, version,
    settings: {}, seats: { A: "connected", B: "connected" } });
  h.last().deliver({ type: "snapshot", version, window: null, seats: { A: "connected", B: "connected" },
    state: { phase: "orders", round: 1, turn: 1, active: "A", troopers: [], orders: { pools: {} }, order: null } });
  return { h, conn };
}

const event = (n) => ({ type: "turn_started", n });
const sentOf = (socket, type) => socket.sent.filter((m) => m.type === type);
const settled = () => new Promise((resolve) => setImmediate(resolve));

test("loadHistory pages from version 1 until the version held, and numbers every event", async () => {
  const { h, conn } = joined({ version: 5 });
  const loading = conn.loadHistory();
  await settled();
  let asked = sentOf(h.last(), "history");
  assert.deepEqual(asked, [{ type: "history", id: "q-1", from: 1 }]);
  h.last().deliver({ type: "history", id: "q-1", first: 1, events: [event(1), event(2)], last: 6 });
  await settled();
  asked = sentOf(h.last(), "history");
  assert.deepEqual(asked[1], { type: "history", id: "q-2", from: 3 });
  // The room moved on meanwhile: the page runs past the version held, which is where it stops.
  h.last().deliver({ type: "history", id: "q-2", first: 3, events: [event(3), event(4), event(5), event(6)], last: 6 });
  assert.deepEqual(await loading, [1, 2, 3, 4, 5].map((version) => ({ version, event: event(version) })));
  assert.equal(sentOf(h.last(), "history").length, 2);
  assert.equal(conn.queries.size, 0);
});

test("loadHistory with nothing held asks nothing", async () => {
  const { h, conn } = joined({ version: 0 });
  assert.deepEqual(await conn.loadHistory(), []);
  assert.deepEqual(sentOf(h.last(), "history"), []);
});

test("a refused page rejects loadHistory with the server's code", async () => {
  const { h, conn } = joined({ version: 3 });
  const loading = conn.loadHistory();
  await settled();
  h.last().deliver({ type: "rejected", id: "q-1", code: "storage_unavailable", message: "try again" });
  await assert.rejects(loading, (error) => error instanceof QueryFailed && error.code === "storage_unavailable");
});

test("a page that stops short of the version held rejects rather than looping", async () => {
  const { h, conn } = joined({ version: 3 });
  const loading = conn.loadHistory();
  await settled();
  h.last().deliver({ type: "history", id: "q-1", first: 1, events: [], last: 0 });
  await assert.rejects(loading, (error) => error instanceof QueryFailed && error.code === "history_short");
});

test("measure sends from, to and silhouette with an id and resolves with the measurement alone", async () => {
  const { h, conn } = joined();
  const fromTrooper = conn.measure({ from: "B-t3", to: [10, 20.5], silhouette: 3 });
  const betweenPoints = conn.measure({ from: [0, 0], to: [3, 4] });
  assert.deepEqual(sentOf(h.last(), "measure"), [
    { type: "measure", id: "q-1", from: "B-t3", to: [10, 20.5], silhouette: 3 },
    { type: "measure", id: "q-2", from: [0, 0], to: [3, 4] },
  ]);
  const answer = { from: "B-t3", to: [10, 20.5], distance: 14.5, silhouette: 3, line_of_fire: true, in_front_arc: true,
    weapons: [{ weapon: "punch_carbine", name: "Punch Carbine", mod: 0 }, { weapon: "knife", name: "Knife", mod: null }] };
  h.last().deliver({ type: "measurement", id: "q-2", from: [0, 0], to: [3, 4], distance: 5, silhouette: null,
    line_of_fire: null, in_front_arc: null, weapons: null });
  h.last().deliver({ type: "measurement", id: "q-1", ...answer });
  assert.deepEqual(await fromTrooper, answer);
  assert.deepEqual(await betweenPoints, { from: [0, 0], to: [3, 4], distance: 5, silhouette: null,
    line_of_fire: null, in_front_arc: null, weapons: null });
});

test("a refused measurement resolves with its code and message; a command's rejection stays the command's", async () => {
  const { h, conn } = joined();
  const command = conn.send({ type: "end_turn" });
  const measured = conn.measure({ from: "A-hidden", to: [1, 1] });
  h.last().deliver({ type: "rejected", id: "q-1", code: "unknown_trooper", message: "There is no trooper A-hidden." });
  assert.deepEqual(await measured, { error: "unknown_trooper", message: "There is no trooper A-hidden." });
  assert.equal(conn.pending.size, 1, "the command is still waiting for its own answer");
  h.last().deliver({ type: "rejected", id: "c1", code: "not_your_turn", message: "wait" });
  assert.deepEqual(await command, { ok: false, id: "c1", code: "not_your_turn", message: "wait" });
});

test("queries asked while disconnected, or unanswered when the socket dropped, are sent after the next welcome", async () => {
  const { h, conn } = joined({ version: 2 });
  const first = conn.measure({ from: "B-t3", to: [5, 5] });
  h.last().close(1006);
  const second = conn.measure({ from: [1, 1], to: [2, 2] });
  assert.equal(h.sockets.length, 1);
  h.timers[0].fn();
  const socket = h.last();
  socket.open();
  assert.deepEqual(sentOf(socket, "measure"), []);
  socket.deliver({ type: "welcome", protocol: PROTOCOL_VERSION, room: "r1", role: "B", version: 2, settings: {},
    seats: { A: "connected", B: "connected" } });
  assert.deepEqual(sentOf(socket, "measure").map((m) => m.id), ["q-1", "q-2"]);
  socket.deliver({ type: "measurement", id: "q-2", from: [1, 1], to: [2, 2], distance: 1.4, silhouette: null,
    line_of_fire: null, in_front_arc: null, weapons: null });
  socket.deliver({ type: "rejected", id: "q-1", code: "bad_position", message: "off the table" });
  assert.equal((await second).distance, 1.4);
  assert.deepEqual(await first, { error: "bad_position", message: "off the table" });
});

test("closing the connection, or a final close, fails the queries still waiting", async () => {
  const { h, conn } = joined({ version: 4 });
  const loading = conn.loadHistory();
  const measured = conn.measure({ from: "B-t3", to: [5, 5] });
  conn.close();
  await assert.rejects(loading, (error) => error instanceof QueryFailed && error.code === "connection_closed");
  assert.equal((await measured).error, "connection_closed");

  const other = joined({ version: 4 });
  const pending = other.conn.measure({ from: "B-t3", to: [5, 5] });
  other.h.last().close(CloseCode.REPLACED);
  assert.equal((await pending).error, "connection_closed");
  assert.equal(other.conn.queries.size, 0);
});
