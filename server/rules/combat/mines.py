"""Mines (N5): Deployable Direct Template weapons that stand on the table and go off by
themselves. The wiki's N5 pages "Mines", "Minelayer", "Deployable", "Place Deployable" and
"Trigger Area"; docs/rules-decisions/specialists.md, "Mines and Minelayer".

* A Mine is a ``Deployable`` of ``GameState.deployables``: a game element of a side that is
  not a trooper (no Orders, no ARO choice, no part of any count of troopers).
* It is placed by a Minelayer as it deploys, in its Zone of Control and outside the enemy
  Deployment Zone (``mine_problem``), spending one Disposable use; it stands as a
  Camouflage Marker whose identity is Private Information (``views``).
* It goes off, as an automatic reaction, at the ARO step of an enemy Order whose activated
  trooper declared or executed a skill inside its Trigger Area (``triggers``): the reach of
  its Small Teardrop from its base, not through Total Cover (the template's own terrain
  test), and never when the template would touch an ally of the Mine's side, Unconscious
  ones too. A Mine of the active side goes off, once the ARO window closes, against a
  reactive trooper that declared an ARO inside its Trigger Area (``aro_triggers``). Its
  template resolves with the Order (``plan``), a Dodge declared against it takes PH -3
  (``dodge_mods``, the active trooper's or a reactive one's Dodge ARO), and it leaves the
  table (``DeployableRemoved``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
from collections.abc import Iterator
from itertools import pairwise

from ..armies.army_list import ListEntry
from ..armies.profiles import Training, TroopType, UnitProfile
from ..armies.skills import PlaceDeployable
from ..armies.weapons import Weapon
from ..events import MinePlaced, MinesLost, MineTriggered
from ..evolve import replace
from ..ids import Side, TrooperId, WeaponId
from ..plain import Plain
from ..state import MARKER_SILHOUETTE, Deployable, GameState, OrderStep, TrooperState
from ..table.geometry import Body, Point, in_base_contact
from ..table.zone_of_control import in_zone_of_control
from .direct_templates import template_area_of
from .outcome import DeployablePlaced, DeployableRemoved, Effect, Revealed
from .plan import Plan, TemplateHit
from .rolls import Mod
from .stunned import may_declare

DODGE_MOD = -3
"""A Dodge against a Deployable's template: PH -3 (the wiki's "Mines"; DIGEST 9, at most one
such -3 with the one for an attacker outside LoF)."""

ROUTE_STEP = 0.25
"""Inches between the points of a route checked against a Trigger Area: under a base's
radius, so a base crossing an area is found inside it at some point."""

ID_LETTERS = 8
"""As ``army_selection.ID_LETTERS``: a Mine's id reads as any trooper's."""


MINE_PROFILE = UnitProfile(
    id="mine", name="Mine", mov=(0, 0), cc=0, bs=0, ph=0, wip=0, arm=0, bts=0, vita=1,
    structure=True, silhouette=MARKER_SILHOUETTE, training=Training.IRREGULAR,
    troop_type=TroopType.LI, camouflage=3, mimetism=3)
"""A Mine as a target (the wiki's "Mines": ARM 0, BTS 0, STR 1, CAMO (-3) with Mimetism
(-3)): what a Discover or an attack on it reads. Open: every Mine has it."""


def stand_in(mine: Deployable) -> TrooperState:
    """The Mine as the rules of Discover and attacks read a target: never in
    ``GameState.troopers`` (it has no Orders, counts for nothing), a marker until
    Discovered."""
    return TrooperState(mine.id, mine.side, ListEntry("mine", MINE_PROFILE, 0),
                        position=mine.position, facing=mine.facing, marker=not mine.discovered)


def target_or_mine(state: GameState, target_id: TrooperId) -> TrooperState | None:
    """The trooper named, or the Mine (``stand_in``), or None."""
    found = state.troopers.get(target_id)
    if found is not None:
        return found
    mine = state.deployables.get(target_id)
    return stand_in(mine) if mine is not None else None


def mine_targets(state: GameState, side: Side) -> list[TrooperState]:
    """``side``'s Mines as targets (``stand_in``), in id order."""
    return [stand_in(m) for m in sorted(state.deployables.values(), key=lambda d: d.id)
            if m.side is side]


def mine_weapons(trooper: TrooperState, state: GameState) -> tuple[Weapon, ...]:
    """The Mines the trooper carries with a use left."""
    army = state.armies[trooper.side]
    carried = (army.weapon(w) for w in trooper.profile.weapons)
    return tuple(w for w in carried if w.is_mine and uses_left(trooper, w) > 0)


def uses_left(trooper: TrooperState, weapon: Weapon) -> int:
    total = weapon.disposable if weapon.disposable is not None else math.inf
    left = total - trooper.weapon_uses.get(weapon.id, 0)
    return int(left) if math.isfinite(left) else 1_000


def deployable_id(state: GameState, side: Side, owner: TrooperId, count: int) -> TrooperId:
    """An opaque id drawn as trooper ids are (``army_selection.random_ids``): HMAC under
    the room's ``id_key`` of who placed it and how many it placed before, so the opponent
    cannot tell a Mine's marker from a trooper's by its id."""
    key = bytes.fromhex(state.id_key) if state.id_key else b""
    digest = hmac.new(key, f"{side.value}:deployable:{owner}:{count}".encode(),
                      hashlib.sha256).digest()
    letters = base64.b32encode(digest).decode().lower()
    size = ID_LETTERS
    while f"{side.value}-{letters[:size]}" in state.troopers \
            or f"{side.value}-{letters[:size]}" in state.deployables:
        size += 1
    return TrooperId(f"{side.value}-{letters[:size]}")


def body_of(mine: Deployable, at: Point | None = None) -> Body:
    """A Mine on the table: a marker's base that sees all round (360-degree LoF)."""
    return Body(at if at is not None else mine.position, mine.facing, MARKER_SILHOUETTE, True)


# --- placing -------------------------------------------------------------------------------


def mine_problem(state: GameState, minelayer: TrooperState, layer_body: Body,
                 spot: Point) -> str | None:
    """Why a Minelayer deploying as ``layer_body`` may not place a Mine at ``spot``, or
    None (the wiki's "Minelayer": inside its Zone of Control, by the Deployment rules,
    never in the enemy Deployment Zone, and with no enemy trooper or marker in the Mine's
    Trigger Area)."""
    name = minelayer.profile.name
    mine = Body(spot, 0.0, MARKER_SILHOUETTE, True)
    width, depth = state.table.width, state.table.depth
    if not (mine.radius <= spot[0] <= width - mine.radius
            and mine.radius <= spot[1] <= depth - mine.radius):
        return f"{name}'s Mine must stand wholly on the table."
    if not in_zone_of_control(layer_body, mine):
        return f"{name}'s Mine must stand inside its Zone of Control (8 inches)."
    if _overlaps(layer_body, mine):
        return f"{name}'s Mine may not stand under {name}."
    enemy_zone = state.deployment_zones[state.initiative.zones[minelayer.side.other]]
    if enemy_zone.touches_body(mine):
        return f"{name}'s Mine may not stand in the enemy Deployment Zone."
    for other in state.troopers.values():
        if other.side is minelayer.side or not other.on_table:
            continue
        if _overlaps(other.body(), mine) or in_base_contact(other.body(), mine):
            return f"{name}'s Mine may not stand in base contact with an enemy."
        if _reaches(state, minelayer.side, mine, other, other.body()):
            return f"{name}'s Mine may not be placed with an enemy inside its Trigger Area."
    for placed in state.deployables.values():
        if _overlaps(body_of(placed), mine):
            return f"{name}'s Mine may not stand on another marker."
    return None


def _overlaps(one: Body, other: Body) -> bool:
    return math.dist(one.position, other.position) < one.radius + other.radius - 1e-9


def placed_by_minelayer(state: GameState, minelayer: TrooperState, layer_body: Body,
                        spots: tuple[Point, ...]) -> tuple[list[MinePlaced], str | None]:
    """The Mines a Minelayer deploying as ``layer_body`` places at ``spots``, or why not."""
    if not spots:
        return [], None
    name = minelayer.profile.name
    if minelayer.profile.minelayer < 1:
        return [], f"{name} does not have Minelayer."
    if len(spots) > minelayer.profile.minelayer:
        return [], f"{name} places at most {minelayer.profile.minelayer} Mine(s) as it deploys."
    weapons = mine_weapons(minelayer, state)
    if not weapons:
        return [], f"{name} carries no Mines with a use left."
    weapon = weapons[0]
    if len(spots) > uses_left(minelayer, weapon):
        return [], f"{name} has {uses_left(minelayer, weapon)} Mine(s) left."
    events: list[MinePlaced] = []
    for index, spot in enumerate(spots):
        problem = mine_problem(state, minelayer, layer_body, spot)
        if problem is None and any(math.dist(spot, e.position) < 2 * body_of_radius()
                                   for e in events):
            problem = f"{name}'s Mines may not stand on one another."
        if problem is not None:
            return [], problem
        used = minelayer.weapon_uses.get(weapon.id, 0) + index
        events.append(MinePlaced(deployable_id(state, minelayer.side, minelayer.id, used),
                                 minelayer.side, minelayer.id, weapon.id, spot,
                                 layer_body.facing))
    return events, None


def minelayer_offer(state: GameState, waiting: list[TrooperState]) -> dict[str, Plain]:
    """What ``options`` offers a deploying Minelayer: per trooper waiting, the Mines it may
    place with ``deploy.mines`` (``mines``: how many at most) and the reach of its Zone of
    Control (inches from its base)."""
    from ..table.zone_of_control import ZONE_OF_CONTROL

    offer: dict[str, Plain] = {}
    for trooper in waiting:
        weapons = mine_weapons(trooper, state) if trooper.profile.minelayer else ()
        if weapons:
            count = min(trooper.profile.minelayer, uses_left(trooper, weapons[0]))
            offer[trooper.id] = {"weapon": weapons[0].id, "name": weapons[0].name,
                                 "mines": count, "zone_of_control": ZONE_OF_CONTROL}
    return offer


def body_of_radius() -> float:
    return Body((0.0, 0.0), 0.0, MARKER_SILHOUETTE, True).radius


def apply_mine_placed(state: GameState, event: MinePlaced) -> GameState:
    """The Mine joins the table; its owner has spent one Disposable use of it."""
    owner = state.trooper(event.owner)
    spent = owner.weapon_uses.get(event.weapon, 0) + 1
    owner = replace(owner, weapon_uses={**owner.weapon_uses, event.weapon: spent})
    mine = Deployable(event.mine, event.side, event.weapon, event.owner, event.position,
                      event.facing)
    return replace(state.with_trooper(owner),
                   deployables={**state.deployables, event.mine: mine})


def placement_problem(state: GameState, trooper: TrooperState, path: tuple[Point, ...],
                      skill: PlaceDeployable) -> str | None:
    """Why ``trooper`` may not Place Deployable as declared, or None (the wiki's "Place
    Deployable" and "Mines": a Mine it carries with a use left, in Silhouette contact with
    it at some point of its path, wholly on the table, on no base, with no enemy Camouflage
    Marker in its Trigger Area). In ARO the path is where the trooper stands: the Reactive
    Turn places it in Silhouette contact, with no route."""
    name = trooper.profile.name
    weapon = next((w for w in mine_weapons(trooper, state) if w.id == skill.weapon), None)
    if weapon is None:
        return f"{name} carries no Mines of that kind with a use left."
    mine = Body(skill.position, trooper.facing, MARKER_SILHOUETTE, True)
    width, depth = state.table.width, state.table.depth
    x, y = skill.position
    if not (mine.radius <= x <= width - mine.radius and mine.radius <= y <= depth - mine.radius):
        return "The Mine must stand wholly on the table."
    if not any(in_base_contact(trooper.body(point), mine) for point in _route_points(path)):
        return (f"{name} places its Mine in Silhouette contact with itself at some point of its path."
                if len(path) > 1 else
                f"{name} places its Mine in Silhouette contact with itself where it stands.")
    for other in state.troopers.values():
        if other.on_table and other.id != trooper.id and _overlaps(other.body(), mine):
            return "The Mine may not stand on a trooper or marker."
        if other.side is not trooper.side and other.on_table and other.marker \
                and _reaches(state, trooper.side, mine, other, other.body(), weapon):
            return "A Mine may not be placed with an enemy Camouflage Marker in its Trigger Area."
    if _overlaps(trooper.body(), mine):
        return "The Mine may not stand under its owner."
    for placed in state.deployables.values():
        if _overlaps(body_of(placed), mine):
            return "The Mine may not stand on another marker."
    return None


def planned_placement(state: GameState, trooper: TrooperState, skill: PlaceDeployable) -> Plan:
    """The Mine goes on the table with the Order's effects (DIGEST 6.2: a Deployable
    appears in the Conclusion), standing as a Camouflage Marker."""
    used = trooper.weapon_uses.get(skill.weapon, 0)
    mine = deployable_id(state, trooper.side, trooper.id, used)
    return Plan(effects=(DeployablePlaced(trooper.id, mine, skill.weapon, skill.position,
                                          trooper.facing),))


def placement_offer(state: GameState, trooper: TrooperState,
                    path: tuple[Point, ...]) -> dict[str, Plain]:
    """What ``options`` offers: per Mine weapon with a use left, its uses, the points of the
    path a Mine may touch (Silhouette contact with the trooper at any of them) and the
    distance between centres that contact means. Nothing for a Stunned trooper: Place
    Deployable is an Attack (``stunned.ATTACKS``)."""
    if not may_declare(trooper, PlaceDeployable):
        return {}
    reach = trooper.body().radius + body_of_radius()
    return {w.id: {"name": w.name, "uses_left": uses_left(trooper, w),
                   "path": [list(p) for p in dict.fromkeys(path)], "contact": reach}
            for w in mine_weapons(trooper, state)}


def apply_placed(state: GameState, effect: DeployablePlaced) -> GameState:
    return apply_mine_placed(state, MinePlaced(effect.deployable, state.trooper(effect.trooper).side,
                                               effect.trooper, effect.weapon, effect.position,
                                               effect.facing))


def apply_mines_lost(state: GameState, event: MinesLost) -> GameState:
    owner = state.trooper(event.owner)
    spent = owner.weapon_uses.get(event.weapon, 0) + event.count
    return state.with_trooper(replace(owner, weapon_uses={**owner.weapon_uses,
                                                          event.weapon: spent}))


# --- going off -----------------------------------------------------------------------------


def _weapon(state: GameState, mine: Deployable) -> Weapon:
    return state.armies[mine.side].weapon(mine.weapon)


def _reaches(state: GameState, side: Side, mine: Body, target: TrooperState,
             target_body: Body, weapon: Weapon | None = None) -> bool:
    """The Small Teardrop laid from the Mine on ``target`` standing as ``target_body``
    reaches it (its Trigger Area, not through Total Cover), touching no ally of ``side``."""
    from ..armies.weapons import TemplateShape, WeaponKind  # a stand-in only for its shape

    shape = weapon if weapon is not None else Weapon(
        WeaponId("mine"), "Mine", WeaponKind.DIRECT_TEMPLATE, 1, 0, "N",
        template=TemplateShape.SMALL_TEARDROP)
    area = template_area_of(state, None, side, mine, shape, target, target_body)
    return area.problem is None


def _route_points(path: tuple[Point, ...]) -> Iterator[Point]:
    """Every point of the path, and points every ``ROUTE_STEP`` between them."""
    if not path:
        return
    yield path[0]
    for start, end in pairwise(path):
        length = math.dist(start, end)
        steps = max(1, math.ceil(length / ROUTE_STEP))
        for i in range(1, steps + 1):
            t = i / steps
            yield (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)


def triggers(state: GameState) -> list[MineTriggered]:
    """The Mines of the reactive side that go off at the ARO step the Order is entering:
    each one not gone off yet, against the first activated trooper that declared or
    executed a skill in its Trigger Area (at the first point of its path there)."""
    order = state.order
    if order is None or order.step not in (OrderStep.ARO_1, OrderStep.ARO_2) \
            or order.window_open or state.active is None:
        return []
    gone = {t.mine for t in order.mines}
    found: list[MineTriggered] = []
    for mine in sorted(state.deployables.values(), key=lambda d: d.id):
        if mine.side is state.active or mine.id in gone:
            continue
        weapon = _weapon(state, mine)
        for trooper_id in order.activated:
            trooper = state.trooper(trooper_id)
            if not trooper.on_table:
                continue
            path = order.for_trooper(trooper_id).path
            at = next((p for p in _route_points(path)
                       if _reaches(state, mine.side, body_of(mine), trooper,
                                   trooper.body(p), weapon)), None)
            if at is not None:
                found.append(MineTriggered(order.number, mine.id, mine.side, mine.weapon,
                                           mine.position, trooper_id, at, trooper.facing))
                break
    return found


def aro_triggers(state: GameState) -> list[MineTriggered]:
    """The Mines of the active side that the reactive side's AROs set off (the wiki's
    "Mines": an enemy declaring an ARO inside the Trigger Area): once an ARO window has
    closed, each Mine not gone off yet against the first reactive trooper, in the order the
    AROs were declared, that declared one where it stands inside its Trigger Area. Judged at
    the close, not at each declaration: AROs are simultaneous (seed 000, "All at Once"), so
    no ARO of the window is declared knowing that another one set a Mine off. Everything it
    reads is open: the declared AROs (a declaring marker or hidden trooper is revealed) and
    the markers' spots; what it tells, that the marker was a Mine, is what going off tells."""
    order = state.order
    if order is None or order.window_open or not order.aros or state.active is None \
            or order.step not in (OrderStep.SECOND_SKILL, OrderStep.RESOLUTION):
        return []
    gone = {t.mine for t in order.mines}
    found: list[MineTriggered] = []
    for mine in sorted(state.deployables.values(), key=lambda d: d.id):
        if mine.side is not state.active or mine.id in gone:
            continue
        weapon = _weapon(state, mine)
        for reactor_id in order.aros:
            reactor = state.trooper(reactor_id)
            if not reactor.on_table or reactor.position is None:
                continue
            if _reaches(state, mine.side, body_of(mine), reactor, reactor.body(), weapon):
                found.append(MineTriggered(order.number, mine.id, mine.side, mine.weapon,
                                           mine.position, reactor_id, reactor.position,
                                           reactor.facing))
                break
    return found


def apply_mine_triggered(state: GameState, event: MineTriggered) -> GameState:
    """The Mine is revealed (it stays on the table until its template resolves)."""
    from ..state import MineTrigger

    assert state.order is not None
    trigger = MineTrigger(event.mine, event.target, event.at, event.facing)
    order = replace(state.order, mines=(*state.order.mines, trigger))
    deployables = dict(state.deployables)
    if event.mine in deployables:
        deployables[event.mine] = replace(deployables[event.mine], discovered=True)
    return replace(state, order=order, deployables=deployables)


def plan(state: GameState) -> Plan:
    """The templates of the Mines the Order triggered: the Small Teardrop laid on the
    trooper that triggered it, where it stood then, hitting every enemy (of the Mine) under
    it; a Camouflage Marker under it is revealed. Each Mine then leaves the table."""
    order = state.order
    if order is None or not order.mines:
        return Plan()
    hits: list[TemplateHit] = []
    effects: list[Effect] = []
    for trigger in order.mines:
        mine = state.deployables.get(trigger.mine)
        if mine is None:
            continue
        weapon = _weapon(state, mine)
        target = state.trooper(trigger.target)
        target_body = Body(trigger.at, trigger.facing, target.profile.silhouette, target.marker)
        area = template_area_of(state, None, mine.side, body_of(mine), weapon, target,
                                target_body)
        for trooper_id in area.affected:
            hits.append(TemplateHit(mine.id, trooper_id, weapon.id, False,
                                    math.dist(mine.position, trigger.at)))
            if state.trooper(trooper_id).marker:
                effects.append(Revealed(trooper_id, "affected_by_template"))
        effects.append(DeployableRemoved(mine.id, "detonated"))
    return Plan(templates=tuple(hits), effects=tuple(effects))


def dodge_mods(state: GameState, trooper_id: TrooperId,
               others: tuple[Mod, ...]) -> tuple[Mod, ...]:
    """PH -3 to a Dodge of a trooper a Mine went off against, unless ``others`` already
    hold a -3 of the same kind (at most one, DIGEST 9)."""
    order = state.order
    if order is None or not any(t.target == trooper_id for t in order.mines):
        return ()
    if any(m.value <= DODGE_MOD for m in others):
        return ()
    return (Mod("deployable_template", DODGE_MOD),)


def apply_to_mine(state: GameState, effect: Effect) -> GameState:
    """An effect on a Mine: Discovered (``Revealed``) it becomes a Mine token; any Wound
    destroys it (DIGEST: a Deployable that would be Unconscious is Dead), and it leaves the
    table. Nothing else applies to it."""
    from .outcome import Wounded

    subject = getattr(effect, "trooper", None)
    mine = state.deployables.get(TrooperId(str(subject)))
    if mine is None:
        return state
    if isinstance(effect, Revealed):
        return replace(state, deployables={**state.deployables,
                                           mine.id: replace(mine, discovered=True)})
    if isinstance(effect, Wounded):
        return replace(state, deployables={k: v for k, v in state.deployables.items()
                                           if k != mine.id})
    return state


def side_of(state: GameState, attacker: TrooperId) -> Side:
    """The side of an attacker: a trooper's, or a Deployable's."""
    mine = state.deployables.get(attacker)
    return mine.side if mine is not None else state.trooper(attacker).side
