"""Folding one resolution ``Effect`` into the game state.

``apply_effect`` is the only place where an Order's results change troopers; ``engine.apply``
folds an ``Outcome``'s effects through it in the order listed, and ``resolution`` uses it to
compute the Conclusion (Guts Rolls, Alert!) from the state after the Effects step.
"""

from __future__ import annotations

from ..evolve import replace
from ..ids import TrooperId
from ..state import GameState, TrooperState
from .incapacitation import IncapacitationSkill
from .mines import apply_placed, apply_to_mine
from .outcome import (
    BecameIdle,
    CoupDeGrace,
    DeployablePlaced,
    DeployableRemoved,
    DiscoverFailed,
    Effect,
    Healed,
    ImmobilizedBCleared,
    ImmobilizedBSet,
    IncapacitationIgnored,
    IsolatedCleared,
    IsolatedSet,
    Moved,
    Revealed,
    StunnedSet,
    TargetedCleared,
    TargetedSet,
    TreatmentFailed,
    Turned,
    WeaponUsed,
    WentProne,
    Wounded,
    ZonePlaced,
)


def apply_effect(state: GameState, effect: Effect) -> GameState:
    """The state after ``effect``. Pure: ``state`` is never changed.

    * ``Wounded``: wounds and condition set to the effect's values (they are totals).
    * ``Moved``: position set to the last point of the route.
    * ``Revealed``: the Camouflage Marker becomes a model (``marker`` False).
    * ``DiscoverFailed``: the marker is added to the discoverer's ``failed_discover``.
    * ``WeaponUsed``: ``weapon_uses[weapon]`` (uses spent so far) grows by ``uses``.
    * ``Turned``: facing set; ``WentProne``: prone set; ``TargetedCleared``: targeted unset;
      ``TargetedSet``: targeted set; ``IsolatedSet`` / ``IsolatedCleared``: isolated set / unset;
      ``ImmobilizedBSet`` / ``ImmobilizedBCleared``: immobilized_b set / unset.
    * ``StunnedSet``: ``stunned_in`` set to the Player Turn being played (``state.round``,
      ``state.turn``); the States Phase of that turn cancels it (``stunned.py``).
    * ``Healed``: wounds and condition set to the effect's values (a Doctor, Paramedic or
      Engineer roll passed).
    * ``IncapacitationIgnored``: for Dogged, ``dogged_in`` set to the Player Turn being
      played (its States Phase kills the trooper); for NWI a record only.
    * ``ZonePlaced``: the zone joins the table's ``zones``.
    * ``DeployableRemoved``: the Deployable leaves ``deployables`` (``mines.py``).
    * ``BecameIdle``, ``CoupDeGrace`` and ``TreatmentFailed`` change nothing: they are records
      (why a skill did nothing; why the ``Wounded`` that follows needed no save or roll).
    """
    if isinstance(effect, BecameIdle | CoupDeGrace | TreatmentFailed):
        return state
    if isinstance(effect, DeployableRemoved):  # not a trooper (mines.py)
        return replace(state, deployables={k: v for k, v in state.deployables.items()
                                           if k != effect.deployable})
    if isinstance(effect, DeployablePlaced):  # a Mine on the table (mines.py)
        return apply_placed(state, effect)
    if getattr(effect, "trooper", None) in state.deployables:  # a Mine (mines.py)
        return apply_to_mine(state, effect)
    if isinstance(effect, ZonePlaced):  # on the table, not on a trooper
        return replace(state, table=replace(state.table, zones=(*state.table.zones, effect.zone)))
    if _subject(effect) not in state.troopers:
        # A Mine an earlier effect of this Resolution removed (a second hit on it, mines.py):
        # nothing is left to affect.
        return state
    trooper = state.trooper(_subject(effect))
    if isinstance(effect, StunnedSet):
        return state.with_trooper(replace(trooper, stunned_in=(state.round, state.turn)))
    if isinstance(effect, IncapacitationIgnored):
        if effect.skill != IncapacitationSkill.DOGGED:
            return state
        return state.with_trooper(replace(trooper, dogged_in=(state.round, state.turn)))
    return state.with_trooper(_changed(trooper, effect))


def _subject(effect: Effect) -> TrooperId:
    subject = getattr(effect, "trooper", None)
    if not isinstance(subject, str):
        raise TypeError(f"unknown effect {type(effect).__name__}")
    return TrooperId(subject)


def _changed(trooper: TrooperState, effect: Effect) -> TrooperState:
    if isinstance(effect, Wounded | Healed):
        return replace(trooper, wounds=effect.wounds, condition=effect.condition)
    if isinstance(effect, Moved):
        return replace(trooper, position=effect.route[-1]) if effect.route else trooper
    if isinstance(effect, Revealed):
        return replace(trooper, marker=False)
    if isinstance(effect, DiscoverFailed):
        return replace(trooper, failed_discover=trooper.failed_discover | {effect.marker})
    if isinstance(effect, WeaponUsed):
        spent = trooper.weapon_uses.get(effect.weapon, 0) + effect.uses
        return replace(trooper, weapon_uses={**trooper.weapon_uses, effect.weapon: spent})
    if isinstance(effect, Turned):
        return replace(trooper, facing=effect.facing)
    if isinstance(effect, WentProne):
        return replace(trooper, prone=True)
    if isinstance(effect, TargetedCleared):
        return replace(trooper, targeted=False)
    if isinstance(effect, TargetedSet):
        return replace(trooper, targeted=True)
    if isinstance(effect, IsolatedSet):
        return replace(trooper, isolated=True)
    if isinstance(effect, IsolatedCleared):
        return replace(trooper, isolated=False)
    if isinstance(effect, ImmobilizedBSet):
        return replace(trooper, immobilized_b=True)
    if isinstance(effect, ImmobilizedBCleared):
        return replace(trooper, immobilized_b=False)
    raise TypeError(f"unknown effect {type(effect).__name__}")
