// The teardrop the table draws for a Direct Template attack (src/geometry.js `teardropPath`):
// laid as the rules core lays it (server/rules/table/templates.py), tip on the shooter's
// base, axis through the Main Target's centre.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TEMPLATE_ENDS, TEMPLATE_LENGTH, teardropPath } from "../src/geometry.js";

/** The path's points: M, L, A end, L, A end. @param {string} d */
function points(d) {
  const n = d.match(/-?\d+(\.\d+)?(e-?\d+)?/g).map(Number);
  // M x y L x y A r r 0 1 0 x y L x y A r r 0 0 0 x y
  return [[n[0], n[1]], [n[2], n[3]], [n[9], n[10]], [n[11], n[12]], [n[18], n[19]]];
}
const close = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) < 1e-9;

test("a large teardrop aimed north from a 0.5 inch base: its sides touch both end circles", () => {
  const d = teardropPath([10, 10], 0.5, [10, 30], "large_teardrop");
  assert.ok(d);
  const [r0, r1] = TEMPLATE_ENDS.large_teardrop;
  const narrow = [10, 10 + 0.5 + r0], wide = [10, 10 + 0.5 + TEMPLATE_LENGTH.large_teardrop - r1];
  const [a, b, c, e, back] = points(d);
  const dist = (/** @type {number[]} */ p, /** @type {number[]} */ q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  assert.ok(close(dist(a, narrow), r0) && close(dist(e, narrow), r0));
  assert.ok(close(dist(b, wide), r1) && close(dist(c, wide), r1));
  assert.deepEqual(back, a); // closed
  assert.ok(a[0] < 10 && b[0] < 10 && c[0] > 10 && e[0] > 10); // left side first (+across is -x here)
  // Symmetric about the axis x = 10, and nothing behind the tip.
  assert.ok(close(a[0] + e[0], 20) && close(b[0] + c[0], 20) && a[1] >= 10.5);
  // The left side is tangent to the wide circle: perpendicular to the radius at b.
  const side = [b[0] - a[0], b[1] - a[1]], normal = [b[0] - wide[0], b[1] - wide[1]];
  assert.ok(close(side[0] * normal[0] + side[1] * normal[1], 0));
});

test("no teardrop for an unknown shape or with no direction", () => {
  assert.equal(teardropPath([0, 0], 0.5, [5, 5], "circular"), null);
  assert.equal(teardropPath([0, 0], 0.5, [0, 0], "small_teardrop"), null);
});
