"""What an Order's declarations say, read alike where they are checked (``activation``,
``aro``, ``command_tokens``) and where they are resolved (``combat.attacks``): where on its
path an activated trooper stands and which way it may look, whom its Attacks name, what a
trooper eligible through its Zone of Control alone may declare, and the Burst a declaration
carries in a Coordinated Order (DIGEST 3.4, 6.1, 13).

Nothing here imports ``combat``: the rules that resolve an Order depend on these readings,
never the other way round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from ..armies.skills import BsAttack, CcAttack, CommsAttack, Dodge, Reset, Skill
from ..evolve import replace
from ..ids import TrooperId
from ..state import ActiveOrder, Eligibility, GameState, TrooperState
from ..table.geometry import Body, Point, in_base_contact, point_distance, point_to_segment_distance

ON_PATH_TOLERANCE = 0.05


def on_path(path: Sequence[Point], point: Point) -> bool:
    """Whether ``point`` lies on the polyline ``path`` (within a small tolerance)."""
    if len(path) == 1:
        return point_distance(path[0], point) <= ON_PATH_TOLERANCE
    return any(
        point_to_segment_distance(point, a, b) <= ON_PATH_TOLERANCE
        for a, b in pairwise(path)
    )


def acting_body(order: ActiveOrder, trooper: TrooperState, point: Point) -> Body:
    """The active trooper standing at ``point`` of its path.

    At the Order's starting point, before it moves, it looks the way it faced when the
    Order began; from the points after it, it has been moving and turning as it goes, so it
    may look in any direction (docs/rules-decisions/README.md, "Firing point"). One that stays put
    keeps its facing. ``order`` is the trooper's own projection (``for_trooper``).
    """
    body = trooper.body(point)
    if len(order.path) == 1:
        return body  # it has not moved: its facing now is its facing at the start
    if not _before_moving(order.path, point):
        return replace(body, all_round_vision=True)
    # An Order begun before start facings were recorded (a snapshot of an older server)
    # has none: its start is judged with the facing the trooper has now.
    facing = order.start_facings.get(trooper.id, trooper.facing)
    return Body(body.position, facing, body.silhouette, body.all_round_vision)


def _before_moving(path: Sequence[Point], point: Point) -> bool:
    """Whether ``point`` is the path's starting point and no later part of the path passes
    through it again (a route that comes back to its start has been turning there)."""
    return (point_distance(path[0], point) <= ON_PATH_TOLERANCE
            and not on_path(path[1:], point))



def allowed_without_line_of_fire(eligibility: Eligibility, skill: Skill) -> bool:
    """What a trooper eligible without LoF, template, Sixth Sense or a Comms Attack on it
    (``Eligibility.zoc_only``) may declare: Dodge or Reset (DIGEST 6.1), and a Hacker
    reacting from its Hacking Area also a Comms Attack (DIGEST 13)."""
    if isinstance(skill, Dodge | Reset):
        return True
    return isinstance(skill, CommsAttack) and eligibility.hacking_area


def attacked_by(order: ActiveOrder) -> set[TrooperId]:
    """Troopers named as targets of an Attack (BS Attack, template, CC Attack) declared so
    far by the activated trooper ``order.trooper`` (Sixth Sense, DIGEST 13)."""
    targets: set[TrooperId] = set()
    for skill in order.skills:
        if isinstance(skill, BsAttack):
            targets.update(a.trooper for a in skill.targets)
        elif isinstance(skill, CcAttack):
            targets.add(skill.target)
    return targets



def coordinated(state: GameState, order: ActiveOrder) -> bool:
    """Whether ``order`` (or a trooper's projection of it) is a Coordinated Order."""
    return state.command_tokens.coordinated_order == order.number


def required_burst(state: GameState, trooper_id: TrooperId, burst: int) -> int:
    """The Burst a BS Attack of ``trooper_id`` declares in the current Order: the weapon's,
    or in a Coordinated Order half of it rounded up for the Spearhead and 1 for the others
    (DIGEST 3.4)."""
    order = state.order
    if order is None or not coordinated(state, order):
        return burst
    return math.ceil(burst / 2) if trooper_id == state.command_tokens.spearhead else 1


def coordinated_cc_burst(state: GameState, trooper_id: TrooperId, burst: int) -> int | None:
    """A CC Attack's Burst in the current Order (DIGEST 3.4, N5): in a Coordinated Order only
    the Spearhead attacks, with half its Burst rounded up (as any Spearhead) plus 1 for every
    other trooper of the Order in base contact with the target; the others roll nothing
    (None). Outside a Coordinated Order: the weapon's Burst."""
    order = state.order
    if order is None or not coordinated(state, order):
        return burst
    if trooper_id != state.command_tokens.spearhead:
        return None
    target = next((s.target for s in order.skills if isinstance(s, CcAttack)), None)
    if target is None or not state.trooper(target).on_table:
        return math.ceil(burst / 2)
    victim = state.trooper(target).body()
    allies = sum(1 for t in order.peripherals
                 if state.trooper(t).can_act and in_base_contact(state.trooper(t).body(), victim))
    return math.ceil(burst / 2) + allies


def supports_coordinated_cc(state: GameState, order: ActiveOrder, trooper_id: TrooperId,
                            skill: Skill) -> bool:
    """A trooper of a Coordinated Order other than the Spearhead declaring its CC Attack: it
    only supports the Spearhead's (no roll), so base contact is no Requirement of it."""
    return (isinstance(skill, CcAttack) and coordinated(state, order)
            and trooper_id != state.command_tokens.spearhead)
