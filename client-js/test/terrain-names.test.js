// The app's tooltip names a terrain piece as the rules' messages do (client-js/app/terrain-names.js
// follows server/rules/table/terrain_names.py): every piece of every shipped table, against the
// names the rules core gives (test/fixtures/terrain-names.json, made by
// make_terrain_names_fixture.py), and a table a player might send.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { terrainName } from "../app/terrain-names.js";

const here = dirname(fileURLToPath(import.meta.url));
const tables = join(here, "..", "..", "server", "rules", "data", "tables");
const expected = JSON.parse(readFileSync(join(here, "fixtures", "terrain-names.json"), "utf8"));

test("every shipped piece is named as the rules core names it", () => {
  assert.ok(Object.keys(expected).length >= 6);
  for (const [tableId, pieces] of Object.entries(expected)) {
    const table = JSON.parse(readFileSync(join(tables, `${tableId}.json`), "utf8"));
    for (const piece of table.terrain) assert.equal(terrainName(piece, table), pieces[piece.id], `${tableId} ${piece.id}`);
  }
  assert.equal(expected["n5-ashfall-refinery"]["office-s"], "the Refinery office south-east of the centre");
});

test("a nameless piece goes by its kind; more than two alike by their middle", () => {
  const square = (x, y, extra) => ({ polygon: [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], height: 2, ...extra });
  const hut = square(40, 40, { id: "hut-1", name: "", kind: "building" });
  const crates = [0, 1, 2].map((i) => square(2 + 2 * i, 2, { id: `crate-${i}`, name: "Crate", kind: "scatter" }));
  const table = { width: 48, depth: 48, terrain: [hut, ...crates] };
  assert.equal(terrainName(hut, table), "the building north-east of the centre");
  assert.equal(terrainName(crates[1], table), "the Crate south-west of the centre (its middle at (4.5, 2.5))");
});
