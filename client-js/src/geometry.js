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

// The radii of a teardrop's narrow and wide ends, inches, as server/rules/table/templates.py
// has them (docs/rules-decisions/geometry.md, "Direct Template teardrops").
export const TEMPLATE_ENDS = Object.freeze({ small_teardrop: [0.25, 1.75], large_teardrop: [0.25, 2.25] });

/**
 * The outline of a teardrop laid as the rules core lays it: its narrow tip on the rim of the
 * shooter's base (centre `from`, radius `radius`), its axis through `aim` (the Main Target's
 * centre). Returns an SVG path in table coordinates (the hull of its two end circles), or
 * null for an unknown shape or no direction.
 * @param {Point} from @param {number} radius @param {Point} aim @param {string} shape
 * @returns {string | null}
 */
export function teardropPath(from, radius, aim, shape) {
  const length = TEMPLATE_LENGTH[/** @type {keyof typeof TEMPLATE_LENGTH} */ (shape)];
  const ends = TEMPLATE_ENDS[/** @type {keyof typeof TEMPLATE_ENDS} */ (shape)];
  const dx = aim[0] - from[0], dy = aim[1] - from[1], gap = Math.hypot(dx, dy);
  if (!length || !ends || gap < 1e-9) return null;
  const [r0, r1] = ends;
  const ux = dx / gap, uy = dy / gap;
  const at = (/** @type {number} */ along, /** @type {number} */ across) =>
    [from[0] + ux * along - uy * across, from[1] + uy * along + ux * across];
  const narrow = radius + r0, wide = radius + length - r1; // the end circles' centres, along
  const lean = (r1 - r0) / (wide - narrow), upright = Math.sqrt(1 - lean * lean);
  // Where the straight sides touch each end circle: the side's normal leans back by `lean`.
  const touch = (/** @type {number} */ centre, /** @type {number} */ r, /** @type {number} */ side) =>
    at(centre - r * lean, side * r * upright);
  const p = (/** @type {number[]} */ q) => `${q[0]} ${q[1]}`;
  // Clockwise in table coordinates (y up): along the left side, round the wide end, back
  // along the right side and round the narrow end.
  return `M ${p(touch(narrow, r0, 1))} L ${p(touch(wide, r1, 1))} A ${r1} ${r1} 0 1 0 ${p(touch(wide, r1, -1))}`
    + ` L ${p(touch(narrow, r0, -1))} A ${r0} ${r0} 0 0 0 ${p(touch(narrow, r0, 1))} Z`;
}

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
