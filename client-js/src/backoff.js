// Reconnect delays: exponential back-off with a cap and optional jitter.

/**
 * @typedef {object} BackoffOptions
 * @property {number} [initialMs] first delay (default 250)
 * @property {number} [maxMs] cap (default 8000)
 * @property {number} [factor] growth per attempt (default 2)
 * @property {() => number} [random] 0..1 source for jitter (default: none, deterministic)
 */

/**
 * The delay before reconnect attempt `attempt` (0-based): initial * factor^attempt, capped,
 * then scaled into [50%, 100%] by `random` when given so that many clients do not retry in step.
 * @param {number} attempt
 * @param {BackoffOptions} [options]
 * @returns {number}
 */
export function backoffDelay(attempt, options = {}) {
  const { initialMs = 250, maxMs = 8000, factor = 2, random } = options;
  const raw = Math.min(maxMs, initialMs * Math.pow(factor, Math.max(0, attempt)));
  return random ? Math.round(raw * (0.5 + 0.5 * random())) : raw;
}
