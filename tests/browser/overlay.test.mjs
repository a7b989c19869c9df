// The stream overlay (/overlay#room=...) in headless Chromium at 1920 x 1080, as a streaming
// program's browser source opens it: a transparent page, and every panel showing the values
// of a known game (tests/browser/scenario_server.py, seeded dice): round, turn, active player,
// Orders per pool, the ARO countdown while a window is open, the last roll's dice, casualties,
// VP at the end, the clocks of a frame. The players act through their own app pages'
// connections (the overlay is under test, not their clicks). Every wait is on a condition.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, startScenario } from "./harness.mjs";

const SIZE = { width: 1920, height: 1080 };

let scenario;
before(async () => { scenario = await startScenario(); });
after(async () => { await scenario?.stop(); });

// A's Lancer (A-t5) faces B's Enforcer (B-t3) along x = 22.5 (as game.test.mjs plays it).
const PLACEMENTS = {
  "A-t5": [22.5, 4.0, 90.0], "B-t3": [22.5, 28.0, 270.0], "B-t4": [1.5, 30.0, 90.0],
  "A-t1": [3.5, 1.5, 90.0], "B-t1": [3.5, 30.5, 90.0],
};

/** Send a command from a player's page (again if its view was behind the room's); its answer. */
const send = (page, body) => page.evaluate((body) => window.referee.send(body, { retryStale: true }), body);
const ok = async (page, body) => assert.deepEqual(await send(page, body).then((x) => [x.ok, x.message]), [true, undefined]);
const text = (page, selector) => page.$eval(selector, (x) => x.textContent);
/** An element's classes, sorted (toggled classes come in any order). */
const classes = (page, selector) => page.$eval(selector, (x) => [...x.classList].sort().join(" "));
const shot = (page, name) => page.screenshot({ path: join(artifacts, `overlay-${name}.png`), omitBackground: true });

/** Open the overlay as OBS would: the page at 1920 x 1080, nothing clicked. */
async function openOverlay(fragment) {
  const page = await scenario.newPage({ viewport: SIZE });
  await page.goto(`${scenario.base}/overlay${fragment}`);
  return page;
}

test("/overlay is served and shows a known game: round, turn, active player, Orders, ARO countdown, last roll, casualties, VP", async () => {
  const served = await fetch(`${scenario.base}/overlay`);
  assert.equal(served.status, 200);
  assert.match(served.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(await served.text(), /<script type="module" src="overlay.js">/);

  const room = await scenario.post("/test/scenario", { placements: PLACEMENTS, aro_window_s: 120, seed: 1 });
  const a = await scenario.open(room.seats.A.link, WAIT);
  const b = await scenario.open(room.seats.B.link, WAIT);
  // The spectator link's fragment opens the overlay.
  const overlay = await openOverlay(`#${room.spectator_link.split("#")[1]}`);
  await overlay.waitForFunction(() => window.referee?.view.state && document.getElementById("status").hidden, null, WAIT);
  assert.equal(await overlay.evaluate(() => window.referee.role), "spectator");

  // A transparent page: only the panels have backgrounds.
  const backgrounds = await overlay.evaluate(() => [document.documentElement, document.body, document.getElementById("stage")]
    .map((x) => getComputedStyle(x).backgroundColor));
  assert.deepEqual(backgrounds, ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"]);
  assert.deepEqual(await overlay.evaluate(() => [innerWidth, innerHeight]), [1920, 1080]);
  for (const id of ["#side-A", "#side-B", "#orders-A"]) {
    assert.match(await overlay.$eval(id, (x) => getComputedStyle(x).backgroundColor), /^rgba\(10, 13, 20, 0\.8\d*\)$/, `${id}: dark and semi-opaque`);
  }

  // The top bar: round 1, turn 1, player A active with its Order Count; B has none in A's turn.
  assert.equal(await text(overlay, "#round"), "Round 1 · Turn 1");
  assert.equal(await text(overlay, "#phase"), "Orders Phase");
  assert.equal(await text(overlay, "#active"), "Player A active");
  assert.equal(await overlay.$eval("#side-A", (x) => x.classList.contains("active")), true);
  const armies = await a.evaluate(() => window.referee.view.state.armies);
  assert.equal(await text(overlay, "#side-A .army"), armies.A.name);
  assert.equal(await text(overlay, "#side-B .army"), armies.B.name);
  assert.equal(await text(overlay, "#side-A .player"), "Player A");
  const counted = await a.evaluate(() => window.referee.view.state.orders);
  const regular = Object.values(counted.pools).reduce((n, k) => n + k, 0);
  const poolsShown = () => overlay.$$eval("#orders-A .pool", (xs) => xs.map((x) => `${x.dataset.pool}:${x.querySelector(".pool-left").textContent}`));
  const expected = [...Object.entries(counted.pools).map(([g, n]) => `G${g}:${n}`), `IRR:${counted.irregular.length}`, `IMP:${counted.impetuous.length}`,
    ...(counted.lieutenant ? ["LT:1"] : [])];
  assert.deepEqual(await poolsShown(), expected);
  assert.ok(regular > 0, "A counted Regular Orders");
  assert.equal(await overlay.$eval("#orders-B", (x) => x.hidden), true);
  assert.equal(await text(overlay, "#side-A .casualties"), "0");
  assert.equal(await text(overlay, "#side-A .vp"), "–", "a spectator does not see unit costs: VP at the end");
  assert.equal(await overlay.$eval("#aro", (x) => x.hidden), true);
  assert.equal(await overlay.$eval("#roll", (x) => x.hidden), true, "no roll yet");
  // This room plays without clocks: no clock shown.
  assert.deepEqual(await overlay.$$eval(".stat-clock", (xs) => xs.map((x) => x.hidden)), [true, true]);

  // A moves its Lancer: an ARO window opens for B, counted down on the overlay.
  await ok(a, { type: "activate", trooper: "A-t5", order: "regular" });
  await ok(a, { type: "declare_skill", skill: { type: "move", route: [[22.5, 4], [22.5, 6]] } });
  await overlay.waitForSelector("#aro:not([hidden])", WAIT);
  assert.equal(await text(overlay, "#aro .aro-who"), "Player B reacts");
  assert.equal(await overlay.$eval("#aro", (x) => x.className), "side-B");
  const first = Number((await text(overlay, "#aro .aro-seconds")).replace(" s", ""));
  assert.ok(first > 0 && first <= 120, `${first} s of a 120 s window`);
  await overlay.waitForFunction((first) => Number(document.querySelector("#aro .aro-seconds").textContent.replace(" s", "")) < first, first, WAIT);
  assert.deepEqual(await poolsShown(), expected.map((x) => (x === "G1:" + counted.pools["1"] ? `G1:${counted.pools["1"] - 1}` : x)),
    "the Order spent left its pool");
  await shot(overlay, "aro-window");

  // B shoots back; A shoots with its Line Rifle, Burst 3: the Face to Face resolves.
  await ok(b, { type: "declare_aro", trooper: "B-t3",
    skill: { type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t5", burst: 1 }] } });
  // Its only eligible trooper answered: B's app closes the window (and the next one, where none may react).
  await overlay.waitForSelector("#aro", { state: "hidden", ...WAIT });
  await ok(a, { type: "declare_skill", skill: { type: "bs_attack", weapon: "line_rifle", targets: [{ trooper: "B-t3", burst: 3 }] } });
  await overlay.waitForSelector("#roll:not([hidden]) .roll-row .die", WAIT);

  // The last roll shows the event's dice, each side's, styled as the results panel's.
  const resolved = await overlay.evaluate(() => window.referee.view.log.map((x) => x.event).findLast((e) => e?.type === "order_resolved"));
  const rolls = resolved.outcome.rolls;
  assert.equal(await overlay.$$eval("#roll .roll-row:not(.save)", (xs) => xs.length), rolls.length);
  for (const [i, r] of rolls.entries()) {
    const row = `#roll [data-roll="${i}"]`;
    assert.deepEqual(await overlay.$$eval(`${row} .die`, (xs) => xs.map((x) => Number(x.textContent))), r.dice.map((d) => d.face));
    assert.equal(await overlay.$eval(row, (x) => x.className), `roll-row side-${r.trooper[0]} ${r.successes + r.criticals > 0 ? "won" : "lost"}`);
    assert.match(await text(overlay, `${row} .roll-sv`), new RegExp(`^BS ${r.base} .*= SV ${r.success_value}$`));
  }
  assert.match(await text(overlay, "#roll [data-roll=\"0\"] .roll-who"), /^Lancer BS Attack · Line Rifle → Enforcer 1$/);
  assert.equal(await text(overlay, "#roll .roll-title"), "Last roll · Order 1");
  assert.equal(await text(overlay, "#roll .roll-active"), "Lancer");
  const winners = [...new Set(rolls.filter((r) => r.successes + r.criticals > 0).map((r) => r.trooper[0]))];
  assert.equal(await text(overlay, "#roll .roll-headline"),
    winners.length === 1 ? `Face to Face: Player ${winners[0]} wins` : winners.length ? "Face to Face: both sides succeed" : "Face to Face: neither side succeeds");
  assert.equal(await overlay.$$eval("#roll .roll-row.save", (xs) => xs.length), (resolved.outcome.saves ?? []).length);
  for (const [i, s] of (resolved.outcome.saves ?? []).entries()) {
    assert.deepEqual(await overlay.$$eval(`#roll [data-save="${i}"] .die`, (xs) => xs.map((x) => Number(x.textContent))), s.rolls.map((x) => x.face));
    assert.equal(await text(overlay, `#roll [data-save="${i}"] .verdict`), s.failed ? `${s.failed} failed` : "all saved");
  }
  // Casualties as the state has them, per side.
  const lost = await overlay.evaluate(() => Object.fromEntries(["A", "B"].map((side) => [side,
    window.referee.view.state.troopers.filter((t) => t.side === side && ["dead", "unconscious"].includes(t.condition)).length])));
  assert.equal(await text(overlay, "#side-A .casualties"), String(lost.A));
  assert.equal(await text(overlay, "#side-B .casualties"), String(lost.B));
  assert.ok(lost.A + lost.B > 0, "the seeded dice leave a casualty to show");
  await shot(overlay, "last-roll");

  // Over a busy picture (a stand-in for the camera's video), for a look at the contrast.
  await overlay.evaluate(() => { document.documentElement.style.background = "repeating-linear-gradient(45deg, #6b8f4e 0 60px, #d9d2b6 60px 120px, #3a4a5e 120px 180px)"; });
  await overlay.screenshot({ path: join(artifacts, "overlay-over-video.png") });
  await overlay.evaluate(() => { document.documentElement.style.background = ""; });

  // The clocks of a frame (hand-made: this room plays without them): the running one counts down.
  await overlay.evaluate(() => window.referee.dispatchEvent(new CustomEvent("message", { detail: { type: "snapshot", version: window.referee.view.version,
    clocks: { A: { remaining_ms: 4_123_000, running: true, out_of_time: false }, B: { remaining_ms: 245_000, running: false, out_of_time: false } } } })));
  await overlay.waitForSelector("#side-A .stat-clock:not([hidden])", WAIT);
  assert.equal(await text(overlay, "#side-B .clock"), "4:05");
  assert.equal(await classes(overlay, "#side-B .stat-clock"), "low stat stat-clock");
  assert.equal(await classes(overlay, "#side-A .stat-clock"), "running stat stat-clock");
  await overlay.waitForFunction(() => document.querySelector("#side-A .clock").textContent !== "1:08:43", null, WAIT);
  assert.match(await text(overlay, "#side-A .clock"), /^1:08:[0-4]\d$/);
  await shot(overlay, "clocks");
  // A's time runs out: the next frame says so.
  await overlay.evaluate(() => window.referee.dispatchEvent(new CustomEvent("message", { detail: { type: "events", first: window.referee.view.version + 1, events: [],
    clocks: { A: { remaining_ms: 0, running: false, out_of_time: true }, B: { remaining_ms: 245_000, running: true, out_of_time: false } } } })));
  await overlay.waitForFunction(() => document.querySelector("#side-A .clock").textContent === "OUT OF TIME", null, WAIT);
  assert.equal(await classes(overlay, "#side-A .stat-clock"), "out stat stat-clock");
  assert.equal(await classes(overlay, "#side-B .stat-clock"), "low running stat stat-clock");
  await shot(overlay, "clock-out-of-time");

  // The overlay's socket drops: it reconnects by itself and follows the game to its end.
  await overlay.evaluate(() => window.referee.dropForTest());
  await ok(b, { type: "concede" });
  await overlay.waitForSelector("#result:not([hidden])", WAIT);
  const result = await a.evaluate(() => window.referee.view.state.result);
  assert.equal(await text(overlay, "#result .result-title"), "Player A wins");
  assert.equal(await text(overlay, "#side-A .vp"), String(result.victory_points.A));
  assert.equal(await text(overlay, "#side-B .vp"), String(result.victory_points.B));
  assert.equal(await text(overlay, "#phase"), "Game over");
  assert.equal(await text(overlay, "#active"), "", "no one is active once it is over");
  assert.equal(await classes(overlay, "#side-A"), "side side-A winner");
  assert.equal(await overlay.$eval("#status", (x) => x.hidden), true, "live again");
  await shot(overlay, "game-over");

  // A seat's link opened here is refused before any hello: the player keeps its seat.
  const seat = await openOverlay(`#${room.seats.B.link.split("#")[1]}`);
  await seat.waitForSelector("#status.fatal:not([hidden])", WAIT);
  assert.equal(await text(seat, "#status"), "Overlay: this is a player's seat link; open the spectator link or a caster link");
  assert.equal(await seat.evaluate(() => window.referee.role), null, "it never said hello");
  assert.deepEqual(await b.evaluate(() => [window.referee.status, window.referee.role, document.getElementById("seat-elsewhere").hidden]), ["open", "B", true]);
  await Promise.all([a, b, overlay, seat].map((p) => p.context().close()));
});

test("a caster link (made by the room's organizer) opens the overlay in the caster's role, its delay named", async () => {
  const room = await scenario.post("/api/rooms", { ruleset: "codeone", seed: 3 });
  const made = await scenario.post(`/api/rooms/${room.room}/casters`, { organizer: room.organizer.token });
  // The lobby's answer carries the overlay's link on the caster feed, the caster link's fragment.
  assert.equal(made.caster.overlay_link, `/overlay#${made.caster.link.split("#")[1]}`);
  const page = await scenario.newPage({ viewport: SIZE });
  await page.goto(scenario.base + made.caster.overlay_link);
  await page.waitForFunction(() => window.referee?.view.state && document.getElementById("status").hidden, null, WAIT);
  assert.equal(await page.evaluate(() => window.referee.role), "caster");
  assert.equal(await text(page, "#phase"), `Army selection · ${Math.round(made.delay_s)} s delay`);
  assert.deepEqual(await page.$$eval(".side .army", (xs) => xs.map((x) => x.textContent)), ["Choosing an army", "Choosing an army"]);
  await shot(page, "caster-army-selection");
  await page.context().close();
});

test("an overlay link without a room says so instead of a blank page", async () => {
  const page = await openOverlay("");
  await page.waitForSelector("#status.fatal:not([hidden])", WAIT);
  assert.equal(await text(page, "#status"), "Overlay: the link names no room (/overlay#room=...)");
  await page.context().close();
});
