"""Fireteams (N5, DIGEST 3.5; CodeOne has none): composition, forming, activation,
Level and integrity.

Rules read from the Infinity wiki's N5 pages "Fireteams Module", "Fireteams: Basic Rules",
"Fireteam: Core", "Fireteam: Haris", "Fireteam: Duo", "Fireteam Bonuses", "Coherency" and
"Fireteams Chart"; the judgement calls are in docs/rules-decisions/fireteams.md.

* Composition (``composition_problem``): a Fireteam: Core has 2 to 5 members, a Haris 3, a
  Duo 2, each member's profile listing that type (``UnitProfile.fireteam_core`` ...); all of
  one Combat Group, on the table as Models, not Null or Isolated, not Peripherals or their
  Controllers, not Airborne Deployment or Infiltration troopers, not in Suppressive Fire; no trooper in two
  teams; at most one Core and one Haris per player on the table (Duos unlimited), as the
  default Fireteams Chart; every member inside the leader's Zone of Control (Coherency).
  A list with its own Fireteams Chart (``ArmyList.fireteam_chart``) replaces the profiles'
  types and the default counts with the chart's teams and limits (``fireteam_chart.py``).
* Forming (``decide_form_fireteam``): in the player's own deployment step, free; or in its
  own Orders Phase between Orders by spending one Command Token (its Operational use).
* Activation (``decide_activate_fireteam``): one Regular Order of the team's Combat Group
  activates every member, the leader named in the command; it is a joint activation
  (``ActiveOrder.peripherals`` holds the other members): when the leader declares a
  movement skill each member declares the same skill with its own route, ending in the
  leader's Zone of Control; for any other skill the members declare Idle
  (``check_member_skills``).
* Level (``fireteam_level``): the largest number of members that count as one unit (1 when
  all differ), shown with the team. Level 1 is one Regular Order for the whole team; Level
  2's BS Attack (+1 SD), Level 3's +3 Discover and +1 Dodge and Level 4's +1 BS are in
  ``combat/fireteam_bonuses.py``; Level 5 gives every member Sixth Sense
  (``grants_sixth_sense``).
* A member activated on its own Order (an Impetuous member's Impetuous Order included)
  leaves its team first; the leader doing so cancels the team (``solo_activation``).
* Integrity (``integrity_events``, an automatic step between Orders): a member that is Null,
  Isolated, off the table or out of the leader's Zone of Control leaves; a team left with
  fewer than two members is cancelled, and so is one whose leader is Null or Isolated
  (DIGEST 3.5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..armies.skills import MOVEMENT_SKILLS, Idle, PeripheralSkill, Skill
from ..commands import ActivateFireteam, FormFireteam
from ..decision import require
from ..events import CommandTokenSpent, Event, FireteamFormed, FireteamLeft, OrderSpent
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..ruleset import options
from ..state import ActiveOrder, Fireteam, GameState, OrderType, Phase, TrooperState
from ..table.zone_of_control import in_zone_of_control
from .deployment import deployer
from .fireteam_chart import (
    KIND_NAMES,
    chart_limit,
    chart_member_problem,
    chart_of,
    chart_team_problem,
    limit_sentence,
)
from .named_troopers import own_trooper

CORE, HARIS, DUO = "core", "haris", "duo"
SIZES = {CORE: (2, 5), HARIS: (3, 3), DUO: (2, 2)}
"""Members when the team is formed: (fewest, most)."""
MAX_ON_TABLE = {CORE: 1, HARIS: 1}
"""Teams of a type one player may have at once (default Fireteams Chart; Duos: no limit)."""
MIN_MEMBERS = 2
"""Fewer than this and the team is cancelled."""
FORM_FIRETEAM = "form_fireteam"
"""The ``CommandTokenSpent.use`` of forming a Fireteam during the game."""


def _name(trooper: TrooperState) -> str:
    return f"{trooper.profile.name} ({trooper.id})"


def may_join(state: GameState, trooper: TrooperState, kind: str) -> bool:
    """Whether the trooper may be in a team of type ``kind``: its army's Fireteams Chart
    lists its unit (or it as a wildcard) in such a team; without a chart, its profile lists
    the type."""
    chart = chart_of(state, trooper.side)
    if chart is not None:
        return chart_member_problem(chart, kind, trooper) is None
    profile = trooper.profile
    return {CORE: profile.fireteam_core, HARIS: profile.fireteam_haris,
            DUO: profile.fireteam_duo}.get(kind, False)


def team_of(state: GameState, trooper_id: TrooperId) -> Fireteam | None:
    return next((t for t in state.fireteams if trooper_id in t.members), None)


def _unit(trooper: TrooperState) -> str:
    return trooper.profile.fireteam_unit or trooper.profile.name


def fireteam_level(state: GameState, members: Sequence[TrooperId]) -> int:
    """The Fireteam Level: how many members count as the same unit, at least 1."""
    counts = Counter(_unit(state.trooper(m)) for m in members)
    most = max(counts.values(), default=1)
    return most if most >= 2 else 1


def _exclusion(state: GameState, trooper: TrooperState) -> str | None:
    """Why the trooper may not be in any Fireteam now, as a sentence, or None."""
    army = state.armies[trooper.side]
    if not trooper.on_table or trooper.marker:
        return f"{_name(trooper)} must be on the table as a Model."
    if trooper.is_null:
        return f"{_name(trooper)} is in a Null state."
    if trooper.isolated:
        return f"{_name(trooper)} is Isolated."
    if trooper.entry.is_peripheral or army.peripherals_of(trooper.entry.id):
        return f"{_name(trooper)} is a Peripheral or a Controller; neither joins a Fireteam."
    if trooper.profile.combat_jump:
        return f"{_name(trooper)} has Airborne Deployment; such troopers join no Fireteam."
    if trooper.profile.infiltration:  # the wiki's N5 "Fireteams Chart": no Infiltration troopers
        return f"{_name(trooper)} has Infiltration; such troopers join no Fireteam."
    if trooper.suppressive_fire:
        return f"{_name(trooper)} is in Suppressive Fire."
    return None


def composition_problem(state: GameState, side: Side, kind: str, leader: TrooperId,
                        others: Sequence[TrooperId]) -> str | None:
    """Why this team may not be formed now, as a player's sentence, or None."""
    named = (leader, *others)
    if kind not in SIZES:
        return "Name a Fireteam type: core, haris or duo."
    fewest, most = SIZES[kind]
    if at_limit(state, side, kind):
        return limit_problem(state, side, kind)
    if len(set(named)) != len(named):
        return "Name each member once."
    if not fewest <= len(named) <= most:
        size = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        return f"A {KIND_NAMES[kind]} has {size} members, leader included."
    troopers = [own_trooper(state, side, t) for t in named]
    for trooper in troopers:
        problem = member_problem(state, kind, trooper)
        if problem is not None:
            return problem
    head = troopers[0]
    for trooper in troopers[1:]:
        problem = follower_problem(head, trooper)
        if problem is not None:
            return problem
    chart = chart_of(state, side)
    return chart_team_problem(chart, kind, troopers) if chart is not None else None


def limit_problem(state: GameState, side: Side, kind: str) -> str:
    """Why no more teams of ``kind`` may be formed while the player has its Chart's number."""
    chart = chart_of(state, side)
    if chart is not None:
        return limit_sentence(chart, kind)
    return f"You may have only {MAX_ON_TABLE[kind]} {KIND_NAMES[kind]} on the table at a time."


def at_limit(state: GameState, side: Side, kind: str) -> bool:
    """Whether the player has as many teams of ``kind`` on the table as its Chart allows."""
    chart = chart_of(state, side)
    limit = MAX_ON_TABLE.get(kind) if chart is None else chart_limit(chart, kind)
    return limit is not None and sum(
        1 for t in state.fireteams if t.side is side and t.kind == kind) >= limit


def member_problem(state: GameState, kind: str, trooper: TrooperState) -> str | None:
    """Why the trooper may not be a member of a new team of ``kind`` now, or None."""
    chart = chart_of(state, trooper.side)
    if chart is not None:
        listed = chart_member_problem(chart, kind, trooper)
        if listed is not None:
            return listed
    elif not may_join(state, trooper, kind):
        return f"{_name(trooper)} may not join a {KIND_NAMES[kind]}."
    excluded = _exclusion(state, trooper)
    if excluded is not None:
        return excluded
    if team_of(state, trooper.id) is not None:
        return f"{_name(trooper)} is already in a Fireteam."
    return None


def follower_problem(leader: TrooperState, trooper: TrooperState) -> str | None:
    """Why ``trooper`` may not follow ``leader`` in one team (Combat Group, Coherency)."""
    if trooper.entry.combat_group != leader.entry.combat_group:
        return "Every member of a Fireteam belongs to the same Combat Group."
    if not in_zone_of_control(leader.body(), trooper.body()):
        return (f"{_name(trooper)} is not in Coherency: it must stand inside the Zone of "
                f"Control of the leader, {_name(leader)}.")
    return None


def forming_now(state: GameState, side: Side) -> str | None:
    """When the player may form a team now: "deployment" (free), "command_token" (costs
    one), or None."""
    if not options(state.ruleset).command_tokens or state.order is not None:
        return None
    if state.phase is Phase.DEPLOYMENT and deployer(state) is side:
        return "deployment"
    if state.phase in (Phase.IMPETUOUS, Phase.ORDERS) and state.active is side:
        return "command_token"
    return None


def decide_form_fireteam(state: GameState, side: Side, command: FormFireteam) -> list[Event]:
    # The wiki's Fireteams pages: "not used in CodeOne" (whose games hold no Command Tokens).
    require(options(state.ruleset).command_tokens, Reason.NOT_ALLOWED_BY_RULESET,
            "CodeOne has no Fireteams.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    deploying = state.phase is Phase.DEPLOYMENT and deployer(state) is side
    in_turn = (state.phase in (Phase.IMPETUOUS, Phase.ORDERS) and state.active is side)
    require(deploying or in_turn, Reason.WRONG_PHASE,
            "A Fireteam is formed in your own deployment step, or in your own turn between "
            "Orders by spending a Command Token.")
    problem = composition_problem(state, side, command.kind, command.leader, command.members)
    require(problem is None, Reason.FIRETEAM_NOT_ALLOWED, problem or "")
    members = (command.leader, *command.members)
    formed = FireteamFormed(side, command.kind, command.leader, members,
                            fireteam_level(state, members))
    if deploying:
        return [formed]
    no_token = token_problem(state, side)
    require(no_token is None, Reason.NO_COMMAND_TOKEN, no_token or "")
    left = state.command_tokens.held.get(side, 0)
    return [CommandTokenSpent(side, FORM_FIRETEAM, left - 1, trooper=command.leader), formed]


def token_problem(state: GameState, side: Side) -> str | None:
    """Why the player may not spend the Command Token that forms a team during the game."""
    tokens = state.command_tokens
    if tokens.held.get(side, 0) <= 0:
        return "Forming a Fireteam during the game costs a Command Token; you have none left."
    if side in tokens.limited and tokens.spent_this_turn.get(side, 0) >= 1:
        return "You may spend only one Command Token this turn."
    return None


def apply_fireteam_formed(state: GameState, event: FireteamFormed) -> GameState:
    team = Fireteam(event.side, event.kind, event.leader, event.members)
    return replace(state, fireteams=(*state.fireteams, team))


def decide_activate_fireteam(state: GameState, side: Side,
                             command: ActivateFireteam) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "Only the active player spends Orders.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    require(state.phase is Phase.ORDERS, Reason.WRONG_PHASE,
            "A Fireteam is activated in the Orders Phase.")
    leader = own_trooper(state, side, command.leader)
    team = team_of(state, leader.id)
    require(team is not None, Reason.FIRETEAM_NOT_ALLOWED,
            f"{_name(leader)} is not in a Fireteam.")
    assert team is not None
    require(leader.can_act, Reason.TROOPER_NULL, f"{_name(leader)} cannot act.")
    group = leader.entry.combat_group
    require(state.orders.pools.get(group, 0) > 0, Reason.NO_ORDER_AVAILABLE,
            f"Combat Group {group} has no Regular Orders left.")
    others = tuple(m for m in team.members if m != leader.id)
    return [OrderSpent(state.orders_spent + 1, leader.id, OrderType.REGULAR, group, others,
                       fireteam=team.kind, fireteam_level=fireteam_level(state, team.members))]


def fireteam_order(state: GameState, order: ActiveOrder) -> Fireteam | None:
    """The Fireteam ``order`` activates, or None. A Fireteam's members are never Controllers,
    so an Order whose activated trooper is in a team and has others with it is the team's."""
    team = team_of(state, order.trooper)
    if team is None or not order.peripherals:
        return None
    return team


def apply_fireteam_activated(state: GameState, event: OrderSpent) -> GameState:
    """The trooper that declares a team's Order is its leader from then on."""
    if not event.peripherals:
        return state
    team = team_of(state, event.trooper)
    if team is None or team.leader == event.trooper:
        return state
    teams = tuple(replace(t, leader=event.trooper) if t is team else t for t in state.fireteams)
    return replace(state, fireteams=teams)


def solo_activation(state: GameState, trooper: TrooperState, order: OrderType) -> list[Event]:
    """A team member activated alone leaves its team: reason ``impetuous`` for its
    Impetuous Order (an Impetuous member in the Impetuous Phase), else ``activated_alone``.
    The team is cancelled when fewer than two would stay, or when the one leaving holds the
    Fireteam Leader token (the wiki's N5 "Fireteam Integrity": a leader activated in the
    Impetuous Phase, or a leader leaving, cancels the team)."""
    team = team_of(state, trooper.id)
    if team is None:
        return []
    reason = "impetuous" if order is OrderType.IMPETUOUS else "activated_alone"
    cancelled = len(team.members) - 1 < MIN_MEMBERS or trooper.id == team.leader
    return [_left(state, team, trooper.id, reason, cancelled)]


def _left(state: GameState, team: Fireteam, trooper: TrooperId, reason: str,
          cancelled: bool) -> FireteamLeft:
    """``trooper`` leaves ``team``, with the Level the team keeps (0 when cancelled)."""
    level = 0 if cancelled else fireteam_level(state, [m for m in team.members if m != trooper])
    return FireteamLeft(team.side, team.leader, trooper, reason, cancelled, level)


def member_may_idle(state: GameState, order: ActiveOrder, skill: Skill) -> bool:
    """In a Fireteam's Order the members declare Idle when the leader's skill is not a
    movement skill (they follow its movements only)."""
    return fireteam_order(state, order) is not None and not isinstance(skill, MOVEMENT_SKILLS)


def check_member_skills(state: GameState, order: ActiveOrder, skill: Skill,
                        declared: Sequence[PeripheralSkill]) -> None:
    """A Fireteam's members: Idle unless the leader moves; a moving member ends inside the
    Zone of Control of the leader where the leader's skill leaves it (Coherency). ``state``
    has the leader where its skill leaves it."""
    if fireteam_order(state, order) is None:
        return
    leader = state.trooper(order.trooper)
    for entry in declared:
        member = state.trooper(entry.trooper)
        if not isinstance(skill, MOVEMENT_SKILLS):
            require(isinstance(entry.skill, Idle), Reason.FIRETEAM_NOT_ALLOWED,
                    f"{_name(member)} follows its leader: only the leader performs "
                    f"{skill.TYPE}; the members declare Idle.")
            continue
        if isinstance(entry.skill, Idle):
            continue  # its state bars the movement (activation.py); Integrity judges it after
        require(entry.skill.TYPE == skill.TYPE, Reason.FIRETEAM_NOT_ALLOWED,
                f"{_name(member)} follows its leader: it declares the same skill "
                f"({skill.TYPE}) with its own route.")
        route = getattr(entry.skill, "route", ())
        end = route[-1] if route else member.position
        assert end is not None
        require(in_zone_of_control(leader.body(), member.body(end)),
                Reason.FIRETEAM_NOT_ALLOWED,
                f"{_name(member)} must end its movement inside the Zone of Control of its "
                f"leader, {_name(leader)} (Coherency).")


SIXTH_SENSE_LEVEL = 5


def grants_sixth_sense(state: GameState, trooper_id: TrooperId) -> bool:
    """Level 5 ("Fireteam Bonuses"): every member has Sixth Sense."""
    team = team_of(state, trooper_id)
    return team is not None and fireteam_level(state, team.members) >= SIXTH_SENSE_LEVEL


# --- integrity ---------------------------------------------------------------------------------


def _leaving(state: GameState, team: Fireteam) -> tuple[TrooperId, str] | None:
    """The first member that has to leave the team now, and why."""
    for member_id in team.members:
        member = state.trooper(member_id)
        if not member.on_table or member.is_null:
            return member_id, "null"
        if member.isolated:
            return member_id, "isolated"
    leader = state.trooper(team.leader)
    for member_id in team.members:
        member = state.trooper(member_id)
        if member_id != team.leader and not in_zone_of_control(leader.body(), member.body()):
            return member_id, "coherency"
    return None


def integrity_due(state: GameState) -> bool:
    return state.order is None and any(_leaving(state, t) is not None for t in state.fireteams)


def integrity_events(state: GameState) -> list[Event]:
    """The first team with a member to lose: that member leaves, or the team is cancelled
    when fewer than two would stay."""
    for team in state.fireteams:
        leaving = _leaving(state, team)
        if leaving is None:
            continue
        trooper, reason = leaving
        # DIGEST 3.5: a Null or Isolated leader cancels the whole team.
        cancelled = (len(team.members) - 1 < MIN_MEMBERS
                     or (trooper == team.leader and reason in ("null", "isolated")))
        return [_left(state, team, trooper, reason, cancelled)]
    return []


def apply_fireteam_left(state: GameState, event: FireteamLeft) -> GameState:
    team = team_of(state, event.trooper)
    assert team is not None
    if event.cancelled:
        return replace(state, fireteams=tuple(t for t in state.fireteams if t is not team))
    members = tuple(m for m in team.members if m != event.trooper)
    leader = team.leader if team.leader != event.trooper else members[0]
    changed = replace(team, members=members, leader=leader)
    return replace(state, fireteams=tuple(changed if t is team else t for t in state.fireteams))
