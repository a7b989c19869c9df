// The limits' refusals in words (client-js/app/refusals.js), from refusals shaped as the
// server sends them (server/lobby/admission.py, server/tournaments/registration_limits.py,
// server/tournaments/decide.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { refusalWords, retryAfterS, waitRefusal, waitText } from "../app/refusals.js";

test("a wait in words", () => {
  assert.deepEqual([0, 1, 59, 60, 95, 600, 3599, 3600, 4500, 5400.2].map(waitText),
    ["0 s", "1 s", "59 s", "1 min", "1 min 35 s", "10 min", "59 min 59 s", "1 h", "1 h 15 min", "1 h 30 min"]);
});

test("the wait: the body's retry_after_s, else the Retry-After header, else none", () => {
  assert.equal(retryAfterS({ retry_after_s: 12 }, "40"), 12);
  assert.equal(retryAfterS({ error: "lobby_busy" }, "40"), 40);
  assert.equal(retryAfterS({ error: "lobby_busy" }, "Wed, 21 Oct 2015 07:28:00 GMT"), null, "a date header is not read as seconds");
  assert.equal(retryAfterS(null), null);
  assert.equal(waitRefusal({ retry_after_s: 3 }), true);
  assert.equal(waitRefusal({ error: "tournament_full" }), false);
});

test("the registration refusals say what happened, then the server's detail, then the wait", () => {
  const now = Date.UTC(2026, 10, 29, 6, 0, 0);
  const at = (/** @type {number} */ s) => new Date(now + s * 1000).toLocaleTimeString();
  assert.equal(refusalWords({ error: "too_many_registrations", retry_after_s: 150,
    message: "too many registrations from this address; try again in 150 s, or ask the organizer to add you" }, 429, { nowMs: now }),
  `Too many registrations came from your network in a short time. Too many registrations from this address; try again in 2 min 30 s, or ask the organizer to add you. (That is at ${at(150)}.)`);
  assert.equal(refusalWords({ error: "registrations_per_address",
    message: "4 players of this tournament were registered from this address; ask the organizer to add more" }, 409),
  "Your network already holds as many places in this tournament as one address may. 4 players of this tournament were registered from this address; ask the organizer to add more.");
  assert.equal(refusalWords({ error: "registration_closed", message: "the organizer closed registration: ask the organizer to add you" }, 409),
    "Registration is closed. The organizer closed registration: ask the organizer to add you.");
  assert.equal(refusalWords({ error: "tournament_full" }, 409), "The tournament is full: every place is taken.");
});

test("a round over the room limits names its size and the wait; a message without the wait gets it added", () => {
  const now = Date.UTC(2026, 10, 29, 6, 0, 0);
  const at = (/** @type {number} */ s) => new Date(now + s * 1000).toLocaleTimeString();
  assert.equal(refusalWords({ error: "too_many_rooms", retry_after_s: 900,
    message: "a round of 40 tables creates 40 rooms, over what this address may create now (the lobby's limit, shared with its rooms); try again in 900 s" }, 429, { nowMs: now }),
  `Too many rooms were created from your address. A round of 40 tables creates 40 rooms, over what this address may create now (the lobby's limit, shared with its rooms); try again in 15 min. (That is at ${at(900)}.)`);
  assert.equal(refusalWords({ error: "lobby_busy", retry_after_s: 240,
    message: "a round of 128 tables would pass this server's 500 rooms nobody has joined yet (400 now); try again when players have joined theirs" }, 503, { nowMs: now }),
  `The server is busy creating rooms. A round of 128 tables would pass this server's 500 rooms nobody has joined yet (400 now); try again when players have joined theirs. Try again in 4 min (at ${at(240)}).`);
  // The header alone gives the wait (a proxy's 503 without the server's body).
  assert.equal(refusalWords({ error: "lobby_busy" }, 503, { retryAfter: "30" }), "The server is busy creating rooms. Try again in 30 s.");
});

test("other refusals keep the server's message and code; no answer says the status", () => {
  assert.equal(refusalWords({ error: "bad_field", message: "name: 1 to 80 characters" }, 400), "name: 1 to 80 characters (bad_field)");
  assert.equal(refusalWords(null, 502), "HTTP 502");
  assert.equal(refusalWords(null, 0), "unreachable");
  assert.equal(refusalWords({ error: "busy", retry_after_s: 2 }, 503), "busy; try again in 2 s");
});
