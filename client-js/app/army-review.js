// The lists once chosen, in army selection (setup-panel.js draws these): one's own list in
// full (the imported roster: Combat Groups, profiles, costs, SWC, weapons, the Lieutenant,
// what the referee does not play), and, when both lists are chosen and either carries items
// the referee does not play, the review both players accept before the game starts
// (`options.accept_armies`, the `armies_accepted` events). The words come from army-import.js.
import { el as element } from "./dom.js";
import { weaponName } from "./catalogue.js";
import { notRefereedSummary, ownRoster, reviewStatus } from "./army-import.js";

/** dom.js's `el`, leaving out absent children (null, undefined, false). */
const el = (/** @type {string} */ tag, /** @type {Record<string, any>} */ attrs = {}, /** @type {any[]} */ ...children) =>
  element(tag, attrs, ...children.filter((c) => c !== null && c !== undefined && c !== false));

/** Whether the player opened or closed their list's panel ("review" / "chosen" -> open): kept across redraws. */
const listOpen = new Map();

const STAT_ORDER = ["MOV", "CC", "BS", "PH", "WIP", "ARM", "BTS", "W", "S"];
const otherSide = (/** @type {string} */ side) => (side === "A" ? "B" : "A");

/**
 * One's own list: a table per Combat Group with each trooper's profile, cost and SWC, its
 * weapons, the Lieutenant (secret) and the items the referee does not play.
 * @param {Record<string, any>} army @param {{open?: boolean}} [how]
 */
export function ownListPanel(army, how = {}) {
  const roster = ownRoster(army, weaponName);
  const when = how.open === false ? "review" : "chosen";
  const details = el("details", { class: "own-list", id: "own-list", open: listOpen.get(when) ?? how.open ?? true,
    ontoggle: (/** @type {Event} */ e) => listOpen.set(when, /** @type {HTMLDetailsElement} */ (e.target).open) },
    el("summary", {}, el("b", {}, army.name ?? "Your list"), ` (${army.faction ?? "?"}): ${roster.points} of ${roster.limit ?? "?"} points, ${roster.swc} SWC`));
  for (const group of roster.groups) {
    const shown = STAT_ORDER;
    const table = el("table", { class: "own-list-group", "data-combat-group": group.number },
      el("caption", {}, `Combat Group ${group.number}`),
      el("tr", { class: "own-stat-head" }, ...shown.map((h) => el("th", { title: h === "S" ? "Silhouette" : h === "W" ? "Wounds (W), or Structure (STR) in italics" : "" }, h))));
    for (const t of group.troopers) {
      table.append(el("tr", { class: `own-head${t.lieutenant ? " own-lieutenant" : ""}`, "data-own-trooper": t.id },
        el("td", { colspan: shown.length },
          el("span", { class: "own-cost", title: "Points and Support Weapon Cost" }, `${t.cost} pts${t.swc ? ` · ${t.swc} SWC` : ""}`),
          el("b", { class: "own-name" }, t.name),
          t.lieutenant ? el("span", { class: "rt-chip own-lt", title: "Your Lieutenant: secret, the opponent is not told who it is" }, "Lieutenant (secret)") : null)));
      table.append(el("tr", { class: "own-stats" }, ...shown.map((h) => el("td", { class: h === "W" && t.structure ? "rt-str" : "", title: h === "W" ? (t.structure ? "STR" : "W") : h },
        t.stats[h] === undefined ? "" : String(t.stats[h])))));
      const more = [t.type, t.controller ? `Peripheral of ${t.controller}` : null,
        t.weapons.length ? t.weapons.join(", ") : "no weapons"].filter(Boolean).join(" · ");
      table.append(el("tr", { class: "own-more" }, el("td", { colspan: shown.length }, more,
        t.notRefereed.length ? el("div", { class: "not-refereed-inline" }, "Not refereed:",
          ...t.notRefereed.map((item) => el("div", { class: "nr-item" }, item))) : null)));
    }
    details.append(table);
  }
  return details;
}

/** One list's not-refereed items for this viewer, in words. @param {any} army @param {"own"|"opponent"|"A"|"B"} whose @param {string} side */
function notRefereedBlock(army, whose, side) {
  const summary = notRefereedSummary(army, whose);
  return el("div", { class: "not-refereed", "data-not-refereed": side },
    el("h4", {}, summary.heading),
    summary.source ? el("p", { class: "hint list-source" }, summary.source) : null,
    summary.troopers.length
      ? el("ul", {}, ...summary.troopers.map((t) => el("li", {}, el("b", {}, t.label), el("ul", { class: "nr-items" }, ...t.items.map((item) => el("li", {}, item))))))
      : el("p", { class: "hint" }, summary.empty ?? ""),
    summary.privateNote ? el("p", { class: "hint" }, summary.privateNote) : null);
}

/**
 * Army selection once this viewer's list is chosen (or, for a spectator, once both are): the
 * own list, and when both are chosen the review with the accept button or what it waits for.
 * @param {Record<string, any>} state @param {Record<string, any> | null} options
 * @param {{conn: any, send: (body: Record<string, any>) => Promise<any>}} ctx
 * @returns {HTMLElement | null} null while there is nothing to review
 */
export function reviewPanel(state, options, ctx) {
  const role = ctx.conn.role;
  const seat = role === "A" || role === "B";
  const status = reviewStatus(state, options, ctx.conn.view.log, role);
  if (!status.review) return null;
  const sides = role === "B" ? ["B", "A"] : ["A", "B"];
  const box = el("div", { class: "panel army-review", id: "army-review" },
    el("h3", {}, "Before the game: what the referee does not play"),
    el("p", {}, "Some troopers carry skills, equipment or weapons this referee does not play yet: the game is played without them, as each item says. "
      + "Both players read both lists' items and accept them; then the Lieutenants roll off for the Initiative."));
  for (const side of sides) {
    const army = state.armies[side];
    box.append(notRefereedBlock(army, !seat ? /** @type {"A"|"B"} */ (side) : side === role ? "own" : "opponent", side));
  }
  const accepted = (/** @type {string} */ side) => status.accepted.has(side);
  if (seat) {
    const opponent = otherSide(role);
    if (status.canAccept) {
      box.append(el("button", { type: "button", id: "accept-armies", class: "primary",
        onclick: (/** @type {Event} */ e) => { /** @type {HTMLButtonElement} */ (e.target).disabled = true; ctx.send({ type: "accept_armies" }); } },
      "Accept both lists"),
      el("div", { class: "hint" }, accepted(opponent) ? "Your opponent has accepted: the game starts when you do." : "Your opponent accepts too; the game starts when both have."));
    } else if (accepted(role)) {
      box.classList.add("waiting");
      box.append(el("p", { id: "accept-waiting", class: "waiting" }, el("b", {}, "You accepted both lists. Waiting for the opponent to accept.")));
    }
  } else {
    box.append(el("p", { id: "accept-waiting" }, ["A", "B"].map((s) => `Player ${s} ${accepted(s) ? "has accepted" : "has not accepted yet"}.`).join(" ")));
  }
  return box;
}
