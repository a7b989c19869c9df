// Command Tokens (N5; none in CodeOne): each player's tokens in the status bar, a button for
// each use the server offers this seat now (options.command_tokens: complete
// spend_command_token bodies, sent as they are), and the words for the spent-token event.

/** The status bar's "A 4 | B 3" (with "held to 1 this turn" when the Strategic limit applies), or "-" without tokens. */
export function tokensText(state) {
  const tokens = state?.command_tokens;
  const held = tokens?.held ?? {};
  const sides = Object.keys(held).sort();
  if (!sides.length) return "-";
  const limited = new Set(tokens.limited ?? []);
  return sides.map((s) => `${s} ${held[s]}${limited.has(s) ? " (1 this turn)" : ""}`).join(" | ");
}

/** A use offered as a button's words. @param {Record<string, any>} body @param {(id: string) => string} name */
export function useText(body, name) {
  switch (body.use) {
    case "remove_orders": {
      const groups = body.combat_groups ?? [];
      return `Remove ${groups.length} Regular Order${groups.length === 1 ? "" : "s"} (${groups.map((g) => `G${g}`).join(", ")})`;
    }
    case "limit_tokens": return "Limit the opponent to 1 Command Token this turn";
    case "suppressive_fire": return `Put ${name(body.trooper)} into Suppressive Fire`;
    case "hold_back": return "Hold back one more trooper (and its Peripherals) to deploy with your reserve";
    case "transfer_trooper": return `Move ${name(body.trooper)} to Combat Group ${body.combat_group}`;
    default: return body.use;
  }
}

/** A button's handle for tests and styles: "limit_tokens", "remove_orders:1,2", "transfer_trooper:A-t7:2". @param {Record<string, any>} body */
export function useKey(body) {
  if (body.use === "remove_orders") return `remove_orders:${(body.combat_groups ?? []).join(",")}`;
  if (body.use === "transfer_trooper") return `transfer_trooper:${body.trooper}:${body.combat_group}`;
  if (body.use === "suppressive_fire") return `suppressive_fire:${body.trooper}`;
  return String(body.use);
}

const USE_GROUP = { remove_orders: "Strategic", limit_tokens: "Strategic", suppressive_fire: "Strategic", hold_back: "Strategic",
  transfer_trooper: "Executive" };

/**
 * The seat's Command Token panel: one button per offered use, grouped Strategic / Executive.
 * Executive transfers are shown for the selected trooper only (one per other Combat Group),
 * so that the panel stays short. Hidden when nothing is offered: the game never waits for a
 * token to be spent.
 * @param {HTMLElement} panel @param {Record<string, any>} state @param {Record<string, any>|null} options
 * @param {{ el: Function, button: Function, send: Function, render: Function, name: (id: string) => string, role: string|null, selected: string|null }} ctx
 */
export function renderCommandTokens(panel, state, options, ctx) {
  const offered = options?.command_tokens ?? [];
  panel.hidden = !offered.length;
  panel.replaceChildren();
  if (!offered.length) return;
  const left = state.command_tokens?.held?.[ctx.role ?? ""] ?? 0;
  panel.append(ctx.el("div", {}, `Command Tokens: ${left} left. Spend one (optional):`));
  for (const kind of ["Strategic", "Executive"]) {
    const all = offered.filter((/** @type {any} */ b) => (USE_GROUP[/** @type {keyof typeof USE_GROUP} */ (b.use)] ?? "Executive") === kind);
    if (!all.length) continue;
    // Uses naming a trooper (a transfer, Suppressive Fire) are shown for the selected trooper only.
    const bodies = all.filter((/** @type {any} */ b) => !b.trooper || b.trooper === ctx.selected);
    const unselected = all.some((/** @type {any} */ b) => b.trooper) && !all.some((/** @type {any} */ b) => b.trooper && b.trooper === ctx.selected);
    const when = state.phase === "deployment" ? "Strategic use (your deployment):" : "Strategic use (your opponent's first turn, before its first Order):";
    panel.append(ctx.el("div", { class: "hint" }, kind === "Strategic"
      ? `${when}${unselected ? " select one of your troopers to put it into Suppressive Fire." : ""}`
      : bodies.length ? "Executive use (before your first Order this turn):"
        : "Executive use (before your first Order this turn): select one of your troopers to move it to another Combat Group."));
    for (const body of bodies) {
      panel.append(ctx.button(useText(body, ctx.name), async () => {
        const answer = await ctx.send(body);
        if (answer?.ok) ctx.render();
      }, { "data-command-token": useKey(body) }));
    }
  }
}

/** The log line of a command_token_spent event. @param {Record<string, any>} e @param {(id: string) => any} who */
export function describeTokenSpent(e, who) {
  const left = `${e.left} left`;
  switch (e.use) {
    case "remove_orders": {
      const removed = e.combat_groups ?? [];
      const groups = removed.map((/** @type {number} */ g) => `G${g}`).join(", ");
      return [`Player ${e.side} spends a Command Token (Strategic): ${removed.length} Regular Order${removed.length === 1 ? "" : "s"} removed from the opponent's pools (${groups}); ${left}`];
    }
    case "limit_tokens": return [`Player ${e.side} spends a Command Token (Strategic): the opponent may spend only 1 Command Token this turn; ${left}`];
    case "suppressive_fire": return [`Player ${e.side} spends a Command Token (Strategic): `, who(e.trooper), ` enters Suppressive Fire; ${left}`];
    case "hold_back": return [`Player ${e.side} spends a Command Token (Strategic): one more trooper is held back to deploy with the reserve; ${left}`];
    case "transfer_trooper": return [`Player ${e.side} spends a Command Token (Executive): `, who(e.trooper), ` joins Combat Group ${e.combat_group}; ${left}`];
    case "coordinated_order": return [`Player ${e.side} spends a Command Token on a Coordinated Order (Combat Group ${e.combat_group}), Spearhead `, who(e.trooper), `; ${left}`];
    case "form_fireteam": return [`Player ${e.side} spends a Command Token to form a Fireteam led by `, who(e.trooper), `; ${left}`];
    default: return [`Player ${e.side} spends a Command Token (${e.use}); ${left}`];
  }
}

/** Troopers ticked to join the selected Spearhead's Coordinated Order (kept across re-renders). */
const joining = new Set();

/**
 * In the order panel, for the selected trooper: a Coordinated Order (N5, DIGEST 3.4) with the
 * troopers the server lists (options.coordinate[selected]; up to 3 ticked), for 1 Command
 * Token and 1 Regular Order. Nothing when the server offers none.
 * @param {HTMLElement} panel @param {Record<string, any>|null} options
 * @param {{ el: Function, button: Function, send: Function, render: Function, name: (id: string) => string, selected: string|null }} ctx
 */
export function renderCoordinate(panel, options, ctx) {
  const offered = ctx.selected ? options?.coordinate?.[ctx.selected] ?? [] : [];
  for (const id of [...joining]) if (!offered.includes(id)) joining.delete(id);
  if (!offered.length) return;
  const start = async () => {
    const answer = await ctx.send({ type: "coordinate_order", spearhead: ctx.selected, troopers: [...joining] });
    if (answer?.ok) { joining.clear(); ctx.render(); }
  };
  panel.append(ctx.el("div", { id: "coordinate", class: "hint" }, `Coordinated Order with ${ctx.name(ctx.selected ?? "")} as Spearhead (1 Command Token + 1 Regular Order; same skills, one target; up to 3 more): `,
    ...offered.map((id) => ctx.el("label", {}, ctx.el("input", { type: "checkbox", "data-coordinate": id, checked: joining.has(id),
      disabled: !joining.has(id) && joining.size >= 3, title: !joining.has(id) && joining.size >= 3 ? "Up to 3 troopers join the Spearhead (4 in all)" : "",
      onchange: (/** @type {any} */ e) => { if (e.target.checked) joining.add(id); else joining.delete(id); ctx.render(); } }), ` ${ctx.name(id)} `)),
    ctx.button("Coordinated Order", start, { id: "coordinate-order", disabled: joining.size === 0,
      title: joining.size === 0 ? "Tick at least one trooper to act with the Spearhead" : "" }),
    joining.size === 0 ? ctx.el("span", { class: "why" }, " Tick at least one trooper to act with the Spearhead.") : ""));
}
