// The view's folds against the server's own views, over whole games: two bots play a mission
// through the rules core (tests/support/view_trace.py, run here with the repository's Python),
// and for each viewer (seat A, seat B, a spectator, a caster) the events it receives are folded
// one command at a time and compared with the server's view after that command, what a
// snapshot would hold. A fold that cannot follow an event marks the view stale; the view then
// takes the server's view, as the connection does with the snapshot it asks for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalView } from "../src/view.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The parts of a view every viewer's app reads from the folded state, made comparable. @param {Record<string, any>} s */
function comparable(s) {
  return {
    phase: s.phase, round: s.round, turn: s.turn, active: s.active,
    loss_of_lieutenant: s.loss_of_lieutenant ?? [], retreat: s.retreat ?? [],
    objective_points: s.objective_points ?? {}, objective_activations: s.objective_activations ?? [],
    troopers: Object.fromEntries((s.troopers ?? []).map((/** @type {any} */ t) =>
      // (an enemy marker's wounds and state are not shown: the server leaves them out)
      [t.id, t.marker ? { position: t.position, marker: true } : { position: t.position, wounds: t.wounds, condition: t.condition }])),
  };
}

/** The games traced: a CodeOne mission whose Objective Points are scored at the ends of
 * rounds, and an N5 mission in which both sides lose their Lieutenant. */
const GAMES = [
  [],
  ["--ruleset", "n5", "--seed", "2", "--table", "n5-night-market", "--mission", "n5-relay-station",
    "--armies", "petrel-skyborne,vesper-raiders"],
];

for (const args of GAMES) {
  test(`over a whole mission game (${args.join(" ") || "CodeOne"}), every viewer's folded view is the server's after each command`, () => {
    const out = join(mkdtempSync(join(tmpdir(), "view-trace-")), "trace.json");
    const run = spawnSync(join(repo, ".venv", "bin", "python"), ["-m", "tests.support.view_trace", ...args, "--out", out],
      { cwd: repo, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const trace = JSON.parse(readFileSync(out, "utf8"));
    rmSync(dirname(out), { recursive: true });
    const seen = new Set();
    for (const [viewer, { start, steps }] of Object.entries(trace)) {
      const view = new LocalView();
      view.applySnapshot({ version: 0, state: start, window: null, seats: {} });
      let folded = 0, snapshots = 0;
      for (const [index, step] of steps.entries()) {
        view.applyEvents(view.version + 1, step.events);
        if (view.stale) {
          snapshots += 1;
          view.applySnapshot({ version: view.version, state: step.state, window: null, seats: {} });
          continue;
        }
        folded += 1;
        for (const event of step.events) seen.add(event.type);
        assert.deepEqual(comparable(view.state), comparable(step.state),
          `${viewer}, command ${index + 1}: ${step.events.map((/** @type {any} */ e) => e.type).join(", ")}`);
      }
      assert.ok(folded > 10 * snapshots, `${viewer}: ${folded} commands folded, ${snapshots} needed a snapshot`);
    }
    // What each game is there for was folded and compared, not taken from a snapshot.
    const meant = args.length ? "loss_of_lieutenant" : "objective_points_scored";
    assert.ok(seen.has(meant), `${meant} folded in: ${[...seen].join(", ")}`);
  });
}
