// Table geometry the app needs for drawing and for showing a route against MOV.

/** @typedef {[number, number]} Point */

/** Length of a route that starts at `start` (inches). @param {Point} start @param {Point[]} route */
export function routeLength(start, route) {
  let length = 0;
  let from = start;
  for (const point of route) {
    length += Math.hypot(point[0] - from[0], point[1] - from[1]);
    from = point;
  }
  return length;
}

// Base diameters in millimetres by Silhouette, as server/rules/table/silhouettes.py has them.
const BASE_MM = { 0: 25, 1: 25, 2: 25, 3: 40, 4: 55, 5: 40, 6: 40, 7: 55, 8: 70 };

// Silhouette heights in millimetres, as server/rules/table/silhouettes.py has them.
const HEIGHT_MM = { 0: 3, 1: 25, 2: 40, 3: 32, 4: 32, 5: 45, 6: 55, 7: 67, 8: 70 };

/** Base diameter (inches) by Silhouette value. @param {number} silhouette */
export function baseDiameter(silhouette) {
  return (BASE_MM[/** @type {keyof typeof BASE_MM} */ (silhouette)] ?? 25) / 25.4;
}

/** Height of a Silhouette's cylinder (inches). @param {number} silhouette */
export function silhouetteHeight(silhouette) {
  return (HEIGHT_MM[/** @type {keyof typeof HEIGHT_MM} */ (silhouette)] ?? 40) / 25.4;
}

/**
 * A trooper's Silhouette value as a view carries it: the profile's, or a marker's own
 * `silhouette` (an enemy Camouflage Marker has no profile); 2 when neither is known.
 * @param {Record<string, any> | null | undefined} trooper
 */
export function silhouetteOf(trooper) {
  return trooper?.profile?.silhouette ?? trooper?.silhouette ?? 2;
}

/** Base radius (inches) of a trooper as a view carries it. @param {Record<string, any> | null | undefined} trooper */
export function baseRadius(trooper) {
  return baseDiameter(silhouetteOf(trooper)) / 2;
}

/** Movement allowance of one Short Movement Skill (first MOV value). @param {any} profile */
export function firstMov(profile) {
  return Array.isArray(profile?.mov) ? profile.mov[0] : 0;
}

/** Total movement of an Order of two Move skills (both MOV values). @param {any} profile */
export function orderMov(profile) {
  return Array.isArray(profile?.mov) ? profile.mov[0] + profile.mov[1] : 0;
}

// Teardrop template lengths in inches, as server/rules/armies/weapons.py has them
// (docs/rules-decisions/armies.md).
export const TEMPLATE_LENGTH = Object.freeze({ small_teardrop: 8, large_teardrop: 10 });

/**
 * Where each skill of an Order was declared from: the point of the trooper's path reached
 * before it (a movement skill extends the path by its route, whose first point is where the
 * trooper stood). A BS Attack's firing point is its declared `firing_point`, else this.
 * @param {Point} start @param {Array<Record<string, any>>} skills
 * @returns {Point[]} one point per skill
 */
export function declaredFrom(start, skills) {
  /** @type {Point[]} */
  const points = [];
  let at = start;
  for (const skill of skills) {
    points.push(skill.firing_point ?? at);
    if (Array.isArray(skill.route) && skill.route.length && skill.type !== "dodge") at = skill.route[skill.route.length - 1];
  }
  return points;
}
