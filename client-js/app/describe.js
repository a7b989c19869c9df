// Events and the roll record of a resolved Order in Infinity's words: who did what to whom
// (troopers by their unit name, the id in a tooltip), Success Values with every MOD named and
// signed, the die faces (success, critical, failed, cancelled by the opponent's roll), saves,
// wounds and states, distances in inches to one decimal.
//
// Everything is derived from the event itself and from what this viewer was told before it
// (`TrooperNames` learns names from the events, in version order), so a tab that watched live
// and a tab that rebuilt the log from the history read the same words. The text is built as
// "rich text" (strings and {text, cls, title} pieces), pure and testable without a DOM;
// `toNodes` and `renderOutcome` turn it into elements.
import { weaponName, weapon as catalogueWeapon } from "./catalogue.js";
import { describeTokenSpent } from "./command-tokens.js";
import { cardTitle, decidedBy, describeMissionEvent, markerName, scoreText } from "./mission-words.js";

/**
 * @typedef {{text: string, cls?: string, title?: string, data?: Record<string, string>}} Piece
 * @typedef {string | Piece} Part
 * @typedef {{cls: string, data?: Record<string, string>, parts: Part[]}} Line
 * @typedef {{names?: TrooperNames, ruleset?: string, viewer?: string | null, state?: Record<string, any> | null, moved?: string[]}} Context
 *   `state`: the view's state (a mission's marker names, Classified Objectives' titles);
 *   `moved`: the troopers a movement skill was declared for in the Order being described
 */

const MINUS = "\u2212";

/** Fireteam types and why a member leaves (server/rules/orders/fireteams.py). */
const FIRETEAM_KINDS = /** @type {Record<string, string>} */ ({ core: "Fireteam: Core", haris: "Fireteam: Haris", duo: "Fireteam: Duo" });
const FIRETEAM_SHORT = /** @type {Record<string, string>} */ ({ core: "Core", haris: "Haris", duo: "Duo" });
const FIRETEAM_LEFT = /** @type {Record<string, string>} */ ({
  null: "Unconscious, Dead or off the table", isolated: "Isolated", coherency: "out of Coherency with its leader",
  activated_alone: "activated on its own Order",
  impetuous: "took its Impetuous Order on its own",
});

/** A signed whole number as Infinity writes a MOD: +3, −3, +0. @param {number} n */
export const signed = (n) => (n < 0 ? `${MINUS}${Math.abs(n)}` : `+${n}`);

/** Inches to one decimal. @param {number} n */
export const inches = (n) => `${(Math.round(n * 10) / 10).toFixed(1)}"`;

/** A point on the table, in inches to one decimal. @param {number[] | null | undefined} p */
export const point = (p) => (p ? `(${p.map((v) => (Math.round(v * 10) / 10).toFixed(1)).join(", ")})` : "(?)");

/** Length of a route (its first point is where the trooper stood). @param {number[][]} route */
export function routeInches(route) {
  let total = 0;
  for (let i = 1; i < (route?.length ?? 0); i += 1) total += Math.hypot(route[i][0] - route[i - 1][0], route[i][1] - route[i - 1][1]);
  return total;
}

const COMPASS = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];
/** A facing in words: a compass point when it is one, else the nearest one and the degrees
 * ("about north-west (118°)": a bare angle is hard to picture on the table). @param {number} deg */
export function facingText(deg) {
  const d = ((deg % 360) + 360) % 360;
  const i = Math.round(d / 45) % 8;
  return Math.abs(d - Math.round(d / 45) * 45) < 0.5 ? COMPASS[i] : `about ${COMPASS[i]} (${Math.round(d)}°)`;
}

/** The plain text of rich text. @param {Part[]} parts */
export const textOf = (parts) => parts.map((p) => (typeof p === "string" ? p : p.text)).join("");

/** Rich text as DOM nodes (browser only). @param {Part[]} parts */
export function toNodes(parts) {
  const fragment = document.createDocumentFragment();
  for (const p of parts) {
    if (typeof p === "string") { fragment.append(p); continue; }
    const node = document.createElement("span");
    if (p.cls) node.className = p.cls;
    if (p.title) node.title = p.title;
    for (const [k, v] of Object.entries(p.data ?? {})) node.dataset[k] = v;
    node.textContent = p.text;
    fragment.append(node);
  }
  return fragment;
}

// --- names -----------------------------------------------------------------------------------

/** "B-q4xk2mzd" -> "B-q4xk": the random part is 8 letters; the first 4 tell troopers apart. @param {string} id */
export function shortId(id) {
  const m = /^([AB])-(.+)$/.exec(id ?? "");
  if (!m || m[2].length <= 5) return id;
  return `${m[1]}-${m[2].slice(0, 4)}`;
}

/**
 * Who a trooper id is, for this viewer, as the events so far told it: its own army list, a
 * profile shown at deployment or at a reveal, a Camouflage marker. An id the events never
 * named falls back on the view's state (`lookup`), and that first answer is kept, so later
 * changes (a marker revealed) come from the events that made them, in order.
 */
export class TrooperNames {
  /**
   * @param {(id: string) => Record<string, any> | undefined} [lookup] a trooper of the view's state
   * @param {(id: string) => {label: string, full: string} | undefined} [onTable] the name the
   *   table and the roster give the trooper now ("Lancer 3", "Camo 1"; roster.js `trooperNames`)
   */
  constructor(lookup = () => undefined, onTable = () => undefined) {
    this.lookup = lookup;
    this.onTable = onTable;
    /** @type {Map<string, string>} id -> unit name, or "Camouflage marker" */
    this.known = new Map();
    /** The trooper activated by the current Order, and its side (the reactive side is the other). */
    this.activeTrooper = /** @type {string | null} */ (null);
    this.activeSide = /** @type {string | null} */ (null);
  }

  /** Learn what an event says about troopers. Call it for every event, in version order, before describing it. */
  learn(/** @type {Record<string, any>} */ e) {
    switch (e.type) {
      case "army_chosen":
        for (const [entry, id] of e.trooper_ids ?? []) {
          const found = (e.army?.entries ?? []).find((x) => x.id === entry);
          const name = found?.profile?.name ?? found?.name;
          if (name) this.known.set(id, name);
        }
        break;
      case "trooper_deployed":
        if (e.marker && !this.known.has(e.trooper)) this.known.set(e.trooper, "Camouflage marker");
        else if (e.profile?.name) this.known.set(e.trooper, e.profile.name);
        break;
      case "aro_declared": case "trooper_revealed": case "combat_jump_landed":
        if (e.profile?.name) this.known.set(e.trooper, e.profile.name);
        break;
      case "mine_placed": case "mine_triggered": // Mines (combat/mines.py): not troopers
        this.known.set(e.mine, "Mine");
        break;
      case "order_resolved":
        for (const [id, profile] of Object.entries(e.profiles ?? {})) if (profile?.name) this.known.set(id, profile.name);
        for (const x of e.outcome?.effects ?? []) if (x.type === "deployable_placed") this.known.set(x.deployable, "Mine");
        break;
      case "order_spent":
        this.activeTrooper = e.trooper;
        this.activeSide = sideOf(e.trooper);
        break;
      default:
    }
  }

  /** The unit name (or "Camouflage marker"), or null when nothing says. @param {string} id */
  name(id) {
    if (this.known.has(id)) return /** @type {string} */ (this.known.get(id));
    const t = this.lookup(id);
    const name = t?.profile?.name ?? (t?.marker ? "Camouflage marker" : undefined);
    if (name) this.known.set(id, name);
    return name ?? null;
  }

  /**
   * The trooper as rich text. Where the table names it, by that name ("Lancer 3", "Camo 1"),
   * so a line of the log points at one base on the table; the unit's full name and the id are
   * in the tooltip. A trooper the events knew as a Camouflage marker stays one in the lines
   * written then, and one the table does not show (not deployed yet, a test's bare context)
   * reads "Syndicate Enforcer (B-q4xk)".
   * @param {string} id @returns {Piece}
   */
  label(id) {
    const name = this.name(id);
    const side = sideOf(id);
    const cls = `trooper${side ? ` side-${side}` : ""}`;
    const table = this.onTable(id);
    const markerThen = name === "Camouflage marker";
    // A line that named a Camouflage marker keeps it (`asMarker`): the reveal came later.
    const data = markerThen ? { trooper: id, asMarker: "1" } : { trooper: id };
    if (table && markerThen === table.label.startsWith("Camo")) {
      return { text: table.label, cls, title: `${table.full} (${side ? `player ${side}, ` : ""}id ${id})`, data };
    }
    return { text: name ? `${name} (${shortId(id)})` : shortId(id), cls,
      title: `${side ? `Player ${side}'s trooper, ` : ""}id ${id}`, data };
  }
}

/** @param {string} id */
const sideOf = (id) => /^([AB])-/.exec(id ?? "")?.[1] ?? null;

const namesOf = (/** @type {Context} */ ctx) => ctx.names ?? new TrooperNames();

/** Troopers as rich text: "X", "X and Y", "X, Y and Z". @param {string[]} ids @param {Context} ctx @returns {Part[]} */
function troopers(ids, ctx) {
  const names = namesOf(ctx);
  /** @type {Part[]} */
  const out = [];
  ids.forEach((id, i) => {
    if (i) out.push(i === ids.length - 1 ? " and " : ", ");
    out.push(names.label(id));
  });
  return out;
}

// --- events ----------------------------------------------------------------------------------

/** Why a trooper left Suppressive Fire (the server's reasons). */
const SF_ENDED = { declared_order: "it was activated", other_aro: "it declared another ARO", guts_failed: "it failed a Guts Roll",
  null: "it is out of the fight", isolated: "Isolated", immobilized: "Immobilized", engaged: "Engaged", retreat: "Retreat!",
  loss_of_lieutenant: "Loss of Lieutenant", cancelled: "cancelled" };

export const SKILL_NAME = {
  move: "Move", cautious_move: "Cautious Movement", jump: "Jump", climb: "Climb", bs_attack: "BS Attack",
  cc_attack: "CC Attack", comms_attack: "Comms Attack", discover: "Discover", dodge: "Dodge", reset: "Reset",
  idle: "Idle", guts: "Guts Roll", suppressive_fire: "Suppressive Fire", berserk: "Berserk",
  doctor: "Doctor", paramedic: "Paramedic", engineer: "Engineer", forward_observer: "Forward Observer",
  place_deployable: "Place Deployable", activate: "Activate", classified_action: "Classified Objective",
};
/** @param {string} type */
export const skillName = (type) => SKILL_NAME[/** @type {keyof typeof SKILL_NAME} */ (type)] ?? type.replace(/_/g, " ");

const ORDINAL = ["", "first", "second"];
const ORDER_TYPE = { regular: "Regular", irregular: "Irregular", lieutenant: "Lieutenant Special", tactical: "Tactical", impetuous: "Impetuous" };

/**
 * An event of the log in words.
 * @param {Record<string, any>} e @param {Context} [ctx] @returns {Part[]}
 */
export function describeEvent(e, ctx = {}) {
  const who = (/** @type {string} */ id) => namesOf(ctx).label(id);
  switch (e.type) {
    case "army_chosen": return [`Player ${e.side} chose ${e.army?.name ?? "an army"}`];
    case "armies_accepted": return [`Player ${e.side} accepted both lists, with what the referee does not play`];
    case "initiative_rolled": {
      const [svA, svB] = e.success_values ?? [];
      const tries = (e.attempts ?? []).map(([a, b]) => `A ${a} vs B ${b}`).join(", then ");
      return [`Initiative roll-off (WIP Face to Face${svA !== undefined ? `, A SV ${svA}, B SV ${svB}` : ""}): ${tries}: player ${e.winner} wins`];
    }
    case "initiative_chosen":
      return [`Player ${e.side} ${e.keep === "initiative" ? "keeps the Initiative" : e.keep === "deployment" ? "keeps the Deployment" : `chooses ${e.keep}`}: ${e.first ? "goes first" : "goes second"}${e.zone ? `, ${e.zone} zone` : ""}`];
    case "initiative_settled": return [`Player ${e.first_player} plays first; player ${e.deploys_first} deploys first`];
    case "trooper_deployed":
      return [who(e.trooper), ` deployed at ${point(e.position)}${e.marker ? " as a Camouflage marker" : ""}${e.hidden ? " in Hidden Deployment (secret)" : ""}`];
    case "deployment_step_ended": return [`Player ${e.side} ended deployment step ${e.step}`];
    case "turn_started": return [`Round ${e.round}, turn ${e.turn}: player ${e.active} is the Active Player`];
    case "phase_started": return [`${String(e.phase).replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())} Phase`];
    case "orders_counted":
      return [`Player ${e.side}'s Orders: ${Object.entries(e.pools ?? {}).map(([g, n]) => `${n} Regular in Combat Group ${g}`).join(", ") || "no Regular"}, ${(e.irregular ?? []).length} Irregular${(e.tactical ?? []).length ? `, ${e.tactical.length} Tactical` : ""}${e.lieutenant ? ", 1 Lieutenant Special" : ""}${(e.impetuous ?? []).length ? `, ${e.impetuous.length} Impetuous` : ""}${(e.hidden ?? []).length ? `; private: ${e.hidden.length} own Order${e.hidden.length > 1 ? "s" : ""} of troopers in Hidden or Airborne Deployment` : ""}`];
    case "loss_of_lieutenant": return [`Player ${e.side} has lost its Lieutenant (Loss of Lieutenant: its Regular Orders become Irregular)`];
    case "retreat_declared": return [`Player ${e.side} is in Retreat! (${e.victory_points} of ${e.threshold} points left)`];
    case "order_spent":
      // A Fireteam's Order (N5): the team's type and Level, its leader and who follows it.
      if (e.fireteam) {
        return [`Order ${e.order}: Fireteam (${FIRETEAM_SHORT[e.fireteam] ?? e.fireteam}${e.fireteam_level ? `, Level ${e.fireteam_level}` : ""}) activated on a Regular Order from Combat Group ${e.combat_group}: leader `,
          who(e.trooper), ...((e.peripherals ?? []).length ? [" with ", ...troopers(e.peripherals, ctx)] : [])];
      }
      return [`Order ${e.order}: ${ORDER_TYPE[/** @type {keyof typeof ORDER_TYPE} */ (e.order_type)] ?? e.order_type} Order${e.private ? " (its own, private until now: from Hidden or Airborne Deployment)" : e.order_type === "regular" ? ` from Combat Group ${e.combat_group}` : ""} on `,
        ...troopers([e.trooper, ...(e.peripherals ?? [])], ctx)];
    case "skill_declared":
      return [`Declared (${ORDINAL[e.index] ?? ""} skill): `, who(e.trooper), ": ", ...skillText(e.skill, ctx),
        ...(e.peripherals ?? []).flatMap((/** @type {any} */ p) => ["; ", who(p.trooper), ": ", ...skillText(p.skill, ctx)])];
    case "aro_window_opened": {
      const eligible = e.eligible ?? [];
      const reactive = namesOf(ctx).activeSide ? (namesOf(ctx).activeSide === "A" ? "B" : "A") : null;
      /** @type {Part[]} */
      const out = [`ARO window (Order ${e.order}, ${ORDINAL[e.step] ?? e.step} ARO step): `];
      if (!eligible.length) {
        out.push(reactive && ctx.viewer === reactive ? "none of your troopers may react" : "no trooper you can see may react");
      } else {
        out.push("may react: ");
        eligible.forEach((/** @type {any} */ x, /** @type {number} */ i) => { if (i) out.push(", "); out.push(who(x.trooper), ` (${whyText(x)})`); });
      }
      return out;
    }
    case "aro_declared":
      return ["ARO declared: ", who(e.trooper), ": ", ...skillText(e.skill, ctx),
        e.revealed ? (e.position ? ` (revealed from Hidden Deployment at ${point(e.position)})` : " (revealed)") : ""];
    case "aro_passed": return ["ARO: ", who(e.trooper), " declares no ARO"];
    case "suppressive_fire_changed":
      return e.active ? [who(e.trooper), " enters Suppressive Fire"]
        : [who(e.trooper), ` leaves Suppressive Fire (${SF_ENDED[/** @type {keyof typeof SF_ENDED} */ (e.reason)] ?? String(e.reason).replace(/_/g, " ")})`];
    case "aro_window_closed": {
      const lost = [...(e.lost ?? []), ...(e.lost_hidden ?? [])];
      if (e.reason === "deadline") {
        return lost.length ? ["ARO window timed out: ", ...troopers(lost, ctx), ` lost ${lost.length === 1 ? "its" : "their"} ARO`] : ["ARO window timed out"];
      }
      return lost.length ? ["ARO window closed by the reactive player: ", ...troopers(lost, ctx), ` declared nothing and lost ${lost.length === 1 ? "its" : "their"} ARO`] : ["ARO window closed by the reactive player"];
    }
    case "order_resolved": {
      const effects = e.outcome?.effects ?? [];
      const waits = e.conclusion ? ["; its Conclusion waits on a Guts move"] : [];
      return [`Order ${e.order} resolved: `, ...(effects.length ? effects.flatMap((/** @type {any} */ x, /** @type {number} */ i) => [...(i ? ["; "] : []), ...effectText(x, ctx)]) : [e.conclusion ? "no effect yet" : "no effect"]), ...waits];
    }
    case "guts_window_opened":
      return ["Guts: ", who(e.trooper), ` must move ${lookupWords(GUTS_RULE, e.reason)}; player ${e.side} chooses where (default ${point(e.default?.[e.default.length - 1])})`];
    case "guts_reacted":
      return ["Guts: ", ...(e.effect ? effectText(e.effect, ctx) : [who(e.trooper), " stays (already Prone)"]), ` (${lookupWords(GUTS_CHOICE, e.choice)})`];
    case "order_concluded": {
      const effects = e.effects ?? [];
      return [`Order ${e.order} concluded`, ...(effects.length ? [": ", ...effects.flatMap((/** @type {any} */ x, /** @type {number} */ i) => [...(i ? ["; "] : []), ...effectText(x, ctx)])] : [])];
    }
    case "trooper_revealed": return [who(e.trooper), ` revealed from Hidden Deployment at ${point(e.position)}`];
    case "trooper_kept_airborne": return [who(e.trooper), " stays off the table in Airborne Deployment (secret; Combat Jump later)"];
    case "combat_jump_landed": {
      const die = (e.roll?.dice ?? []).map((/** @type {any} */ d) => d.value).join(", ");
      return ["Combat Jump: ", who(e.trooper), ` placed at ${point(e.landing)}, PH Roll ${die} against ${e.roll?.success_value}: `,
        e.landed ? "passed, it lands there" : `failed, it lands at ${point(e.position)} on its Deployment Zone's table edge`];
    }
    case "lieutenant_appointed": return ["Your new Lieutenant will be ", who(e.trooper), " (secret; from the End of this Turn)"];
    case "chain_of_command_took_over": return ["Chain of Command: ", who(e.trooper), " is your new Lieutenant (secret; no Loss of Lieutenant)"];
    case "mine_placed": return [who(e.owner), ` lays a Mine (${weaponName(e.weapon)}) at ${point(e.position)} by Minelayer: the enemy sees a Camouflage marker`];
    case "terrain_type_chosen": return [who(e.trooper), ` uses Terrain (${({ aquatic: "Aquatic", desert: "Desert", jungle: "Jungle", mountain: "Mountain", zero_g: "Zero-G" })[e.terrain_type] ?? e.terrain_type}) this game`];
    case "mines_lost": return [who(e.owner), ` loses ${e.count} Mine${e.count === 1 ? "" : "s"} (${weaponName(e.weapon)}): its roll to deploy failed`];
    case "mine_triggered": return [`A Mine (${weaponName(e.weapon)}) at ${point(e.position)} goes off against `, who(e.target), ` at ${point(e.at)} (a Dodge it declares is at PH -3)`];
    case "infiltration_rolled": {
      const die = (e.roll?.dice ?? []).map((/** @type {any} */ d) => d.value).join(", ");
      const roll = e.roll ? `, PH-3 Roll ${die || "none"} against ${e.roll.success_value}` : "";
      return ["Infiltration: ", who(e.trooper), ` into the enemy half at ${point(e.position)}${roll}: `,
        e.passed ? "passed, it deploys there" : "failed, it deploys as a model in its own Deployment Zone"];
    }
    case "command_token_spent": return describeTokenSpent(e, who);
    case "fireteam_formed": return [`Player ${e.side} forms a ${FIRETEAM_KINDS[e.kind] ?? e.kind} (Level ${e.level}) led by `, who(e.leader), ": ", ...troopers(e.members ?? [], ctx)];
    case "fireteam_left": return [who(e.trooper), ` leaves its Fireteam (${FIRETEAM_LEFT[e.reason] ?? e.reason})`,
      e.cancelled ? "; the Fireteam is cancelled" : e.level ? `; the Fireteam is Level ${e.level} now` : ""];
    case "guts_failure_chosen": return [who(e.trooper), ` will ${e.fail ? "fail" : "roll"} its Guts Rolls (secret)`];
    case "states_phase_checked": return ["States Phase: ",
      ...((e.stunned_cancelled ?? []).length ? [...troopers(e.stunned_cancelled, ctx), ` ${e.stunned_cancelled.length === 1 ? "is" : "are"} no longer Stunned (cancelled automatically, no roll)`] : []),
      ...((e.stunned_cancelled ?? []).length && (e.dogged_dead ?? []).length ? ["; "] : []),
      ...((e.dogged_dead ?? []).length ? [...troopers(e.dogged_dead, ctx), ` ${e.dogged_dead.length === 1 ? "dies" : "die"}: Dogged lasts only to the end of the turn`] : []),
      ...(e.zones_removed ? [`${(e.stunned_cancelled ?? []).length || (e.dogged_dead ?? []).length ? "; " : ""}${e.zones_removed} Smoke/Eclipse zone${e.zones_removed === 1 ? "" : "s"} removed`] : [])];
    case "clock_switched": return [e.running ? `Chess clock: player ${e.running}'s runs` : "Chess clocks stopped",
      ` (A ${clockFace(e.remaining?.A)}, B ${clockFace(e.remaining?.B)} left)`];
    case "clocks_held": return [`Chess clocks held for ${clockFace(e.to_ms - e.from_ms)}: nobody could play while the referee was down`,
      ` (A ${clockFace(e.remaining?.A)}, B ${clockFace(e.remaining?.B)} left)`];
    case "clock_ran_out": return [`Player ${e.side}'s time ran out: no more Orders after the current one (it still declares AROs)`];
    case "turn_ended": return [`Player ${e.side}'s turn ended (${e.unused_orders} unused Order${e.unused_orders === 1 ? "" : "s"} lost)`];
    // Missions (mission-words.js): a marker activated, OP scored, Classified Objectives.
    case "objective_activated": case "objective_points_scored": case "classified_drawn": case "classified_achieved":
      return describeMissionEvent(e, ctx.state ?? null, who) ?? [];
    case "game_ended": return [`Game over: ${resultText(e.result)}${e.dice_revealed?.secret ? "; the dice secret is revealed: anyone may now verify every die" : ""}`];
    default: return [`${String(e.type).replace(/_/g, " ")}`];
  }
}

/** A chess clock's time: "1:15:00", "42:07", "0:09" (whole seconds, rounded up). @param {number | undefined} ms */
function clockFace(ms) {
  const total = Math.max(0, Math.ceil((ms ?? 0) / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  return `${h ? `${h}:${String(m).padStart(2, "0")}` : m}:${String(s).padStart(2, "0")}`;
}

/** The game's result in words: winner, Objective Points on a mission, victory points, why.
 * @param {Record<string, any> | null | undefined} result */
export function resultText(result) {
  if (!result) return "";
  const points = scoreText(result);
  const how = decidedBy(result);
  return `${result.winner ? `player ${result.winner} wins` : "a draw"}${points ? ` (${points})` : ""}${how ? `, ${how}` : ""}, ${String(result.reason ?? "").replace(/_/g, " ")}`;
}

/** Why a trooper may react, in words. @param {Record<string, any>} x */
export function whyText(x) {
  return [x.line_of_fire && "LoF", x.zone_of_control && "ZoC", x.template && "under a template", x.sixth_sense && "Sixth Sense",
    x.comms_target && "target of a Comms Attack", x.hacking_area && "in its Hacking Area"].filter(Boolean).join(", ") || "eligible";
}

/**
 * A declared skill in words.
 * @param {Record<string, any>} skill @param {Context} [ctx] @returns {Part[]}
 */
export function skillText(skill, ctx = {}) {
  const who = (/** @type {string} */ id) => namesOf(ctx).label(id);
  switch (skill.type) {
    case "move": case "cautious_move": case "jump": case "climb": {
      const route = skill.route ?? [];
      const via = route.length > 2 ? ` via ${route.slice(1, -1).map(point).join(", ")}` : "";
      return [`${skillName(skill.type)} ${inches(routeInches(route))} to ${point(route[route.length - 1])}${via}${skill.facing != null ? `, facing ${facingText(skill.facing)}` : ""}`];
    }
    case "bs_attack": {
      const w = catalogueWeapon(skill.weapon);
      const template = w?.kind === "direct_template";
      /** @type {Part[]} */
      const out = [`BS Attack with ${weaponName(skill.weapon)}${template ? " (template)" : ""} at `];
      (skill.targets ?? []).forEach((/** @type {any} */ t, /** @type {number} */ i) => {
        if (i) out.push(", ");
        out.push(who(t.trooper));
        if (!template) out.push(` (B${t.burst})`);
      });
      if (skill.firing_point) out.push(` from ${point(skill.firing_point)}`);
      if (skill.target_point) out.push(` as it passes ${point(skill.target_point)}`); // an ARO's chosen point of the route
      return out;
    }
    case "cc_attack": return [`CC Attack with ${weaponName(skill.weapon)} on `, who(skill.target)];
    case "berserk": return ["Berserk on ", who(skill.target), ` with ${weaponName(skill.weapon)}: a ${inches(routeInches(skill.route ?? []))} move into contact, then a CC Attack (its whole Order)`];
    case "comms_attack": return [`Comms Attack: ${weaponName(skill.program)} on `, who(skill.target)];
    case "forward_observer": return ["Forward Observer on ", who(skill.target), ...(skill.target_point ? [` as it passes ${point(skill.target_point)}`] : [])];
    case "place_deployable": return [`Place Deployable: ${weaponName(skill.weapon)} at ${point(skill.position)}`];
    case "activate": return [`Activate the ${markerName(ctx.state?.mission ?? null, skill.marker)} (a WIP Roll)`];
    case "classified_action": return [`Classified Objective: ${cardTitle(ctx.state, sideOf(namesOf(ctx).activeTrooper ?? "") ?? "", skill.card)}`,
      ...(skill.target ? [" on ", who(skill.target)] : []), " (a WIP Roll)"];
    case "doctor": return ["Doctor on ", who(skill.target)];
    case "paramedic": return ["Paramedic on ", who(skill.target), " (its PH Roll)"];
    case "engineer": return [skill.cancel_states ? "Engineer (cancel States) on " : "Engineer (repair) on ", who(skill.target)];
    case "discover": return ["Discover ", who(skill.target), ...(skill.target_point ? [` as it passes ${point(skill.target_point)}`] : [])];
    case "suppressive_fire": return ["Suppressive Fire (enters the Suppressive Fire State)"];
    case "combat_jump": return [`Combat Jump (lands at ${point(skill.position)}; its whole Order)`];
    case "dodge": return [skill.route?.length > 1 ? `Dodge (moving ${inches(routeInches(skill.route))} to ${point(skill.route[skill.route.length - 1])} if it succeeds)` : "Dodge"];
    default: return [skillName(skill.type)];
  }
}

const CONDITION = { normal: "still fighting", unconscious: "Unconscious", dead: "Dead" };
const IDLE_REASON = {
  target_not_discovered: "its target is a Camouflage marker it did not Discover",
  target_not_enemy: "its target is not an enemy", not_in_base_contact: "not in base contact with its target",
  target_null: "its target is already out of the game (Null)", target_camouflaged: "its target is a Camouflage marker",
  outside_hacking_area: "the target is outside its Hacking Area", target_not_a_marker: "its target is not a marker",
  discover_already_failed: "it already failed to Discover that marker", no_line_of_fire: "no Line of Fire",
  aro_must_target_active_trooper: "an ARO must target a trooper activated by the Order", not_usable_in_aro: "not usable in ARO",
  aro_not_valid: "no Line of Fire, Zone of Control or other reason to react (ARO Check)",
  berserk_out_of_reach: "it could not reach Silhouette contact with its target (Berserk): it did not move",
  zone_of_control_only: "in Zone of Control without Line of Fire only Dodge or Reset",
  beyond_template_reach: "its target is beyond the template's reach",
  template_touches_ally: "an ally is under the template, so it is cancelled",
  not_on_route: "the point it chose is not on the trooper's route",
  not_in_silhouette_contact: "not in Silhouette contact with its patient", target_not_allied: "its target is not an ally on the table",
  target_not_treatable: "its target no longer needs that treatment",
};
const MOVE_REASON = { dodge: "Dodge", dodge_stopped_at_a_base: "Dodge, stopped against another base",
  guts_out_of_line_of_fire: "failed Guts Roll: out of Line of Fire",
  guts_out_of_reach: "failed Guts Roll: out of reach", guts_to_cover: "failed Guts Roll: into cover" };
/** The rule a Guts movement must satisfy (guts_window_opened.reason, options.guts_move.reason). */
export const GUTS_RULE = { guts_out_of_line_of_fire: "up to 2\" out of the attackers' Line of Fire",
  guts_out_of_reach: "up to 2\" out of the attackers' reach (Line of Fire, Hacking Area)", guts_to_cover: "up to 2\" into Partial Cover from the attackers" };
const GUTS_CHOICE = { chosen: "its owner's choice", default: "the default, accepted", deadline: "the default: time ran out", automatic: "no movement to choose" };
const PRONE_REASON = { unconscious: "Unconscious", guts: "failed Guts Roll" };
const TURN_REASON = { alert: "Alert!", dodge: "Dodge" };
/** @param {Record<string, string>} table @param {string} key */
const lookupWords = (table, key) => table[key] ?? String(key ?? "").replace(/_/g, " ");

/**
 * An effect of an Order in words.
 * @param {Record<string, any>} x @param {Context} [ctx] @returns {Part[]}
 */
export function effectText(x, ctx = {}) {
  const who = (/** @type {string} */ id) => namesOf(ctx).label(id);
  switch (x.type) {
    case "wounded": return [who(x.trooper), ` now has ${x.wounds} wound${x.wounds === 1 ? "" : "s"}: ${CONDITION[/** @type {keyof typeof CONDITION} */ (x.condition)] ?? x.condition}`];
    case "coup_de_grace": return [who(x.trooper), " finishes off ", who(x.target), " (Coup de Grâce: no roll, no save)"];
    case "healed": return [who(x.by), ` treats `, who(x.trooper), ` (${skillName(x.skill)}): one Wound removed, now ${x.wounds}: ${CONDITION[/** @type {keyof typeof CONDITION} */ (x.condition)] ?? x.condition}`];
    case "treatment_failed": return [who(x.by), ` failed the ${skillName(x.skill)} roll on `, who(x.trooper)];
    case "moved": return [who(x.trooper), ` moves ${inches(routeInches(x.route))} to ${point(x.route?.[x.route.length - 1])} (${lookupWords(MOVE_REASON, x.reason)})`];
    case "turned": return [who(x.trooper), ` turns to face ${facingText(x.facing)} (${lookupWords(TURN_REASON, x.reason)})`];
    case "went_prone": return [who(x.trooper), ` goes Prone (${lookupWords(PRONE_REASON, x.reason)})`];
    case "targeted_set": return [who(x.trooper), ` is Targeted (${x.program === "forward_observer" ? "Forward Observer" : weaponName(x.program)})`];
    case "targeted_cleared": return [who(x.trooper), " is no longer Targeted"];
    case "incapacitation_ignored": return [who(x.trooper), x.skill === "dogged"
      ? " fights on with Dogged: treated as Normal until the States Phase of this turn, then Dead; one more wound kills it"
      : " fights on with No Wound Incapacitation: treated as Normal; one more wound kills it"];
    case "deployable_placed": return [who(x.trooper), ` places a Mine (${weaponName(x.weapon)}) at ${point(x.position)}: a Camouflage marker on the table`];
    case "deployable_removed": return [who(x.deployable), x.reason === "detonated" ? " went off and is removed from play" : " is removed from play"];
    case "zone_placed": return [who(x.trooper), ` leaves a ${x.zone?.kind === "eclipse" ? "Eclipse" : "Smoke"} zone at ${point(x.zone?.centre)} (${weaponName(x.weapon)}): no Line of Fire through it until the States Phase${x.zone?.kind === "eclipse" ? "" : ", but for a Multispectral Visor"}`];
    case "stunned_set": return [who(x.trooper), ` is Stunned until the States Phase (${weaponName(x.weapon)}${weaponName(x.weapon).includes("Stun") ? "" : ": Stun"})`];
    case "isolated_set": return [who(x.trooper), ` is Isolated (${weaponName(x.weapon)}: E/M)`];
    case "isolated_cleared": return [who(x.trooper), " is no longer Isolated"];
    case "immobilized_b_set": return [who(x.trooper), ` is Immobilized-B (${weaponName(x.weapon)}: E/M)`];
    case "immobilized_b_cleared": return [who(x.trooper), " is no longer Immobilized-B"];
    case "became_idle": return [who(x.trooper), ` declared ${skillName(x.skill)}`, ...(x.target ? [" at ", who(x.target)] : []),
      `: ${lookupWords(IDLE_REASON, x.reason)}, the ${x.aro ? "ARO" : "Order"} is lost (Idle)`];
    case "weapon_used": {
      const most = catalogueWeapon(x.weapon)?.disposable;
      return [who(x.trooper), ` used its ${weaponName(x.weapon)} (${x.uses}${most ? ` of ${most}` : ""} use${(most ?? x.uses) === 1 ? "" : "s"} spent)`];
    }
    case "revealed": return [who(x.trooper), ` revealed (${x.reason === "discovered" ? "Discovered" : x.reason === "shot_by_visor_l3" ? "shot at through a Multispectral Visor L3, no Discover needed" : String(x.reason).replace(/^declared_/, "it declared ").replace(/_/g, " ")})`];
    case "discover_failed": return [who(x.trooper), " failed to Discover ", who(x.marker)];
    default: return [String(x.type).replace(/_/g, " "), ...(x.trooper ? [" ", who(x.trooper)] : [])];
  }
}

// --- the roll record of an Order ---------------------------------------------------------------

const VERB = { bs_attack: "shoots", cc_attack: "attacks in close combat", comms_attack: "hacks", dodge: "dodges", reset: "resets",
  discover: "tries to Discover", guts: "makes a Guts Roll", doctor: "treats (Doctor)",
  paramedic: "makes its PH Roll (Paramedic)", engineer: "repairs (Engineer)", forward_observer: "marks (Forward Observer)",
  activate: "tries to activate a mission marker (Activate)", classified_action: "works at its Classified Objective" };
const MOD_NAME = { range: "range", partial_cover: "Partial Cover", targeted: "Targeted", mimetism: "Mimetism", multispectral_visor: "Multispectral Visor", smoke: "through Smoke (Multispectral Visor L1)", ecm: "ECM", stunned: "Stunned",
  no_line_of_fire: "no LoF", surprise_attack: "Surprise Attack", suppressive_fire: "enemy Suppressive Fire",
  fireteam: "Fireteam Bonus",
  martial_arts: "Martial Arts", berserk: "Berserk", martial_arts_opponent: "enemy Martial Arts", nanoscreen: "Nanoscreen",
  dodge: "Dodge skill MOD", enemy_dodge: "enemy Dodge MOD" };
const MOD_CAP = 12;

/** A MOD's name in words. @param {Record<string, any>} m @param {Record<string, any>} r */
function modName(m, r) {
  const source = m.source ?? m.reason ?? "";
  if (source === "program") return `${weaponName(r.weapon)} program`;
  if (source === "range" && r.range) return `range ${r.range.from}-${r.range.up_to}"`; // a preview's band
  return MOD_NAME[/** @type {keyof typeof MOD_NAME} */ (source)] ?? String(source).replace(/_/g, " ");
}

/** "BS 11 +3 range −3 Partial Cover = SV 11" (the cap named when it applies). @param {Record<string, any>} r */
export function successValueText(r) {
  const mods = r.mods ?? [];
  const sum = mods.reduce((/** @type {number} */ n, /** @type {any} */ m) => n + m.value, 0);
  const parts = mods.map((/** @type {any} */ m) => `${signed(m.value)} ${modName(m, r)}`);
  const capped = Math.abs(sum) > MOD_CAP ? ` (net MOD ${signed(sum)} capped at ${signed(Math.sign(sum) * MOD_CAP)})` : "";
  const sv = r.success_value < 0 ? `${MINUS}${Math.abs(r.success_value)}` : String(r.success_value);
  return `${r.attribute} ${r.base}${parts.length ? ` ${parts.join(" ")}` : ""}${capped} = SV ${sv}`;
}

/**
 * What the server's options show of a BS Attack or Discover before it is declared (each
 * offered shot's preview, server/rules/previews.py): the final Success Value with every MOD
 * and the distance ("BS 12 +3 range 0-8" −6 Mimetism = SV 9 at 6.2""), a Direct Template's
 * reach, or, for a legal declaration that fails without dice, why.
 * @param {Record<string, any> | undefined} p
 */
export function shotPreviewText(p) {
  if (!p) return "";
  const at = p.distance === null || p.distance === undefined ? "" : ` at ${inches(p.distance)}`;
  if (p.template) return `Direct Template${at}, reach ${inches(p.reach)}: hits without a roll`;
  if (p.automatic_failure === "out_of_range") return `out of range${at} (max ${inches(p.max_range)}): fails automatically, no dice`;
  const sv = successValueText({ ...p, success_value: p.sv });
  if (p.automatic_failure === "sv_below_1") return `${sv}${at}: below 1, fails automatically, no dice`;
  const sd = p.sustained_dice ? `, +${p.sustained_dice} SD (Fireteam: roll ${p.sustained_dice} more, discard the worst)` : "";
  return `${sv}${at}${sd}`;
}

/** The number a die counts as in a Face to Face (N4 with SV above 20: face + excess). */
const dieValue = (/** @type {any} */ d) => (typeof d === "object" ? d.value ?? d.face : d);
const dieFace = (/** @type {any} */ d) => (typeof d === "object" ? d.face : d);
/** The dice that count: a die discarded by Sustained Dice (a Fireteam's +1 SD) does not. */
const successes = (/** @type {Record<string, any>} */ r) => (r.dice ?? []).filter((/** @type {any} */ d, /** @type {number} */ i) => typeof d === "object" && d.success && !r.discarded?.[i]);

/** The die faces of a roll as dice. @param {Record<string, any>} r @param {Record<string, any>[]} opponents @returns {Piece[]} */
function diceOf(r, opponents) {
  const by = opponents.map((o) => o.trooper).join(" and ");
  return (r.dice ?? []).map((/** @type {any} */ d, /** @type {number} */ i) => {
    const face = dieFace(d);
    const shown = dieValue(d) !== face ? `${face}→${dieValue(d)}` : String(face);
    if (r.discarded?.[i]) return { text: shown, cls: "die discarded", title: `${face}: the extra die of Fireteam +1 SD, discarded (the die worth least)` };
    if (r.cancelled?.[i]) {
      return { text: shown, cls: `die cancelled${d.critical ? " was-critical" : ""}`,
        title: `${face}: ${d.critical ? "a critical" : "a success"}, cancelled by the opponent's roll${by ? ` (${by})` : ""}` };
    }
    if (d.critical) return { text: shown, cls: "die critical", title: `${face}: critical (equal to the SV): an extra Saving Roll` };
    if (d.success) return { text: shown, cls: "die success", title: `${face}: success (${face} ≤ SV ${r.success_value})` };
    return { text: shown, cls: "die miss", title: `${face}: failure (above SV ${r.success_value})` };
  });
}

/**
 * Why this roll's dice were cancelled, by the rules of the Face to Face Roll (DIGEST 7.4).
 * @param {Record<string, any>} r @param {Record<string, any>[]} opponents @param {Context} ctx @returns {Part[]}
 */
function cancelText(r, opponents, ctx) {
  const lost = (r.dice ?? []).filter((/** @type {any} */ d, /** @type {number} */ i) => r.cancelled?.[i]);
  if (!lost.length) return [];
  const faces = lost.map(dieFace).join(", ");
  const ownCrit = successes(r).some((/** @type {any} */ d) => d.critical);
  // The opponent whose roll did it: one with a critical, else the one with the best success.
  let best = null; let by = null;
  for (const o of opponents) {
    for (const d of successes(o)) {
      if (!best || (d.critical && !best.critical) || (d.critical === best.critical && dieValue(d) > dieValue(best))) { best = d; by = o; }
    }
  }
  if (!best || !by) return [` Its ${faces} ${lost.length === 1 ? "was" : "were"} cancelled.`];
  const whose = namesOf(ctx).label(by.trooper);
  if (best.critical && ownCrit) return [" Criticals on both sides: ", whose, `'s critical ${dieFace(best)} and this roll's cancel each other, so every success of both is cancelled (its ${faces}).`];
  if (best.critical) return [" ", whose, `'s critical ${dieFace(best)} cancels all its successes (${faces}).`];
  return [" ", whose, `'s best success, ${dieValue(best)}, cancels the ${faces} (${lost.length === 1 ? "equal or lower" : "each equal or lower"}).`];
}

/** What a roll achieved, in words. @param {Record<string, any>} r @param {Context} ctx @returns {Part[]} */
function verdict(r, ctx) {
  const total = r.successes + r.criticals;
  if (r.skill === "guts") return [total > 0 ? "Passed: it stays where it is." : "Failed (see the effects below)."];
  if (r.skill === "bs_attack" || r.skill === "cc_attack" || r.skill === "comms_attack") {
    if (!total) return ["No hit."];
    const hits = r.successes ? `${r.successes} hit${r.successes === 1 ? "" : "s"}` : "";
    const crits = r.criticals === 1 ? "1 critical (1 extra Saving Roll)" : r.criticals ? `${r.criticals} criticals (an extra Saving Roll each)` : "";
    return [[hits, crits].filter(Boolean).join(" and "), ...(r.target ? [" on ", namesOf(ctx).label(r.target)] : []), "."];
  }
  if (r.skill === "dodge") return [total ? "Dodges: the attacks it faced do not affect it." : "Fails to Dodge."];
  if (r.skill === "reset") return [total ? "Resets." : "Fails to Reset."];
  if (r.skill === "discover") return [total ? "Discovers it." : "Fails to Discover it."];
  return [total ? "Succeeds." : "Fails."];
}

/** The range beyond which a weapon (or Discover) cannot reach, from the catalogue. @param {Record<string, any>} r */
function longestRange(r) {
  if (r.skill === "discover") return 96;
  const ranges = catalogueWeapon(r.weapon)?.ranges ?? [];
  return ranges.length ? ranges[ranges.length - 1].up_to : null;
}

/**
 * The roll record of an Order, one line per roll, save and effect.
 * @param {Record<string, any>} outcome @param {Context} [ctx] @returns {Line[]}
 */
export function outcomeLines(outcome, ctx = {}) {
  const who = (/** @type {string} */ id) => namesOf(ctx).label(id);
  /** @type {Line[]} */
  const lines = [];
  const rolls = outcome.rolls ?? [];
  rolls.forEach((/** @type {any} */ r, /** @type {number} */ index) => {
    /** @type {Part[]} */
    const parts = [];
    const verb = VERB[/** @type {keyof typeof VERB} */ (r.skill)] ?? r.skill;
    parts.push({ ...who(r.trooper), cls: `${who(r.trooper).cls} who` }, ` ${verb}`);
    if (r.target && r.skill !== "guts") parts.push(" ", who(r.target));
    if (r.zone_at) parts.push(` at ${point(r.zone_at)}`); // Smoke or Eclipse: aimed at a point
    if (r.weapon) parts.push(` with ${weaponName(r.weapon)}`);
    parts.push(": ");
    const opponents = (r.opposed_by ?? []).map((/** @type {number} */ i) => rolls[i]).filter(Boolean);
    if (r.stun_failure) {
      parts.push(`${r.attribute} ${r.base}: it failed a Saving Roll against Stun, so it fails without a die. `);
    } else if (r.chosen_failure) {
      parts.push(`${r.attribute} ${r.base}: its owner chose to fail it, no die rolled. `);
    } else if (r.courage) {
      parts.push(`${r.attribute} ${r.base}: Courage passes it, no die rolled. `);
    } else if (r.automatic_failure && r.success_value >= 1) {
      // No range band reaches the target: not a MOD, the attack fails without dice (DIGEST 5.2, 10.5).
      const range = longestRange(r);
      parts.push(`out of range (beyond ${range ? `${r.weapon ? `${weaponName(r.weapon)}'s` : "its"} longest range, ${inches(range)}` : "its longest range"}): automatic failure, no die rolled. `);
    } else if (r.automatic_failure) {
      parts.push(`${successValueText(r)}: a Success Value below 1 fails automatically, no die rolled. `);
    } else {
      const extra = (r.discarded ?? []).filter(Boolean).length;
      parts.push(`${successValueText(r)}. Rolls `, ...diceOf(r, opponents).flatMap((d, i) => (i ? [" ", d] : [d])),
        extra ? ` (B${r.burst} +${extra} SD: ${(r.dice ?? []).filter((/** @type {any} */ _d, /** @type {number} */ i) => r.discarded[i]).map(dieFace).join(", ")} discarded)` : "", ". ");
    }
    if (opponents.length) {
      parts.push("Face to Face against ");
      opponents.forEach((o, i) => { if (i) parts.push(" and "); parts.push(who(o.trooper), `'s ${skillName(o.skill)}`); });
      parts.push(".", ...cancelText(r, opponents, ctx), " ");
    } else if (!r.automatic_failure && !r.chosen_failure && !r.stun_failure && !r.courage && r.skill !== "guts") {
      parts.push("Normal Roll. ");
    }
    parts.push({ text: textOf(verdict(r, ctx)), cls: "verdict" });
    lines.push({ cls: "roll", data: { roll: String(index) }, parts });
  });
  const n5 = ctx.ruleset !== "codeone";
  const attacked = new Set(rolls.map((/** @type {any} */ r) => `${r.trooper}|${r.weapon}`));
  for (const s of outcome.saves ?? []) {
    /** @type {Part[]} */
    const parts = [];
    const name = weaponName(s.weapon);
    const template = !attacked.has(`${s.attacker}|${s.weapon}`) && catalogueWeapon(s.weapon)?.kind === "direct_template";
    parts.push({ ...who(s.trooper), cls: `${who(s.trooper).cls} who` }, ` saves against ${name}${s.immune_to ? ` (${s.immune_to}: Immunity, as Normal ammunition)` : name.includes(`(${s.ammo})`) ? "" : ` (${s.ammo})`} from `, who(s.attacker));
    const hits = `${s.hits} hit${s.hits === 1 ? "" : "s"}${s.criticals ? ` + ${s.criticals} critical${s.criticals === 1 ? "" : "s"}` : ""}`;
    parts.push(`: ${template ? "hit by the template (a Direct Template weapon hits without a roll), " : ""}${hits}${s.partial_cover ? ", Partial Cover" : ""}; `);
    const count = s.rolls?.length ?? 0;
    parts.push(`${count} Saving Roll${count === 1 ? "" : "s"}, ${n5 ? `saved on ${s.target} or less` : `failed on ${s.target} or less`}: `);
    for (const x of s.rolls ?? []) {
      const failed = typeof x === "object" ? x.failed : false;
      const face = dieFace(x);
      if (parts[parts.length - 1]?.cls?.startsWith?.("die")) parts.push(" ");
      parts.push({ text: String(face), cls: `die ${failed ? "failed" : "saved"}`, title: `${face}: ${failed ? "failed save" : "saved"}` });
    }
    parts.push(". ", { text: s.failed ? `${s.failed} failed: ${s.failed} wound${s.failed === 1 ? "" : "s"} or effect${s.failed === 1 ? "" : "s"}.` : "All saved.", cls: "verdict" });
    lines.push({ cls: "roll save", parts });
  }
  for (const x of outcome.effects ?? []) lines.push({ cls: "effect", parts: effectText(x, ctx) });
  if (!lines.length) {
    // Nothing rolled: the Order's movement (placed when it was declared) is all it did.
    const moved = ctx.moved ?? [];
    lines.push({ cls: "effect", parts: moved.length ? [...troopers(moved, ctx), " moved; no roll."] : ["No roll, no effect."] });
  }
  return lines;
}

/**
 * The results block of a resolved Order (browser only).
 * @param {Record<string, any>} event an order_resolved event @param {Context} [ctx]
 */
export function renderOutcome(event, ctx = {}) {
  const box = document.createElement("div");
  box.className = "outcome";
  box.dataset.order = String(event.order);
  const title = document.createElement("div");
  title.className = "outcome-title";
  const active = ctx.names?.activeTrooper;
  title.append(`Order ${event.order}`, ...(active ? [": ", toNodes([ctx.names.label(active)])] : []));
  box.append(title);
  for (const line of outcomeLines(event.outcome ?? {}, ctx)) {
    const row = document.createElement("div");
    row.className = line.cls;
    for (const [k, v] of Object.entries(line.data ?? {})) row.dataset[k] = v;
    row.append(toNodes(line.parts));
    box.append(row);
  }
  return box;
}
