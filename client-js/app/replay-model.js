// What the replay viewer (replay.html, replay.js) reads from a replay's steps: pure functions,
// no DOM and no fetch, so that unit tests read the same positions the page steps to. A replay
// (`GET /api/rooms/{room}/replay?view=…`, docs/client.md "Replay viewer") is a list of steps:
// step 0 the state before any event, step i the state after the view's i-th event, each with
// its version, event type, round, turn, active side, Order number, room time (`at_ms`) and the
// event itself as the viewer received it (`event`: the log is built from the list alone).

/**
 * @typedef {{index: number, version: number, type: string | null, round: number, turn: number,
 *   active: string | null, order: number | null, at_ms: number | null,
 *   event: Record<string, any> | null}} Step
 * @typedef {"A" | "B" | "spectator" | "revealed"} ReplayView
 * @typedef {"event" | "order" | "turn" | "round"} StepUnit
 * @typedef {{room: string | null, replay: string | null, view: ReplayView, step: number | null}} ReplayLink
 */

/** The four views, in the picker's order. @type {ReplayView[]} */
export const VIEWS = ["A", "B", "spectator", "revealed"];

/** The picker's words for each view. */
export const VIEW_NAMES = { A: "Player A's seat", B: "Player B's seat", spectator: "Spectator", revealed: "Everything revealed" };

/** The play speeds offered (multiples of the game's own pace). */
export const SPEEDS = [1, 2, 4, 8, 16];

/**
 * Playing: each step waits the room time between its event and the next one's, divided by
 * the speed, but never more than MAX_GAP_MS of room time (a player thinking for three
 * minutes plays as 5 s at 1×, 0.3 s at 16×) nor less than MIN_GAP_MS (events committed
 * together still show one by one); a step whose time is unknown counts as UNKNOWN_GAP_MS.
 */
export const MAX_GAP_MS = 5000;
export const MIN_GAP_MS = 150;
export const UNKNOWN_GAP_MS = 1000;

/** @param {unknown} view @returns {view is ReplayView} */
export const isView = (view) => VIEWS.includes(/** @type {any} */ (view));

/**
 * The role the app's parts draw a view as: a seat's own, a spectator's, and the revealed view
 * as a caster's (both sides' hidden information: table.js and roster.js draw it so).
 * @param {ReplayView} view @returns {string}
 */
export const roleOf = (view) => (view === "revealed" ? "caster" : view);

/**
 * The replay link's fragment: `room=<room>` (a finished game) or `replay=<id>` (a loaded
 * record file), `view` (default spectator: what anyone could watch) and `step`.
 * @param {string} hash e.g. "#room=abc&view=A&step=12" @returns {ReplayLink}
 */
export function parseReplayHash(hash) {
  const params = new URLSearchParams(String(hash ?? "").replace(/^#/, ""));
  const view = params.get("view");
  const step = Number.parseInt(params.get("step") ?? "", 10);
  return { room: params.get("room") || null, replay: params.get("replay") || null,
    view: isView(view) ? view : "spectator", step: Number.isFinite(step) && step >= 0 ? step : null };
}

/** The fragment for a position (what the address bar follows). @param {ReplayLink} link */
export function replayHash({ room, replay, view, step }) {
  const params = new URLSearchParams();
  if (room) params.set("room", room);
  else if (replay) params.set("replay", replay);
  params.set("view", view);
  if (step !== null) params.set("step", String(step));
  return `#${params}`;
}

/**
 * The API addresses of a replay (the contract): a room's, or a posted record's.
 * @param {{room?: string | null, replay?: string | null}} source @param {ReplayView} view
 */
export function replayUrls({ room, replay }, view) {
  const base = room ? `/api/rooms/${encodeURIComponent(room)}/replay` : `/api/replays/${encodeURIComponent(replay ?? "")}`;
  const q = `view=${encodeURIComponent(view)}`;
  return { steps: `${base}?${q}`, state: (/** @type {number} */ index) => `${base}/state?${q}&step=${index}` };
}

/**
 * The log's entries up to step `index` (history.js's form), from the steps' own events: the
 * log of any step needs only the steps list, never a request per step.
 * @param {Step[]} steps @param {number} index
 * @returns {{version: number, event: Record<string, any> | null}[]}
 */
export function historyUpTo(steps, index) {
  return steps.slice(1, Math.max(0, index) + 1).map((s) => ({ version: s.version, event: s.event }));
}

/**
 * A step's place in a unit: steps of one group share it (the Order's number, the Player
 * Turn's round and turn, the round). @param {Step} step @param {StepUnit} unit
 */
function groupOf(step, unit) {
  if (unit === "order") return String(step.order ?? "");
  if (unit === "turn") return `${step.round}:${step.turn}`;
  if (unit === "round") return String(step.round);
  return String(step.index);
}

/** The first step of the group `index` is in. @param {Step[]} steps @param {number} index @param {StepUnit} unit */
function groupStart(steps, index, unit) {
  const key = groupOf(steps[index], unit);
  let at = index;
  while (at > 0 && groupOf(steps[at - 1], unit) === key) at -= 1;
  return at;
}

/**
 * Where a step forward or back by `unit` goes from `index`: by event the next or previous
 * step; by Order, turn or round forward the first step of the next one, back the start of
 * the current one (or of the previous one, when already at its start). Stays put at either end.
 * @param {Step[]} steps @param {number} index @param {StepUnit} unit @param {1 | -1} direction
 */
export function stepTarget(steps, index, unit, direction) {
  const last = steps.length - 1;
  const from = Math.max(0, Math.min(last, index));
  if (unit === "event") return Math.max(0, Math.min(last, from + direction));
  if (direction > 0) {
    const key = groupOf(steps[from], unit);
    for (let at = from + 1; at <= last; at += 1) {
      // By Order: the steps before the first Order (deployment) are no Order to stop at.
      if (groupOf(steps[at], unit) !== key && (unit !== "order" || steps[at].order !== null)) return at;
    }
    return last;
  }
  const start = groupStart(steps, from, unit);
  if (start < from) return start;
  return start > 0 ? groupStart(steps, start - 1, unit) : 0;
}

/**
 * The step of another view's list at the same moment of the game: the last one whose event
 * was committed no later than this one's (the views number their events each their own way,
 * so versions do not match; the room's time does), the same event among those committed at
 * once; without times, the same version, or the nearest.
 * @param {Step[]} from @param {number} index @param {Step[]} to
 */
export function matchingStep(from, index, to) {
  if (!to.length) return 0;
  const here = from[Math.max(0, Math.min(from.length - 1, index))];
  if (!here || here.index === 0) return 0;
  if (here.at_ms !== null && to.every((s) => s.index === 0 || s.at_ms !== null)) {
    // Events committed together share their time: among them, the same event when the other
    // view has it (a turn's start stays the turn's start), else the last of them.
    let best = 0;
    let same = -1;
    for (const step of to) {
      if (step.index === 0 || /** @type {number} */ (step.at_ms) > here.at_ms) continue;
      best = step.index;
      if (step.at_ms === here.at_ms && step.type === here.type) same = step.index;
    }
    return same >= 0 ? same : best;
  }
  let best = 0;
  for (const step of to) if (Math.abs(step.version - here.version) < Math.abs(to[best].version - here.version)) best = step.index;
  return best;
}

/**
 * How long play waits on step `index` before the next one, in milliseconds of this page's
 * time (see MAX_GAP_MS), or null at the last step.
 * @param {Step[]} steps @param {number} index @param {number} speed
 */
export function playDelayMs(steps, index, speed) {
  const next = steps[index + 1];
  if (!next) return null;
  return roomGapMs(steps, index) / Math.max(1, speed);
}

/** The room time play spends on step `index` (capped: MAX_GAP_MS, MIN_GAP_MS). @param {Step[]} steps @param {number} index */
export function roomGapMs(steps, index) {
  const here = steps[index];
  const next = steps[index + 1];
  if (!here || !next) return 0;
  const gap = here.at_ms !== null && next.at_ms !== null ? next.at_ms - here.at_ms : UNKNOWN_GAP_MS;
  return Math.max(MIN_GAP_MS, Math.min(MAX_GAP_MS, gap));
}

/**
 * The ARO window or the chess clocks of a step as they stand `elapsedMs` of room time after
 * its event: the frames' form with `received_at` set so that the app's countdowns
 * (lib/connection.js windowRemainingMs, overlay-model.js clocksNow) read them at `now`.
 * Standing still (paused), elapsed is 0: the values the step's frame carried.
 * @template {Record<string, any>} T @param {T | null | undefined} frame @param {number} elapsedMs @param {number} now
 * @returns {T | null}
 */
export function standingAt(frame, elapsedMs, now) {
  return frame ? { ...frame, received_at: now - elapsedMs } : null;
}

/** Both clocks as they stand (see standingAt), or null. @param {any} clocks @param {number} elapsedMs @param {number} now */
export function clocksAt(clocks, elapsedMs, now) {
  if (!clocks?.A || !clocks?.B) return null;
  return { A: standingAt(clocks.A, elapsedMs, now), B: standingAt(clocks.B, elapsedMs, now) };
}

/**
 * The position in words: "step 12 of 140 · round 1, turn 2 · Order 5".
 * @param {Step[]} steps @param {number} index
 */
export function positionText(steps, index) {
  const step = steps[index];
  if (!step) return "";
  const parts = [`step ${index} of ${steps.length - 1}`];
  if (step.round) parts.push(`round ${step.round}, turn ${step.turn}${step.active ? ` (${step.active} active)` : ""}`);
  if (step.order !== null) parts.push(`Order ${step.order}`);
  return parts.join(" · ");
}

/** The Orders of a replay: each Order's number and first step (the Order picker's ticks). @param {Step[]} steps */
export function orderStarts(steps) {
  /** @type {{order: number, index: number}[]} */
  const starts = [];
  for (const step of steps) if (step.order !== null && step.order !== starts[starts.length - 1]?.order) starts.push({ order: step.order, index: step.index });
  return starts;
}

/**
 * What to tell the viewer when the server refuses a replay (the contract's codes).
 * @param {number} status @param {{error?: string, message?: string} | null} body
 */
export function refusalText(status, body) {
  const code = body?.error ?? "";
  if (code === "room_not_found") return "There is no such room.";
  if (code === "game_not_over") return "The replay opens once the game is over (and, for a room with a spectator delay, once the spectators have seen its end).";
  if (code === "record_unavailable") return "This game's record is no longer available.";
  if (code === "replay_not_found") return "The server no longer holds this record: load the record file again.";
  if (code === "bad_record") return `The file is not a game record this server can replay: ${body?.message ?? ""}`;
  return `The server refused the replay (${status}${code ? ` ${code}` : ""})${body?.message ? `: ${body.message}` : ""}.`;
}
