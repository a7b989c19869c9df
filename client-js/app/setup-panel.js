// The setup panel: who is here, the army choice, the Initiative choice (DIGEST 11.1) and
// deployment, each saying what this viewer may do now or what it waits for. Every choice
// it offers is the server's own (`options.initiative`: the complete command bodies this seat
// may send; `options.deploy`, `options.end_deployment_step`, ...): this module only lays
// them out and says in words what each one means and what the opponent then gets.
import { copyField } from "./copy-field.js";
import { el } from "./dom.js";
import { ownListPanel, reviewPanel } from "./army-review.js";

/**
 * @typedef {object} SetupContext
 * @property {import("./lib/connection.js").GameConnection} conn
 * @property {{selected: string|null, deployHidden: boolean, rotated: boolean}} ui the page's UI state (ui-state.js)
 * @property {(body: Record<string, any>) => Promise<any>} send send a command (a rejection is shown by main.js)
 * @property {(id: string) => void} selectTrooper
 * @property {() => void} render
 * @property {(id: string, point: number[], mines?: number[][]) => void} deploy deploy a trooper there (with a Minelayer's Mines)
 */

const button = (text, onclick, attrs = {}) => el("button", { type: "button", ...attrs, onclick }, text);

const otherSide = (/** @type {string} */ side) => (side === "A" ? "B" : "A");
const capital = (/** @type {string} */ s) => s.charAt(0).toUpperCase() + s.slice(1);

/** A seat's presence in a few words (status bar) and in a sentence (waiting notes). */
const PRESENCE = {
  empty: ["not joined yet", "has not opened their link yet"],
  connected: ["connected", "is connected"],
  away: ["away", "is away (their connection dropped; they may come back)"],
  abandoned: ["gone", "has been away longer than the grace period (they may still come back)"],
};

/** The seats for the status bar: "A (you) connected · B not joined yet". */
export function seatsText(/** @type {Record<string, string>} */ seats, /** @type {string|null} */ role) {
  return ["A", "B"].map((side) => {
    const who = role === side ? `${side} (you)` : side;
    return `${who} ${PRESENCE[seats[side]]?.[0] ?? seats[side] ?? "?"}`;
  }).join(" · ");
}

/** "Your opponent is connected." and the like. */
const opponentPresence = (/** @type {string|undefined} */ status) => `Your opponent ${PRESENCE[status ?? "empty"]?.[1] ?? status}.`;

/** Where each zone is on the table as this app draws it (north up). */
/** Where a zone is on the table as drawn now: North is at the top unless the table is turned (South up, `ui.rotated`). */
export const zoneSide = (/** @type {string} */ zone, /** @type {boolean} */ rotated) =>
  (zone !== "north" && zone !== "south" ? "" : `the ${(zone === "north") !== rotated ? "top" : "bottom"} of the table as drawn here`);
const zoneName = (/** @type {string} */ zone) => capital(zone);
const zoneWhere = (/** @type {string} */ zone, /** @type {boolean} */ rotated) =>
  (zoneSide(zone, rotated) ? `${zoneName(zone)} (${zoneSide(zone, rotated)})` : zoneName(zone));

/** The step the player is at in the Initiative choice (kept across re-renders). */
const choice = { key: "", keep: /** @type {string|null} */ (null), zone: /** @type {string|null} */ (null), first: /** @type {boolean|null} */ (null) };

/**
 * Render the setup panel for the current state.
 * @param {HTMLElement} panel @param {Record<string, any>} state
 * @param {Record<string, any> | null} options the seat's current options (null: none yet)
 * @param {SetupContext} ctx
 */
export function renderSetupPanel(panel, state, options, ctx) {
  const role = ctx.conn.role;
  const seat = role === "A" || role === "B";
  const parts = [];
  const joining = seat && state.phase !== "game_over" ? joinNotice(state, ctx) : null;
  parts.push(joining);
  if (state.phase === "army_selection" && !joining) parts.push(...armyNotice(state, options, ctx));
  if (state.phase === "army_selection" && joining && seat && state.armies?.[role]) parts.push(ownListPanel(state.armies[role]));
  if (state.phase === "initiative") parts.push(initiativePanel(state, options, ctx));
  if (state.phase === "deployment") parts.push(...deploymentPanel(state, options, ctx));
  panel.replaceChildren(...parts.filter(Boolean));
}

/** Until the opponent first connects: say so, with their link when this tab made the room. */
function joinNotice(state, ctx) {
  const role = /** @type {string} */ (ctx.conn.role);
  const opponent = otherSide(role);
  if ((ctx.conn.view.seats[opponent] ?? "empty") !== "empty") return null;
  let invite = null;
  try { invite = JSON.parse(sessionStorage.getItem(`referee:${ctx.conn.options.room}:invite`) ?? "null"); } catch { /* none kept */ }
  const link = invite?.[opponent];
  return el("div", { class: "panel waiting", id: "waiting-join" },
    el("b", {}, "Waiting for the opponent to join."),
    link ? el("div", {}, "Send this link to your opponent (it opens seat ", opponent, "):", copyField(`invite-${opponent}`, link))
      : el("div", {}, `They join by opening the link of seat ${opponent}.`),
    hint(state.phase !== "army_selection" ? "The game goes on once they are here."
      : state.armies?.[role] ? `You chose ${state.armies[role].name}. Once they join and choose their army, the Lieutenants roll off for the Initiative.`
        : "You can choose your army meanwhile; the game goes on once they are here."));
}
const hint = (/** @type {string} */ text) => el("div", { class: "hint" }, text);

/** Army selection: what this viewer waits for, its own list once chosen, and the review of
 * both lists (army-review.js) once both are chosen. */
function armyNotice(state, options, ctx) {
  const role = ctx.conn.role;
  const armies = state.armies ?? {};
  const review = reviewPanel(state, options, ctx);
  if (role !== "A" && role !== "B") {
    return [el("p", { id: "army-waiting" }, ["A", "B"].map((s) => armies[s] ? `Player ${s} chose ${armies[s].name}.` : `Player ${s} is choosing an army.`).join(" ")), review];
  }
  const opponent = otherSide(role);
  if (!armies[role]) {
    return [armies[opponent] ? el("p", { class: "hint", id: "army-waiting" }, `Your opponent has chosen ${armies[opponent].name}. The Initiative roll-off follows as soon as you choose.`) : null];
  }
  if (review) return [review, ownListPanel(armies[role], { open: false })];
  return [el("div", { class: "panel waiting", id: "army-waiting" },
    el("div", {}, `You chose ${armies[role].name}.`),
    el("b", {}, "Waiting for your opponent to choose an army."),
    el("div", { id: "opponent-presence" }, opponentPresence(ctx.conn.view.seats[opponent])),
    hint("Then the Lieutenants roll off for the Initiative (a Face to Face WIP roll).")), ownListPanel(armies[role])];
}

/** The roll-off's WIP values, from the `initiative_rolled` event (kept for a reload: the snapshot lacks them). */
function rollOffWip(ctx) {
  const key = `referee:${ctx.conn.options.room}:initiative-wip`;
  const seen = ctx.conn.view.log.findLast((x) => x.event?.type === "initiative_rolled")?.event?.success_values;
  try {
    if (seen) sessionStorage.setItem(key, JSON.stringify(seen));
    return seen ?? JSON.parse(sessionStorage.getItem(key) ?? "null");
  } catch {
    return seen ?? null;
  }
}

/** "You won the Initiative roll-off (WIP 13: you rolled 9 vs their 4)" and the like. */
function rollOffText(state, ctx) {
  const ini = state.initiative ?? {};
  const winner = ini.winner;
  if (!winner) return "The Lieutenants roll off for the Initiative.";
  const role = ctx.conn.role;
  const loser = otherSide(winner);
  const last = (side) => (ini.rolls?.[side] ?? []).at(-1);
  const wip = rollOffWip(ctx);
  const wipOf = wip ? { A: wip[0], B: wip[1] }[winner] : null;
  const rerolls = Math.max(0, (ini.rolls?.[winner] ?? []).length - 1);
  let faces;
  if (role === winner) faces = `you rolled ${last(winner)} vs their ${last(loser)}`;
  else if (role === loser) faces = `rolled ${last(winner)} vs your ${last(loser)}`;
  else faces = `rolled ${last(winner)} vs ${last(loser)}`;
  const detail = `${wipOf ? `WIP ${wipOf}: ` : ""}${faces}${rerolls ? `, after ${rerolls} re-roll${rerolls > 1 ? "s" : ""} (a tie or both failed)` : ""}`;
  const who = role === winner ? "You" : role === loser ? "Your opponent" : `Player ${winner}`;
  return `${who} won the Initiative roll-off (${detail})`;
}

/** What keeping each option means, and what the opponent then chooses. */
const KEEP = {
  initiative: { label: "Keep Initiative", means: "You decide who plays the first Player Turn of every Game Round.",
    leaves: "Your opponent then chooses the deployment zones and who deploys first." },
  deployment: { label: "Keep Deployment", means: "You choose your deployment zone and whether you deploy first or second.",
    leaves: "Your opponent then chooses who plays first." },
};
/** What `first` means for each kind of choice. */
const FIRST = {
  play: { true: ["Play first", "You take the first Player Turn of every Game Round."],
    false: ["Play second", "Your opponent takes the first Player Turn; you answer it, and the last turn of every round is yours."] },
  deploy: { true: ["Deploy first", "You place your troopers (all but one, your reserve) before your opponent places theirs; your reserve comes after theirs."],
    false: ["Deploy second", "Your opponent places their troopers first, so you see them before you place yours; your reserve comes last of all."] },
};

/** The Initiative choice (two steps for the roll-off winner, one for the loser), or what the seat waits for. */
function initiativePanel(state, options, ctx) {
  const ini = state.initiative ?? {};
  const role = ctx.conn.role;
  const seat = role === "A" || role === "B";
  const box = el("div", { class: "panel setup-choice", id: "initiative-panel" }, el("h3", {}, "Initiative and deployment"));
  const intro = rollOffText(state, ctx);
  const bodies = options?.initiative;
  if (seat && options && !Array.isArray(bodies)) { // a server without options.initiative
    box.append(el("p", {}, `${intro}.`), ...legacyInitiative(state, ctx));
    return box;
  }
  if (seat && bodies?.length) {
    const key = `${role}:${ini.winner_kept ?? "-"}:${bodies.map((b) => JSON.stringify(b)).join()}`;
    if (choice.key !== key) Object.assign(choice, { key, keep: null, zone: null, first: null });
    if (bodies[0].type === "choose_initiative") {
      box.append(el("p", {}, `${intro}. You choose what to keep; your opponent gets the other choice.`));
      winnerChoice(box, bodies, ctx);
    } else {
      box.append(el("p", {}, `${intro} and kept ${ini.winner_kept === "initiative" ? "Initiative" : "Deployment"}: ${keptText(ini, otherSide(role), "loser")}`),
        el("p", {}, ini.winner_kept === "initiative" ? "Now you choose your deployment zone and whether you deploy first or second."
          : "Now you choose who plays first."));
      detailChoice(box, bodies, ini.winner_kept === "initiative" ? "deploy" : "play", ctx, "This settles it: deployment begins.");
    }
    return box;
  }
  // Waiting (or a spectator watching).
  const winner = ini.winner;
  if (!winner) { box.append(el("p", {}, intro)); return box; }
  const chooser = ini.winner_kept ? otherSide(winner) : winner;
  const waiting = el("p", { id: "initiative-waiting" });
  if (!seat) {
    waiting.append(ini.winner_kept ? `${intro} and kept ${capital(ini.winner_kept)}: ${keptText(ini, winner, "spectator")} Player ${chooser} is choosing the rest.`
      : `${intro} and is choosing: keep Initiative or keep Deployment.`);
  } else if (!ini.winner_kept && role !== winner) {
    waiting.append(`${intro} and is choosing: keep Initiative (decide who plays first) or keep Deployment (choose a zone and whether to deploy first). You get the other choice.`);
  } else if (ini.winner_kept && role === winner) {
    waiting.append(`You kept ${capital(ini.winner_kept)}: ${keptText(ini, role, "winner")} `,
      el("b", {}, ini.winner_kept === "initiative" ? "Waiting for your opponent to choose the deployment zones and who deploys first."
        : "Waiting for your opponent to choose who plays first."));
  } else {
    waiting.append(`${intro}.`); // options not here yet
  }
  box.append(waiting);
  if (seat && role !== chooser) box.append(el("div", { class: "hint" }, opponentPresence(ctx.conn.view.seats[chooser])));
  return box;
}

/** What the roll-off winner kept, in words, as the winner, the loser or a spectator says it. */
function keptText(ini, winner, /** @type {"winner"|"loser"|"spectator"} */ as) {
  const [subject, s, rest] = { winner: ["you", "", "your opponent gets"], loser: ["they", "", "you get"],
    spectator: [`Player ${winner}`, "s", `Player ${otherSide(winner)} gets`] }[as];
  if (ini.winner_kept === "initiative") return `${subject} play${s} ${ini.first_player === winner ? "first" : "second"}.`;
  const zone = ini.zones?.[winner];
  const others = zone ? ` (${rest} ${zoneName(zone === "north" ? "south" : "north")})` : "";
  return `${subject} deploy${s} in ${zone ? zoneName(zone) : "?"}${others}, ${ini.deploys_first === winner ? "first" : "second"}.`;
}

/** Step 1: keep Initiative or Deployment; step 2: the details of what was kept. */
function winnerChoice(box, bodies, ctx) {
  const keeps = [...new Set(bodies.map((b) => b.keep))];
  if (!choice.keep) {
    box.append(el("div", { class: "step" }, "Step 1 of 2: what do you keep?"));
    for (const keep of keeps) {
      const k = KEEP[keep] ?? { label: `Keep ${keep}`, means: "", leaves: "" };
      box.append(el("div", { class: "option" },
        button(k.label, () => { choice.keep = keep; ctx.render(); }, { id: `keep-${keep}` }),
        el("div", { class: "means" }, k.means, " ", el("i", {}, k.leaves))));
    }
    return;
  }
  const k = KEEP[choice.keep];
  box.append(el("div", { class: "step" }, `Step 2 of 2: you keep ${choice.keep === "initiative" ? "Initiative" : "Deployment"}. `,
    button("Back", () => { Object.assign(choice, { keep: null, zone: null, first: null }); ctx.render(); }, { id: "initiative-back", class: "link-like" })));
  detailChoice(box, bodies.filter((b) => b.keep === choice.keep), choice.keep === "initiative" ? "play" : "deploy", ctx, k?.leaves ?? "");
}

/** The details of a choice (zone and/or first or second), a summary, and Confirm: sends the
 * very body of `options.initiative` the choices designate. */
function detailChoice(box, bodies, firstMeans, ctx, afterwards) {
  const zones = [...new Set(bodies.map((b) => b.zone).filter((z) => z != null))];
  const firsts = [...new Set(bodies.map((b) => b.first))];
  if (zones.length) {
    box.append(el("div", { class: "group" }, el("div", { class: "group-title" }, "Your deployment zone:"),
      ...zones.map((zone) => el("div", { class: "option" },
        button(`Deploy in ${zoneName(zone)}`, () => { choice.zone = zone; ctx.render(); }, { "data-choose-zone": zone, class: choice.zone === zone ? "chosen" : "" }),
        el("div", { class: "means" }, zoneSide(zone, ctx.ui.rotated) ? capital(zoneSide(zone, ctx.ui.rotated)) : "", ". Your opponent gets the other zone.")))));
  }
  box.append(el("div", { class: "group" }, el("div", { class: "group-title" }, firstMeans === "play" ? "Who plays first:" : "Who deploys first:"),
    ...firsts.map((first) => {
      const [label, means] = FIRST[firstMeans][String(first)];
      return el("div", { class: "option" },
        button(label, () => { choice.first = first; ctx.render(); }, { "data-choose-first": String(first), class: choice.first === first ? "chosen" : "" }),
        el("div", { class: "means" }, means));
    })));
  const body = bodies.find((b) => b.first === choice.first && (zones.length ? b.zone === choice.zone : b.zone == null));
  const summary = [];
  if (zones.length) summary.push(choice.zone ? `you deploy in ${zoneName(choice.zone)}` : "choose a zone");
  if (choice.first === null) summary.push(firstMeans === "play" ? "choose who plays first" : "choose who deploys first");
  else summary.push(`you ${firstMeans} ${choice.first ? "first" : "second"}`);
  box.append(el("div", { class: "summary", id: "initiative-summary" }, body ? `You choose: ${summary.join(", ")}. ${afterwards}` : `Still to do: ${summary.filter((s) => s.startsWith("choose")).join(" and ")}.`),
    button("Confirm", async () => {
      if (!body) return;
      const answer = await ctx.send(body);
      if (answer.ok) Object.assign(choice, { keep: null, zone: null, first: null });
    }, { id: "confirm-initiative", disabled: !body, class: "primary" }));
}

/** A server without `options.initiative`: the two fixed choices of earlier versions. */
function legacyInitiative(state, ctx) {
  const ini = state.initiative ?? {};
  const role = ctx.conn.role;
  if (ini.winner === role && !ini.winner_kept) {
    return [button("Keep Initiative, play first", () => ctx.send({ type: "choose_initiative", keep: "initiative", first: true }), { id: "keep-initiative" }),
      button("Keep Deployment, deploy first in south", () => ctx.send({ type: "choose_initiative", keep: "deployment", first: true, zone: "south" }))];
  }
  if (ini.winner && ini.winner !== role && ini.winner_kept) {
    const zone = ini.winner_kept === "initiative";
    return [button(zone ? "Deploy first, north zone" : "Play first", () => ctx.send({ type: "choose_remaining", first: true, zone: zone ? "north" : null }), { id: "choose-remaining" })];
  }
  return [];
}

/** Deployment (DIGEST 11.1): the four steps, whose step it is, and this seat's controls or what it waits for. */
function deploymentPanel(state, options, ctx) {
  const ini = state.initiative ?? {};
  const role = ctx.conn.role;
  const seat = role === "A" || role === "B";
  const step = state.deployment?.step ?? 1;
  const first = ini.deploys_first;
  if (!first) return [];
  const deployerAt = (/** @type {number} */ s) => (s % 2 === 1 ? first : otherSide(first));
  const deployer = deployerAt(step);
  const who = (side) => (side === role ? "You" : seat ? "Your opponent" : `Player ${side}`);
  // The first player's Strategic hold-back (a Command Token, N5) keeps two troopers for its reserve step.
  const heldBack = (side) => (state.command_tokens?.strategic_used ?? []).includes("hold_back") && ini.first_player === side;
  const plan = el("ol", { class: "steps", id: "deployment-steps" }, ...[1, 2, 3, 4].map((s) => el("li", { class: s === step ? "current" : s < step ? "done" : "" },
    `${who(deployerAt(s))}: ${s <= 2 ? `all troopers but ${heldBack(deployerAt(s)) ? "two (one held back)" : "one"}`
      : heldBack(deployerAt(s)) ? "the two troopers kept in reserve" : "the trooper kept in reserve"}`, s === step ? " (now)" : "")));
  const facts = [];
  if (seat) {
    facts.push(`Your zone: ${zoneWhere(ini.zones?.[role] ?? "?", ctx.ui.rotated)}. `,
      `You play ${ini.first_player === role ? "first" : "second"} in every Game Round.`);
  } else {
    facts.push(`Player ${ini.first_player} plays first. Zones: A ${zoneName(ini.zones?.A ?? "?")}, B ${zoneName(ini.zones?.B ?? "?")}.`);
  }
  const box = el("div", { class: "panel setup-choice", id: "deployment-panel" },
    el("h3", {}, `Deployment, step ${step} of 4`), plan, el("div", { class: "hint" }, ...facts));
  const parts = [box];
  if (!seat) {
    box.append(el("p", { id: "deployment-waiting" }, `Player ${deployer} is deploying.`));
    return parts;
  }
  if (deployer !== role) {
    const next = [1, 2, 3, 4].find((s) => s > step && deployerAt(s) === role);
    box.append(el("p", { id: "deployment-waiting" }, el("b", {}, "Waiting for your opponent to deploy"),
      ` (${step <= 2 ? "all their troopers but one" : "their reserve"}). `,
      next ? `Then you deploy ${next <= 2 ? "yours (all but one)" : "your reserve"} in step ${next}.`
        : `Then the first Game Round begins: ${ini.first_player === role ? "you play" : "your opponent plays"} first.`),
      el("div", { class: "hint" }, "Troopers they place in Hidden Deployment stay hidden from you. ", opponentPresence(ctx.conn.view.seats[otherSide(role)])));
    return parts;
  }
  if (!options) {
    box.append(el("p", {}, "Your step: loading your choices..."));
    return parts;
  }
  const controls = el("div", { id: "deploy-controls" });
  parts.push(controls);
  if (options.deploy.length) {
    controls.append(el("p", {}, el("b", {}, "Your step: "), `select a trooper, then click inside your zone (${zoneWhere(ini.zones?.[role] ?? "?", ctx.ui.rotated)}) on the table. Troopers left to place: ${options.deploy.length}.`));
    for (const id of options.deploy) {
      const t = ctx.conn.view.trooper(id);
      controls.append(button(`${t?.profile?.name ?? id}`, () => ctx.selectTrooper(id), { "data-deploy": id, class: ctx.ui.selected === id ? "chosen" : "" }));
    }
  } else if (options.end_deployment_step) {
    controls.append(el("p", {}, el("b", {}, "Your step: "), "every trooper of this step is placed. End the step to hand over to your opponent."));
  }
  if (ctx.ui.selected && options.deploy_hidden.includes(ctx.ui.selected)) {
    const box = el("input", { type: "checkbox", id: "deploy-hidden", checked: ctx.ui.deployHidden, onchange: (e) => { ctx.ui.deployHidden = e.target.checked; } });
    controls.append(el("label", {}, box, " Hidden Deployment (secret, revealed later)"));
  }
  const layer = ctx.ui.selected ? options.minelayer?.[ctx.ui.selected] : null;
  if (layer) controls.append(minelayerControls(ctx, /** @type {string} */ (ctx.ui.selected), layer));
  if (ctx.ui.selected && (options.keep_airborne ?? []).includes(ctx.ui.selected)) {
    // Combat Jump (Airborne Deployment): off the table now, in by Combat Jump on its own Order later.
    const id = ctx.ui.selected;
    controls.append(el("div", {}, button("Keep airborne (Combat Jump later, secret)", () => ctx.send({ type: "keep_airborne", trooper: id }), { id: "keep-airborne" })));
  }
  if (options.reserve) {
    // Steps 1 and 2 deploy every trooper but one: the last one waiting deploys in step 3 or 4.
    // Two after the first player's Strategic hold-back (a Command Token, N5): options.reserves.
    const kept = (options.reserves ?? [options.reserve]).map((/** @type {string} */ id) => ctx.conn.view.trooper(id)?.profile?.name ?? id);
    controls.append(el("p", { id: "reserve-note" }, `In reserve: ${kept.join(", ")}. ${kept.length > 1 ? "They deploy" : "It deploys"} in step ${step + 2}, after your opponent's troopers.`));
  }
  if (options.end_deployment_step) controls.append(el("br"), button("End deployment step", () => ctx.send({ type: "end_deployment_step" }), { id: "end-deployment" }));
  return parts;
}

const at = (/** @type {number[]} */ p) => `(${p.map((v) => v.toFixed(1)).join(", ")})`;

/** A Minelayer deploying (`options.minelayer`, N5): its spot by a table click, then up to its
 * Mines by more clicks within its Zone of Control (the table draws them: mines.js), each one
 * removable, and Deploy with them or without. */
function minelayerControls(ctx, id, offer) {
  const plan = ctx.ui.minePlan?.trooper === id ? ctx.ui.minePlan : null;
  const name = ctx.conn.view.trooper(id)?.profile?.name ?? id;
  const most = `${offer.mines} Mine${offer.mines === 1 ? "" : "s"}`;
  const box = el("div", { class: "panel", id: "minelayer" }, el("b", {}, "Minelayer: "), `${name} may lay up to ${most} (${offer.name}) as it deploys.`);
  if (!plan?.at) {
    box.append(hint(`Click where ${name} deploys; then click where each Mine goes, within its Zone of Control (${offer.zone_of_control}" from its base, the dotted circle).`));
    return box;
  }
  const left = offer.mines - plan.mines.length;
  box.append(el("div", { id: "minelayer-spot" }, `${name} at ${at(plan.at)}. `,
    left ? `Click the table for Mine ${plan.mines.length + 1} of ${offer.mines}, inside the dotted circle, or deploy now.` : `${capital(most)} planned.`));
  plan.mines.forEach((/** @type {number[]} */ m, /** @type {number} */ i) => box.append(el("div", { "data-planned-mine-row": String(i) }, `Mine ${i + 1} at ${at(m)} `,
    button("Remove", () => { plan.mines.splice(i, 1); plan.note = ""; ctx.render(); }, { "data-remove-mine": String(i), class: "link-like" }))));
  if (plan.note) box.append(el("div", { class: "why", id: "mine-note" }, plan.note));
  const n = plan.mines.length;
  box.append(el("div", {},
    ...(n ? [button(`Deploy with ${n} Mine${n === 1 ? "" : "s"}`, () => ctx.deploy(id, plan.at, plan.mines), { id: "deploy-with-mines", class: "primary" }), " "] : []),
    button("Deploy without Mines", () => ctx.deploy(id, plan.at), { id: "deploy-without-mines", class: n ? "" : "primary" }), " ",
    button("Choose another spot", () => { ctx.ui.minePlan = null; ctx.render(); }, { id: "minelayer-respot", class: "link-like" })),
    hint("The opponent sees each Mine as a Camouflage marker."));
  return box;
}
