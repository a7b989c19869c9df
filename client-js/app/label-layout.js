// Where the troopers' labels go on the table (SVG units, y down), so that no label covers
// another or a base: each label, most important first (the active and selected troopers,
// then the living, then casualties), takes the first free spot around its base: right
// below, above, right, left, the four diagonals; when all of those are taken (a crowd of
// bases in contact), the same spots farther out, ring by ring, joined to the base by a leader
// line. Only when nothing is free anywhere near does it take the spot that overlaps least.
// Pure: unit-tested in test/label-layout.test.js.

/** @typedef {{x0: number, y0: number, x1: number, y1: number}} Box */

const overlap = (/** @type {Box} */ a, /** @type {Box} */ b) =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/**
 * @param {{x: number, y: number, r: number, w: number, h: number, priority: number}[]} items each label: its base's
 *   centre and radius, the label's size, its priority (lower first)
 * @param {number} gap the space between a base and its label (SVG units)
 * @param {number} [rings] how many rings of spots farther out to try
 * @param {Box[]} [obstacles] boxes already taken by other labels (a mission's markers' names)
 * @returns {{x0: number, y0: number, leader: boolean}[]} the top-left corner of each label, in the items' order;
 *   `leader`: placed away from its base (draw a line to it)
 */
export function placeLabels(items, gap, rings = 3, obstacles = []) {
  const bases = items.map((o) => ({ x0: o.x - o.r, y0: o.y - o.r, x1: o.x + o.r, y1: o.y + o.r }));
  /** @type {Box[]} */
  const taken = [...obstacles];
  const placed = /** @type {{x0: number, y0: number, leader: boolean}[]} */ (new Array(items.length));
  const order = items.map((_, i) => i).sort((a, b) => items[a].priority - items[b].priority || a - b);
  for (const i of order) {
    const { x, y, r, w, h } = items[i];
    let best = null;
    let bestCost = Infinity;
    for (let ring = 0; ring <= rings && bestCost > 0; ring += 1) {
      const d = r + gap + ring * (h + gap); // the distance from the centre to the label's near edge
      const diag = d * 0.72;
      const spots = [[x - w / 2, y + d], [x - w / 2, y - d - h], [x + d, y - h / 2], [x - d - w, y - h / 2],
        [x + diag, y + diag], [x - w - diag, y + diag], [x + diag, y - diag - h], [x - w - diag, y - diag - h]];
      for (const [x0, y0] of spots) {
        const box = { x0, y0, x1: x0 + w, y1: y0 + h };
        let cost = 0;
        for (const t of taken) cost += overlap(box, t);
        bases.forEach((b, j) => { if (j !== i) cost += overlap(box, b); });
        if (cost < bestCost - 1e-9) { bestCost = cost; best = { x0, y0, leader: ring > 0 }; }
        if (cost === 0) break;
      }
    }
    const chosen = best ?? { x0: x - w / 2, y0: y + r + gap, leader: false };
    placed[i] = chosen;
    taken.push({ x0: chosen.x0, y0: chosen.y0, x1: chosen.x0 + w, y1: chosen.y0 + h });
  }
  return placed;
}
