// The credentials this browser keeps for the node's room reserve (docs/server.md "Limits",
// server/lobby/reserve.py): when the server's own room budget is spent, a room creation that
// carries proof its sender is known -- a seat or organizer token of a room a seat has played
// in, or the organizer token of a tournament that has started a round -- may still get a
// room. The game page keeps a seat's token once its room has been played in, the lobby a
// room's organizer token when it creates the room, the tournament dashboard its organizer
// token once a round has started; the lobby sends the best one with each creation.
//
// Kept in localStorage (it must outlive the tab: the reserve is for a player who comes back),
// at most MAX_KEPT, newest first, each for KEEP_MS. These tokens are already in the links
// this browser opened (its history holds them); the store adds none the browser did not have.

export const STORAGE_KEY = "referee:credentials";
export const MAX_KEPT = 8;
/** A room is kept by the server for a while after its game; a month-old token is dropped. */
export const KEEP_MS = 30 * 24 * 3600 * 1000;

/**
 * @typedef {{room: string, token: string, played: boolean, seen_ms: number}
 *   | {tournament: string, organizer: string, played: boolean, seen_ms: number}} Kept
 */

/** The storage the app uses (null in private modes that refuse it). */
const defaultStorage = () => { try { return globalThis.localStorage ?? null; } catch { return null; } };

/** What is kept, newest first; anything unreadable is nothing. @returns {Kept[]} */
export function keptCredentials(storage = defaultStorage(), nowMs = Date.now()) {
  let list;
  try { list = JSON.parse(storage?.getItem(STORAGE_KEY) ?? "[]"); } catch { return []; }
  if (!Array.isArray(list)) return [];
  return list.filter((c) => c && typeof c === "object" && typeof c.seen_ms === "number" && nowMs - c.seen_ms < KEEP_MS
    && ((typeof c.room === "string" && typeof c.token === "string") || (typeof c.tournament === "string" && typeof c.organizer === "string")));
}

const sameKey = (/** @type {any} */ a, /** @type {any} */ b) => (a.room !== undefined ? a.room === b.room && a.token === b.token
  : a.tournament === b.tournament && a.organizer === b.organizer);

/**
 * Keep a credential: `{room, token}` (a seat's or the room's organizer token) or
 * `{tournament, organizer}`. `played`: whether it is known to be one the server takes now (a
 * seat has played in the room; the tournament has started a round). Once known played, a
 * credential stays so.
 * @param {{room: string, token: string} | {tournament: string, organizer: string}} credential
 * @param {{played: boolean, storage?: any, nowMs?: number}} options
 */
export function keepCredential(credential, { played, storage = defaultStorage(), nowMs = Date.now() }) {
  if (!storage) return;
  const list = keptCredentials(storage, nowMs);
  const before = list.find((c) => sameKey(c, credential));
  const entry = /** @type {Kept} */ ({ ...credential, played: played || Boolean(before?.played), seen_ms: nowMs });
  const next = [entry, ...list.filter((c) => !sameKey(c, credential))].slice(0, MAX_KEPT);
  try { storage.setItem(STORAGE_KEY, JSON.stringify(next)); } catch { /* full or refused: nothing kept */ }
}

/**
 * The credential a room creation sends (`POST /api/rooms` `credential`), or null: the newest
 * known to have been played, else the newest kept (a room's organizer token: its game may
 * have begun since). The server checks it only when its own limits refuse the creation.
 * @returns {{room: string, token: string} | {tournament: string, organizer: string} | null}
 */
export function credentialToSend(storage = defaultStorage(), nowMs = Date.now()) {
  const list = keptCredentials(storage, nowMs);
  const best = list.find((c) => c.played) ?? list[0];
  if (!best) return null;
  return "room" in best ? { room: best.room, token: best.token } : { tournament: best.tournament, organizer: best.organizer };
}
