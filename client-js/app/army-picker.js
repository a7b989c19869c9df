// The army picker (#army-picker, #army-list): the armies the server offers this seat in army
// selection, each with its roster, and the choice sent with a fresh contribution to the dice
// (dice-panel.js draws and keeps it). It owns the catalogue it fetched and which offer it shows.
// Beside the shipped lists (#army-bring), when `options.bring_army` offers them: a pasted army
// code and a list file (army-import.js reads the file and builds the command); a refusal is
// said next to the field it came from.
import { el } from "./dom.js";
import { NO_ARMY_DATA_NOTE, armyCodeInput, bringOffer, chooseArmyCommand, readListFile } from "./army-import.js";
import { refusalWords } from "./refusals.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/**
 * @param {{conn: import("./lib/connection.js").GameConnection, send: (body: any, options?: any) => Promise<any>,
 *   contribute: (seat: string) => {entropy: string, forget: () => void}}} parts
 */
export function createArmyPicker({ conn, send, contribute }) {
  let armiesShown = null;
  let catalogue = { ruleset: "", armies: /** @type {any[] | null} */ (null) };
  let choosingArmy = false;

  /** The armies the server offers this seat (`options.choose_army`: at a tournament table only
   * the player's registered army), each with its roster from /api/armies. Nothing until the
   * options are here, so the table never shows a list it would refuse. */
  async function renderArmyPicker(ruleset, options) {
    // No current options (a new version's are on their way, e.g. the opponent just chose):
    // what is shown stays, rather than the lists vanishing under the player's pointer.
    if (!options) return;
    renderBring(options);
    const offered = Array.isArray(options?.choose_army) ? options.choose_army : null;
    const key = offered && `${ruleset}:${offered.join(",")}`;
    if (armiesShown === key) return;
    armiesShown = key;
    if (!offered) { $("army-list").replaceChildren(); return; }
    if (catalogue.ruleset !== ruleset || !catalogue.armies) {
      const { armies } = await (await fetch(`/api/armies?ruleset=${encodeURIComponent(ruleset)}`)).json();
      catalogue = { ruleset, armies };
    }
    if (armiesShown !== key) return; // newer options came while the catalogue loaded
    const armies = (catalogue.armies ?? []).filter((a) => offered.includes(a.id));
    // A list the seat registered for a tournament as a document is no shipped list: offered by its id.
    const registered = offered.filter((id) => !armies.some((a) => a.id === id));
    $("army-list").replaceChildren(...armies.map((a) => el("div", { class: "army" },
      button(`${a.name} (${a.faction}, ${a.points} pts)`, () => chooseArmy(a.id), { "data-army": a.id }),
      el("div", { class: "roster" }, a.roster.map((r) => r.unit).join(", ")))),
    ...registered.map((id) => el("div", { class: "army" },
      button(`Your registered list (${id})`, () => chooseArmy(id), { "data-army": id }),
      el("div", { class: "roster" }, "The list you registered for this tournament; its roster shows once chosen."))));
  }

  /** Pick an army with a fresh contribution to the dice (drawn here, for this choice only, kept
   * in this tab so that the dice check at the end can find it in the game record).
   * @param {{army: string} | {list: Record<string, any>} | {code: string}} what
   * @returns {Promise<any>} the server's answer (null when a choice is already on its way) */
  async function choose(what) {
    if (choosingArmy) return null;
    choosingArmy = true;
    const { entropy, forget } = contribute(/** @type {string} */ (conn.role));
    try {
      const answer = await send(chooseArmyCommand(what, entropy), { retryStale: true });
      if (!answer.ok) forget();
      return answer;
    } finally {
      choosingArmy = false;
    }
  }
  const chooseArmy = (/** @type {string} */ army) => choose({ army });

  /** The code field and the file input, as `options.bring_army` offers them (the code field
   * shown disabled, with why, when the server has no army data to read codes with). */
  function renderBring(options) {
    const offer = bringOffer(options);
    $("army-bring").hidden = !offer;
    if (!offer) return;
    $("bring-file").hidden = !offer.list;
    const code = /** @type {HTMLTextAreaElement} */ ($("army-code"));
    code.disabled = !offer.code;
    /** @type {HTMLButtonElement} */ ($("army-code-send")).disabled = !offer.code;
    $("army-code-note").hidden = offer.code;
    $("army-code-note").textContent = offer.code ? "" : NO_ARMY_DATA_NOTE;
    $("bring-code").classList.toggle("unavailable", !offer.code);
  }

  /** A refusal (or the app's own check) next to its field. */
  const say = (/** @type {string} */ id, /** @type {string} */ text) => { $(id).textContent = text; };
  const refusal = (/** @type {any} */ answer) => refusalWords({ error: answer.code, message: answer.message }, 0);

  async function sendCode() {
    say("army-code-error", "");
    const input = armyCodeInput(/** @type {HTMLTextAreaElement} */ ($("army-code")).value);
    if ("error" in input) { say("army-code-error", input.error); return; }
    const button = /** @type {HTMLButtonElement} */ ($("army-code-send"));
    button.disabled = true;
    try {
      const answer = await choose(input);
      if (answer && !answer.ok) say("army-code-error", refusal(answer));
    } finally {
      button.disabled = bringOffer(conn.currentOptions())?.code === false;
    }
  }

  async function sendFile() {
    say("army-file-error", "");
    const input = /** @type {HTMLInputElement} */ ($("army-file"));
    const file = input.files?.[0];
    if (!file) return;
    const read = await readListFile(file);
    // The same file may be picked again once it is fixed: forget this pick.
    input.value = "";
    if ("error" in read) { say("army-file-error", read.error); return; }
    const answer = await choose({ list: read.list });
    if (answer && !answer.ok) say("army-file-error", `${file.name}: ${refusal(answer)}`);
  }

  $("army-code-send").addEventListener("click", sendCode);
  $("army-file").addEventListener("change", sendFile);

  return { render: renderArmyPicker };
}
