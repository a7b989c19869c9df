// The ARO window, for every viewer: a countdown on the table (big, red in its last 5 s), the
// reactive player's compact panel (one row per trooper that may still answer, one choice each
// with a sensible default, Declare all / Pass all, keyboard shortcuts), what the others see
// while they wait, and a notice that stays when a window times out with AROs lost.
//
// The choices are the server's (`options.aros`): the panel only picks a default among them.
// The reactive seat's app also closes a window by itself when nothing is left to declare
// (`answer`), as docs/client.md describes.
import { windowRemainingMs } from "./lib/connection.js";
import { weaponName, weapon as catalogueWeapon } from "./catalogue.js";
import { shotPreviewText, skillText, textOf, toNodes, whyText } from "./describe.js";
import { el } from "./dom.js";

const URGENT_MS = 5000;
/** How long the time-out notice stays at least; after that the next action clears it. */
const NOTICE_MS = 8000;
const ACTIONS = new Set(["order_spent", "skill_declared", "aro_window_opened", "turn_started"]);

/**
 * The best of the offered weapons against a target, from the server's previews of each shot
 * (`options.aros[...].shots`, server/rules/previews.py): a Direct Template (it hits without a
 * roll), then one that does not fail automatically, then the highest Success Value, then the
 * lowest PS (the hardest save), then special ammunition over N, then a weapon that is not
 * Disposable.
 * @param {string[]} weapons @param {(weapon: string) => Record<string, any> | undefined} preview
 */
export function bestWeapon(weapons, preview) {
  const score = (/** @type {string} */ id) => {
    const w = catalogueWeapon(id);
    const p = preview(id);
    return [p?.template ? 1 : 0, p?.automatic_failure ? 0 : 1, p?.sv ?? 0, -(w?.ps ?? 10),
      w?.ammo && w.ammo !== "N" ? 1 : 0, w?.disposable ? 0 : 1];
  };
  return [...weapons].sort((x, y) => {
    const a = score(x); const b = score(y);
    for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return b[i] - a[i];
    return 0;
  })[0];
}

/**
 * @typedef {{value: string, text: string, kind: string, target?: string, points?: Record<string, any>[]}} AroChoice
 * `points`: for a shot or a Discover, the server's previews at each point of the target's
 * route it may be taken at (the first, `point: null`, the server's default).
 */

/**
 * Every choice the server offers one trooper, and the default among them. Each shot and
 * Discover says, before it is declared, its final Success Value with every MOD at the
 * server's default point (`shotPreviewText`); a shot that would fail without dice says so.
 * @param {string} id @param {Record<string, any>} can its `options.aros` entry
 * @param {{active: string | null, view: any, ruleset: string | undefined, label: (id: string) => string}} ctx
 * @returns {{choices: AroChoice[], preferred: string}}
 */
export function aroChoices(id, can, ctx) {
  const shots = can.shots ?? {};
  /** @type {AroChoice[]} */
  const choices = [];
  // Shots: per target, the best weapon first, then the others.
  const shotTargets = [...new Set(Object.values(shots).flatMap((/** @type {any} */ perTarget) => Object.keys(perTarget)))];
  /** @type {Record<string, string>} */
  const bestAt = {};
  for (const x of shotTargets) {
    const weapons = Object.keys(shots).filter((w) => shots[w][x]?.length);
    const best = bestWeapon(weapons, (w) => shots[w][x][0]);
    bestAt[x] = best;
    for (const w of [best, ...weapons.filter((v) => v !== best)]) {
      const points = shots[w][x];
      // In Suppressive Fire an SF weapon's ARO is the SF Mode's Burst 3 (options.bs_burst).
      const burst = can.bs_burst?.[w] ?? 1;
      const sf = burst > 1 ? `Suppressive Fire Mode, B${burst}: ` : "";
      choices.push({ value: JSON.stringify({ type: "bs_attack", weapon: w, targets: [{ trooper: x, burst }] }), kind: "shoot", target: x, points,
        text: `Shoot: ${weaponName(w)} at ${ctx.label(x)} (${sf}${shotPreviewText(points[0])})` });
    }
  }
  for (const [w, list] of Object.entries(can.targets?.cc_attack ?? {})) for (const x of list) {
    choices.push({ value: JSON.stringify({ type: "cc_attack", weapon: w, target: x }), kind: "cc", target: x, text: `CC Attack ${ctx.label(x)} with ${weaponName(w)}` });
  }
  for (const [p, list] of Object.entries(can.targets?.comms_attack ?? {})) for (const x of list) {
    choices.push({ value: JSON.stringify({ type: "comms_attack", program: p, target: x }), kind: "hack", target: x, text: `Hack ${ctx.label(x)}: ${weaponName(p)}` });
  }
  for (const [x, points] of Object.entries(can.forward_observer_rolls ?? {})) {
    choices.push({ value: JSON.stringify({ type: "forward_observer", target: x }), kind: "mark", target: x, points,
      text: `Forward Observer: mark ${ctx.label(x)} Targeted (${shotPreviewText(points[0])})` });
  }
  for (const [x, points] of Object.entries(can.discover_rolls ?? {})) {
    choices.push({ value: JSON.stringify({ type: "discover", target: x }), kind: "discover", target: x, points,
      text: `Discover ${ctx.label(x)} (${shotPreviewText(points[0])})` });
  }
  // Smoke or Eclipse between the reactor and an activated trooper (options.aros[..].zones[..].screens).
  for (const [w, offer] of Object.entries(can.zones ?? {})) for (const [x, screen] of Object.entries(offer.screens ?? {})) {
    const thrown = offer.attribute === "PH" ? "thrown on PH, " : "";
    choices.push({ value: JSON.stringify({ type: "bs_attack", weapon: w, targets: [], zone_at: screen.point }), kind: "zone", target: x,
      text: `${weaponName(w)}: ${offer.kind} between it and ${ctx.label(x)} (${thrown}SV ${screen.sv}, Face to Face with the shots it blocks)` });
  }
  if (can.dodge) {
    const note = can.line_of_fire ? "" : can.sixth_sense ? " (Sixth Sense: no penalty)" : ctx.ruleset === "n5" ? " (\u22123 PH: no LoF)" : "";
    choices.push({ value: JSON.stringify({ type: "dodge" }), kind: "dodge", text: `Dodge${note}` });
  }
  if (can.reset) choices.push({ value: JSON.stringify({ type: "reset" }), kind: "reset", text: "Reset" });
  // Place Deployable in ARO (options.aros[..].place_deployable): a Mine against its own base,
  // at the first of the spots the server accepts.
  for (const [w, offer] of Object.entries(can.place_deployable ?? {})) {
    const spot = offer.spots?.[0];
    if (spot) choices.push({ value: JSON.stringify({ type: "place_deployable", weapon: w, position: spot }), kind: "place",
      text: `Place Deployable: ${weaponName(w)} in contact (${offer.uses_left} left)` });
  }
  choices.push({ value: "pass", kind: "pass", text: "No ARO" });

  const find = (/** @type {string} */ kind, /** @type {string | undefined} */ target = undefined) =>
    choices.find((c) => c.kind === kind && (target === undefined || c.target === target));
  const at = (/** @type {string} */ kind) => (ctx.active && find(kind, ctx.active)) || find(kind);
  const shot = (ctx.active && bestAt[ctx.active] !== undefined && find("shoot", ctx.active)) || find("shoot");
  const shotReaches = shot && !shot.points?.[0]?.automatic_failure;
  const preferred = (can.template && find("dodge"))
    || (can.comms_target && find("reset"))
    || (shotReaches && shot)
    || at("cc") || at("hack")
    || find("dodge")
    || find("pass");
  return { choices, preferred: /** @type {{value: string}} */ (preferred).value };
}

/**
 * The point choices of a shot or a Discover: the server's default and each point of the
 * route it may be taken at (only those: the server leaves out a point where the reactor has
 * no Line of Fire or a template does not reach), each with its Success Value there.
 * @param {AroChoice | undefined} choice @param {any} order the view's Order
 * @returns {{value: string, text: string}[]}
 */
export function pointChoices(choice, order) {
  if (!choice?.points || !choice.target) return [];
  const named = routePoints(order, choice.target);
  return choice.points.map((p) => {
    const where = p.point === null ? "the last point it is seen"
      : named.find((r) => r.point[0] === p.point[0] && r.point[1] === p.point[1])?.text ?? `(${p.point[0].toFixed(1)}, ${p.point[1].toFixed(1)})`;
    return { value: p.point === null ? "" : JSON.stringify(p.point), text: `at ${where}: ${shotPreviewText(p)}` };
  });
}

/**
 * The points of an activated trooper's route in this Order an ARO may be taken at (seed 000
 * "All at Once": "choosing to shoot at the end of the Movement"): the corners the active
 * player drew, start and end included, each once; none when it has not moved. They name
 * the points the server offers (`pointChoices`), which are only those where the ARO resolves.
 * @param {any} order the view's Order @param {string} target an activated trooper
 * @returns {{point: number[], text: string}[]}
 */
export function routePoints(order, target) {
  const path = target === order?.trooper ? order?.path : order?.peripheral_paths?.[target];
  /** @type {{point: number[], text: string}[]} */
  const found = [];
  for (const p of path ?? []) if (!found.some((f) => f.point[0] === p[0] && f.point[1] === p[1])) found.push({ point: p, text: "" });
  if (found.length < 2) return [];
  return found.map((f, i) => ({ point: f.point,
    text: `${i === 0 ? "the start of its route" : i === found.length - 1 ? "the end of its route" : `corner ${i} of its route`} (${f.point[0].toFixed(1)}, ${f.point[1].toFixed(1)})` }));
}

/**
 * A declaration with the chosen point of the route: only a BS Attack or a Discover is taken
 * at a point (`target_point`); any other choice, or no point (the server's default: the last
 * point where the reactor sees it), is sent as it is.
 * @param {string} value a choice's value @param {string} point "" or a JSON [x, y]
 */
export function withTargetPoint(value, point) {
  if (!point || value === "pass") return value;
  const skill = JSON.parse(value);
  if ((skill.type !== "bs_attack" && skill.type !== "discover") || skill.zone_at) return value;
  return JSON.stringify({ ...skill, target_point: JSON.parse(point) });
}

/**
 * What the panel shows the reactive seat's player: "waiting" (not this seat's window, or its
 * options not here yet), "closing" (its close was accepted and the window still stands: a
 * room with uniform ARO windows holds the close until the window has been open its minimum
 * time, docs/fair-play.md), "nothing" (no trooper may still answer: the app closes the
 * window by itself) or "choose" (rows to declare or pass).
 * @param {boolean} mine @param {any} options @param {boolean} closeAccepted
 */
export function reactivePanelStage(mine, options, closeAccepted) {
  if (!mine || !options) return "waiting";
  if (closeAccepted) return "closing";
  return Object.keys(options.aros ?? {}).length ? "choose" : "nothing";
}

/**
 * @param {{conn: any, names: any, send: (body: any, options?: any) => Promise<any>,
 *   panel: HTMLElement, clock: HTMLElement, notice: HTMLElement}} parts
 */
export function createAroPanel({ conn, names, send, panel, clock, notice }) {
  /** Each row's choice, per window and trooper ("order:step:trooper" -> value). */
  const choices = new Map();
  /** Each row's point of the route for a shot or Discover ("order:step:trooper" -> "" or JSON [x, y]). */
  const points = new Map();
  /** Windows this app closed by itself (or tried to): "order:step" -> attempts (-1: in flight). */
  const closing = new Map();
  let busy = false;
  let shownKey = "";
  let noticeUntil = 0;
  let noticeWaitsForAction = false;

  /** The open window when it is an ARO window (a Guts window is guts-panel.js's). */
  const aroWindow = () => { const w = conn.view.window; return w && !w.guts ? w : null; };
  const label = (/** @type {string} */ id) => names.label(id);
  const labelText = (/** @type {string} */ id) => names.label(id).text;
  const windowKey = (/** @type {any} */ w) => `${w.order}:${w.step}`;

  /** Close the reactive player's window once (its troopers that declared nothing pass). */
  function closeWindow(/** @type {any} */ w, quiet = false) {
    const key = windowKey(w);
    const attempts = closing.get(key) ?? 0;
    if (attempts < 0 || attempts >= 3) return Promise.resolve({ ok: false }); // in flight, or given up: the deadline closes it
    closing.set(key, -1);
    const offered = conn.currentOptions()?.close_aro_window; // the server names the window the seat may close
    const body = { type: "close_aro_window", order: offered?.order ?? w.order, step: offered?.step ?? w.step };
    // A window the deadline closed first answers stale_window: nothing to tell the player then.
    return (quiet ? conn.send(body) : send(body)).then((/** @type {any} */ answer) => {
      closing.set(key, answer.ok ? 3 : attempts + 1);
      shownKey = "";
      render(); // (a held close: the window stands until its minimum time)
      return answer;
    });
  }

  /**
   * Every ARO step opens a window, whoever may react (so its opening tells nothing about
   * hidden troopers), and only the reactive player's close_aro_window or the deadline closes
   * it. The reactive seat's app answers at once when it has nothing (left) to declare: the
   * server's options list no trooper of this seat that may still answer this step (they
   * include its hidden troopers). Otherwise the player declares and then clicks Done.
   */
  function answer(/** @type {any} */ options) {
    const w = aroWindow();
    if (!w || !options || w.reactive !== conn.role || Object.keys(options.aros ?? {}).length) return;
    closeWindow(w, true);
  }

  /** Send one trooper's choice. */
  function declare(/** @type {string} */ id, /** @type {string} */ value) {
    if (value === "pass") return send({ type: "pass_aro", trooper: id });
    return send({ type: "declare_aro", trooper: id, skill: JSON.parse(value) });
  }

  /** Run sends one after the other (each command is issued at the version the previous one made). */
  async function run(/** @type {() => Promise<any>} */ work) {
    if (busy) return;
    busy = true;
    shownKey = "";
    render();
    try { await work(); } finally { busy = false; shownKey = ""; render(); }
  }

  /** Declare every row's choice (the defaults unless changed), then close the window. */
  function declareAll() {
    const w = aroWindow();
    const aros = conn.currentOptions()?.aros ?? {};
    if (!w) return;
    run(async () => {
      for (const id of Object.keys(aros)) {
        const value = choices.get(`${windowKey(w)}:${id}`);
        if (value === undefined) continue;
        const answered = await declare(id, withTargetPoint(value, points.get(`${windowKey(w)}:${id}`) ?? ""));
        if (!answered.ok) return; // the rejection is on screen; the rest stays to choose
      }
      const still = aroWindow();
      if (still && windowKey(still) === windowKey(w)) await closeWindow(still, true);
    });
  }

  /** Pass every row that has not answered and close the window. */
  function passAll() {
    const w = aroWindow();
    if (w) run(() => closeWindow(w));
  }

  /** The panel's content changes only with the window, the options and the answers: a re-render keeps the player's focus otherwise. */
  function render() {
    const w = aroWindow();
    const state = conn.view.state;
    renderClock();
    panel.hidden = !w || !state;
    if (!w || !state) { shownKey = ""; return; }
    const options = conn.currentOptions();
    const mine = w.reactive === conn.role;
    const order = state.order ?? {};
    const closeAccepted = closing.get(windowKey(w)) === 3;
    // The eligible troopers too: a frame may carry the open window before the one whose events name them.
    const key = JSON.stringify([w.order, w.step, w.reactive, mine && options ? options.aros : null, order.aros, order.passed, order.skills?.length,
      order.eligible_at_step, busy, closeAccepted]);
    if (key === shownKey) return;
    shownKey = key;
    const focused = /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.aroChoice;
    panel.className = `panel${mine ? " mine" : ""}`;
    panel.replaceChildren(heading(w, mine), activation(order));
    const stage = reactivePanelStage(mine, options, closeAccepted);
    if (stage === "waiting") {
      panel.append(waiting(w, order, mine));
      return;
    }
    if (stage === "closing") {
      panel.append(el("div", { id: "aro-closing" }, "Done: the window closes for both players once it has been open its minimum time (uniform ARO windows)."));
      return;
    }
    const aros = options.aros ?? {};
    const pending = Object.keys(aros);
    const rows = el("div", { class: "aro-rows" });
    pending.forEach((id, i) => rows.append(row(w, id, aros[id], i + 1, order)));
    for (const id of answeredAt(order, w.step)) if (!pending.includes(id)) rows.append(answeredRow(id, order));
    panel.append(rows);
    if (stage === "nothing") {
      panel.append(el("div", { id: "aro-nothing" }, "Nothing (more) to declare at this step: closing the window..."));
      return;
    }
    panel.append(el("div", { class: "aro-actions" },
      el("button", { id: "aro-declare-all", class: "primary", disabled: busy, onclick: declareAll, title: "Send each row's choice, then close the window (Enter)" }, "Declare all ", el("kbd", {}, "Enter")),
      el("button", { id: "close-window", disabled: busy, onclick: passAll, title: "Troopers that declared nothing lose their ARO for this step (Esc)" }, "Pass all / Done ", el("kbd", {}, "Esc"))),
      el("div", { class: "hint" }, `Keys: ${pending.length > 1 ? `1-${Math.min(9, pending.length)} pick a row` : "1 picks the row"}, Enter declares every row's choice and closes, Esc passes the rest and closes.`));
    if (focused) /** @type {HTMLElement | null} */ (panel.querySelector(`[data-aro-choice="${focused}"]`))?.focus();
  }

  function heading(/** @type {any} */ w, /** @type {boolean} */ mine) {
    return el("div", { class: "aro-heading" },
      el("span", {}, el("b", {}, mine ? "Your ARO" : `ARO: player ${w.reactive} may react`),
        ` (Order ${w.order}, ${w.step === 1 ? "first" : "second"} ARO step)`),
      el("span", { class: `countdown${windowRemainingMs(w) < URGENT_MS ? " urgent" : ""}`, id: "countdown" }, `${(windowRemainingMs(w) / 1000).toFixed(1)} s left`));
  }

  /** What the active troopers declared, in words. */
  function activation(/** @type {any} */ order) {
    const box = el("div", { class: "activation" });
    if (!order.trooper) return box;
    box.append(toNodes([label(order.trooper), ...(order.peripherals ?? []).flatMap((/** @type {string} */ p) => [" + ", label(p)])]), ": ");
    const skills = order.skills ?? [];
    if (!skills.length) box.append("activated");
    skills.forEach((/** @type {any} */ s, /** @type {number} */ i) => { if (i) box.append(", then "); box.append(toNodes(skillText(s, { names }))); });
    return box;
  }

  /** The others' view of the window: who may react, as this viewer may know it. */
  function waiting(/** @type {any} */ w, /** @type {any} */ order, /** @type {boolean} */ mine) {
    const eligible = Object.keys(order.eligible ?? {}).filter((id) => (order.eligible_at_step?.[id] ?? w.step) === w.step);
    const box = el("div", { class: "aro-waiting" }, mine ? "Loading your options... " : "Waiting for the reactive player. ");
    if (!eligible.length) { box.append("Eligible: none that you can see."); return box; }
    box.append("Eligible: ");
    eligible.forEach((id, i) => {
      if (i) box.append(", ");
      const answered = order.aros?.[id] ? `: ${textOf(skillText(order.aros[id], { names }))}` : (order.passed ?? []).includes(id) ? ": no ARO" : "";
      box.append(toNodes([label(id)]), ` (${whyText(order.eligible[id])})${answered}`);
    });
    return box;
  }

  /** Troopers of this seat that answered at this step. */
  function answeredAt(/** @type {any} */ order, /** @type {number} */ step) {
    return [...Object.keys(order.aros ?? {}), ...(order.passed ?? [])]
      .filter((id) => (order.eligible_at_step?.[id] ?? step) === step && id.startsWith(`${conn.role}-`));
  }

  function answeredRow(/** @type {string} */ id, /** @type {any} */ order) {
    const skill = order.aros?.[id];
    return el("div", { class: "aro-row answered", "data-aro-answered": id },
      el("span", { class: "aro-who" }, toNodes([label(id)])),
      el("span", { class: "aro-declared" }, skill ? toNodes(["declared ", ...skillText(skill, { names })]) : "no ARO (passed)"));
  }

  function row(/** @type {any} */ w, /** @type {string} */ id, /** @type {any} */ can, /** @type {number} */ n, /** @type {any} */ order) {
    const { choices: offered, preferred } = aroChoices(id, can, { active: order.trooper ?? null, view: conn.view, ruleset: conn.view.state?.ruleset, label: labelText });
    const key = `${windowKey(w)}:${id}`;
    if (!offered.some((c) => c.value === choices.get(key))) choices.set(key, preferred);
    // A new choice re-renders the row: its points of the route (and their SVs) are its own.
    const select = el("select", { "data-aro-choice": id, "aria-label": `ARO of ${labelText(id)}`, disabled: busy,
      onchange: (/** @type {any} */ e) => { choices.set(key, e.target.value); shownKey = ""; render(); } },
    ...offered.map((c) => el("option", { value: c.value, "data-kind": c.kind, ...(c.target ? { "data-target": c.target } : {}),
      selected: c.value === choices.get(key) }, c.text)));
    // Where on the active trooper's route a shot or Discover is taken (the default: the server's),
    // each point with the Success Value there; only the points the server offers.
    const where = pointChoices(offered.find((c) => c.value === choices.get(key)), order);
    if (!where.some((p) => p.value === (points.get(key) ?? ""))) points.set(key, "");
    const at = where.length > 1 ? el("select", { "data-aro-point": id, "aria-label": `Point of the route for the ARO of ${labelText(id)}`, disabled: busy,
      title: "A shot or Discover is taken at this point of the route (range and cover from there)",
      onchange: (/** @type {any} */ e) => { points.set(key, e.target.value); shownKey = ""; render(); } },
    ...where.map((p) => el("option", { value: p.value, selected: points.get(key) === p.value }, p.text))) : "";
    // The chosen shot's or Discover's final SV in full (a select may cut its text short).
    const chosen = offered.find((c) => c.value === choices.get(key))?.points
      ?.find((p) => (p.point === null ? "" : JSON.stringify(p.point)) === (points.get(key) ?? ""));
    const sv = chosen ? el("div", { class: `shot-sv${chosen.automatic_failure ? " auto-fail" : ""}`, "data-aro-sv": id }, shotPreviewText(chosen)) : "";
    return el("div", { class: "aro-row", "data-aro": id },
      el("kbd", { class: "aro-key" }, n <= 9 ? String(n) : ""),
      el("span", { class: "aro-who" }, toNodes([label(id)]), el("span", { class: "aro-why" }, ` ${whyText(can)}`)),
      select, at, sv,
      el("button", { "data-action": "declare", disabled: busy, onclick: () => run(() => declare(id, withTargetPoint(choices.get(key), points.get(key) ?? ""))) }, "Declare"),
      el("button", { "data-action": "pass", disabled: busy, onclick: () => run(() => declare(id, "pass")) }, "Pass"));
  }

  /** The countdown: on the table for every viewer, and in the panel. */
  function renderClock() {
    const w = conn.view.window; // an ARO or a Guts window: the table's countdown shows either
    clock.hidden = !w;
    if (!w) return;
    const left = windowRemainingMs(w);
    const text = `${(left / 1000).toFixed(1)} s`;
    const mine = w.reactive === conn.role;
    clock.classList.toggle("urgent", left < URGENT_MS);
    clock.classList.toggle("mine", mine);
    const kind = w.guts ? "Guts move" : "ARO";
    const words = `${mine ? `Your ${kind}` : `${kind}: player ${w.reactive}`} ${text}`;
    if (clock.textContent !== words) clock.textContent = words;
    const inPanel = document.getElementById("countdown");
    if (inPanel) {
      inPanel.textContent = `${text} left`;
      inPanel.classList.toggle("urgent", left < URGENT_MS);
    }
    if (Date.now() > noticeUntil && !noticeWaitsForAction && !notice.hidden) notice.hidden = true;
  }

  /** A window that timed out: say who lost its ARO, for a while and until the next action. */
  function onEvents(/** @type {{version: number, event: any}[]} */ entries) {
    for (const { event } of entries) {
      if (!event) continue;
      if (event.type === "aro_window_closed" && event.reason === "deadline") {
        const lost = [...(event.lost ?? []), ...(event.lost_hidden ?? [])];
        notice.replaceChildren(el("b", {}, "ARO window timed out"),
          lost.length ? toNodes([": ", ...lost.flatMap((id, i) => [...(i ? [i === lost.length - 1 ? " and " : ", "] : []), label(id)]),
            ` lost ${lost.length === 1 ? "its" : "their"} ARO.`]) : ": it closed at its deadline.",
          el("button", { class: "dismiss", title: "Dismiss", onclick: () => { notice.hidden = true; noticeWaitsForAction = false; } }, "\u00d7"));
        notice.hidden = false;
        noticeUntil = Date.now() + NOTICE_MS;
        noticeWaitsForAction = true;
      } else if (ACTIONS.has(event.type) && noticeWaitsForAction) {
        noticeWaitsForAction = false; // the notice goes once its time is up
      }
    }
  }

  /** Keyboard: 1-9 pick a row, Enter declares every row and closes, Esc passes the rest. */
  document.addEventListener("keydown", (e) => {
    const w = aroWindow();
    if (!w || w.reactive !== conn.role || panel.hidden || busy || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target?.tagName === "INPUT" || target?.tagName === "TEXTAREA" || target?.tagName === "BUTTON" && e.key === "Enter") return;
    if (!panel.querySelector("[data-aro]")) return;
    if (e.key === "Enter") { e.preventDefault(); declareAll(); }
    else if (e.key === "Escape") { e.preventDefault(); passAll(); }
    else if (/^[1-9]$/.test(e.key)) {
      const select = /** @type {HTMLElement | undefined} */ ([...panel.querySelectorAll("[data-aro-choice]")][Number(e.key) - 1]);
      if (select) { e.preventDefault(); select.focus(); }
    }
  });

  return { render, answer, tick: renderClock, onEvents };
}
