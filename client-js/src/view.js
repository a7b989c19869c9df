// The client's local copy of its view of the game, kept current by applying events.
//
// The server sends a snapshot (the full view) and then numbered events: each viewer gets its
// own gap-free numbering of the events it may see. Events this module
// knows how to fold are applied directly; any other event (or one whose effect depends on
// private data the view lacks) marks the view `stale`, and the connection then asks the
// server for a fresh snapshot. So the view is never wrong for long, and never silently.

/**
 * @typedef {[number, number]} Point
 * @typedef {{type: string} & Record<string, any>} GameEvent
 * @typedef {{order: number, step: number, reactive: string, deadline_ms: number,
 *   remaining_ms: number, received_at?: number}} AroWindow
 * @typedef {{version: number, event: GameEvent | null}} LoggedEvent
 */

/** Thrown when events do not continue the view's version (the caller must resync). */
export class VersionGap extends Error {
  /** @param {number} expected @param {number} got */
  constructor(expected, got) {
    super(`expected events from version ${expected}, got ${got}`);
    this.name = "VersionGap";
    this.expected = expected;
    this.got = got;
  }
}

export class LocalView {
  constructor() {
    /** The version of the last event folded in (0: nothing yet). */
    this.version = 0;
    /** @type {Record<string, any> | null} the game view as the server's view_state shapes it */
    this.state = null;
    /** @type {AroWindow | null} */
    this.window = null;
    /** @type {Record<string, string>} "A"/"B" -> seat status */
    this.seats = {};
    /** True when an event could not be folded locally: a snapshot is needed. */
    this.stale = false;
    /** @type {LoggedEvent[]} every event seen, in version order (a null event is tolerated: servers before gap-free numbering sent one for an event this viewer could not see) */
    this.log = [];
  }

  /**
   * Replace everything with a snapshot.
   * @param {{version: number, state: Record<string, any>, window: AroWindow | null,
   *   seats: Record<string, string>}} snapshot
   */
  applySnapshot(snapshot) {
    this.version = snapshot.version;
    this.state = structuredClone(snapshot.state);
    this.window = snapshot.window ? { ...snapshot.window } : null;
    this.seats = { ...snapshot.seats };
    this.stale = false;
  }

  /**
   * Fold consecutive events starting at version `first`. Events at or below the current
   * version are skipped (a resend after reconnect); a gap throws VersionGap.
   * @param {number} first
   * @param {(GameEvent | null)[]} events
   * @returns {LoggedEvent[]} the events that were new
   */
  applyEvents(first, events) {
    if (first > this.version + 1) throw new VersionGap(this.version + 1, first);
    /** @type {LoggedEvent[]} */
    const fresh = [];
    events.forEach((event, index) => {
      const version = first + index;
      if (version <= this.version) return;
      if (event && this.state && !this.stale) {
        const fold = FOLDS[event.type];
        // A fold returns NEEDS_SNAPSHOT when the event's effect depends on what the view lacks.
        if (!fold || fold(this.state, event) === NEEDS_SNAPSHOT) this.stale = true;
      }
      this.version = version;
      const entry = { version, event };
      this.log.push(entry);
      fresh.push(entry);
    });
    return fresh;
  }

  /** @param {string} id @returns {Record<string, any> | undefined} */
  trooper(id) {
    return this.state?.troopers?.find((/** @type {any} */ t) => t.id === id);
  }
}

/** @param {Record<string, any>} state @param {string} id */
function trooperIn(state, id) {
  return state.troopers.find((/** @type {any} */ t) => t.id === id);
}

/** @param {Point[]} route */
function routeEnd(route) {
  return route.length ? route[route.length - 1] : null;
}

/** Facing in degrees (0 = +x, counter-clockwise, as the rules core measures it) from a to b. @param {Point} a @param {Point} b */
function heading(a, b) {
  return ((Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI + 360) % 360;
}

/**
 * A declared movement skill places its trooper at the route's end, facing as declared (or
 * along the last segment), and extends the Order's path for that trooper.
 * @param {Record<string, any> | undefined} trooper @param {Record<string, any>} skill @param {Point[] | undefined} path
 */
function moveAlong(trooper, skill, path) {
  const end = Array.isArray(skill.route) ? routeEnd(skill.route) : null;
  if (!trooper || !end || !trooper.position) return;
  const last = skill.route.length > 1 ? skill.route[skill.route.length - 2] : trooper.position;
  trooper.facing = skill.facing ?? heading(last, end);
  trooper.position = end;
  path?.push(...skill.route.slice(1)); // the route starts where the trooper stands
}

/** What a fold returns when the view cannot follow the event by itself. */
const NEEDS_SNAPSHOT = Symbol("needs snapshot");

/** The Command Token uses made at most once a game (server orders/command_tokens.py STRATEGIC_USES). */
const STRATEGIC_USES = ["remove_orders", "limit_tokens", "suppressive_fire", "hold_back"];

/** @type {Record<string, (state: Record<string, any>, event: GameEvent) => void | typeof NEEDS_SNAPSHOT>} */
const FOLDS = {
  turn_started(state, e) {
    Object.assign(state, { round: e.round, turn: e.turn, active: e.active });
    // What each trooper failed to Discover lasts the Player Turn (server apply_turn_started).
    for (const trooper of state.troopers) if (trooper.failed_discover?.length) trooper.failed_discover = [];
    // A new Player Turn: no Command Token spent in it yet, no Strategic limit, and the
    // Executive window counts from here (server command_tokens.apply_turn_started).
    const tokens = state.command_tokens;
    if (tokens && Object.keys(tokens.held ?? {}).length) {
      Object.assign(tokens, { spent_this_turn: {}, limited: [], turn_start_orders: state.orders_spent ?? 0 });
    }
  },
  command_token_spent(state, e) {
    // As the server applies it (orders/command_tokens.py apply_command_token_spent). Moving
    // a trooper to another Combat Group moves Orders between pools by rules the view does
    // not hold: a snapshot brings them.
    const tokens = state.command_tokens;
    if (!tokens || e.use === "transfer_trooper") return NEEDS_SNAPSHOT;
    tokens.held = { ...tokens.held, [e.side]: e.left };
    tokens.spent_this_turn = { ...tokens.spent_this_turn, [e.side]: (tokens.spent_this_turn?.[e.side] ?? 0) + 1 };
    if (STRATEGIC_USES.includes(e.use)) tokens.strategic_used = sortedWith(tokens.strategic_used, e.use);
    if (e.use === "limit_tokens") tokens.limited = sortedWith(tokens.limited, e.side === "A" ? "B" : "A");
    if (e.use === "coordinated_order") {
      Object.assign(tokens, { coordinated_order: (state.orders_spent ?? 0) + 1, spearhead: e.trooper });
    }
    if (e.use === "remove_orders") {
      for (const group of e.combat_groups) state.orders.pools[group] -= 1;
    }
  },
  phase_started(state, e) {
    state.phase = e.phase;
  },
  trooper_deployed(state, e) {
    const known = trooperIn(state, e.trooper);
    if (known) {
      Object.assign(known, { position: e.position, facing: e.facing, hidden: e.hidden,
        marker: e.marker });
      return;
    }
    state.troopers.push({ id: e.trooper, side: e.side, position: e.position, facing: e.facing,
      marker: e.marker, camouflage: e.camouflage, silhouette: e.silhouette, profile: e.profile,
      combat_group: e.combat_group, wounds: 0, condition: "normal", prone: false });
  },
  deployment_step_ended(state, e) {
    state.deployment = { step: e.step + 1 };
  },
  orders_counted(state, e) {
    state.orders = { pools: e.pools, irregular: e.irregular, tactical: e.tactical,
      lieutenant: e.lieutenant, impetuous: e.impetuous, hidden: e.hidden ?? [] };
  },
  order_spent(state, e) {
    state.orders_spent = (state.orders_spent ?? 0) + 1;
    // A Fireteam's Order: the member that declares it is the team's leader from now on.
    const team = e.peripherals?.length ? fireteamOf(state, e.trooper) : null;
    if (team) team.leader = e.trooper;
    const orders = state.orders ?? {};
    if (e.private) {
      // The trooper's own Order, brought while in Hidden Deployment: in no pool (seeds 002/004).
      if (Array.isArray(orders.hidden)) orders.hidden = orders.hidden.filter((/** @type {string} */ t) => t !== e.trooper);
    } else if (e.order_type === "regular" && orders.pools) {
      const key = String(e.combat_group);
      orders.pools[key] = Math.max(0, (orders.pools[key] ?? 0) - 1);
    } else if (Array.isArray(orders[e.order_type])) {
      orders[e.order_type] = orders[e.order_type].filter((/** @type {string} */ t) => t !== e.trooper);
    } else if (e.order_type === "lieutenant") {
      orders.lieutenant = null;
    }
    const trooper = trooperIn(state, e.trooper);
    const peripherals = e.peripherals ?? [];
    const at = (/** @type {string} */ id) => trooperIn(state, id)?.position ?? null;
    // The same shape as the server's ActiveOrder (views.py), so a snapshot and the folds agree.
    state.order = { number: e.order, trooper: e.trooper, order_type: e.order_type,
      combat_group: e.combat_group, skills: [], start: trooper?.position ?? null,
      path: trooper?.position ? [trooper.position] : [], aros: {}, aro_step: {}, passed: [],
      peripherals: [...peripherals],
      peripheral_skills: Object.fromEntries(peripherals.map((/** @type {string} */ p) => [p, []])),
      peripheral_paths: Object.fromEntries(peripherals.map((/** @type {string} */ p) => [p, at(p) ? [at(p)] : []])) };
  },
  skill_declared(state, e) {
    const order = state.order;
    if (order) order.skills.push(e.skill);
    moveAlong(trooperIn(state, e.trooper), e.skill, order?.path);
    for (const entry of e.peripherals ?? []) {
      if (order) (order.peripheral_skills[entry.trooper] ??= []).push(entry.skill);
      moveAlong(trooperIn(state, entry.trooper), entry.skill, order ? (order.peripheral_paths[entry.trooper] ??= []) : undefined);
    }
  },
  suppressive_fire_changed(state, e) {
    // The server derives the State and says so after the event that changed it.
    const trooper = trooperIn(state, e.trooper);
    if (trooper) trooper.suppressive_fire = e.active;
  },
  aro_window_opened(state, e) {
    if (state.order) {
      state.order.window_open = true;
      state.order.eligible = Object.fromEntries(e.eligible.map((/** @type {any} */ x) => [x.trooper, x]));
      state.order.eligible_at_step = Object.fromEntries(e.eligible.map((/** @type {any} */ x) => [x.trooper, e.step]));
    }
  },
  aro_declared(state, e) {
    if (state.order) {
      state.order.aros[e.trooper] = e.skill;
      (state.order.aro_step ??= {})[e.trooper] = e.step;
    }
    const trooper = trooperIn(state, e.trooper);
    if (trooper && e.revealed) {
      revealMarker(trooper, e.profile, e.combat_group);
      if (e.position) Object.assign(trooper, { position: e.position, hidden: false });
    } else if (!trooper && e.position) {
      // A trooper in Hidden Deployment revealed by its ARO: the opponent learns of it now, and
      // of its facing, which the event does not carry (a guess would draw its arc wrong).
      return NEEDS_SNAPSHOT;
    }
  },
  aro_passed(state, e) {
    if (state.order) state.order.passed.push(e.trooper);
  },
  aro_window_closed(state) {
    if (state.order) state.order.window_open = false;
  },
  order_resolved(state, e) {
    for (const effect of e.outcome.effects) applyEffect(state, effect, e.profiles ?? {}, e.combat_groups ?? {});
    if (e.conclusion && state.order) {
      // The Conclusion waits on Guts movements (server combat/guts_window.py): the Order stays.
      Object.assign(state.order, { step: "conclusion", conclusion: e.conclusion, guts_window: false, window_open: false });
    } else {
      state.order = null;
    }
    // A Mine placed: a marker to the enemy, a Mine to its side; the snapshot says which.
    if (e.outcome.effects.some((/** @type {any} */ x) => x.type === "deployable_placed")) return NEEDS_SNAPSHOT;
  },
  guts_window_opened(state) {
    if (state.order) state.order.guts_window = true;
  },
  guts_reacted(state, e) {
    if (e.effect) applyEffect(state, e.effect, {}, {});
    const order = state.order;
    if (order?.conclusion) {
      order.conclusion.guts = (order.conclusion.guts ?? []).filter((/** @type {any} */ g) => g.trooper !== e.trooper);
      order.guts_window = false;
    }
  },
  order_concluded(state, e) {
    for (const effect of e.effects ?? []) applyEffect(state, effect, {}, {});
    state.order = null;
  },
  trooper_revealed(state, e) {
    const trooper = trooperIn(state, e.trooper);
    if (trooper) Object.assign(trooper, { position: e.position, facing: e.facing, hidden: false });
    else state.troopers.push({ id: e.trooper, side: e.side, position: e.position, facing: e.facing,
      profile: e.profile, combat_group: e.combat_group, marker: false, wounds: 0, condition: "normal" });
  },
  trooper_kept_airborne(state, e) {
    // Only its owner (and casters) get this event: the trooper waits off the table.
    const trooper = trooperIn(state, e.trooper);
    if (!trooper) return NEEDS_SNAPSHOT;
    trooper.airborne = true;
  },
  combat_jump_landed(state, e) {
    // It stands on the table from now on (server airborne.apply_combat_jump_landed): its
    // owner knew it already; the opponent and spectators meet it here, with its open
    // profile, side and Combat Group.
    const trooper = trooperIn(state, e.trooper);
    if (trooper) Object.assign(trooper, { airborne: false, position: e.position, facing: e.facing, prone: false });
    else state.troopers.push({ id: e.trooper, side: e.side, position: e.position, facing: e.facing,
      profile: e.profile, combat_group: e.combat_group, marker: false, wounds: 0, condition: "normal", prone: false });
  },
  fireteam_formed(state, e) {
    state.fireteams = [...(state.fireteams ?? []), { side: e.side, kind: e.kind, leader: e.leader, members: [...e.members], level: e.level }];
  },
  fireteam_left(state, e) {
    const team = fireteamOf(state, e.trooper);
    if (!team) return;
    if (e.cancelled) {
      state.fireteams = state.fireteams.filter((/** @type {any} */ t) => t !== team);
      return;
    }
    team.members = team.members.filter((/** @type {string} */ m) => m !== e.trooper);
    if (team.leader === e.trooper) team.leader = team.members[0];
    if (e.level) team.level = e.level; // the Level the team keeps (absent in records made before it was sent)
  },
  lieutenant_appointed(state, e) {
    // Only its own player gets this event: the choice (effective at the End of Turn) is secret.
    // As the server's view holds it: the seat's own choice, a trooper id.
    state.lieutenant_choice = e.trooper;
  },
  guts_failure_chosen(state, e) {
    const trooper = trooperIn(state, e.trooper);
    if (trooper) trooper.fails_guts = e.fail;
  },
  states_phase_checked(state, e) {
    for (const id of e.stunned_cancelled ?? []) {
      const trooper = trooperIn(state, id);
      if (trooper) trooper.stunned_in = null;
    }
    for (const id of e.dogged_dead ?? []) {
      const trooper = trooperIn(state, id);
      if (trooper) Object.assign(trooper, { condition: "dead", dogged_in: null });
    }
    if (e.zones_removed && state.table) state.table.zones = []; // Smoke and Eclipse last the turn
  },
  turn_ended(state, e) {
    state.order = null;
    // The Order tokens still on the table are removed (server apply_turn_ended); the next
    // turn's orders_counted brings its own.
    state.orders = { pools: {}, irregular: [], tactical: [], lieutenant: null, impetuous: [], hidden: [] };
    // The seat's secret choice of a Lieutenant is spent (or void) at the End of its Turn.
    if (state.lieutenant_choice && trooperIn(state, state.lieutenant_choice)?.side === e.side) {
      state.lieutenant_choice = null;
    }
    if (!(state.loss_of_lieutenant ?? []).includes(e.side)) return;
    // The End of Turn of a player in Loss of Lieutenant: its new Lieutenant takes office
    // (its choice, or the server's default). Everyone learns that one did; its own seat and
    // casters learn who (`new_lieutenant`). A record made before the server said so needs
    // the snapshot.
    if (e.lieutenant_appointed == null) return NEEDS_SNAPSHOT;
    if (!e.lieutenant_appointed) return;
    state.loss_of_lieutenant = state.loss_of_lieutenant.filter((/** @type {string} */ s) => s !== e.side);
    if (!e.new_lieutenant) return;
    for (const trooper of state.troopers) {
      if (trooper.side === e.side && trooper.entry) trooper.entry.lieutenant = trooper.id === e.new_lieutenant;
    }
  },
  game_ended(state, e) {
    Object.assign(state, { phase: "game_over", result: e.result, active: null, order: null });
    // Every Classified card is open now: the ones this view could not read come with a
    // snapshot (the event names them, not their words).
    for (const [side, cards] of Object.entries(e.classified ?? {})) {
      const readable = new Set((state.classified?.[side]?.cards ?? []).map((/** @type {any} */ c) => c.id));
      if ((/** @type {any[]} */ (cards)).some((c) => !readable.has(c.id))) return NEEDS_SNAPSHOT;
    }
  },
  loss_of_lieutenant(state, e) {
    state.loss_of_lieutenant = sortedWith(state.loss_of_lieutenant, e.side);
  },
  retreat_declared(state, e) {
    // Retreat! puts the whole army in Loss of Lieutenant too (server orders/game_sequence.py).
    state.retreat = sortedWith(state.retreat, e.side);
    state.loss_of_lieutenant = sortedWith(state.loss_of_lieutenant, e.side);
  },
  objective_activated(state, e) {
    // As the server's view lists them (missions/consoles.py ObjectiveActivation).
    state.objective_activations = [...(state.objective_activations ?? []),
      { side: e.side, marker: e.marker, round: e.round, trooper: e.trooper }];
  },
  classified_achieved(state, e) {
    // As the server applies it (missions/classified.py): the card achieved, its OP on the
    // side's Classified record and, never past the mission's cap, on its Objective Points.
    // A viewer that could not read the card gets it in the event (`card_view`) and keeps
    // the side's open cards by id, as the server's view lists them.
    const held = state.classified?.[e.side];
    if (!held) return NEEDS_SNAPSHOT;
    const card = held.cards.find((/** @type {any} */ c) => c.id === e.card);
    if (card) card.achieved = true;
    else if (e.card_view) held.cards = [...held.cards, { ...e.card_view }].sort((/** @type {any} */ x, /** @type {any} */ y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    else return NEEDS_SNAPSHOT;
    held.op += e.op;
    const points = (state.objective_points ??= {});
    const so_far = points[e.side] ?? 0;
    const given = Math.max(0, Math.min(e.op, (state.mission?.max_op ?? 0) - so_far));
    if (given > 0) points[e.side] = so_far + given;
  },
  objective_points_scored(state, e) {
    // Each award is what its side scores, already capped by the mission.
    const points = (state.objective_points ??= {});
    for (const award of e.awards) if (award.op > 0) points[award.side] = (points[award.side] ?? 0) + award.op;
  },
  // The chess clocks are not in the view's state: every frame carries them (`clocks`). So
  // their events change nothing here. Left unfolded, each switch (twice an ARO window) would
  // send every viewer of a clocked room back for a snapshot.
  clock_switched() {},
  clock_ran_out() {},
  clocks_held() {},
};

/** `items` (a sorted list, as the server's view gives a set: sides, uses, ids) with `item` in it once. @param {string[] | undefined} items @param {string} item */
function sortedWith(items, item) {
  return [...new Set([...(items ?? []), item])].sort();
}

/** The Fireteam (of `state.fireteams`) the trooper is in, or null. @param {Record<string, any>} state @param {string} id */
function fireteamOf(state, id) {
  return (state.fireteams ?? []).find((/** @type {any} */ t) => t.members.includes(id)) ?? null;
}

/**
 * A Camouflage Marker revealed: from now on the trooper the server's views show on the table.
 * An enemy's view learns its open profile and Combat Group from the event, drops the marker's
 * own Camouflage and Silhouette, and shows its wounds and state (a marker's view has none;
 * a marker is never hurt before it is revealed). Its owner's view had the trooper whole.
 * @param {Record<string, any>} trooper @param {Record<string, any> | undefined} profile
 * @param {number | undefined} group
 */
function revealMarker(trooper, profile, group) {
  trooper.marker = false;
  if (profile) trooper.profile = profile;
  if (group === undefined || trooper.entry) return;
  trooper.combat_group = group;
  delete trooper.camouflage;
  delete trooper.silhouette;
  trooper.wounds ??= 0;
  trooper.condition ??= "normal";
}

/**
 * @param {Record<string, any>} state
 * @param {{type: string} & Record<string, any>} effect
 * @param {Record<string, any>} profiles profiles of revealed markers
 * @param {Record<string, number>} groups Combat Groups of revealed troopers
 */
function applyEffect(state, effect, profiles, groups) {
  if (effect.type === "zone_placed") { // on the table, not on a trooper
    if (state.table) state.table.zones = [...(state.table.zones ?? []), effect.zone];
    return;
  }
  if (effect.type === "deployable_removed") { // a Mine: a marker to the enemy, a deployable to its side
    state.troopers = state.troopers.filter((/** @type {any} */ t) => t.id !== effect.deployable);
    state.deployables = (state.deployables ?? []).filter((/** @type {any} */ d) => d.id !== effect.deployable);
    return;
  }
  const trooper = trooperIn(state, effect.trooper);
  if (!trooper) return;
  switch (effect.type) {
    case "wounded":
    case "healed": // a Doctor, Paramedic or Engineer roll passed
      Object.assign(trooper, { wounds: effect.wounds, condition: effect.condition });
      break;
    case "moved": {
      const end = routeEnd(effect.route);
      if (end) trooper.position = end;
      break;
    }
    case "turned":
      trooper.facing = effect.facing;
      break;
    case "went_prone":
      trooper.prone = true;
      break;
    case "targeted_cleared":
      trooper.targeted = false;
      break;
    case "targeted_set":
      trooper.targeted = true;
      break;
    case "isolated_cleared":
      trooper.isolated = false;
      break;
    case "isolated_set":
      trooper.isolated = true;
      break;
    case "stunned_set":
      trooper.stunned_in = [state.round, state.turn];
      break;
    case "incapacitation_ignored":
      if (effect.skill === "dogged") trooper.dogged_in = [state.round, state.turn];
      break;
    case "immobilized_b_cleared":
      trooper.immobilized_b = false;
      break;
    case "immobilized_b_set":
      trooper.immobilized_b = true;
      break;
    case "revealed":
      revealMarker(trooper, profiles[effect.trooper], groups[effect.trooper]);
      break;
    case "discover_failed":
      // Only the discoverer's own side (and casters) see what it failed to Discover; a new
      // Player Turn clears it (turn_started).
      if (trooper.entry) trooper.failed_discover = sortedWith(trooper.failed_discover, effect.marker);
      break;
    case "weapon_used":
      trooper.weapon_uses = { ...(trooper.weapon_uses ?? {}), [effect.weapon]: effect.uses };
      break;
    default:
      break; // became_idle, coup_de_grace, treatment_failed (records; a Wounded follows)
  }
}

export const FOLDED_EVENT_TYPES = Object.freeze(Object.keys(FOLDS));
