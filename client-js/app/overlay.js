// The stream overlay (/overlay#room=...): a spectator's (or, from a caster link, a caster's) live view
// drawn for a streaming program's browser source at 1920 x 1080 over a transparent page. It
// never needs a click: the library's connection reconnects by itself and resumes.
// What it reads from the view is overlay-model.js (pure, unit-tested); this file draws it.
import { GameConnection, websocketUrl } from "./lib/connection.js";
import { backoffDelay } from "./lib/backoff.js";
import { CloseCode } from "./lib/protocol-constants.js";
import { loadCatalogue } from "./catalogue.js";
import { TrooperNames, toNodes } from "./describe.js";
import { trooperNames } from "./roster.js";
import { decidedBy, hasOp } from "./mission-words.js";
import { aroCountdown, clocksFromFrame, clocksNow, isSeat, lastRoll, overlayLink, rolledOrder, rollDensity, scoreboard, seatCheck, SIDES } from "./overlay-model.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} tag @param {Record<string, any>} attrs @param {...(Node|string|null)} children */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
  node.append(...children.filter((c) => c !== null));
  return node;
}
/** Set a node's text only when it changed (the tick runs ten times a second). */
const setText = (/** @type {Element} */ node, /** @type {string} */ text) => { if (node.textContent !== text) node.textContent = text; };

const link = overlayLink(location.hash);
/** The frames' chess clocks (a frame-level field, as `window`), stamped with their arrival. */
let clocks = /** @type {import("./overlay-model.js").Clocks | null} */ (null);
/** How far behind the room this feed runs (the welcome's delay_s: a delayed spectator's, a caster's). */
let delayS = 0;

/**
 * The events in version order, live or from the history (a join or a resync brings a
 * snapshot: the history fills what came before), so that names are learnt as the app's log
 * learns them and the last resolved Order is the room's last one.
 */
class EventFeed {
  /** @param {GameConnection} conn */
  constructor(conn) {
    this.conn = conn;
    let named = { state: /** @type {any} */ (null), version: -1, names: /** @type {Map<string, any>} */ (new Map()) };
    const onTable = (/** @type {string} */ id) => {
      const { state, version } = conn.view;
      if (!state) return undefined;
      if (named.state !== state || named.version !== version) named = { state, version, names: trooperNames(state) };
      return named.names.get(id);
    };
    this.names = new TrooperNames((id) => conn.view.trooper(id), onTable);
    this.next = 1;
    this.waiting = new Map();
    this.loading = false;
    this.failures = 0;
    /** @type {{event: Record<string, any>, active: string | null} | null} the last order_resolved event that rolled dice and the trooper its Order activated */
    this.lastResolved = null;
  }

  /** @param {{version: number, event: Record<string, any> | null}[]} entries */
  add(entries) {
    for (const entry of entries) if (entry.version >= this.next) this.waiting.set(entry.version, entry);
    while (this.waiting.has(this.next)) {
      const { event } = this.waiting.get(this.next);
      this.waiting.delete(this.next);
      this.next += 1;
      if (!event) continue;
      this.names.learn(event);
      if (rolledOrder(event)) this.lastResolved = { event, active: this.names.activeTrooper };
    }
  }

  /** After a change of the view: load what it holds and no event brought (once at a time; after 3 failures, skip it). */
  catchUp() {
    const held = this.conn.view.version;
    if (this.next > held || this.loading) return;
    if (this.failures >= 3) { this.waiting.clear(); this.next = held + 1; return; }
    this.loading = true;
    this.conn.loadHistory().then((entries) => this.add(entries), (error) => {
      this.failures += 1;
      console.warn("the overlay could not load the event history:", error);
    }).finally(() => { this.loading = false; this.catchUp(); render(); });
  }
}

const conn = new GameConnection({ url: websocketUrl(location), room: link.room ?? "", token: link.token, backoff: { initialMs: 250, maxMs: 4000 } });
const feed = new EventFeed(conn);
/** @type {any} */ (window).referee = conn; // for the browser tests

conn.addEventListener("events", (e) => feed.add(/** @type {CustomEvent} */ (e).detail));
conn.addEventListener("message", (e) => {
  const frame = /** @type {CustomEvent} */ (e).detail;
  if (frame.type === "welcome") {
    delayS = Number(frame.delay_s ?? 0);
    // A seat's token that passed the check (it cannot, but the overlay never plays): let the seat go.
    if (isSeat(frame.role)) stop("Overlay: this is a player's seat link; open the spectator link or a caster link");
  }
  const found = clocksFromFrame(frame, conn.view.version);
  if (found !== undefined) clocks = found;
});
conn.addEventListener("change", () => { feed.catchUp(); render(); });
conn.addEventListener("status", () => renderStatus());
conn.addEventListener("fatal", (e) => {
  const code = /** @type {CustomEvent} */ (e).detail.code;
  const why = { [CloseCode.BAD_TOKEN]: "this link opens no feed of this room", [CloseCode.ROOM_NOT_FOUND]: "there is no such room",
    [CloseCode.UNSUPPORTED_VERSION]: "this page is older than the server: reload it",
    [CloseCode.CASTER_WITHDRAWN]: "this caster link was withdrawn by the room's organizer" }[code];
  stop(`Overlay: ${why ?? `closed (code ${code})`}`);
});

/** Why the overlay stopped for good (shown until the page is reloaded), or null. */
let stopped = /** @type {string | null} */ (null);
/** @param {string} why */
function stop(why) {
  stopped = why;
  conn.close();
  renderStatus();
}

/** The connection's state, shown only when the feed is not live (a streamer sees at once that it is stale). */
function renderStatus() {
  const box = $("status");
  const fatal = stopped ?? (link.room ? null : "Overlay: the link names no room (/overlay#room=...)");
  const text = fatal ?? (conn.status === "open" ? "" : conn.status === "reconnecting" ? "Reconnecting..." : "Connecting...");
  box.hidden = !text;
  box.classList.toggle("fatal", Boolean(fatal));
  setText(box, text);
}

function render() {
  const state = conn.view.state;
  const board = scoreboard(state);
  for (const side of SIDES) renderSide(board.sides[side]);
  $("mission").hidden = !board.mission;
  setText($("mission"), board.mission ? `Mission: ${board.mission}` : "");
  setText($("round"), state && board.round ? `Round ${board.round} · Turn ${board.turn}` : "");
  setText($("phase"), state ? `${board.phase}${delayS > 0 ? ` · ${Math.round(delayS)} s delay` : ""}` : "");
  const active = $("active");
  active.className = board.active ? `side-${board.active}` : "";
  setText(active, board.active ? `Player ${board.active} active` : "");
  renderResult(state);
  renderRoll();
  tick();
}

/** @param {any} card */
function renderSide(card) {
  const box = $(`side-${card.side}`);
  box.classList.toggle("active", card.active);
  box.classList.toggle("winner", card.winner);
  setText(/** @type {Element} */ (box.querySelector(".player")), card.player);
  setText(/** @type {Element} */ (box.querySelector(".army")), card.army ?? "Choosing an army");
  setText(/** @type {Element} */ (box.querySelector(".faction")), card.army ? `${card.faction ?? ""}${card.points ? ` · ${card.points} pts` : ""}` : "");
  setText(/** @type {Element} */ (box.querySelector(".vp")), card.vp === null ? "–" : String(card.vp));
  // A mission's Objective Points (they decide the game; VP break a tie): shown only on a mission.
  const opStat = /** @type {HTMLElement} */ (box.querySelector(".stat-op"));
  opStat.hidden = card.op === null;
  setText(/** @type {Element} */ (box.querySelector(".op")), card.op === null ? "" : String(card.op));
  const lost = card.casualties;
  const lostNode = /** @type {HTMLElement} */ (box.querySelector(".casualties"));
  setText(lostNode, String(lost.total));
  lostNode.classList.toggle("some", lost.total > 0);
  lostNode.title = `${lost.dead} dead, ${lost.unconscious} unconscious`;
  const orders = $(`orders-${card.side}`);
  orders.hidden = !card.orders;
  if (card.orders) {
    orders.replaceChildren(el("span", { class: "orders-title" }, "Orders"), el("span", { class: "orders-total" }, String(card.orders.total)),
      ...card.orders.pools.map((/** @type {any} */ p) => el("span", { class: `pool${p.left ? "" : " empty"}`, "data-pool": p.key, title: p.name },
        el("span", { class: "pool-key" }, p.key), el("span", { class: "pool-left" }, String(p.left)))));
  }
}

/** The game's end: who won, with both sides' VP. @param {Record<string, any> | null} state */
function renderResult(state) {
  const box = $("result");
  const result = state?.phase === "game_over" ? state.result : null;
  box.hidden = !result;
  if (!result) return;
  box.className = result.winner ? `side-${result.winner}` : "";
  const vp = SIDES.map((s) => `${s} ${result.victory_points?.[s] ?? "?"} VP`).join(" · ");
  // On a mission the OP decide (then VP): both said, OP first.
  const op = hasOp(result) ? `${SIDES.map((s) => `${s} ${result.op[s] ?? 0} OP`).join(" · ")} · ` : "";
  const how = decidedBy(result);
  box.replaceChildren(el("div", { class: "result-title" }, result.winner ? `Player ${result.winner} wins` : "Draw"),
    el("div", { class: "result-detail" }, `${op}${vp} · ${how ? `${how} · ` : ""}${String(result.reason ?? "").replace(/_/g, " ")}`));
}

/** The last resolved Order: rolls, Face to Face, saves, effects (lower third). */
function renderRoll() {
  const box = $("roll");
  const ctx = { names: feed.names, ruleset: conn.view.state?.ruleset, viewer: conn.role };
  const roll = lastRoll(feed.lastResolved?.event, ctx, feed.lastResolved?.active);
  box.hidden = !roll;
  if (!roll) return;
  box.className = rollDensity(roll); // every row in the frame: smaller rows, two columns, never cut
  const dice = (/** @type {any[]} */ pieces) => el("span", { class: "dice" }, toNodes(pieces));
  box.replaceChildren(
    el("header", { class: roll.winner ? `side-${roll.winner}` : "" },
      el("span", { class: "roll-title" }, `Last roll · Order ${roll.order}`),
      roll.active ? el("span", { class: "roll-active" }, toNodes([roll.active])) : null,
      el("span", { class: "roll-headline" }, roll.headline)),
    ...roll.rolls.map((/** @type {any} */ r, /** @type {number} */ i) => el("div", { class: `roll-row side-${r.side} ${r.success ? "won" : "lost"}`, "data-roll": i },
      el("div", { class: "roll-who" }, toNodes([r.who]), el("span", { class: "roll-skill" }, ` ${r.skill}${r.weapon ? ` · ${r.weapon}` : ""}`),
        r.target ? el("span", { class: "roll-target" }, " → ", toNodes([r.target])) : null),
      el("div", { class: "roll-sv" }, r.sv),
      r.noDice ? el("span", { class: "no-dice" }, r.noDice) : dice(r.dice),
      el("div", { class: "verdict" }, r.verdict))),
    ...roll.saves.map((/** @type {any} */ s, /** @type {number} */ i) => el("div", { class: `roll-row save side-${s.side} ${s.failed ? "lost" : "won"}`, "data-save": i },
      el("div", { class: "roll-who" }, toNodes([s.who]), el("span", { class: "roll-skill" }, ` save vs ${s.against}`)),
      el("div", { class: "roll-sv" }, s.target),
      dice(s.dice),
      el("div", { class: "verdict" }, s.verdict))),
    ...(roll.effects.length ? [el("ul", { class: "effects" }, ...roll.effects.map((/** @type {string} */ x) => el("li", {}, x)))] : []));
}

/** What runs down between frames: the ARO countdown and the running chess clock. */
function tick() {
  const aro = aroCountdown(conn.view.window, conn.settings?.aro_window_s);
  const box = $("aro");
  box.hidden = !aro;
  if (aro) {
    box.className = `side-${aro.reactive}${aro.urgent ? " urgent" : ""}`;
    setText(/** @type {Element} */ (box.querySelector(".aro-who")), `Player ${aro.reactive} reacts`);
    setText(/** @type {Element} */ (box.querySelector(".aro-seconds")), `${aro.seconds} s`);
    /** @type {HTMLElement} */ (box.querySelector(".aro-fill")).style.width = `${((aro.fraction ?? 1) * 100).toFixed(1)}%`;
  }
  const shown = clocksNow(clocks);
  for (const side of SIDES) {
    const stat = /** @type {HTMLElement} */ ($(`side-${side}`).querySelector(".stat-clock"));
    const clock = shown?.[side];
    stat.hidden = !clock;
    if (!clock) continue;
    stat.classList.toggle("running", clock.running);
    stat.classList.toggle("low", clock.low);
    stat.classList.toggle("out", clock.outOfTime);
    setText(/** @type {Element} */ (stat.querySelector(".clock")), clock.text);
  }
  for (const side of SIDES) fitArmyName(side);
}

/** A long army name gets a smaller font rather than an ellipsis (measured again when its text or the room beside it changed). @param {string} side */
function fitArmyName(side) {
  const army = /** @type {HTMLElement} */ ($(`side-${side}`).querySelector(".army"));
  const key = `${army.textContent}|${$(`side-${side}`).querySelector(".stat-clock")?.hasAttribute("hidden")}`;
  if (army.dataset.fittedFor === key) return;
  army.dataset.fittedFor = key;
  for (const size of [34, 30, 26, 23]) {
    army.style.fontSize = `${size}px`;
    if (army.scrollWidth <= army.clientWidth) break;
  }
}

/**
 * Connect, once a link's token is known not to be a seat's (a caster link's has the same
 * shape: `#room=…&token=…`): saying hello with a seat token would take the player's seat.
 * Until the server answers the check, ask again (never a click).
 */
async function start(attempt = 0) {
  if (link.token) {
    let status = null;
    try {
      status = (await fetch(`/api/rooms/${encodeURIComponent(link.room ?? "")}/join`, { method: "POST",
        headers: { "content-type": "application/json" }, body: JSON.stringify({ token: link.token }) })).status;
    } catch { /* not reachable: ask again */ }
    const verdict = seatCheck(status);
    if (verdict === "seat") return stop("Overlay: this is a player's seat link; open the spectator link or a caster link");
    if (verdict === "no_room") return stop("Overlay: there is no such room");
    if (verdict === "retry") {
      setTimeout(() => start(attempt + 1), backoffDelay(attempt, { initialMs: 250, maxMs: 4000 }));
      return undefined;
    }
  }
  conn.connect();
  return undefined;
}

renderStatus();
if (link.room) {
  // The weapon names of the rolls; the overlay draws without them (ids) if the catalogue is late.
  loadCatalogue().catch((error) => console.warn(error)).finally(render);
  start();
  setInterval(tick, 100);
}
window.addEventListener("hashchange", () => location.reload());
