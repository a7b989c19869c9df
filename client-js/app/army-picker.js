// The army picker (#army-picker, #army-list): the armies the server offers this seat in army
// selection, each with its roster, and the choice sent with a fresh contribution to the dice
// (dice-panel.js draws and keeps it). It owns the catalogue it fetched and which offer it shows.
import { el } from "./dom.js";

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
    $("army-list").replaceChildren(...armies.map((a) => el("div", { class: "army" },
      button(`${a.name} (${a.faction}, ${a.points} pts)`, () => chooseArmy(a.id), { "data-army": a.id }),
      el("div", { class: "roster" }, a.roster.map((r) => r.unit).join(", ")))));
  }

  /** Pick an army with a fresh contribution to the dice (drawn here, for this choice only, kept
   * in this tab so that the dice check at the end can find it in the game record). */
  async function chooseArmy(army) {
    if (choosingArmy) return;
    choosingArmy = true;
    const { entropy, forget } = contribute(/** @type {string} */ (conn.role));
    try {
      const answer = await send({ type: "choose_army", army, entropy }, { retryStale: true });
      if (!answer.ok) forget();
    } finally {
      choosingArmy = false;
    }
  }

  return { render: renderArmyPicker };
}
