"""The MODs of each resolution roll (DIGEST 7.1, 6.1, 8, 9, 10.5, 10.6).

Every MOD is a ``rolls.Mod`` named by where it comes from, so a roll record lists exactly
what changed the Success Value. Distances are measured between the two bodies where the
shot is taken: the attacker at its firing point and the target where it stands (an ARO is
measured to the point of the active trooper's path it chose). The net MOD cap and SV < 1
belong to ``rolls``; this module only lists MODs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..armies.weapons import RangeBand, Weapon
from ..ids import TrooperId
from ..state import GameState, TrooperState
from ..table.cover import in_partial_cover
from ..table.geometry import Body, distance
from ..table.line_of_fire import has_line_of_fire
from ..table.terrain import Table
from .immobilized import IMMOBILIZED_B_RESET_MOD
from .isolated import ISOLATED_RESET_MOD
from .multispectral_visor import sees_through_smoke, visor_mods
from .nanoscreen import screened
from .rolls import Mod

PARTIAL_COVER_MOD = -3
"""To the attacker's BS Attack or Discover against a target in Partial Cover (10.6)."""
TARGETED_MOD = 3
"""To BS Attacks and Discover against a Targeted trooper (DIGEST 8)."""
TARGETED_RESET_MOD = -3
"""To a Targeted trooper's own Reset (DIGEST 8, Targeted row)."""
NO_LINE_OF_FIRE_DODGE_MOD = -3
"""[N5] A Dodge without LoF to the attacker (ZoC-only ARO, template from outside LoF)."""

DISCOVER_RANGES: tuple[RangeBand, ...] = (
    RangeBand(8.0, 3),
    RangeBand(16.0, 0),
    RangeBand(24.0, 0),
    RangeBand(32.0, 0),
    RangeBand(40.0, -3),
    RangeBand(48.0, -3),
    RangeBand(96.0, -6),
)
"""Discover's own range bands (DIGEST 9, N4 values; see docs/rules-decisions/resolution.md)."""


@dataclass(frozen=True, slots=True)
class RangeReading:
    """Where a measured distance falls among a weapon's (or Discover's) range bands: the
    band that gives the range MOD, with its lower edge (exclusive; 0 for the first band),
    or None beyond ``max_range`` (DIGEST 10.4). Kept with the roll so that a preview of the
    declaration (``options``) and the roll record say the same."""

    distance: float
    band: RangeBand | None
    band_from: float
    max_range: float


@dataclass(frozen=True, slots=True)
class ShotMods:
    """The MODs of one attack or Discover roll.

    ``out_of_range`` means the roll fails automatically without dice (not a Requirement,
    DIGEST 5.2). ``partial_cover`` also gives the target +3 to its saves against BS Attacks.
    ``range`` is the distance the range MOD was read at.
    """

    mods: tuple[Mod, ...]
    out_of_range: bool
    partial_cover: bool
    range: RangeReading


def blocking_bodies_by_trooper(state: GameState) -> tuple[tuple[TrooperId, Body], ...]:
    """Every trooper whose body blocks LoF, with that body: models on the table; markers
    never block (DIGEST 10.1). For callers that need many ``blocking_bodies`` of one state."""
    return tuple([  # (a list first: no generator)
        (t.id, t.body()) for t in state.troopers.values() if t.on_table and not t.marker
    ])


def blocking_bodies(state: GameState, *exclude: TrooperId) -> tuple[Body, ...]:
    """Bodies that block LoF, but those of ``exclude``."""
    return without(blocking_bodies_by_trooper(state), *exclude)


def without(bodies: tuple[tuple[TrooperId, Body], ...], *exclude: TrooperId) -> tuple[Body, ...]:
    """The bodies of ``blocking_bodies_by_trooper`` but those of ``exclude``, in order."""
    return tuple(body for trooper, body in bodies if trooper not in exclude)


def sees(state: GameState, viewer: TrooperState, viewer_body: Body,
         target: TrooperState, target_body: Body) -> bool:
    """Whether ``viewer`` (standing as ``viewer_body``) has LoF to ``target_body``."""
    blockers = blocking_bodies(state, viewer.id, target.id)
    return has_line_of_fire(viewer_body, target_body, state.table, blockers,
                            sees_through_smoke(viewer))


def concealment_mods(target: TrooperState, visor: int = 0) -> tuple[Mod, ...]:
    """Targeted (+3) and Mimetism (-3/-6) of the target, and what of that Mimetism the seer's
    Multispectral Visor of level ``visor`` cancels: for BS Attacks and Discover."""
    mods: list[Mod] = []
    if target.targeted:
        mods.append(Mod("targeted", TARGETED_MOD))
    if target.profile.mimetism:
        mods.append(Mod("mimetism", -target.profile.mimetism))
        mods.extend(visor_mods(visor, target.profile.mimetism))
    return tuple(mods)


def bs_attack_mods(weapon: Weapon, target: TrooperState, shooter: Body, victim: Body,
                   table: Table, visor: int = 0) -> ShotMods:
    """Range band at the distance between the bodies, Partial Cover, Targeted, Mimetism (less
    what the shooter's Multispectral Visor of level ``visor`` cancels)."""
    return _shot_mods(weapon.ranges, target, shooter, victim, table, visor)


def discover_mods(target: TrooperState, seer: Body, seen: Body, table: Table,
                  visor: int = 0) -> ShotMods:
    """Discover uses BS-style MODs with its own range bands (DIGEST 9)."""
    return _shot_mods(DISCOVER_RANGES, target, seer, seen, table, visor)


def _shot_mods(bands: tuple[RangeBand, ...], target: TrooperState, shooter: Body,
               victim: Body, table: Table, visor: int) -> ShotMods:
    reading = range_reading(bands, distance(shooter, victim))
    band = None if reading.band is None else reading.band.mod
    # An Impetuous trooper never benefits from Partial Cover (DIGEST 3.6, at all times).
    scenery = not target.profile.impetuous and in_partial_cover(victim, shooter, table)
    cover = scenery or screened(target)  # Nanoscreen: the same cover, never twice
    mods: list[Mod] = []
    if band is not None:
        mods.append(Mod("range", band))
    if cover:
        mods.append(Mod("partial_cover" if scenery else "nanoscreen", PARTIAL_COVER_MOD))
    mods.extend(concealment_mods(target, visor))
    return ShotMods(mods=tuple(mods), out_of_range=band is None, partial_cover=cover,
                    range=reading)


def range_reading(bands: tuple[RangeBand, ...], inches: float) -> RangeReading:
    """The first band reaching ``inches`` (upper edge inclusive), None beyond the last."""
    low = 0.0
    for band in bands:
        if inches <= band.up_to:
            return RangeReading(inches, band, low, bands[-1].up_to)
        low = band.up_to
    return RangeReading(inches, None, low, bands[-1].up_to if bands else 0.0)


def dodge_mods(without_line_of_fire: bool, penalty_in_ruleset: bool) -> tuple[Mod, ...]:
    """[N5] -3 PH to Dodge without LoF to the attacker (at most one such -3, DIGEST 9)."""
    if without_line_of_fire and penalty_in_ruleset:
        return (Mod("no_line_of_fire", NO_LINE_OF_FIRE_DODGE_MOD),)
    return ()


def reset_mods(trooper: TrooperState) -> tuple[Mod, ...]:
    """A Targeted trooper resets at -3 WIP, an Isolated one at -9, an Immobilized-B one at -3
    (DIGEST 8; states add up, then the +-12 cap applies)."""
    mods: list[Mod] = []
    if trooper.targeted:
        mods.append(Mod("targeted", TARGETED_RESET_MOD))
    if trooper.isolated:
        mods.append(Mod("isolated", ISOLATED_RESET_MOD))
    if trooper.immobilized_b:
        mods.append(Mod("immobilized_b", IMMOBILIZED_B_RESET_MOD))
    return tuple(mods)
