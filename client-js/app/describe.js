// Human-readable text for events and the roll/save record of a resolved Order: who did what
// to whom, every die face, which dice cancelled which, saves, wounds and state changes.
// Everything here is derived from the event alone, so players and spectators read the same.
import { weaponName } from "./catalogue.js";

const ORDINAL = ["", "first", "second"];

/** @param {Record<string, any>} e @param {string} [ruleset] */
export function describeEvent(e, ruleset) {
  switch (e.type) {
    case "army_chosen": return `Player ${e.side} chose ${e.army?.name ?? "an army"}`;
    case "initiative_rolled": return `Initiative roll-off (WIP, face to face): ${e.attempts.map(([a, b]) => `A ${a} vs B ${b}`).join("; ")}: ${e.winner} wins`;
    case "initiative_chosen": return `${e.side} keeps ${e.keep} (${e.first ? "first" : "second"}${e.zone ? `, zone ${e.zone}` : ""})`;
    case "initiative_settled": return `First player ${e.first_player}; ${e.deploys_first} deploys first`;
    case "trooper_deployed": return `${e.trooper} deployed at (${e.position?.join(", ")})${e.marker ? " as a Camouflage marker" : ""}${e.hidden ? " in Hidden Deployment" : ""}`;
    case "deployment_step_ended": return `${e.side} ended deployment step ${e.step}`;
    case "turn_started": return `Round ${e.round}, turn ${e.turn}: ${e.active} is active`;
    case "phase_started": return `Phase: ${e.phase}`;
    case "orders_counted": return `${e.side} orders: regular ${Object.entries(e.pools).map(([g, n]) => `${n} in Combat Group ${g}`).join(", ") || "none"}, irregular ${e.irregular.length}`;
    case "loss_of_lieutenant": return `${e.side} has lost its Lieutenant (Loss of Lieutenant: its Regular Orders become Irregular)`;
    case "retreat_declared": return `${e.side} is in Retreat! (${e.victory_points} of ${e.threshold} points left)`;
    case "order_spent": return `Order ${e.order}: ${e.order_type} order${e.order_type === "regular" ? ` from Combat Group ${e.combat_group}'s pool` : ""} on ${e.trooper}${e.peripherals?.length ? ` with ${e.peripherals.join(", ")}` : ""}`;
    case "skill_declared": return `${e.trooper} declares its ${ORDINAL[e.index] ?? ""} skill: ${skillText(e.skill)}${(e.peripherals ?? []).map((p) => `; ${p.trooper}: ${skillText(p.skill)}`).join("")}`;
    case "aro_window_opened": return `ARO window (step ${e.step}): ${e.eligible.map(eligibleText).join(", ") || "nobody may react"}`;
    case "aro_declared": return `ARO: ${e.trooper} declares ${skillText(e.skill)}${e.revealed ? " (revealed)" : ""}`;
    case "aro_passed": return `ARO: ${e.trooper} passes`;
    case "aro_window_closed": return `ARO window closed (${e.reason.replace(/_/g, " ")})${e.lost.length ? `; lost: ${e.lost.join(", ")}` : ""}`;
    case "order_resolved": return `Order ${e.order} resolved: ${e.outcome.effects.map((x) => effectText(x)).join("; ") || "no effect"}`;
    case "trooper_revealed": return `${e.trooper} revealed from Hidden Deployment at (${e.position?.join(", ")})`;
    case "lieutenant_appointed": return `Your new Lieutenant will be ${e.trooper} (secret; from the End of this Turn)`;
    case "guts_failure_chosen": return `${e.trooper} will ${e.fail ? "fail" : "roll"} its Guts Rolls (secret)`;
    case "turn_ended": return `${e.side}'s turn ended (${e.unused_orders} unused orders lost)`;
    case "game_ended": return `Game over: ${resultText(e.result)}${e.dice_revealed?.secret ? "; the dice secret is revealed: anyone may now verify every die" : ""}`;
    default: return `${e.type} ${JSON.stringify(e)}`;
  }
}

/** The game's result in words: winner, victory points, why. @param {Record<string, any> | null | undefined} result */
export function resultText(result) {
  if (!result) return "";
  const points = Object.entries(result.victory_points ?? {}).map(([side, vp]) => `${side} ${vp} VP`).join(", ");
  return `${result.winner ? `player ${result.winner} wins` : "a draw"}${points ? ` (${points})` : ""}, ${String(result.reason ?? "").replace(/_/g, " ")}`;
}

function eligibleText(x) {
  const why = [x.line_of_fire && "LoF", x.zone_of_control && "ZoC", x.template && "template", x.sixth_sense && "Sixth Sense",
    x.comms_target && "Comms Attack target", x.hacking_area && "Hacking Area"].filter(Boolean);
  return `${x.trooper} (${why.join("+")})`;
}

/** A declared skill in words. @param {Record<string, any>} skill */
export function skillText(skill) {
  const at = (p) => `(${p.map((v) => Math.round(v * 100) / 100).join(", ")})`;
  switch (skill.type) {
    case "move": case "cautious_move": case "jump": case "climb":
      return `${skill.type.replace("_", " ")} to ${at(skill.route[skill.route.length - 1])}${skill.route.length > 2 ? ` via ${skill.route.slice(1, -1).map(at).join(" ")}` : ""}${skill.facing != null ? `, facing ${Math.round(skill.facing)}°` : ""}`;
    case "bs_attack":
      return `BS Attack with ${weaponName(skill.weapon)} at ${skill.targets.map((t) => `${t.trooper} (B${t.burst})`).join(", ")}${skill.firing_point ? ` from ${at(skill.firing_point)}` : ""}`;
    case "cc_attack": return `CC Attack with ${weaponName(skill.weapon)} on ${skill.target}`;
    case "comms_attack": return `Comms Attack: ${weaponName(skill.program)} on ${skill.target}`;
    case "discover": return `Discover ${skill.target}`;
    case "dodge": return skill.route?.length ? `Dodge to ${at(skill.route[skill.route.length - 1])}` : "Dodge";
    default: return skill.type;
  }
}

const CONDITION = { normal: "unhurt", unconscious: "Unconscious", dead: "Dead" };

/** An effect in words. @param {Record<string, any>} x */
export function effectText(x) {
  switch (x.type) {
    case "wounded": return `${x.trooper} now has ${x.wounds} wound${x.wounds === 1 ? "" : "s"}: ${CONDITION[x.condition] ?? x.condition}`;
    case "coup_de_grace": return `${x.trooper} finishes off ${x.target} (Coup de Grâce)`;
    case "moved": return `${x.trooper} moves to (${x.route[x.route.length - 1]?.join(", ")}) (${x.reason})`;
    case "turned": return `${x.trooper} turns to face ${Math.round(x.facing)}° (${x.reason})`;
    case "went_prone": return `${x.trooper} goes Prone (${x.reason})`;
    case "targeted_set": return `${x.trooper} is Targeted (${weaponName(x.program)})`;
    case "targeted_cleared": return `${x.trooper} is no longer Targeted`;
    case "became_idle": return `${x.trooper}'s ${SKILL_NAME[x.skill] ?? x.skill} became Idle (${x.reason.replace(/_/g, " ")})`;
    case "weapon_used": return `${x.trooper} used ${weaponName(x.weapon)} (${x.uses} used)`;
    case "revealed": return `${x.trooper} revealed (${x.reason})`;
    case "discover_failed": return `${x.trooper} failed to Discover ${x.marker}`;
    default: return `${x.type} ${x.trooper ?? ""}`;
  }
}

const SKILL_NAME = { bs_attack: "BS Attack", cc_attack: "CC Attack", comms_attack: "Comms Attack", dodge: "Dodge", reset: "Reset", discover: "Discover", guts: "Guts Roll" };
const VERB = { bs_attack: "shoots", cc_attack: "attacks in close combat", comms_attack: "hacks", dodge: "dodges", reset: "resets", discover: "tries to Discover", guts: "makes a Guts Roll" };

const dieFace = (d) => (typeof d === "object" ? d.face : d);

/** The best success of a roll (criticals first, then the highest value), or null. */
function bestSuccess(r) {
  const dice = (r.dice ?? []).filter((d) => typeof d === "object" && d.success);
  if (!dice.length) return null;
  return dice.reduce((a, b) => ((b.critical && !a.critical) || (b.critical === a.critical && b.value > a.value) ? b : a));
}

function span(cls, text, title = "") {
  const node = document.createElement("span");
  node.className = cls;
  node.textContent = text;
  if (title) node.title = title;
  return node;
}

/**
 * The roll record of an Order in words and dice.
 * @param {Record<string, any>} outcome @param {{order?: number, ruleset?: string}} [context]
 */
export function renderOutcome(outcome, context = {}) {
  const box = document.createElement("div");
  box.className = "outcome";
  if (context.order !== undefined) box.append(Object.assign(document.createElement("div"), { className: "outcome-title", textContent: `Order ${context.order}` }));
  const rolls = outcome.rolls ?? [];
  rolls.forEach((r, index) => {
    const row = document.createElement("div");
    row.className = "roll";
    row.dataset.roll = String(index);
    const what = `${r.trooper} ${VERB[r.skill] ?? r.skill}${r.target ? ` ${r.target}` : ""}${r.weapon ? ` with ${weaponName(r.weapon)}` : ""}`;
    const mods = (r.mods ?? []).map((m) => `${m.value > 0 ? "+" : ""}${m.value} ${(m.reason ?? m.source ?? "").replace(/_/g, " ")}`).join(", ");
    row.append(span("who", what), `: ${r.attribute} ${r.base}${mods ? ` ${mods}` : ""} = SV ${r.success_value}. `);
    if (r.chosen_failure) {
      row.append("Its owner chose to fail it: no die rolled.");
    } else if (r.automatic_failure) {
      row.append("Success value below 1: automatic failure, no die rolled.");
    } else {
      row.append("Rolls ");
      (r.dice ?? []).forEach((d, i) => {
        const cancelled = r.cancelled?.[i];
        const cls = cancelled ? "cancelled" : d.critical ? "critical" : d.success ? "success" : "miss";
        row.append(span(`die ${cls}`, String(dieFace(d)), cancelled ? "cancelled" : d.critical ? "critical" : d.success ? "success" : "failure"));
      });
      row.append(". ");
    }
    const opponents = (r.opposed_by ?? []).map((i) => rolls[i]).filter(Boolean);
    const cancelled = (r.dice ?? []).filter((d, i) => r.cancelled?.[i] && (typeof d !== "object" || d.success));
    if (opponents.length) {
      row.append(`Face to Face against ${opponents.map((o) => `${o.trooper}'s ${SKILL_NAME[o.skill] ?? o.skill}`).join(" and ")}. `);
      if (cancelled.length) {
        const best = opponents.map(bestSuccess).filter(Boolean).reduce((a, b) => (a && (a.critical || a.value >= b.value) ? a : b), null);
        const by = opponents.find((o) => bestSuccess(o) === best);
        row.append(`${by ? `${by.trooper}'s ${best.critical ? "critical " : ""}${dieFace(best)}` : "The opponent"} cancelled its ${cancelled.map(dieFace).join(", ")}. `);
      }
    }
    row.append(span("verdict", verdict(r)));
    box.append(row);
  });
  const n5 = context.ruleset !== "codeone";
  for (const s of outcome.saves ?? []) {
    const row = document.createElement("div");
    row.className = "roll save";
    const hits = `${s.hits} hit${s.hits === 1 ? "" : "s"}${s.criticals ? ` + ${s.criticals} critical${s.criticals === 1 ? "" : "s"}` : ""}`;
    const rule = n5 ? `saved on ${s.target} or less` : `failed on ${s.target} or less`;
    const name = weaponName(s.weapon);
    row.append(span("who", `${s.trooper} saves against ${name}${name.includes(`(${s.ammo})`) ? "" : ` (${s.ammo})`} from ${s.attacker}`),
      `: ${hits}${s.partial_cover ? ", Partial Cover" : ""}; ${s.rolls.length} roll${s.rolls.length === 1 ? "" : "s"}, ${rule}: `);
    for (const x of s.rolls) {
      const failed = typeof x === "object" ? x.failed : false;
      row.append(span(`die ${failed ? "failed" : "success"}`, String(dieFace(x)), failed ? "failed save" : "saved"));
    }
    row.append(". ", span("verdict", s.failed ? `${s.failed} failed: ${s.failed} wound${s.failed === 1 ? "" : "s"} or effect${s.failed === 1 ? "" : "s"}.` : "All saved."));
    box.append(row);
  }
  for (const x of outcome.effects ?? []) {
    const row = document.createElement("div");
    row.className = "effect";
    row.textContent = effectText(x);
    box.append(row);
  }
  if (!rolls.length && !(outcome.saves ?? []).length && !(outcome.effects ?? []).length) box.append("No roll, no effect.");
  return box;
}

/** What a roll achieved, in words. */
function verdict(r) {
  if (r.skill === "guts") return r.successes + r.criticals > 0 ? "Passed." : "Failed (see the effects below).";
  const total = r.successes + r.criticals;
  if (r.skill === "bs_attack" || r.skill === "cc_attack" || r.skill === "comms_attack") {
    if (!total) return "No hit.";
    return `${total} hit${total === 1 ? "" : "s"}${r.criticals ? ` (${r.criticals} critical)` : ""}${r.target ? ` on ${r.target}` : ""}.`;
  }
  return total ? "Succeeds." : "Fails.";
}
