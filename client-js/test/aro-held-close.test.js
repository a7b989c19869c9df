// Uniform ARO windows (docs/fair-play.md): a room may hold the reactive player's close until
// the window has been open its minimum time. The panel then says the player is done instead
// of offering the rows again; the app still closes a window by itself at once when nothing
// may answer (the room, not the app, holds it).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** @type {typeof import("../app/aro-panel.js")} */
let aro;

before(async () => {
  const weapons = JSON.parse(readFileSync(join(here, "..", "..", "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  aro = await import("../app/aro-panel.js");
});

test("a close the room accepted while the window stands: the panel says done", () => {
  const hidden = { aros: { "B-t2": { dodge: true } } };
  assert.equal(aro.reactivePanelStage(true, hidden, true), "closing", "a held close, rows left");
  assert.equal(aro.reactivePanelStage(true, { aros: {} }, true), "closing", "a held close, nothing left");
});

test("before its close: rows to choose, or nothing (the app closes at once)", () => {
  assert.equal(aro.reactivePanelStage(true, { aros: { "B-t2": { dodge: true } } }, false), "choose");
  assert.equal(aro.reactivePanelStage(true, { aros: {} }, false), "nothing");
  assert.equal(aro.reactivePanelStage(true, {}, false), "nothing");
});

test("the other player, or options not here yet: waiting", () => {
  assert.equal(aro.reactivePanelStage(false, { aros: {} }, true), "waiting");
  assert.equal(aro.reactivePanelStage(true, null, false), "waiting");
});
