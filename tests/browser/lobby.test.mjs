// Browser tests of getting two strangers from the lobby to the first Order: the lobby's links
// and Copy buttons, the waiting states, both branches of the Initiative choice, a seat opened
// in another tab (4010) taken back, the End turn confirmation, the how-to page. Real headless
// Chromium against tests/browser/scenario_server.py; every wait is on a DOM or view condition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const newPage = (options = {}) => scenario.newPage(options);
async function open(link) {
  const page = await newPage();
  await page.goto(scenario.base + link);
  await page.waitForFunction(() => window.referee?.view.state, null, WAIT);
  return page;
}
const json = (path, body) => scenario.post(path, body);
const state = (page) => page.evaluate(() => window.referee.view.state);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `lobby-${name}.png`) });
/** An element's text as shown (innerText: blocks on their own lines), whitespace folded. */
const text = (page, selector) => page.$eval(selector, (x) => x.innerText.replace(/\s+/g, " ").trim());
/** Wait until the page holds a fresh view in which `predicate(state)` holds. */
const until = (page, predicate) => page.waitForFunction(`(() => { const v = window.referee.view; return v.state && !v.stale && (${predicate})(v.state); })()`, null, WAIT);

/** Both players pick an army; resolves with [winner page, loser page, winner side]. */
async function armiesChosen(a, b) {
  await Promise.all([a.click('[data-army="helion-c1-patrol"]'), b.click('[data-army="vesper-c1-cell"]')]);
  for (const page of [a, b]) await until(page, (s) => s.phase === "initiative" && s.initiative?.winner);
  const winner = (await state(a)).initiative.winner;
  return winner === "A" ? [a, b, "A"] : [b, a, "B"];
}

test("the lobby: three links with Copy buttons (clipboard, and the selection when it is refused)", async () => {
  const page = await newPage({ permissions: ["clipboard-read", "clipboard-write"] });
  await page.goto(scenario.base + "/");
  await page.waitForSelector("#room-list li", WAIT);
  assert.equal(await page.$eval("#how-to-lobby", (x) => x.getAttribute("href")), "how-to.html");
  assert.deepEqual(await page.$$eval("#ruleset option", (xs) => xs.map((x) => x.value)), ["n5", "codeone"]);
  assert.equal(await page.inputValue('input[name="aro_window_s"]'), "30");
  await shot(page, "01-form");
  await page.click("#create-room");
  await page.waitForSelector("#links:not([hidden])", WAIT);
  const links = {
    A: await page.inputValue("#link-a-text"), B: await page.inputValue("#link-b"), spectator: await page.inputValue("#link-spectator"),
  };
  assert.match(links.A, /^http:\/\/127\.0\.0\.1:\d+\/#room=[^&]+&token=.+$/);
  assert.match(links.B, /^http:\/\/127\.0\.0\.1:\d+\/#room=[^&]+&token=.+$/);
  assert.match(links.spectator, /^http:\/\/127\.0\.0\.1:\d+\/#room=[^&]+$/);
  assert.notEqual(links.A, links.B);
  assert.equal(new URL(links.A).hash, new URL(await page.$eval("#link-a", (x) => x.href)).hash, "Open your seat opens seat A");
  const words = await text(page, "#links");
  for (const phrase of ["Open your seat", "Send this link to your opponent", "Share with spectators"]) assert.ok(words.includes(phrase), phrase);
  for (const [id, link] of [["link-a-text", links.A], ["link-b", links.B], ["link-spectator", links.spectator]]) {
    await page.click(`#copy-${id}`);
    await page.waitForFunction((id) => document.getElementById(`copy-${id}`).textContent === "Copied", id, WAIT);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  }
  await shot(page, "02-links");

  // A browser that refuses the clipboard: the link is selected for a manual copy, and the page says so.
  const refused = await newPage();
  await refused.addInitScript(() => {
    Object.defineProperty(navigator, "clipboard", { value: { writeText: () => Promise.reject(new DOMException("refused", "NotAllowedError")) } });
  });
  await refused.goto(scenario.base + "/");
  await refused.click("#create-room");
  await refused.waitForSelector("#links:not([hidden])", WAIT);
  await refused.click("#copy-link-b");
  await refused.waitForFunction(() => document.getElementById("copy-note-link-b").textContent.length > 0, null, WAIT);
  assert.match(await text(refused, "#copy-note-link-b"), /press Ctrl\+C/);
  const selection = await refused.$eval("#link-b", (x) => [x.selectionStart, x.selectionEnd, x.value.length, document.activeElement === x]);
  assert.deepEqual(selection, [0, selection[2], selection[2], true], "the whole link is selected");
  await shot(refused, "03-copy-refused");
  await closeAll(page, refused);
});

/** The room a lobby page just created, as the server describes it. */
async function createdRoom(page) {
  await page.waitForSelector("#links:not([hidden])", WAIT);
  const room = new URLSearchParams(new URL(await page.inputValue("#link-spectator")).hash.slice(1)).get("room");
  return (await fetch(`${scenario.base}/api/rooms/${room}`)).json();
}

test("the table: a layout of the ruleset, or a table from a JSON file sent whole (the server's refusal said in words)", async () => {
  const page = await newPage();
  await page.goto(scenario.base + "/");
  const listed = await fetch(`${scenario.base}/api/tables?ruleset=codeone`);
  if (listed.status === 404) { // a server without table layouts: no choice offered
    await page.waitForSelector("#room-list li", WAIT);
    assert.equal(await page.$eval("#table-choice", (x) => x.hidden), true);
    await page.context().close();
    return;
  }
  const { tables } = await listed.json();
  await page.selectOption("#ruleset", "codeone");
  await page.waitForFunction((ids) => [...document.querySelectorAll("#table-select option")].map((x) => x.value).join() === ids,
    tables.map((t) => t.id).join(), WAIT);
  const fallback = tables.find((t) => t.default) ?? tables[0];
  assert.equal(await page.$eval("#table-select", (x) => x.value), fallback.id, "the server's default is chosen first");
  assert.match(await text(page, `#table-select option[value="${fallback.id}"]`), new RegExp(`\\(${fallback.pieces} terrain pieces?\\)`));
  const other = tables.find((t) => t.id !== fallback.id) ?? fallback;
  await page.selectOption("#table-select", other.id);
  await shot(page, "14-table-choice");
  await page.click("#create-room");
  assert.deepEqual((await createdRoom(page)).settings.table, { id: other.id, title: other.title, inline: false });

  // A table of one's own, from a file: sent whole; a broken one is refused with the server's words.
  const dir = mkdtempSync(join(tmpdir(), "lobby-table-"));
  const own = join(dir, "own.json");
  writeFileSync(own, JSON.stringify({ ...fallback.table, id: "our-kitchen-table", title: "Our kitchen table" }));
  await page.goto(scenario.base + "/");
  await page.selectOption("#ruleset", "codeone");
  await page.setInputFiles("#table-file", own);
  await page.waitForSelector("#clear-table-file:not([hidden])", WAIT);
  assert.match(await text(page, "#table-file-result"), /^From own\.json: Our kitchen table \(\d+ terrain pieces?\)\./);
  assert.equal(await page.$eval("#table-select", (x) => x.disabled), true, "the file replaces the layout");
  await page.click("#create-room");
  assert.deepEqual((await createdRoom(page)).settings.table, { id: "our-kitchen-table", title: "Our kitchen table", inline: true });
  const broken = join(dir, "broken.json");
  writeFileSync(broken, JSON.stringify({ ...fallback.table, format: "something-else" }));
  await page.goto(scenario.base + "/");
  await page.setInputFiles("#table-file", broken);
  await page.waitForSelector("#clear-table-file:not([hidden])", WAIT);
  await page.click("#create-room");
  await page.waitForFunction(() => document.getElementById("lobby-message").textContent.length > 0, null, WAIT);
  assert.match(await text(page, "#lobby-message"), /^The server refused the room: table: format: /);
  assert.equal(await page.$eval("#links", (x) => x.hidden), true);
  const notJson = join(dir, "notes.json");
  writeFileSync(notJson, "{ not json");
  await page.setInputFiles("#table-file", notJson);
  await page.waitForSelector("#table-file-result.warning-text", WAIT);
  assert.match(await text(page, "#table-file-result"), /^notes\.json is not a table file \(.*\); the layout is used\.$/);
  assert.equal(await page.$eval("#table-select", (x) => x.disabled), false, "an unreadable file leaves the layout chosen");
  assert.equal(await page.$eval("#clear-table-file", (x) => x.hidden), true);
  await page.context().close();
});

test("waiting states: the creator's seat waits for the opponent to join (with the link to send), then for their army", async () => {
  const lobby = await newPage();
  await lobby.goto(scenario.base + "/");
  await lobby.click("#create-room");
  await lobby.waitForSelector("#links:not([hidden])", WAIT);
  const linkB = await lobby.inputValue("#link-b");
  // "Open your seat" in the same tab: the seat still offers the opponent's link to copy.
  await lobby.click("#link-a");
  await lobby.waitForFunction(() => window.referee?.view.state && window.referee.role === "A", null, WAIT);
  const a = lobby;
  await a.waitForSelector("#waiting-join", WAIT);
  assert.match(await text(a, "#waiting-join"), /^Waiting for the opponent to join\./);
  assert.equal(await a.inputValue("#invite-B"), linkB);
  assert.equal(await text(a, "#seats"), "A (you) connected · B not joined yet");
  await a.click('[data-army="helion-vanguard"]'); // N5, the form's default
  await a.waitForFunction(() => window.referee.view.state.armies?.A, null, WAIT);
  await a.waitForFunction(() => /You chose Helion Vanguard/.test(document.getElementById("waiting-join")?.textContent ?? ""), null, WAIT);
  await shot(a, "04-waiting-to-join");

  const b = await open(new URL(linkB).hash.replace(/^/, "/"));
  await a.waitForSelector("#waiting-join", { state: "detached", ...WAIT });
  await a.waitForSelector("#army-waiting", WAIT);
  assert.equal(await text(a, "#army-waiting"),
    "You chose Helion Vanguard. Waiting for your opponent to choose an army. Your opponent is connected. Then the Lieutenants roll off for the Initiative (a Face to Face WIP roll).");
  assert.equal(await text(a, "#seats"), "A (you) connected · B connected");
  assert.equal(await text(b, "#seats"), "A connected · B (you) connected");
  assert.match(await text(b, "#army-waiting"), /^Your opponent has chosen Helion Vanguard\./);
  await shot(a, "05-waiting-for-army");
  // B's connection drops for good: A reads it in the status bar and in the waiting note.
  await b.context().close();
  await a.waitForFunction(() => window.referee.view.seats.B === "away", null, WAIT);
  assert.equal(await text(a, "#seats"), "A (you) connected · B away");
  assert.match(await text(a, "#opponent-presence"), /^Your opponent is away \(their connection dropped; they may come back\)\.$/);
  await closeAll(a);
});

test("the opponent joining and choosing its army never moves the armies under a player's pointer", async () => {
  const room = await json("/api/rooms", { ruleset: "n5" });
  const a = await open(room.seats.A.link);
  const button = '[data-army="helion-vanguard"]';
  await a.waitForSelector(button, WAIT);
  await a.waitForSelector("#waiting-join", WAIT);
  const where = () => a.$eval(button, (x) => { const r = x.getBoundingClientRect(); return [r.x, r.y]; });
  const before = await where();
  // Every change of the lists meanwhile is counted: they must not even flicker.
  await a.evaluate(() => {
    window.__listChanges = 0;
    new MutationObserver((changes) => { window.__listChanges += changes.length; })
      .observe(document.getElementById("army-list"), { childList: true, subtree: true });
  });
  await shot(a, "03b-picking-while-waiting");
  const b = await open(room.seats.B.link);
  await a.waitForSelector("#waiting-join", { state: "detached", ...WAIT });
  assert.deepEqual(await where(), before, "the opponent joined: the list stays put");
  await b.click('[data-army="vesper-raiders"]');
  await a.waitForFunction(() => /Your opponent has chosen Vesper Raiders/.test(document.getElementById("army-waiting")?.textContent ?? ""), null, WAIT);
  assert.deepEqual(await where(), before, "the opponent chose: the list stays put");
  assert.equal(await a.evaluate(() => window.__listChanges), 0, "the lists were never redrawn meanwhile");
  await a.click(button);
  await until(a, (s) => s.phase === "initiative");
  await closeAll(a, b);
});

test("Initiative, first branch: the winner keeps Initiative and plays second; the loser picks a zone and deploys first", async () => {
  const room = await json("/api/rooms", { ruleset: "codeone", seed: 21 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const [w, l, winner] = await armiesChosen(a, b);
  const loser = winner === "A" ? "B" : "A";
  // The loser sees what it waits for, with the roll.
  await l.waitForSelector("#initiative-waiting", WAIT);
  assert.match(await text(l, "#initiative-waiting"), /^Your opponent won the Initiative roll-off \(WIP \d+: rolled \d+ vs your \d+(, after \d+ re-rolls? \(a tie or both failed\))?\) and is choosing: keep Initiative .* You get the other choice\.$/);
  // Step 1: two choices, each saying what it means and what the opponent gets.
  await w.waitForSelector("#keep-initiative", WAIT);
  assert.match(await text(w, "#initiative-panel"), /You won the Initiative roll-off \(WIP \d+: you rolled \d+ vs their \d+/);
  assert.match(await text(w, "#initiative-panel"), /Keep Initiative You decide who plays the first Player Turn of every Game Round\. Your opponent then chooses the deployment zones and who deploys first\./);
  assert.match(await text(w, "#initiative-panel"), /Keep Deployment You choose your deployment zone and whether you deploy first or second\. Your opponent then chooses who plays first\./);
  await shot(w, "06-initiative-step-1");
  // Step 2: play first or second; nothing is sent before Confirm.
  await w.click("#keep-initiative");
  assert.equal(await w.$eval("#confirm-initiative", (x) => x.disabled), true);
  assert.equal(await w.$('#initiative-panel [data-choose-zone]'), null, "keeping Initiative, the winner chooses no zone");
  await w.click('#initiative-panel [data-choose-first="false"]');
  assert.match(await text(w, "#initiative-summary"), /^You choose: you play second\. Your opponent then chooses the deployment zones and who deploys first\.$/);
  await shot(w, "07-initiative-step-2");
  assert.equal((await state(w)).initiative.winner_kept, null, "not sent before Confirm");
  await w.click("#confirm-initiative");
  // Until the server's answer arrives the panel waits with the roll's line alone (the winner's
  // options are gone, the new state not here yet): wait for the answer shown, not the element.
  await w.waitForFunction(() => document.getElementById("initiative-waiting")?.textContent.startsWith("You kept"), null, WAIT);
  assert.equal(await text(w, "#initiative-waiting"), "You kept Initiative: you play second. Waiting for your opponent to choose the deployment zones and who deploys first.");
  // The loser: a zone and the deployment order.
  await l.waitForSelector('#initiative-panel [data-choose-zone="south"]', WAIT);
  assert.match(await text(l, "#initiative-panel"), /and kept Initiative: they play second\. Now you choose your deployment zone and whether you deploy first or second\./);
  await l.click('#initiative-panel [data-choose-zone="south"]');
  await l.click('#initiative-panel [data-choose-first="true"]');
  assert.match(await text(l, "#initiative-summary"), /^You choose: you deploy in South, you deploy first\./);
  await shot(l, "08-initiative-loser");
  await l.click("#confirm-initiative");
  for (const page of [a, b]) await until(page, (s) => s.phase === "deployment");
  const ini = (await state(a)).initiative;
  assert.equal(ini.winner_kept, "initiative");
  assert.equal(ini.first_player, loser, "the winner plays second");
  assert.equal(ini.deploys_first, loser);
  assert.deepEqual(ini.zones, { [loser]: "south", [winner]: "north" });
  // Deployment: the loser deploys (step 1); the winner sees what it waits for.
  await w.waitForSelector("#deployment-waiting", WAIT);
  assert.equal(await text(w, "#deployment-waiting"), "Waiting for your opponent to deploy (all their troopers but one). Then you deploy yours (all but one) in step 2.");
  assert.match(await text(w, "#deployment-panel"), /^Deployment, step 1 of 4 Your opponent: all troopers but one \(now\) You: all troopers but one Your opponent: the trooper kept in reserve You: the trooper kept in reserve Your zone: North .* You play second in every Game Round\./);
  await l.waitForSelector("[data-deploy]", WAIT);
  assert.match(await text(l, "#deploy-controls"), /^Your step: select a trooper, then click inside your zone \(South/);
  await shot(w, "09-deployment-waiting");
  await closeAll(a, b);
});

test("Initiative, second branch: the winner keeps Deployment, chooses North and deploys second; the loser chooses to play first", async () => {
  const room = await json("/api/rooms", { ruleset: "codeone", seed: 22 });
  const a = await open(room.seats.A.link);
  const b = await open(room.seats.B.link);
  const [w, l, winner] = await armiesChosen(a, b);
  const loser = winner === "A" ? "B" : "A";
  await w.click("#keep-deployment");
  // The table has data-zone areas too: the choice's buttons are the panel's.
  await w.click('#initiative-panel [data-choose-zone="north"]');
  assert.match(await text(w, "#initiative-summary"), /^Still to do: choose who deploys first\.$/);
  await w.click('#initiative-panel [data-choose-first="false"]');
  assert.equal(await text(w, "#initiative-summary"), "You choose: you deploy in North, you deploy second. Your opponent then chooses who plays first.");
  // Back to step 1 and forward again keeps nothing stale.
  await w.click("#initiative-back");
  await w.click("#keep-deployment");
  assert.equal(await w.$eval("#confirm-initiative", (x) => x.disabled), true);
  await w.click('#initiative-panel [data-choose-zone="north"]');
  await w.click('#initiative-panel [data-choose-first="false"]');
  await w.click("#confirm-initiative");
  await l.waitForSelector('#initiative-panel [data-choose-first="true"]', WAIT);
  assert.equal(await l.$('#initiative-panel [data-choose-zone]'), null, "the zones are the winner's choice");
  assert.match(await text(l, "#initiative-panel"), /and kept Deployment: they deploy in North \(you get South\), second\. Now you choose who plays first\./);
  await l.click('#initiative-panel [data-choose-first="true"]');
  assert.match(await text(l, "#initiative-summary"), /^You choose: you play first\./);
  await shot(l, "10-initiative-after-deployment");
  await l.click("#confirm-initiative");
  for (const page of [a, b]) await until(page, (s) => s.phase === "deployment");
  const ini = (await state(a)).initiative;
  assert.equal(ini.winner_kept, "deployment");
  assert.deepEqual(ini.zones, { [winner]: "north", [loser]: "south" });
  assert.equal(ini.deploys_first, loser, "the winner deploys second");
  assert.equal(ini.first_player, loser, "the loser chose to play first");
  await w.waitForSelector("#deployment-waiting", WAIT);
  await l.waitForSelector("#deploy-controls", WAIT);
  await closeAll(a, b);
});

const PLACEMENTS = { "A-t1": [5, 2, 90], "A-t5": [6, 4, 90], "B-t1": [5, 30.5, 270] };

test("a seat opened in another tab: the first tab gets the banner and takes the seat back; End turn asks first while Orders are left", async () => {
  // B is never connected and the windows are short: the deadline closes them.
  const room = await json("/test/scenario", { placements: PLACEMENTS, aro_window_s: 0.3, seed: 1 });
  const a = await open(room.seats.A.link);
  const other = await open(room.seats.A.link); // the same seat, another tab
  await a.waitForSelector("#seat-elsewhere:not([hidden])", WAIT);
  assert.match(await text(a, "#seat-elsewhere"), /^This seat was opened in another tab or window\. Take the seat back/);
  assert.equal(await a.evaluate(() => window.referee.status), "closed");
  await shot(a, "11-seat-opened-elsewhere");
  await a.click("#take-seat-back");
  await a.waitForFunction(() => window.referee.status === "open", null, WAIT);
  await other.waitForSelector("#seat-elsewhere:not([hidden])", WAIT);
  assert.equal(await a.$eval("#seat-elsewhere", (x) => x.hidden), true);
  await closeAll(other);

  // A has 3 Orders (2 Regular, 1 Lieutenant): End turn asks, No keeps playing.
  await a.waitForSelector("#end-turn", WAIT);
  await a.click("#end-turn");
  await a.waitForSelector("#end-turn-confirm", WAIT);
  assert.match(await text(a, "#end-turn-confirm"), /^End turn with 3 Orders unspent\?/);
  assert.equal(await text(a, "#confirm-end-turn"), "Yes, end turn");
  assert.equal(await text(a, "#cancel-end-turn"), "No, keep playing");
  await shot(a, "12-end-turn-confirm");
  await a.click("#cancel-end-turn");
  await a.waitForSelector("#end-turn", WAIT);
  assert.equal((await state(a)).active, "A");
  // Spend two Orders (two Idles each; the windows close at their deadline): one is left, said in the singular.
  for (const [trooper, order] of [["A-t1", "regular"], ["A-t5", "regular"]]) {
    assert.equal((await a.evaluate((body) => window.referee.send(body), { type: "activate", trooper, order })).ok, true);
    for (let skill = 0; skill < 2; skill += 1) {
      assert.equal((await a.evaluate(() => window.referee.send({ type: "declare_skill", skill: { type: "idle" } }))).ok, true);
      await a.waitForFunction(() => window.referee.view.window === null, null, WAIT);
    }
    await until(a, (s) => s.order === null);
  }
  await a.waitForFunction(() => window.referee.currentOptions()?.end_turn, null, WAIT);
  await a.click("#end-turn");
  await a.waitForSelector("#end-turn-confirm", WAIT);
  assert.match(await text(a, "#end-turn-confirm"), /^End turn with 1 Order unspent\?/);
  await a.click("#confirm-end-turn");
  await until(a, (s) => s.active === "B");
  await a.waitForSelector("#end-turn-confirm", { state: "detached", ...WAIT });
  // (With no Order left at all End turn ends the turn without asking: the game waits for it, private Order or not.)
  await closeAll(a);
});

test("the how-to page loads, is linked from the lobby and the game, and the favicon is served", async () => {
  const page = await newPage();
  await page.goto(scenario.base + "/how-to.html");
  assert.equal(await page.title(), "How to play here - Infinity referee");
  const headings = await page.$$eval("h2", (xs) => xs.map((x) => x.textContent));
  for (const topic of ["Creating a room", "The three links", "Choosing an army", "Initiative", "Deployment and the reserve", "Orders",
    "AROs and the ARO window", "Hidden Deployment", "Reading the table", "Dice you can check", "Connection, reloading, another tab", "Ending a turn, conceding"]) {
    assert.ok(headings.some((h) => h.includes(topic)), topic);
  }
  // Every contents link leads to a heading of the page.
  const broken = await page.$$eval("nav a", (xs) => xs.map((x) => x.getAttribute("href")).filter((h) => !document.querySelector(h)));
  assert.deepEqual(broken, []);
  await shot(page, "13-how-to");
  const icon = await fetch(`${scenario.base}/favicon.svg`);
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get("content-type"), /^image\/svg\+xml/);
  assert.match(await icon.text(), /^<svg /);
  await page.goto(scenario.base + "/");
  assert.equal(await page.$eval('link[rel="icon"]', (x) => x.getAttribute("href")), "favicon.svg");
  const room = await json("/api/rooms", { ruleset: "codeone" });
  const game = await open(room.spectator_link);
  assert.equal(await game.$eval("#how-to-game", (x) => x.getAttribute("href")), "how-to.html");
  assert.equal(await game.$eval("#how-to-game", (x) => x.target), "_blank", "the game stays open");
  await closeAll(page, game);
});

test("a room creation carries this browser's credential for the node's reserve, and a refusal by the limits is said with its wait", async () => {
  const lobby = await newPage();
  const sent = [];
  lobby.on("request", (r) => { if (r.method() === "POST" && new URL(r.url()).pathname === "/api/rooms") sent.push(JSON.parse(r.postData() ?? "{}")); });
  await lobby.goto(scenario.base + "/");
  await lobby.click("#create-room");
  await lobby.waitForSelector("#links:not([hidden])", WAIT);
  assert.equal(sent[0].credential, undefined, "a browser that holds no token sends none");
  const seatA = new URL(await lobby.inputValue("#link-a-text"));
  const room = new URLSearchParams(seatA.hash.slice(1)).get("room");
  const organizer = new URLSearchParams(new URL(await lobby.inputValue("#link-organizer")).hash.slice(1)).get("organizer");
  assert.deepEqual(await lobby.evaluate(() => JSON.parse(localStorage.getItem("referee:credentials")).map((c) => [c.room, c.token, c.played])),
    [[room, organizer, false]], "the room's organizer token, not known to be played yet");
  // Seat A plays (chooses its army): its token is kept as played.
  await lobby.click("#link-a");
  await lobby.waitForFunction(() => window.referee?.view.state && window.referee.role === "A", null, WAIT);
  await lobby.click('[data-army="helion-vanguard"]');
  await lobby.waitForFunction((r) => JSON.parse(localStorage.getItem("referee:credentials") ?? "[]").some((c) => c.room === r && c.played), room, WAIT);

  // Back in the lobby, the node's limits refuse the next room (the answer is the server's shape, made here).
  await lobby.goto(scenario.base + "/");
  await lobby.waitForSelector("#create-room", WAIT);
  await lobby.route("**/api/rooms", (route) => (route.request().method() === "POST"
    ? route.fulfill({ status: 503, headers: { "retry-after": "95" }, contentType: "application/json",
      body: JSON.stringify({ error: "lobby_busy", message: "this server is creating rooms as fast as it may; try again in 95 s", retry_after_s: 95 }) })
    : route.continue()));
  await lobby.click("#create-room");
  await lobby.waitForFunction(() => /try again/.test(document.getElementById("lobby-message").textContent), null, WAIT);
  assert.match(await text(lobby, "#lobby-message"),
    /^The server refused the room: The server is busy creating rooms\. This server is creating rooms as fast as it may; try again in 1 min 35 s\. \(That is at .+\.\)$/);
  assert.deepEqual(sent.at(-1).credential, { room, token: new URLSearchParams(seatA.hash.slice(1)).get("token") },
    "the seat's token of the room it played in, sent before the organizer token not known played");
  await shot(lobby, "15-room-refused-with-wait");
  await lobby.unroute("**/api/rooms");
  // The server takes a creation with a credential as any other while its limits allow it.
  await lobby.click("#create-room");
  await lobby.waitForFunction((r) => !document.getElementById("links").hidden && !document.getElementById("link-a-text").value.includes(`room=${r}&`), room, WAIT);
  assert.ok(sent.at(-1).credential);
  await lobby.context().close();
});
