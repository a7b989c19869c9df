// The replay viewer (client-js/app/replay.html, docs/client.md "Replay viewer"): a short
// CodeOne game played to its end in the scenario server (armies, initiative, deployment by
// clicks with a trooper in Hidden Deployment, two Orders, a concession), then its replay
// opened in all four views. Each step drawn is checked against the server's own replay state
// (GET /api/rooms/{room}/replay/state): the troopers where the table draws them, the round and
// turn, the version and the log up to the step; stepping by event and by Order both ways, the
// keys, the slider, play, the view picker keeping the position, a link opening at its step,
// the revealed view showing the hidden trooper and both Lieutenants a seat's view hides, a link
// to the last step asking for one step's state (the log comes with the steps list), and
// "Verify the dice". Real headless Chromium; every wait is on a DOM or page condition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { artifacts, closeAll, scenarioForFile } from "./harness.mjs";
import { WAIT, deployByClicks, initiativeByClicks, logged, openSeat, playOrdersToTheEnd, state } from "./game_by_clicks.mjs";

const scenario = scenarioForFile();
const shot = (page, name) => page.screenshot({ path: join(artifacts, `replay-${name}.png`) });

/** A JSON answer of the server, fetched by the page (as the viewer fetches it). */
const getJson = (page, path) => page.evaluate(async (path) => (await fetch(path)).json(), path);

/** Open the replay at `hash` and wait until it drew the step the fragment names (or step 0). */
async function openReplay(hash) {
  const page = await scenario.newPage();
  await page.goto(`${scenario.base}/replay.html${hash}`);
  await page.waitForFunction(() => window.replayViewer?.shown, null, WAIT);
  return page;
}

/** Wait until the viewer drew step `index` and its log holds every event up to it. */
async function drawn(page, index) {
  const where = () => page.evaluate(() => ({ index: window.replayViewer?.index, shown: window.replayViewer?.shown?.index,
    version: window.replayViewer?.shown?.version, lines: document.querySelectorAll("#log li").length, message: document.getElementById("replay-message").textContent }));
  await page.waitForFunction((index) => {
    const viewer = window.replayViewer;
    const version = viewer.shown?.version;
    const lines = [...document.querySelectorAll("#log li[data-version]")].map((x) => Number(x.dataset.version));
    return viewer.index === index && viewer.shown.index === index && lines.length === version && lines.every((n, i) => n === i + 1);
  }, index, WAIT).catch(async (error) => { throw new Error(`step ${index} not drawn: ${JSON.stringify(await where())}`, { cause: error }); });
}

/**
 * The step on screen equals the server's replay state of that step: every trooper it holds
 * with a position is drawn there (a base, or a Camouflage marker's token), nothing else is
 * drawn, and the status bar says its round, turn and version.
 */
async function assertDrawnAsServer(page, room, view, index) {
  await drawn(page, index);
  const server = await getJson(page, `/api/rooms/${room}/replay/state?view=${view}&step=${index}`);
  assert.equal(server.index, index);
  const onTable = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#table [data-trooper]")].map((g) => {
    const base = g.querySelector("[data-base]");
    const marker = g.querySelector("[data-marker]");
    const at = base ? [Number(base.getAttribute("cx")), Number(base.getAttribute("cy"))]
      : marker ? [Number(marker.getAttribute("x")) + Number(marker.getAttribute("width")) / 2, Number(marker.getAttribute("y")) + Number(marker.getAttribute("height")) / 2] : null;
    return [g.dataset.trooper, at];
  })));
  const placed = server.state.troopers.filter((t) => t.position);
  assert.deepEqual(Object.keys(onTable).sort(), placed.map((t) => t.id).sort(), `${view} step ${index}: the troopers drawn`);
  for (const t of placed) {
    assert.ok(Math.abs(onTable[t.id][0] - t.position[0]) < 1e-6 && Math.abs(onTable[t.id][1] - t.position[1]) < 1e-6,
      `${view} step ${index}: ${t.id} drawn at ${onTable[t.id]}, the server has it at ${t.position}`);
  }
  assert.equal(await page.$eval("#round", (x) => x.textContent), `round ${server.state.round}, turn ${server.state.turn}, active ${server.state.active ?? "-"}`);
  assert.equal(await page.$eval("#version", (x) => x.textContent), String(server.version));
  // The ARO countdown and the chess clocks as they stood (paused: as the step's frame carried them).
  const countdown = await page.$eval("#aro-clock", (x) => (x.hidden ? null : x.textContent));
  if (server.window) assert.match(countdown ?? "", new RegExp(`player ${server.window.reactive} ${(server.window.remaining_ms / 1000).toFixed(1)} s$|^Your ARO ${(server.window.remaining_ms / 1000).toFixed(1)} s$`));
  else assert.equal(countdown, null);
  const faces = await page.$$eval("#chess-clocks [data-side]", (x) => x.map((f) => f.textContent));
  assert.deepEqual(faces, server.clocks ? ["A", "B"].map((side) => `${side} ${clockText(server.clocks[side].remaining_ms)}`) : ["", ""]);
  assert.match(await page.evaluate(() => location.hash), new RegExp(`step=${index}(&|$)`));
  return server;
}

/** A chess clock's face as the app writes it (overlay-model.js clockText): "59:58", "1:00:00". */
function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), String(total % 60).padStart(2, "0")];
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** The first step of the next Order after `index` (as the viewer's Shift+→ goes). */

/** The n-th deployment point of a zone, 8 to a row on CodeOne's 24" table. */
const codeOneGrid = (zone, n) => [zone.x0 + 2 + (n % 8) * 2.8, zone.y0 + 2 + Math.floor(n / 8) * 3];

const nextOrderStep = (steps, index) => steps.find((s) => s.index > index && s.order !== null && s.order !== steps[index].order)?.index ?? steps.length - 1;

test("a finished game replays step by step in all four views, each step drawn as the server's replay state", async () => {
  // A short game: CodeOne on the open sample table, B's list has a trooper in Hidden Deployment.
  const created = await fetch(`${scenario.base}/api/rooms`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "codeone", aro_window_s: 5, seed: 5, table: "sample-open-codeone", clock_s: 3600 }) });
  assert.equal(created.status, 201);
  const room = await created.json();
  const a = await openSeat(scenario, room.seats.A.link, 31);
  const b = await openSeat(scenario, room.seats.B.link, 32);
  await Promise.all([a.click('[data-army="helion-c1-patrol"]'), b.click('[data-army="orrery-c1-veil"]')]);
  await initiativeByClicks(a, b);
  const hidden = (await deployByClicks(a, b, { grid: codeOneGrid, tries: 80 })).find((id) => id.startsWith("B-"));
  assert.ok(hidden, "B deployed a trooper in Hidden Deployment");
  // Two Orders (one per Player Turn), then the player to act concedes.
  // (B's Order may be its hidden trooper's private one, which A's view does not count.)
  await playOrdersToTheEnd(a, b, { ordersPerTurn: 1, async beforeOrder({ active }) {
    if (Math.max((await logged(a, "order_spent")).length, (await logged(b, "order_spent")).length) < 2) return null;
    await active.click("#concede");
    await active.click("#confirm-concede");
    await a.waitForFunction(() => window.referee.view.state.phase === "game_over", null, WAIT);
    return 0;
  } });
  assert.equal((await state(a)).phase, "game_over");
  // The end screen links the replay, in the seat's own view.
  assert.equal(await a.$eval("#watch-replay", (x) => x.getAttribute("href")), `replay.html#room=${room.room}&view=A`);
  await closeAll(a, b);

  // Seat A's view: from step 0, forward and back by event, then by Order.
  const seatA = await openReplay(`#room=${room.room}&view=A`);
  const stepsA = (await getJson(seatA, `/api/rooms/${room.room}/replay?view=A`)).steps;
  assert.ok(stepsA.length > 20, "A's view holds the game's events");
  assert.equal(await seatA.$eval("#replay-slider", (x) => x.max), String(stepsA.length - 1));
  await assertDrawnAsServer(seatA, room.room, "A", 0);
  const firstOrder = stepsA.find((s) => s.order !== null).index;
  await seatA.evaluate((i) => { const s = document.getElementById("replay-slider"); s.value = String(i); s.dispatchEvent(new Event("input")); }, firstOrder - 2);
  await assertDrawnAsServer(seatA, room.room, "A", firstOrder - 2);
  for (const [key, to] of [["ArrowRight", firstOrder - 1], ["ArrowRight", firstOrder], ["ArrowRight", firstOrder + 1], ["ArrowLeft", firstOrder]]) {
    await seatA.keyboard.press(key);
    await assertDrawnAsServer(seatA, room.room, "A", to);
  }
  const secondOrder = nextOrderStep(stepsA, firstOrder);
  await seatA.keyboard.press("Shift+ArrowRight");
  await assertDrawnAsServer(seatA, room.room, "A", secondOrder);
  assert.ok(stepsA[secondOrder].order === stepsA[firstOrder].order + 1, "Shift+→ went to the next Order");
  await seatA.keyboard.press("ArrowRight");
  await seatA.keyboard.press("Shift+ArrowLeft");
  await assertDrawnAsServer(seatA, room.room, "A", secondOrder);
  await seatA.keyboard.press("Shift+ArrowLeft");
  await assertDrawnAsServer(seatA, room.room, "A", firstOrder);
  await seatA.click("#next-turn");
  const turnStep = stepsA.find((s) => s.index > firstOrder && (s.turn !== stepsA[firstOrder].turn || s.round !== stepsA[firstOrder].round)).index;
  await assertDrawnAsServer(seatA, room.room, "A", turnStep);
  // The seat's view: its own Lieutenant, neither B's nor B's hidden trooper.
  assert.equal(await seatA.$$eval('[data-roster-side="A"] .rt-state-lieutenant', (x) => x.length), 1);
  assert.equal(await seatA.$$eval('[data-roster-side="B"] .rt-state-lieutenant', (x) => x.length), 0);
  assert.equal(await seatA.$(`#table [data-trooper="${hidden}"]`), null);
  assert.doesNotMatch(await seatA.content(), new RegExp(`${hidden}(?![0-9])`), "B's hidden trooper is nowhere in A's replay page");
  await shot(seatA, "seat-a");

  // The view picker keeps the position: the revealed view at the same moment of the game.
  const momentA = stepsA[turnStep];
  await seatA.selectOption("#replay-view", "revealed");
  await seatA.waitForFunction(() => window.replayViewer.view === "revealed" && window.replayViewer.shown, null, WAIT);
  const stepsR = (await getJson(seatA, `/api/rooms/${room.room}/replay?view=revealed`)).steps;
  // (The same event among those committed at once, else the last committed no later.)
  const same = stepsR.findLast((s) => s.index > 0 && s.at_ms === momentA.at_ms && s.type === momentA.type)?.index
    ?? stepsR.findLast((s) => s.index > 0 && s.at_ms <= momentA.at_ms)?.index ?? 0;
  assert.equal(stepsR[same].type, momentA.type);
  await assertDrawnAsServer(seatA, room.room, "revealed", same);
  assert.equal(stepsR[same].round, momentA.round);
  assert.equal(stepsR[same].turn, momentA.turn);
  // Everything revealed: both Lieutenants, and B's hidden trooper on the table.
  assert.equal(await seatA.$$eval('[data-roster-side="A"] .rt-state-lieutenant', (x) => x.length), 1);
  assert.equal(await seatA.$$eval('[data-roster-side="B"] .rt-state-lieutenant', (x) => x.length), 1);
  assert.ok(await seatA.$(`#table [data-trooper="${hidden}"]`), "the revealed view draws B's hidden trooper");
  await shot(seatA, "revealed");

  // Revealed: by Order forward, play at 16× for a few steps, the end with the result.
  await seatA.keyboard.press("Shift+ArrowRight");
  await assertDrawnAsServer(seatA, room.room, "revealed", nextOrderStep(stepsR, same));
  await seatA.selectOption("#replay-speed", "16");
  const from = await seatA.evaluate(() => window.replayViewer.index);
  await seatA.keyboard.press("Space");
  await seatA.waitForFunction((from) => window.replayViewer.index >= from + 3, from, WAIT);
  await seatA.keyboard.press("Space");
  await seatA.waitForFunction(() => !window.replayViewer.playing, null, WAIT);
  const paused = await seatA.evaluate(() => window.replayViewer.index);
  await assertDrawnAsServer(seatA, room.room, "revealed", paused);
  await seatA.evaluate((i) => { const s = document.getElementById("replay-slider"); s.value = String(i); s.dispatchEvent(new Event("input")); }, stepsR.length - 1);
  await assertDrawnAsServer(seatA, room.room, "revealed", stepsR.length - 1);
  assert.match(await seatA.$eval("#game-over-text", (x) => x.textContent), /^Game over: .*conce/i);

  // "Verify the dice" from the replay page: the live app's check of the record.
  await seatA.click("#verify-dice");
  await seatA.waitForSelector("#verify-result.good, #verify-result.bad", WAIT);
  assert.match(await seatA.$eval("#verify-result", (x) => x.textContent), /^All \d+ dice of this game match the commitment/);
  await shot(seatA, "revealed-end");

  // Seat B's and the spectator's views: a link opens at its step, forward and back by event.
  const stepsB = (await getJson(seatA, `/api/rooms/${room.room}/replay?view=B`)).steps;
  const atB = nextOrderStep(stepsB, 0);
  // The log comes with the steps list: a link to the last step asks for the state of the one
  // step it draws, not of every step before it, and its log holds every event.
  const lastB = stepsB.length - 1;
  const atEnd = await scenario.newPage();
  const stateRequests = [];
  atEnd.on("request", (r) => { if (new URL(r.url()).pathname.endsWith("/replay/state")) stateRequests.push(new URL(r.url()).searchParams.get("step")); });
  await atEnd.goto(`${scenario.base}/replay.html#room=${room.room}&view=B&step=${lastB}`);
  await drawn(atEnd, lastB);
  assert.deepEqual(stateRequests, [String(lastB)], "one state request: the step drawn");
  await assertDrawnAsServer(atEnd, room.room, "B", lastB);
  const seatB = await openReplay(`#room=${room.room}&view=B&step=${atB}`);
  await assertDrawnAsServer(seatB, room.room, "B", atB);
  await seatB.keyboard.press("ArrowRight");
  await assertDrawnAsServer(seatB, room.room, "B", atB + 1);
  assert.ok(await seatB.$(`#table [data-trooper="${hidden}"]`), "B's own hidden trooper is in B's view");
  assert.equal(await seatB.$$eval('[data-roster-side="A"] .rt-state-lieutenant', (x) => x.length), 0);
  const spectator = await openReplay(`#room=${room.room}&view=spectator`);
  const stepsS = (await getJson(spectator, `/api/rooms/${room.room}/replay?view=spectator`)).steps;
  const atS = nextOrderStep(stepsS, 0);
  await spectator.keyboard.press("Shift+ArrowRight");
  await assertDrawnAsServer(spectator, room.room, "spectator", atS);
  await spectator.keyboard.press("ArrowRight");
  await assertDrawnAsServer(spectator, room.room, "spectator", atS + 1);
  await spectator.keyboard.press("ArrowLeft");
  await assertDrawnAsServer(spectator, room.room, "spectator", atS);
  assert.equal(await spectator.$(`#table [data-trooper="${hidden}"]`), null);
  assert.equal(await spectator.$$eval(".rt-state-lieutenant", (x) => x.length), 0);
  await shot(spectator, "spectator");

  // "Load a record file": the downloaded record, posted and replayed (without the room's times).
  const record = await getJson(spectator, `/api/rooms/${room.room}/record`);
  await spectator.setInputFiles("#record-file", { name: "game.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(record)) });
  await spectator.waitForFunction(() => /replay=/.test(location.hash) && window.replayViewer.shown?.index === 0, null, WAIT);
  assert.equal(await spectator.$eval("#replay-title", (x) => x.textContent), "Replay of a loaded record");
  const posted = new URLSearchParams((await spectator.evaluate(() => location.hash)).slice(1)).get("replay");
  await spectator.keyboard.press("Shift+ArrowRight");
  await drawn(spectator, atS);
  const postedState = await getJson(spectator, `/api/replays/${posted}/state?view=spectator&step=${atS}`);
  const roomState = await getJson(spectator, `/api/rooms/${room.room}/replay/state?view=spectator&step=${atS}`);
  assert.deepEqual(postedState.state, roomState.state, "the record file replays as its room");
  await spectator.click("#verify-dice");
  await spectator.waitForSelector("#verify-result.good, #verify-result.bad", WAIT);
  assert.match(await spectator.$eval("#verify-result", (x) => x.textContent), /^All \d+ dice of this game match the commitment/);
  await closeAll(seatA, atEnd, seatB, spectator);
});

test("the lobby lists a finished game with its Replay link", async () => {
  const page = await scenario.newPage();
  await page.goto(`${scenario.base}/`);
  await page.waitForSelector("#room-list [data-replay]", WAIT);
  const href = await page.$eval("#room-list [data-replay]", (x) => x.getAttribute("href"));
  assert.match(href, /^replay\.html#room=/);
  await closeAll(page);
});
