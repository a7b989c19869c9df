// Fireteams in the app (N5, DIGEST 3.5; the rules core: server/rules/orders/fireteams.py and
// options/fireteams.py): what a choice of members for `form_fireteam` lacks (in words), the
// bonuses a Level gives, each member's default route in the team's Order, and the lines that
// mark a team on the table. Pure: no DOM, unit-tested in test/fireteam-panel.test.js.

/** A Fireteam type as the rules name it. */
export const KIND_NAMES = /** @type {Record<string, string>} */ ({ core: "Fireteam: Core", haris: "Fireteam: Haris", duo: "Fireteam: Duo" });

/**
 * What the Fireteam Bonuses of a Level give, in words (cumulative; the wiki's N5 "Fireteam
 * Bonuses"; refereed by server/rules/combat/fireteam_bonuses.py and orders/fireteams.py).
 * @param {number} level
 * @returns {string[]}
 */
export function bonusesAt(level) {
  const all = [
    [1, "one Order for the whole team"],
    [2, "BS Attack +1 SD"],
    [3, "Discover +3"],
    [3, "Dodge +1"],
    [4, "BS +1"],
    [5, "Sixth Sense"],
  ];
  return all.filter(([at]) => level >= /** @type {number} */ (at)).map(([, words]) => /** @type {string} */ (words));
}

/** A Fireteam type's short name, for the table's label ("Core"). */
export const KIND_SHORT = /** @type {Record<string, string>} */ ({ core: "Core", haris: "Haris", duo: "Duo" });

/**
 * A team in a line: "Fireteam: Core, Level 3" (`level` absent in records made before the
 * Level was sent: the type only).
 * @param {{kind: string, level?: number}} team
 */
export function teamTitle(team) {
  const kind = KIND_NAMES[team.kind] ?? team.kind;
  return team.level ? `${kind}, Level ${team.level}` : kind;
}

/**
 * Why this choice of members may not be sent yet (null: it may), from `options.fireteams.form`:
 * the type offered, the leader one of its leaders, every member one that may join that leader,
 * the team's size (leader included) within the type's sizes and, when the army has its own
 * Fireteams Chart (`chart`), one of the chart's teams (`chartTeamFits`).
 * @param {Record<string, {name: string, sizes: number[], leaders: Record<string, string[]>, chart?: ChartTeam[]}>} form
 * @param {string|null} kind @param {string|null} leader @param {string[]} members the others
 * @param {(id: string) => string} [name]
 * @returns {string | null}
 */
export function formProblem(form, kind, leader, members, name = (id) => id) {
  const offer = kind ? form[kind] : undefined;
  if (!offer) return "Choose a Fireteam type.";
  const joining = leader ? offer.leaders[leader] : undefined;
  if (!joining) return "Choose the leader.";
  const stranger = members.find((m) => !joining.includes(m));
  if (stranger) return `${name(stranger)} may not join a ${offer.name} led by ${name(/** @type {string} */ (leader))}.`;
  const [fewest, most] = offer.sizes;
  const size = members.length + 1;
  if (size < fewest || size > most) {
    const sizes = fewest === most ? `${fewest}` : `${fewest} to ${most}`;
    return `A ${offer.name} has ${sizes} members (leader included); ${size} chosen.`;
  }
  const team = [/** @type {string} */ (leader), ...members];
  if (offer.chart && !offer.chart.some((t) => chartTeamFits(t, team))) {
    const rules = offer.chart.map((t) => `${t.name} (${t.units.map((u) =>
      `${u.name} ${u.min}-${u.max}${u.required ? "*" : ""}`).join(", ")}${t.wildcards.length ? ", wildcards" : ""})`);
    return `Your army's Fireteams Chart has no such ${offer.name}: ${rules.join("; ")}.`;
  }
  return null;
}

/**
 * @typedef {{name: string, units: {name: string, min: number, max: number, required: boolean, troopers: string[]}[],
 *   wildcards: string[]}} ChartTeam
 */

/**
 * Whether a set of troopers (leader included) is this team of the army's Fireteams Chart, as the
 * rules core judges it (server/rules/orders/fireteam_chart.py, `chart_offer`): each one of its
 * units or a wildcard, each unit's count within its min and max, a member of a marked (`required`)
 * unit when it has any, and not only wildcards.
 * @param {ChartTeam} team @param {string[]} members
 */
export function chartTeamFits(team, members) {
  const counts = team.units.map((u) => members.filter((m) => u.troopers.includes(m)).length);
  const wild = members.filter((m) => team.wildcards.includes(m)).length;
  const own = counts.reduce((a, b) => a + b, 0);
  if (own + wild !== members.length || own === 0) return false;
  if (team.units.some((u, i) => counts[i] < u.min || counts[i] > u.max)) return false;
  const marked = team.units.flatMap((u, i) => (u.required ? [counts[i]] : []));
  return !marked.length || marked.some((c) => c > 0);
}

/**
 * A member's default route in its team's Order: the leader's route moved by the member's offset
 * from the leader, so the team keeps its shape and every member stays as far from the leader as
 * it was (inside the leader's Zone of Control when it started there: Coherency). The player can
 * draw another one; the rules core judges the route either way (terrain, MOV, the end in the
 * leader's Zone of Control).
 * @param {number[]} leaderStart @param {number[][]} leaderRoute the leader's points after its start
 * @param {number[]} memberStart
 * @returns {number[][]}
 */
export function followRoute(leaderStart, leaderRoute, memberStart) {
  const dx = memberStart[0] - leaderStart[0];
  const dy = memberStart[1] - leaderStart[1];
  return leaderRoute.map((p) => [round(p[0] + dx), round(p[1] + dy)]);
}

const round = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;

/**
 * The lines that mark the teams on the table: leader to each member on the table.
 * @param {{leader: string, members: string[], side?: string}[]} teams `state.fireteams`
 * @param {(id: string) => {position?: number[] | null} | undefined} trooper
 * @returns {{leader: string, member: string, from: number[], to: number[]}[]}
 */
export function teamLinks(teams, trooper) {
  const out = [];
  for (const team of teams ?? []) {
    const from = trooper(team.leader)?.position;
    if (!from) continue;
    for (const member of team.members) {
      const to = trooper(member)?.position;
      if (member !== team.leader && to) out.push({ leader: team.leader, member, from, to });
    }
  }
  return out;
}
