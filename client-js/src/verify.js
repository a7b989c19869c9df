// Checking a finished game's dice against the commitment the server published before the
// first roll (the game record of GET /api/rooms/{room}/record), with WebCrypto only.
//
// How the server makes every die (server/rules/combat/dice.py):
//   commitment = SHA-256("infinity-referee/dice-commitment/v1" 0x00 || secret)
//   key        = HMAC-SHA256(secret, "infinity-referee/dice-key/v1" 0x00 || contribution_A || contribution_B)
//   die n      = for attempt = 0, 1, ...: block = HMAC-SHA256(key, "d20" || n (8 octets, big-endian)
//                || attempt (4 octets, big-endian)); value = first 4 octets, big-endian;
//                if value < 4294967280: face = 1 + value % 20
// Each event that rolled carries `dice = {key, cursor, injected, drawn}`: `drawn` are the
// faces it generated, dice number cursor - drawn.length .. cursor - 1.

export const RECORD_FORMAT = "infinity-referee-record/1";
export const DICE_ALGORITHM = "hmac-sha256-d20/v1";
const COMMITMENT_PREFIX = "infinity-referee/dice-commitment/v1\x00";
const KEY_PREFIX = "infinity-referee/dice-key/v1\x00";
const ACCEPT_BELOW = 4294967280; // 2^32 - 2^32 % 20: no modulo bias
const HEX32 = /^[0-9a-f]{64}$/;
const SIDES = ["A", "B"];

/** @param {string} text */
const ascii = (text) => new TextEncoder().encode(text);

/** @param {string} hex lowercase hexadecimal @returns {Uint8Array} */
export function hexBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 || !/^[0-9a-f]*$/.test(hex)) throw new TypeError(`not lowercase hexadecimal: ${String(hex).slice(0, 20)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** @param {ArrayBuffer | Uint8Array} bytes */
export function bytesHex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {...Uint8Array} parts */
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** @param {Uint8Array} key */
function hmacKey(key) {
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The public commitment to a secret (hex). @param {string} secret hex */
export async function diceCommitment(secret) {
  return bytesHex(await crypto.subtle.digest("SHA-256", concat(ascii(COMMITMENT_PREFIX), hexBytes(secret))));
}

/** The dice key from the secret and both contributions (hex). @param {string} secret @param {string} a @param {string} b */
export async function diceKey(secret, a, b) {
  const key = await hmacKey(hexBytes(secret));
  return bytesHex(await crypto.subtle.sign("HMAC", key, concat(ascii(KEY_PREFIX), hexBytes(a), hexBytes(b))));
}

/** Die number n of the game (1..20) for a key made by `dieKey`. @param {CryptoKey} key @param {number} n */
export async function dieFace(key, n) {
  // "d20" || n (8 octets) || attempt (4 octets), all big-endian
  const message = new Uint8Array(15);
  message.set(ascii("d20"));
  const fields = new DataView(message.buffer);
  fields.setBigUint64(3, BigInt(n));
  for (let attempt = 0; ; attempt += 1) {
    fields.setUint32(11, attempt);
    const block = new DataView(await crypto.subtle.sign("HMAC", key, message));
    const value = block.getUint32(0);
    if (value < ACCEPT_BELOW) return 1 + (value % 20);
  }
}

/** The HMAC key dice are drawn with, from the dice key (hex). @param {string} keyHex */
export function dieKey(keyHex) {
  return hmacKey(hexBytes(keyHex));
}

/**
 * The faces an event showed the players, or null for a kind whose faces this cannot tell:
 * the initiative's attempts (A's face, B's face, in order), an Order's rolls and saves.
 * @param {any} event @returns {number[] | null}
 */
function shownFaces(event) {
  const face = (/** @type {any} */ d) => (d && typeof d === "object" ? d.face : d);
  if (event.type === "initiative_rolled") return Array.isArray(event.attempts) ? event.attempts.flat() : [];
  const outcome = event.outcome;
  if (!outcome || typeof outcome !== "object") return null;
  return [...(outcome.rolls ?? []).flatMap((r) => (r.dice ?? []).map(face)),
    ...(outcome.saves ?? []).flatMap((sv) => (sv.rolls ?? []).map(face))];
}

/** Same faces: in order for the initiative, as a multiset for an Order. @param {number[]} a @param {number[]} b @param {boolean} ordered */
function sameFaces(a, b, ordered) {
  if (a.length !== b.length) return false;
  const [x, y] = ordered ? [a, b] : [[...a].sort((p, q) => p - q), [...b].sort((p, q) => p - q)];
  return x.every((v, i) => v === y[i]);
}

/**
 * @typedef {{ok: true, dice: number, events: number, commitment: string, key: string,
 *   checked: string[]}} Verified
 * @typedef {{ok: false, problem: string, die?: number, event?: number, field?: string}} NotVerified
 * @typedef {object} VerifyOptions
 * @property {string} [commitmentSeen] the commitment this viewer was shown in the room's welcome
 * @property {string} [seat] "A"/"B": the seat of this viewer, with...
 * @property {string} [contribution] ...the entropy it sent with its army choice
 */

/**
 * Check every die of a game record against the committed secret and both contributions.
 * Resolves with the number of dice checked, or with the first problem found in words.
 * @param {any} record the JSON of GET /api/rooms/{room}/record
 * @param {VerifyOptions} [options]
 * @returns {Promise<Verified | NotVerified>}
 */
export async function verifyRecord(record, options = {}) {
  /** @param {string} problem @param {Partial<NotVerified>} [where] @returns {NotVerified} */
  const fail = (problem, where = {}) => ({ ok: false, problem, ...where });
  if (!record || typeof record !== "object") return fail("The record is not a JSON object.");
  if (record.format !== RECORD_FORMAT) return fail(`The record's format is ${JSON.stringify(record.format)}, not ${RECORD_FORMAT}.`, { field: "format" });
  const dice = record.dice;
  if (!dice || typeof dice !== "object") return fail("The record has no dice section.", { field: "dice" });
  if (dice.algorithm !== DICE_ALGORITHM) return fail(`The dice algorithm is ${JSON.stringify(dice.algorithm)}; this client checks ${DICE_ALGORITHM} only.`, { field: "dice.algorithm" });
  if (!HEX32.test(dice.secret ?? "")) return fail("The revealed secret (dice.secret) is not 32 bytes of lowercase hexadecimal.", { field: "dice.secret" });
  if (!HEX32.test(dice.commitment ?? "")) return fail("The commitment (dice.commitment) is not 64 hexadecimal characters.", { field: "dice.commitment" });
  const contributions = dice.contributions ?? {};
  /** Sides that never contributed: a game conceded before both armies were chosen. */
  const missing = SIDES.filter((side) => !contributions[side]);
  for (const side of SIDES) {
    if (!missing.includes(side) && !HEX32.test(contributions[side])) {
      return fail(`Player ${side}'s contribution (dice.contributions.${side}) is not 32 bytes of lowercase hexadecimal.`, { field: `dice.contributions.${side}` });
    }
  }
  const events = Array.isArray(record.events) ? record.events : [];
  if (!events.length || events.at(-1)?.event?.type !== "game_ended") return fail("The record's last event is not game_ended: the game is not over.", { field: "events" });
  /** @type {string[]} */
  const checked = [];

  const commitment = await diceCommitment(dice.secret);
  if (commitment !== dice.commitment) {
    return fail(`The revealed secret does not match the commitment: SHA-256 of the secret gives ${commitment.slice(0, 16)}…, the record says ${dice.commitment.slice(0, 16)}….`, { field: "dice.commitment" });
  }
  checked.push("the revealed secret matches the commitment");
  if (options.commitmentSeen) {
    if (options.commitmentSeen !== dice.commitment) {
      return fail(`The record's commitment ${dice.commitment.slice(0, 16)}… is not the one this browser was shown when it joined the room (${options.commitmentSeen.slice(0, 16)}…).`, { field: "dice.commitment" });
    }
    checked.push("the commitment is the one shown to you when you joined");
  }
  if (options.seat && options.contribution) {
    if (contributions[options.seat] !== options.contribution) {
      return fail(`Your contribution to the dice (player ${options.seat}, sent with your army choice) is not the one in the record (dice.contributions.${options.seat}).`, { field: `dice.contributions.${options.seat}` });
    }
    checked.push("your own contribution to the dice is the one in the record");
  }

  // The game_ended event reveals the same values as the record's dice section.
  const revealed = events.at(-1).event.dice_revealed ?? {};
  for (const [field, got, want] of [["secret", revealed.secret, dice.secret], ["commitment", revealed.commitment, dice.commitment],
    ["contributions.A", revealed.contributions?.A, contributions.A], ["contributions.B", revealed.contributions?.B, contributions.B]]) {
    if (got !== want) return fail(`The game_ended event reveals another ${field} than the record's dice section.`, { field: `dice_revealed.${field}` });
  }
  // Each contribution is the entropy its player sent with its army choice.
  for (const entry of events) {
    const event = entry?.event;
    if (event?.type === "army_chosen" && SIDES.includes(event.side) && event.entropy !== contributions[event.side]) {
      return fail(`Player ${event.side}'s contribution (dice.contributions.${event.side}) is not the entropy its army choice carried (event ${entry.index}).`, { event: entry.index, field: `dice.contributions.${event.side}` });
    }
  }

  const rolledAt = events.find((entry) => entry?.event?.dice);
  if (missing.length) {
    if (rolledAt) {
      return fail(`Player ${missing[0]} never contributed to the dice (dice.contributions.${missing[0]} is empty), yet event ${rolledAt.index} (${rolledAt.event.type}) rolled dice.`, { event: rolledAt.index, field: `dice.contributions.${missing[0]}` });
    }
    checked.push(`no die was rolled: the game ended before player ${missing.join(" and ")} contributed`);
    return { ok: true, dice: 0, events: 0, commitment: dice.commitment, key: "", checked };
  }

  const key = await diceKey(dice.secret, contributions.A, contributions.B);
  const hmac = await dieKey(key);
  let counter = 0;
  let rolling = 0;
  let tied = 0;
  for (const entry of events) {
    const event = entry?.event;
    const roll = event?.dice;
    if (!roll) continue;
    const where = `event ${entry.index} (${event.type})`;
    const Where = `Event ${entry.index} (${event.type})`;
    const drawn = roll.drawn ?? [];
    if (!Array.isArray(drawn) || !Number.isInteger(roll.cursor)) return fail(`The dice of ${where} have no cursor or drawn faces.`, { event: entry.index, field: "dice" });
    if (roll.key !== key) {
      return fail(`The dice key of ${where} is not the one the secret and both contributions give.`, { event: entry.index, field: "dice.key" });
    }
    if ((roll.injected ?? []).length) {
      return fail(`${Where} has faces set by hand (dice.injected): a live game never injects faces.`, { event: entry.index, field: "dice.injected" });
    }
    const start = roll.cursor - drawn.length;
    if (start !== counter) {
      return fail(start > counter
        ? `${Where} starts at die ${start}, but only ${counter} dice came before it: dice ${counter} to ${start - 1} are missing from the record.`
        : `${Where} starts at die ${start}, but ${counter} dice came before it: dice ${start} to ${counter - 1} would be used twice.`,
      { event: entry.index, die: Math.min(start, counter), field: "dice.cursor" });
    }
    for (let i = 0; i < drawn.length; i += 1) {
      const n = counter + i;
      const face = await dieFace(hmac, n);
      if (drawn[i] !== face) {
        return fail(`Die ${n} (event ${entry.index}, ${event.type}) does not match: the record says ${drawn[i]}, the committed dice give ${face}.`, { die: n, event: entry.index, field: "dice.drawn" });
      }
    }
    const shown = shownFaces(event);
    if (shown && !sameFaces(shown, drawn, event.type === "initiative_rolled")) {
      return fail(`${Where} shows the faces ${shown.join(", ")}, but it drew ${drawn.join(", ") || "none"}.`, { event: entry.index, field: event.type === "initiative_rolled" ? "attempts" : "outcome" });
    }
    if (shown) tied += 1;
    if (drawn.length) rolling += 1;
    counter = roll.cursor;
  }
  checked.push(`all ${counter} dice follow from the secret and both contributions, in order`);
  if (tied) checked.push("the faces each roll showed during the game are the dice it drew");
  return { ok: true, dice: counter, events: rolling, commitment: dice.commitment, key, checked };
}
