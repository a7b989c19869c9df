// The table as a seat sees it: from its own edge (a player whose Deployment Zone is the North
// edge sits there, so its table is turned 180°, as at a real table where each player sits
// behind its models), facings in words relative to that view, and names for the points of a
// path. Pure: unit-tested in test/seat-view.test.js.
//
// Table coordinates: inches, x east, y north, facing in degrees counter-clockwise from east
// (the rules core's). SVG coordinates: x right, y down.

/**
 * The viewer's own Deployment Zone (facings are said relative to it), null for a spectator or
 * before the roll-off.
 * @param {Record<string, any> | null | undefined} state
 * @param {string | null | undefined} role
 * @returns {string | null}
 */
export const ownZone = (state, role) => state?.initiative?.zones?.[role ?? ""] ?? null;

/**
 * Whether `role` sees the table turned 180° (its edge at the bottom of the screen).
 * @param {Record<string, any> | null | undefined} state
 * @param {string | null | undefined} role "A", "B", or a spectator's / caster's role
 * @param {"seat" | "north" | "south"} choice the viewer's toggle: its own edge ("seat"; North up for
 *   a spectator or before the zones are settled), North up, or South up
 */
export function isRotated(state, role, choice = "seat") {
  if (choice === "north") return false;
  if (choice === "south") return true;
  return state?.initiative?.zones?.[role ?? ""] === "north";
}

/**
 * The mapping between table inches and the SVG's user units for one orientation, and the
 * transform of the group the table is drawn in.
 * @param {number} width @param {number} depth @param {boolean} rotated
 */
export function orientation(width, depth, rotated) {
  return {
    rotated,
    /** A table point's SVG point. @param {number[]} p @returns {[number, number]} */
    toSvg: ([x, y]) => (rotated ? [width - x, y] : [x, depth - y]),
    /** An SVG point's table point (the inverse). @param {number[]} p @returns {[number, number]} */
    toTable: ([sx, sy]) => (rotated ? [width - sx, sy] : [sx, depth - sy]),
    /** The SVG transform drawing table coordinates so: a flip (North up) or a mirror in x (South up). */
    transform: rotated ? `translate(${width} 0) scale(-1 1)` : `translate(0 ${depth}) scale(1 -1)`,
    /** A table direction (degrees) as seen on screen (degrees, counter-clockwise from right). @param {number} deg */
    screenAngle: (deg) => (((rotated ? deg + 180 : deg) % 360) + 360) % 360,
  };
}

const COMPASS = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];

/** The compass point nearest a facing. @param {number} deg */
export function compassPoint(deg) {
  const d = ((deg % 360) + 360) % 360;
  return COMPASS[Math.round(d / 45) % 8];
}

/** A seat's words for the 8 directions, from straight at the enemy edge, turning left. */
const RELATIVE = ["the enemy edge", "the enemy edge, half left", "the left flank", "your edge, half left",
  "your edge", "your edge, half right", "the right flank", "the enemy edge, half right"];

/**
 * A facing in words a player reads: for a seat, relative to its side of the table (the enemy
 * edge ahead, its own behind, its left and right flanks) with the compass point after it; for
 * a spectator (no zone), the compass point. Off a compass point by more than a few degrees,
 * "about".
 * @param {number} deg the facing (table degrees)
 * @param {"north" | "south" | null | undefined} zone the viewer's Deployment Zone
 */
export function facingWords(deg, zone = null) {
  const d = ((deg % 360) + 360) % 360;
  const exact = Math.abs(d - Math.round(d / 45) * 45) < 3;
  const about = exact ? "" : "about ";
  const compass = compassPoint(d);
  if (zone !== "north" && zone !== "south") return `${about}${compass}`;
  const ahead = zone === "south" ? 90 : 270; // towards the enemy's edge
  const rel = (((d - ahead) % 360) + 360) % 360;
  return `${about}towards ${RELATIVE[Math.round(rel / 45) % 8]} (${compass})`;
}

/**
 * Names for the points a BS Attack may be fired from after a move (`skills.firing_points`:
 * the corners of the path moved, not where the trooper stands now): "start of the move",
 * "corner 1", ... by their place on the path, each with its coordinates.
 * @param {number[][]} path the Order's path so far (its first point: where it started)
 * @param {number[][]} points the firing points offered
 * @returns {{ here: string, corners: string[] }}
 */
export function pathPointNames(path, points) {
  const at = (p) => `(${p.map((v) => Math.round(v * 10) / 10).join(", ")})`;
  const index = (p) => path.findIndex((q) => Math.abs(q[0] - p[0]) < 1e-6 && Math.abs(q[1] - p[1]) < 1e-6);
  const end = path[path.length - 1];
  return {
    here: end && path.length > 1 ? `where it stands, end of the move ${at(end)}` : "where it stands",
    corners: points.map((p) => {
      const i = index(p);
      return i === 0 ? `start of the move ${at(p)}` : i > 0 ? `corner ${i} ${at(p)}` : `point ${at(p)}`;
    }),
  };
}

/**
 * Where this Player Turn's Orders started, from a frame of live events the view has already
 * folded: after a `turn_started`, `state.orders_spent` less the Orders spent after it in the
 * frame. Null when the frame starts no turn.
 * @param {Record<string, any>} state the view's state after the frame
 * @param {{event: Record<string, any>}[]} entries the frame's events, in order
 * @returns {{ round: number, turn: number, active: string, start: number } | null}
 */
export function turnStartMark(state, entries) {
  const i = entries.map((x) => x.event?.type).lastIndexOf("turn_started");
  if (i < 0) return null;
  const after = entries.slice(i + 1).filter((x) => x.event?.type === "order_spent").length;
  return { round: state.round, turn: state.turn, active: state.active, start: (state.orders_spent ?? 0) - after };
}

/**
 * The Orders the Active Player has spent this Player Turn, or null when this tab cannot know:
 * from the mark of the turn's start seen live, else from the snapshot's Command Tokens record
 * of it (N5: `command_tokens.turn_start_orders`, set at each turn's start; CodeOne has none).
 * @param {Record<string, any>} state
 * @param {{ round: number, turn: number, active: string, start: number } | null} mark
 */
export function ordersSpentThisTurn(state, mark) {
  const spent = state.orders_spent ?? 0;
  if (mark && mark.round === state.round && mark.turn === state.turn && mark.active === state.active) return spent - mark.start;
  const tokens = state.command_tokens;
  if (tokens && Object.keys(tokens.held ?? {}).length && typeof tokens.turn_start_orders === "number") {
    return spent - tokens.turn_start_orders;
  }
  return null;
}
