// Browser test of a tournament's pages (issue 21): the lobby's creation form and list, a
// player registering on the public page, the organizer's dashboard (players, pairings with a
// swap, the round's tables with their links, a result closed and one corrected), the lobby's
// room list naming each table with its tournament, round and table (linked to its page), a player's
// page (its pairing, its seat link into the app, its results), the standings and their CSV,
// and a second round played to the end. Real headless Chromium against
// tests/browser/scenario_server.py; games end by concession in the app; every wait is on a
// DOM or view condition (the pages read the API every few seconds by themselves).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { WAIT, artifacts, repo, scenarioForFile, withPagesState } from "./harness.mjs";
import { coverageLines } from "../../client-js/app/tournament/model.js";

// Army codes are read with the operator's army data: the project's invented dataset.
process.env.REFEREE_ARMY_DATA ??= join(repo, "testkit", "army_data");

const scenario = scenarioForFile();

const shot = (page, name) => page.screenshot({ path: join(artifacts, `tournament-${name}.png`), fullPage: true });
const text = (page, selector) => page.$eval(selector, (x) => x.innerText.replace(/\s+/g, " ").trim());
/** Wait until the element's shown text matches; a time-out says the text it had (and the page's message). */
async function untilText(page, selector, pattern) {
  try {
    await page.waitForFunction(([s, p]) => {
      const node = document.querySelector(s);
      return node && new RegExp(p).test(node.innerText.replace(/\s+/g, " "));
    }, [selector, pattern.source], WAIT);
  } catch (error) {
    const shown = await page.$eval(selector, (x) => x.innerText).catch(() => "(no such element)");
    const message = await page.$eval("#o-message", (x) => x.innerText).catch(() => "");
    throw new Error(`${selector} never matched ${pattern}: it says ${JSON.stringify(shown)}${message ? `; the page says ${JSON.stringify(message)}` : ""} (${error.message})`);
  }
}
const fragment = (link) => new URLSearchParams(new URL(link, scenario.base).hash.slice(1));
let actions = 0;
const actionId = () => `browser-test-action-${++actions}-${Date.now()}`;

/** Open a seat link in the app and concede its game; resolves when the game is over. */
async function concede(seatLink) {
  const page = await scenario.open(seatLink, WAIT);
  await page.click("#concede");
  await page.click("#confirm-concede");
  await page.waitForFunction(() => window.referee.view.state?.phase === "game_over", null, WAIT);
  await page.context().close();
}

test("a tournament: created in the lobby, registered, paired with a swap, played, closed and corrected, its standings", async () => {
  // The lobby: the creation form, then the organizer's and the public links.
  const lobby = await scenario.newPage({ permissions: ["clipboard-read", "clipboard-write"] });
  await lobby.goto(scenario.base + "/");
  await lobby.waitForSelector("#tournaments", WAIT);
  await lobby.click("#organize summary");
  await lobby.fill("#tournament-name", "Browser Cup");
  await lobby.fill("#tournament-rounds", "2");
  await lobby.fill("#tournament-clock-min", "45");
  assert.equal(await lobby.inputValue("#tournament-max-players"), "256", "the server's most places, by default");
  await lobby.fill("#tournament-max-players", "12");
  // The point limit follows the ruleset's game size while the organizer leaves it alone.
  assert.equal(await lobby.inputValue("#tournament-point-limit"), "300");
  await lobby.selectOption("#tournament-ruleset", "codeone");
  assert.equal(await lobby.inputValue("#tournament-point-limit"), "30");
  await lobby.selectOption("#tournament-ruleset", "n5");
  assert.equal(await lobby.inputValue("#tournament-point-limit"), "300");
  // The ruleset's layouts and missions are read anew at each change: the form is whole (and
  // stays put under the pointer) once N5's are shown.
  await lobby.waitForSelector('#tournament-missions option[value="n5-relay-station"]', { state: "attached", ...WAIT });
  await lobby.waitForSelector('#tournament-layouts input[value="n5-ashfall-refinery"]', WAIT);
  await shot(lobby, "01-create-form");
  // By the keyboard (focus, Enter): the lobby's sections above the form fill in as their reads
  // come back, and a click aimed just before one grows lands on whatever moved under it.
  await lobby.focus("#create-tournament");
  await lobby.keyboard.press("Enter");
  await lobby.waitForSelector("#tournament-created:not([hidden])", WAIT).catch(async (error) => {
    await shot(lobby, "01-create-failed");
    const said = await lobby.$eval("#tournament-message", (x) => x.textContent).catch(() => "");
    const invalid = await lobby.$$eval("#tournament-form :invalid", (xs) => xs.map((x) => `${x.id}: ${x.validationMessage}`));
    throw new Error(`${error.message}; the form says ${JSON.stringify(said)}; invalid fields: ${JSON.stringify(invalid)}`);
  });
  const organizerLink = await lobby.inputValue("#tournament-organizer-link");
  const publicLink = await lobby.inputValue("#tournament-public-link");
  assert.match(organizerLink, /^http:\/\/127\.0\.0\.1:\d+\/#tournament=[^&]+&organizer=.+$/);
  const id = fragment(organizerLink).get("tournament");
  const organizer = fragment(organizerLink).get("organizer");
  // The lobby's list shows the new tournament at once (no Refresh click).
  await lobby.waitForSelector(`#tournament-list li[data-tournament="${id}"]`, { ...WAIT, state: "attached" });
  assert.equal(fragment(publicLink).get("tournament"), id);
  assert.equal(fragment(publicLink).get("organizer"), null, "the public link holds no token");
  await shot(lobby, "02-created");
  const view = await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json();
  assert.deepEqual([view.name, view.settings.rounds, view.settings.clock_s, view.settings.max_players, view.status], ["Browser Cup", 2, 2700, 12, "registration"]);

  // A player registers on the public page (the contract's /#tournament= link leads there).
  const alice = await scenario.newPage();
  await alice.goto(publicLink);
  await alice.waitForSelector("#register:not([hidden])", WAIT);
  assert.match(alice.url(), /\/tournament\.html#tournament=/);
  await alice.waitForSelector('#register-army option[value="helion-vanguard"]', { ...WAIT, state: "attached" });
  await alice.fill("#register-name", "Alice");
  await alice.selectOption("#register-army", "helion-vanguard");
  await alice.click("#register-submit");
  await alice.waitForSelector("#registered:not([hidden])", WAIT);
  const alicePage = await alice.inputValue("#player-link");
  assert.equal(fragment(alicePage).get("tournament"), id);
  assert.ok(fragment(alicePage).get("player"));
  await untilText(alice, "#players", /Alice, /);
  // Three more through the API; their player tokens kept to play their games.
  const tokens = { [fragment(alicePage).get("player")]: "Alice" };
  for (const [name, army] of [["Bruno", "vesper-raiders"], ["Chiara", "helion-vanguard"], ["Dmitri", "vesper-raiders"]]) {
    const answer = await scenario.post(`/api/tournaments/${id}/players`, { action_id: actionId(), name, army });
    assert.ok(answer.player, JSON.stringify(answer));
    tokens[answer.token] = name;
  }
  await untilText(alice, "#players", /Dmitri/);
  await shot(alice, "03-registered");

  // The lobby lists it, with a link to its page.
  await lobby.click("#refresh-tournaments");
  await lobby.waitForSelector(`#tournament-list li[data-tournament="${id}"] a`, WAIT);
  // The click's read replaces the list drawn at creation (0 players): wait for it.
  await untilText(lobby, `#tournament-list li[data-tournament="${id}"]`, /^Browser Cup N5, 4 players, Registration open$/);
  await lobby.click(`#tournament-list li[data-tournament="${id}"] a`);
  await untilText(lobby, "#t-status", /^Registration open$/);
  assert.equal(await text(lobby, "#t-name"), "Browser Cup");

  // The organizer's dashboard: four players, pairings proposed, a swap, the round started.
  const org = await scenario.newPage();
  await org.goto(organizerLink);
  await org.waitForSelector("#o-player-table tr[data-player]", WAIT);
  assert.equal(await org.$$eval("#o-player-table tr[data-player]", (xs) => xs.length), 4);
  assert.equal(await text(org, "#t-role"), "Organizer's dashboard");
  assert.equal(await org.inputValue("#o-public-link"), publicLink, "the dashboard offers the public link to send");
  await org.click("#pair-round");
  await org.waitForSelector("#proposal:not([hidden]) #proposal-tables tr[data-table]", WAIT);
  const proposal = (await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).proposal;
  assert.equal(proposal.tables.length, 2);
  const [x, y] = [proposal.tables[0].a, proposal.tables[1].a];
  await org.selectOption("#swap-a", x);
  await org.selectOption("#swap-b", y);
  await org.fill("#swap-reason", "club mates");
  await org.click("#swap");
  await untilText(org, "#proposal", /Swapped: .+ \(club mates\)/);
  await shot(org, "04-proposal-swapped");
  await org.click("#start-round");
  await org.waitForFunction(() => document.querySelectorAll("#o-tables .t-live").length === 2, null, WAIT);
  const started = await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json();
  assert.equal(started.status, "playing");
  assert.deepEqual(started.rounds[0].swaps, [{ players: [x, y], reason: "club mates" }]);
  for (const t of started.rounds[0].tables) {
    const row = `#o-tables .t-live[data-table="${t.table}"]`;
    assert.equal(await org.$eval(`${row} a[data-link=spectator]`, (a) => a.getAttribute("href")), `/#room=${t.room}`);
    assert.match(await org.$eval(`${row} a[data-link=organizer]`, (a) => a.getAttribute("href")), new RegExp(`^/#room=${t.room}&organizer=.+`));
    assert.match(await org.$eval(`${row} a[data-link=caster]`, (a) => a.getAttribute("href")), new RegExp(`^/#room=${t.room}&token=.+`));
    assert.match(await org.$eval(`${row} a[data-link=overlay]`, (a) => a.href), new RegExp(`/overlay#room=${t.room}&token=.+`));
    assert.match(await text(org, `${row} [data-field=where]`), /^army selection$/);
    assert.equal(await text(org, `${row} [data-field=clocks]`), "A 45:00, B 45:00");
  }
  await shot(org, "05-dashboard-round-1");

  // A table's caster link is its room's own, listed on the room's organizer page; withdrawn
  // there, it is replaced on the dashboard at its next read by a new one, listed too.
  {
    const row = `#o-tables .t-live[data-table="1"]`;
    const room = started.rounds[0].tables.find((t) => t.table === 1).room;
    const roomOrganizer = fragment(await org.$eval(`${row} a[data-link=organizer]`, (a) => a.getAttribute("href"))).get("organizer");
    const casters = async (/** @type {string} */ path) => (await fetch(`${scenario.base}/api/rooms/${room}/casters${path}`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ organizer: roomOrganizer }) })).json();
    const shown = await org.$eval(`${row} a[data-link=caster]`, (a) => a.getAttribute("href"));
    const listed = (await casters("/list")).casters;
    assert.deepEqual(listed.map((c) => c.caster?.link), [shown], "the dashboard's link is the room's one listed link");
    assert.equal((await casters(`/${listed[0].nonce}/withdraw`)).already_withdrawn, false);
    await org.waitForFunction(([sel, old]) => document.querySelector(`${sel} a[data-link=caster]`)?.getAttribute("href") !== old, [row, shown], WAIT);
    const renewed = await org.$eval(`${row} a[data-link=caster]`, (a) => a.getAttribute("href"));
    assert.match(renewed, new RegExp(`^/#room=${room}&token=.+`));
    assert.deepEqual((await casters("/list")).casters.map((c) => c.caster?.link ?? null), [null, renewed]);
  }

  // The lobby's list of public rooms names each table with its tournament, round and table,
  // linked to the tournament's public page.
  await lobby.goto(scenario.base + "/");
  await lobby.waitForSelector("#room-list li[data-room]", WAIT);
  for (const t of started.rounds[0].tables) {
    const item = `#room-list li[data-room="${t.room}"]`;
    await untilText(lobby, item, new RegExp(`^${t.room} Browser Cup — round 1, table ${t.table}, n5, army_selection`));
    assert.equal(await lobby.$eval(`${item} a.room-tournament`, (a) => a.getAttribute("href")), `/#tournament=${id}`);
  }
  await lobby.$eval("#room-list", (x) => x.scrollIntoView());
  await lobby.screenshot({ path: join(artifacts, "tournament-05b-lobby-room-list.png") });
  await lobby.click(`#room-list li[data-room="${started.rounds[0].tables[0].room}"] a.room-tournament`);
  await lobby.waitForFunction((tid) => location.pathname.endsWith("tournament.html") && location.hash === `#tournament=${tid}`, id, WAIT);
  await untilText(lobby, "#t-name", /Browser Cup/);

  // Alice's page: her pairing and her seat link into the app.
  const aliceId = started.players.find((p) => p.name === "Alice").player;
  const aliceTable = started.rounds[0].tables.find((t) => t.a === aliceId || t.b === aliceId);
  const aliceSeat = aliceTable.a === aliceId ? "A" : "B";
  const names = Object.fromEntries(started.players.map((p) => [p.player, p.name]));
  const opponent = names[aliceSeat === "A" ? aliceTable.b : aliceTable.a];
  await alice.goto(alicePage);
  await alice.waitForSelector("#me:not([hidden]) #seat-link", WAIT);
  assert.equal(await text(alice, "#me-pairing"), `Round 1, table ${aliceTable.table}: you play ${opponent} as Player ${aliceSeat}.`);
  assert.equal(await text(alice, "#me-army"), "Choose the army you registered when the table asks: Helion Vanguard.");
  const seatLink = await alice.$eval("#seat-link", (a) => a.getAttribute("href"));
  assert.match(seatLink, new RegExp(`^/#room=${aliceTable.room}&token=.+`));
  await shot(alice, "06-player-round-1");

  // Alice concedes in the app: her table's result comes from the game.
  await concede(seatLink);
  await untilText(alice, "#me-result", new RegExp(`Result: ${opponent} beat Alice .*by concession`));
  await untilText(org, `#o-tables .t-live[data-table="${aliceTable.table}"] .t-live-result`, /by concession/);
  // The other table is closed by the organizer with a result.
  const other = started.rounds[0].tables.find((t) => t !== aliceTable);
  await org.click(`[data-close="1:${other.table}"]`);
  await org.waitForSelector("#result-editor:not([hidden])", WAIT);
  await org.selectOption("#edit-winner", other.b);
  await org.fill("#edit-vp-a", "120");
  await org.fill("#edit-vp-b", "180");
  await org.click("#edit-submit");
  assert.equal(await text(org, "#edit-problem"), "Say why (the reason is kept with the result).");
  await org.fill("#edit-reason", "time called at the round's end");
  await org.click("#edit-submit");
  await org.waitForSelector("#result-editor[hidden]", { ...WAIT, state: "attached" });
  await untilText(org, `#o-tables .t-live[data-table="${other.table}"] .t-live-result`,
    new RegExp(`${names[other.b]} beat ${names[other.a]} 180-120 VP \\(4-0 TP\\), closed by the organizer: time called at the round's end`));
  // Then corrects Alice's table: a tie, with its reason; the game's result stays beside it.
  await org.click(`[data-correct="1:${aliceTable.table}"]`);
  await org.selectOption("#edit-winner", "");
  await org.fill("#edit-vp-a", "150");
  await org.fill("#edit-vp-b", "150");
  await org.fill("#edit-reason", "conceded by a misclick, agreed a draw");
  await org.click("#edit-submit");
  await untilText(org, `#rounds tr[data-table="${aliceTable.table}"]`, /tie 150-150 VP \(2-2 TP\), corrected by the organizer: conceded by a misclick, agreed a draw The game's result: .* by concession/);
  await untilText(org, "#o-round-state", /Round 2 of 2/);
  await shot(org, "07-dashboard-results");

  // The standings: the closed table's winner first (4 TP), the tie 2 each, the loser 0.
  const standings = (await (await fetch(`${scenario.base}/api/tournaments/${id}/standings`)).json()).standings;
  assert.equal(standings[0].player, other.b);
  assert.deepEqual(standings.map((s) => s.tp), [4, 2, 2, 0]);
  await untilText(alice, "#standings", new RegExp(`1 ${names[other.b]} .+ 4 0 180 0 1 1-0-0 0`));
  // (The text above may match a page read before the correction: wait for the API's order.)
  await alice.waitForFunction((order) => [...document.querySelectorAll("#standings tr[data-player]")].map((r) => r.dataset.player).join() === order,
    standings.map((s) => s.player).join(), WAIT).catch(() => {});
  assert.deepEqual(await alice.$$eval("#standings tr[data-player]", (rows) => rows.map((r) => r.dataset.player)), standings.map((s) => s.player));
  assert.match(await text(alice, "#me-standing"), /^You are (2nd|3rd) of 4: 2 TP, 0 OP, 150 VP \(0 won, 1 tied, 0 lost\)\.$/);
  const csvHref = await alice.$eval("#export-csv", (a) => a.getAttribute("href"));
  const csv = await (await fetch(scenario.base + csvHref)).text();
  assert.equal(csv.split(/\r?\n/)[0], "rank,player,name,army,tp,op,vp,sos,played,wins,draws,losses,byes,dropped");
  assert.equal(csv.trim().split(/\r?\n/).length, 5);
  assert.match(csv.split(/\r?\n/)[1], new RegExp(`^1,${other.b},${names[other.b]},`));
  assert.equal(await alice.$eval("#export-json", (a) => a.getAttribute("href")), `/api/tournaments/${id}/standings`);
  await shot(alice, "08-player-after-round-1");

  // Round 2, started at once; Alice concedes again, the other table's seat A concedes with
  // the seat link its own player page gives; the tournament is finished.
  await org.click("#start-round");
  await org.waitForFunction(() => window.tournamentPage?.data.view.round === 2 && document.querySelectorAll("#o-tables .t-live").length === 2, null, WAIT);
  const round2 = (await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).rounds[1];
  const met = new Set(started.rounds[0].tables.map((t) => [t.a, t.b].sort().join()));
  for (const t of round2.tables) assert.ok(!met.has([t.a, t.b].sort().join()), "no pairing repeats round 1's");
  await untilText(alice, "#me-pairing", /^Round 2, table \d: you play .+ as Player [AB]\.$/);
  await untilText(org, "#t-status", /^Round 2 of 2 being played$/);
  await concede(await alice.$eval("#seat-link", (a) => a.getAttribute("href")));

  // The other table's seat A concedes with the seat link its own player page gives.
  const other2 = round2.tables.find((t) => t.a !== aliceId && t.b !== aliceId);
  const page2 = await scenario.newPage();
  await page2.goto(`${scenario.base}/tournament.html#tournament=${id}&player=${Object.entries(tokens).find(([, name]) => name === names[other2.a])[0]}`);
  await page2.waitForSelector("#seat-link", WAIT);
  assert.equal(await text(page2, "#me-pairing"), `Round 2, table ${other2.table}: you play ${names[other2.b]} as Player A.`);
  await shot(org, "09-dashboard-round-2");
  await concede(await page2.$eval("#seat-link", (a) => a.getAttribute("href")));
  await untilText(page2, "#me-result", new RegExp(`^Result: ${names[other2.b]} beat ${names[other2.a]} .* by concession$`));
  await untilText(org, "#t-status", /^Finished$/);
  assert.equal(await org.$eval("#start-round", (b) => b.hidden), true, "no round after the last");
  await shot(org, "10-dashboard-finished");

  // The public standings page: the final order, both rounds' results, the exports.
  const final = (await (await fetch(`${scenario.base}/api/tournaments/${id}/standings`)).json());
  assert.equal(final.status, "finished");
  const pub = await scenario.newPage();
  await pub.goto(`${scenario.base}/#tournament=${id}`);
  await pub.waitForSelector("#standings tr[data-player]", WAIT);
  assert.equal(await pub.$eval("#register", (x) => x.hidden), true, "registration is closed");
  assert.deepEqual(await pub.$$eval("#standings tr[data-player]", (rows) => rows.map((r) => r.dataset.player)), final.standings.map((s) => s.player));
  assert.deepEqual(await pub.$$eval("#standings tr[data-player] td[data-col=tp]", (xs) => xs.map((x) => Number(x.textContent))), final.standings.map((s) => s.tp));
  assert.equal(await pub.$$eval("#rounds .t-round", (xs) => xs.length), 2);
  assert.equal(await pub.$$eval("#rounds a[data-link=record]", (xs) => xs.length), 3, "every finished table links its record");
  assert.equal(await pub.$$eval(`#rounds tr[data-round="1"][data-table="${other.table}"] a[data-link=record]`, (xs) => xs.length), 0,
    "the table closed unfinished has no record (409 game_not_over)");
  assert.equal(await pub.$$eval("a[data-link=caster], a[data-link=organizer]", (xs) => xs.length), 0, "no caster or organizer link in public");
  await shot(pub, "11-public-standings");
  for (const page of [org, alice, page2, pub, lobby]) await page.context().close();
});

test("registration: its places shown, closed and reopened by the organizer; a registration refused as closed, then as full, said to the player", async () => {
  const created = await scenario.post("/api/tournaments", { action_id: actionId(), name: "Small Cup", rounds: 1, ruleset: "n5", max_players: 2 });
  const id = created.tournament;
  const org = await scenario.newPage();
  await org.goto(scenario.base + created.organizer.link);
  await untilText(org, "#o-registration-state", /^Registration open: 0 of 2 places taken\.$/);
  assert.equal(await org.isVisible("#open-registration"), false);

  // A player opens the public page and fills the form...
  const zed = await scenario.newPage();
  await zed.goto(`${scenario.base}/#tournament=${id}`);
  await untilText(zed, "#register-state", /^Registration open: 0 of 2 places taken\.$/);
  await zed.waitForSelector('#register-army option[value="helion-vanguard"]', { ...WAIT, state: "attached" });
  await zed.fill("#register-name", "Zed");
  await zed.selectOption("#register-army", "helion-vanguard");

  // ...while the organizer closes registration.
  await org.click("#close-registration");
  await untilText(org, "#o-registration-state", /^Registration closed by the organizer: 0 of 2 places taken\.$/);
  await org.waitForSelector("#open-registration:not([hidden])", WAIT);
  assert.equal(await org.isVisible("#close-registration"), false);
  assert.equal((await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).registration_closed, true);
  await shot(org, "20-registration-closed");
  // The form the player filled before the close is sent (the page may have hidden it since: it
  // polls), and refused in words.
  await zed.$eval("#register-form", (form) => form.requestSubmit());
  await untilText(zed, "#register-message", /^Not registered: Registration is closed\. The organizer closed registration: ask the organizer to add you\.$/);
  await untilText(zed, "#register-state", /^Registration closed by the organizer: 0 of 2 places taken\.$/);
  assert.equal(await text(zed, "#t-status"), "Registration closed");
  await zed.waitForSelector("#register-form", { ...WAIT, state: "hidden" });
  await shot(zed, "21-registration-refused-closed");

  // Reopened: the player's page offers the form again, and the registration goes through.
  await org.click("#open-registration");
  await untilText(org, "#o-registration-state", /^Registration open: 0 of 2 places taken\.$/);
  await zed.waitForSelector("#register-form:not([hidden])", WAIT);
  await zed.click("#register-submit");
  await zed.waitForSelector("#registered:not([hidden])", WAIT);
  await untilText(org, "#o-registration-state", /^Registration open: 1 of 2 places taken\.$/);

  // A second player fills the form; the last place is taken first; the refusal says it is full.
  const yan = await scenario.newPage();
  await yan.goto(`${scenario.base}/#tournament=${id}`);
  await untilText(yan, "#register-state", /^Registration open: 1 of 2 places taken\.$/);
  await yan.waitForSelector('#register-army option[value="vesper-raiders"]', { ...WAIT, state: "attached" });
  await yan.fill("#register-name", "Yan");
  await yan.selectOption("#register-army", "vesper-raiders");
  assert.ok((await scenario.post(`/api/tournaments/${id}/players`, { action_id: actionId(), name: "Xia", army: "vesper-raiders" })).player);
  await yan.$eval("#register-form", (form) => form.requestSubmit());
  await untilText(yan, "#register-message", /^Not registered: The tournament is full: every place is taken\. This tournament takes at most 2 players \(a player dropped before playing frees a place\)\.$/);
  await untilText(yan, "#register-state", /^The tournament is full: 2 of 2 places taken\.$/);
  assert.equal(await text(yan, "#t-status"), "Registration full");
  await shot(yan, "22-registration-refused-full");
  await untilText(org, "#o-registration-state", /^The tournament is full: 2 of 2 places taken\.$/);
  // The organizer drops the player who has played no game: the place is free again.
  const xia = (await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).players.find((p) => p.name === "Xia").player;
  await org.click(`[data-drop="${xia}"]`);
  await untilText(org, "#o-registration-state", /^Registration open: 1 of 2 places taken\.$/);
  await untilText(yan, "#register-state", /^Registration open: 1 of 2 places taken\.$/);
  await shot(org, "23-place-freed");
  for (const page of [org, zed, yan]) await page.context().close();
});

test("the organizer's players: added on the dashboard (its link shown once), seeded, dropped and reinstated; an odd count gives a bye", async () => {
  const created = await scenario.post("/api/tournaments", { action_id: actionId(), name: "Odd Open", rounds: 3, ruleset: "n5" });
  const id = created.tournament;
  const tokens = {}; // player id -> its player token
  for (const [name, army] of [["Ana", "helion-vanguard"], ["Ben", "vesper-raiders"], ["Cid", "helion-vanguard"]]) {
    const answer = await scenario.post(`/api/tournaments/${id}/players`, { action_id: actionId(), name, army });
    tokens[answer.player] = answer.token;
  }
  const org = await scenario.newPage();
  await org.goto(`${scenario.base}/tournament.html`); // no tournament: the creation form
  await org.waitForSelector("#create:not([hidden]) #tournament-form", WAIT);
  assert.equal(await org.$eval("#tournament", (x) => x.hidden), true);
  await org.goto(scenario.base + created.organizer.link);
  await org.waitForSelector("#o-player-table tr[data-player]", WAIT);
  assert.equal(await org.$eval("#players-section", (x) => x.hidden), true, "the dashboard's own table replaces the players list");

  // Two players added by the organizer: each one's link is listed for the organizer to send.
  await org.waitForSelector('#add-army option[value="vesper-raiders"]', { ...WAIT, state: "attached" });
  for (const [name, army] of [["Dee", "vesper-raiders"], ["Eve", "helion-vanguard"]]) {
    await org.fill("#add-name", name);
    await org.selectOption("#add-army", army);
    await org.click("#add-player");
    await untilText(org, "#added-players", new RegExp(`${name}: `));
  }
  await untilText(org, "#o-player-table", /p5 Eve Helion Vanguard/);
  for (const [n, player] of [[1, "p4"], [2, "p5"]]) {
    const link = await org.inputValue(`#added-link-${n}`);
    assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/#tournament=${id}&player=.+`));
    tokens[player] = fragment(link).get("player");
  }
  const names = { p1: "Ana", p2: "Ben", p3: "Cid", p4: "Dee", p5: "Eve" };

  // Seeds: Eve first; Ben dropped, then reinstated.
  await org.selectOption("#seed-player", "p5");
  await org.fill("#seed-value", "1");
  await org.click("#set-seed");
  await untilText(org, '#o-player-table tr[data-player="p5"]', /^p5 Eve Helion Vanguard 1 Drop$/);
  await org.click('[data-drop="p2"]');
  await org.waitForSelector('[data-reinstate="p2"]', WAIT);
  assert.equal(await org.$eval('#o-player-table tr[data-player="p2"]', (x) => x.className), "dropped");
  await untilText(org, '#standings tr[data-player="p2"]', /Ben \(dropped\)/);
  await shot(org, "12-players-dropped");
  await org.click('[data-reinstate="p2"]');
  await org.waitForSelector('[data-drop="p2"]', WAIT);

  // Five players: the proposal has a bye, the swap may move it; the round starts.
  await org.click("#pair-round");
  await org.waitForSelector("#o-round #proposal:not([hidden])", WAIT);
  const proposal = (await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).proposal;
  assert.ok(proposal.bye, "an odd count: a bye");
  assert.equal(proposal.tables[0].a, "p5", "the first seed sits A at table 1");
  await untilText(org, "#proposal", new RegExp(`Bye: ${names[proposal.bye]}`));
  const swapWith = proposal.tables[1].b;
  await org.selectOption("#swap-a", proposal.bye);
  await org.selectOption("#swap-b", swapWith);
  await org.click("#swap");
  await org.waitForFunction((p) => window.tournamentPage?.data.view.proposal?.bye === p, swapWith, WAIT);
  await shot(org, "13-bye-swapped");
  await org.click("#start-round");
  await org.waitForFunction(() => document.querySelectorAll("#o-tables .t-live").length === 2, null, WAIT);
  assert.equal(await org.$$eval("[data-drop], [data-reinstate], #add-player-form:not([hidden]), #seed-form:not([hidden])", (xs) => xs.length), 0,
    "no drop, add or seed while a round is played");
  await untilText(org, '#rounds .t-round[data-round="1"] .t-bye', new RegExp(`^Bye: ${names[swapWith]} \\(4 TP\\)$`));

  // The player with the bye is told so; a wrong token is said in words.
  const byePage = await scenario.newPage();
  await byePage.goto(`${scenario.base}/tournament.html#tournament=${id}&player=${tokens[swapWith]}`);
  await untilText(byePage, "#me-pairing", /^Round 1: you have the bye \(4 TP, no game to play\)\.$/);
  assert.equal(await byePage.$$eval("#seat-link", (xs) => xs.length), 0, "no seat link with the bye");
  assert.equal(await text(byePage, '#me-games tr[data-round="1"]'), "1 Bye (4 TP)");
  await shot(byePage, "14-player-bye");
  await byePage.goto(`${scenario.base}/tournament.html#tournament=${id}&player=not-a-token`);
  await untilText(byePage, "#t-error", /^This link's token is not one of this tournament's: check the link\.$/);
  await byePage.goto(`${scenario.base}/tournament.html#tournament=no-such-tournament`);
  await untilText(byePage, "#t-error", /^There is no such tournament\.$/);
  for (const page of [org, byePage]) await page.context().close();
});

// A game that ends while a chess clock runs: the clocks stop just before game_ended, which
// stays the game's last event (server/rules/engine.py), so its result reaches the tournament.
test("the dashboard follows a table's game and its running chess clock; a game ended while its clock runs gives its result",
  async () => {
    const created = await scenario.post("/api/tournaments", { action_id: actionId(), name: "Clock Cup", rounds: 1, clock_s: 2700 });
    const id = created.tournament;
    const tokens = {};
    const armies = {};
    for (const [name, army] of [["Ana", "helion-vanguard"], ["Ben", "vesper-raiders"]]) {
      const answer = await scenario.post(`/api/tournaments/${id}/players`, { action_id: actionId(), name, army });
      tokens[answer.player] = answer.token;
      armies[answer.player] = army;
    }
    const org = await scenario.newPage();
    await org.goto(scenario.base + created.organizer.link);
    await org.waitForSelector("#start-round:not([hidden])", WAIT);
    await org.click("#start-round");
    await org.waitForSelector("#o-tables .t-live", WAIT);
    const table = (await (await fetch(`${scenario.base}/api/tournaments/${id}`)).json()).rounds[0].tables[0];
    const seat = async (player) => (await scenario.post(`/api/tournaments/${id}/me`, { token: tokens[player] })).current.seat_link;
    const [a, b] = [await scenario.open(await seat(table.a), WAIT), await scenario.open(await seat(table.b), WAIT)];
    // Each seat's picker offers only its player's registered army (the table enforces it).
    for (const [page, player] of [[a, table.a], [b, table.b]]) {
      await page.waitForSelector(`#army-list [data-army="${armies[player]}"]`, WAIT);
      assert.deepEqual(await page.$$eval("#army-list [data-army]", (els) => els.map((e) => e.dataset.army)), [armies[player]]);
    }
    await shot(a, "15a-registered-army-picker");
    await Promise.all([a.click(`[data-army="${armies[table.a]}"]`), b.click(`[data-army="${armies[table.b]}"]`)]);
    await a.waitForFunction(() => window.referee.view.state?.phase !== "army_selection", null, WAIT)
      .catch(async (error) => { throw await withPagesState(error, [a, b]); });
    const live = "#o-tables .t-live";
    await untilText(org, `${live} [data-field=where]`, /^initiative\b/);
    await untilText(org, `${live} [data-field=clocks]`, /\(running\)/);
    const shown = await text(org, `${live} [data-field=clocks]`);
    await org.waitForFunction(([s, before]) => document.querySelector(s).innerText !== before, [`${live} [data-field=clocks]`, shown], WAIT);
    assert.match(await text(org, `${live} [data-field=clocks]`), /^A 4[45]:\d\d( \(running\))?, B 4[45]:\d\d( \(running\))?$/);
    await shot(org, "15-dashboard-clock-running");
    await a.click("#concede");
    await a.click("#confirm-concede");
    await a.waitForFunction(() => window.referee.view.state?.phase === "game_over", null, WAIT);
    await untilText(org, `${live} .t-live-result`, /by concession/);
    await untilText(org, "#t-status", /^Finished$/);
    for (const page of [org, a, b]) await page.context().close();
  });

/** A legal army code of the invented faction 901 (testkit/army_data), written by the project's own encoder (testkit/army_codes.py). */
function syntheticCode() {
  const program = "from testkit.army_codes import legal_army_code; print(legal_army_code(seed=3))";
  return execFileSync(join(repo, ".venv", "bin", "python"), ["-c", program], { cwd: repo, encoding: "utf8" }).trim();
}

test("players register with an army code and a list file; the organizer sees each list's check and coverage, the public its name only", async () => {
  const created = await scenario.post("/api/tournaments", { action_id: actionId(), name: "Own Lists Cup", rounds: 1, ruleset: "n5", aro_window_s: 30 });
  const id = created.tournament;
  const publicLink = `${scenario.base}/#tournament=${id}`;
  const night = JSON.parse(readFileSync(join(repo, "server", "rules", "data", "armies", "vesper-raiders.json"), "utf8"));
  Object.assign(night, { id: "night-shift", name: "Night Shift" });
  for (const unit of night.units) unit.name = `Secret ${unit.name}`;

  // Nia pastes an army code.
  const nia = await scenario.newPage();
  await nia.goto(publicLink);
  await nia.waitForSelector("#register:not([hidden])", WAIT);
  await nia.fill("#register-name", "Nia");
  await nia.check("#register-source-code");
  assert.equal(await nia.isVisible("#register-army"), false, "the shipped lists' choice gives way to the code");
  await nia.fill("#register-code", syntheticCode());
  await shot(nia, "20-register-code");
  await nia.click("#register-submit");
  await nia.waitForSelector("#registered:not([hidden])", WAIT);

  // Oli loads a list file; a file that is not JSON and a list with an unknown weapon are refused first.
  const oli = await scenario.newPage();
  await oli.goto(publicLink);
  await oli.waitForSelector("#register:not([hidden])", WAIT);
  await oli.fill("#register-name", "Oli");
  await oli.check("#register-source-list");
  await oli.setInputFiles("#register-file", { name: "broken.json", mimeType: "application/json", buffer: Buffer.from("{ not json") });
  await oli.click("#register-submit");
  await untilText(oli, "#register-message", /^Not registered: broken\.json: not a JSON file/);
  const spoon = structuredClone(night);
  spoon.units[0].weapons = ["laser_spoon"];
  await oli.setInputFiles("#register-file", { name: "spoon.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(spoon)) });
  await oli.click("#register-submit");
  await untilText(oli, "#register-message", /^Not registered: .*unknown weapon 'laser_spoon'/);
  await shot(oli, "21-register-file-refused");
  await oli.setInputFiles("#register-file", { name: "night-shift.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(night)) });
  await oli.click("#register-submit");
  await oli.waitForSelector("#registered:not([hidden])", WAIT);

  // The public page names each list and its faction, never its troopers.
  await untilText(oli, "#players", /Oli, Night Shift/);
  await untilText(oli, "#players", /Nia, Generated list 3/);
  assert.doesNotMatch(await oli.content(), /Secret/);

  // The organizer's table: each registration checked, its points and what is not refereed.
  const org = await scenario.newPage();
  await org.goto(`${scenario.base}/#tournament=${id}&organizer=${created.organizer.token}`);
  await org.waitForFunction(() => document.querySelectorAll("#o-registration-table tr[data-registration]").length === 2, null, WAIT);
  const dashboard = await scenario.post(`/api/tournaments/${id}/dashboard`, { organizer: created.organizer.token });
  const byName = Object.fromEntries(dashboard.registrations.map((r) => [r.name, r]));
  assert.equal(byName.Nia.army_source, "code");
  assert.equal(byName.Nia.valid, true, JSON.stringify(byName.Nia));
  assert.equal(byName.Oli.valid, true, JSON.stringify(byName.Oli));
  const cells = async (player) => org.$$eval(`#o-registration-table tr[data-registration="${player}"] td`, (tds) => tds.map((td) => td.innerText.trim()));
  const coverage = async (player) => org.$eval(`#o-registration-table tr[data-registration="${player}"] [data-field=coverage]`, (td) => ({
    summary: td.querySelector("[data-field=coverage-summary]").innerText, lines: [...td.querySelectorAll("li")].map((li) => li.innerText) }));
  assert.deepEqual((await cells(byName.Nia.player)).slice(0, 5), ["Nia", "Generated list 3 (Lantern Accord)", "army code", "valid",
    `${byName.Nia.list.cost} of ${byName.Nia.list.points} pts, ${byName.Nia.list.troopers} troopers`]);
  assert.ok(byName.Nia.coverage.troopers > 0, "the invented data has items the referee does not play");
  assert.deepEqual(await coverage(byName.Nia.player), coverageLines(byName.Nia.coverage));
  assert.ok((await coverage(byName.Nia.player)).lines.some((line) => line.endsWith("Relay Antenna — played without it")));
  assert.deepEqual(await cells(byName.Oli.player), ["Oli", `Night Shift (${night.faction})`, "list file", "valid",
    `${byName.Oli.list.cost} of ${night.points} pts, ${night.entries.length} troopers`, "all refereed"]);
  assert.deepEqual(await coverage(byName.Oli.player), { summary: "all refereed", lines: [] });
  // Coverage is the roster's not-refereed items, trooper by trooper.
  for (const r of [byName.Nia, byName.Oli]) {
    const carrying = r.list.roster.filter((t) => t.not_refereed.length);
    assert.deepEqual(r.coverage.items, carrying.map((t) => ({ entry: t.entry, unit: t.unit, not_refereed: t.not_refereed })));
  }
  await org.$eval("#o-registrations", (x) => x.scrollIntoView());
  await org.screenshot({ path: join(artifacts, "tournament-22-organizer-registrations.png") });
  await shot(org, "22b-organizer-dashboard");
  for (const page of [nia, oli, org]) await page.context().close();
});
