// Browser tests in real headless Chromium (Debian's, via playwright-core): two players and a
// spectator in three browser contexts against a real server (tests/browser/scenario_server.py:
// the app plus a test-only route creating rooms from a scenario). Every wait is on a DOM or
// view condition; the dice are seeded, so every run plays the same game.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, assertFoldedWithoutSnapshot, clickTable, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);

const json = (path, body) => scenario.post(path, body);
const state = (page) => page.evaluate(() => window.referee.view.state);
const version = (page) => page.evaluate(() => window.referee.view.version);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
/** Wait until the page holds the seat options of its current version. */
const options = async (page) => {
  await page.waitForFunction(() => window.referee.currentOptions(), null, WAIT);
  return page.evaluate(() => window.referee.currentOptions());
};
/** Wait until the page's view has caught up with version v. */
const reach = (page, v) => page.waitForFunction((v) => window.referee.view.version >= v && !window.referee.view.stale, v, WAIT);

/** Send a command's answer back to the test: waits for the next answer of this page. */
const nextAnswer = (page) => page.evaluate(() => new Promise((resolve) =>
  window.referee.addEventListener("answer", (e) => resolve(e.detail), { once: true })));

/** The room's commitment as this page shows it: the short form and the full value on hover. */
const shownCommitment = (page) => page.evaluate(() => {
  const code = document.getElementById("dice-commitment");
  return { short: code.textContent, full: code.title.match(/[0-9a-f]{64}/)?.[0], visible: !document.getElementById("dice").hidden };
});

/** Every viewer shows the commitment of the welcome, in the status bar, the same for all. */
async function assertCommitmentShown(pages, expected) {
  for (const page of pages) {
    await page.waitForSelector("#dice:not([hidden])", WAIT);
    const shown = await shownCommitment(page);
    assert.equal(shown.full, expected);
    assert.equal(shown.short, `${expected.slice(0, 16)}…`);
  }
}

/** A player concedes through the UI (with its confirmation); every page waits for the end. */
async function concede(player, ...pages) {
  await player.click("#concede");
  await player.click("#confirm-concede");
  for (const page of [player, ...pages]) await page.waitForSelector("#game-over:not([hidden])", WAIT);
}

/** Click "Verify the dice" and wait for the outcome in words. */
async function verifyDice(page) {
  await page.click("#verify-dice");
  await page.waitForSelector("#verify-result.good, #verify-result.bad", WAIT);
  return page.$eval("#verify-result", (x) => x.textContent);
}

test("lobby creates a room with opponent and spectator links; a fixed-dice room is marked in the list", async () => {
  const fixed = await json("/api/rooms", { ruleset: "codeone", seed: 11 });
  const context = await scenario.browser.newContext();
  const page = await context.newPage();
  await page.goto(scenario.base + "/");
  await page.click("#create-room");
  await page.waitForSelector("#links:not([hidden])");
  assert.match(await page.inputValue("#link-b"), /#room=.+&token=.+/);
  assert.match(await page.inputValue("#link-spectator"), /#room=[^&]+$/);
  const created = new URLSearchParams((await page.inputValue("#link-spectator")).split("#")[1]).get("room");
  await page.waitForSelector(`#room-list [data-room="${created}"]`, WAIT);
  await page.waitForSelector(`#room-list [data-room="${fixed.room}"] .fixed-marker`, WAIT);
  assert.equal(await page.$(`#room-list [data-room="${created}"] .fixed-marker`), null, "a room with random dice has no marker");
  assert.match(await page.$eval(`#room-list [data-room="${fixed.room}"]`, (x) => x.textContent), /test room: fixed dice/);
  await shot(page, "01-lobby");
  await context.close();
});

test("two players and a spectator: armies picked at once, initiative, deployment by clicks, first order, concession, dice verified", async () => {
  // A room with a seed: a test room, which every viewer is warned about. On the sparse sample
  // table, so that the deployment below leaves troopers in each other's Line of Fire.
  const room = await json("/api/rooms", { ruleset: "codeone", aro_window_s: 30, seed: 7, table: "sample-open-codeone" });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  const described = await (await fetch(`${scenario.base}/api/rooms/${room.room}`)).json();
  assert.equal(described.fixed_dice, true);
  await assertCommitmentShown([a, b, spectator], described.dice_commitment);
  for (const page of [a, b, spectator]) {
    await page.waitForSelector("#fixed-dice-banner:not([hidden])", WAIT);
    assert.match(await page.$eval("#fixed-dice-banner", (x) => x.textContent), /^Test room: the dice were fixed by whoever created it/);
  }
  await spectator.screenshot({ path: join(artifacts, "02-fixed-dice-banner-spectator.png"), clip: { x: 0, y: 0, width: 1400, height: 110 } });

  // Both click at once: the second command is issued against an older version and must be
  // re-issued (this race made the old test fail 2 runs in 5).
  await Promise.all([a.click('[data-army="helion-c1-patrol"]'), b.click('[data-army="vesper-c1-cell"]')]);
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.initiative?.winner, null, WAIT);
  await shot(a, "02-armies-chosen");
  const winner = (await state(a)).initiative.winner;
  const [w, l] = winner === "A" ? [a, b] : [b, a];
  await w.click("#keep-initiative");
  await w.click('#initiative-panel [data-choose-first="true"]');
  await w.click("#confirm-initiative");
  await l.click('#initiative-panel [data-choose-zone="north"]');
  await l.click('#initiative-panel [data-choose-first="true"]');
  await l.click("#confirm-initiative");
  await a.waitForFunction(() => window.referee.view.state.phase === "deployment", null, WAIT);

  // Deployment: whoever may deploy clicks troopers into a grid of points of its zone.
  const used = { A: 0, B: 0 };
  let reserveShown = false;
  for (let guard = 0; guard < 60; guard += 1) {
    const v = Math.max(await version(a), await version(b));
    await reach(a, v);
    await reach(b, v);
    if ((await state(a)).phase !== "deployment") break;
    const mineA = await options(a);
    const page = mineA.deploy.length || mineA.end_deployment_step ? a : b;
    const opts = await options(page);
    // Every trooper offered is deployed: in steps 1 and 2 the reserve is not offered, so the
    // step can always be ended (placing all of them used to soft-lock the game).
    if (opts.end_deployment_step && opts.deploy.length === 0) {
      if ((await state(page)).deployment.step <= 2) {
        await page.waitForSelector("#reserve-note", WAIT);
        if (!reserveShown) await shot(page, "03a-deployment-reserve");
        reserveShown = true;
      }
      const ended = nextAnswer(page); // listening before the click: the answer cannot be missed
      await page.click("#end-deployment");
      assert.equal((await ended).ok, true);
      continue;
    }
    const s = await state(page);
    const role = await page.evaluate(() => window.referee.role);
    const zone = s.deployment_zones[s.initiative.zones[role]];
    await page.click(`[data-deploy="${opts.deploy[0]}"]`);
    const n = used[role]++;
    const x = zone.x0 + 2 + (n % 8) * 2.8, y = zone.y0 + 2 + Math.floor(n / 8) * 3;
    const answer = nextAnswer(page);
    await clickTable(page, x, y);
    // A Minelayer's click only picks its spot (the Mines come next): it deploys without them.
    if (opts.minelayer?.[opts.deploy[0]]) await page.click("#deploy-without-mines");
    await answer; // accepted, or rejected (e.g. a Peripheral away from its Controller): next point
  }
  assert.equal((await state(a)).phase, "orders");
  assert.ok(reserveShown, "the reserve was named in step 1 or 2");
  await shot(spectator, "03-spectator-after-deployment");
  const active = (await state(a)).active;
  const player = active === "A" ? a : b;
  const ready = Object.keys((await options(player)).activate);
  assert.ok(ready.length > 0, "the active player has troopers to activate");
  await player.click(`[data-select="${ready[0]}"]`);
  await player.click('[data-order="regular"], [data-order="irregular"], [data-order="lieutenant"]');
  await player.waitForSelector("#declare-idle", WAIT);
  await player.click("#declare-idle");
  await spectator.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "skill_declared"), null, WAIT);
  assert.equal(await spectator.evaluate(() => window.referee.role), "spectator");
  // This deployment leaves troopers of the reactive player in Line of Fire: its ARO panel
  // lists them, and "Done" passes the rest and closes the window (nothing closes it by itself).
  const reactive = player === a ? b : a;
  await reactive.waitForSelector("[data-aro]", WAIT);
  await reactive.click("#close-window");
  await spectator.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed" && x.event.reason === "closed_by_player"), null, WAIT);

  // The other player concedes; everyone verifies the dice of the game (initiative included).
  await concede(player === a ? b : a, player, spectator);
  for (const page of [a, b, spectator]) {
    assert.match(await verifyDice(page), /^All \d+ dice of this game match the commitment published before the first roll\./);
  }
  assert.match(await a.$eval("#verify-result", (x) => x.textContent), /your own contribution to the dice is the one in the record/);
  assert.match(await spectator.$eval("#verify-result", (x) => x.textContent), /This was a test room/);
  await closeAll(a, b, spectator);
});

test("a room with random dice: both contributions, the commitment for all, a concession, the dice verified by all", async () => {
  // Created through the lobby form, as a player would: no seed, no banner.
  const lobby = await (await scenario.browser.newContext()).newPage();
  await lobby.goto(scenario.base + "/");
  await lobby.click("#create-room");
  // The links, or the lobby's message saying why not (then the failure names it).
  await lobby.waitForFunction(() => !document.getElementById("links").hidden || document.getElementById("lobby-message").textContent, null, WAIT);
  assert.equal(await lobby.$eval("#lobby-message", (x) => x.textContent), "", "the lobby created the room");
  const linkA = await lobby.$eval("#link-a", (x) => x.getAttribute("href"));
  const linkB = new URL(await lobby.inputValue("#link-b")).hash;
  const linkSpectator = new URL(await lobby.inputValue("#link-spectator")).hash;
  await lobby.context().close();
  const a = await open(linkA);
  const b = await open(`/${linkB}`);
  const spectator = await open(`/${linkSpectator}`);
  const roomId = await a.evaluate(() => window.referee.options.room);
  const described = await (await fetch(`${scenario.base}/api/rooms/${roomId}`)).json();
  assert.equal(described.fixed_dice, false);
  await assertCommitmentShown([a, b, spectator], described.dice_commitment);
  for (const page of [a, b, spectator]) assert.equal(await page.$eval("#fixed-dice-banner", (x) => x.hidden), true);
  await a.screenshot({ path: join(artifacts, "15-commitment-under-the-status-bar.png"), clip: { x: 0, y: 0, width: 1400, height: 90 } });
  await shot(spectator, "16-commitment-spectator");

  // Each player's app sends 32 fresh random bytes with its army choice and keeps them.
  const sent = [];
  await Promise.all([a.click('[data-army="helion-vanguard"]'), b.click('[data-army="vesper-raiders"]')]); // N5, the form's default
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.initiative?.winner, null, WAIT);
  for (const [page, seat] of [[a, "A"], [b, "B"]]) {
    const kept = await page.evaluate((key) => sessionStorage.getItem(key), `referee:${roomId}:${seat}:entropy`);
    assert.match(kept, /^[0-9a-f]{64}$/);
    sent.push(kept);
  }
  assert.notEqual(sent[0], sent[1]);
  // The record is not published before the end.
  assert.equal((await fetch(`${scenario.base}/api/rooms/${roomId}/record`)).status, 409);

  await concede(b, a, spectator);
  const record = await (await fetch(`${scenario.base}/api/rooms/${roomId}/record`)).json();
  assert.deepEqual(record.dice.contributions, { A: sent[0], B: sent[1] });
  const dice = record.events.filter((x) => x.event.dice?.drawn?.length).reduce((n, x) => n + x.event.dice.drawn.length, 0);
  assert.ok(dice > 0, "the initiative roll-off rolled dice");
  for (const page of [a, b, spectator]) {
    await verifyDice(page);
    assert.match(await page.$eval("#verify-headline", (x) => x.textContent), new RegExp(`^All ${dice} dice of this game match the commitment published before the first roll\\.$`));
  }
  assert.match(await b.$eval("#verify-result", (x) => x.textContent), /your own contribution to the dice is the one in the record/);
  assert.equal(await a.$eval("#download-record", (x) => x.getAttribute("href")), `/api/rooms/${encodeURIComponent(roomId)}/record`);
  await shot(a, "17-dice-verified-player");
  await spectator.locator("#dice-check").screenshot({ path: join(artifacts, "18-dice-verified-spectator.png") });

  // A record with one die changed (served to this page only) is refused, the die named.
  const rolled = record.events.find((x) => x.event.dice?.drawn?.length);
  const changed = structuredClone(record);
  const entry = changed.events.find((x) => x.index === rolled.index);
  entry.event.dice.drawn[0] = entry.event.dice.drawn[0] === 20 ? 1 : entry.event.dice.drawn[0] + 1;
  await spectator.route("**/record", (route) => route.fulfill({ json: changed }));
  assert.match(await verifyDice(spectator), new RegExp(`^The dice do not check out\\. Die 0 \\(event ${rolled.index}, ${rolled.event.type}\\) does not match: the record says ${entry.event.dice.drawn[0]}, the committed dice give ${rolled.event.dice.drawn[0]}\\.$`));
  await spectator.locator("#dice-check").screenshot({ path: join(artifacts, "19-dice-refused-spectator.png") });
  await closeAll(a, b, spectator);
});

// A's Lancer (A-t5) faces B's Enforcer (B-t3) along x = 22.5; the others are out of the way.
const PLACEMENTS = {
  "A-t5": [22.5, 4.0, 90.0], "B-t3": [22.5, 28.0, 270.0], "B-t4": [1.5, 30.0, 90.0],
  "A-t1": [3.5, 1.5, 90.0], "B-t1": [3.5, 30.5, 90.0],
};

test("an order with a counter-shooting ARO, resolved face to face with die faces for all, then a reconnect", async () => {
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 120, seed: 1 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  await spectator.waitForFunction(() => document.getElementById("spectators").textContent === "1", null, WAIT);
  await a.waitForFunction(() => document.getElementById("spectators").textContent === "1", null, WAIT);

  // Only legal choices: A-t5 offers exactly the order types the server listed.
  await a.click('[data-select="A-t5"]');
  assert.deepEqual(await a.$$eval("[data-order]", (xs) => xs.map((x) => x.dataset.order)), (await options(a)).activate["A-t5"]);
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 22.5, 6);
  await a.waitForFunction(() => document.getElementById("route-length").textContent.startsWith('Route 2.00" of MOV 4"'), null, WAIT);
  await a.waitForSelector('[data-lof="B-t3"]', { state: "attached", ...WAIT }); // Line of Fire drawn to the troopers it sees
  await shot(a, "04-route-against-mov");
  await a.click('[data-skill="move"]');

  // B: the ARO panel with the countdown and only what B-t3 may do, shooting back preselected.
  await b.waitForSelector('[data-aro="B-t3"] [data-aro-choice]', WAIT);
  await a.waitForSelector("#aro-panel:not([hidden]) #countdown", WAIT);
  assert.equal(await b.$$eval("[data-aro]", (xs) => xs.length), 1, "only the eligible trooper");
  assert.match(await b.$eval('[data-aro="B-t3"] .aro-who', (x) => x.textContent), /^Enforcer 1 LoF$/);
  // Named as the table names it; the unit's full name and the id are in the tooltip.
  assert.equal(await b.$eval('[data-aro="B-t3"] .aro-who .trooper', (x) => x.title), "Syndicate Enforcer (player B, id B-t3)");
  const chosen = await b.$eval('[data-aro-choice="B-t3"]', (x) => ({ kind: x.selectedOptions[0].dataset.kind, value: JSON.parse(x.value) }));
  assert.deepEqual(chosen, { kind: "shoot", value: { type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t5", burst: 1 }] } });
  // Before declaring, the shot says its final Success Value with every MOD (the server's
  // preview): the same SV 9 the roll below is made at.
  assert.equal(await b.$eval('[data-aro-choice="B-t3"]', (x) => x.selectedOptions[0].textContent),
    "Shoot: Punch Carbine (AP) at Lancer (BS 12 \u22123 range 16-24\" = SV 9 at 21.0\")");
  assert.equal(await b.$eval('[data-aro-sv="B-t3"]', (x) => x.textContent), "BS 12 \u22123 range 16-24\" = SV 9 at 21.0\"");
  const offeredKinds = await b.$$eval('[data-aro-choice="B-t3"] option', (xs) => xs.map((x) => x.dataset.kind));
  assert.deepEqual(offeredKinds.filter((k) => k !== "shoot"), ["dodge", "reset", "pass"]);
  // The countdown is on every viewer's table, big.
  for (const page of [a, b, spectator]) {
    await page.waitForSelector("#aro-clock:not([hidden])", WAIT);
    assert.match(await page.$eval("#aro-clock", (x) => x.textContent), page === b ? /^Your ARO \d+\.\d s$/ : /^ARO: player B \d+\.\d s$/);
  }
  await shot(b, "05-aro-window");
  await shot(spectator, "05b-aro-window-spectator");
  assert.match(await b.$eval("#countdown", (x) => x.textContent), /^\d+\.\d s left$/);
  await b.click('[data-aro="B-t3"] [data-action="declare"]');
  // The only eligible trooper answered: the events frame that closes the window clears it.
  for (const page of [a, b, spectator]) await page.waitForSelector("#aro-panel", { state: "hidden", ...WAIT });

  // A's second skill: BS Attack with the full Burst 3 split on B-t3.
  await a.waitForSelector("#declare-bs:not([disabled])", WAIT);
  await a.selectOption("#weapon", "line_rifle");
  await a.fill('[data-burst="B-t3"]', "3");
  await a.dispatchEvent('[data-burst="B-t3"]', "change");
  await a.waitForFunction(() => document.getElementById("burst-total").textContent.trim() === "3/3", null, WAIT);
  // The active player's shot picker shows the same: SV 8 with its range MOD, before declaring.
  assert.equal(await a.$eval('[data-shot-sv="B-t3"]', (x) => x.textContent.trim()), "BS 11 \u22123 range 16-24\" = SV 8 at 21.0\"");
  await shot(a, "05c-shot-success-value");
  await a.click("#declare-bs");

  const results = async (page) => {
    await page.waitForSelector("#results .roll .die", WAIT);
    return page.$eval("#results .outcome", (x) => x.textContent);
  };
  const [ra, rb, rs] = [await results(a), await results(b), await results(spectator)];
  assert.equal(ra, rb);
  assert.equal(ra, rs);
  assert.match(ra, /Lancer shoots Enforcer 1 with Line Rifle: BS 11 −3 range = SV 8\. Rolls \d+ \d+ \d+\./);
  assert.match(ra, /Enforcer 1 shoots Lancer with Punch Carbine \(AP\): BS 12 −3 range = SV 9\./);
  assert.match(ra, /Face to Face against Enforcer 1's BS Attack/);
  // The dice are drawn as dice, one style per outcome, the same for all three.
  const diceOf = (page) => page.$$eval("#results .outcome .roll .die", (xs) => xs.map((x) => `${x.textContent}:${x.className}`));
  assert.deepEqual(await diceOf(a), await diceOf(spectator));
  assert.ok((await diceOf(a)).every((x) => /:die (success|critical|miss|cancelled( was-critical)?|saved|failed)$/.test(x)), (await diceOf(a)).join(" "));
  await shot(a, "06-face-to-face-results");
  await shot(spectator, "07-spectator-results");

  // Reconnect: B's socket drops and its reconnects fail (the URL points nowhere) while A plays;
  // the banner stays up. Then the server is reachable again and B resumes by itself.
  const goodUrl = await b.evaluate(() => window.referee.options.url);
  await b.evaluate(() => { Object.assign(window.referee.options, { url: "ws://127.0.0.1:1/ws", backoff: { initialMs: 100, maxMs: 300 } }); window.referee.dropForTest(); });
  await b.waitForSelector("#banner:not([hidden])", WAIT);
  await a.waitForFunction(() => window.referee.view.seats.B === "away", null, WAIT);
  await a.click("#end-turn");
  await a.click("#confirm-end-turn"); // A has Orders left
  await a.waitForFunction(() => window.referee.view.state.active === "B" && !window.referee.view.stale, null, WAIT);
  await shot(b, "08-connection-lost-banner");
  await b.evaluate((url) => { window.referee.options.url = url; }, goodUrl);
  await b.waitForSelector("#banner", { state: "hidden", ...WAIT });
  await reach(b, await version(a));
  assert.equal((await state(b)).active, "B", "B resumed with the events it missed");
  await b.waitForSelector("#end-turn", WAIT); // B is active now and may end its turn

  // A reloaded page gets back into its seat.
  await b.reload();
  await b.waitForFunction(() => window.referee?.view.state && window.referee.role === "B", null, WAIT);
  await reach(b, await version(a));
  await shot(b, "09-reloaded-seat");
  await closeAll(a, b, spectator);
});

test("an ARO window that times out: the undeclared ARO is lost and the order goes on", async () => {
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 1.5, seed: 1 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await a.click('[data-select="A-t5"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 22.5, 6);
  await a.waitForSelector('[data-skill="move"]:not([disabled])', WAIT);
  await a.click('[data-skill="move"]');
  // B does nothing: the server's clock closes the window at its deadline.
  await b.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed" && x.event.reason === "deadline"), null, WAIT);
  assert.match(await b.$eval("#log", (x) => x.textContent), /ARO window timed out: Enforcer 1 lost its ARO/);
  await b.waitForSelector("#aro-panel", { state: "hidden", ...WAIT });
  assert.equal(await b.evaluate(() => window.referee.view.window), null);
  // Not a vanishing panel: both players get a notice that stays.
  for (const page of [a, b]) {
    await page.waitForSelector("#aro-notice:not([hidden])", WAIT);
    assert.equal(await page.$eval("#aro-notice", (x) => x.textContent.replace("×", "").trim()), "ARO window timed out: Enforcer 1 lost its ARO.");
    assert.equal(await page.$eval("#aro-clock", (x) => x.hidden), true);
  }
  await shot(b, "10-aro-window-timed-out");
  await a.waitForSelector("#declare-bs", WAIT);
  await a.click("#declare-bs"); // line_rifle, full Burst on the first target
  await a.waitForSelector("#results .roll .die", WAIT);
  assert.equal(await b.$eval("#aro-notice", (x) => x.hidden), false, "the notice stays a few seconds after the next action");
  await closeAll(a, b);
});

test("a Comms Attack drawn on the table for the target's player, a Reset ARO, the result in words for all", async () => {
  // N5: the Hacker A-t14 reaches B-t3 through the Repeater A-p1 (tests/rules/scenarios/comms_attack.json).
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1, dice: [3, 12, 10, 9, 15],
    placements: { "A-t14": [10, 10, 90], "A-p1": [30, 30, 90], "B-t3": [30, 36, 90], "A-t1": [1, 1, 270], "B-t1": [1, 47, 90] } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  await a.click('[data-select="A-t14"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector('[data-hack="B-t3"][data-program="tracer_ping"]', WAIT);
  assert.deepEqual((await options(a)).skills.comms_attack, { tracer_ping: ["B-t3"] });
  await a.click('[data-hack="B-t3"][data-program="tracer_ping"]');

  // The reactive player sees the hack on the table (a line from the Hacker to its target),
  // why it may react (the target of a Comms Attack) and only its legal AROs.
  await b.waitForSelector('[data-attack-line="A-t14:B-t3"]', { state: "attached", ...WAIT });
  await spectator.waitForSelector('[data-attack-line="A-t14:B-t3"]', { state: "attached", ...WAIT });
  await b.waitForSelector('[data-aro="B-t3"] [data-aro-choice] option[data-kind="reset"]', { state: "attached", ...WAIT });
  assert.match(await b.$eval('[data-aro="B-t3"]', (x) => x.textContent), /target of a Comms Attack/);
  // Against a Comms Attack, Reset is the default: Enter declares it (and closes the window).
  assert.equal(await b.$eval('[data-aro-choice="B-t3"]', (x) => x.selectedOptions[0].dataset.kind), "reset");
  await shot(b, "11-comms-attack-aro");
  await b.keyboard.press("Enter");
  // B-t3 was B's only trooper to answer: B's app closes the window by itself, at both steps.
  const closedByB = (page, step) => page.waitForFunction((step) => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed"
    && x.event.step === step && x.event.reason === "closed_by_player"), step, WAIT);
  await closedByB(a, 1);
  await a.waitForSelector("#declare-idle", WAIT);
  await a.click("#declare-idle");
  await closedByB(a, 2);

  const results = async (page) => {
    await page.waitForSelector("#results .outcome", WAIT);
    return page.$eval("#results .outcome", (x) => x.textContent);
  };
  const [ra, rb, rs] = [await results(a), await results(b), await results(spectator)];
  assert.equal(ra, rb);
  assert.equal(ra, rs);
  assert.match(ra, /Signal Adept hacks Enforcer with Tracer Ping: WIP 14 = SV 14\. Rolls 3 12\. Face to Face/);
  assert.match(ra, /Face to Face against Enforcer's Reset\. Enforcer's best success, 10, cancels the 3 \(equal or lower\)\. 1 hit on Enforcer\./);
  assert.match(ra, /Enforcer resets: WIP 13 = SV 13\. Rolls 10\. Face to Face against Signal Adept's Comms Attack\. Signal Adept's best success, 12, cancels the 10 \(equal or lower\)\. Fails to Reset\./);
  assert.match(ra, /Enforcer is Targeted \(Tracer Ping\)/);
  assert.match(ra, /Enforcer goes Prone \(failed Guts Roll\)/);
  await shot(spectator, "12-comms-attack-results");
  await closeAll(a, b, spectator);
});

test("a BS Attack fired from a corner of the route: everyone sees the firing point and the target line", async () => {
  // N5: from the end of the route the low wall hides B-t3; from the corner (21.5, 5) it does not.
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 1,
    placements: { "A-t7": [22.5, 4, 90], "B-t3": [22.5, 28, 90], "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90] } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  await a.click('[data-select="A-t7"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector("#route-length", WAIT);
  await clickTable(a, 21.5, 5);
  await clickTable(a, 22.5, 6);
  await a.selectOption("#end-facing", "45"); // end the move facing north-east
  await a.waitForSelector('[data-skill="move"]:not([disabled])', WAIT);
  await a.click('[data-skill="move"]');
  await spectator.waitForSelector('[data-order-path="A-t7"]', { state: "attached", ...WAIT });
  await spectator.waitForFunction(() => window.referee.view.state.troopers.find((t) => t.id === "A-t7").facing === 45, null, WAIT);
  // Nobody of B may react: B's app closes the window at once, without a click.
  await spectator.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed"
    && x.event.step === 1 && x.event.reason === "closed_by_player" && !x.event.lost.length), null, WAIT);

  // No shot from where it stands; the corner is offered with the shots legal from there.
  await a.waitForSelector('[data-firing-point="21.5,5"]', WAIT);
  assert.deepEqual((await options(a)).skills.bs_attack, {});
  assert.equal(await a.$("#declare-bs"), null);
  await clickTable(a, 21.5, 5); // a click on the corner picks it
  await a.waitForSelector('[data-firing-point="21.5,5"].chosen', WAIT);
  await a.waitForSelector("#declare-bs:not([disabled])", WAIT);
  // B's connection drops (and cannot come back yet) so that the second window stays open
  // while everyone looks at the attack; B's app closes it once it is back.
  const goodUrl = await b.evaluate(() => window.referee.options.url);
  await b.evaluate(() => { Object.assign(window.referee.options, { url: "ws://127.0.0.1:1/ws", backoff: { initialMs: 100, maxMs: 300 } }); window.referee.dropForTest(); });
  await a.waitForFunction(() => window.referee.view.seats.B === "away", null, WAIT);
  await a.click("#declare-bs");
  await spectator.waitForFunction(() => window.referee.view.window?.step === 2, null, WAIT);
  // The second ARO window: the attack is on the table for everyone until the Order resolves.
  for (const page of [a, spectator]) {
    await page.waitForSelector('[data-firing-point="A-t7"]', { state: "attached", ...WAIT });
    await page.waitForSelector('[data-attack-line="A-t7:B-t3"]', { state: "attached", ...WAIT });
  }
  const declared = await spectator.evaluate(() => window.referee.view.state.order.skills[1]);
  assert.deepEqual(declared.firing_point, [21.5, 5]);
  await shot(spectator, "13-firing-point-on-the-table");
  await b.evaluate((url) => { window.referee.options.url = url; }, goodUrl);
  await spectator.waitForFunction(() => window.referee.view.log.some((x) => x.event?.type === "aro_window_closed"
    && x.event.step === 2 && x.event.reason === "closed_by_player"), null, WAIT);
  await spectator.waitForSelector("#results .outcome", WAIT);
  assert.match(await spectator.$eval("#results .outcome", (x) => x.textContent), /Lancer shoots Enforcer with Line Rifle/);
  await spectator.waitForSelector('[data-attack-line="A-t7:B-t3"]', { state: "detached", ...WAIT });
  await closeAll(a, b, spectator);
});

test("a Controller and its Peripheral on one Order: both routes drawn, both on the table, an ARO at the Peripheral", async () => {
  const room = await json("/test/scenario", { aro_window_s: 120, seed: 1, placements: {
    "A-t3": [3, 6, 90], "A-p1": [10, 6, 90], "B-t3": [14, 24, 270], "A-t1": [23, 1, 270], "B-t1": [23, 31, 90] } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  await a.click('[data-select="A-t3"]');
  await a.check('[data-peripheral="A-p1"]');
  await a.click('[data-order="regular"]');
  await a.waitForSelector('[data-route-for="A-p1"]', WAIT);
  await clickTable(a, 3, 8); // the Controller's route (drawn first)
  await a.click('[data-route-for="A-p1"]');
  await a.waitForSelector('[data-route-for="A-p1"].chosen', WAIT);
  await clickTable(a, 10, 9);
  // Each route is named as the table names its trooper (never by its id).
  await a.waitForFunction(() => /^[^:]+: Route 3.00"/.test(document.getElementById("route-length-A-p1")?.textContent ?? ""), null, WAIT);
  assert.doesNotMatch(await a.textContent("#route-length-A-p1"), /A-p1/);
  await a.click('[data-skill="move"]');

  await b.waitForSelector('[data-order-path="A-t3"]', { state: "attached", ...WAIT });
  await b.waitForSelector('[data-order-path="A-p1"]', { state: "attached", ...WAIT });
  await b.waitForSelector('[data-aro="B-t3"] [data-aro-choice] option[data-kind="shoot"]', { state: "attached", ...WAIT });
  const shots = await b.$$eval('[data-aro-choice="B-t3"] option[data-kind="shoot"]', (xs) => xs.map((x) => JSON.parse(x.value)));
  const offered = shots.filter((x) => x.weapon === "punch_carbine").map((x) => x.targets[0].trooper);
  assert.deepEqual([...offered].sort(), [...(await options(b)).aros["B-t3"].targets.bs_attack.punch_carbine].sort());
  assert.ok(offered.includes("A-p1"), "an ARO may target the Peripheral");
  await b.selectOption('[data-aro-choice="B-t3"]', JSON.stringify(shots.find((x) => x.weapon === "punch_carbine" && x.targets[0].trooper === "A-p1")));
  await b.click('[data-aro="B-t3"] [data-action="declare"]');
  await a.waitForSelector('[data-aro-line="B-t3:A-p1"]', { state: "attached", ...WAIT });
  await shot(a, "14-joint-activation-aro-at-peripheral");
  await a.waitForSelector("#declare-idle", WAIT);
  await a.click("#declare-idle"); // the Peripheral idles with its Controller
  await b.waitForSelector("#results .outcome", WAIT);
  assert.match(await b.$eval("#results .outcome", (x) => x.textContent), /Enforcer shoots Gnat Drone with Punch Carbine \(AP\): BS 12/);
  const declared = await b.evaluate(() => window.referee.view.log.filter((x) => x.event?.type === "skill_declared").map((x) => x.event.peripherals));
  assert.deepEqual(declared.map((p) => p.map((x) => x.skill.type)), [["move"], ["idle"]]);
  await closeAll(a, b);
});

test("Loss of Lieutenant: the player names its new Lieutenant in secret; the opponent and the spectator never learn who", async () => {
  // A's Lieutenant (A-t1) is not on the table: A starts its first turn in Loss of Lieutenant.
  const room = await json("/test/scenario", { aro_window_s: 120, seed: 1, placements: {
    "A-t5": [22.5, 4, 90], "A-t6": [10, 4, 90], "A-t2": [5, 4, 90], "B-t3": [22.5, 28, 270], "B-t1": [3.5, 30.5, 90] } });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const spectator = await open(room.spectator_link);
  await a.waitForSelector("#lieutenant-panel:not([hidden])", WAIT);
  assert.match(await a.$eval("#lieutenant-panel", (x) => x.textContent), /Choose your new Lieutenant \(secret from your opponent\)/);
  const offered = (await options(a)).appoint_lieutenant;
  assert.deepEqual(await a.$$eval("[data-lieutenant]", (xs) => xs.map((x) => x.dataset.lieutenant)), offered);
  assert.ok(offered.includes("A-t5"));
  assert.deepEqual((await options(b)).appoint_lieutenant, []);
  for (const page of [b, spectator]) assert.equal(await page.$eval("#lieutenant-panel", (x) => x.hidden), true);

  await a.click('[data-lieutenant="A-t5"]');
  await a.waitForSelector("#lieutenant-chosen", WAIT);
  assert.match(await a.$eval("#lieutenant-chosen", (x) => x.textContent), /^Your Lieutenant will be .*A-t5 \(secret from your opponent\)\.$/);
  await a.screenshot({ path: join(artifacts, "20-lieutenant-chosen.png"), clip: { x: 980, y: 60, width: 420, height: 260 } });
  // A reload keeps the choice on screen.
  await a.reload();
  await a.waitForSelector("#lieutenant-chosen", WAIT);

  // The End of A's Turn appoints it: A's own view says so; B's and the spectator's say nothing.
  await a.click("#end-turn");
  await a.click("#confirm-end-turn"); // A has Orders left
  await a.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.active === "B"
    && window.referee.view.trooper("A-t5")?.entry?.lieutenant === true, null, WAIT);
  await a.waitForSelector("#lieutenant-panel", { state: "hidden", ...WAIT });
  // Every view folds that End of Turn (who took office, or only that one did): no snapshot.
  for (const page of [a, b, spectator]) await assertFoldedWithoutSnapshot(page, /turn_ended/);
  for (const page of [b, spectator]) {
    await page.waitForFunction(() => !window.referee.view.stale && window.referee.view.state.active === "B", null, WAIT);
    assert.equal(await page.evaluate(() => window.referee.view.log.some((x) => x.event?.type === "lieutenant_appointed")), false);
    assert.equal(await page.evaluate(() => window.referee.view.trooper("A-t5")?.entry), undefined);
    assert.doesNotMatch(await page.$eval("#log", (x) => x.textContent), /Lieutenant will be/);
  }
  await closeAll(a, b, spectator);
});
