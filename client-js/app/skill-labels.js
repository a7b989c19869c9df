// What a trooper has, in the rules' words: one label per profile field the rules read
// (server/rules/armies/profiles.py), for the roster's skills line and the trooper's details.
// A field whose value is false, 0, empty or absent is not shown.

/** @type {Record<string, (value: any, profile?: Record<string, any>) => string>} */
export const SKILL_LABELS = {
  tactical_awareness: () => "Tactical Awareness",
  impetuous: () => "Impetuous",
  nwi: () => "No Wound Incapacitation",
  dogged: () => "Dogged",
  courage: () => "Courage",
  immunities: (v) => v.map((/** @type {string} */ c) => `Immunity (${
    ({ total: "Total", isolated: "Isolated", immobilized_b: "Immobilized-B", stunned: "Stunned" })[c] ?? c})`).join(", "),
  martial_arts: (v) => `Martial Arts L${v}`,
  total_reaction: () => "Total Reaction",
  // issue 36, Berserk: the MOD in brackets when it has one
  berserk: (_v, p) => (p?.berserk_mod ? `Berserk (${p.berserk_mod > 0 ? "+" : "−"}${Math.abs(p.berserk_mod)})` : "Berserk"),
  warhorse: () => "Warhorse",
  nanoscreen: () => "Nanoscreen",
  dodge_mod: (v) => `Dodge (${v > 0 ? "+" : "−"}${Math.abs(v)})`,
  camouflage: (v) => `Camouflage (CAMO −${v})`,
  mimetism: (v) => `Mimetism (−${v})`,
  multispectral_visor: (v) => `Multispectral Visor L${v}`,
  ecm_hacker: (v) => `ECM (Hacker −${v})`,
  hidden_deployment: () => "Hidden Deployment",
  combat_jump: () => "Airborne Deployment (Combat Jump)",
  infiltration: () => "Infiltration",
  forward_deployment: (v) => `Forward Deployment (+${v}")`,
  chain_of_command: () => "Chain of Command",
  climbing_plus: () => "Climbing Plus",
  super_jump: () => "Super-Jump",
  // issue 36, Terrain (the skill) and Special Terrain areas
  terrain: (v) => (v.length === 5 ? "Terrain (Total)" : `Terrain (${v.map((/** @type {string} */ t) =>
    ({ aquatic: "Aquatic", desert: "Desert", jungle: "Jungle", mountain: "Mountain", zero_g: "Zero-G" })[t] ?? t).join(", ")})`),
  // issue 36, Terrain with a choice of Types (one chosen as it deploys)
  terrain_choice: (v) => `Terrain (${v.map((/** @type {string} */ t) =>
    ({ aquatic: "Aquatic", desert: "Desert", jungle: "Jungle", mountain: "Mountain", zero_g: "Zero-G" })[t] ?? t).join(" or ")}: chosen as it deploys)`,
  sixth_sense: () => "Sixth Sense",
  hacker: () => "Hacker",
  // issue 36, Specialist troopers
  doctor: () => "Doctor",
  paramedic: () => "Paramedic",
  engineer: () => "Engineer",
  forward_observer: () => "Forward Observer",
  specialist_operative: () => "Specialist Operative",
  // issue 36, Mines and Minelayer
  minelayer: (v) => (v > 1 ? `Minelayer (${v})` : "Minelayer"),
  repeater: () => "Repeater",
  fireteam_core: () => "Fireteam: Core",
  fireteam_haris: () => "Fireteam: Haris",
  fireteam_duo: () => "Fireteam: Duo",
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
    .filter(([field]) => profile[field] && !(Array.isArray(profile[field]) && !profile[field].length) && !(field === "mimetism" && profile.camouflage === profile.mimetism))
    .map(([field, label]) => label(profile[field], profile));
}
