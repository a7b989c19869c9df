// Human-readable text for events and the roll/save record of a resolved Order.

/** @param {Record<string, any>} e */
export function describeEvent(e) {
  switch (e.type) {
    case "army_chosen": return `Player ${e.side} chose ${e.army?.name ?? "an army"}`;
    case "initiative_rolled": return `Initiative: rolls ${JSON.stringify(e.attempts)}; ${e.winner} wins`;
    case "initiative_chosen": return `${e.side} keeps ${e.keep} (${e.first ? "first" : "second"}${e.zone ? `, zone ${e.zone}` : ""})`;
    case "initiative_settled": return `First player ${e.first_player}; ${e.deploys_first} deploys first`;
    case "trooper_deployed": return `${e.trooper} deployed at (${e.position?.join(", ")})${e.marker ? " as a Camouflage marker" : ""}`;
    case "deployment_step_ended": return `${e.side} ended deployment step ${e.step}`;
    case "turn_started": return `Round ${e.round}, turn ${e.turn}: ${e.active} is active`;
    case "phase_started": return `Phase: ${e.phase}`;
    case "orders_counted": return `${e.side} orders: pools ${JSON.stringify(e.pools)}, irregular ${e.irregular.length}`;
    case "order_spent": return `Order ${e.order}: ${e.order_type} order on ${e.trooper}`;
    case "skill_declared": return `${e.trooper} declares ${skillText(e.skill)}`;
    case "aro_window_opened": return `ARO window (step ${e.step}): eligible ${e.eligible.map((x) => x.trooper).join(", ") || "none"}`;
    case "aro_declared": return `ARO: ${e.trooper} declares ${skillText(e.skill)}`;
    case "aro_passed": return `ARO: ${e.trooper} passes`;
    case "aro_window_closed": return `ARO window closed (${e.reason})${e.lost.length ? `; lost: ${e.lost.join(", ")}` : ""}`;
    case "order_resolved": return `Order ${e.order} resolved: ${e.outcome.rolls.length} rolls, ${e.outcome.effects.map(effectText).join("; ") || "no effects"}`;
    case "turn_ended": return `${e.side}'s turn ended (${e.unused_orders} unused orders lost)`;
    case "game_ended": return `Game over: winner ${e.result?.winner ?? "none"} (${e.result?.reason})`;
    default: return `${e.type} ${JSON.stringify(e)}`;
  }
}

function skillText(skill) {
  if (skill.route) return `${skill.type} via ${skill.route.map((p) => `(${p.join(",")})`).join(" ")}`;
  if (skill.targets) return `${skill.type} with ${skill.weapon} at ${skill.targets.map((t) => `${t.trooper} x${t.burst}`).join(", ")}`;
  return skill.type + (skill.target ? ` on ${skill.target}` : "");
}

function effectText(x) {
  if (x.type === "wounded") return `${x.trooper} wounded (${x.wounds}, ${x.condition})`;
  return `${x.type} ${x.trooper}${x.reason ? ` (${x.reason})` : ""}`;
}

/** The roll record: dice faces, SV, MODs, cancellations, saves, effects. */
export function renderOutcome(outcome) {
  const box = document.createElement("div");
  box.className = "outcome";
  for (const r of outcome.rolls) {
    const row = document.createElement("div");
    row.className = "roll";
    const mods = (r.mods ?? []).map((m) => `${m.value > 0 ? "+" : ""}${m.value} ${m.reason ?? m.source ?? ""}`).join(", ");
    row.append(`${r.trooper} ${r.skill}${r.weapon ? ` (${r.weapon})` : ""}${r.target ? ` vs ${r.target}` : ""}: ${r.attribute} ${r.base}${mods ? ` [${mods}]` : ""} = SV ${r.success_value}${r.automatic_failure ? " (automatic failure)" : ""} `);
    (r.dice ?? []).forEach((d, i) => {
      const face = typeof d === "object" ? d.face : d;
      const span = document.createElement("span");
      const critical = typeof d === "object" && d.critical;
      span.className = `die ${r.cancelled?.[i] ? "cancelled" : critical ? "critical" : (typeof d === "object" ? d.success : face <= r.success_value) ? "success" : ""}`;
      span.textContent = String(face);
      row.append(span);
    });
    row.append(` -> ${r.successes} hits, ${r.criticals} crits`);
    box.append(row);
  }
  for (const s of outcome.saves) {
    const row = document.createElement("div");
    row.className = "roll";
    row.append(`${s.trooper} saves vs ${s.weapon} (${s.ammo}): ${s.hits} hits + ${s.criticals} crits, ${s.partial_cover ? "partial cover, " : ""}rolls `);
    for (const x of s.rolls) {
      const span = document.createElement("span");
      const face = typeof x === "object" ? x.face : x;
      const failed = typeof x === "object" ? x.failed : false;
      span.className = `die ${failed ? "failed" : "success"}`;
      span.title = typeof x === "object" && x.target !== undefined ? `needs ${x.target} or less` : "";
      span.textContent = String(face);
      row.append(span);
    }
    row.append(` -> ${s.failed} failed`);
    box.append(row);
  }
  for (const x of outcome.effects) {
    const row = document.createElement("div");
    row.textContent = effectText(x);
    box.append(row);
  }
  return box;
}
