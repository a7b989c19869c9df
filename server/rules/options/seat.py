"""A seat's legal choices now (``seat_options``): every part of the answer, the phase's
choices here, the active trooper's skills (``active_skills``) and the ARO window's
(``aros``) beside it. How the answer is found: the package's docstring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import commands as c
from ..armies.army_catalogue import sample_armies
from ..armies.army_selection import decide_accept_armies, decide_choose_army
from ..combat.guts import GUTS_MOVE
from ..combat.guts_choice import decide_choose_guts_failure
from ..combat.guts_window import decide_choose_guts_move, open_guts_window, window_rule
from ..combat.mines import mine_targets, minelayer_offer
from ..ids import Side, TrooperId
from ..missions.classified_action import action_offers
from ..orders.activation import sees
from ..orders.airborne import combat_jumps, decide_keep_airborne
from ..orders.command_tokens import (
    LIMIT_TOKENS,
    REMOVE_ORDERS,
    SUPPRESSIVE_FIRE,
    TRANSFER_TROOPER,
    decide_coordinate_order,
    decide_spend_command_token,
    may_coordinate,
)
from ..orders.deployment import (
    HOLD_BACK,
    beyond_zone_options,
    decide_end_deployment_step,
    deployer,
    placed,
    reserves_of,
)
from ..orders.game_sequence import decide_end_impetuous_phase, decide_end_turn
from ..orders.hidden_deployment import decide_reveal
from ..orders.initiative import decide_choose_initiative, decide_choose_remaining
from ..orders.lieutenant import decide_appoint_lieutenant
from ..orders.order_pool import decide_activate
from ..orders.terrain_skill import choice_offered
from ..plain import Plain
from ..state import ActiveOrder, GameState, OrderType, Phase
from .accepted import accepted
from .active_skills import skill_options
from .aros import aro_options
from .fireteams import fireteam_options

_ANY_ENTROPY = "0" * 64
"""A well-formed contribution to try each army with: only the army decides the answer."""


def _armies(state: GameState, side: Side) -> list[str]:
    """The army lists the seat may choose: those of the game's format, or only its
    registered army at a table that holds it to one."""
    if state.phase is not Phase.ARMY_SELECTION:
        return []
    registered = state.registered_armies.get(side)
    candidates = [registered] if registered is not None else sorted(sample_armies())
    return [army for army in candidates if accepted(
        decide_choose_army, state, side, c.ChooseArmy(army, _ANY_ENTROPY))]


def _bring_army(state: GameState, side: Side) -> list[str]:
    """How the seat may bring a list of its own: ``["list"]`` while it chooses, unless the
    table holds it to a registered list. The room's edge adds ``"code"`` when the server
    has the operator's army data to read army codes with (``server/rooms/rules_engine.py``)."""
    if state.phase is not Phase.ARMY_SELECTION or side in state.armies:
        return []
    return [] if side in state.registered_armies else ["list"]


def seat_options(state: GameState, side: Side) -> dict[str, Plain]:
    """The seat's legal choices now.

    ``{"choose_army": [army list id], "bring_army": ["list", "code"], "accept_armies": bool,
    "initiative": [command body], "deploy": [trooper],
    "deploy_hidden": [trooper], "deploy_beyond_zone": {trooper: {"forward_deployment",
    "infiltration"}}, "minelayer": {trooper: {"weapon", "name", "mines", "zone_of_control"}},
    "deploy_terrain": {trooper: [Types of Terrain ``deploy.terrain`` may name]},
    "reserve": trooper | None, "reserves": [trooper], "end_deployment_step": bool,
    "activate": {trooper: [order types]}, "peripherals": {controller: [its Peripherals that may
    activate on the same Order]}, "reveal": [trooper], "keep_airborne": [trooper],
    "combat_jump": {trooper: {"ph", "fallback": [x, y], "fallback_facing"}}, "end_turn": bool,
    "end_impetuous_phase": bool, "skills": {...} | None, "aros": {trooper: [...]},
    "sight": {trooper: [enemy ids it has Line of Fire to]},
    "guts_failure": {trooper: whether it now fails its Guts Rolls},
    "close_aro_window": {"order", "step"} | None, "guts_move": {"order", "trooper", "reason",
    "default", "points", "max_move"} | None, "appoint_lieutenant": [trooper],
    "command_tokens": [spend_command_token body], "coordinate": {spearhead: [troopers that
    may join its Coordinated Order]}, "fireteams": {"form", "cost", "activate", "teams"}
    (``options/fireteams.py``), "classified_action": {card: {target or "": preview}}}``
    (shapes in docs/client.md). Empty lists/maps when the
    seat has nothing to do.
    """
    order = state.order
    deploying = deployer(state) is side
    reserves = reserves_of(state, side) if deploying else ()
    waiting = [t for t in state.troopers_of(side)
               if deploying and not placed(t) and t not in reserves]
    activations = _activations(state, side) if order is None else {}
    return {
        "choose_army": _armies(state, side),
        "bring_army": _bring_army(state, side),
        "accept_armies": accepted(decide_accept_armies, state, side, c.AcceptArmies()),
        "initiative": _initiative(state, side),
        "deploy": [t.id for t in waiting],
        "deploy_hidden": [t.id for t in waiting if t.profile.hidden_deployment],
        "deploy_beyond_zone": beyond_zone_options(state, waiting),
        "minelayer": minelayer_offer(state, waiting) if deploying else {},
        # Terrain with a choice of Types (orders/terrain_skill.py): what deploy.terrain names.
        "deploy_terrain": {t.id: offered for t in waiting if (offered := choice_offered(t))},
        "reserve": reserves[0].id if reserves else None,
        "reserves": [t.id for t in reserves],
        "end_deployment_step": deploying and accepted(
            decide_end_deployment_step, state, side, c.EndDeploymentStep()),
        "activate": activations,
        "peripherals": _peripherals(state, side, activations) if order is None else {},
        "reveal": _reveals(state, side) if order is None else [],
        "keep_airborne": [t.id for t in state.troopers_of(side) if deploying and accepted(
            decide_keep_airborne, state, side, c.KeepAirborne(t.id))],
        "combat_jump": combat_jumps(state, side) if order is None else {},
        "end_turn": order is None and accepted(decide_end_turn, state, side, c.EndTurn()),
        "end_impetuous_phase": order is None and accepted(
            decide_end_impetuous_phase, state, side, c.EndImpetuousPhase()),
        "skills": skill_options(state, side, order) if order is not None else None,
        "aros": aro_options(state, side, order) if order is not None else {},
        "sight": _sight(state, side) if state.phase not in _SETUP_PHASES else {},
        "guts_failure": _guts_failure(state, side),
        "close_aro_window": _close_aro_window(state, side, order),
        "guts_move": _guts_move(state, side),
        "appoint_lieutenant": [
            t.id for t in state.troopers_of(side)
            if accepted(decide_appoint_lieutenant, state, side, c.AppointLieutenant(t.id))],
        "command_tokens": _command_tokens(state, side) if order is None else [],
        "coordinate": _coordinate(state, side) if order is None else {},
        "fireteams": fireteam_options(state, side),
        # Classified Objectives (missions/classified_action.py): {card: {target or "": the
        # WIP Roll's preview}} for the active trooper's Order, only what is legal now.
        "classified_action": action_offers(state, side) if order is not None else {},
    }


def _coordinate(state: GameState, side: Side) -> dict[str, Plain]:
    """Per trooper that may be the Spearhead of a Coordinated Order now, the troopers that
    may join it (its Combat Group's; any 1 to 3 of them). Each pair is judged by the rules
    core; a larger set of these is accepted too (the same checks, per trooper)."""
    if state.active is not side or state.phase is not Phase.ORDERS:
        return {}
    able = [t for t in state.troopers_of(side) if may_coordinate(state, t)]
    found: dict[str, Plain] = {}
    for spearhead in able:
        joining = [t.id for t in able if t is not spearhead
                   and t.entry.combat_group == spearhead.entry.combat_group
                   and accepted(decide_coordinate_order, state, side,
                                 c.CoordinateOrder(spearhead.id, (t.id,)))]
        if joining:
            found[spearhead.id] = joining
    return found


def _command_tokens(state: GameState, side: Side) -> list[Plain]:
    """The complete ``spend_command_token`` bodies the seat may send now (the Strategic
    uses, each pair of the opponent's pools to remove Regular Orders from, each trooper
    and Combat Group of the Executive transfer, each own trooper that may enter Suppressive
    Fire, the first player's deployment hold-back); none while it holds no token."""
    tokens = state.command_tokens
    if tokens.held.get(side, 0) <= 0:
        return []
    if state.phase is Phase.DEPLOYMENT:
        hold_back = {"type": "spend_command_token", "use": HOLD_BACK}
        return [hold_back] if accepted(decide_spend_command_token, state, side,
                                        c.parse_command(hold_back)) else []
    if state.phase not in (Phase.IMPETUOUS, Phase.ORDERS):
        return []
    candidates: list[dict[str, Plain]] = [{"type": "spend_command_token", "use": LIMIT_TOKENS}]
    if state.active is not side:
        candidates += [{"type": "spend_command_token", "use": SUPPRESSIVE_FIRE, "trooper": t.id}
                       for t in state.troopers_of(side) if t.on_table and not t.marker]
    groups = sorted(g for g, n in state.orders.pools.items() if n > 0)
    candidates += [{"type": "spend_command_token", "use": REMOVE_ORDERS, "combat_groups": [a, b]}
                   for i, a in enumerate(groups) for b in groups[i:]]
    candidates += [{"type": "spend_command_token", "use": REMOVE_ORDERS, "combat_groups": [g]}
                   for g in groups]
    if state.active is side:
        candidates += [{"type": "spend_command_token", "use": TRANSFER_TROOPER,
                        "trooper": t.id, "combat_group": group}
                       for t in state.troopers_of(side) if t.on_table and not t.marker
                       for group in state.armies[side].combat_groups()
                       if group != t.entry.combat_group]
    return [body for body in candidates
            if accepted(decide_spend_command_token, state, side, c.parse_command(body))]


def _close_aro_window(state: GameState, side: Side, order: ActiveOrder | None) -> Plain:
    """The open ARO window the seat must close when it is done declaring (the window never
    closes by itself before its deadline), or None."""
    if order is None or not order.window_open or state.reactive is not side:
        return None
    return {"order": order.number, "step": order.aro_step_number}


def _guts_move(state: GameState, side: Side) -> Plain:
    """The Guts movement the seat must choose now (``combat/guts_window.py``), or None:
    the Order and trooper, the rule the movement must satisfy (``reason``), the ``default``
    route (taken by a ``choose_guts_move`` with no route, and at the deadline), and the
    candidate end points that satisfy the rule (``points``, the default's first), each
    reached by a straight route from the trooper. Any other route of at most ``max_move``
    inches is judged by the same test on ``choose_guts_move``."""
    due = open_guts_window(state)
    rule = window_rule(state)
    order = state.order
    if due is None or rule is None or order is None or state.trooper(due.trooper).side is not side:
        return None
    default = c.ChooseGutsMove(order.number, due.trooper)
    if not accepted(decide_choose_guts_move, state, side, default):
        return None
    start = state.trooper(due.trooper).position
    assert start is not None
    return {
        "order": order.number,
        "trooper": due.trooper,
        "reason": rule.reason,
        "default": [list(start), list(rule.default)],
        "points": [list(p) for p in rule.points],
        "max_move": GUTS_MOVE,
    }


_SETUP_PHASES = (Phase.ARMY_SELECTION, Phase.INITIATIVE, Phase.GAME_OVER)

_ZONES = ("north", "south")
_INITIATIVE_CANDIDATES: tuple[dict[str, Plain], ...] = (
    *({"type": "choose_initiative", "keep": "initiative", "first": first} for first in (True, False)),
    *({"type": "choose_initiative", "keep": "deployment", "first": first, "zone": zone}
      for zone in _ZONES for first in (True, False)),
    *({"type": "choose_remaining", "first": first} for first in (True, False)),
    *({"type": "choose_remaining", "first": first, "zone": zone}
      for zone in _ZONES for first in (True, False)),
)
"""Every shape of the roll-off choices (DIGEST 11.1); the rules core says which fit now."""
_INITIATIVE_HANDLERS: dict[str, Callable[[GameState, Any, Any], object]] = {
    "choose_initiative": decide_choose_initiative,
    "choose_remaining": decide_choose_remaining,
}


def _initiative(state: GameState, side: Side) -> list[Plain]:
    """The complete ``choose_initiative`` / ``choose_remaining`` command bodies the seat may
    send now: the roll-off winner's six (keep Initiative playing first or second; keep
    Deployment in either zone, deploying first or second), then the loser's four (after
    Initiative: zone and deployment order) or two (after Deployment: play first or
    second). Each is a fresh dict the client may send as it is."""
    if state.phase is not Phase.INITIATIVE:
        return []
    return [dict(body) for body in _INITIATIVE_CANDIDATES
            if accepted(_INITIATIVE_HANDLERS[str(body["type"])], state, side,
                         c.parse_command(body))]


def _activations(state: GameState, side: Side) -> dict[str, Plain]:
    if state.active is not side:
        return {}
    found: dict[str, Plain] = {}
    for trooper in state.troopers_of(side):
        kinds = [kind.value for kind in OrderType
                 if accepted(decide_activate, state, side, c.Activate(trooper.id, kind))]
        if kinds:
            found[trooper.id] = kinds
    return found


def _peripherals(state: GameState, side: Side, activations: dict[str, Plain]) -> dict[str, Plain]:
    """Per Controller the player may activate now (``activations``), the Peripherals that
    may act on the same Order (a joint activation: ``activate.peripherals``)."""
    found: dict[str, Plain] = {}
    for controller_id, kinds in activations.items():
        controller = state.trooper(TrooperId(controller_id))
        kind = OrderType(kinds[0])  # which Peripherals may join does not depend on the Order type
        joining = [t.id for t in state.troopers_of(side)
                   if t.entry.controller is not None and t.entry.controller == controller.entry.id
                   and accepted(decide_activate, state, side,
                                 c.Activate(controller.id, kind, peripherals=(t.id,)))]
        if joining:
            found[controller_id] = joining
    return found


def _reveals(state: GameState, side: Side) -> list[Plain]:
    return [t.id for t in state.troopers_of(side)
            if t.hidden and accepted(decide_reveal, state, side, c.Reveal(t.id))]


def _guts_failure(state: GameState, side: Side) -> dict[str, Plain]:
    """Each own trooper whose standing Guts choice may be changed now (N5: any not Dead),
    with its current value (True: its Guts Rolls are chosen failures)."""
    return {t.id: t.fails_guts for t in state.troopers_of(side)
            if accepted(decide_choose_guts_failure, state, side,
                         c.ChooseGutsFailure(t.id, not t.fails_guts))}


def _sight(state: GameState, side: Side) -> dict[str, Plain]:
    """Line of Fire from each of the seat's troopers on the table to each enemy it sees."""
    # The enemy's Mines stand among its markers (combat/mines.py), all in id order: neither
    # their presence nor their place in the list tells a Mine's marker from a trooper's.
    enemies = sorted([*(t for t in state.troopers_of(side.other) if t.on_table),
                      *mine_targets(state, side.other)], key=lambda t: t.id)
    found: dict[str, Plain] = {}
    for trooper in state.troopers_of(side):
        if not trooper.on_table:
            continue
        body = trooper.body()
        found[trooper.id] = [t.id for t in enemies if sees(state, trooper.id, body, t)]
    return found
