"""A tiny builder of game states at the Resolution step, for resolution tests.

Troopers are placed by hand on an open 48x48 table (terrain optional); the Order is built
directly so a test states exactly what was declared and which dice will be rolled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from server.rules.armies.army_list import ArmyList, ListEntry, ListFormat
from server.rules.armies.profiles import Training, TroopType, UnitProfile
from server.rules.armies.skills import BsAttack, BurstAssignment, Skill
from server.rules.armies.weapons import RangeBand, TemplateShape, Weapon, WeaponKind
from server.rules.combat.dice import Dice, dice_key, fixed_secret
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.ruleset import Ruleset
from server.rules.state import (
    ActiveOrder,
    Eligibility,
    GameState,
    OrderStep,
    OrderType,
    Phase,
    TrooperState,
)
from server.rules.table.geometry import Point
from server.rules.table.terrain import TerrainPiece, standard_table

RIFLE_BANDS = (RangeBand(8, 3), RangeBand(16, 3), RangeBand(24, -3), RangeBand(32, -3),
               RangeBand(40, -6), RangeBand(48, -6))

RIFLE = Weapon(WeaponId("rifle"), "Rifle", WeaponKind.BALLISTIC, 3, 7, "N", RIFLE_BANDS)
DA_RIFLE = Weapon(WeaponId("da_rifle"), "DA Rifle", WeaponKind.BALLISTIC, 2, 6, "DA",
                  RIFLE_BANDS)
SHOCK_RIFLE = Weapon(WeaponId("shock_rifle"), "Shock Rifle", WeaponKind.BALLISTIC, 3, 7,
                     "Shock", RIFLE_BANDS)
PISTOL = Weapon(WeaponId("pistol"), "Pistol", WeaponKind.BALLISTIC, 2, 7, "N",
                (RangeBand(8, 3), RangeBand(16, -3)))
FLAMER = Weapon(WeaponId("flamer"), "Flamer", WeaponKind.DIRECT_TEMPLATE, 1, 6, "N",
                template=TemplateShape.SMALL_TEARDROP)
GRENADE = Weapon(WeaponId("grenade"), "Disposable Flamer", WeaponKind.DIRECT_TEMPLATE, 1, 6,
                 "N", template=TemplateShape.SMALL_TEARDROP, disposable=2)
KNIFE = Weapon(WeaponId("knife"), "Knife", WeaponKind.CLOSE_COMBAT, 1, 8, "N")
ARSENAL = (RIFLE, DA_RIFLE, SHOCK_RIFLE, PISTOL, FLAMER, GRENADE, KNIFE)


def profile(name: str, *, bs: int = 12, ph: int = 11, wip: int = 13, cc: int = 14,
            arm: int = 1, bts: int = 0, vita: int = 1, mimetism: int = 0,
            camouflage: int = 0, silhouette: int = 2) -> UnitProfile:
    return UnitProfile(
        id=name, name=name, mov=(4, 4), cc=cc, bs=bs, ph=ph, wip=wip, arm=arm, bts=bts,
        vita=vita, structure=False, silhouette=silhouette, training=Training.REGULAR,
        troop_type=TroopType.LI, camouflage=camouflage, mimetism=mimetism,
        weapons=tuple(w.id for w in ARSENAL),
    )


def trooper(name: str, side: Side, at: Point, facing: float = 0.0, *, marker: bool = False,
            targeted: bool = False, prone: bool = False, **attributes: int) -> TrooperState:
    """A trooper named ``"<side>-<name>"`` standing at ``at``."""
    entry = ListEntry(id=name, profile=profile(name, **attributes), combat_group=1)
    return TrooperState(
        id=TrooperId(f"{side.value}-{name}"), side=side, entry=entry, position=at,
        facing=facing, marker=marker, targeted=targeted, prone=prone,
    )


def _army(side: Side, troopers: Sequence[TrooperState]) -> ArmyList:
    entries = tuple(t.entry for t in troopers if t.side is side)
    return ArmyList(id=f"army-{side.value}", name="Test", faction="test",
                    format=ListFormat.STANDARD, points=300, entries=entries, arsenal=ARSENAL)


def resolving(
    active: TrooperState,
    skills: Sequence[Skill],
    others: Sequence[TrooperState] = (),
    *,
    aros: Mapping[TrooperId, Skill] | None = None,
    eligible: Mapping[TrooperId, Eligibility] | None = None,
    path: Sequence[Point] | None = None,
    faces: Sequence[int] = (),
    ruleset: Ruleset = Ruleset.N5,
    terrain: Sequence[TerrainPiece] = (),
) -> GameState:
    """A state whose Order (by ``active``) is at its Resolution step.

    By default every trooper with an ARO was eligible through LoF, and the path is the
    active trooper's position alone (it did not move).
    """
    everyone = (active, *others)
    declared = dict(aros or {})
    assert active.position is not None
    route = tuple(path) if path is not None else (active.position,)
    order = ActiveOrder(
        number=1, trooper=active.id, order_type=OrderType.REGULAR, combat_group=1,
        step=OrderStep.RESOLUTION, start=route[0], path=route, skills=tuple(skills),
        eligible=dict(eligible) if eligible is not None else {
            t: Eligibility(t, line_of_fire=True, zone_of_control=False) for t in declared
        },
        aros=declared, start_facings={active.id: active.facing},
    )
    return GameState(
        ruleset=ruleset, dice=Dice(key=dice_key(fixed_secret(7), "", ""), injected=tuple(faces)),
        table=standard_table(terrain), deployment_zones={}, phase=Phase.ORDERS,
        armies={side: _army(side, everyone) for side in Side},
        troopers={t.id: t for t in everyone}, round=1, turn=1, active=active.side, order=order,
    )


def shoot(weapon: Weapon, *shares: tuple[TrooperState, int],
          firing_point: Point | None = None, target_point: Point | None = None) -> BsAttack:
    """A BS Attack with ``weapon`` splitting its Burst as ``(target, dice)`` shares."""
    return BsAttack(weapon=weapon.id,
                    targets=tuple(BurstAssignment(t.id, n) for t, n in shares),
                    firing_point=firing_point, target_point=target_point)


def moved(state: GameState, trooper_id: TrooperId, to: Point) -> GameState:
    return state.with_trooper(replace(state.trooper(trooper_id), position=to))
