// Missions in words (docs/missions.md): the names of a mission's zones, markers and
// objectives, which side activated which marker, the Objective Points each objective has
// given so far, the new events of the log (a marker activated, OP scored and why, Classified
// Objectives drawn and achieved) and the result with OP. Pure functions of the view's state
// (`state.mission`, `state.objective_points`, `state.objective_activations`,
// `state.classified`) and of the events: no DOM, so unit tests read what the app shows.
//
// Everything here is open information but a side's own Classified Objectives, which only its
// seat's view (and a caster's) holds before they are achieved: this module shows what the view
// holds and never guesses the rest.

export const SIDES = /** @type {const} */ (["A", "B"]);

/**
 * @typedef {{id: string, name: string, x0: number, y0: number, x1: number, y1: number}} Zone
 * @typedef {{id: string, name: string, kind: string, x: number, y: number}} Marker
 * @typedef {{id: string, kind: string, op?: number, text?: string, zones?: string[], markers?: string[],
 *   when?: string | string[], specialists_only?: boolean, per_round?: boolean}} Objective
 * @typedef {{id: string, title: string, description?: string, rounds?: number, max_op?: number, zones?: Zone[],
 *   markers?: Marker[], objectives?: Objective[], classified?: {draw: number, op: number}, special_rules?: string[]}} Mission
 * @typedef {{side: string, marker: string, round: number, trooper: string}} Activation
 */

/** The mission of a view's state, or null (a game without one: the annihilation game). @param {any} state @returns {Mission | null} */
export const missionOf = (state) => state?.mission ?? null;

/** A marker's name ("West Relay Console"), its id when the mission has no such marker. @param {Mission | null} mission @param {string} id */
export function markerName(mission, id) {
  return mission?.markers?.find((m) => m.id === id)?.name ?? id;
}

/** A zone's name, its id when the mission has no such zone. @param {Mission | null} mission @param {string} id */
export function zoneName(mission, id) {
  return mission?.zones?.find((z) => z.id === id)?.name ?? id;
}

/** "the A", "the A and the B", "the A, the B and the C". @param {string[]} names */
function listed(names) {
  if (names.length <= 1) return names.map((n) => `the ${n}`).join("");
  return `the ${names.slice(0, -1).join(", the ")} and the ${names[names.length - 1]}`;
}

/** Kinds of a marker in words (the document's `kind`). */
const MARKER_KIND = /** @type {Record<string, string>} */ ({ console: "console", antenna: "antenna", terminal: "terminal", beacon: "beacon" });

/** A marker's kind in words ("console"). @param {string} kind */
export const markerKindWords = (kind) => MARKER_KIND[kind] ?? String(kind ?? "marker").replace(/_/g, " ");

/**
 * An objective's short title, for the panel's list and the log: "Dominate the Relay Core",
 * "Activate the West Relay Console and the East Relay Console", "Kill the enemy Lieutenant".
 * Awards not made by an objective ("concession", Classified Objectives) are named too.
 * @param {Mission | null} mission @param {string} id an objective's id (an award's `objective`)
 */
export function objectiveTitle(mission, id) {
  if (id === "concession") return "Concession";
  if (id === "classified") return "Classified Objectives";
  const objective = mission?.objectives?.find((o) => o.id === id);
  if (!objective) return id.replace(/[-_]/g, " ");
  switch (objective.kind) {
    case "dominate": return `Dominate ${listed((objective.zones ?? []).map((z) => zoneName(mission, z)))}`;
    case "activate": return `Activate ${listed((objective.markers ?? []).map((m) => markerName(mission, m)))}`;
    case "kill_lieutenant": return "Kill the enemy Lieutenant";
    case "more_points_killed": return "Kill more than the enemy";
    case "kill_thresholds": return "Kill a share of the enemy army";
    default: return String(objective.kind).replace(/_/g, " ");
  }
}

/** Every activation of a marker so far, in order. @param {any} state @param {string} markerId @returns {Activation[]} */
export function activationsOf(state, markerId) {
  return (state?.objective_activations ?? []).filter((/** @type {Activation} */ a) => a.marker === markerId);
}

/** The objective a marker is activated for, or null. @param {Mission | null} mission @param {string} markerId */
export function objectiveOfMarker(mission, markerId) {
  return mission?.objectives?.find((o) => o.kind === "activate" && (o.markers ?? []).includes(markerId)) ?? null;
}

/**
 * What a marker is, in a sentence for its tooltip and the panel's marker line: its name and
 * kind, what activating it needs and gives, and which sides have activated it.
 * "West Relay Console (console): a Specialist in base contact activates it with a WIP Roll
 * (1 OP per marker, scored at the end of the game). Activated by Player A (round 2)."
 * @param {any} state @param {string} markerId
 */
export function markerText(state, markerId) {
  const mission = missionOf(state);
  const marker = mission?.markers?.find((m) => m.id === markerId);
  if (!marker) return markerId;
  const objective = objectiveOfMarker(mission, markerId);
  const who = objective?.specialists_only ? "a Specialist trooper" : "a trooper";
  const often = objective?.per_round ? "once per Game Round for each side" : "once in the game for each side";
  const when = objective?.when === "game_end" ? "scored at the end of the game" : "scored at the end of the Game Round";
  const needs = objective
    ? `: ${who} in base contact activates it with the Short Skill Activate and a WIP Roll, ${often} (${objective.op ?? 0} OP, ${when})`
    : ": no objective asks to activate it";
  const done = activationsOf(state, markerId);
  const by = SIDES.map((side) => {
    const rounds = done.filter((a) => a.side === side).map((a) => a.round);
    return rounds.length ? `Player ${side} (round${rounds.length > 1 ? "s" : ""} ${rounds.join(", ")})` : null;
  }).filter(Boolean);
  return `${marker.name} (${markerKindWords(marker.kind)})${needs}. ${by.length ? `Activated by ${by.join(" and ")}.` : "Not activated yet."}`;
}

/** The sides that have activated a marker (this Game Round only, for an objective once per round). @param {any} state @param {string} markerId */
export function activatedBy(state, markerId) {
  const objective = objectiveOfMarker(missionOf(state), markerId);
  const done = activationsOf(state, markerId).filter((a) => !objective?.per_round || a.round === state?.round);
  return SIDES.filter((side) => done.some((a) => a.side === side));
}

/**
 * The Objective Points scored so far, from the events: per objective (an award's `objective`)
 * and side, and each award's line in order. Classified Objectives count under "classified".
 * Built event by event (`add`), as the log is, so a tab that rebuilt its log from the history
 * counts what one that watched live counted.
 */
export class ObjectiveTally {
  constructor() {
    /** @type {Map<string, {A: number, B: number}>} objective id -> OP per side */
    this.byObjective = new Map();
    /** @type {{side: string, objective: string, op: number, reason: string, round: number | null, when: string}[]} */
    this.awards = [];
    /** The highest event version counted (an event is counted once). */
    this.version = 0;
  }

  /** Count an event's awards. @param {number} version @param {Record<string, any> | null} event */
  add(version, event) {
    if (!event || version <= this.version) return;
    this.version = version;
    if (event.type === "objective_points_scored") {
      for (const award of event.awards ?? []) this.#award(award.objective, award.side, award.op, award.reason, event.round ?? null, event.when);
    } else if (event.type === "classified_achieved") {
      this.#award("classified", event.side, event.op ?? 0, event.reason ?? "", null, "classified");
    }
  }

  /** @param {string} objective @param {string} side @param {number} op @param {string} reason @param {number | null} round @param {string} when */
  #award(objective, side, op, reason, round, when) {
    const row = this.byObjective.get(objective) ?? { A: 0, B: 0 };
    if (side === "A" || side === "B") row[side] += op;
    this.byObjective.set(objective, row);
    this.awards.push({ side, objective, op, reason, round, when });
  }

  /** OP an objective gave each side so far. @param {string} id */
  of(id) {
    return this.byObjective.get(id) ?? { A: 0, B: 0 };
  }

  /** OP per side over every award counted. */
  total() {
    const sum = { A: 0, B: 0 };
    for (const row of this.byObjective.values()) { sum.A += row.A; sum.B += row.B; }
    return sum;
  }
}

/** Each side's OP so far as the state says it (0 for a side that scored nothing). @param {any} state */
export function opSoFar(state) {
  const op = state?.objective_points ?? {};
  return { A: Number(op.A ?? 0), B: Number(op.B ?? 0) };
}

/**
 * A side's Classified Objectives as this view holds them: how many it drew, the OP they
 * gave, and the cards the view may read (its own seat's, a caster's, anyone's once achieved,
 * all at the game's end). `hidden` is how many this view cannot read.
 * @param {any} state @param {string} side
 * @returns {{count: number, op: number, cards: {id: string, title: string, text: string, achieved: boolean}[], hidden: number} | null}
 */
export function classifiedOf(state, side) {
  const held = state?.classified?.[side];
  if (!held) return null;
  const cards = Array.isArray(held.cards) ? held.cards : [];
  const count = Number(held.count ?? cards.length);
  return { count, op: Number(held.op ?? 0), cards, hidden: Math.max(0, count - cards.length) };
}

/** A card's title by id as the view holds it (an achieved card is open to all), else "a Classified Objective". @param {any} state @param {string} side @param {string} id */
export function cardTitle(state, side, id) {
  return classifiedOf(state, side)?.cards.find((c) => c.id === id)?.title ?? "a Classified Objective";
}

/** "1 OP", "2 OP". @param {number} op */
const opWords = (op) => `${op} OP`;

/**
 * The mission's events in words for the log (describe.js calls it), or null for another
 * event. `who` names a trooper as the log does; `state` is the view's (marker names, card
 * titles).
 * @param {Record<string, any>} e @param {any} state @param {(id: string) => any} who
 * @returns {any[] | null} rich text (describe.js Part[])
 */
export function describeMissionEvent(e, state, who) {
  const mission = missionOf(state);
  switch (e.type) {
    case "objective_activated":
      return [who(e.trooper), ` activates the ${markerName(mission, e.marker)} for Player ${e.side} (round ${e.round}): `,
        { text: activationScoring(mission, e.marker), cls: "mission-note" }];
    case "objective_points_scored": {
      const when = e.when === "game_end" ? "End of the game" : `End of round ${e.round}`;
      const awards = (e.awards ?? []).map((/** @type {any} */ a) =>
        `Player ${a.side} scores ${opWords(a.op)} for ${objectiveTitle(mission, a.objective)}: ${a.reason}`);
      return [{ text: `${when}, Objective Points: `, cls: "mission-note" }, awards.join("; ") || "nothing scored"];
    }
    case "classified_drawn": {
      const n = Number(e.count ?? e.cards?.length ?? 0);
      const cards = Array.isArray(e.cards) ? e.cards : null;
      // Each title as a piece the log's refresh (history.js) writes in once the state holds the card.
      const titles = (cards ?? []).flatMap((/** @type {string} */ id, /** @type {number} */ i) => [...(i ? [", "] : []),
        { text: cardTitle(state, e.side, id), cls: "classified-title", data: { classifiedSide: String(e.side), classifiedCard: id } }]);
      return [`Player ${e.side} draws ${n} Classified Objective${n === 1 ? "" : "s"}`,
        ...(cards ? [": ", ...titles, " (secret from the opponent)"] : [" (secret: the opponent sees them only once achieved)"])];
    }
    case "classified_achieved":
      // The card's title comes with the state (a snapshot follows the event): the log's
      // refresh (history.js) writes it in once the view holds it.
      return [`Player ${e.side} achieves the Classified Objective `, { text: cardTitle(state, e.side, e.card), cls: "classified-title",
        data: { classifiedSide: String(e.side), classifiedCard: String(e.card) } },
        `: ${opWords(e.op ?? 0)}${e.reason ? ` (${e.reason})` : ""}`];
    default: return null;
  }
}

/** What an activation of a marker will score, for the log line. @param {Mission | null} mission @param {string} markerId */
function activationScoring(mission, markerId) {
  const objective = objectiveOfMarker(mission, markerId);
  if (!objective) return "no objective counts it";
  return `${opWords(objective.op ?? 0)} ${objective.when === "game_end" ? "at the end of the game" : "at the end of this round"}`;
}

/**
 * The result's OP and VP in words: "A 5 OP, B 2 OP; A 180 VP, B 260 VP" with a mission,
 * "A 180 VP, B 260 VP" without (the result's `op` is empty then).
 * @param {Record<string, any>} result
 */
export function scoreText(result) {
  const vp = Object.entries(result.victory_points ?? {}).map(([side, n]) => `${side} ${n} VP`).join(", ");
  const opEntries = Object.entries(result.op ?? {});
  if (!opEntries.length) return vp;
  const op = SIDES.map((side) => `${side} ${Number(result.op?.[side] ?? 0)} OP`).join(", ");
  return vp ? `${op}; ${vp}` : op;
}

/** Whether a result was decided on a mission's OP (its `op` is filled in). @param {Record<string, any> | null | undefined} result */
export const hasOp = (result) => Object.keys(result?.op ?? {}).length > 0;

/**
 * How the winner was decided, for the end screen: by OP, by VP when OP were level, or a draw.
 * @param {Record<string, any>} result
 */
export function decidedBy(result) {
  if (!hasOp(result)) return "";
  const a = Number(result.op?.A ?? 0), b = Number(result.op?.B ?? 0);
  if (result.reason === "concession") return ""; // the reason says it
  if (!result.winner) return "OP and VP level";
  if (a !== b) return "won on Objective Points";
  return "OP level: won on Victory Points";
}
