// The dice panel: the room's dice commitment in the status bar (short, full on hover, a copy
// button; a warning when it changed since this tab first saw it, and the banner of a test
// room whose dice were fixed at creation), this seat's own contribution to the dice (drawn
// fresh when it picks its army, kept in this tab), and at the end the game record's link and
// "Verify the dice": every die checked in this browser against the commitment published before
// the first roll (lib/verify.js). It owns the elements #dice, #fixed-dice-banner, #dice-check.
import { verifyRecord } from "./lib/verify.js";
import { el } from "./dom.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Check every die of a game record against its commitment (lib/verify.js) and say the outcome
 * in `out`: the live app's "Verify the dice", and the replay viewer's (replay.js) for a
 * finished room's record or a record file loaded into it.
 * @param {HTMLElement} out
 * @param {any} record a game record (infinity-referee-record/1)
 * @param {{commitmentSeen?: string, seat?: string, contribution?: string}} [seen] what this browser saw
 *   live (the commitment, its seat and the contribution it kept), when it did
 */
export async function showDiceCheck(out, record, seen = {}) {
  out.className = "";
  out.replaceChildren("Checking every die...");
  const { seat, contribution } = seen;
  const result = await verifyRecord(record, seen);
  if (!result.ok) {
    out.className = "bad";
    out.replaceChildren(el("b", {}, "The dice do not check out. "), result.problem);
    return;
  }
  out.className = "good";
  const headline = result.dice
    ? `All ${result.dice} dice of this game match the commitment published before the first roll.`
    : "No die was generated in this game; the revealed secret matches the commitment published before it.";
  const checked = [...result.checked];
  if (seat && !contribution) checked.push("(this browser did not keep your contribution, so it could not check that one)");
  out.replaceChildren(el("b", { id: "verify-headline" }, headline),
    el("ul", {}, ...checked.map((c) => el("li", {}, c))),
    record.fixed_dice ? el("div", { class: "warning-text" }, "This was a test room: whoever created it chose the number the secret comes from, so they could know every die in advance.") : "");
}

/** 32 fresh random bytes as 64 lowercase hex: this player's own contribution to the dice. */
function freshEntropy() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {{conn: import("./lib/connection.js").GameConnection, kept: ReturnType<typeof import("./room-memory.js").roomMemory>, room: string|null}} parts
 *   `kept`: this tab's memory of the room (room-memory.js)
 */
export function createDicePanel({ conn, kept, room }) {
  /** the whole commitment is shown (no clipboard to copy it to) */
  let fullCommitment = false;
  const isSeat = () => conn.role === "A" || conn.role === "B";
  const recordUrl = () => `/api/rooms/${encodeURIComponent(room ?? "")}/record`;

  /** The room's dice commitment in the status bar (short, full on hover, copy button) and the
   * warning of a test room whose dice were fixed at creation. */
  function renderDice() {
    const commitment = conn.diceCommitment;
    $("dice").hidden = !commitment;
    if (commitment) {
      const first = kept.get("commitment");
      if (!first) kept.set("commitment", commitment);
      const code = $("dice-commitment");
      code.textContent = fullCommitment ? commitment : `${commitment.slice(0, 16)}…`;
      code.title = `SHA-256 commitment to this room's dice secret, published before the first roll: ${commitment}`;
      $("commitment-changed").hidden = !first || first === commitment;
    }
    $("fixed-dice-banner").hidden = !conn.fixedDice;
  }

  $("copy-commitment").addEventListener("click", async () => {
    const commitment = conn.diceCommitment ?? "";
    try {
      await navigator.clipboard.writeText(commitment);
      $("copy-commitment").textContent = "copied";
    } catch {
      // No clipboard (an insecure page, or refused): select the full value for a manual copy.
      fullCommitment = true;
      renderDice();
      getSelection()?.selectAllChildren($("dice-commitment"));
    }
  });

  /**
   * Why the record is not published yet. A game this page shows as over may still be ahead of
   * the room's delayed spectators: the server publishes its record once the end is that old.
   */
  function notOverText() {
    const delay = Number(conn.settings?.spectator_delay_s ?? 0);
    if (conn.view.state?.phase === "game_over" && delay > 0) {
      return `The record is published once the spectators, ${delay} s behind the game, have seen its end: try again in a moment.`;
    }
    return "The record is published once the game is over.";
  }

  /** Fetch the game record and check every die against the commitment; say the outcome in words. */
  async function verifyDice() {
    const out = $("verify-result");
    out.className = "";
    out.replaceChildren("Fetching the game record...");
    if (!globalThis.crypto?.subtle) {
      out.className = "bad";
      out.replaceChildren("This browser offers the cryptography needed only on a secure page (https, or localhost). Download the game record and check it elsewhere (server/verify.py).");
      return;
    }
    let record;
    try {
      const response = await fetch(recordUrl());
      record = await response.json();
      if (!response.ok) {
        out.className = "bad";
        out.replaceChildren(record.error === "game_not_over" ? notOverText() : `The server refused the record: ${record.error}: ${record.message ?? ""}`);
        return;
      }
    } catch (error) {
      out.className = "bad";
      out.replaceChildren(`Could not fetch the game record: ${error}`);
      return;
    }
    const seat = isSeat() ? /** @type {string} */ (conn.role) : undefined;
    await showDiceCheck(out, record, { commitmentSeen: kept.get("commitment") ?? conn.diceCommitment ?? undefined,
      seat, contribution: seat ? kept.get(`${seat}:entropy`) ?? undefined : undefined });
  }
  $("verify-dice").addEventListener("click", verifyDice);

  /** The game over: the dice check and the game record's download link show. */
  function renderEnd(/** @type {any} */ state) {
    $("dice-check").hidden = state.phase !== "game_over";
    /** @type {HTMLAnchorElement} */ ($("download-record")).href = recordUrl();
    $("download-record").setAttribute("download", `infinity-game-${room}.json`);
  }

  /** Draw a fresh contribution to the dice for `seat`'s army choice and keep it in this tab (the
   * dice check at the end finds it in the game record); `forget` drops it when the choice is refused. */
  function contribute(/** @type {string} */ seat) {
    const name = `${seat}:entropy`;
    const entropy = freshEntropy();
    kept.set(name, entropy);
    return { entropy, forget: () => { if (kept.get(name) === entropy) kept.remove(name); } };
  }

  return { render: renderDice, renderEnd, contribute };
}
