// The event log and the results panel, rendered once per event version, in version order,
// whether the event arrived live or came from the history (`conn.loadHistory()`: every event
// of this viewer from 1 up to its version). A tab that joins with a snapshot (a reload, a late
// spectator) asks for the history and rebuilds the log and the results with the same
// functions a tab that watched live used, so both show the same thing; live events that
// arrive meanwhile wait in order, and nothing is shown twice.
import { describeEvent, renderOutcome, toNodes, TrooperNames } from "./describe.js";
import { trooperNames } from "./roster.js";
import { cardTitle } from "./mission-words.js";

/** The skills that move a trooper (its route placed when declared, nothing rolled for it). */
const MOVEMENTS = new Set(["move", "cautious_move", "jump", "climb"]);

/**
 * @typedef {{version: number, event: Record<string, any> | null}} Entry
 * @typedef {{log: HTMLElement, results: HTMLElement, conn: any, observers?: ((version: number, event: Record<string, any>) => void)[]}} Where
 *   `observers`: told every event rendered, in version order (the objectives panel counts OP from them)
 */

export class EventHistory {
  /** @param {Where} where */
  constructor({ log, results, conn, observers = [] }) {
    this.log = log;
    this.observers = observers;
    this.results = results;
    this.conn = conn;
    // Troopers are named as the table names them (roster.js), worked out once per state.
    let named = { state: /** @type {any} */ (null), version: -1, names: /** @type {Map<string, any>} */ (new Map()) };
    const onTable = (/** @type {string} */ id) => {
      const { state, version } = conn.view;
      if (!state) return undefined;
      if (named.state !== state || named.version !== version) named = { state, version, names: trooperNames(state) };
      return named.names.get(id);
    };
    this.names = new TrooperNames((id) => conn.view.trooper(id), onTable);
    /** The view's state the names of the lines on screen were last brought up to. */
    this.namedState = /** @type {any} */ (null);
    this.namedVersion = -1;
    /** The next version to render: everything below it is on screen. */
    this.next = 1;
    /** @type {Map<number, Entry>} events that arrived ahead of a version not rendered yet */
    this.waiting = new Map();
    /** @type {Map<number, Set<string>>} per Order, the troopers a movement skill was declared for */
    this.movers = new Map();
    /** A history request is in flight. */
    this.loading = false;
    /** History requests that failed (after 3, the log just says what it missed). */
    this.failures = 0;
  }

  /** Whether the library offers the history (`conn.loadHistory`). */
  get canLoad() {
    return typeof this.conn.loadHistory === "function";
  }

  /** Live events from the connection. @param {Entry[]} entries */
  addLive(entries) {
    this.#add(entries);
    this.catchUp();
  }

  /**
   * Called on every change of the view, after its live events: when the view holds versions
   * this log has not rendered (a join or a resync with a snapshot: no event will bring them),
   * load them from the history; without one (or when it does not cover them), say in the log
   * that it starts later.
   * @param {boolean} [afterLoad] the history was just asked for: do not ask again
   */
  catchUp(afterLoad = false) {
    this.#flush();
    const held = this.conn.view.version;
    if (this.next > held && !this.waiting.size) return;
    if (this.loading) return;
    if (!afterLoad && this.canLoad && this.failures < 3) {
      this.#load();
      return;
    }
    while (this.next <= held || this.waiting.size) {
      this.#skipTo(this.next <= held ? Math.min(held + 1, ...this.waiting.keys()) : Math.min(...this.waiting.keys()));
    }
  }

  async #load() {
    this.loading = true;
    try {
      this.#add((await this.conn.loadHistory()) ?? []);
    } catch (error) {
      this.failures += 1;
      console.warn("the event history could not be loaded:", error);
    } finally {
      this.loading = false;
    }
    this.catchUp(true);
  }

  /** @param {Entry[]} entries */
  #add(entries) {
    for (const entry of entries) if (entry.version >= this.next && !this.waiting.has(entry.version)) this.waiting.set(entry.version, entry);
  }

  /** Render every waiting event that continues the log. Returns true when something was rendered. */
  #flush() {
    let rendered = false;
    const atBottom = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    while (this.waiting.has(this.next)) {
      const entry = /** @type {Entry} */ (this.waiting.get(this.next));
      this.waiting.delete(this.next);
      this.#render(entry);
      this.next += 1;
      rendered = true;
    }
    if (rendered && atBottom) this.log.scrollTop = this.log.scrollHeight;
    return rendered;
  }

  /** Versions this tab will never render (no history): one line says so. @param {number} version */
  #skipTo(version) {
    if (version <= this.next) return;
    const first = this.next === 1;
    this.log.append(Object.assign(document.createElement("li"), { className: "log-gap", value: version,
      textContent: first ? `(this tab joined at event ${version - 1}: the events before it are not shown)` : `(events ${this.next} to ${version - 1} were missed and are not shown)` }));
    this.next = version;
    this.#flush();
  }

  /**
   * Name every trooper of the log and the results as the table names it now. The table's
   * ordinals follow who stands on it ("Enforcer" becomes "Enforcer 1" once a second one is
   * deployed), so a line keeps pointing at the base it meant, and a tab that reloaded or joined
   * late reads the same lines as one that watched. Lines that named a Camouflage marker keep it.
   * Call it after the view's state changed; it only walks the lines when it did.
   */
  refreshNames() {
    const { state, version } = this.conn.view;
    // The view folds events into one state object: its version says when it changed.
    if (!state || (state === this.namedState && version === this.namedVersion)) return;
    this.namedState = state;
    this.namedVersion = version;
    for (const box of [this.log, this.results]) {
      for (const span of /** @type {NodeListOf<HTMLElement>} */ (box.querySelectorAll(".trooper[data-trooper]"))) {
        if (span.dataset.asMarker) continue;
        const piece = this.names.label(/** @type {string} */ (span.dataset.trooper));
        if (span.textContent !== piece.text) span.textContent = piece.text;
        if (piece.title && span.title !== piece.title) span.title = piece.title;
      }
      // A Classified Objective achieved: its title, once the view's state holds the card.
      for (const span of /** @type {NodeListOf<HTMLElement>} */ (box.querySelectorAll(".classified-title[data-classified-card]"))) {
        const title = cardTitle(state, span.dataset.classifiedSide ?? "", span.dataset.classifiedCard ?? "");
        if (span.textContent !== title) span.textContent = title;
      }
    }
  }

  /** Who moved in each Order (its movement skills' troopers, the team's members included),
   * for the results of an Order that rolled nothing. @param {Record<string, any>} event */
  #noteMovers(event) {
    const moved = this.movers.get(event.order) ?? new Set();
    for (const { trooper, skill } of [event, ...(event.peripherals ?? [])]) {
      if (MOVEMENTS.has(skill?.type)) moved.add(trooper);
    }
    this.movers.set(event.order, moved);
  }

  /** One event: a line of the log, and a results block for a resolved Order. @param {Entry} entry */
  #render({ version, event }) {
    if (!event) return; // servers before gap-free numbering sent null for an event this viewer may not see
    this.names.learn(event);
    for (const observe of this.observers) observe(version, event);
    if (event.type === "skill_declared") this.#noteMovers(event);
    const ctx = { names: this.names, ruleset: this.conn.view.state?.ruleset, viewer: this.conn.role, state: this.conn.view.state,
      moved: event.type === "order_resolved" ? [...(this.movers.get(event.order) ?? [])] : [] };
    const item = document.createElement("li");
    item.value = version;
    item.dataset.version = String(version);
    item.dataset.type = event.type;
    item.append(toNodes(describeEvent(event, ctx)));
    this.log.append(item);
    if (event.type === "order_resolved") this.results.prepend(renderOutcome(event, ctx));
  }
}
