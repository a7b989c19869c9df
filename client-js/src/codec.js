// The one place where protocol messages become msgpack bytes and back.
import { encode, decode } from "@msgpack/msgpack";
import { ServerTag } from "./protocol-constants.js";

const SERVER_TAGS = new Set(Object.values(ServerTag));

/** A frame that is not a usable server message. */
export class MalformedMessage extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "MalformedMessage";
  }
}

/**
 * Encode a client message (a plain object with a `type` tag) as msgpack bytes.
 * @param {{type: string} & Record<string, unknown>} message
 * @returns {Uint8Array}
 */
export function encodeMessage(message) {
  if (!message || typeof message.type !== "string") {
    throw new MalformedMessage("a message needs a string `type`");
  }
  return encode(message, { ignoreUndefined: true });
}

/**
 * Decode one server frame; throws MalformedMessage when it is not a known server message.
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {{type: string} & Record<string, any>}
 */
export function decodeMessage(bytes) {
  let value;
  try {
    value = decode(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes);
  } catch (error) {
    throw new MalformedMessage(`not msgpack: ${error.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new MalformedMessage("a message must be a map");
  }
  if (!SERVER_TAGS.has(value.type)) {
    throw new MalformedMessage(`unknown message type ${JSON.stringify(value.type)}`);
  }
  return /** @type {any} */ (value);
}
