"""Deployment (DIGEST 11.1): the first deployer places all but one trooper totally inside
its zone, then the other player; then each places its reserved trooper, in the same order.

Troopers with Camouflage deploy as Camouflage Markers; troopers with Hidden Deployment may
deploy hidden (their position is private and they are not on the table); troopers with
Combat Jump may stay off the table in Airborne Deployment (``airborne.py``): they are then
done with, as a deployed trooper is, and no longer count among the troopers a step must
deploy or keep in reserve. Forward Deployment and Infiltration let a trooper deploy
outside its zone (``forward_deployment.py``, ``infiltration.py``).
"""

from __future__ import annotations

from ..combat.mines import placed_by_minelayer
from ..commands import Deploy, EndDeploymentStep
from ..decision import require
from ..events import (
    DeploymentStepEnded,
    Event,
    InfiltrationRolled,
    MinePlaced,
    MinesLost,
    TrooperDeployed,
)
from ..evolve import replace
from ..ids import Side
from ..plain import Plain
from ..reasons import Reason
from ..state import Deployment, GameState, Phase, TrooperState
from ..table.geometry import Body, in_base_contact, point_distance
from ..table.polygons import point_in_polygon, segment_polygon_distance
from ..table.terrain_names import terrain_name
from . import infiltration
from .forward_deployment import within_forward_reach
from .named_troopers import own_trooper
from .terrain_skill import chosen_terrain

LAST_STEP = 4

HOLD_BACK = "hold_back"
"""The first player's Strategic Command Token use that keeps a second trooper back for its
reserve step (DIGEST 3.3, 11.1; spent through ``command_tokens``)."""


def held_back(state: GameState, side: Side) -> bool:
    """Whether ``side`` spent the Strategic hold-back (only the first player may)."""
    return (HOLD_BACK in state.command_tokens.strategic_used
            and state.initiative.first_player is side)


def deployer(state: GameState) -> Side | None:
    """Who deploys at the current step (None once deployment is over)."""
    first = state.initiative.deploys_first
    if state.phase is not Phase.DEPLOYMENT or first is None or state.deployment.step > LAST_STEP:
        return None
    return first if state.deployment.step % 2 == 1 else first.other


def placed(trooper: TrooperState) -> bool:
    """Deployed, or kept off the table in Airborne Deployment: nothing left to place."""
    return trooper.position is not None or trooper.airborne


def reserve_of(state: GameState, side: Side) -> TrooperState | None:
    """The trooper ``side`` keeps in reserve, while it is kept: in deployment steps 1 and 2,
    the last main (non-Peripheral) trooper still waiting, if the list has more than one.
    Deploying it then would leave the step impossible to end (DIGEST 11.1)."""
    found = reserves_of(state, side)
    return found[0] if found else None


def reserve_count(state: GameState, side: Side) -> int:
    """How many main troopers ``side`` keeps for its reserve step: one if its list has more
    than one, and one more after the first player's Strategic hold-back (DIGEST 3.3, 11.1;
    ``command_tokens.held_back``)."""
    mains = [t for t in state.troopers_of(side) if not t.entry.is_peripheral and not t.airborne]
    return (1 if len(mains) > 1 else 0) + (1 if held_back(state, side) else 0)


def reserves_of(state: GameState, side: Side) -> tuple[TrooperState, ...]:
    """Every trooper ``reserve_of`` would name: in steps 1 and 2, the main troopers still
    waiting once no more are waiting than ``reserve_count``."""
    if state.deployment.step > 2:
        return ()
    mains = [t for t in state.troopers_of(side) if not t.entry.is_peripheral and not t.airborne]
    waiting = tuple(t for t in mains if not placed(t))
    return waiting if 0 < len(waiting) <= reserve_count(state, side) else ()


def decide_deploy(state: GameState, side: Side, command: Deploy) -> list[Event]:
    require(deployer(state) is side, Reason.NOT_YOUR_TURN, "It is not your deployment step.")
    trooper = own_trooper(state, side, command.trooper)
    require(not placed(trooper), Reason.ALREADY_DEPLOYED, "That trooper is already deployed.")
    profile = trooper.profile
    require(
        trooper not in reserves_of(state, side),
        Reason.RESERVE_TROOPER,
        f"{profile.name} is your reserve: the last trooper left waiting in this step deploys "
        "in step 3 or 4, after your opponent has deployed. End this step instead.",
    )
    require(
        not command.hidden or profile.hidden_deployment,
        Reason.SKILL_NOT_ALLOWED,
        f"{profile.name} does not have Hidden Deployment.",
    )
    body = Body(command.position, command.facing, profile.silhouette)
    zone = state.deployment_zones[state.initiative.zones[side]]
    if not zone.contains_body(body):
        require_beyond_zone(state, trooper, body)
    problem = placement_problem(state, body, side)
    require(problem is None, Reason.BAD_POSITION, problem or "")
    mines, mine_problem = placed_by_minelayer(state, trooper, body, command.mines)
    require(mine_problem is None, Reason.BAD_POSITION, mine_problem or "")
    chosen_terrain(trooper, command.terrain, False, False)  # named as the profile allows
    if not zone.contains_body(body) and not within_forward_reach(state, trooper, body) \
            and infiltration.needs_roll(state, trooper, body):
        return with_terrain(with_mines(infiltrate(state, trooper, body, command), mines),
                            trooper, command.terrain)
    return with_terrain([
        TrooperDeployed(
            trooper.id,
            body.position,
            body.facing,
            hidden=command.hidden,
            marker=profile.camouflage > 0 and not command.hidden,
        ),
        *mines,
    ], trooper, command.terrain)


def with_terrain(events: list[Event], trooper: TrooperState, named: str | None) -> list[Event]:
    """The Type of Terrain chosen (``terrain_skill``) right after the trooper is placed:
    open if it stands as a Model, its side's as a Marker or hidden."""
    if named is None:
        return events
    deployed = next(e for e in events if isinstance(e, TrooperDeployed))
    at = events.index(deployed) + 1
    chosen = chosen_terrain(trooper, named, deployed.hidden, deployed.marker)
    return [*events[:at], *chosen, *events[at:]]


def with_mines(events: list[Event], mines: list[MinePlaced]) -> list[Event]:
    """A Minelayer's Mines after its Infiltration Roll: placed if it passed, else lost
    (the wiki's "Minelayer": a failed roll to deploy loses them, their uses spent)."""
    if not mines:
        return events
    rolled = next(e for e in events if isinstance(e, InfiltrationRolled))
    if rolled.passed:
        return [*events, *mines]
    return [*events, MinesLost(mines[0].owner, mines[0].weapon, len(mines))]


def require_beyond_zone(state: GameState, trooper: TrooperState, body: Body) -> None:
    """Reject a base not totally inside the own Deployment Zone unless Forward Deployment
    or Infiltration lets the trooper stand there (``forward_deployment``, ``infiltration``);
    nobody deploys in the enemy zone or in base contact with an enemy (the wiki's
    "Forward Deployment" reminder)."""
    name = trooper.profile.name
    reach = trooper.profile.forward_deployment
    infiltrates = trooper.profile.infiltration
    if not within_forward_reach(state, trooper, body) and not infiltrates:
        beyond = f" or at most {reach} inches beyond it (Forward Deployment)" if reach else ""
        require(False, Reason.OUTSIDE_DEPLOYMENT_ZONE,
                f"{name} must be totally inside your deployment zone{beyond}.")
    enemy_zone = state.deployment_zones[state.initiative.zones[trooper.side.other]]
    require(not enemy_zone.touches_body(body), Reason.OUTSIDE_DEPLOYMENT_ZONE,
            f"{name} may not deploy in the enemy Deployment Zone.")
    for other in state.troopers.values():
        if other.side is not trooper.side and other.on_table and in_base_contact(body, other.body()):
            require(False, Reason.BAD_POSITION,
                    f"{name} may not deploy in base contact with an enemy.")


def infiltrate(state: GameState, trooper: TrooperState, body: Body, command: Deploy) -> list[Event]:
    """Deployment in the enemy half by Infiltration: the PH-3 Roll, then the trooper placed
    at ``body`` (passed) or as a Model at the command's fallback spot (failed)."""
    name = trooper.profile.name
    # A die rolled for a trooper in Hidden Deployment would be private, and every later die
    # would shift with it: what the opponent sees would depend on a private fact
    # (docs/fair-play.md). Not built (docs/rules-decisions/deployment-skills.md).
    require(not command.hidden, Reason.SKILL_NOT_ALLOWED,
            f"{name} may deploy hidden by Infiltration in your own half only: the referee "
            "does not play Hidden Deployment in the enemy half.")
    require(command.fallback is not None, Reason.BAD_POSITION,
            f"{name} deploys in the enemy half on a PH-3 Roll: name where it stands inside "
            "your Deployment Zone if the roll fails (fallback).")
    assert command.fallback is not None
    fallback = Body(command.fallback, command.fallback_facing, trooper.profile.silhouette)
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    require(zone.contains_body(fallback), Reason.BAD_POSITION,
            f"Spot if the PH-3 Roll fails: {name} must be totally inside your deployment zone.")
    problem = placement_problem(state, fallback, trooper.side)
    require(problem is None, Reason.BAD_POSITION, f"Spot if the PH-3 Roll fails: {problem}")
    roll, dice = infiltration.infiltration_roll(state, trooper)
    made = infiltration.passed(roll)
    final = body if made else fallback
    marker = trooper.profile.camouflage > 0
    return [
        InfiltrationRolled(trooper.id, body.position, body.facing, roll, made, marker, dice),
        TrooperDeployed(trooper.id, final.position, final.facing, hidden=False,
                        marker=marker and made),
    ]


OVERLAP_TOLERANCE = 0.01
"""Bases may touch terrain or each other; they overlap only beyond this depth (inches)."""


def placement_problem(state: GameState, body: Body, side: Side) -> str | None:
    """Why ``side`` may not place a base at ``body``, or None. Its own troopers in Hidden
    Deployment count (it knows where they are written down; one revealed later would stand
    on the new base); the enemy's do not (they are not on the table, and a refusal would
    tell where one is)."""
    if not state.table.contains_body(body):
        return "The base must be on the table."
    for piece in state.table.terrain:
        inside = point_in_polygon(body.position, piece.polygon)
        gap = segment_polygon_distance(body.position, body.position, piece.polygon)
        if inside or gap < body.radius - OVERLAP_TOLERANCE:
            return f"The base would overlap {terrain_name(piece, state.table)}."
    for other in state.troopers.values():
        if other.position is None or (other.hidden and other.side is not side):
            continue
        reach = body.radius + other.body().radius - OVERLAP_TOLERANCE
        if point_distance(body.position, other.position) < reach:
            return "The base would overlap another model."
    return None


def decide_end_deployment_step(
    state: GameState, side: Side, command: EndDeploymentStep
) -> list[Event]:
    require(deployer(state) is side, Reason.NOT_YOUR_TURN, "It is not your deployment step.")
    waiting = [t for t in state.troopers_of(side) if not placed(t)]
    main_troopers = [t for t in waiting if not t.entry.is_peripheral]
    if state.deployment.step <= 2:
        reserve = reserve_count(state, side)  # two after a Strategic hold-back
        require(
            len(main_troopers) == reserve,
            Reason.DEPLOYMENT_INCOMPLETE,
            f"Deploy all your troopers but {'one' if reserve == 1 else reserve} (the reserve); "
            f"{len(main_troopers)} are waiting.",
        )
        reserved = {t.entry.id for t in main_troopers}
        orphans = [t for t in waiting if t.entry.is_peripheral and t.entry.controller not in reserved]
        require(
            not orphans,
            Reason.DEPLOYMENT_INCOMPLETE,
            "Deploy the Peripherals of every deployed Controller.",
        )
    else:
        require(
            not waiting,
            Reason.DEPLOYMENT_INCOMPLETE,
            f"Deploy your reserve: {len(waiting)} trooper(s) are waiting.",
        )
    return [DeploymentStepEnded(side, state.deployment.step)]


def apply_trooper_deployed(state: GameState, event: TrooperDeployed) -> GameState:
    trooper = replace(
        state.troopers[event.trooper],
        position=event.position,
        facing=event.facing,
        hidden=event.hidden,
        marker=event.marker,
    )
    return state.with_trooper(trooper)


def apply_deployment_step_ended(state: GameState, event: DeploymentStepEnded) -> GameState:
    return replace(state, deployment=Deployment(step=event.step + 1))


def deployment_finished(state: GameState) -> bool:
    return state.phase is Phase.DEPLOYMENT and state.deployment.step > LAST_STEP


def beyond_zone_options(state: GameState, troopers: list[TrooperState]) -> dict[str, Plain]:
    """``options.deploy_beyond_zone``: per trooper of ``troopers`` (those it may deploy now)
    that may deploy outside its Deployment Zone, how: ``forward_deployment`` (inches beyond
    the zone, 0 without it) and ``infiltration`` (null, or the Success Value of the PH-3
    Roll for the enemy half, and a legal ``fallback`` spot in its own zone for a failed roll;
its own half needs no roll)."""
    found: dict[str, Plain] = {}
    for trooper in troopers:
        profile = trooper.profile
        if profile.forward_deployment <= 0 and not profile.infiltration:
            continue
        found[trooper.id] = {
            "forward_deployment": profile.forward_deployment,
            "infiltration": ({"success_value": infiltration.success_value(trooper),
                              "fallback": _fallback_spot(state, trooper)}
                             if profile.infiltration else None),
        }
    return found


def _fallback_spot(state: GameState, trooper: TrooperState) -> Plain:
    """A legal spot for a failed Infiltration Roll (the first free one on a one-inch grid
    of its own zone), ``[x, y]``, or None: what a client may send as ``fallback``."""
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    radius = Body((0.0, 0.0), 0.0, trooper.profile.silhouette).radius
    y = zone.y0 + radius
    while y <= zone.y1 - radius:
        x = zone.x0 + radius
        while x <= zone.x1 - radius:
            if placement_problem(state, Body((x, y), 0.0, trooper.profile.silhouette), trooper.side) is None:
                return [x, y]
            x += 1.0
        y += 1.0
    return None
