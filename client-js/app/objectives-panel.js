// The objectives panel (#objectives-panel), shown in a game played on a mission: the
// mission's title, the round out of its rounds, each side's Objective Points so far (the
// server's count, `state.objective_points`), each objective in words with what it has given
// each side so far (counted from the log's events: mission-words.js ObjectiveTally), the
// markers and who activated them, the Classified Objectives as this view holds them (a seat
// its own cards and their state; the opponent's only as a count until one is achieved, then
// revealed to everyone), the special rules, and what a marker clicked on the table is.
import { el } from "./dom.js";
import { ObjectiveTally, SIDES, activationsOf, classifiedOf, markerText, missionOf, objectiveTitle, opSoFar } from "./mission-words.js";

/**
 * @param {object} parts
 * @param {HTMLElement} parts.panel where it is drawn
 * @param {() => string | null} parts.role this tab's role: "A", "B", "spectator", "caster"
 */
export function createObjectivesPanel({ panel, role }) {
  const tally = new ObjectiveTally();
  /** The marker whose description shows (a click on the table), or null. */
  let shownMarker = /** @type {string | null} */ (null);
  /** The last state drawn (a marker click redraws with it). */
  let last = /** @type {any} */ (null);

  /** An event of the log, in version order (history.js calls it for live and loaded events alike). @param {number} version @param {any} event */
  function observe(version, event) {
    tally.add(version, event);
  }

  /** @param {any} state the view's state */
  function render(state) {
    last = state;
    const mission = missionOf(state);
    panel.hidden = !mission;
    panel.replaceChildren();
    if (!mission) return;
    const op = opSoFar(state);
    const seat = role() === "A" || role() === "B" ? role() : null;
    const rounds = mission.rounds ?? 3;
    panel.append(el("h3", { id: "mission-title" }, `Mission: ${mission.title}`),
      el("div", { class: "hint", id: "mission-round" }, state.round ? `Round ${Math.min(state.round, rounds)} of ${rounds}` : `${rounds} Game Rounds`,
        ` · up to ${mission.max_op ?? 10} OP each; the most OP wins, Victory Points break a tie`));
    panel.append(el("div", { id: "mission-op", class: "mission-op" }, ...SIDES.map((side) =>
      el("span", { class: `op-side side-${side}${seat === side ? " own" : ""}`, "data-op-side": side, title: `Player ${side}'s Objective Points so far (the server's count)` },
        `Player ${side}${seat === side ? " (you)" : ""} `, el("b", { "data-op": side }, String(op[side])), " OP"))));
    const list = el("ol", { id: "mission-objectives" });
    for (const objective of mission.objectives ?? []) {
      const given = tally.of(objective.id);
      const item = el("li", { "data-objective": objective.id },
        el("b", {}, objectiveTitle(mission, objective.id)),
        el("span", { class: "objective-op", "data-objective-op": objective.id, title: "Objective Points this objective has given each side so far" },
          ` so far: A ${given.A} · B ${given.B} OP`),
        el("div", { class: "objective-text" }, objective.text ?? ""));
      if (objective.kind === "activate") {
        item.append(el("ul", { class: "objective-markers" }, ...(objective.markers ?? []).map((/** @type {string} */ id) => markerLine(state, id))));
      }
      list.append(item);
    }
    panel.append(list);
    const classified = classifiedSection(state, mission, seat);
    if (classified) panel.append(classified);
    if ((mission.special_rules ?? []).length || mission.description) {
      panel.append(el("details", { id: "mission-rules" }, el("summary", {}, "Briefing and special rules"),
        ...(mission.description ? [el("p", {}, mission.description)] : []),
        ...(mission.special_rules ?? []).map((/** @type {string} */ text) => el("p", { class: "special-rule" }, text))));
    }
    if (shownMarker && (mission.markers ?? []).some((/** @type {any} */ m) => m.id === shownMarker)) {
      panel.append(el("div", { id: "mission-marker-info", "data-marker": shownMarker, role: "status" }, markerText(state, shownMarker), " ",
        el("button", { type: "button", class: "close-marker-info", title: "Hide", onclick: () => { shownMarker = null; render(state); } }, "×")));
    }
    const counted = tally.total();
    if (counted.A !== op.A || counted.B !== op.B) {
      // This tab did not see every scoring event (no history): the totals are the server's.
      panel.append(el("div", { class: "hint", id: "mission-tally-note" }, "Per objective: what the events this tab received say; the totals above are the server's."));
    }
  }

  /** A marker of an Activate objective: who activated it, and when. @param {any} state @param {string} id */
  function markerLine(state, id) {
    const done = activationsOf(state, id);
    const name = missionOf(state)?.markers?.find((/** @type {any} */ m) => m.id === id)?.name ?? id;
    const by = SIDES.map((side) => {
      const rounds = done.filter((a) => a.side === side).map((a) => a.round);
      return rounds.length ? el("span", { class: `side-${side} marker-done`, "data-marker-by": side }, `Player ${side} ✓ (round ${rounds.join(", ")})`) : null;
    }).filter((x) => x !== null);
    return el("li", { "data-objective-marker": id }, `${name}: `, ...(by.length ? by.flatMap((node, i) => (i ? [", ", node] : [node])) : ["not activated yet"]));
  }

  /**
   * Classified Objectives: the seat's own cards (private), the other side's as a count until
   * achieved; a spectator sees counts and achieved cards; a caster every card.
   * @param {any} state @param {any} mission @param {string | null} seat
   */
  function classifiedSection(state, mission, seat) {
    const sides = SIDES.map((side) => [side, classifiedOf(state, side)]).filter(([, held]) => held);
    if (!sides.length) {
      const draw = mission.classified?.draw ?? 0;
      return draw ? el("div", { id: "classified", class: "hint" }, `Classified Objectives: each player draws ${draw} (secret; ${mission.classified?.op ?? 1} OP each once achieved).`) : null;
    }
    const box = el("div", { id: "classified" }, el("h4", {}, "Classified Objectives"));
    // The seat's own cards first.
    const ordered = seat ? [...sides].sort(([a]) => (a === seat ? -1 : 1)) : sides;
    for (const [side, held] of /** @type {[string, NonNullable<ReturnType<typeof classifiedOf>>][]} */ (ordered)) {
      const own = side === seat;
      const head = own ? `Yours (secret from your opponent until achieved): ${held.count} card${held.count === 1 ? "" : "s"}, ${held.op} OP`
        : `Player ${side}: ${held.count} card${held.count === 1 ? "" : "s"}${held.hidden ? `, ${held.hidden} still secret` : ""}, ${held.op} OP`;
      const rows = held.cards.map((card) => el("li", { "data-classified": card.id, "data-achieved": String(Boolean(card.achieved)), class: card.achieved ? "achieved" : "" },
        el("b", {}, card.title), card.achieved ? " ✓ achieved" : " not yet", el("div", { class: "objective-text" }, card.text ?? "")));
      box.append(el("div", { class: `classified-side side-${side}`, "data-classified-side": side }, el("div", {}, head),
        ...(rows.length ? [el("ul", {}, ...rows)] : [])));
    }
    return box;
  }

  /** A marker clicked on the table: say what it is (its × hides it). @param {string} id */
  function showMarker(id) {
    shownMarker = id;
    if (last) render(last);
  }

  return { observe, render, showMarker, tally };
}
