// The tournament HTTP API (docs/tournaments.md) as the pages call it: reads, and writes that
// carry an action_id and are sent again with the same one when the answer is lost or the
// server says to retry (it applies an action_id once).
import { newActionId, refusalText, retryable } from "./model.js";

const base = (/** @type {string} */ id) => `/api/tournaments/${encodeURIComponent(id)}`;

/**
 * One request; its JSON answer with the status and its `Retry-After` header (a limit's
 * refusal), or `{status: 0}` when the server was not reached.
 * @returns {Promise<{ok: boolean, status: number, body: any, retryAfter: string|null}>}
 */
export async function call(/** @type {string} */ path, /** @type {any} */ body = undefined, fetcher = globalThis.fetch) {
  try {
    const response = await fetcher(path, body === undefined ? {} : {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    let parsed = null;
    try { parsed = await response.json(); } catch { /* not JSON: said by the status */ }
    return { ok: response.ok, status: response.status, body: parsed, retryAfter: response.headers?.get?.("retry-after") ?? null };
  } catch (error) {
    return { ok: false, status: 0, body: { error: "unreachable", message: `could not reach the server (${error})` }, retryAfter: null };
  }
}

/**
 * A write with a fresh action_id, sent again with the same one (up to `tries` times, waiting
 * `waitMs(attempt)` between) when the server was not reached or answered 503 (not a limit's
 * 503 that says how long to wait): a lost answer never applies the action twice.
 * @param {string} path @param {Record<string, any>} body
 * @param {{tries?: number, waitMs?: (attempt: number) => number, fetcher?: typeof fetch, actionId?: string}} [options]
 */
export async function write(path, body, options = {}) {
  const { tries = 4, waitMs = (n) => 400 * 2 ** n, fetcher = globalThis.fetch, actionId = newActionId() } = options;
  let answer = { ok: false, status: 0, body: /** @type {any} */ (null), retryAfter: /** @type {string|null} */ (null) };
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (attempt) await new Promise((resolve) => setTimeout(resolve, waitMs(attempt - 1)));
    answer = await call(path, { ...body, action_id: actionId }, fetcher);
    if (answer.ok || (answer.status !== 0 && !retryable(answer.status, answer.body?.error, answer.body))) break;
  }
  return { ...answer, problem: answer.ok ? null : refusalText(answer.body, answer.status, { retryAfter: answer.retryAfter, nowMs: Date.now() }) };
}

export const api = {
  list: () => call("/api/tournaments"),
  view: (/** @type {string} */ id) => call(base(id)),
  me: (/** @type {string} */ id, /** @type {string} */ token) => call(`${base(id)}/me`, { token }),
  dashboard: (/** @type {string} */ id, /** @type {string} */ organizer) => call(`${base(id)}/dashboard`, { organizer }),
  create: (/** @type {Record<string, any>} */ body) => write("/api/tournaments", body),
  register: (/** @type {string} */ id, /** @type {Record<string, any>} */ body) => write(`${base(id)}/players`, body),
  action: (/** @type {string} */ id, /** @type {string} */ organizer, /** @type {string} */ type, /** @type {Record<string, any>} */ fields = {}) =>
    write(`${base(id)}/actions`, { organizer, type, ...fields }),
};

/** The armies a ruleset offers (`GET /api/armies`), or [] when they cannot be read. */
export async function armies(/** @type {string} */ ruleset) {
  const answer = await call(`/api/armies?ruleset=${encodeURIComponent(ruleset)}`);
  return answer.ok ? answer.body?.armies ?? [] : [];
}

/** The table layouts of a ruleset (`GET /api/tables`), or null when the server has none. */
export async function layouts(/** @type {string} */ ruleset) {
  const answer = await call(`/api/tables?ruleset=${encodeURIComponent(ruleset)}`);
  if (!answer.ok) return null;
  const list = Array.isArray(answer.body) ? answer.body : answer.body?.tables ?? answer.body?.layouts;
  return Array.isArray(list) ? list : null;
}

/** The missions of a ruleset (`GET /api/missions`), or null when the server has none. */
export async function missions(/** @type {string} */ ruleset) {
  const answer = await call(`/api/missions?ruleset=${encodeURIComponent(ruleset)}`);
  if (!answer.ok) return null;
  const list = Array.isArray(answer.body) ? answer.body : answer.body?.missions;
  return Array.isArray(list) && list.length ? list : null;
}
