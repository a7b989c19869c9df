// Bringing one's own army list (docs/armies.md): what a list file or a pasted army code
// becomes before it is sent, the `choose_army` body, and what the lists say once chosen (the
// imported roster, the items the referee does not play). Pure: army-picker.js and
// army-review.js draw what it says; test/army-import.test.js checks it.

/** A list sent inline arrives in one websocket frame of 16 KiB (the contract's limit). */
export const LIST_FILE_MAX_BYTES = 16 * 1024;

/** "a list file holds at most 16 KiB": said with the file's size in bytes, so a file just over reads as over. */
const tooLarge = (/** @type {string} */ name, /** @type {number} */ bytes) =>
  `${name} is too large (${bytes} bytes): a list file holds at most ${LIST_FILE_MAX_BYTES / 1024} KiB (${LIST_FILE_MAX_BYTES} bytes).`;

/**
 * What a list file holds: `{list}` (the parsed army document) or `{error}` (a sentence a
 * player understands: too large, not JSON, not a list). The size is checked before the file
 * is read.
 * @param {{name: string, size: number, text: () => Promise<string>}} file
 * @returns {Promise<{list: Record<string, any>} | {error: string}>}
 */
export async function readListFile(file) {
  if (file.size > LIST_FILE_MAX_BYTES) {
    return { error: tooLarge(file.name, file.size) };
  }
  let text;
  try {
    text = await file.text();
  } catch (error) {
    return { error: `${file.name} could not be read (${error instanceof Error ? error.message : error}).` };
  }
  // The size of the text sent, not of the file on disk (they differ only for odd encodings).
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > LIST_FILE_MAX_BYTES) {
    return { error: tooLarge(file.name, bytes) };
  }
  let list;
  try {
    list = JSON.parse(text);
  } catch (error) {
    return { error: `${file.name} is not a JSON file (${error instanceof Error ? error.message : error}). Choose the army list's .json file (docs/armies.md).` };
  }
  if (list === null || typeof list !== "object" || Array.isArray(list)) {
    return { error: `${file.name} is JSON but not an army list: a list is one JSON object with "name", "points", "units" and "entries".` };
  }
  return { list };
}

/**
 * The pasted army code as it is sent, or an error: the server reads it (spaces, line breaks,
 * URL-encoding and missing padding are all accepted there), so only an empty field is refused here.
 * @param {string} text @returns {{code: string} | {error: string}}
 */
export function armyCodeInput(text) {
  const code = String(text ?? "").trim();
  return code ? { code } : { error: "Paste the army code first (Infinity Army: Share > army code)." };
}

/**
 * The `choose_army` command: exactly one of a shipped list's id (`army`), an army document
 * (`list`) or an army code (`code`), with this choice's fresh contribution to the dice.
 * @param {{army: string} | {list: Record<string, any>} | {code: string}} what
 * @param {string} entropy
 */
export function chooseArmyCommand(what, entropy) {
  const keys = ["army", "list", "code"].filter((k) => k in what);
  if (keys.length !== 1) throw new Error(`choose_army takes exactly one of army, list or code (got ${keys.join(", ") || "none"})`);
  const key = keys[0];
  return { type: "choose_army", [key]: /** @type {any} */ (what)[key], entropy };
}

/**
 * How this seat may bring its own list, from its `options.bring_army`: `list` and `code`
 * offered or not; null when the server offers neither (an older server, or a tournament
 * table whose seat must play its registered list).
 * @param {Record<string, any> | null} options
 * @returns {{list: boolean, code: boolean} | null}
 */
export function bringOffer(options) {
  const offered = options?.bring_army;
  if (!Array.isArray(offered) || !offered.length) return null;
  return { list: offered.includes("list"), code: offered.includes("code") };
}

/** What the code field says when the server has no army data to read codes with. */
export const NO_ARMY_DATA_NOTE = "This server has no army data, so it cannot read army codes: load a list file instead. "
  + "(Its operator adds the data with REFEREE_ARMY_DATA; see docs/armies.md.)";

/** A list's items the referee does not play, per trooper, as a viewer sees that list: its own
 * list's entries (`profile.name`, `not_refereed`) or the opponent's summary roster (`unit`,
 * `not_refereed`; troopers in Hidden Deployment or Combat Jump left out, private).
 * @param {Record<string, any> | null | undefined} army
 * @returns {{name: string, combatGroup: number | null, items: string[]}[]} only troopers with items
 */
export function notRefereedByTrooper(army) {
  const rows = [];
  for (const e of army?.entries ?? army?.roster ?? []) {
    const items = Array.isArray(e.not_refereed) ? e.not_refereed.map(String) : [];
    if (!items.length) continue;
    rows.push({ name: String(e.profile?.name ?? e.unit ?? e.name ?? "?"), combatGroup: e.combat_group ?? null, items });
  }
  return rows;
}

/** Whether the viewer sees a list's troopers in full (its own list) or the summary only. */
export const isFullList = (/** @type {any} */ army) => Array.isArray(army?.entries);

/**
 * The roster of one's own list as the review shows it: per Combat Group, each trooper's name,
 * profile, cost, SWC, weapons, Lieutenant and Controller. Weapon names come from the list's
 * own weapons (its `arsenal`; a converted army code defines weapons of its own) or
 * `weaponName` (the shipped catalogue).
 * @param {Record<string, any>} army the viewer's own list (`entries` with `profile`)
 * @param {(id: string) => string} weaponName
 */
export function ownRoster(army, weaponName) {
  // `arsenal`: every weapon of a validated list, with its name (the view of one's own list).
  const listWeapons = new Map([...(army?.weapons ?? []), ...(army?.arsenal ?? [])].map((/** @type {any} */ w) => [w.id, w.name ?? w.id]));
  const nameOf = (/** @type {string} */ id) => listWeapons.get(id) ?? weaponName(id);
  const entries = army?.entries ?? [];
  const byId = new Map(entries.map((/** @type {any} */ e) => [e.id, e]));
  /** @type {Map<number, any[]>} */
  const groups = new Map();
  let points = 0;
  let swc = 0;
  for (const e of entries) {
    const p = e.profile ?? {};
    points += Number(p.cost ?? 0);
    swc += Number(p.swc ?? 0);
    const group = Number(e.combat_group ?? 1);
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)?.push({
      id: e.id,
      name: String(p.name ?? e.id),
      lieutenant: Boolean(e.lieutenant),
      controller: e.controller ? String(byId.get(e.controller)?.profile?.name ?? e.controller) : null,
      // W holds Structure for REM and TAG (`structure`), drawn in italics as the roster draws it.
      stats: { MOV: Array.isArray(p.mov) ? p.mov.join("-") : "", CC: p.cc, BS: p.bs, PH: p.ph, WIP: p.wip, ARM: p.arm, BTS: p.bts, W: p.vita, S: p.silhouette },
      structure: Boolean(p.structure),
      type: p.troop_type === "peripheral" ? "Peripheral"
        : [String(p.troop_type ?? "").toUpperCase(), p.training === "irregular" ? "Irregular" : "Regular"].filter(Boolean).join(", "),
      cost: Number(p.cost ?? 0),
      swc: Number(p.swc ?? 0),
      weapons: (p.weapons ?? []).map(nameOf),
      notRefereed: Array.isArray(e.not_refereed) ? e.not_refereed.map(String) : [],
    });
  }
  return {
    points,
    limit: army?.points ?? null,
    swc: Math.round(swc * 10) / 10,
    groups: [...groups.entries()].sort(([a], [b]) => a - b).map(([number, troopers]) => ({ number, troopers })),
  };
}

/**
 * Where the review of both lists stands for a viewer: `review` (both lists chosen and the game
 * still in army selection: the players must accept what the referee does not play), which
 * sides accepted (from `armies_accepted` events, or the state's `armies_accepted` when the
 * server keeps one), and whether this seat may accept now (`options.accept_armies`).
 * @param {Record<string, any>} state @param {Record<string, any> | null} options
 * @param {{event: any}[]} log the view's events @param {string | null} role
 */
export function reviewStatus(state, options, log, role) {
  const armies = state?.armies ?? {};
  const review = state?.phase === "army_selection" && Boolean(armies.A) && Boolean(armies.B);
  const accepted = new Set();
  const kept = state?.armies_accepted;
  if (Array.isArray(kept)) kept.forEach((s) => accepted.add(String(s)));
  else if (kept && typeof kept === "object") Object.entries(kept).forEach(([s, yes]) => { if (yes) accepted.add(s); });
  for (const entry of log ?? []) if (entry?.event?.type === "armies_accepted") accepted.add(String(entry.event.side));
  const seat = role === "A" || role === "B";
  // While a new version's options are on their way (null), a seat in review that has not
  // accepted (by its events and the state) keeps its button: the opponent's acceptance must
  // not take it away from under the pointer for a moment.
  const canAccept = review && (options ? options.accept_armies === true : seat && !accepted.has(role));
  // Options that no longer offer the acceptance to a seat in review: it has accepted.
  if (review && options && !canAccept && seat) accepted.add(role);
  return { review, accepted, canAccept };
}

/**
 * Who carries not-refereed items, in words: "Kestrel Sniper (Combat Group 1)". The items are
 * shown as the server words them: a converted code's say what becomes of them ("Relay
 * Antenna — played without it"); a list file's are the names its author wrote.
 * @param {{name: string, combatGroup: number | null}} row
 */
export function trooperLabel(row) {
  return `${row.name}${row.combatGroup === null ? "" : ` (Combat Group ${row.combatGroup})`}`;
}

/** Troopers with the same label and the same items said once, with how many: "Lamplighter (Combat Group 1) ×2". */
function sameTroopersOnce(/** @type {{name: string, combatGroup: number | null, items: string[]}[]} */ rows) {
  /** @type {Map<string, {label: string, items: string[], count: number}>} */
  const seen = new Map();
  for (const row of rows) {
    const label = trooperLabel(row);
    const key = JSON.stringify([label, row.items]);
    const found = seen.get(key);
    if (found) found.count += 1;
    else seen.set(key, { label, items: row.items, count: 1 });
  }
  return [...seen.values()].map(({ label, items, count }) => ({ label: count > 1 ? `${label} ×${count}` : label, items }));
}

/** How a list came to the game (`army.source`), in a player's words: whose figures these are. */
const SOURCES = {
  code: "From an army code: its profiles are the army builder's, read by the server.",
  list: "From a list file: its profiles are as the player wrote them.",
  registered: "The list registered for this tournament, checked at registration.",
  shipped: "A sample list shipped with this server.",
};

/** @param {Record<string, any> | null | undefined} army @returns {string | null} */
export function sourceText(army) {
  return SOURCES[/** @type {keyof typeof SOURCES} */ (army?.source)] ?? null;
}

/**
 * What one list's review says for a viewer: a heading, each trooper with its not-refereed
 * items, or that the referee plays everything it shows; when the viewer holds only the
 * list's summary (the opponent, a spectator), that its troopers in Hidden Deployment or
 * Airborne Deployment are not shown (private).
 * @param {Record<string, any> | null | undefined} army
 * @param {"own" | "opponent" | "A" | "B"} whose the viewer's own list, its opponent's, or
 *   (for a spectator or a caster) the list of Player A or B
 * @returns {{heading: string, source: string | null, troopers: {label: string, items: string[]}[], empty: string | null, privateNote: string | null}}
 */
export function notRefereedSummary(army, whose) {
  const rows = notRefereedByTrooper(army);
  const name = army?.name ?? "?";
  const full = isFullList(army);
  const heading = { own: `Your list, ${name}`, opponent: `Your opponent's list, ${name}` }[whose] ?? `Player ${whose}'s list, ${name}`;
  let empty = null;
  if (!rows.length) {
    empty = whose === "own" ? "Nothing: the referee plays every skill, piece of equipment and weapon of your list."
      : full ? "Nothing: the referee plays every skill, piece of equipment and weapon of this list."
        : "Nothing that you can see: the referee plays every skill, piece of equipment and weapon shown of this list.";
  }
  return {
    heading,
    source: sourceText(army),
    troopers: sameTroopersOnce(rows),
    empty,
    privateNote: full ? null : "Troopers in Hidden Deployment or Airborne Deployment are private: neither they nor their items are shown to you.",
  };
}
