// What the stream overlay shows, read from a spectator's (or a caster's) view and frames:
// pure functions, no DOM, so that unit tests read the same values the overlay draws. The
// words and dice of a roll come from describe.js, as the app's results panel writes them.
import { windowRemainingMs } from "./lib/connection.js";
import { ServerTag } from "./lib/protocol-constants.js";
import { outcomeLines, effectText, skillName, successValueText, textOf } from "./describe.js";
import { weaponName } from "./catalogue.js";
import { hasOp, opSoFar } from "./mission-words.js";

/** @typedef {import("./describe.js").Piece} Piece */

export const SIDES = /** @type {const} */ (["A", "B"]);

/** A side's trooper ids start with it ("A-t5"). @param {string} id */
export const sideOf = (id) => /^([AB])-/.exec(id ?? "")?.[1] ?? null;

/**
 * The overlay's link, from its fragment: the room, and the token its hello carries. A
 * spectator link has none; a caster link (`#room=…&token=…`, made by the room's organizer)
 * carries the caster's. A seat's link has the same shape: the overlay knows it only from the
 * welcome's role, and then lets go of the seat (`isSeat`).
 * @param {string} hash e.g. "#room=abc&token=xyz"
 */
export function overlayLink(hash) {
  const params = new URLSearchParams(String(hash ?? "").replace(/^#/, ""));
  return { room: params.get("room"), token: params.get("token") || null };
}

/** A welcome's role that is a player's seat: the overlay never plays. @param {string | null | undefined} role */
export const isSeat = (role) => role === "A" || role === "B";

/**
 * What the lobby's seat check (`POST /api/rooms/{room}/join` with the link's token) says of
 * a token before the overlay says hello with it: "seat" (200: the overlay must not use it,
 * it would take the player's seat), "not_seat" (403 bad_token: a caster's token, or none the
 * websocket will take), "no_room" (404), or "retry" (no answer: the server is not reachable).
 * @param {number | null} status the HTTP status, null when the request failed
 */
export function seatCheck(status) {
  return status === 200 ? "seat" : status === 403 ? "not_seat" : status === 404 ? "no_room" : "retry";
}

const PHASE = { army_selection: "Army selection", initiative: "Initiative", deployment: "Deployment",
  tactical: "Tactical Phase", impetuous: "Impetuous Phase", orders: "Orders Phase", states: "States Phase", game_over: "Game over" };
/** @param {string | null | undefined} phase */
export const phaseName = (phase) => PHASE[/** @type {keyof typeof PHASE} */ (phase)] ?? String(phase ?? "").replace(/_/g, " ");

/**
 * The Orders the active player has left, per pool, as the view's state holds them (its own
 * Order Count; the other side has none until its turn): the Regular pool of each Combat
 * Group, Irregular, Impetuous, and the Lieutenant and Tactical Orders when there are any.
 * `total` counts as the app's End turn question does (Impetuous ones apart).
 * @param {Record<string, any> | null | undefined} state
 * @returns {{side: string, pools: {key: string, name: string, left: number}[], total: number} | null}
 */
export function ordersLeft(state) {
  if (!state?.active || !state.orders || !["impetuous", "orders"].includes(state.phase)) return null;
  const o = state.orders;
  const pools = Object.entries(o.pools ?? {}).sort(([a], [b]) => Number(a) - Number(b))
    .map(([group, left]) => ({ key: `G${group}`, name: `Combat Group ${group}`, left: Number(left) }));
  const lieutenant = o.lieutenant === true || typeof o.lieutenant === "string" ? 1 : 0;
  const tactical = (o.tactical ?? []).length;
  pools.push({ key: "IRR", name: "Irregular", left: (o.irregular ?? []).length });
  pools.push({ key: "IMP", name: "Impetuous", left: (o.impetuous ?? []).length });
  if (lieutenant) pools.push({ key: "LT", name: "Lieutenant", left: 1 });
  if (tactical) pools.push({ key: "TAC", name: "Tactical", left: tactical });
  const total = pools.filter((p) => p.key !== "IMP").reduce((n, p) => n + p.left, 0);
  return { side: state.active, pools, total };
}

/**
 * A side's casualties: its troopers in a Null state (Unconscious or Dead) among those the view holds.
 * @param {Record<string, any>} state @param {string} side
 */
export function casualties(state, side) {
  const mine = (state?.troopers ?? []).filter((/** @type {any} */ t) => t.side === side);
  const dead = mine.filter((/** @type {any} */ t) => t.condition === "dead").length;
  const unconscious = mine.filter((/** @type {any} */ t) => t.condition === "unconscious").length;
  return { total: dead + unconscious, dead, unconscious };
}

/**
 * A side's Victory Points: the army points of its troopers not in a Null state (the rules
 * core's victory_points). The game's result says them for all; before the end only a view
 * that holds the side's whole list with its costs can add them up (a caster's, a player's of
 * its own side). A spectator's view leaves costs out: null, not a guess.
 * @param {Record<string, any>} state @param {string} side @returns {number | null}
 */
export function victoryPoints(state, side) {
  const final = state?.result?.victory_points?.[side];
  if (typeof final === "number") return final;
  if (!Array.isArray(state?.armies?.[side]?.entries)) return null;
  const mine = (state.troopers ?? []).filter((/** @type {any} */ t) => t.side === side);
  if (!mine.length || !mine.every((/** @type {any} */ t) => typeof t.profile?.cost === "number")) return null;
  return mine.filter((/** @type {any} */ t) => (t.condition ?? "normal") === "normal")
    .reduce((/** @type {number} */ n, /** @type {any} */ t) => n + t.profile.cost, 0);
}

/**
 * A side's Objective Points in a game played on a mission (open information: the server's
 * count so far, the result's at the end), or null without a mission.
 * @param {Record<string, any> | null | undefined} state @param {string} side @returns {number | null}
 */
export function objectivePoints(state, side) {
  if (!state?.mission) return null;
  if (hasOp(state.result)) return Number(state.result.op[side] ?? 0);
  return opSoFar(state)[/** @type {"A" | "B"} */ (side)];
}

/**
 * The top bar: round, turn, phase, the active player, the mission's title (null without
 * one), and per side its army (as the roster names it: "Player A", the army's name and
 * faction), OP on a mission, VP, casualties and Orders.
 * @param {Record<string, any> | null | undefined} state
 */
export function scoreboard(state) {
  const over = state?.phase === "game_over";
  const active = over ? null : state?.active ?? null; // the view keeps the last one after game_ended
  const orders = over ? null : ordersLeft(state);
  const sides = Object.fromEntries(SIDES.map((side) => {
    const army = state?.armies?.[side];
    return [side, { side, player: `Player ${side}`, army: army?.name ?? null, faction: army?.faction ?? null,
      points: army?.points ?? null, vp: state ? victoryPoints(state, side) : null, op: objectivePoints(state, side),
      casualties: state ? casualties(state, side) : { total: 0, dead: 0, unconscious: 0 },
      active: active === side, orders: orders?.side === side ? orders : null, winner: over && state?.result?.winner === side }];
  }));
  return { round: state?.round ?? 0, turn: state?.turn ?? 0, phase: phaseName(state?.phase), active, over,
    mission: state?.mission?.title ?? null, maxOp: state?.mission?.max_op ?? null,
    sides: /** @type {Record<"A"|"B", any>} */ (sides) };
}

/** Under this many milliseconds the ARO countdown turns urgent (as the app's). */
export const URGENT_MS = 5000;

/**
 * The ARO countdown, from the frame's window (`remaining_ms` and when it arrived: the
 * library's windowRemainingMs), or null when no window is open.
 * @param {import("./lib/view.js").AroWindow | null | undefined} window
 * @param {number | null | undefined} windowSeconds the room's aro_window_s (for the bar)
 * @param {number} [now]
 */
export function aroCountdown(window, windowSeconds, now = Date.now()) {
  if (!window) return null;
  const ms = windowRemainingMs(window, now);
  const fraction = windowSeconds && windowSeconds > 0 ? Math.min(1, ms / (windowSeconds * 1000)) : null;
  return { reactive: window.reactive, order: window.order, step: window.step, ms, seconds: (ms / 1000).toFixed(1), fraction, urgent: ms <= URGENT_MS };
}

// --- chess clocks ------------------------------------------------------------------------------

/**
 * @typedef {{remaining_ms: number, running: boolean, out_of_time: boolean, received_at?: number}} Clock
 * @typedef {{A: Clock, B: Clock}} Clocks
 */

/**
 * The clocks a frame carries, stamped with when it arrived, or undefined when the frame says
 * nothing new: a `snapshot`, or an `events` frame that ends at the version the view holds
 * (an older resend's clocks are old, as its window is), carries `clocks`, null (or absent)
 * when the room plays without them.
 * @param {Record<string, any>} frame a decoded server message @param {number} heldVersion the view's version after it
 * @param {number} [now] @returns {Clocks | null | undefined}
 */
export function clocksFromFrame(frame, heldVersion, now = Date.now()) {
  const current = frame.type === ServerTag.SNAPSHOT
    || (frame.type === ServerTag.EVENTS && frame.first + (frame.events?.length ?? 0) - 1 === heldVersion);
  if (!current) return undefined;
  const clocks = frame.clocks;
  if (!clocks?.A || !clocks?.B) return null;
  return { A: { ...clocks.A, received_at: now }, B: { ...clocks.B, received_at: now } };
}

/** A clock's time left now: the running one counts down from its frame's remaining_ms. @param {Clock} clock @param {number} [now] */
export function clockRemainingMs(clock, now = Date.now()) {
  if (clock.out_of_time) return 0;
  const since = clock.running ? now - (clock.received_at ?? now) : 0;
  return Math.max(0, clock.remaining_ms - since);
}

/** A chess clock's face: "1:15:00", "42:07", "0:09" (whole seconds, rounded up: 0:00 only at the end). @param {number} ms */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Under this much time a clock is shown as low. */
export const LOW_CLOCK_MS = 5 * 60 * 1000;

/**
 * Both clocks as the overlay shows them, or null (a room without clocks).
 * @param {Clocks | null | undefined} clocks @param {number} [now]
 */
export function clocksNow(clocks, now = Date.now()) {
  if (!clocks) return null;
  return Object.fromEntries(SIDES.map((side) => {
    const clock = clocks[side];
    const ms = clockRemainingMs(clock, now);
    return [side, { ms, text: clock.out_of_time ? "OUT OF TIME" : clockText(ms), running: Boolean(clock.running) && !clock.out_of_time,
      outOfTime: Boolean(clock.out_of_time), low: !clock.out_of_time && ms < LOW_CLOCK_MS }];
  }));
}

// --- the last roll -----------------------------------------------------------------------------

/** The die pieces and the verdict of one line of describe.js's roll record. @param {{parts: any[]}} line */
function piecesOf(line) {
  const dice = /** @type {Piece[]} */ (line.parts.filter((p) => typeof p === "object" && p.cls?.startsWith("die")));
  const verdict = line.parts.find((p) => typeof p === "object" && p.cls === "verdict");
  return { dice, verdict: verdict?.text ?? "" };
}

/**
 * A weapon's name with the ammunition of a Saving Roll, unless the name already says it
 * ("Lance Rifle (DA)" stays so; "Line Rifle" with N: "Line Rifle (N)").
 * @param {string} name @param {string | null | undefined} ammo
 */
export function withAmmo(name, ammo) {
  if (!ammo || name.includes(`(${ammo})`)) return name;
  return `${name} (${ammo})`;
}

const hit = (/** @type {Record<string, any>} */ r) => (r.successes ?? 0) + (r.criticals ?? 0) > 0;

/**
 * Whether an event is a resolved Order that rolled (a roll, even one without a die, or a
 * Saving Roll): only such an Order replaces the last roll shown, so a move or an Idle after
 * a shot leaves that shot's dice on screen instead of a "No roll" panel.
 * @param {Record<string, any> | null | undefined} event
 */
export function rolledOrder(event) {
  if (event?.type !== "order_resolved") return false;
  const outcome = event.outcome ?? {};
  return (outcome.rolls ?? []).length > 0 || (outcome.saves ?? []).length > 0;
}

/**
 * The last resolved Order's roll as the overlay shows it: each roll (who, what, the Success
 * Value with its MODs, the dice styled as the results panel styles them, what it achieved),
 * who won a Face to Face, each Saving Roll and the effects.
 * @param {Record<string, any> | null | undefined} event an `order_resolved` event
 * @param {import("./describe.js").Context} ctx names, ruleset, viewer (as the results panel's)
 * @param {string | null} [active] the trooper that Order activated (the names' `activeTrooper` when it resolved:
 *   by the time it is drawn, the next Order may have started)
 */
export function lastRoll(event, ctx, active = null) {
  if (!event || event.type !== "order_resolved") return null;
  const outcome = event.outcome ?? {};
  const names = /** @type {import("./describe.js").TrooperNames} */ (ctx.names);
  const lines = outcomeLines(outcome, ctx);
  const rollLines = lines.filter((l) => l.cls === "roll");
  const saveLines = lines.filter((l) => l.cls === "roll save");
  const rolls = (outcome.rolls ?? []).map((/** @type {any} */ r, /** @type {number} */ i) => {
    const { dice, verdict } = piecesOf(rollLines.find((l) => l.data?.roll === String(i)) ?? { parts: [] });
    const noDice = r.chosen_failure ? "chose to fail: no die" : r.automatic_failure ? "automatic failure: no die" : null;
    return { side: sideOf(r.trooper), who: names.label(r.trooper), skill: skillName(r.skill),
      weapon: r.weapon ? weaponName(r.weapon) : null, target: r.target && r.skill !== "guts" ? names.label(r.target) : null,
      sv: successValueText(r), dice, noDice, verdict, success: hit(r), opposed: (r.opposed_by ?? []).length > 0 };
  });
  const opposed = rolls.filter((/** @type {any} */ r) => r.opposed);
  let headline = rolls.length ? "Normal Roll" : "No roll";
  let winner = null;
  if (opposed.length) {
    const winners = [...new Set(opposed.filter((/** @type {any} */ r) => r.success).map((/** @type {any} */ r) => r.side))];
    winner = winners.length === 1 ? winners[0] : null;
    headline = winners.length === 1 ? `Face to Face: Player ${winners[0]} wins` : winners.length ? "Face to Face: both sides succeed" : "Face to Face: neither side succeeds";
  }
  const n5 = ctx.ruleset !== "codeone";
  const saves = (outcome.saves ?? []).map((/** @type {any} */ s, /** @type {number} */ i) => {
    const { dice } = piecesOf(saveLines[i] ?? { parts: [] });
    const hits = `${s.hits} hit${s.hits === 1 ? "" : "s"}${s.criticals ? ` + ${s.criticals} crit` : ""}`;
    return { side: sideOf(s.trooper), who: names.label(s.trooper), against: `${withAmmo(weaponName(s.weapon), s.ammo)}, ${hits}`,
      target: n5 ? `saves on ${s.target} or less` : `fails on ${s.target} or less`, dice,
      verdict: s.failed ? `${s.failed} failed` : "all saved", failed: s.failed ?? 0 };
  });
  const effects = (outcome.effects ?? []).map((/** @type {any} */ x) => textOf(effectText(x, ctx)));
  return { order: event.order, active: active ? names.label(active) : null, headline, winner, rolls, saves, effects };
}

/**
 * How tightly the lower third sets a roll so that every row fits in it (it never cuts a row
 * off): "normal" up to 3 rolls and saves, "compact" (smaller rows) up to 6, "dense" (two
 * columns of small rows) beyond, as a Coordinated Order with AROs and saves makes.
 * @param {{ rolls: any[], saves: any[], effects: any[] } | null} roll what `lastRoll` returns
 * @returns {"normal" | "compact" | "dense"}
 */
export function rollDensity(roll) {
  const rows = (roll?.rolls.length ?? 0) + (roll?.saves.length ?? 0) + Math.ceil((roll?.effects.length ?? 0) / 2);
  return rows <= 3 ? "normal" : rows <= 6 ? "compact" : "dense";
}
