// The client library's public surface.
export { GameConnection, websocketUrl, windowRemainingMs } from "./connection.js";
export { LocalView, VersionGap, FOLDED_EVENT_TYPES } from "./view.js";
export { encodeMessage, decodeMessage, MalformedMessage } from "./codec.js";
export { backoffDelay } from "./backoff.js";
export { verifyRecord, diceCommitment, diceKey, dieKey, dieFace, RECORD_FORMAT, DICE_ALGORITHM } from "./verify.js";
export { routeLength, baseDiameter, firstMov, orderMov } from "./geometry.js";
export * from "./protocol-constants.js";
