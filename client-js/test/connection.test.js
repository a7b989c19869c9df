import { test } from "node:test";
import assert from "node:assert/strict";
import { GameConnection, windowRemainingMs } from "../src/connection.js";
import { CloseCode, PROTOCOL_VERSION } from "../src/protocol-constants.js";
import { harness } from "./fake-socket.js";

function connected({ token = "tok-a", ids = ["c1", "c2", "c3"] } = {}) {
  const h = harness();
  const queue = [...ids];
  const conn = new GameConnection({ url: "ws://x/ws", room: "r1", token, createSocket: h.createSocket,
    setTimer: h.setTimer, clearTimer: h.clearTimer, newId: () => queue.shift() ?? "cx" });
  conn.connect();
  h.last().open();
  return { h, conn };
}

const snapshot = (version) => ({ type: "snapshot", version, window: null, seats: { A: "connected", B: "empty" },
  state: { phase: "orders", round: 1, turn: 1, active: "A", troopers: [], orders: { pools: { 1: 3 } }, order: null } });
const welcome = (version, role = "A") => ({ type: "welcome", protocol: PROTOCOL_VERSION, room: "r1", role, version,
  settings: { aro_window_s: 30 }, seats: { A: "connected", B: "empty" } });

test("handshake: hello carries protocol, room, token and no version on a fresh start", () => {
  const { h, conn } = connected();
  assert.deepEqual(h.last().sent[0], { type: "hello", protocol: PROTOCOL_VERSION, room: "r1", token: "tok-a", since: null });
  h.last().deliver(welcome(4));
  h.last().deliver(snapshot(4));
  assert.equal(conn.status, "open");
  assert.equal(conn.role, "A");
  assert.equal(conn.view.version, 4);
  assert.equal(conn.view.state.phase, "orders");
});

test("the socket's URL names the room, for a load balancer that routes by room", () => {
  const { h } = connected();
  assert.equal(h.last().url, "ws://x/ws?room=r1");
});

test("the welcome's dice commitment and fixed-dice flag are kept", () => {
  const { h, conn } = connected();
  assert.equal(conn.diceCommitment, null);
  h.last().deliver({ ...welcome(4), dice_commitment: "ab".repeat(32), fixed_dice: true });
  assert.equal(conn.diceCommitment, "ab".repeat(32));
  assert.equal(conn.fixedDice, true);
  h.last().deliver({ ...welcome(4), dice_commitment: "cd".repeat(32), fixed_dice: false });
  assert.equal(conn.diceCommitment, "cd".repeat(32));
  assert.equal(conn.fixedDice, false);
});

test("every command carries an id and resolves with exactly its own answer", async () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(4));
  h.last().deliver(snapshot(4));
  const first = conn.send({ type: "end_turn" });
  const second = conn.send({ type: "concede" });
  const [c1, c2] = h.last().sent.slice(1);
  assert.deepEqual(c1, { type: "command", id: "c1", version: 4, body: { type: "end_turn" } });
  assert.equal(c2.id, "c2");
  h.last().deliver({ type: "rejected", id: "c2", code: "not_your_turn", message: "wait" });
  h.last().deliver({ type: "accepted", id: "c1", version: 5 });
  assert.deepEqual(await first, { ok: true, id: "c1", version: 5 });
  assert.deepEqual(await second, { ok: false, id: "c2", code: "not_your_turn", message: "wait" });
  assert.equal(conn.pending.size, 0);
});

test("reconnect: back-off grows, hello resumes from the last version, unanswered commands are resent with the same id", async () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  h.last().deliver({ type: "events", first: 3, events: [{ type: "phase_started", phase: "orders" }, null], window: null });
  assert.equal(conn.view.version, 4);
  h.last().close(1006);
  assert.equal(conn.status, "reconnecting");
  const answer = conn.send({ type: "end_turn" });
  assert.equal(h.timers.length, 1);
  h.timers[0].fn();
  h.last().close(1006); // the first retry fails too
  assert.ok(h.timers[1].ms > h.timers[0].ms, "the second delay is longer");
  h.timers[1].fn();
  const socket = h.last();
  socket.open();
  assert.deepEqual(socket.sent[0], { type: "hello", protocol: PROTOCOL_VERSION, room: "r1", token: "tok-a", since: 4 });
  socket.deliver(welcome(5));
  assert.deepEqual(socket.sent[1], { type: "command", id: "c1", version: 4, body: { type: "end_turn" } });
  socket.deliver({ type: "events", first: 5, events: [{ type: "turn_ended", round: 1, turn: 1, side: "A", unused_orders: 0 }], window: null, accepted: "c1" });
  assert.deepEqual(await answer, { ok: true, id: "c1", version: 5 });
  assert.equal(conn.view.version, 5);
  assert.equal(conn.status, "open");
});

test("a snapshot after frames were dropped sends the unanswered commands again, with the same id", async () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  assert.equal(h.last().sent.length, 1, "the welcome's own snapshot resends nothing");
  const answer = conn.send({ type: "end_turn" });
  assert.deepEqual(h.last().sent[1], { type: "command", id: "c1", version: 2, body: { type: "end_turn" } });
  // The socket fell behind: its frames (with the events frame naming c1) were dropped for a snapshot.
  h.last().deliver(snapshot(3));
  assert.deepEqual(h.last().sent[2], h.last().sent[1], "c1 sent again");
  h.last().deliver({ type: "accepted", id: "c1", version: 3 }); // the room's remembered answer
  assert.deepEqual(await answer, { ok: true, id: "c1", version: 3 });
  assert.equal(conn.pending.size, 0);
  h.last().deliver(snapshot(3));
  assert.equal(h.last().sent.length, 3, "nothing unanswered: nothing sent again");
});

test("an events frame that names a command is its answer, resolved once the view holds the events", async () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  const answer = conn.send({ type: "end_turn" });
  const other = conn.send({ type: "concede" });
  let held = null;
  conn.addEventListener("answer", () => { held = conn.view.version; });
  h.last().deliver({ type: "events", first: 3, events: [null], window: null, accepted: null });
  h.last().deliver({ type: "events", first: 4, events: [null, null], window: null, accepted: "c1" });
  assert.deepEqual(await answer, { ok: true, id: "c1", version: 5 });
  assert.equal(held, 5, "the view held the command's events when it was answered");
  assert.deepEqual([...conn.pending.keys()], ["c2"], "only the named command was answered");
  // A standalone accepted (how a repeated id is answered) still answers too.
  h.last().deliver({ type: "accepted", id: "c2", version: 5 });
  assert.deepEqual(await other, { ok: true, id: "c2", version: 5 });
});

test("a bad token closes for good: no reconnect", () => {
  const { h, conn } = connected();
  let fatal = null;
  conn.addEventListener("fatal", (e) => { fatal = e.detail; });
  h.last().close(CloseCode.BAD_TOKEN);
  assert.equal(conn.status, "closed");
  assert.equal(h.timers.length, 0);
  assert.equal(fatal.code, CloseCode.BAD_TOKEN);
});

test("a withdrawn caster link (4012) closes for good: no reconnect", () => {
  const { h, conn } = connected();
  let fatal = null;
  conn.addEventListener("fatal", (e) => { fatal = e.detail; });
  h.last().close(CloseCode.CASTER_WITHDRAWN);
  assert.equal(conn.status, "closed");
  assert.equal(h.timers.length, 0);
  assert.equal(fatal.code, CloseCode.CASTER_WITHDRAWN);
});

test("replaced (4010) is final, and reconnect() takes the seat back, resuming from the version held", () => {
  const { h, conn } = connected();
  let fatal = null;
  conn.addEventListener("fatal", (e) => { fatal = e.detail; });
  h.last().deliver(welcome(6));
  h.last().deliver(snapshot(6));
  const answer = conn.send({ type: "end_turn" });
  h.last().close(CloseCode.REPLACED);
  assert.equal(fatal.code, CloseCode.REPLACED);
  assert.equal(conn.status, "closed");
  assert.equal(h.timers.length, 0, "no reconnect by itself");
  conn.reconnect();
  assert.equal(h.sockets.length, 2);
  assert.equal(conn.status, "reconnecting");
  const socket = h.last();
  socket.open();
  assert.deepEqual(socket.sent[0], { type: "hello", protocol: PROTOCOL_VERSION, room: "r1", token: "tok-a", since: 6 });
  socket.deliver(welcome(6));
  assert.equal(conn.status, "open");
  assert.deepEqual(socket.sent[1], { type: "command", id: "c1", version: 6, body: { type: "end_turn" } }, "the unanswered command is sent again");
  // reconnect() on an open connection replaces its socket; the old one's close is ignored.
  conn.reconnect();
  assert.equal(socket.closed, true);
  assert.equal(h.sockets.length, 3);
  assert.equal(conn.status, "reconnecting");
  assert.equal(h.timers.length, 0);
  void answer;
});

test("a version gap asks the server to sync from the last version held", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  h.last().deliver({ type: "events", first: 6, events: [null], window: null });
  assert.deepEqual(h.last().sent.at(-1), { type: "sync", since: 2 });
  assert.equal(conn.view.version, 2);
});

test("an event the view cannot fold asks for a fresh snapshot", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  h.last().deliver({ type: "events", first: 3, events: [{ type: "initiative_rolled", winner: "A" }], window: null });
  assert.deepEqual(h.last().sent.at(-1), { type: "sync", since: null });
  assert.equal(conn.view.stale, true);
  h.last().deliver(snapshot(3));
  assert.equal(conn.view.stale, false);
});

test("ARO window: every events frame carries it; countdown from the server's remaining time", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  const open = { order: 3, step: 1, reactive: "B", deadline_ms: 99, remaining_ms: 30000 };
  h.last().deliver({ type: "events", first: 3, events: [null], window: open });
  const w = conn.view.window;
  assert.equal(w.reactive, "B");
  assert.equal(windowRemainingMs(w, w.received_at + 12000), 18000);
  assert.equal(windowRemainingMs(w, w.received_at + 40000), 0);
  h.last().deliver({ type: "events", first: 4, events: [null], window: { ...open, remaining_ms: 20000 } });
  assert.equal(conn.view.window.remaining_ms, 20000);
  h.last().deliver({ type: "events", first: 5, events: [null], window: null });
  assert.equal(conn.view.window, null);
  assert.equal(conn.view.version, 5);
});

test("an events frame with no events still sets the window; an old resend does not", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  const open = { order: 3, step: 1, reactive: "B", deadline_ms: 99, remaining_ms: 30000 };
  h.last().deliver({ type: "events", first: 3, events: [], window: open });
  assert.equal(conn.view.version, 2);
  assert.equal(conn.view.window.order, 3);
  h.last().deliver({ type: "events", first: 2, events: [null], window: null }); // ends at 2: current
  assert.equal(conn.view.window, null);
  h.last().deliver({ type: "events", first: 3, events: [null], window: open });
  h.last().deliver({ type: "events", first: 2, events: [null], window: null }); // ends at 2 < 3: old
  assert.equal(conn.view.window.order, 3);
  assert.equal(conn.view.version, 3);
  assert.ok(!h.last().sent.some((m) => m.type === "sync"));
});

test("presence updates the seat status", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(2));
  h.last().deliver({ type: "presence", seat: "B", status: "away", grace_deadline_ms: 5 });
  assert.equal(conn.view.seats.B, "away");
});

test("a malformed frame is reported, not thrown", () => {
  const { h, conn } = connected();
  let errors = 0;
  conn.addEventListener("protocol-error", () => { errors += 1; });
  h.last().onmessage({ data: new Uint8Array([0xc1]).buffer });
  h.last().deliver({ type: "no_such_message" });
  assert.equal(errors, 2);
});

test("a seat asks for its options after each new version and keeps only the current ones", () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(4));
  h.last().deliver(snapshot(4));
  assert.equal(h.last().optionsRequests, 1);
  assert.equal(conn.currentOptions(), null);
  h.last().deliver({ type: "options", version: 4, options: { end_turn: true } });
  assert.deepEqual(conn.currentOptions(), { end_turn: true });
  assert.equal(h.last().optionsRequests, 1, "no second request for the same version");
  h.last().deliver({ type: "events", first: 5, events: [{ type: "phase_started", phase: "orders" }], window: null });
  assert.equal(conn.currentOptions(), null, "options of version 4 are stale at version 5");
  assert.equal(h.last().optionsRequests, 2);
});

test("spectators never ask for options and learn the spectator count", () => {
  const { h, conn } = connected({ token: null });
  h.last().deliver({ ...welcome(4, "spectator"), spectators: 3 });
  h.last().deliver(snapshot(4));
  assert.equal(conn.spectators, 3);
  h.last().deliver({ type: "spectators", count: 2 });
  assert.equal(conn.spectators, 2);
  assert.equal(h.last().optionsRequests, 0);
});

test("retryStale: a command the room outran is issued again at the new version with a new id", async () => {
  const { h, conn } = connected();
  h.last().deliver(welcome(0));
  h.last().deliver(snapshot(0));
  const answer = conn.send({ type: "choose_army", army: "x" }, { retryStale: true });
  assert.deepEqual(h.last().sent.at(-1), { type: "command", id: "c1", version: 0, body: { type: "choose_army", army: "x" } });
  h.last().deliver({ type: "events", first: 1, events: [null], window: null });
  h.last().deliver({ type: "rejected", id: "c1", code: "stale_version", message: "moved on" });
  await new Promise((resolve) => setImmediate(resolve)); // let the retry run (microtasks)
  assert.deepEqual(h.last().sent.at(-1), { type: "command", id: "c2", version: 1, body: { type: "choose_army", army: "x" } });
  h.last().deliver({ type: "accepted", id: "c2", version: 2 });
  assert.deepEqual(await answer, { ok: true, id: "c2", version: 2 });
  const plain = conn.send({ type: "end_turn" });
  h.last().deliver({ type: "rejected", id: "c3", code: "stale_version", message: "moved on" });
  assert.equal((await plain).code, "stale_version", "without retryStale the rejection is the answer");
});

const microtasks = () => new Promise((resolve) => setImmediate(resolve));
const unavailable = (id) => ({ type: "rejected", id, code: "storage_unavailable", message: "storage is unavailable: try again" });

function withStorageRetry(storageRetry) {
  const h = harness();
  const conn = new GameConnection({ url: "ws://x/ws", room: "r1", token: "tok-a", createSocket: h.createSocket,
    setTimer: h.setTimer, clearTimer: h.clearTimer, newId: () => "c1", storageRetry });
  conn.connect();
  h.last().open();
  h.last().deliver(welcome(2));
  h.last().deliver(snapshot(2));
  return { h, conn };
}

test("a command answered storage_unavailable is sent again by itself, under its id, after a growing back-off", async () => {
  const { h, conn } = withStorageRetry({ initialMs: 100, maxMs: 1000, random: () => 1 });
  const waits = [];
  conn.addEventListener("storage", (e) => waits.push(e.detail.waiting));
  const answer = conn.send({ type: "end_turn" });
  const sent = { type: "command", id: "c1", version: 2, body: { type: "end_turn" } };
  for (const expected of [100, 200]) {
    h.last().deliver(unavailable("c1"));
    await microtasks();
    assert.equal(conn.waitingForStorage, 1, "waiting for storage, not answered");
    assert.equal(h.timers.at(-1).ms, expected);
    h.timers.at(-1).fn();
    await microtasks();
    assert.deepEqual(h.last().sent.at(-1), sent, "the same command, the same id");
  }
  h.last().deliver({ type: "events", first: 3, events: [null], window: null, accepted: "c1" });
  assert.deepEqual(await answer, { ok: true, id: "c1", version: 3 });
  assert.equal(h.last().sent.filter((m) => m.type === "command").length, 3);
  assert.deepEqual(waits, [1, 0, 1, 0], "each wait said when it began and ended");
});

test("storage that stays away past giveUpMs: the caller gets the storage_unavailable answer", async () => {
  const { h, conn } = withStorageRetry({ initialMs: 100, maxMs: 100, giveUpMs: 250, random: () => 1 });
  const answer = conn.send({ type: "end_turn" });
  for (let wait = 0; wait < 2; wait += 1) {
    h.last().deliver(unavailable("c1"));
    await microtasks();
    h.timers.at(-1).fn();
    await microtasks();
  }
  h.last().deliver(unavailable("c1")); // a third wait would make 300 ms > 250
  const given = await answer;
  assert.equal(given.ok, false);
  assert.equal(given.code, "storage_unavailable");
  assert.equal(h.last().sent.filter((m) => m.type === "command").length, 3);
  assert.equal(conn.waitingForStorage, 0);
});

test("close() during a wait for storage answers the command with the storage_unavailable it had", async () => {
  const { h, conn } = withStorageRetry({ initialMs: 100, random: () => 1 });
  const answer = conn.send({ type: "end_turn" });
  h.last().deliver(unavailable("c1"));
  await microtasks();
  assert.equal(conn.waitingForStorage, 1);
  conn.close();
  assert.equal((await answer).code, "storage_unavailable");
  assert.equal(conn.waitingForStorage, 0);
  h.timers.at(-1).fn(); // the ended wait's timer firing late changes nothing
  assert.equal(conn.waitingForStorage, 0);
  assert.equal(h.last().sent.filter((m) => m.type === "command").length, 1);
});

test("other rejections are answered at once, with no wait for storage", async () => {
  const { h, conn } = withStorageRetry({});
  const answer = conn.send({ type: "end_turn" });
  h.last().deliver({ type: "rejected", id: "c1", code: "not_your_turn", message: "It is not your turn." });
  assert.equal((await answer).code, "not_your_turn");
  assert.equal(h.timers.length, 0);
});
