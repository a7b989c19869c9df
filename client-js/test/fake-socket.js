// A WebSocket stand-in for unit tests: records what the client sends, lets the test play
// the server by delivering msgpack frames.
import { encode, decode } from "@msgpack/msgpack";

export class FakeSocket {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    /** @type {any[]} decoded client messages, except `options` requests (counted below) */
    this.sent = [];
    /** `options` requests the client made (it asks on its own after every change). */
    this.optionsRequests = 0;
    this.closed = false;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
  }
  /** @param {Uint8Array} bytes */
  send(bytes) {
    const message = /** @type {any} */ (decode(bytes));
    if (message.type === "options") this.optionsRequests += 1;
    else this.sent.push(message);
  }
  close(code = 1000) {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.({ code, reason: "" });
  }
  open() {
    this.onopen?.();
  }
  /** @param {any} message */
  deliver(message) {
    const bytes = encode(message);
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  }
}

/** A socket factory that keeps every socket it made, plus a manual timer queue. */
export function harness() {
  /** @type {FakeSocket[]} */
  const sockets = [];
  /** @type {{fn: () => void, ms: number}[]} */
  const timers = [];
  return {
    sockets,
    timers,
    createSocket: (/** @type {string} */ url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return /** @type {any} */ (socket);
    },
    setTimer: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      timers.push({ fn, ms });
      return timers.length;
    },
    clearTimer: () => {},
    last: () => sockets[sockets.length - 1],
  };
}
