"""Combat Jump: Airborne Deployment (N5 Special Skill; seed 002 "Troopers that have yet to
be deployed ... (for example, due to the Combat Jump Special Skill)"; DIGEST 3, 11.2).

Sources (infinitythewiki.com "Combat Jump", N5; docs/rules-decisions/README.md "Combat Jump"):

* Deployment: a trooper with Combat Jump need not deploy; ``keep_airborne`` keeps it off
  the table (``TrooperState.airborne``, no position). Its existence is Private Information:
  the event is its owner's alone, the opponent's army summary never lists a Combat Jump
  profile (``views``), and an id naming it is answered as naming nobody
  (``named_troopers.unknown_to``: it is not on the table).
* The Order Count: while off the table it adds no Order to any pool; it brings its own
  Order, private to its owner, the same Order a trooper in Hidden Deployment brings
  (``OrderCount.hidden``, ``order_pool.count_orders``; seeds 002/004), usable only to enter
  the table. The Orders Phase ends only on its player's ``end_turn``, whether or not the
  public Orders are spent, as for Hidden Deployment, so the jump may come after the last
  public Order and nothing the opponent sees depends on it.
* ``combat_jump`` (its Active Turn, Orders Phase, between Orders) spends that Order: the
  model is placed at the landing spot, a PH Roll is made (``combat/dice``); passed, it
  stays; failed, it stands at the fallback spot the player chose in the same command,
  inside its own Deployment Zone and touching the table's edge (N5: no Dispersion).
  Either spot must be a legal landing: on the table, not on or in any scenery (nothing
  stands on terrain here), overlapping no model, not in base contact with an enemy Model
  or Marker, and not in Silhouette contact with cover-giving scenery
  (``cover.touches_scenery``, the contact Partial Cover asks for: the N5 text forbids
  silhouette contact with scenery "to get Cover"; so it never has Partial Cover in the
  Order it lands), never Prone. The enemy Deployment Zone is not forbidden (the N5 Combat
  Jump text has no such restriction; Parachutist's has).
* The Combat Jump is the Order's first and only skill (a Long Skill): it is declared
  (``skill_declared``) with the trooper already standing where it landed, so the reactive
  player's ARO window opens as for any Order (``sequence``, ``aro``), "then the Reactive
  Player declares all their AROs", and the Order ends after their resolution.
* A trooper still airborne when the game ends never reached the battlefield: it counts as
  killed for the Victory Points (``final_victory_points``; an ITS scoring rule, see
  docs/rules-decisions/README.md). Until then it is not a casualty (Retreat! counts it alive).
"""

from __future__ import annotations

from ..armies.skills import CombatJump as CombatJumpSkill
from ..combat.dice import Dice, roll_d20
from ..combat.outcome import RollRecord
from ..combat.rolls import normal_roll
from ..commands import CombatJump, KeepAirborne
from ..decision import Rejection, require
from ..events import CombatJumpLanded, Event, OrderSpent, SkillDeclared, TrooperKeptAirborne
from ..evolve import replace
from ..ids import Side
from ..plain import Plain
from ..reasons import Reason
from ..ruleset import options
from ..state import GameState, Phase, TrooperState
from ..table.cover import touches_scenery
from ..table.geometry import Body, in_base_contact
from ..table.terrain_names import terrain_name
from .deployment import deployer, placed, placement_problem, reserves_of
from .hidden_deployment import own_order_type
from .named_troopers import own_trooper

EDGE_TOLERANCE = 0.05
"""A failed jump's base must touch the table's edge: its gap to the edge at most this."""


def decide_keep_airborne(state: GameState, side: Side, command: KeepAirborne) -> list[Event]:
    require(deployer(state) is side, Reason.NOT_YOUR_TURN, "It is not your deployment step.")
    trooper = own_trooper(state, side, command.trooper)
    require(not placed(trooper), Reason.ALREADY_DEPLOYED, "That trooper is already deployed.")
    require(
        trooper.profile.combat_jump and not trooper.entry.is_peripheral,
        Reason.SKILL_NOT_ALLOWED,
        f"{trooper.profile.name} does not have Combat Jump.",
    )
    # The reserve (one trooper, two after a Strategic hold-back) is what the step leaves
    # waiting; taking one off the table now would leave fewer than the step must keep and
    # none it may deploy (docs/rules-decisions/README.md, "The reserve and Airborne
    # Deployment"). It may still stay airborne in the reserve step.
    require(
        trooper not in reserves_of(state, side),
        Reason.RESERVE_TROOPER,
        f"{trooper.profile.name} is your reserve: it is placed, or kept off the table, in step "
        "3 or 4, after your opponent has deployed. End this step instead.",
    )
    return [TrooperKeptAirborne(trooper.id)]


def apply_trooper_kept_airborne(state: GameState, event: TrooperKeptAirborne) -> GameState:
    return state.with_trooper(replace(state.trooper(event.trooper), airborne=True))


def decide_combat_jump(state: GameState, side: Side, command: CombatJump) -> list[Event]:
    trooper = may_jump(state, side, command)
    landing = Body(command.position, command.facing, trooper.profile.silhouette)
    problem = landing_problem(state, trooper, landing)
    require(problem is None, Reason.BAD_POSITION, f"Landing spot: {problem}")
    fallback = Body(command.fallback, command.fallback_facing, trooper.profile.silhouette)
    problem = fallback_problem(state, trooper, fallback)
    require(problem is None, Reason.BAD_POSITION, f"Spot if the PH Roll fails: {problem}")
    roll, dice = ph_roll(state, trooper)
    landed = roll.successes + roll.criticals > 0
    final = landing if landed else fallback
    number = state.orders_spent + 1
    return [
        CombatJumpLanded(trooper.id, landing.position, landing.facing, roll, landed,
                         final.position, final.facing, dice),
        OrderSpent(number, trooper.id, own_order_type(state, trooper),
                   trooper.entry.combat_group, private=True),
        SkillDeclared(number, trooper.id, 1, CombatJumpSkill(final.position)),
    ]


def may_jump(state: GameState, side: Side, command: CombatJump) -> TrooperState:
    """The trooper ``command`` names, if it may declare a Combat Jump now (wherever to)."""
    require(state.active is side, Reason.NOT_YOUR_TURN, "Combat Jump in your own turn.")
    require(state.phase is Phase.ORDERS, Reason.WRONG_PHASE,
            "A trooper in Airborne Deployment enters on its own Order, in the Orders Phase.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    trooper = own_trooper(state, side, command.trooper)
    require(trooper.airborne, Reason.BAD_TARGET,
            "That is not one of your troopers in Airborne Deployment.")
    require(not trooper.is_null, Reason.TROOPER_NULL, "That trooper is in a Null state.")
    require(
        trooper.id in state.orders.hidden,
        Reason.NO_ORDER_AVAILABLE,
        "That trooper has no Order of its own this turn: it was not in Airborne Deployment "
        "at the Order Count.",
    )
    return trooper


def ph_roll(state: GameState, trooper: TrooperState) -> tuple[RollRecord, Dice]:
    """The landing's PH Roll: a Normal Roll against PH, no MODs."""
    sv = trooper.profile.ph
    faces, dice = roll_d20(state.dice, 1)
    roll = normal_roll(sv, faces, options(state.ruleset).crit_convention)
    record = RollRecord(
        trooper=trooper.id, skill="combat_jump", target=None, weapon=None, attribute="PH",
        base=sv, mods=(), success_value=sv, burst=1, dice=roll.dice, cancelled=(False,),
        successes=roll.successes, criticals=roll.criticals,
    )
    return record, dice


def landing_problem(state: GameState, trooper: TrooperState, body: Body) -> str | None:
    """Why ``trooper`` may not be placed at ``body`` by Combat Jump, or None."""
    problem = placement_problem(state, body, trooper.side)
    if problem is not None:
        return problem
    for other in state.troopers.values():
        if other.side is not trooper.side and other.on_table and in_base_contact(body, other.body()):
            return "it would be in base contact with an enemy."
    for piece in state.table.terrain:
        if piece.gives_cover and touches_scenery(body, piece):
            return (f"it would be in contact with {terrain_name(piece, state.table)}, "
                    "scenery that gives Cover.")
    return None


def fallback_problem(state: GameState, trooper: TrooperState, body: Body) -> str | None:
    """Why ``body`` may not be where a failed Combat Jump puts ``trooper``, or None: inside
    its own Deployment Zone, touching the table's edge, and a legal landing otherwise."""
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    if not zone.contains_body(body):
        return "it must be inside your Deployment Zone."
    x, y = body.position
    table = state.table
    gap = min(x, y, table.width - x, table.depth - y) - body.radius
    if gap > EDGE_TOLERANCE:
        return "its base must touch the edge of the table."
    return landing_problem(state, trooper, body)


def edge_spot(state: GameState, trooper: TrooperState, facing: float = 0.0) -> Body | None:
    """A legal fallback spot for ``trooper`` (the first found along its zone's table edge),
    or None: what ``options`` proposes and a client may start from."""
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    radius = Body((0.0, 0.0), facing, trooper.profile.silhouette).radius
    table = state.table
    ys = [y for y in (radius, table.depth - radius) if zone.y0 <= y <= zone.y1]
    for y in ys:
        x = zone.x0 + radius
        while x <= zone.x1 - radius:
            body = Body((x, y), facing, trooper.profile.silhouette)
            if fallback_problem(state, trooper, body) is None:
                return body
            x += 1.0
    return None


def combat_jumps(state: GameState, side: Side) -> dict[str, Plain]:
    """``options.combat_jump``: per trooper that may declare a Combat Jump now, its PH and a
    legal spot for a failed roll (``edge_spot``) a client may propose. Where it may land is
    ``landing_problem``'s rule (docs/rules-commands.md)."""
    found: dict[str, Plain] = {}
    for trooper in state.troopers_of(side):
        if not trooper.airborne:
            continue
        spot = edge_spot(state, trooper, _facing_inwards(state, trooper))
        if spot is None:
            continue
        command = CombatJump(trooper.id, spot.position, spot.facing, spot.position, spot.facing)
        try:
            may_jump(state, side, command)
        except Rejection:
            continue
        found[trooper.id] = {"ph": trooper.profile.ph, "fallback": list(spot.position),
                             "fallback_facing": spot.facing}
    return found


def _facing_inwards(state: GameState, trooper: TrooperState) -> float:
    """Facing towards the table's middle from the trooper's Deployment Zone."""
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    return 90.0 if (zone.y0 + zone.y1) / 2 < state.table.depth / 2 else 270.0


def apply_combat_jump_landed(state: GameState, event: CombatJumpLanded) -> GameState:
    trooper = replace(state.trooper(event.trooper), airborne=False, position=event.position,
                      facing=event.facing, prone=False)
    return state.with_trooper(trooper)


def final_victory_points(state: GameState, side: Side) -> int:
    """Victory Points at the end of the game: army points of own troopers not in a Null
    state, a trooper never deployed (still airborne) counting as killed."""
    return sum(t.profile.cost for t in state.troopers_of(side) if not t.is_null and not t.airborne)


__all__ = [
    "apply_combat_jump_landed",
    "apply_trooper_kept_airborne",
    "combat_jumps",
    "decide_combat_jump",
    "decide_keep_airborne",
    "edge_spot",
    "fallback_problem",
    "final_victory_points",
    "landing_problem",
    "may_jump",
]
