// What every browser test file starts with: the scenario server (tests/browser/scenario_server.py,
// a real referee on an in-memory store, on a free port) and Debian's Chromium driven by
// playwright-core (downloading browser builds fails on these machines). Screenshots go to
// test-artifacts/browser, which git ignores. Also what several test files do alike: the
// scenario's before/after hooks (scenarioForFile), a click on the table in inches (clickTable),
// closing pages (closeAll), waiting for an element's text (shows), that a frame's events were folded
// into the view without a snapshot (assertFoldedWithoutSnapshot), the pages' state when a wait
// times out (withPagesState).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { before, after } from "node:test";

/** How long a test waits for the page or the server before it fails: a guard against a hang,
 * not a measurement. Generous, so that a loaded 2-core CI machine (the rules core runs from its
 * Python sources here) does not fail a test that would pass. */
export const WAIT = { timeout: 120000 };

export const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const artifacts = join(repo, "test-artifacts", "browser");
mkdirSync(artifacts, { recursive: true });
const { chromium } = createRequire(join(repo, "client-js", "package.json"))("playwright-core");

/**
 * Start a scenario server and a browser for one test file.
 * @param {{env?: Record<string, string>}} [options] `env`: more environment for the server
 *   (e.g. `REFEREE_ARMY_DATA`), on top of this process's.
 * @returns {Promise<any>} `base`: the server's URL; `browser`; `newPage`, `open`, `post`;
 *   `stop` closes the browser and ends the server.
 */
export async function startScenario(options = {}) {
  const server = spawn(join(repo, ".venv", "bin", "python"), ["-m", "tests.browser.scenario_server"],
    { cwd: repo, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...(options.env ?? {}) } });
  const lines = createInterface({ input: server.stdout });
  const base = await new Promise((resolve, reject) => {
    server.once("exit", (code) => reject(new Error(`scenario server exited with ${code}`)));
    lines.on("line", (line) => { if (line.startsWith("PORT ")) resolve(`http://127.0.0.1:${line.slice(5)}`); });
  });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"] });
  return {
    base: /** @type {string} */ (base),
    browser,
    /** A page in a browser context of its own (each player its own storage), page errors logged. */
    async newPage(options = {}) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
      const page = await context.newPage();
      page.on("pageerror", (e) => console.error("pageerror", e.message));
      await page.addInitScript(recordFrames);
      return page;
    },
    /** Open a link of the app in a new page and wait until its view holds the game's state. */
    async open(link, wait) {
      const page = await this.newPage();
      await page.goto(base + link);
      await page.waitForFunction(() => window.referee?.view.state, null, wait);
      return page;
    },
    /** `open`, then wait until the table has drawn its troopers' labels. */
    async openTable(link, wait) {
      const page = await this.open(link, wait);
      await page.waitForFunction(() => document.querySelector("#table [data-label-for]"), null, wait);
      return page;
    },
    /** POST a JSON body to the server; its JSON answer. */
    async post(path, body) {
      const response = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify(body) });
      return response.json();
    },
    async stop() {
      await browser.close();
      server.kill();
    },
  };
}

/**
 * The test file's scenario: started before its first test, stopped after its last (node:test
 * hooks). The object is filled in when the `before` hook has run, so use it inside tests.
 * @param {{env?: Record<string, string>}} [options] as `startScenario` takes them
 * @returns {any} what `startScenario` returns.
 */
export function scenarioForFile(options = {}) {
  const scenario = {};
  before(async () => {
    Object.assign(scenario, await startScenario(options));
  });
  after(async () => {
    await scenario.stop?.();
  });
  return scenario;
}

/** Where a table point (inches) is on the page: through the screen transform of the group the
 * table is drawn in, which holds its turn (North or South up) and the zoom. */
export async function tablePointOnPage(page, x, y) {
  return page.evaluate(([x, y]) => {
    const board = document.querySelector("#table g.board");
    const p = new DOMPoint(x, y).matrixTransform(board.getScreenCTM());
    return [p.x, p.y];
  }, [x, y]);
}

/** Click the table at a point in inches. */
export async function clickTable(page, x, y) {
  const [sx, sy] = await tablePointOnPage(page, x, y);
  await page.mouse.click(sx, sy);
}

/** Close the pages' browser contexts (each page has its own). */
export const closeAll = (...pages) => Promise.all(pages.map((p) => p.context().close()));

/** Wait until the element's text matches `pattern` (a RegExp). */
export const shows = (page, selector, pattern, wait = WAIT) => page.waitForFunction(([selector, source]) =>
  new RegExp(source).test(document.querySelector(selector)?.textContent ?? ""), [selector, pattern.source], wait);

/**
 * Runs in each page before the app (an init script): keeps the last frames the app's
 * connection received (`window.referee`'s "message" events), in short, for `withPagesState`.
 */
function recordFrames() {
  const frames = [];
  let connection;
  Object.defineProperty(window, "__frames", { value: frames });
  Object.defineProperty(window, "referee", {
    configurable: true,
    get: () => connection,
    set: (value) => {
      connection = value;
      value?.addEventListener?.("message", (/** @type {any} */ e) => {
        const m = e.detail ?? {};
        const events = Array.isArray(m.events) ? `${m.first}:${m.events.map((x) => x?.type).join(",")}` : "";
        frames.push([m.type, m.version ?? "", events, m.id ?? m.accepted ?? "", m.code ?? ""].filter((x) => x !== "").join(" "));
        if (frames.length > 30) frames.shift();
      });
    },
  });
}

/**
 * Whether the page's view folded the events of the frame whose recorded line matches `pattern`
 * (harness `recordFrames`): once the view is current, no snapshot follows that frame, as one
 * would if an event in it could not be folded and marked the view stale.
 * @param {any} page @param {RegExp} pattern
 */
export async function assertFoldedWithoutSnapshot(page, pattern) {
  await page.waitForFunction(() => !window.referee.view.stale, null, WAIT);
  const frames = await page.evaluate(() => window.__frames);
  const at = frames.findIndex((f) => pattern.test(f));
  assert.ok(at >= 0, `no frame matches ${pattern}:\n${frames.join("\n")}`);
  assert.deepEqual(frames.slice(at).filter((f) => f.startsWith("snapshot")), [], frames.join("\n"));
}

/**
 * `error` with where each page stood (its message line, connection, phase, version, whether
 * its view waits for a snapshot, its options' version, its last frames): a wait that timed
 * out says what each player saw.
 */
export async function withPagesState(error, pages) {
  const states = await Promise.all(pages.map((page) => page.evaluate(() => JSON.stringify({
    message: document.getElementById("message")?.textContent, status: window.referee?.status,
    role: window.referee?.role, phase: window.referee?.view.state?.phase,
    version: window.referee?.view.version, stale: window.referee?.view.stale,
    options: window.referee?.seatOptions?.version, armies: document.getElementById("army-list")?.innerText.slice(0, 160),
    frames: window.__frames })).catch((e) => `(page unreadable: ${e.message})`)));
  error.message += `\n${states.join("\n")}`;
  return error;
}
