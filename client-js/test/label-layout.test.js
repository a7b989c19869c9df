// Trooper labels never cover each other or another base (client-js/app/label-layout.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { placeLabels } from "../app/label-layout.js";

const box = (p, it) => ({ x0: p.x0, y0: p.y0, x1: p.x0 + it.w, y1: p.y0 + it.h });
const overlaps = (a, b) => a.x0 < b.x1 - 1e-9 && b.x0 < a.x1 - 1e-9 && a.y0 < b.y1 - 1e-9 && b.y0 < a.y1 - 1e-9;

function assertClear(items, placed) {
  for (let i = 0; i < items.length; i += 1) {
    const a = box(placed[i], items[i]);
    for (let j = 0; j < items.length; j += 1) {
      const it = items[j];
      if (j > i) assert.ok(!overlaps(a, box(placed[j], it)), `labels ${i} and ${j} overlap`);
      if (j !== i) assert.ok(!overlaps(a, { x0: it.x - it.r, y0: it.y - it.r, x1: it.x + it.r, y1: it.y + it.r }), `label ${i} covers base ${j}`);
    }
  }
}

test("a lone trooper's label sits right below its base", () => {
  const [p] = placeLabels([{ x: 10, y: 10, r: 0.5, w: 2, h: 0.6, priority: 1 }], 0.1);
  assert.deepEqual(p, { x0: 9, y0: 10.6, leader: false });
});

test("a line of seven bases in contact, with labels wider than a base: no label covers another or a base", () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ x: 10 + i * 1.0, y: 10, r: 0.5, w: 2.4, h: 0.6, priority: 1 }));
  const placed = placeLabels(items, 0.1);
  assertClear(items, placed);
  assert.ok(placed.some((p) => p.leader), "some labels moved out, with a leader line");
});

test("a tight cluster (a Coordinated Order in base contact with an enemy) stays readable; the active trooper keeps the first spot", () => {
  const items = [{ x: 20, y: 20, r: 0.5, w: 2.6, h: 0.65, priority: 1 }, { x: 21, y: 20, r: 0.5, w: 2.2, h: 0.65, priority: 1 },
    { x: 20, y: 21, r: 0.5, w: 2.6, h: 0.65, priority: 0 }, { x: 21, y: 21, r: 0.5, w: 1.8, h: 0.65, priority: 2 },
    { x: 19, y: 20.5, r: 0.5, w: 2.6, h: 0.65, priority: 1 }];
  const placed = placeLabels(items, 0.1);
  assertClear(items, placed);
  assert.deepEqual(placed[2], { x0: 20 - 1.3, y0: 21 + 0.6, leader: false }, "priority 0 goes first, right below");
});

test("a label taken already (a mission marker's name) is kept clear: the trooper's label goes elsewhere", () => {
  const below = { x0: 9, y0: 10.6, x1: 11, y1: 11.2 }; // where the label would go alone
  const [p] = placeLabels([{ x: 10, y: 10, r: 0.5, w: 2, h: 0.6, priority: 1 }], 0.1, 3, [below]);
  assert.ok(!overlaps(box(p, { w: 2, h: 0.6 }), below), `clear of the marker's name: ${JSON.stringify(p)}`);
  assert.equal(p.leader, false, "still by its base");
});
