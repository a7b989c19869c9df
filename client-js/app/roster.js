// The roster: for each side, every trooper this viewer knows of (the view already leaves out
// what it may not see: enemy troopers in Hidden Deployment, what a Camouflage Marker is, the
// enemy Lieutenant), with its unit's short name, profile line, wounds or STR lost, states, the
// Order it brings and its Combat Group. A row click selects the trooper. Also the names the
// table writes by each base (`trooperNames`) and the state tokens (`trooperStates`).

import { skillsOf } from "./skill-labels.js";
import { bonusesAt, teamTitle } from "./fireteam.js";

/** State tokens, as the table draws them by the base and the roster lists them. */
export const STATE_TOKENS = {
  prone: { code: "PRONE", name: "Prone", fill: "#8a6a2a" },
  unconscious: { code: "UNC", name: "Unconscious", fill: "#d2401f" },
  dead: { code: "DEAD", name: "Dead (casualty)", fill: "#2a2a2a", text: "#ddd" },
  immobilized: { code: "IMM", name: "Immobilized", fill: "#c9a400", text: "#000" },
  targeted: { code: "TGT", name: "Targeted", fill: "#e0182d" },
  isolated: { code: "ISO", name: "Isolated", fill: "#7a3fb0" },
  stunned: { code: "STUN", name: "Stunned (no Attacks, -3 to rolls but saves)", fill: "#2b7bd6" },
  nwi: { code: "NWI", name: "No Wound Incapacitation (fights on; one more wound kills it)", fill: "#d2401f" },
  dogged: { code: "DOGGED", name: "Dogged (fights on; Dead in this turn's States Phase)", fill: "#d2401f" },
  suppressive_fire: { code: "SUP.FIRE", name: "Suppressive Fire", fill: "#e07b18", text: "#000" },
  hidden: { code: "HIDDEN", name: "Hidden Deployment (yours; the opponent does not see it)", fill: "#4b5563" },
  marker: { code: "CAMO", name: "Camouflage marker", fill: "#1f6f62" },
  lieutenant: { code: "LT", name: "your Lieutenant (secret)", fill: "#c9a400", text: "#000" },
};

/**
 * The states a trooper shows, in the order the tokens are drawn. Only what the view carries:
 * `immobilized`/`isolated`/`stunned_in`/`dogged_in` when a state has them (NWI: at wounds = VITA, still Normal); `lieutenant` only for one's own troopers
 * (only they carry `entry`).
 * @param {Record<string, any>} t @returns {string[]}
 */
export function trooperStates(t) {
  const states = [];
  if (t.entry?.lieutenant) states.push("lieutenant");
  if (t.condition === "dead") states.push("dead");
  else if (t.condition === "unconscious") states.push("unconscious");
  else if (t.dogged_in) states.push("dogged");
  else if (t.profile?.nwi && t.profile?.vita && t.wounds >= t.profile.vita) states.push("nwi");
  if (t.prone) states.push("prone");
  if (t.immobilized || t.immobilized_b || t.condition === "immobilized") states.push("immobilized");
  if (t.targeted) states.push("targeted");
  if (t.isolated) states.push("isolated");
  if (t.stunned_in) states.push("stunned");
  if (t.suppressive_fire) states.push("suppressive_fire");
  if (t.hidden) states.push("hidden");
  if (t.marker) states.push("marker");
  return states;
}

/** A unit name without its variant in brackets: "Syndicate Enforcer (Scorch Hose)" -> "Syndicate Enforcer". */
export const baseUnitName = (/** @type {string} */ name) => String(name ?? "").replace(/\s*\(.*\)\s*$/, "").trim();

/**
 * First words shared by several different units of one army ("Syndicate" in Syndicate Boss,
 * Syndicate Enforcer): a family name, left out of the short names.
 * @param {Iterable<string>} names @returns {Set<string>}
 */
export function familyWords(names) {
  /** @type {Map<string, Set<string>>} */
  const units = new Map();
  for (const name of names) {
    const base = baseUnitName(name);
    const words = base.split(/\s+/);
    if (words.length < 2) continue;
    if (!units.has(words[0])) units.set(words[0], new Set());
    units.get(words[0])?.add(base);
  }
  return new Set([...units].filter(([, set]) => set.size > 1).map(([word]) => word));
}

/**
 * A short unit name for the table: the family word left out, and a long name cut to its first
 * word ("Lancer Line Trooper" -> "Lancer", "Syndicate Enforcer (Scorch Hose)" -> "Enforcer").
 * @param {string} name @param {Set<string>} family
 */
export function shortUnitName(name, family = new Set()) {
  const words = baseUnitName(name).split(/\s+/).filter(Boolean);
  const rest = words.length > 1 && family.has(words[0]) ? words.slice(1) : words;
  const joined = rest.join(" ");
  return joined.length > 12 && rest.length > 1 ? rest[0] : joined || "?";
}

/** Ordinals given in this tab, kept for a reload: "side|short name" -> {trooper id: n}. */
let ordinals = /** @type {Record<string, Record<string, number>> | null} */ (null);
const ordinalsKey = () => `referee:${new URLSearchParams(globalThis.location?.hash?.slice(1) ?? "").get("room")}:ordinals`;

function loadOrdinals() {
  if (ordinals) return ordinals;
  try { ordinals = JSON.parse(globalThis.sessionStorage?.getItem(ordinalsKey()) ?? "{}") ?? {}; } catch { ordinals = {}; }
  return /** @type {Record<string, Record<string, number>>} */ (ordinals);
}

function saveOrdinals() {
  try { globalThis.sessionStorage?.setItem(ordinalsKey(), JSON.stringify(ordinals)); } catch { /* private mode */ }
}

/** Forget the ordinals given so far (tests). */
export function resetOrdinals() { ordinals = {}; }

/** On the table for everyone to see: a model or a marker, not in Hidden Deployment. */
const isPublic = (t) => Boolean(t.position) && !t.hidden;

/**
 * The names the viewer sees for each trooper it knows of: `short` (unit, short), `full`
 * (the profile's name), `ordinal` (a small number when two or more of that unit of the side
 * stand on the table; null otherwise), `label` (both). An enemy Camouflage Marker is "Camo",
 * never its unit. A trooper gets its ordinal when it first stands on the table in the open
 * (deployed, or revealed), in the view's order, and keeps it for the game in this tab: a
 * reveal or a casualty never renumbers, and both players, who see troopers arrive in the same
 * order, number them alike (a trooper still hidden or not deployed has none yet).
 * @param {Record<string, any>} state
 * @returns {Map<string, {short: string, full: string, ordinal: number|null, label: string}>}
 */
export function trooperNames(state) {
  const memory = loadOrdinals();
  /** @type {Map<string, {short: string, full: string, ordinal: number|null, label: string}>} */
  const names = new Map();
  const bySide = new Map();
  for (const t of state.troopers ?? []) {
    if (!bySide.has(t.side)) bySide.set(t.side, []);
    bySide.get(t.side).push(t);
  }
  let changed = false;
  for (const [side, troopers] of bySide) {
    const army = state.armies?.[side];
    const listed = [...(army?.entries ?? []).map((e) => e.profile?.name), ...(army?.roster ?? []).map((r) => r.unit)];
    const family = familyWords([...listed, ...troopers.map((t) => t.profile?.name)].filter(Boolean));
    const shortOf = (t) => (t.profile ? shortUnitName(t.profile.name, family) : "Camo");
    const count = new Map();
    for (const t of troopers.filter(isPublic)) count.set(shortOf(t), (count.get(shortOf(t)) ?? 0) + 1);
    for (const t of troopers) {
      const short = shortOf(t);
      const given = (memory[`${side}|${short}`] ??= {});
      if (isPublic(t) && !(t.id in given)) { given[t.id] = Math.max(0, ...Object.values(given)) + 1; changed = true; }
      const ordinal = count.get(short) > 1 ? given[t.id] ?? null : null;
      const full = t.profile ? t.profile.name : `Camouflage marker${t.camouflage ? ` (CAMO -${t.camouflage})` : ""}`;
      names.set(t.id, { short, full, ordinal, label: ordinal ? `${short} ${ordinal}` : short });
    }
  }
  if (changed) saveOrdinals();
  return names;
}

const STATS = [["MOV", (p) => p.mov?.join("-")], ["CC", (p) => p.cc], ["BS", (p) => p.bs], ["PH", (p) => p.ph], ["WIP", (p) => p.wip],
  ["ARM", (p) => p.arm], ["BTS", (p) => p.bts], ["W", (p) => p.vita], ["S", (p) => p.silhouette]];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/**
 * The Order a trooper brings to its side's pool, as its profile says (Peripherals bring none;
 * in Loss of Lieutenant, which the state lists per side, every trooper counts as Irregular).
 * The Lieutenant Order is named only on one's own Lieutenant (only it carries `entry`).
 */
function orderBrought(t, lossOfLieutenant) {
  const p = t.profile;
  if (!p) return { code: "?", title: "unknown: a Camouflage marker" };
  if (p.troop_type === "peripheral") return { code: "–", title: "Peripheral: brings no Order (acts on its Controller's)" };
  if (t.hidden) {
    const kind = lossOfLieutenant || p.training === "irregular" ? "IRR" : "REG";
    return { code: `${kind}*`, title: `Its own ${kind === "IRR" ? "Irregular" : "Regular"} Order, private while it is in Hidden Deployment (in no pool, unseen by the opponent): it spends it to reveal itself`, cls: kind === "IRR" ? "irregular" : "regular" };
  }
  const extra = [t.entry?.lieutenant && !lossOfLieutenant && "your Lieutenant: also the Lieutenant Order",
    p.tactical_awareness && "Tactical Awareness: +1 Tactical Order", p.impetuous && "Impetuous"].filter(Boolean).join("; ");
  if (lossOfLieutenant) return { code: "IRR", title: `Irregular Order: its side is in Loss of Lieutenant${extra ? `; ${extra}` : ""}`, cls: "irregular" };
  return p.training === "irregular"
    ? { code: "IRR", title: `Irregular Order${extra ? `; ${extra}` : ""}`, cls: "irregular" }
    : { code: "REG", title: `Regular Order (into its Combat Group's pool)${extra ? `; ${extra}` : ""}`, cls: "regular" };
}

/**
 * Fill `container` with one block per side (the viewer's own first).
 * @param {HTMLElement} container
 * @param {import("./lib/view.js").LocalView} view
 * @param {string|null} role "A", "B" or "spectator"
 * @param {{selected: string|null}} ui
 * @param {(id: string) => void} onSelect
 * @param {(id: string, on: boolean) => void} [onHover]
 */
export function renderRoster(container, view, role, ui, onSelect, onHover) {
  const state = view.state;
  if (!container || !state) return;
  const names = trooperNames(state);
  teams = new Map((state.fireteams ?? []).flatMap((/** @type {any} */ team) => team.members.map((/** @type {string} */ m) => [m, team])));
  const active = new Set(state.order ? [state.order.trooper, ...(state.order.peripherals ?? [])] : []);
  const sides = role === "B" ? ["B", "A"] : ["A", "B"];
  const scroll = container.scrollTop;
  container.replaceChildren(el("h3", { class: "roster-title" }, "Roster"));
  for (const side of sides) {
    const own = side === role;
    const troopers = state.troopers.filter((t) => t.side === side);
    const army = state.armies?.[side];
    const onTable = troopers.filter((t) => t.position && !t.hidden);
    const casualties = troopers.filter((t) => t.condition === "dead").length;
    const lost = (state.loss_of_lieutenant ?? []).includes(side);
    const block = el("section", { class: `roster-side side-${side}`, "data-roster-side": side },
      el("header", {}, el("span", { class: "rs-swatch" }), el("b", {}, `Player ${side}${own ? " (you)" : ""}`),
        army?.name ? el("span", { class: "rs-army" }, ` ${army.name}`) : null),
      el("div", { class: "rs-summary" }, `${onTable.length} on the table${casualties ? `, ${casualties} dead` : ""}${own ? "" : " (that you can see)"}`,
        lost ? el("b", { class: "rs-loss" }, " · Loss of Lieutenant") : null));
    if (!troopers.length) {
      block.append(el("div", { class: "rs-empty" }, own ? "No troopers yet." : "None that you can see."));
      container.append(block);
      continue;
    }
    block.append(el("div", { class: "rt-stats rt-head" },
      ...STATS.map(([h]) => el("span", { title: h === "W" ? "Wounds (W), or Structure (STR) in italics" : h === "S" ? "Silhouette" : "" }, h))));
    /** @type {Map<string, any[]>} */
    const groups = new Map();
    const offTable = [];
    for (const t of troopers) {
      if (!t.position && !t.hidden) { offTable.push(t); continue; }
      const group = t.entry?.combat_group ?? t.combat_group;
      const key = group === undefined || group === null ? "markers" : `g${group}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)?.push(t);
    }
    const keys = [...groups.keys()].sort((a, b) => (a === "markers" ? 1 : b === "markers" ? -1 : Number(a.slice(1)) - Number(b.slice(1))));
    for (const key of keys) {
      block.append(el("div", { class: "rs-group" }, key === "markers" ? "Camouflage markers" : `Combat Group ${key.slice(1)}`));
      for (const t of groups.get(key) ?? []) block.append(row(t, names, ui, active, onSelect, onHover, lost));
    }
    if (offTable.length) {
      // Open while deploying (the player picks from these), and as the player left it.
      const deploying = state.phase === "deployment" || state.phase === "army_selection" || state.phase === "initiative";
      const open = offTableOpen.get(`${side}:${deploying}`) ?? deploying;
      const details = el("details", { class: "rs-off", open, "data-off-table": side,
        ontoggle: (e) => offTableOpen.set(`${side}:${deploying}`, e.target.open) },
        el("summary", {}, `${deploying ? "Not deployed yet" : "Not on the table"} (${offTable.length})`));
      for (const t of offTable) details.append(row(t, names, ui, active, onSelect, onHover, lost));
      block.append(details);
    }
    container.append(block);
  }
  container.scrollTop = scroll;
}

/** Each trooper's Fireteam (open information, `state.fireteams`), set by renderRoster. @type {Map<string, any>} */
let teams = new Map();

/** Whether the player left each side's "Not on the table" list open ("side:deploying"). */
const offTableOpen = new Map();

function row(t, names, ui, active, onSelect, onHover, lossOfLieutenant = false) {
  const name = names.get(t.id);
  const p = t.profile;
  const dead = t.condition === "dead";
  const order = orderBrought(t, lossOfLieutenant);
  const cls = ["rt-row", dead && "rt-dead", t.condition === "unconscious" && "rt-unconscious", t.id === ui.selected && "rt-selected",
    active.has(t.id) && "rt-active", !t.position && !t.hidden && "rt-off"].filter(Boolean).join(" ");
  const r = el("div", { class: cls, "data-roster-trooper": t.id, role: "button", tabindex: 0,
    title: `${name?.full ?? "?"} (${t.id})${p?.weapons?.length ? ` | ${p.weapons.join(", ")}` : ""}`,
    onclick: () => onSelect(t.id), onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onSelect(t.id); } },
    onmouseenter: () => onHover?.(t.id, true), onmouseleave: () => onHover?.(t.id, false) });
  // First line: short name (ordinal), the full unit name, wounds lost, states, the Order it brings.
  const top = el("div", { class: "rt-top" }, el("span", { class: "rt-label" }, name?.short ?? "?",
    name?.ordinal ? el("sup", { class: "rt-ordinal" }, String(name.ordinal)) : null));
  if (p && name && name.full !== name.short) top.append(el("span", { class: "rt-full" }, name.full));
  if (p && t.wounds && !dead) {
    const total = p.vita;
    top.append(el("span", { class: "rt-chip rt-wounds", title: `${t.wounds} of ${total} ${p.structure ? "Structure" : "Wounds"} lost` },
      `${t.wounds}/${total} ${p.structure ? "STR" : "W"} lost`));
  }
  for (const s of trooperStates(t)) {
    if (s === "marker" && !p) continue; // an enemy marker: the row says so already
    const token = STATE_TOKENS[s];
    top.append(el("span", { class: `rt-chip rt-state-${s}`, style: `background:${token.fill};color:${token.text ?? "#fff"}`, title: token.name },
      s === "lieutenant" ? "Lieutenant" : s === "marker" ? "Camo marker" : s === "hidden" ? "Hidden" : token.name.replace(/ \(.*\)$/, "")));
  }
  const team = teams.get(t.id);
  if (team) top.append(el("span", { class: "rt-chip rt-fireteam", "data-fireteam": team.leader,
    title: `${teamTitle(team)}: ${team.members.length} members${team.leader === t.id ? "; this trooper leads it" : ""}${team.level ? `. Bonuses: ${bonusesAt(team.level).join("; ")}` : ""}` },
    `${team.leader === t.id ? "FT leader" : "FT"}${team.level ? ` L${team.level}` : ""}`));
  if (!t.position && !t.hidden) top.append(el("span", { class: "rt-chip rt-state-off" }, "not deployed"));
  const spent = dead || t.condition === "unconscious";
  top.append(el("span", { class: `rt-order ${order.cls ?? ""}${spent ? " rt-no-order" : ""}`,
    title: spent ? `${order.title}; none while ${t.condition === "dead" ? "Dead" : "Unconscious"}` : order.title }, order.code));
  r.append(top);
  // Second line: the profile, under the side's MOV CC BS PH WIP ARM BTS W S header.
  if (p) {
    r.append(el("div", { class: "rt-stats" }, ...STATS.map(([h, get]) => {
      const value = get(p);
      return el("span", { class: h === "W" && p.structure ? "rt-str" : "", title: h === "W" ? (p.structure ? "STR" : "W") : h }, value === undefined ? "" : String(value));
    })));
    const skills = skillsOf(p);
    if (skills.length) r.append(el("div", { class: "rt-skills" }, skills.join(" · ")));
  } else {
    r.append(el("div", { class: "rt-unknown" }, `Camouflage marker${t.camouflage ? ` (CAMO −${t.camouflage})` : ""}: what it is stays hidden`));
  }
  // The leader's row: the team's Level and the Bonuses its members have now (open information).
  if (team?.leader === t.id && team.level) {
    r.append(el("div", { class: "rt-skills rt-fireteam-bonuses", "data-fireteam-bonuses": team.leader },
      `${teamTitle(team)}: ${bonusesAt(team.level).join(" · ")}`));
  }
  return r;
}
