// Mines as a player lays them (N5 Minelayer and Place Deployable; server/rules/combat/mines.py).
// Deployment: a Minelayer's spot is picked by a first table click, then up to `mines` Mine
// spots (`options.minelayer[trooper]`) within its Zone of Control, which the table draws with
// the planned Mines; the deploy command carries them (`deploy.mines`). In an Order: a Mine
// placed by Place Deployable (`options.skills.place_deployable[weapon]`) goes where its base
// touches the trooper's base at some point of its path: a click is put in base contact with
// the nearest point of that path. The rules core judges every spot; these helpers only say in
// advance what it will refuse for reach, so that a click out of reach is not sent.
import { baseDiameter } from "./lib/geometry.js";

/** A Mine on the table stands as a Camouflage Marker of Silhouette 2 (docs/rules-decisions/specialists.md). */
export const MINE_RADIUS = baseDiameter(2) / 2;

/**
 * A Minelayer's deployment being planned: where it goes and its Mines.
 * @typedef {{trooper: string, at: number[] | null, mines: number[][], note: string}} MinePlan
 */

/** A fresh plan for `trooper`. @param {string} trooper @returns {MinePlan} */
export const newMinePlan = (trooper) => ({ trooper, at: null, mines: [], note: "" });

/**
 * How far a Mine's centre may be from the Minelayer's centre: its Zone of Control (inches from
 * its base) reaching the Mine's base (zone_of_control.in_zone_of_control: base to base).
 * @param {{zone_of_control: number}} offer @param {number} layerRadius
 */
export const mineReach = (offer, layerRadius) => offer.zone_of_control + layerRadius + MINE_RADIUS;

/**
 * A table click for a Minelayer deploying (changes `plan`): the first names its spot, the next
 * ones its Mines, at most `offer.mines`; one out of its reach is not taken (the plan's note says why).
 * @param {MinePlan} plan @param {{mines: number, zone_of_control: number, name: string}} offer
 * @param {number} layerRadius @param {number[]} point
 */
export function minePlanClick(plan, offer, layerRadius, point) {
  plan.note = "";
  if (!plan.at) { plan.at = point; return; }
  if (plan.mines.length >= offer.mines) {
    plan.note = `It lays at most ${offer.mines} Mine${offer.mines === 1 ? "" : "s"}: remove one to place it elsewhere.`;
    return;
  }
  const gap = Math.hypot(point[0] - plan.at[0], point[1] - plan.at[1]);
  if (gap > mineReach(offer, layerRadius)) {
    plan.note = `Out of reach: a Mine goes within its Zone of Control (${offer.zone_of_control}" from its base, the dotted circle).`;
    return;
  }
  plan.mines.push(point);
}

/** The point of segment a-b nearest to p. @param {number[]} p @param {number[]} a @param {number[]} b */
function nearestOnSegment(p, a, b) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2)) : 0;
  return [a[0] + t * dx, a[1] + t * dy];
}

/**
 * Where a Mine clicked at `point` goes by Place Deployable: in base contact (`contact`, the
 * distance between centres the offer gives) with the trooper at the point of its `path`
 * nearest to the click, on the click's side. Null when the click is on the path itself (no side
 * to put it on).
 * @param {number[][]} path @param {number} contact @param {number[]} point
 */
export function placeMineSpot(path, contact, point) {
  if (!path.length) return null;
  const segments = path.length > 1 ? path.slice(1).map((b, i) => [path[i], b]) : [[path[0], path[0]]];
  let best = /** @type {number[] | null} */ (null), gap = Infinity;
  for (const [a, b] of segments) {
    const q = nearestOnSegment(point, a, b);
    const d = Math.hypot(point[0] - q[0], point[1] - q[1]);
    if (d < gap) { gap = d; best = q; }
  }
  if (!best || gap < 1e-6) return null;
  const k = contact / gap;
  return [best[0] + (point[0] - best[0]) * k, best[1] + (point[1] - best[1]) * k];
}
