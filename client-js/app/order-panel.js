// The order panel (#order-panel): what the Active Player's seat does with its Orders. Before an
// Order: the troopers it may activate and the kind of Order for each (with the Peripherals
// joining, a Coordinated Order, a Reveal or a Combat Jump on a private Order), and End turn
// with its question when Orders are left. During one: the skill to declare, every choice the
// server's options offer (routes drawn on the table against MOV with an end facing: route-form.js; the BS
// Attack's weapon and Burst split from a firing point, CC, Discover, Comms Attack, Dodge,
// Reset, Idle, Suppressive Fire), for a joint or Coordinated Order each trooper's part. It owns
// the Combat Jump being aimed and the end-turn question; the declaration being built is shared
// UI state (ui-state.js) that the table draws.
import { shotPreviewText } from "./describe.js";
import { weaponName, weapon as catalogueWeapon } from "./catalogue.js";
import { renderCoordinate } from "./command-tokens.js";
import { coordinatedBlocker, participantSkill } from "./coordinated-order.js";
import { pathPointNames } from "./seat-view.js";
import { createRouteForm } from "./route-form.js";
import { el } from "./dom.js";
import { placeMineSpot } from "./mines.js";
import { missionSkillButtons } from "./mission-skills.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const button = (text, onclick, attrs = {}) => el("button", { ...attrs, onclick }, text);

/**
 * @param {object} parts
 * @param {import("./lib/connection.js").GameConnection} parts.conn
 * @param {import("./ui-state.js").UiState} parts.ui
 * @param {any} parts.names the troopers' names as the table shows them (history.js TrooperNames)
 * @param {(body: Record<string, any>) => Promise<any>} parts.send send a command (main.js shows a rejection)
 * @param {() => void} parts.render draw the whole page again
 * @param {(id: string) => void} parts.selectTrooper
 * @param {(text: string) => void} parts.say show a message where rejections are shown
 */
export function createOrderPanel({ conn, ui, names, send, render, selectTrooper, say }) {
  /** the trooper in Airborne Deployment whose landing spot the next table click names (Combat Jump) */
  let jumping = /** @type {string|null} */ (null);
  /** the turn and Orders spent ("round:turn:side:spent") whose "End turn with Orders unspent?" question is showing */
  let confirmEndTurn = /** @type {string|null} */ (null);
  /** a Smoke or Eclipse weapon being aimed (options.skills.zones): the next table click names its point */
  let zoneAim = /** @type {{weapon: string, point: number[]|null}|null} */ (null);
  const isSeat = () => conn.role === "A" || conn.role === "B";
  const routeForm = createRouteForm({ conn, ui, names, render, declare, named, trooperButton });

  /** A trooper as the table names it ("Lancer 3"), the unit's full name and the id in its tooltip. @param {string} id */
  function named(id) {
    const piece = names.label(id);
    return el("span", { class: piece.cls ?? "trooper", title: piece.title ?? id }, piece.text);
  }

  /** A button naming a trooper as the table does ("Lancer 3"), its id in the tooltip: a room's ids are random, unreadable. */
  function trooperButton(id, onclick, attrs = {}) {
    const piece = names.label(id);
    return button(piece.text ?? id, onclick, { title: piece.title ?? id, ...attrs });
  }

  /** The order types offered for a trooper, with where a Regular Order comes from. */
  function orderLabel(t, kind, state) {
    if (kind !== "regular") return `${kind} order`;
    const group = t?.entry?.combat_group ?? t?.combat_group;
    return `regular order (Combat Group ${group}: ${state.orders?.pools?.[group] ?? 0} left)`;
  }

  function renderOrderPanel(state, options) {
    const panel = $("order-panel");
    panel.replaceChildren();
    panel.hidden = !(isSeat() && options && state.active === conn.role && (state.phase === "orders" || state.phase === "impetuous"));
    if (panel.hidden) return;
    if (!state.order) {
      const ready = Object.keys(options.activate);
      panel.append(el("div", {}, ready.length ? "Select a trooper and spend an order:" : "No trooper can be activated."));
      for (const id of ready) panel.append(trooperButton(id, () => selectTrooper(id), { "data-select": id, class: ui.selected === id ? "chosen" : "" }));
      const kinds = ui.selected ? options.activate[ui.selected] ?? [] : [];
      const t = ui.selected ? conn.view.trooper(ui.selected) : null;
      if (kinds.length) {
        panel.append(el("div", {}, named(ui.selected), ": ", ...kinds.map((kind) => button(orderLabel(t, kind, state), () => activate(ui.selected, kind), { "data-order": kind }))));
        // Regular Orders only activate troopers of their own Combat Group (the rules core
        // refuses any other pool), so the pool is named, not chosen.
        const joining = options.peripherals?.[ui.selected] ?? [];
        if (joining.length) {
          panel.append(el("div", {}, "Activate with its Peripherals (same Order, same skills): ",
            ...joining.map((p) => el("label", {}, el("input", { type: "checkbox", "data-peripheral": p, checked: ui.peripherals.has(p),
              onchange: (e) => { if (e.target.checked) ui.peripherals.add(p); else ui.peripherals.delete(p); } }), " ", named(p), " "))));
        }
      }
      renderCoordinate(panel, options, { el, button, send, render, selected: ui.selected, name: (id) => names.label(id).text ?? id });
      for (const id of options.reveal) panel.append(el("div", {}, button(`Reveal ${names.label(id).text} on its own private Order (Hidden Deployment)`, () => send({ type: "reveal", trooper: id }), { "data-reveal": id })));
      for (const [id, jump] of Object.entries(options.combat_jump ?? {})) {
        // Combat Jump: pick the landing spot on the table; a failed PH Roll lands at the offered edge spot.
        const name = names.label(id).text;
        panel.append(el("div", {}, button(`Combat Jump: ${name} on its own private Order`, () => { jumping = jumping === id ? null : id; render(); },
          { "data-combat-jump": id, class: jumping === id ? "chosen" : "" })));
        if (jumping === id) {
          panel.append(el("div", { id: "combat-jump-hint", class: "hint" }, `Click the landing spot on the table (PH ${jump.ph} roll; if it fails, ${name} lands at `
            + `(${jump.fallback.map((v) => v.toFixed(1)).join(", ")}) on your table edge). Not on scenery or in contact with enemies or cover.`));
        }
      }
      if (options.end_impetuous_phase) panel.append(button("End impetuous phase", () => send({ type: "end_impetuous_phase" }), { id: "end-impetuous" }));
      if (options.end_turn) panel.append(endTurnControl(state, options));
      return;
    }
    const skills = options.skills;
    if (!skills) { panel.append(el("div", {}, conn.view.window ? "ARO window open: waiting for the reactive player." : "Resolving...")); return; }
    const order = state.order;
    const t = conn.view.trooper(order.trooper);
    if (ui.selected !== t.id) { ui.selected = t.id; }
    const peripheralSkills = skills.peripherals ?? {};
    const activated = [t.id, ...Object.keys(peripheralSkills)];
    const joint = activated.length > 1;
    const coordinated = joint && skills.coordinated === true;
    const fireteam = joint && skills.fireteam === true;
    const others = activated.slice(1).flatMap((id, i) => [...(i ? [" and "] : []), named(id)]);
    panel.append(el("div", { id: "order-title" }, ...(fireteam
      ? [`Fireteam Order ${order.number}: `, named(t.id), " leads ", ...others]
      : coordinated
      ? [`Coordinated Order ${order.number}: Spearhead `, named(t.id), " with ", ...activated.slice(1).flatMap((id, i) => [...(i ? [" and "] : []), named(id)])]
      : [`Order ${order.number} (${order.order_type}) on `, ...activated.flatMap((id, i) => [...(i ? [" + "] : []), named(id)])]),
    `: declare skill ${skills.index}${skills.index === 2 ? " (or Idle)" : ""}`));
    if (coordinated) panel.append(el("div", { class: "hint" }, "Every trooper declares the Spearhead's skill; an attack has the Spearhead's one target (Burst: half for the Spearhead, 1 for the others)."));
    const imp = skills.impetuous; // DIGEST 3.6: what an Impetuous activation's route must do
    if (imp) panel.append(el("div", { id: "impetuous-hint" }, imp.charge.length
      ? `Impetuous: the move must end in base contact with ${imp.charge.map((id) => names.label(id).text ?? id).join(" or ")}.`
      : imp.inside_enemy_zone ? "Impetuous: inside the enemy Deployment Zone it moves freely, staying inside."
        : `Impetuous: move the full MOV (${imp.full_mov.move}") towards the enemy Deployment Zone (${imp.enemy_zone}), never away from it.`));
    // A skill type is offered when every activated trooper may perform it (DIGEST 2: same skills);
    // in a Coordinated Order the Spearhead's choice decides, and another trooper that cannot
    // perform it performs Idle (DIGEST 3.4: coordinated-order.js says what each one does).
    const nameOf = (id) => names.label(id).text ?? id;
    const all = coordinated
      ? (test, type) => test(skills) && (type ? coordinatedBlocker(type, skills, nameOf) === null : true)
      : (test) => test(skills) && Object.values(peripheralSkills).every(test);
    const routeSkills = skills.route_skills.filter((s) => all((x) => x.route_skills.includes(s), s));
    if (routeSkills.length) routeForm.render(panel, order, activated, routeSkills);
    renderFiringPoints(panel, skills, order);
    if (coordinated) renderCoordinatedAttackForm(panel, skills);
    else renderAttackForm(panel, skills, joint && all((x) => Object.keys(x.bs_attack).length > 0));
    /** Why a joint activation's attack button is off: the Peripheral(s) without that skill. */
    const lacking = (test, what) => `${Object.entries(peripheralSkills).filter(([, x]) => !test(x)).map(([id]) => nameOf(id)).join(", ")} has no ${what} now (a Peripheral declares its Controller's skill)`;
    const ccTest = (x) => Object.keys(x.cc_attack).length > 0;
    const cc = coordinated || all(ccTest);
    for (const [weapon, targets] of Object.entries(skills.cc_attack)) {
      for (const target of targets) {
        const coupDeGrace = conn.view.trooper(target)?.condition === "unconscious";
        const skill = { type: "cc_attack", weapon, target };
        const notes = coordinated ? coordinatedNotes(skill, peripheralSkills) : [];
        panel.append(button(`${coupDeGrace ? "Coup de Grâce on" : "CC Attack on"} ${nameOf(target)} (${weaponName(weapon)})`,
          () => declare(skill, "cc_attack"), { "data-cc": target, disabled: !cc, title: cc ? notes.join("; ") : lacking(ccTest, "CC target") }));
        if (!cc) panel.append(el("span", { class: "why", "data-why": `cc:${target}` }, lacking(ccTest, "CC target")));
        if (notes.length) panel.append(el("div", { class: "hint", "data-coordinated-cc": target }, `With it: ${notes.join("; ")}.`));
      }
    }
    // Berserk (alone; its whole Order): straight into contact, then a CC Attack with its MOD.
    if (!joint) for (const [weapon, offers] of Object.entries(skills.berserk ?? {})) {
      for (const [target, offer] of Object.entries(offers)) {
        panel.append(button(`Berserk on ${nameOf(target)} (${weaponName(weapon)}, ${shotPreviewText(offer)})`,
          () => declare({ type: "berserk", weapon, target, route: offer.route }, "berserk"),
          { "data-berserk": target, title: `Moves up to ${offer.allowance}" straight into contact, then attacks in CC` }));
      }
    }
    const discoverTest = (x) => x.discover.length > 0;
    const discover = coordinated || all(discoverTest);
    for (const target of skills.discover) {
      panel.append(button(`Discover ${nameOf(target)}`, () => declare({ type: "discover", target }, "discover"),
        { "data-discover": target, disabled: !discover, title: discover ? "" : lacking(discoverTest, "Discover target") }));
    }
    const hackTest = (x) => Object.keys(x.comms_attack ?? {}).length > 0;
    // In a Coordinated Order every trooper declares the Comms Attack too: each must be a Hacker.
    const noHackers = coordinated ? Object.keys(peripheralSkills).filter((id) => !conn.view.trooper(id)?.profile?.hacker) : [];
    const hack = coordinated ? noHackers.length === 0 : all(hackTest);
    const hackWhy = hack ? "" : coordinated ? `${noHackers.map(nameOf).join(", ")} is no Hacker: a Coordinated Order's troopers all declare the same skill` : lacking(hackTest, "Comms Attack target");
    for (const [program, targets] of Object.entries(skills.comms_attack ?? {})) {
      for (const target of targets) {
        panel.append(button(`Comms Attack: ${weaponName(program)} on ${nameOf(target)}`, () => declare({ type: "comms_attack", program, target }, "comms_attack"),
          { "data-hack": target, "data-program": program, disabled: !hack, title: hackWhy }));
      }
    }
    if (hackWhy && Object.keys(skills.comms_attack ?? {}).length) panel.append(el("div", { class: "why" }, hackWhy));
    // Specialist troopers (alone: a Coordinated Order or a joint activation shares one skill type).
    const specialist = [["forward_observer", "Forward Observer: mark", (t) => ({ type: "forward_observer", target: t })],
      ["doctor", "Doctor on", (t) => ({ type: "doctor", target: t })], ["paramedic", "Paramedic on", (t) => ({ type: "paramedic", target: t })],
      ["engineer", "Engineer: repair", (t) => ({ type: "engineer", target: t })],
      ["engineer_states", "Engineer: cancel States of", (t) => ({ type: "engineer", target: t, cancel_states: true })]];
    if (!coordinated && !joint) for (const [key, words, make] of specialist) {
      for (const [target, seen] of Object.entries(skills[key] ?? {})) {
        panel.append(button(`${words} ${nameOf(target)} (${shotPreviewText(seen)})`, () => declare(make(target), make(target).type), { "data-specialist": key, "data-target": target }));
      }
    }
    if (!joint) renderZoneAim(panel, skills);
    // Activate a mission marker, a Classified Objective's Short Skill (mission-skills.js): alone,
    // or as a Fireteam's leader (its members follow or are Idle).
    const mission = joint && !fireteam ? null : missionSkillButtons({ state, skills, options, trooper: t.id, side: conn.role, nameOf,
      declare: (skill) => declare(skill), command: async (body) => { if ((await send(body)).ok) { ui.resetDeclaration(); render(); } } });
    if (mission) panel.append(mission);
    if (!joint) renderPlaceMine(panel, skills);
    // (a Fireteam's members follow the leader's movement or are Idle: nothing to choose)
    if (joint && !coordinated && !fireteam) renderPeripheralChoices(panel, peripheralSkills);
    const simple = el("div", {});
    if (all((x) => x.dodge, "dodge")) simple.append(button("Dodge", () => declare({ type: "dodge" }, "dodge"), { id: "declare-dodge" }));
    if (all((x) => x.reset, "reset")) simple.append(button("Reset", () => declare({ type: "reset" }, "reset"), { id: "declare-reset" }));
    if (all((x) => x.idle, "idle")) simple.append(button("Idle", () => declare({ type: "idle" }, "idle"), { id: "declare-idle" }));
    if (all((x) => x.suppressive_fire, "suppressive_fire")) simple.append(button("Suppressive Fire (Entire Order)", () => declare({ type: "suppressive_fire" }, "suppressive_fire"), { id: "declare-suppressive-fire" }));
    panel.append(simple);
  }


  /** Smoke or Eclipse (options.skills.zones): aim a weapon, click the table where its zone goes, declare.
   * The Success Value is the band's (range from the trooper to the point; it must see the point). */
  function renderZoneAim(panel, skills) {
    const zones = Object.entries(skills.zones ?? {});
    if (!zones.length) { zoneAim = null; return; }
    if (zoneAim && !skills.zones[zoneAim.weapon]) zoneAim = null;
    const box = el("div", { id: "zone-aim" }, "Smoke / Eclipse: ");
    for (const [weapon, offer] of zones) {
      const aiming = zoneAim?.weapon === weapon;
      const thrown = offer.attribute === "PH" ? "thrown on PH: " : "";
      const bands = thrown + offer.bands.map((b) => `SV ${b.sv} to ${b.up_to}"`).join(", ");
      box.append(button(aiming ? `${weaponName(weapon)}: click the table` : `Aim ${weaponName(weapon)} (${offer.kind})`,
        () => { zoneAim = aiming ? null : { weapon, point: null }; ui.placeMine = null; render(); },
        { "data-zone-weapon": weapon, class: aiming ? "chosen" : "", title: `${bands}; a ${offer.radius * 2}" circle blocking Line of Fire until the States Phase` }));
      const at = aiming ? zoneAim?.point : null;
      if (at) {
        box.append(button(`Declare ${weaponName(weapon)} at (${at.map((v) => v.toFixed(1)).join(", ")})`, () => {
          zoneAim = null;
          declare({ type: "bs_attack", weapon, targets: [], zone_at: at, ...(ui.firingPoint ? { firing_point: ui.firingPoint } : {}) }, "bs_attack");
        }, { id: "declare-zone" }));
      }
    }
    panel.append(box);
  }

  /** Place Deployable (options.skills.place_deployable, N5): pick a Mine, click the table by the
   * path (the table draws where it may go; the click is put in base contact: mines.js), declare. */
  function renderPlaceMine(panel, skills) {
    const offers = Object.entries(skills.place_deployable ?? {});
    if (ui.placeMine && !skills.place_deployable?.[ui.placeMine.weapon]) ui.placeMine = null;
    if (!offers.length) return;
    const box = el("div", { id: "place-mine" }, "Place Deployable: ");
    for (const [weapon, offer] of offers) {
      const aiming = ui.placeMine?.weapon === weapon;
      box.append(button(aiming ? `${offer.name}: click the table by the path` : `Place Mine (${offer.name}, ${offer.uses_left} left)`,
        () => { ui.placeMine = aiming ? null : { weapon, at: null }; zoneAim = null; render(); },
        { "data-place-mine": weapon, class: aiming ? "chosen" : "", title: "A Short Skill: the Mine goes in base contact with the trooper at any point of its path this Order (the yellow band); the opponent sees a Camouflage marker" }));
      const at = aiming ? ui.placeMine?.at : null;
      if (at) {
        box.append(button(`Declare Place Deployable at (${at.map((v) => v.toFixed(1)).join(", ")})`,
          () => declare({ type: "place_deployable", weapon, position: at }, "place_deployable"), { id: "declare-place-mine" }));
      }
    }
    panel.append(box);
  }

  /** What each other trooper of a Coordinated Order does with the Spearhead's `skill`, in words. */
  function coordinatedNotes(skill, peripheralSkills) {
    return Object.entries(peripheralSkills).map(([id, offered]) =>
      `${names.label(id).text}: ${participantSkill(skill, offered, participantContext(id)).note}`);
  }

  /** A Coordinated Order's trooper for participantSkill: its weapons, the catalogue, names, the weapon picked for it. */
  function participantContext(id) {
    return { weapons: conn.view.trooper(id)?.profile?.weapons ?? [], kindOf: (w) => catalogueWeapon(w)?.kind,
      name: (t) => names.label(t).text ?? t, weaponName, preferred: ui.peripheralChoice[id] ?? null };
  }

  /**
   * A Coordinated Order's BS Attack (DIGEST 3.4): the Spearhead's weapon and its one target
   * (half the Burst, rounded up, all on it); each other trooper shoots that target with B1 with
   * a weapon of its own that reaches it (chosen here when it has several), or, without Line of
   * Fire to it, declares the attack and performs Idle. Always declarable once the Spearhead has
   * a target; what each trooper will do is written under it.
   */
  function renderCoordinatedAttackForm(panel, skills) {
    const shots = shotsNow(skills);
    const weapons = Object.keys(shots);
    if (!weapons.length) return;
    if (!weapons.includes(ui.attack.weapon ?? "")) ui.attack = { weapon: weapons[0], split: {} };
    const info = shots[ui.attack.weapon];
    let target = Object.keys(ui.attack.split)[0];
    if (!info.targets.includes(target)) { target = info.targets[0]; ui.attack.split = { [target]: 1 }; }
    const weaponSelect = el("select", { id: "weapon", onchange: (e) => { ui.attack = { weapon: e.target.value, split: ui.attack.split }; render(); } },
      ...weapons.map((w) => el("option", { value: w, selected: w === ui.attack.weapon }, `${weaponName(w)} (${shots[w].template ? "template" : `B${shots[w].burst}`})`)));
    const targetSelect = el("select", { id: "coordinated-target", onchange: (e) => { ui.attack.split = { [e.target.value]: 1 }; render(); } },
      ...info.targets.map((t) => el("option", { value: t, selected: t === target }, names.label(t).text)));
    const skill = { type: "bs_attack", weapon: ui.attack.weapon, targets: [{ trooper: target, burst: info.template ? 1 : info.burst }],
      ...(ui.firingPoint ? { firing_point: ui.firingPoint } : {}) };
    // The Success Value of each trooper's shot, before it is declared (the server's previews).
    const sv = (/** @type {any} */ preview, /** @type {Record<string, string>} */ attrs) => el("span",
      { class: `shot-sv${preview?.automatic_failure ? " auto-fail" : ""}`, ...attrs }, ` ${shotPreviewText(preview)}`);
    const form = el("div", { class: "attack", id: "coordinated-attack" }, "BS Attack: ", weaponSelect, " at ", targetSelect,
      el("span", { id: "burst-total" }, ` ${info.template ? "template" : `B${info.burst}`} `),
      sv(info.shots?.[target], { "data-shot-sv": target }),
      button("Declare BS Attack", () => declare(skill, "bs_attack"), { id: "declare-bs" }));
    const rows = el("div", { id: "coordinated-troopers" }, "With it:");
    for (const [id, offered] of Object.entries(skills.peripherals ?? {})) {
      const { note, acts, skill: own } = participantSkill(skill, offered, participantContext(id));
      const reaching = Object.entries(offered.bs_attack ?? {}).filter(([, s]) => s.targets.includes(target)).map(([w]) => w);
      const row = el("div", { "data-participant": id, class: acts ? "" : "idle-note" }, named(id), `: ${note}`);
      const preview = acts ? offered.bs_attack?.[own.weapon]?.shots?.[target] : null;
      if (preview) row.append(sv(preview, { "data-participant-sv": id }));
      if (reaching.length > 1) {
        row.append(" ", el("select", { "data-peripheral-choice": id, onchange: (e) => { ui.peripheralChoice[id] = e.target.value; render(); } },
          ...reaching.map((w) => el("option", { value: w, selected: (ui.peripheralChoice[id] ?? reaching[0]) === w }, weaponName(w)))));
      }
      rows.append(row);
    }
    form.append(rows);
    panel.append(form);
  }

  /** Firing point of a BS Attack after a move: where it stands, or a corner of its path. */
  function renderFiringPoints(panel, skills, order) {
    const corners = skills.firing_points ?? [];
    if (!corners.length || !Object.keys(skills.bs_attack).length && !corners.some((f) => Object.keys(f.bs_attack).length)) return;
    const same = (p) => ui.firingPoint && p[0] === ui.firingPoint[0] && p[1] === ui.firingPoint[1];
    if (ui.firingPoint && !corners.some((f) => same(f.point))) ui.firingPoint = null;
    const choose = (point) => { ui.fireFrom(point); render(); };
    const names = pathPointNames(order.path ?? [], corners.map((f) => f.point));
    panel.append(el("div", { id: "firing-points" }, "Fire from: ",
      button(names.here, () => choose(null), { "data-firing-point": "here", class: ui.firingPoint ? "" : "chosen" }),
      ...corners.map((f, i) => button(names.corners[i], () => choose(f.point), { "data-firing-point": f.point.join(","), class: same(f.point) ? "chosen" : "" })),
      el("span", { class: "hint" }, " (or click a marked point of the path)")));
  }

  /** The BS Attack choices at the chosen firing point. */
  function shotsNow(skills) {
    if (!ui.firingPoint) return skills.bs_attack;
    const f = (skills.firing_points ?? []).find((x) => x.point[0] === ui.firingPoint[0] && x.point[1] === ui.firingPoint[1]);
    return f?.bs_attack ?? {};
  }

  /** BS Attack: a legal weapon, then its Burst split between the targets it may hit. */
  function renderAttackForm(panel, skills, jointOk) {
    const shots = shotsNow(skills);
    const weapons = Object.keys(shots);
    if (!weapons.length) return;
    const joint = Object.keys(skills.peripherals ?? {}).length > 0;
    if (!weapons.includes(ui.attack.weapon ?? "")) ui.attack = { weapon: weapons[0], split: {} };
    const info = shots[ui.attack.weapon];
    const select = el("select", { id: "weapon", onchange: (e) => { ui.attack = { weapon: e.target.value, split: {} }; render(); } },
      ...weapons.map((w) => el("option", { value: w, selected: w === ui.attack.weapon }, `${weaponName(w)} (${shots[w].template ? "template" : `B${shots[w].burst}`})`)));
    const form = el("div", { class: "attack" }, "BS Attack: ", select);
    const split = ui.attack.split;
    if (!Object.keys(split).length) split[info.targets[0]] = info.template ? 1 : info.burst;
    for (const target of info.targets) {
      const input = el("input", { type: "number", min: 0, max: info.template ? 1 : info.burst, value: split[target] ?? 0, "data-burst": target, style: "width:3em",
        onchange: (e) => { split[target] = Number(e.target.value); render(); } });
      // The server's preview of the full Burst on this target: final SV with every MOD (or
      // the template's reach), flagged when the shot would fail without dice.
      const preview = info.shots?.[target];
      form.append(el("label", {}, " ", named(target), " ", input,
        el("span", { class: `shot-sv${preview?.automatic_failure ? " auto-fail" : ""}`, "data-shot-sv": target }, ` ${shotPreviewText(preview)}`)));
    }
    const assigned = Object.values(split).reduce((a, b) => a + b, 0);
    // A template weapon places one teardrop per Burst point, each aimed at the target it names.
    const valid = (!info.template || Object.values(split).every((n) => n === 0 || n === 1)) && assigned === info.burst;
    const why = !valid ? (info.template ? `Name ${info.burst} Main Target${info.burst > 1 ? "s" : ""}, one per template (1 each).` : `Split the whole Burst: ${assigned} of ${info.burst} assigned.`)
      : joint && !jointOk ? `${Object.entries(skills.peripherals ?? {}).filter(([, x]) => !Object.keys(x.bs_attack).length).map(([id]) => names.label(id).text).join(", ")} has no target to shoot (a Peripheral declares its Controller's skill).`
        : "";
    form.append(el("span", { id: "burst-total", class: valid ? "" : "over" }, ` ${assigned}/${info.burst}${info.template ? " template" : ""} `),
      button("Declare BS Attack", () => declare({ type: "bs_attack", weapon: ui.attack.weapon,
        targets: Object.entries(split).filter(([, n]) => n > 0).map(([trooper, burst]) => ({ trooper, burst })),
        ...(ui.firingPoint ? { firing_point: ui.firingPoint } : {}) }, "bs_attack"), { id: "declare-bs", disabled: Boolean(why), title: why }));
    if (why) form.append(el("div", { class: "why", id: "bs-why" }, why));
    panel.append(form);
  }

  /** A joint activation: each Peripheral's own details for the skill its Controller declares. */
  function renderPeripheralChoices(panel, peripheralSkills) {
    const box = el("div", { class: "panel", id: "peripheral-choices" }, "Peripherals (their own targets for the same skill):");
    for (const [id, s] of Object.entries(peripheralSkills)) {
      /** @type {[string, Record<string, any>][]} */
      const choices = [];
      for (const [weapon, shot] of Object.entries(s.bs_attack)) for (const target of shot.targets) {
        choices.push([`shoot ${names.label(target).text} with ${weaponName(weapon)} (${shot.template ? "template" : `B${shot.burst}`}: ${shotPreviewText(shot.shots?.[target])})`, { type: "bs_attack", weapon, targets: [{ trooper: target, burst: shot.template ? 1 : shot.burst }] }]);
      }
      for (const [weapon, targets] of Object.entries(s.cc_attack)) for (const target of targets) choices.push([`CC ${names.label(target).text} (${weaponName(weapon)})`, { type: "cc_attack", weapon, target }]);
      for (const target of s.discover) choices.push([`Discover ${names.label(target).text}`, { type: "discover", target }]);
      for (const [program, targets] of Object.entries(s.comms_attack ?? {})) for (const target of targets) choices.push([`${weaponName(program)} on ${names.label(target).text}`, { type: "comms_attack", program, target }]);
      if (!choices.length) continue;
      const select = el("select", { "data-peripheral-choice": id, onchange: (e) => { ui.peripheralChoice[id] = e.target.value; } },
        ...choices.map(([text, skill]) => el("option", { value: JSON.stringify(skill), selected: ui.peripheralChoice[id] === JSON.stringify(skill) }, text)));
      ui.peripheralChoice[id] ??= select.value;
      box.append(el("div", {}, named(id), " (for an attack or Discover): ", select));
    }
    panel.append(box);
  }

  /** Each Peripheral's skill of type `type` for a joint declaration (null: one has no such choice). */
  function peripheralsFor(type, routes, skill) {
    const skills = conn.currentOptions()?.skills;
    const all = skills?.peripherals ?? {};
    const ids = Object.keys(all);
    const out = [];
    for (const id of ids) {
      // A Coordinated Order's trooper whose state forbids the skill performs Idle (DIGEST 3.4).
      if (all[id]?.idle_for?.includes(type)) { out.push({ trooper: id, skill: { type: "idle" } }); continue; }
      if (routes?.[id]) { out.push({ trooper: id, skill: routes[id] }); continue; }
      // A Fireteam's member follows the leader's movement or is Idle (fireteams.py check_member_skills).
      if (skills?.fireteam) { out.push({ trooper: id, skill: { type: "idle" } }); continue; }
      // The Spearhead's skill and target, as each other trooper declares it (coordinated-order.js).
      if (skills?.coordinated) { out.push({ trooper: id, skill: participantSkill(skill, all[id], participantContext(id)).skill }); continue; }
      if (["idle", "dodge", "reset"].includes(type)) { out.push({ trooper: id, skill: { type } }); continue; }
      const chosen = ui.peripheralChoice[id] ? JSON.parse(ui.peripheralChoice[id]) : null;
      if (!chosen || chosen.type !== type) {
        say(`Choose ${names.label(id).text}'s ${type.replace("_", " ")} (its own target) in the Peripherals panel first.`);
        return null;
      }
      out.push({ trooper: id, skill: chosen });
    }
    return out;
  }

  async function activate(trooper, order) {
    const peripherals = [...ui.peripherals].filter((p) => conn.currentOptions()?.peripherals?.[trooper]?.includes(p));
    const answer = await send({ type: "activate", trooper, order, ...(peripherals.length ? { peripherals } : {}) });
    if (answer.ok) { ui.resetActivation(); render(); }
  }

  /** Declare the active trooper's skill (and, in a joint activation, each Peripheral's). */
  async function declare(skill, type = skill.type, routes = undefined) {
    const peripherals = peripheralsFor(type, routes, skill);
    if (!peripherals) return;
    const answer = await send({ type: "declare_skill", skill, ...(peripherals.length ? { peripherals } : {}) });
    if (answer.ok) { ui.resetDeclaration(); render(); }
  }


  /** Orders this player has left this turn, counted as the server counts them (order_pool.orders_left). */
  function ordersLeft(orders) {
    return Object.values(orders?.pools ?? {}).reduce((n, k) => n + k, 0) + (orders?.irregular ?? []).length
      + (orders?.tactical ?? []).length + (orders?.lieutenant ? 1 : 0);
  }

  /**
   * End turn; with Orders left that a trooper may still spend, public or private, ask first ("End turn with 7 Orders
   * unspent?"). The game never ends a turn by itself when the Orders run out (a private Order may remain, and the
   * opponent must not tell), so once they are spent the button says so; the app never sends end_turn by itself either.
   */
  function endTurnControl(state, options) {
    const usable = Object.keys(options.activate ?? {}).length > 0 ? ordersLeft(state.orders) : 0;
    const privateLeft = (options.reveal ?? []).length + Object.keys(options.combat_jump ?? {}).length;
    const left = usable + privateLeft;
    const turn = `${state.round}:${state.turn}:${state.active}:${state.orders_spent ?? 0}`; // an Order spent meanwhile: ask again
    const end = async () => { confirmEndTurn = null; render(); await send({ type: "end_turn" }); };
    if (confirmEndTurn !== turn) {
      const endButton = button("End turn", left > 0 ? () => { confirmEndTurn = turn; render(); } : end, { id: "end-turn" });
      if (ordersLeft(state.orders) > 0) return endButton;
      const hint = privateLeft > 0 ? "All your public Orders are spent; your private Order is still yours to use. " : "All your Orders are spent. ";
      return el("div", { id: "orders-spent" }, hint, endButton);
    }
    const counted = [...(usable ? [`${usable} Order${usable === 1 ? "" : "s"}`] : []),
      ...(privateLeft ? [`${privateLeft} private Order${privateLeft === 1 ? "" : "s"}`] : [])].join(" and ");
    return el("div", { id: "end-turn-confirm", class: "confirm" }, `End turn with ${counted} unspent? `,
      button("Yes, end turn", end, { id: "confirm-end-turn", class: "danger" }),
      button("No, keep playing", () => { confirmEndTurn = null; render(); }, { id: "cancel-end-turn" }));
  }

  /** A table click for the Order being declared (main.js passes those a seat makes outside deployment):
   * a Combat Jump's landing spot, a corner of the path as the firing point, or the route's next point. */
  function click(point) {
    const state = conn.view.state;
    const options = conn.currentOptions();
    const jump = jumping ? options?.combat_jump?.[jumping] : null;
    if (jump && !state.order) {
      const zone = state.initiative?.zones?.[conn.role];
      const facing = zone === "north" ? 270 : 90;
      send({ type: "combat_jump", trooper: jumping, position: point, facing, fallback: jump.fallback, fallback_facing: jump.fallback_facing })
        .then((a) => { if (a.ok) { jumping = null; render(); } });
      return;
    }
    const skills = options?.skills;
    if (!state.order || !skills) return;
    if (zoneAim && skills.zones?.[zoneAim.weapon]) { zoneAim.point = point; render(); return; } // where the Smoke goes
    const placing = ui.placeMine ? skills.place_deployable?.[ui.placeMine.weapon] : null;
    if (placing && ui.placeMine) { // where the Mine goes: in base contact with the path's nearest point
      ui.placeMine.at = placeMineSpot(placing.path, placing.contact, point) ?? ui.placeMine.at;
      render();
      return;
    }
    // A click on (or near) a corner of the path already moved picks it as the firing point.
    const corner = (skills.firing_points ?? []).find((f) => Math.hypot(f.point[0] - point[0], f.point[1] - point[1]) < 0.6);
    if (corner) { ui.fireFrom(corner.point); render(); return; }
    if (skills.route_skills.length) {
      routeForm.addPoint(ui.routeFor ?? state.order.trooper, point);
      render();
    }
  }

  return { render: renderOrderPanel, click };
}
