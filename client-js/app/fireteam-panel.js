// The Fireteam panel (N5): the seat's teams and what it may do with them, from
// `options.fireteams` (server/rules/options/fireteams.py). Form: a type, a leader and the
// members it offers, sent as `form_fireteam` (free in the seat's deployment step, one Command
// Token between Orders). The formed teams with their Level and its Bonuses (fireteam.js), and
// "Activate" for a member that may lead its team's Order now (`activate_fireteam`): the order
// panel then declares it (the leader's route, each member's default route: fireteam.js).
import { KIND_NAMES, bonusesAt, formProblem, teamTitle } from "./fireteam.js";
import { el } from "./dom.js";

const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/**
 * @param {object} parts
 * @param {(cmd: Record<string, any>) => Promise<any>} parts.send
 * @param {() => void} parts.render
 * @param {(id: string) => string} parts.name a trooper's name as the table shows it
 * @param {(id: string) => void} parts.activated called once the team's Order is spent (its leader)
 */
export function createFireteamPanel({ send, render, name, activated }) {
  /** The team being put together: its type, leader and the other members ticked. */
  const draft = { kind: /** @type {string|null} */ (null), leader: /** @type {string|null} */ (null), members: new Set() };

  /** @param {HTMLElement} panel @param {Record<string, any> | null} fireteams `options.fireteams` (null: not this seat's, or CodeOne) */
  function renderPanel(panel, fireteams) {
    panel.replaceChildren();
    const form = fireteams?.form ?? {};
    const teams = fireteams?.teams ?? [];
    // Why no team (or no team of a type) may be formed now, in the rules core's words.
    const why = [fireteams?.no_forming, ...Object.values(fireteams?.unavailable ?? {})].filter(Boolean);
    panel.hidden = !fireteams || (!Object.keys(form).length && !teams.length && !why.length);
    if (panel.hidden) return;
    panel.append(el("h3", {}, "Fireteams"));
    for (const team of teams) {
      const leads = (fireteams?.activate ?? []).filter((/** @type {string} */ m) => team.members.includes(m));
      const row = el("div", { class: "ft-team", "data-team": team.leader },
        el("b", {}, teamTitle(team)), ": ",
        team.members.map(name).join(", "), ` (${name(team.leader)} leads)`,
        el("div", { class: "hint" }, `Bonuses: ${bonusesAt(team.level).join("; ")}.`));
      if (leads.length) {
        row.append(el("div", {}, "One Regular Order for the team, led by: ", ...leads.map((/** @type {string} */ m) =>
          button(name(m), () => activate(m), { "data-activate-team": m }))));
      }
      panel.append(row);
    }
    if (Object.keys(form).length) renderForm(panel, form, fireteams?.cost);
    for (const text of why) panel.append(el("div", { class: "why ft-unavailable" }, text));
  }

  /** The type, leader and member choices, and "Form" (disabled with the reason until the choice is whole). */
  function renderForm(panel, form, cost) {
    if (!draft.kind || !form[draft.kind]) draft.kind = Object.keys(form)[0];
    const offer = form[draft.kind];
    if (!draft.leader || !offer.leaders[draft.leader]) { draft.leader = Object.keys(offer.leaders)[0]; draft.members.clear(); }
    const joining = offer.leaders[draft.leader];
    for (const m of [...draft.members]) if (!joining.includes(m)) draft.members.delete(m);
    const kinds = el("select", { id: "ft-kind", onchange: (e) => { draft.kind = e.target.value; render(); } },
      ...Object.entries(form).map(([kind, o]) => el("option", { value: kind, selected: kind === draft.kind },
        `${o.name} (${o.sizes[0] === o.sizes[1] ? o.sizes[0] : `${o.sizes[0]}-${o.sizes[1]}`})`)));
    const leaders = el("select", { id: "ft-leader", onchange: (e) => { draft.leader = e.target.value; draft.members.clear(); render(); } },
      ...Object.keys(offer.leaders).map((id) => el("option", { value: id, selected: id === draft.leader }, name(id))));
    const boxes = joining.map((/** @type {string} */ id) => el("label", {}, el("input", { type: "checkbox", "data-ft-member": id,
      checked: draft.members.has(id), onchange: (e) => { if (e.target.checked) draft.members.add(id); else draft.members.delete(id); render(); } }), " ", name(id), " "));
    const problem = formProblem(form, draft.kind, draft.leader, [...draft.members], name);
    const price = cost === "command_token" ? " (1 Command Token)" : cost === "deployment" ? " (free while deploying)" : "";
    panel.append(el("div", { id: "ft-form" }, "Form a ", kinds, " led by ", leaders, el("div", {}, "with: ", ...boxes),
      button(`Form Fireteam${price}`, form_, { id: "ft-send", disabled: Boolean(problem), title: problem ?? "" }),
      problem ? el("div", { class: "why", id: "ft-why" }, problem) : "", notOffered(offer)));
  }

  /** The seat's troopers this leader's team may not take, each with the rules core's reason. */
  function notOffered(offer) {
    const reasons = { ...(offer.unable ?? {}), ...(offer.apart?.[/** @type {string} */ (draft.leader)] ?? {}) };
    delete reasons[/** @type {string} */ (draft.leader)];
    const ids = Object.keys(reasons);
    if (!ids.length) return "";
    return el("details", { id: "ft-not-offered", open: true }, el("summary", {}, `Not offered (${ids.length})`),
      ...ids.map((id) => el("div", { class: "why", "data-ft-unable": id }, reasons[id])));
  }

  async function form_() {
    const answer = await send({ type: "form_fireteam", kind: draft.kind, leader: draft.leader, members: [...draft.members] });
    if (answer?.ok) { draft.members.clear(); render(); }
  }

  async function activate(/** @type {string} */ leader) {
    const answer = await send({ type: "activate_fireteam", leader });
    if (answer?.ok) activated(leader);
  }

  return { render: renderPanel };
}
