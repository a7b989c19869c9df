// How the rules' messages name a terrain piece (server/rules/table/terrain_names.py, which
// this follows): its name and where it stands from the table's centre, north up ("the
// Refinery office south-east of the centre"), never the table file's id. The table's
// tooltip shows the same phrase, so a refusal's words can be found on the table.

const NAMELESS = { building: "building", wall: "wall", container: "container", scatter: "scatter terrain",
  vehicle: "vehicle", scenery: "scenery" };
/** Inches: a piece whose middle is this close to the centre is "in the middle of the table". */
const MIDDLE = 2.0;
const DIRECTIONS = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];

function middle(piece) {
  const xs = piece.polygon.map((p) => p[0]), ys = piece.polygon.map((p) => p[1]);
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

function where(piece, table) {
  const [x, y] = middle(piece);
  const dx = x - table.width / 2, dy = y - table.depth / 2;
  if (Math.hypot(dx, dy) <= MIDDLE) return "in the middle of the table";
  const sector = ((Math.floor((Math.atan2(dy, dx) * 180) / Math.PI / 45 + 0.5) % 8) + 8) % 8;
  return `${DIRECTIONS[sector]} of the centre`;
}

const called = (piece) => (piece.name ?? "").trim() || NAMELESS[piece.kind] || "scenery";

function number(value) {
  const text = value.toFixed(1);
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/** The piece as the rules' messages name it, e.g. "the Cargo container east of the centre". */
export function terrainName(piece, table) {
  const name = called(piece), at = where(piece, table);
  const alike = (table.terrain ?? []).filter((other) => called(other) === name && where(other, table) === at);
  if (alike.length <= 1) return `the ${name} ${at}`;
  const [x, y] = middle(piece);
  if (alike.length === 2) {
    const [ox, oy] = middle(alike[0] === piece ? alike[1] : alike[0]);
    if (ox !== x || oy !== y) {
      const side = Math.abs(y - oy) >= Math.abs(x - ox) ? (y > oy ? "northern" : "southern") : (x > ox ? "eastern" : "western");
      return `the ${side} ${name} ${at}`;
    }
  }
  return `the ${name} ${at} (its middle at (${number(x)}, ${number(y)}))`;
}
