// A player's or spectator's connection to a room: handshake, commands with answers,
// reconnect with back-off and resume from the last version held.
import { encodeMessage, decodeMessage, MalformedMessage } from "./codec.js";
import { backoffDelay } from "./backoff.js";
import { LocalView, VersionGap } from "./view.js";
import { PROTOCOL_VERSION, WS_PATH, ClientTag, ServerTag, CloseCode, ProtocolReason } from "./protocol-constants.js";

/**
 * @typedef {{ok: true, id: string, version: number} | {ok: false, id: string, code: string, message: string}} Answer
 * @typedef {{version: number, event: Record<string, any>}} HistoryEntry one event of this viewer, in its own numbering
 * @typedef {object} MeasureRequest
 * @property {string | [number, number]} from a trooper id, or a point [x, y] in inches
 * @property {[number, number]} to a point on the table
 * @property {number | null} [silhouette] the Silhouette of a target standing at `to` (default: the trooper's own)
 * @typedef {object} Measurement the server's answer (server/rules/table/measure.py)
 * @property {string | [number, number]} from
 * @property {[number, number]} to
 * @property {number} distance inches: from a trooper, base to the base of the target at `to` (as attacks measure range); between points, centre to centre
 * @property {number | null} silhouette the target's Silhouette (null between points)
 * @property {boolean | null} line_of_fire from a trooper: Line of Fire to that target
 * @property {boolean | null} in_front_arc from a trooper: some of the target's base is in its 180-degree front arc
 * @property {{weapon: string, name: string, mod: number | null}[] | null} weapons each weapon's range MOD at `distance` (null: out of range); null when the trooper's profile is not known to this viewer (an enemy Camouflage Marker) or between points
 * @typedef {"connecting" | "open" | "reconnecting" | "closed"} ConnectionStatus
 * @typedef {object} ConnectionOptions
 * @property {string} url websocket URL, e.g. ws://host/ws
 * @property {string} room room id
 * @property {string | null} [token] seat token; null for a spectator
 * @property {(url: string) => WebSocket} [createSocket] socket factory (tests inject a fake)
 * @property {import("./backoff.js").BackoffOptions} [backoff]
 * @property {(fn: () => void, ms: number) => any} [setTimer]
 * @property {(handle: any) => void} [clearTimer]
 * @property {() => string} [newId] command id source
 * @property {StorageRetryOptions} [storageRetry]
 * @typedef {object} StorageRetryOptions how a command answered `storage_unavailable` is sent
 *   again under its id (the server stored nothing and asks for that: a Redis failover, a
 *   restart of its storage): after back-off delays (`backoffDelay`), until the delays waited
 *   for it would pass `giveUpMs`; then the caller gets that answer
 * @property {number} [initialMs] first delay (default 250)
 * @property {number} [maxMs] cap (default 2000)
 * @property {number} [giveUpMs] the most a command waits for storage, in all (default 60000)
 * @property {() => number} [random] 0..1 source for jitter (default Math.random: the clients
 *   of every room the outage touched do not all send again in step)
 */

/** Why a history page or a measurement was refused (the server's `rejected`), or why it could not be asked. */
export class QueryFailed extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = "QueryFailed";
    this.code = code;
  }
}

/** Close codes after which reconnecting cannot help. */
const FINAL_CLOSE_CODES = new Set([CloseCode.BAD_TOKEN, CloseCode.ROOM_NOT_FOUND,
  CloseCode.UNSUPPORTED_VERSION, CloseCode.REPLACED, CloseCode.CASTER_WITHDRAWN]);

/** The websocket URL of the page's own server. @param {{protocol: string, host: string}} loc */
export function websocketUrl(loc) {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}${WS_PATH}`;
}

/**
 * The socket's URL with the room id as `?room=`: the load balancer sends a room's sockets to
 * one node by it (deploy/nginx.conf); the server reads the room from the hello, not from here.
 * @param {string} url @param {string} room
 */
export function roomSocketUrl(url, room) {
  const separator = url.includes("?") ? "&" : "?";
  return `${url}${separator}room=${encodeURIComponent(room)}`;
}

let idCounter = 0;
function defaultId() {
  idCounter += 1;
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${idCounter}`;
}

export class GameConnection extends EventTarget {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    super();
    this.options = options;
    this.view = new LocalView();
    /** @type {string | null} "A", "B" or "spectator" once welcomed */
    this.role = null;
    /** @type {Record<string, any>} room settings from the welcome */
    this.settings = {};
    /** @type {ConnectionStatus} */
    this.status = "closed";
    /** @type {Map<string, {message: any, resolve: (a: Answer) => void}>} unanswered commands */
    this.pending = new Map();
    /** Commands answered `storage_unavailable`, waiting to be sent again under their ids. */
    this.waitingForStorage = 0;
    /** @type {Set<() => void>} what ends each of those waits early (close() does) */
    this.storageTimers = new Set();
    /** @type {Map<string, {message: any, settle: (m: any) => void}>} unanswered queries (`history`, `measure`) by id */
    this.queries = new Map();
    this.queryCount = 0;
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.closedByUser = false;
    this.hasSnapshot = false;
    /** True between a welcome and the snapshot or events frame that follows it. */
    this.catchingUp = false;
    /** @type {any} */
    this.retryTimer = null;
    /** @type {{version: number, options: Record<string, any>} | null} the seat's legal choices (server's `options`) */
    this.seatOptions = null;
    /** The view version the last `options` request was made at (null: none in flight). */
    this.optionsAskedAt = /** @type {number | null} */ (null);
    /** Spectators watching the room (welcome, then `spectators` messages). */
    this.spectators = 0;
    /** The room's published commitment to its dice secret (64 hex, from the welcome; null before). */
    this.diceCommitment = /** @type {string | null} */ (null);
    /** True when the room's dice come from a number chosen at its creation (a test room). */
    this.fixedDice = false;
  }

  /** Open the connection (and keep it open until close()). */
  connect() {
    this.closedByUser = false;
    this.#open(this.view.version > 0 || this.hasSnapshot ? "reconnecting" : "connecting");
  }

  /** Close for good: no more reconnects. Unanswered queries fail (`connection_closed`). */
  close() {
    this.closedByUser = true;
    if (this.retryTimer !== null) (this.options.clearTimer ?? clearTimeout)(this.retryTimer);
    for (const cancel of [...this.storageTimers]) cancel();
    this.socket?.close(CloseCode.NORMAL);
    this.#setStatus("closed");
    this.#failQueries("the connection was closed");
  }

  /**
   * Open the connection again at once, even after a final close (4010: this seat was opened
   * in another tab, which the server then closes in turn): resumes from the version held.
   */
  reconnect() {
    if (this.retryTimer !== null) (this.options.clearTimer ?? clearTimeout)(this.retryTimer);
    this.retryTimer = null;
    const old = this.socket;
    this.socket = null; // its close is no longer this connection's business
    old?.close(CloseCode.NORMAL);
    this.attempt = 0;
    this.connect();
  }

  /** Drop the socket as a network failure would (the connection then reconnects). */
  dropForTest() {
    this.socket?.close(4000);
  }

  /**
   * Send a game command; resolves with the server's one answer (accepted or rejected; an
   * acceptance usually arrives as the `events` frame that names the command, and resolves
   * once the view holds those events).
   * While disconnected the command waits and is sent again, with the same id, on reconnect;
   * the server answers a repeated id with its first answer, so it is never applied twice.
   * Answered `storage_unavailable` (nothing stored), it is sent again under the same id after
   * a back-off (`storageRetry`), while `waitingForStorage` counts it and a `storage` event
   * says so; the caller gets that answer only once the waits would pass `giveUpMs`.
   * @param {Record<string, any>} body a rules-core command, e.g. {type: "end_turn"}
   * @param {{retryStale?: boolean}} [options] retryStale: issue the command again (up to 3
   *   times) when the room moved on before it arrived (only for commands that stay meaningful)
   * @returns {Promise<Answer>}
   */
  async send(body, { retryStale = false } = {}) {
    for (let attempt = 0; ; attempt += 1) {
      const id = (this.options.newId ?? defaultId)();
      const answer = await this.#deliver({ type: ClientTag.COMMAND, id, version: this.view.version, body });
      // A stale_version rejection arrives after the events that made the room move on, so the
      // view is current again: a command that does not depend on those events (both players
      // picking armies at once) may simply be issued again, with a new id.
      if (answer.ok || answer.code !== ProtocolReason.STALE_VERSION || !retryStale || attempt >= 3) return answer;
    }
  }

  /**
   * Send a command until it has an answer other than `storage_unavailable`, or its waits for
   * storage would pass `giveUpMs`. Always the same message: a write that landed although its
   * answer said otherwise is answered from the store, never applied twice.
   * @param {any} message @returns {Promise<Answer>}
   */
  async #deliver(message) {
    const { giveUpMs = 60000, ...delays } = this.options.storageRetry ?? {};
    let waited = 0;
    for (let attempt = 0; ; attempt += 1) {
      const answer = await this.#sendOnce(message);
      if (answer.ok || answer.code !== ProtocolReason.STORAGE_UNAVAILABLE || this.closedByUser) return answer;
      const delay = backoffDelay(attempt, { initialMs: 250, maxMs: 2000, random: Math.random, ...delays });
      if (waited + delay > giveUpMs) return answer;
      waited += delay;
      if (!(await this.#waitForStorage(delay))) return answer;
    }
  }

  /** Wait `ms` counted in `waitingForStorage`; false when close() ended the wait. @param {number} ms */
  #waitForStorage(ms) {
    this.#storageWaits(+1);
    return new Promise((resolve) => {
      /** @type {any} */
      let handle = null;
      const end = (/** @type {boolean} */ elapsed) => {
        if (!this.storageTimers.delete(cancel)) return; // (ended once already)
        if (!elapsed) (this.options.clearTimer ?? clearTimeout)(handle);
        this.#storageWaits(-1);
        resolve(elapsed);
      };
      const cancel = () => end(false);
      this.storageTimers.add(cancel);
      handle = (this.options.setTimer ?? setTimeout)(() => end(true), ms);
    });
  }

  /** @param {number} change */
  #storageWaits(change) {
    this.waitingForStorage += change;
    this.dispatchEvent(new CustomEvent("storage", { detail: { waiting: this.waitingForStorage } }));
  }

  /** @param {any} message @returns {Promise<Answer>} */
  #sendOnce(message) {
    return new Promise((resolve) => {
      this.pending.set(message.id, { message, resolve });
      if (this.status === "open") this.#write(message);
    });
  }

  /** Ask the server what this seat may do now (answered by an `options` message). */
  requestOptions() {
    if (this.status !== "open" || this.role === null || this.role === "spectator") return;
    this.optionsAskedAt = this.view.version;
    this.#write({ type: ClientTag.OPTIONS });
  }

  /**
   * Every event of this viewer from version 1 up to the version the view holds now, as the
   * server's `history` pages them (its own numbering, each event as it would have arrived
   * live, nothing it may not see). Rejects with a `QueryFailed` (`code`: the server's reason,
   * or `connection_closed`) when a page is refused.
   * @returns {Promise<HistoryEntry[]>}
   */
  async loadHistory() {
    const upTo = this.view.version;
    /** @type {HistoryEntry[]} */
    const entries = [];
    while (entries.length < upTo) {
      const from = entries.length + 1;
      const page = await this.#query({ type: ClientTag.HISTORY, from });
      if (page.type === ServerTag.REJECTED) throw new QueryFailed(page.code, page.message);
      if (page.first !== from || !page.events.length) {
        throw new QueryFailed("history_short", `the server's history ends at version ${page.last}, before ${upTo}`);
      }
      for (const [offset, event] of page.events.entries()) {
        if (from + offset > upTo) break;
        entries.push({ version: from + offset, event });
      }
    }
    return entries;
  }

  /**
   * Ask the server's geometry: the distance from a trooper (its base) or a point to a point,
   * and from a trooper its Line of Fire to a target of `silhouette` standing there, whether
   * that is in its front arc, and its weapons' range MODs. Resolves with the measurement, or
   * with `{error: code, message}` (`unknown_trooper` for any trooper this viewer may not
   * know of, `bad_position` for a point off the table, `connection_closed`, ...).
   * @param {MeasureRequest} request
   * @returns {Promise<Measurement | {error: string, message: string}>}
   */
  async measure({ from, to, silhouette = null }) {
    const message = { type: ClientTag.MEASURE, from, to, ...(silhouette === null || silhouette === undefined ? {} : { silhouette }) };
    let answer;
    try {
      answer = await this.#query(message);
    } catch (error) {
      if (!(error instanceof QueryFailed)) throw error;
      return { error: error.code, message: error.message };
    }
    if (answer.type === ServerTag.REJECTED) return { error: answer.code, message: answer.message };
    const { type: _type, id: _id, ...measurement } = answer;
    return measurement;
  }

  /**
   * Send a query (a fresh id); resolves with the server's answer to that id (its page, its
   * measurement, or a `rejected`). While disconnected it waits, and it is sent again after a
   * reconnect's welcome (queries change nothing: asking twice is harmless).
   * @param {Record<string, any>} body @returns {Promise<any>}
   */
  #query(body) {
    this.queryCount += 1;
    const id = `q-${this.queryCount}`;
    const message = { ...body, id };
    return new Promise((resolve, reject) => {
      this.queries.set(id, { message, settle: (m) => (m instanceof QueryFailed ? reject(m) : resolve(m)) });
      if (this.status === "open") this.#write(message);
    });
  }

  /** @param {any} m the server's answer to a query (or a `rejected` naming its id) */
  #settleQuery(m) {
    const entry = this.queries.get(m.id);
    if (!entry) return;
    this.queries.delete(m.id);
    entry.settle(m);
  }

  /** @param {string} reason */
  #failQueries(reason) {
    const entries = [...this.queries.values()];
    this.queries.clear();
    for (const entry of entries) entry.settle(new QueryFailed("connection_closed", reason));
  }

  /** The seat's legal choices if they are current, else null (a newer version is held). */
  currentOptions() {
    return this.seatOptions && this.seatOptions.version === this.view.version && !this.view.stale ? this.seatOptions.options : null;
  }

  /** @param {ConnectionStatus} status */
  #setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.dispatchEvent(new CustomEvent("status", { detail: status }));
  }

  /** @param {ConnectionStatus} status */
  #open(status) {
    this.#setStatus(status);
    const create = this.options.createSocket ?? ((url) => new WebSocket(url));
    const socket = create(roomSocketUrl(this.options.url, this.options.room));
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      this.#write({ type: ClientTag.HELLO, protocol: PROTOCOL_VERSION, room: this.options.room,
        token: this.options.token ?? null, since: this.hasSnapshot ? this.view.version : null });
    };
    socket.onmessage = (message) => this.#receive(message.data);
    socket.onclose = (event) => this.#closed(socket, event.code, event.reason);
  }

  /** @param {WebSocket} socket @param {number} code @param {string} reason */
  #closed(socket, code, reason) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (this.closedByUser) return this.#setStatus("closed");
    if (FINAL_CLOSE_CODES.has(code)) {
      this.dispatchEvent(new CustomEvent("fatal", { detail: { code, reason } }));
      this.#setStatus("closed");
      return this.#failQueries(`the connection was closed for good (${code})`);
    }
    this.#setStatus("reconnecting");
    const delay = backoffDelay(this.attempt, this.options.backoff);
    this.attempt += 1;
    this.retryTimer = (this.options.setTimer ?? setTimeout)(() => {
      this.retryTimer = null;
      if (!this.closedByUser) this.#open("reconnecting");
    }, delay);
  }

  /** @param {any} message */
  #write(message) {
    this.socket?.send(encodeMessage(message));
  }

  /** @param {ArrayBuffer | Uint8Array | string} data */
  #receive(data) {
    let message;
    try {
      if (typeof data === "string") throw new MalformedMessage("text frame");
      message = decodeMessage(data);
    } catch (error) {
      this.dispatchEvent(new CustomEvent("protocol-error", { detail: error }));
      return;
    }
    const handler = this.#handlers[message.type];
    handler?.(message);
    this.dispatchEvent(new CustomEvent("message", { detail: message }));
  }

  /** @type {Record<string, (m: any) => void>} */
  #handlers = {
    [ServerTag.WELCOME]: (m) => {
      this.role = m.role;
      this.settings = m.settings;
      this.view.seats = { ...m.seats };
      this.spectators = m.spectators ?? 0;
      this.diceCommitment = m.dice_commitment || null;
      this.fixedDice = m.fixed_dice === true;
      this.optionsAskedAt = null;
      this.attempt = 0;
      this.catchingUp = true; // the welcome's own snapshot or events frame comes next
      this.#setStatus("open");
      for (const { message } of this.pending.values()) this.#write(message);
      for (const { message } of this.queries.values()) this.#write(message);
      this.#changed();
    },
    [ServerTag.SNAPSHOT]: (m) => {
      const joining = this.catchingUp;
      this.catchingUp = false;
      this.view.applySnapshot(m);
      if (this.view.window) this.view.window.received_at = Date.now();
      this.hasSnapshot = true;
      // Any other snapshot replaces frames this socket did not get (the server drops a
      // reader that fell too far behind to a snapshot, or it asked for one): an answer may
      // have been among them. Commands are idempotent by id, so the unanswered ones are sent
      // again: the room answers a known id from memory, and decides one it never had. So are
      // the unanswered queries (asking again is harmless).
      if (!joining) for (const { message } of [...this.pending.values(), ...this.queries.values()]) this.#write(message);
      this.#changed();
    },
    [ServerTag.EVENTS]: (m) => {
      this.catchingUp = false;
      this.#applyEvents(m);
      // The frame that carries this seat's accepted command's events is that command's
      // answer (protocol 3): it resolves the command once the view holds the events.
      if (m.accepted) this.#answer({ ok: true, id: m.accepted, version: m.first + m.events.length - 1 });
    },
    [ServerTag.ACCEPTED]: (m) => this.#answer({ ok: true, id: m.id, version: m.version }),
    [ServerTag.REJECTED]: (m) => {
      if (this.queries.has(m.id)) this.#settleQuery(m);
      else this.#answer({ ok: false, id: m.id, code: m.code, message: m.message });
    },
    [ServerTag.HISTORY]: (m) => this.#settleQuery(m),
    [ServerTag.MEASUREMENT]: (m) => this.#settleQuery(m),
    [ServerTag.PRESENCE]: (m) => {
      this.view.seats = { ...this.view.seats, [m.seat]: m.status };
      this.#changed();
    },
    [ServerTag.OPTIONS]: (m) => {
      if (this.optionsAskedAt === m.version) this.optionsAskedAt = null;
      this.seatOptions = { version: m.version, options: m.options };
      this.#changed();
    },
    [ServerTag.SPECTATORS]: (m) => {
      this.spectators = m.count;
      this.#changed();
    },
    [ServerTag.ERROR]: (m) => {
      this.dispatchEvent(new CustomEvent("protocol-error", { detail: m }));
    },
  };

  /** Fold an `events` frame into the view (or ask for what is missing). @param {any} m */
  #applyEvents(m) {
    let fresh;
    try {
      fresh = this.view.applyEvents(m.first, m.events);
    } catch (error) {
      if (!(error instanceof VersionGap)) throw error;
      this.#write({ type: ClientTag.SYNC, since: this.view.version });
      return;
    }
    // The window as it stands after these events; a frame that may be empty (a catch-up
    // with nothing missed, a window closed without an event) still carries it. A frame
    // that ends before the version held is an old resend: its window is old too.
    if (m.first + m.events.length - 1 === this.view.version) {
      this.view.window = m.window ? { ...m.window, received_at: Date.now() } : null;
    }
    if (fresh.length) this.dispatchEvent(new CustomEvent("events", { detail: fresh }));
    if (this.view.stale) this.#write({ type: ClientTag.SYNC, since: null });
    this.#changed();
  }

  /** @param {Answer} answer */
  #answer(answer) {
    const entry = this.pending.get(answer.id);
    if (!entry) return;
    this.pending.delete(answer.id);
    entry.resolve(answer);
    this.dispatchEvent(new CustomEvent("answer", { detail: answer }));
  }

  #changed() {
    const seat = this.role === "A" || this.role === "B";
    if (seat && this.view.state && !this.view.stale && this.seatOptions?.version !== this.view.version
        && this.optionsAskedAt !== this.view.version) this.requestOptions();
    this.dispatchEvent(new CustomEvent("change", { detail: this.view }));
  }
}

/**
 * Milliseconds left in an ARO window, from the server's remaining_ms and when it arrived
 * (robust to a client clock that differs from the server's).
 * @param {import("./view.js").AroWindow | null} window
 * @param {number} [now]
 */
export function windowRemainingMs(window, now = Date.now()) {
  if (!window) return 0;
  const since = now - (window.received_at ?? now);
  return Math.max(0, window.remaining_ms - since);
}
