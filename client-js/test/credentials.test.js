// The credentials this browser keeps for the node's room reserve (client-js/app/credentials.js):
// what is kept, what is sent, what is forgotten.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KEEP_MS, MAX_KEPT, STORAGE_KEY, credentialToSend, keepCredential, keptCredentials } from "../app/credentials.js";

/** A localStorage of a Map. */
function memory() {
  const data = new Map();
  return { data, getItem: (/** @type {string} */ k) => data.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => { data.set(k, v); } };
}

test("nothing kept: nothing sent", () => {
  assert.equal(credentialToSend(memory()), null);
  assert.equal(credentialToSend(null), null);
});

test("a played credential is sent before a newer one not known to be played", () => {
  const storage = memory();
  keepCredential({ room: "r1", token: "seat-a" }, { played: true, storage, nowMs: 1000 });
  keepCredential({ room: "r2", token: "room-organizer" }, { played: false, storage, nowMs: 2000 });
  assert.deepEqual(credentialToSend(storage, 3000), { room: "r1", token: "seat-a" });
  keepCredential({ tournament: "t1", organizer: "t-org" }, { played: true, storage, nowMs: 4000 });
  assert.deepEqual(credentialToSend(storage, 5000), { tournament: "t1", organizer: "t-org" }, "the newest played one");
});

test("a credential not known played is sent when it is all there is; once played it stays played", () => {
  const storage = memory();
  keepCredential({ room: "r2", token: "room-organizer" }, { played: false, storage, nowMs: 1000 });
  assert.deepEqual(credentialToSend(storage, 2000), { room: "r2", token: "room-organizer" });
  keepCredential({ room: "r2", token: "room-organizer" }, { played: true, storage, nowMs: 3000 });
  keepCredential({ room: "r2", token: "room-organizer" }, { played: false, storage, nowMs: 4000 });
  assert.deepEqual(keptCredentials(storage, 5000), [{ room: "r2", token: "room-organizer", played: true, seen_ms: 4000 }]);
});

test("at most MAX_KEPT, newest first; old and unreadable ones are forgotten", () => {
  const storage = memory();
  for (let i = 0; i < MAX_KEPT + 3; i += 1) keepCredential({ room: `r${i}`, token: `t${i}` }, { played: true, storage, nowMs: 1000 + i });
  const kept = keptCredentials(storage, 2000);
  assert.equal(kept.length, MAX_KEPT);
  assert.equal(/** @type {any} */ (kept[0]).room, `r${MAX_KEPT + 2}`);
  assert.deepEqual(credentialToSend(storage, 1000 + KEEP_MS + MAX_KEPT + 3), null, "a month later nothing is sent");
  storage.setItem(STORAGE_KEY, "{not json");
  assert.deepEqual(keptCredentials(storage), []);
  storage.setItem(STORAGE_KEY, JSON.stringify([{ room: 5, token: "x", seen_ms: 1 }, "junk", null]));
  assert.deepEqual(keptCredentials(storage, 2), []);
});
