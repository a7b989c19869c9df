// The weapon catalogue (open information), copied from server/rules/data/weapons.json by
// `npm run build`: display names, kinds and template shapes. Hacking programs are named here
// as docs/rules-decisions/resolution.md names them.

/** @type {Map<string, Record<string, any>>} */
const weapons = new Map();
const PROGRAMS = { tracer_ping: "Tracer Ping" };

/** Load the catalogue once; the app draws and describes attacks with it. */
export async function loadCatalogue() {
  const response = await fetch("weapons.json");
  if (!response.ok) throw new Error(`weapons.json: HTTP ${response.status} (run npm run build)`);
  for (const w of (await response.json()).weapons) weapons.set(w.id, w);
}

/** @param {string} id @returns {Record<string, any> | undefined} */
export const weapon = (id) => weapons.get(id);

/** A weapon's or program's display name (the id itself if unknown). @param {string | null | undefined} id */
export function weaponName(id) {
  if (!id) return "";
  return weapons.get(id)?.name ?? PROGRAMS[/** @type {keyof typeof PROGRAMS} */ (id)] ?? id;
}

/**
 * Learn the weapons a list defines itself (its `arsenal`: a converted army code's weapons,
 * ids like "w-501-0"), so that they are named and drawn like shipped ones; a shipped id keeps
 * the shipped weapon.
 * @param {Record<string, any>[] | undefined} arsenal
 */
export function learnWeapons(arsenal) {
  for (const w of arsenal ?? []) if (w?.id && !weapons.has(w.id)) weapons.set(w.id, w);
}
