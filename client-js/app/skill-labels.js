// What a trooper has, in the rules' words: one label per profile field the rules read
// (server/rules/armies/profiles.py), for the roster's skills line and the trooper's details.
// A field whose value is false, 0 or absent is not shown.

/** @type {Record<string, (value: any) => string>} */
export const SKILL_LABELS = {
  tactical_awareness: () => "Tactical Awareness",
  impetuous: () => "Impetuous",
  camouflage: (v) => `Camouflage (CAMO −${v})`,
  mimetism: (v) => `Mimetism (−${v})`,
  multispectral_visor: (v) => `Multispectral Visor L${v}`,
  ecm_hacker: (v) => `ECM (Hacker −${v})`,
  hidden_deployment: () => "Hidden Deployment",
  combat_jump: () => "Airborne Deployment (Combat Jump)",
  sixth_sense: () => "Sixth Sense",
  hacker: () => "Hacker",
  repeater: () => "Repeater",
};

/**
 * The labels of what `profile` has, in SKILL_LABELS' order. Mimetism is left out when it is
 * the Camouflage's own (a camouflaged trooper's marker shows it already).
 * @param {Record<string, any> | null | undefined} profile
 * @returns {string[]}
 */
export function skillsOf(profile) {
  if (!profile) return [];
  return Object.entries(SKILL_LABELS)
    .filter(([field]) => profile[field] && !(field === "mimetism" && profile.camouflage === profile.mimetism))
    .map(([field, label]) => label(profile[field]));
}
