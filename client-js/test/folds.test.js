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

/**
 * A view made comparable: the whole of it but the profiles (set once, when a trooper is first
 * seen), a trooper's facing to a millionth of a degree (its fold computes it from the route),
 * fields that are empty or false left out, and an enemy marker's wounds and state, which the
 * server does not show and the fold fills with defaults. A seat's own Lieutenant choice is
 * compared; a caster's view has none (the server shows a choice to its seat only).
 * @param {Record<string, any>} s @param {string} viewer
 */
function comparable(s, viewer) {
  const kept = (/** @type {any} */ v) => v !== undefined && v !== null && v !== false
    && !(typeof v === "object" && Object.keys(v).length === 0);
  const trooper = (/** @type {any} */ t) => Object.fromEntries(Object.entries(t)
    .filter(([k, v]) => k !== "profile" && kept(v) && !(t.marker && ["wounds", "condition", "prone"].includes(k)))
    .map(([k, v]) => [k, k === "facing" ? Math.round(v * 1e6) / 1e6 : v]));
  return {
    phase: s.phase, round: s.round, turn: s.turn, active: s.active,
    loss_of_lieutenant: s.loss_of_lieutenant ?? [], retreat: s.retreat ?? [],
    objective_points: s.objective_points ?? {}, objective_activations: s.objective_activations ?? [],
    orders: s.orders, orders_spent: s.orders_spent, order: s.order ? s.order.trooper : null,
    classified: s.classified ?? {}, command_tokens: s.command_tokens ?? null, fireteams: s.fireteams ?? [], result: s.result ?? null, zones: s.table?.zones ?? [],
    lieutenant_choice: viewer === "A" || viewer === "B" ? s.lieutenant_choice ?? null : null,
    troopers: Object.fromEntries((s.troopers ?? []).map((/** @type {any} */ t) => [t.id, trooper(t)])),
  };
}

/** What an event is, for the games' `meant`: its type, or for an End of Turn that gives a
 * side in Loss of Lieutenant its new Lieutenant and an ARO that reveals its trooper, that.
 * @param {any} event */
function kind(event) {
  if (event.type === "turn_ended" && event.lieutenant_appointed) return "turn_ended (new Lieutenant)";
  if (event.type === "aro_declared" && event.revealed) return "aro_declared (revealing its trooper)";
  return event.type;
}

/** The games traced, each with the events it is there for: a CodeOne mission whose Objective
 * Points are scored at the ends of rounds, and an N5 mission in which a side loses its
 * Lieutenant and has a new one take office at the End of its Turn, mid-game, troopers kept
 * in Airborne Deployment land, and Command Tokens are spent; and an N5 mission in which a
 * Camouflage Marker reveals itself by its ARO. */
const GAMES = [
  { name: "CodeOne", args: [], meant: ["objective_points_scored", "classified_achieved"] },
  { name: "N5", meant: ["loss_of_lieutenant", "turn_ended (new Lieutenant)",
    "trooper_kept_airborne", "combat_jump_landed", "command_token_spent"], args: ["--ruleset", "n5", "--seed", "1",
    "--table", "n5-night-market", "--mission", "n5-relay-station", "--armies", "petrel-skyborne,vesper-raiders"] },
  { name: "N5, Camouflage", meant: ["aro_declared (revealing its trooper)"], args: ["--ruleset", "n5", "--seed", "3",
    "--table", "n5-ashfall-refinery", "--mission", "n5-flare-line", "--armies", "orrery-veil,helion-vanguard"] },
];

for (const { name, args, meant } of GAMES) {
  test(`over a whole mission game (${name}), every viewer's folded view is the server's after each command`, () => {
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
        for (const event of step.events) seen.add(kind(event));
        assert.deepEqual(comparable(view.state, viewer), comparable(step.state, viewer),
          `${viewer}, command ${index + 1}: ${step.events.map((/** @type {any} */ e) => e.type).join(", ")}`);
      }
      assert.ok(folded > 10 * snapshots, `${viewer}: ${folded} commands folded, ${snapshots} needed a snapshot`);
    }
    // What the game is there for was folded and compared, not taken from a snapshot.
    for (const what of meant) assert.ok(seen.has(what), `${what} folded in: ${[...seen].join(", ")}`);
  });
}
