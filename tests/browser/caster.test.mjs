// Casters in the browser app (issue 20, point 2), in real headless Chromium against
// tests/browser/scenario_server.py: the lobby hands out the organizer's link with its
// "Make a caster link" button; a caster link opens the table as a spectator's would, but
// with the other side's trooper in Hidden Deployment drawn (the caster's view holds it),
// and says how far behind the game it runs; the spectator's table never shows it; the
// organizer link opens the organizer's page, which lists the links made and withdraws one (its
// table and overlay are cut off at once). Screenshots: test-artifacts/browser/caster-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { WAIT, artifacts, closeAll, scenarioForFile } from "./harness.mjs";


const scenario = scenarioForFile();

const open = (link) => scenario.open(link, WAIT);
const json = (path, body) => scenario.post(path, body);
const shot = (page, name) => page.screenshot({ path: join(artifacts, `caster-${name}.png`) });

const GHOST = "B-t2"; // B's trooper in Hidden Deployment, from the game's start
const PLACEMENTS = {
  "A-t3": [24, 6, 90], "A-t1": [10, 4, 90],
  "B-t3": [6, 40, 270], "B-t4": [40, 40, 270], [GHOST]: [30, 20, 270, "hidden"],
};

test("the lobby: an organizer link and caster links made with it", async () => {
  const page = await scenario.newPage({ permissions: ["clipboard-read", "clipboard-write"] });
  await page.goto(scenario.base + "/");
  await page.fill("#spectator-delay", "90");
  await page.click("#create-room");
  await page.waitForSelector("#links:not([hidden])", WAIT);
  const organizer = await page.inputValue("#link-organizer");
  assert.match(organizer, /^http:\/\/127\.0\.0\.1:\d+\/#room=[^&]+&organizer=.+$/);
  await page.click("#links .make-caster");
  await page.waitForSelector("#link-caster-1", WAIT);
  const caster = await page.inputValue("#link-caster-1");
  assert.match(caster, /^http:\/\/127\.0\.0\.1:\d+\/#room=[^&]+&token=c\..+$/);
  assert.match(await page.inputValue("#link-caster-overlay-1"), /\/overlay#room=[^&]+&token=c\./);
  assert.match(await page.$eval("#links [data-caster='1']", (x) => x.textContent), /90 s behind the game/);
  await shot(page, "01-lobby");

  const viewer = await open("/" + new URL(caster).hash);
  await viewer.waitForFunction(() => /Caster/.test(document.getElementById("role").textContent), null, WAIT);
  assert.match(await viewer.$eval("#role", (x) => x.textContent), /90 s behind the game/);

  // The organizer's own link opens the organizer's page, which makes caster links too.
  const organizerPage = await scenario.newPage();
  await organizerPage.goto(scenario.base + "/" + new URL(organizer).hash);
  await organizerPage.waitForSelector("#organizer:not([hidden])", WAIT);
  await organizerPage.click("#organizer .make-caster");
  await organizerPage.waitForSelector("#organizer #link-caster-1", WAIT);
  await closeAll(page, viewer, organizerPage);
});

test("the organizer withdraws a leaked caster link: its table and its overlay are cut off, the other link goes on", async () => {
  const room = await json("/api/rooms", { ruleset: "n5" });
  const organizerLink = `/#room=${room.room}&organizer=${room.organizer.token}`;
  const page = await scenario.newPage();
  await page.goto(scenario.base + organizerLink);
  await page.waitForSelector("#organizer:not([hidden])", WAIT);
  await page.click("#organizer .make-caster");
  await page.waitForSelector("#organizer #link-caster-1", WAIT);
  await page.click("#organizer .make-caster");
  await page.waitForSelector("#organizer #link-caster-2", WAIT);
  const leaked = await page.inputValue("#organizer #link-caster-1");
  const kept = await page.inputValue("#organizer #link-caster-2");
  assert.match(await page.$eval("#organizer [data-caster='1']", (x) => x.textContent), /60 s behind the game, made at /);

  const table = await open("/" + new URL(leaked).hash);
  await table.waitForFunction(() => /Caster/.test(document.getElementById("role").textContent), null, WAIT);
  const overlay = await scenario.newPage({ viewport: { width: 1920, height: 1080 } }); // a stream's size
  await overlay.goto(scenario.base + "/overlay" + new URL(leaked).hash);
  await overlay.waitForFunction(() => window.referee?.view?.state ?? document.getElementById("phase")?.textContent, null, WAIT);
  const other = await open("/" + new URL(kept).hash);
  await shot(page, "04-organizer-links");

  await page.click("#organizer [data-caster='1'] .withdraw-caster");
  await page.waitForSelector("#organizer [data-caster='1'].caster-withdrawn", WAIT);
  assert.match(await page.$eval("#organizer .caster-done", (x) => x.textContent), /withdrawn: whoever watches with it is disconnected/);
  assert.equal(await page.$("#organizer #link-caster-1"), null, "a withdrawn link is no longer offered");
  assert.equal(await page.inputValue("#organizer #link-caster-2"), kept);
  await shot(page, "05-organizer-withdrawn");

  await table.waitForSelector("#banner:not([hidden])", WAIT);
  assert.equal(await table.$eval("#banner", (x) => x.textContent),
    "This caster link was withdrawn by the room's organizer: ask the organizer for a new one.");
  await shot(table, "06-table-withdrawn");
  await overlay.waitForFunction(() => /withdrawn/.test(document.getElementById("status").textContent), null, WAIT);
  assert.equal(await overlay.$eval("#status", (x) => x.textContent), "Overlay: this caster link was withdrawn by the room's organizer");
  await shot(overlay, "07-overlay-withdrawn");
  assert.equal(await other.$eval("#banner", (x) => x.hidden), true, "the other caster still watches");

  // Opened again, the withdrawn link is refused at once; the list is the server's, after a reload too.
  const again = await scenario.newPage();
  await again.goto(scenario.base + "/" + new URL(leaked).hash);
  await again.waitForSelector("#banner:not([hidden])", WAIT);
  assert.match(await again.$eval("#banner", (x) => x.textContent), /withdrawn by the room's organizer/);
  await page.reload();
  await page.waitForSelector("#organizer [data-caster='1'].caster-withdrawn", WAIT);
  assert.equal(await page.inputValue("#organizer #link-caster-2"), kept);

  // A link pasted into the field: refused when it is none, withdrawn when it is one.
  await page.fill("#organizer .withdraw-pasted", "https://example.org/#room=x");
  await page.click("#organizer .withdraw-pasted-button");
  assert.match(await page.$eval("#organizer .caster-message", (x) => x.textContent), /not a caster link/);
  await page.fill("#organizer .withdraw-pasted", kept);
  await page.click("#organizer .withdraw-pasted-button");
  await page.waitForSelector("#organizer [data-caster='2'].caster-withdrawn", WAIT);
  await other.waitForSelector("#banner:not([hidden])", WAIT);
  await shot(page, "08-organizer-pasted");
  await closeAll(page, table, overlay, other, again);
});

test("a caster link shows the hidden trooper a spectator never sees", async () => {
  const room = await json("/test/scenario", { ruleset: "n5", aro_window_s: 120, seed: 3, placements: PLACEMENTS });
  const made = await json(`/api/rooms/${room.room}/casters`, { organizer: room.organizer.token });
  const caster = await open(made.caster.link);
  const spectator = await open(room.spectator_link);
  await caster.waitForSelector(`[data-base="${GHOST}"]`, WAIT);
  assert.match(await caster.$eval("#role", (x) => x.textContent), /Caster .*60 s behind the game/);
  const ghost = await caster.evaluate((id) => window.referee.view.state.troopers.find((t) => t.id === id), GHOST);
  assert.equal(ghost.hidden, true);
  assert.equal(await spectator.$(`[data-base="${GHOST}"]`), null, "the spectator's table has no hidden trooper");
  assert.equal(await spectator.evaluate((id) => window.referee.view.state.troopers.some((t) => t.id === id), GHOST), false);
  await shot(caster, "02-table");
  await shot(spectator, "03-spectator");
  await closeAll(caster, spectator);
});

test("a seat whose game is over, in a delayed room: Verify the dice says the record waits for the spectators", async () => {
  const room = await json("/api/rooms", { ruleset: "n5", spectator_delay_s: 600 });
  const a = await open(room.seats.A.link);
  await a.click("#concede");
  await a.click("#confirm-concede");
  await a.waitForFunction(() => window.referee.view.state?.phase === "game_over", null, WAIT);
  await a.click("#verify-dice");
  await a.waitForSelector("#verify-result.bad", WAIT);
  assert.equal(await a.$eval("#verify-result", (x) => x.textContent),
    "The record is published once the spectators, 600 s behind the game, have seen its end: try again in a moment.");
  await a.context().close();
});
