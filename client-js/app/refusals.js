// The server's refusals of the limits it keeps (docs/server.md "Limits", docs/tournaments.md
// "Registration limits" and "Rounds and the room limits") in words a player or an organizer
// understands: what happened, the server's own detail (it names the round's size and the
// limit), and how long to wait (`retry_after_s`, or the `Retry-After` header). Pure: the
// lobby and the tournament pages draw what it says; test/refusals.test.js checks it.

/** What each limit's refusal means, said first (the server's message says the detail). */
const HEADLINES = /** @type {Record<string, string>} */ ({
  too_many_registrations: "Too many registrations came from your network in a short time.",
  registrations_per_address: "Your network already holds as many places in this tournament as one address may.",
  tournament_full: "The tournament is full: every place is taken.",
  registration_closed: "Registration is closed.",
  too_many_rooms: "Too many rooms were created from your address.",
  lobby_busy: "The server is busy creating rooms.",
  too_many_tournaments: "Too many tournaments were created from your address.",
});

/** Whole seconds in words: "45 s", "2 min 5 s", "1 h 15 min". */
export function waitText(/** @type {number} */ seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const m = Math.round((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ""}`;
}

/**
 * How long a refusal says to wait, in whole seconds, or null: the body's `retry_after_s`,
 * else the `Retry-After` header's seconds.
 * @param {any} body @param {string|null} [header]
 */
export function retryAfterS(body, header = null) {
  const given = body?.retry_after_s;
  if (typeof given === "number" && Number.isFinite(given) && given >= 0) return Math.ceil(given);
  if (header && /^\s*\d+\s*$/.test(header)) return Number(header);
  return null;
}

const sentence = (/** @type {string} */ text) => {
  const t = text.trim();
  return t ? `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}` : "";
};
/** "at 14:05:09" for Unix ms. */
const clockAt = (/** @type {number} */ ms) => new Date(ms).toLocaleTimeString();

/**
 * A refusal in words. A limit's refusal: its headline, the server's message (its "try again
 * in N s" said as minutes when long), and the wait with the time it ends ("Try again in
 * 2 min 5 s (at 14:07:14).") when the message does not say it; other refusals: the server's
 * message with its code (or the code alone, or the HTTP status).
 * @param {any} body the refusal's JSON (`{error, message, retry_after_s?}`), or null
 * @param {number} status the HTTP status (0: the server was not reached)
 * @param {{retryAfter?: string|null, nowMs?: number}} [more]
 */
export function refusalWords(body, status, more = {}) {
  const code = body?.error ?? (status ? `HTTP ${status}` : "unreachable");
  const wait = retryAfterS(body, more.retryAfter ?? null);
  const headline = HEADLINES[code];
  if (!headline) {
    const base = body?.message ? `${body.message} (${code})` : code;
    return wait === null ? base : `${base}; try again in ${waitText(wait)}`;
  }
  const detail = String(body?.message ?? "").replace(/try again in (\d+) s\b/, (_, n) => `try again in ${waitText(Number(n))}`);
  const parts = [headline, sentence(detail)];
  if (wait !== null && !/try again in \d/.test(detail)) {
    parts.push(`Try again in ${waitText(wait)}${more.nowMs === undefined ? "" : ` (at ${clockAt(more.nowMs + wait * 1000)})`}.`);
  } else if (wait !== null && more.nowMs !== undefined) {
    parts.push(`(That is at ${clockAt(more.nowMs + wait * 1000)}.)`);
  }
  return parts.filter(Boolean).join(" ");
}

/** Whether a refusal is a limit's that a wait lifts (sending it again at once only counts again). */
export const waitRefusal = (/** @type {any} */ body) => retryAfterS(body) !== null;
