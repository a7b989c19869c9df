// A game on a mission in the browser app (issue 37), in real headless Chromium against
// tests/browser/scenario_server.py: the room plays the shipped N5 mission "Relay Station"
// (a Relay Core zone scored at each round's end, two consoles only a Specialist activates, the
// enemy Lieutenant, attrition). Both seats see its zone and consoles drawn on the table and
// the objectives panel; a click on a console says what it is. A's Signal Adept (a Hacker: a
// Specialist) walks onto the West Relay Console by clicks and activates it from the order
// panel (the WIP Roll's Success Value shown before it is declared); the console is marked as
// A's on both tables and in the logs. Both players then end their turns to the end of round 3:
// the OP each panel shows after each round and the end screen's OP and VP are the server's
// (`window.referee.view.state`), and so are the stream overlay's. The lobby's mission picker
// lists the ruleset's missions (GET /api/missions) and the room it creates is set up on the
// mission chosen. Classified Objectives: each seat reads only its own cards, a card achieved
// by its Short Skill is revealed to everyone with its OP. Screenshots:
// test-artifacts/browser/mission-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, assertFoldedWithoutSnapshot, clickTable, closeAll, scenarioForFile, shows } from "./harness.mjs";
import { clickAndAnswer, passAroWindowsUntil } from "./game_by_clicks.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.openTable(link, WAIT);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const state = (page) => page.evaluate(() => window.referee.view.state);
/** What the objectives panel and the end screen show of each side's OP. */
const panelOp = (page) => page.evaluate(() => Object.fromEntries(["A", "B"].map((s) =>
  [s, Number(document.querySelector(`#objectives-panel [data-op="${s}"]`)?.textContent)])));

// A: its Lieutenant far south-east, its Signal Adept 3.5" south of the West Relay Console
// (18, 20), inside the Relay Core once it moves; B: its Lieutenant far north-east.
const PLACEMENTS = { "A-t1": [30, 4, 90], "A-t14": [18, 16.5, 90], "B-t1": [30, 44, 270] };

test("a mission's zone and consoles on the table, a console activated by clicks, OP in the panel and the end screen", async () => {
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: PLACEMENTS,
    mission: "n5-relay-station", dice: [5] });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);

  // The mission drawn for both seats: the Relay Core and both consoles, named; the panel.
  for (const page of [a, b]) {
    await page.waitForSelector('#table [data-mission-zone="relay-core"]', { state: "attached", ...WAIT });
    for (const marker of ["console-west", "console-east"]) {
      await page.waitForSelector(`#table [data-mission-marker="${marker}"]`, { state: "attached", ...WAIT });
    }
    await shows(page, '#table [data-mission-zone-label="relay-core"]', /^Relay Core$/);
    await shows(page, '#table [data-mission-marker-label="console-west"]', /^West Relay Console$/);
    await shows(page, "#objectives-panel #mission-title", /^Mission: Relay Station$/);
    await shows(page, '#objectives-panel [data-objective="wake-consoles"]', /Activate the West Relay Console and the East Relay Console so far: A 0 · B 0 OP/);
  }
  assert.deepEqual(await panelOp(a), { A: 0, B: 0 });
  // A click on a console says what it is.
  await clickTable(b, 18, 20);
  await shows(b, "#mission-marker-info", /^West Relay Console \(console\): a Specialist trooper in base contact activates it .*Not activated yet\./);
  await shot(b, "mission-start-seat-B");
  await b.click("#legend-toggle"); // the legend says what the mission's drawings are
  await shows(b, "#table-legend", /Mission: Relay Station[\s\S]*objective zone[\s\S]*mission marker/);
  await shot(b, "mission-legend-seat-B");
  await b.click("#legend-toggle");

  // A's Signal Adept: a Regular Order, a Move onto the console, then Activate (WIP 14).
  await a.click('[data-select="A-t14"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 18, 20);
  await a.click('[data-skill="move"]');
  await passAroWindowsUntil(a, b, () => document.querySelector('[data-activate="console-west"]'), WAIT);
  await shows(a, '[data-activate="console-west"]', /^Activate the West Relay Console \(WIP 14 = SV 14\)$/);
  assert.equal(await a.$('[data-activate="console-east"]'), null, "the far console is not offered");
  await shot(a, "mission-activate-offered-seat-A");
  assert.equal((await clickAndAnswer(a, '[data-activate="console-west"]')).ok, true);
  await passAroWindowsUntil(a, b, () => (window.referee.view.state.objective_activations ?? []).length > 0
    && !window.referee.view.state.order, WAIT);
  for (const page of [a, b]) {
    await shows(page, "#log", /Signal Adept.* activates the West Relay Console for Player A \(round 1\): 1 OP at the end of the game/);
    await page.waitForSelector('#table [data-mission-marker="console-west"][data-activated-by="A"]', { state: "attached", ...WAIT });
    await shows(page, '[data-objective-marker="console-west"]', /West Relay Console: Player A ✓ \(round 1\)/);
  }
  assert.deepEqual((await state(b)).objective_activations.map((x) => [x.side, x.marker]), [["A", "console-west"]]);
  for (const page of [a, b]) await assertFoldedWithoutSnapshot(page, /objective_activated/);
  await shot(b, "mission-activated-seat-B");

  // Both players end their turns to the game's end; after each round the panels show the
  // server's OP (A's Adept holds the Relay Core).
  let roundsSeen = 0;
  for (let guard = 0; guard < 30; guard += 1) {
    const now = await state(a);
    if (now.phase === "game_over") break;
    const active = now.active === "A" ? a : b;
    await active.waitForSelector("#end-turn, #end-impetuous", WAIT);
    if (await active.$("#end-impetuous")) { assert.equal((await clickAndAnswer(active, "#end-impetuous")).ok, true); continue; }
    const round = now.round;
    await active.click("#end-turn");
    if (await active.$("#confirm-end-turn")) assert.equal((await clickAndAnswer(active, "#confirm-end-turn")).ok, true);
    await a.waitForFunction(([r, t]) => { const s = window.referee.view.state; return !window.referee.view.stale
      && (s.phase === "game_over" || s.round !== r || s.turn !== t); }, [round, now.turn], WAIT);
    const after = await state(a);
    if (after.phase !== "game_over" && after.round !== round) {
      roundsSeen += 1;
      for (const page of [a, b]) {
        const server = await state(page);
        await page.waitForFunction((op) => ["A", "B"].every((s) => Number(document.querySelector(`#objectives-panel [data-op="${s}"]`)?.textContent) === (op[s] ?? 0)),
          server.objective_points, WAIT);
      }
      if (roundsSeen === 1) {
        assert.equal((await state(a)).objective_points.A, 1, "A dominated the Relay Core in round 1");
        await shows(a, '[data-objective="hold-core"] [data-objective-op="hold-core"]', /so far: A 1 · B 0 OP/);
        await shows(a, "#log", /End of round 1, Objective Points: Player A scores 1 OP for Dominate the Relay Core: dominates the Relay Core \(18 points inside against 0\)/);
        await shot(a, "mission-round-1-scored-seat-A");
      }
    }
  }
  assert.equal(roundsSeen, 2, "rounds 1 and 2 scored before the game's end");

  // The end: the result's OP (the server's) in the panel, in the end screen, in the log.
  for (const page of [a, b]) {
    await page.waitForSelector("#result-score", WAIT);
    const { result, objective_points: op } = await state(page);
    assert.ok(Object.keys(result.op).length > 0, "a mission's result carries OP");
    assert.deepEqual(result.op, { A: op.A ?? 0, B: op.B ?? 0 });
    assert.deepEqual(await panelOp(page), { A: result.op.A, B: result.op.B });
    const shown = await page.evaluate(() => Object.fromEntries(["A", "B"].map((s) => [s, {
      op: Number(document.querySelector(`[data-result-op="${s}"]`).textContent),
      vp: Number(document.querySelector(`[data-result-vp="${s}"]`).textContent) }])));
    assert.deepEqual(shown, { A: { op: result.op.A, vp: result.victory_points.A }, B: { op: result.op.B, vp: result.victory_points.B } });
    assert.equal(result.winner, "A");
    await shows(page, "#game-over-text", new RegExp(`^Game over: player A wins \\(A ${result.op.A} OP, B ${result.op.B} OP; A ${result.victory_points.A} VP, B ${result.victory_points.B} VP\\), won on Objective Points`));
    await shows(page, '[data-objective="wake-consoles"] [data-objective-op="wake-consoles"]', /so far: A 1 · B 0 OP/);
    await shows(page, "#log", /End of the game, Objective Points: .*Player A scores 1 OP for Activate the West Relay Console and the East Relay Console: 1 activation \(West Relay Console\)/);
  }
  await shot(a, "mission-end-seat-A");

  // The stream overlay (a spectator's feed): the mission's title, each side's OP beside its VP, the result.
  const overlay = await scenario.newPage({ viewport: { width: 1920, height: 1080 } });
  await overlay.goto(`${scenario.base}/overlay#${room.spectator_link.split("#")[1]}`);
  await overlay.waitForFunction(() => window.referee?.view.state?.phase === "game_over" && !document.getElementById("result").hidden, null, WAIT);
  const { result } = await state(overlay);
  assert.equal(await overlay.textContent("#mission"), "Mission: Relay Station");
  for (const side of ["A", "B"]) {
    assert.equal(await overlay.textContent(`#side-${side} .stat-op .op`), String(result.op[side]));
    assert.equal(await overlay.textContent(`#side-${side} .vp`), String(result.victory_points[side]));
  }
  assert.match(await overlay.textContent("#result"), new RegExp(`^Player A winsA ${result.op.A} OP · B ${result.op.B} OP · A \\d+ VP · B \\d+ VP · won on Objective Points`));
  await overlay.screenshot({ path: join(artifacts, "mission-overlay.png"), omitBackground: true });
  await closeAll(a, b, overlay);
});

test("Classified Objectives: each seat reads its own cards only; one achieved by its Short Skill is revealed to all with its OP", async () => {
  // A holds Field Survey (a Specialist's Short Skill inside the enemy deployment zone) and
  // Handshake Protocol; B holds two cards of its own. A's Signal Adept stands in B's zone.
  const room = await scenario.post("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, mission: "n5-relay-station", dice: [5],
    placements: { "A-t1": [30, 4, 90], "A-t14": [10, 40, 90], "B-t1": [30, 44, 270] },
    classified: { A: ["field-survey", "handshake-protocol"], B: ["quiet-blade", "doorstep-raid"] } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const watcher = await open(room.spectator_link);
  await shows(a, '#classified [data-classified-side="A"]', /^Yours \(secret from your opponent until achieved\): 2 cards, 0 OPField Survey not yet.*Handshake Protocol not yet/);
  await shows(a, '#classified [data-classified-side="B"]', /^Player B: 2 cards, 2 still secret, 0 OP$/);
  await shows(b, '#classified [data-classified-side="B"]', /^Yours .*Quiet Blade not yet.*Doorstep Raid not yet/);
  for (const page of [b, watcher]) {
    await shows(page, '#classified [data-classified-side="A"]', /^Player A: 2 cards, 2 still secret, 0 OP$/);
    assert.doesNotMatch(await page.textContent("body"), /Field Survey|Handshake Protocol/, "A's cards are A's secret");
  }
  assert.doesNotMatch(await watcher.textContent("body"), /Quiet Blade|Doorstep Raid/, "B's cards are B's secret");
  await shot(a, "mission-classified-seat-A");

  // The card's Short Skill, offered with its Success Value, declared from the order panel.
  await a.click('[data-select="A-t14"]');
  await a.click('[data-order="regular"]');
  await shows(a, '[data-classified-action="field-survey"]', /^Classified Objective: Field Survey \(WIP 14 = SV 14\)$/);
  assert.equal((await clickAndAnswer(a, '[data-classified-action="field-survey"]')).ok, true);
  // Its first skill: the Order's second is Idle, then the Order resolves.
  await passAroWindowsUntil(a, b, () => document.getElementById("declare-idle") && !window.referee.view.state.order?.window_open, WAIT);
  await a.click("#declare-idle");
  await passAroWindowsUntil(a, b, () => !window.referee.view.state.order
    && window.referee.view.state.classified?.A?.cards?.some((c) => c.id === "field-survey" && c.achieved), WAIT);
  // Revealed to everyone, its OP counted; the other card stays A's secret.
  for (const page of [a, b, watcher]) {
    await shows(page, '#classified [data-classified="field-survey"]', /^Field Survey ✓ achieved/);
    await shows(page, "#log", /Player A achieves the Classified Objective Field Survey: 1 OP/);
    const server = await state(page);
    assert.equal(server.objective_points.A, 1);
    await page.waitForFunction(() => document.querySelector('#objectives-panel [data-op="A"]')?.textContent === "1", null, WAIT);
  }
  for (const page of [b, watcher]) {
    await shows(page, '#classified [data-classified-side="A"]', /^Player A: 2 cards, 1 still secret, 1 OP/);
    assert.doesNotMatch(await page.textContent("body"), /Handshake Protocol/);
  }
  await shot(b, "mission-classified-revealed-seat-B");
  await closeAll(a, b, watcher);
});

test("the lobby's mission picker: the ruleset's missions, the chosen one's objectives in words, the room set up on it", async () => {
  const page = await scenario.newPage();
  await page.goto(scenario.base + "/");
  await page.waitForSelector("#mission-choice:not([hidden])", WAIT);
  const listed = async () => page.$$eval("#mission-select option", (xs) => xs.map((x) => [x.value, x.textContent]));
  const served = async (ruleset) => (await (await fetch(`${scenario.base}/api/missions?ruleset=${ruleset}`)).json()).missions;
  const n5 = await served("n5");
  await page.waitForFunction((n) => document.querySelectorAll("#mission-select option").length === n + 1, n5.length, WAIT);
  assert.deepEqual(await listed(), [["", "No mission (annihilation, won on Victory Points)"], ...n5.map((x) => [x.id, x.title])]);
  // CodeOne's missions for a CodeOne room, then back to N5.
  await page.selectOption("#ruleset", "codeone");
  const codeone = await served("codeone");
  await page.waitForFunction((first) => document.querySelector("#mission-select option:nth-child(2)")?.value === first, codeone[0].id, WAIT);
  assert.deepEqual((await listed()).slice(1).map(([id]) => id), codeone.map((x) => x.id));
  await page.selectOption("#ruleset", "n5");
  await page.waitForFunction(() => document.querySelector('#mission-select option[value="n5-relay-station"]'), null, WAIT);
  await page.selectOption("#mission-select", "n5-relay-station");
  const relay = n5.find((x) => x.id === "n5-relay-station");
  for (const objective of relay.objectives) await shows(page, `#mission-summary [data-objective="${objective.id}"]`, new RegExp(`^${objective.text.slice(0, 30).replace(/[()]/g, "\\$&")}`));
  await shows(page, "#mission-summary", /Classified Objectives: each player draws 2, secret; 1 OP each once achieved\./);
  await page.screenshot({ path: join(artifacts, "mission-lobby.png") });
  await page.click("#create-room");
  await page.waitForSelector("#links:not([hidden])", WAIT);
  const seat = await page.inputValue("#link-a-text");
  const a = await scenario.newPage();
  await a.goto(seat);
  await a.waitForFunction(() => window.referee?.view.state?.mission, null, WAIT);
  assert.equal((await state(a)).mission.id, "n5-relay-station");
  await shows(a, "#objectives-panel #mission-title", /^Mission: Relay Station$/);
  await closeAll(page, a);
});
