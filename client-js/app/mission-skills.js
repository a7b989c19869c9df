// The mission's Short Skills in the order panel (order-panel.js), offered only as the server's
// options offer them, each with its WIP Roll's final Success Value (the server's preview, as
// the other Short Skills with a roll show it): Activate a mission marker in base contact
// (`options.skills.activate`: {marker: preview}), and a Classified Objective's own Short Skill
// (`options.classified_action`: {card: {target or "": preview}}), sent as the
// `classified_action` command.
import { el } from "./dom.js";
import { shotPreviewText } from "./describe.js";
import { cardTitle, markerName, missionOf } from "./mission-words.js";

/**
 * @param {object} parts
 * @param {any} parts.state the view's state
 * @param {Record<string, any>} parts.skills `options.skills` of the Order in progress
 * @param {Record<string, any>} parts.options the seat's options
 * @param {string} parts.trooper the active trooper
 * @param {string | null} parts.side this seat
 * @param {(id: string) => string} parts.nameOf a trooper as the table names it
 * @param {(skill: Record<string, any>) => void} parts.declare declare a skill (declare_skill)
 * @param {(body: Record<string, any>) => void} parts.command send a command that declares a skill
 * @returns {HTMLElement | null} the buttons, or null when nothing is offered
 */
export function missionSkillButtons({ state, skills, options, trooper, side, nameOf, declare, command }) {
  const mission = missionOf(state);
  const activate = Object.entries(skills.activate ?? {});
  const classified = Object.entries(options.classified_action ?? skills.classified_action ?? {});
  if (!activate.length && !classified.length) return null;
  const box = el("div", { id: "mission-skills" }, "Mission: ");
  for (const [marker, preview] of activate) {
    box.append(el("button", { type: "button", "data-activate": marker, title: "A Short Skill: a Normal WIP Roll; passed, the marker counts as activated by your side",
      onclick: () => declare({ type: "activate", marker }) }, `Activate the ${markerName(mission, marker)} (${shotPreviewText(preview)})`));
  }
  for (const [card, targets] of classified) {
    for (const [target, preview] of Object.entries(/** @type {Record<string, any>} */ (targets))) {
      const on = target ? ` on ${nameOf(target)}` : "";
      box.append(el("button", { type: "button", "data-classified-action": card, "data-target": target,
        title: "A Short Skill the Classified Objective names: a Normal WIP Roll; passed, the card is achieved and revealed",
        onclick: () => command({ type: "classified_action", trooper, card, ...(target ? { target } : {}) }) },
      `Classified Objective: ${cardTitle(state, side ?? "", card)}${on} (${shotPreviewText(preview)})`));
    }
  }
  return box;
}
