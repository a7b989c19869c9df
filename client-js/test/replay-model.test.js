// The replay viewer's positions (client-js/app/replay-model.js) on a contract-shaped step
// list (test/fixtures/replay-steps.json): the link's fragment, stepping by event, Order, turn
// and round both ways, the matching step of another view, the play delays, the clocks as they stood.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const { steps } = JSON.parse(readFileSync(join(here, "fixtures", "replay-steps.json"), "utf8"));

/** @type {typeof import("../app/replay-model.js")} */
let m;
before(async () => { m = await import("../app/replay-model.js"); });

test("the fragment round-trips a room's position and defaults to the spectator's view", () => {
  assert.deepEqual(m.parseReplayHash("#room=r1&view=A&step=12"), { room: "r1", replay: null, view: "A", step: 12 });
  assert.deepEqual(m.parseReplayHash("#room=r1&view=nobody&step=-3"), { room: "r1", replay: null, view: "spectator", step: null });
  const link = { room: null, replay: "abc", view: /** @type {const} */ ("revealed"), step: 4 };
  assert.deepEqual(m.parseReplayHash(m.replayHash(link)), link);
});

test("the API addresses follow the contract for a room and for a posted record", () => {
  const room = m.replayUrls({ room: "r 1" }, "B");
  assert.equal(room.steps, "/api/rooms/r%201/replay?view=B");
  assert.equal(room.state(3), "/api/rooms/r%201/replay/state?view=B&step=3");
  const posted = m.replayUrls({ replay: "h1" }, "revealed");
  assert.equal(posted.steps, "/api/replays/h1?view=revealed");
  assert.equal(posted.state(0), "/api/replays/h1/state?view=revealed&step=0");
});

test("stepping by event moves one step and stops at both ends", () => {
  assert.equal(m.stepTarget(steps, 4, "event", 1), 5);
  assert.equal(m.stepTarget(steps, 4, "event", -1), 3);
  assert.equal(m.stepTarget(steps, 0, "event", -1), 0);
  assert.equal(m.stepTarget(steps, 12, "event", 1), 12);
});

test("stepping by Order goes to the next Order's first step, and back to the start of this one, then the previous", () => {
  assert.equal(m.stepTarget(steps, 0, "order", 1), 1);
  assert.equal(m.stepTarget(steps, 3, "order", 1), 6);
  assert.equal(m.stepTarget(steps, 6, "order", 1), 9);
  assert.equal(m.stepTarget(steps, 7, "order", -1), 6);
  assert.equal(m.stepTarget(steps, 6, "order", -1), 1);
  assert.equal(m.stepTarget(steps, 1, "order", -1), 0);
  assert.equal(m.stepTarget(steps, 9, "order", 1), 12); // the last Order: to the end
});

test("stepping by turn and by round", () => {
  assert.equal(m.stepTarget(steps, 2, "turn", 1), 8);
  assert.equal(m.stepTarget(steps, 8, "turn", 1), 11);
  assert.equal(m.stepTarget(steps, 9, "turn", -1), 8);
  assert.equal(m.stepTarget(steps, 8, "turn", -1), 0);
  assert.equal(m.stepTarget(steps, 3, "round", 1), 11);
  assert.equal(m.stepTarget(steps, 12, "round", -1), 11);
  assert.equal(m.stepTarget(steps, 11, "round", -1), 0);
});

test("another view's matching step is the last one committed no later, else the nearest version", () => {
  // A seat's view that did not receive the ARO window's events (steps 3 and 4 here).
  const seat = steps.filter((s) => s.index !== 3 && s.index !== 4).map((s, i) => ({ ...s, index: i, version: i }));
  assert.equal(m.matchingStep(steps, 3, seat), 2); // room time 1000: the seat's last event by then is the declaration
  assert.equal(m.matchingStep(steps, 5, seat), 3); // 9000: the Order's resolution
  assert.equal(m.matchingStep(steps, 7, seat), 5);
  assert.equal(m.matchingStep(steps, 4, seat), 3); // the window's close (9000), which the seat never saw: the last of its batch it did
  assert.equal(m.matchingStep(seat, 2, steps), 2); // the declaration, committed with the Order's start and the window's opening (1000)
  assert.equal(m.matchingStep(seat, 3, steps), 5);
  assert.equal(m.matchingStep(steps, 0, seat), 0);
  const untimed = steps.map((s) => ({ ...s, at_ms: null }));
  assert.equal(m.matchingStep(untimed, 7, seat), 7);
  assert.equal(m.matchingStep(untimed, 12, seat.slice(0, 5)), 4);
});

test("play waits the room's time between events, scaled by the speed and capped both ways", () => {
  assert.equal(m.playDelayMs(steps, 1, 1), m.MIN_GAP_MS); // committed together
  assert.equal(m.playDelayMs(steps, 3, 1), m.MAX_GAP_MS); // 8 s waited for the ARO: capped
  assert.equal(m.playDelayMs(steps, 6, 2), 500);
  assert.equal(m.playDelayMs(steps, 5, 16), m.MAX_GAP_MS / 16); // a long think: capped
  assert.equal(m.playDelayMs(steps, 0, 1), m.UNKNOWN_GAP_MS); // step 0 has no time
  assert.equal(m.playDelayMs(steps, 12, 1), null);
});

test("a step's clocks stand still when paused and run with the room's time when played", async () => {
  const { clocksNow } = await import("../app/overlay-model.js");
  const frame = { A: { remaining_ms: 60000, running: true, out_of_time: false }, B: { remaining_ms: 30000, running: false, out_of_time: false } };
  const now = 1_000_000;
  const still = clocksNow(/** @type {any} */ (m.clocksAt(frame, 0, now)), now);
  assert.equal(still?.A.text, "1:00");
  assert.equal(still?.B.text, "0:30");
  const later = clocksNow(/** @type {any} */ (m.clocksAt(frame, 4000, now)), now);
  assert.equal(later?.A.text, "0:56");
  assert.equal(later?.B.text, "0:30"); // B's clock was not running
  assert.equal(m.clocksAt(null, 0, now), null);
});

test("the position in words and the Orders' first steps", () => {
  assert.equal(m.positionText(steps, 9), "step 9 of 12 · round 1, turn 2 (B active) · Order 3");
  assert.deepEqual(m.orderStarts(steps), [{ order: 1, index: 1 }, { order: 2, index: 6 }, { order: 3, index: 9 }]);
  assert.match(m.refusalText(409, { error: "game_not_over" }), /once the game is over/);
  assert.match(m.refusalText(404, { error: "replay_not_found" }), /load the record file again/);
});

test("the log up to a step comes from the steps list's own events, without a request per step", () => {
  const entries = m.historyUpTo(steps, 5);
  assert.deepEqual(entries, steps.slice(1, 6).map((s) => ({ version: s.version, event: s.event })));
  assert.deepEqual(entries.map((e) => e.event?.type), ["order_spent", "skill_declared", "aro_window_opened", "aro_window_closed", "order_resolved"]);
  assert.equal(m.historyUpTo(steps, steps.length - 1).length, steps.length - 1);
  assert.deepEqual(m.historyUpTo(steps, 0), []);
});
