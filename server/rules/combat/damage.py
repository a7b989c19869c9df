"""Saving Rolls and wounds from the hits of an Order (DIGEST 7.6, 7.7).

Each hit (a surviving success of a rolled attack, or a Direct Template reaching its target)
forces saves per its ammunition; each Critical forces one more, rolled last. Failed saves
become wounds on the trooper's track, hit after hit, so one Order can take a trooper from
Normal to Unconscious and then to Dead; each change is a ``Wounded`` effect carrying the
totals. Failed saves against E/M deal no wounds: they make the trooper Isolated
(``IsolatedSet``, ``isolated.py``), and a HI, TAG or REM Immobilized-B too
(``ImmobilizedBSet``, ``immobilized.py``). Failed saves against Stun (Non-Lethal) deal no
wounds either: they make the trooper Stunned (``StunnedSet``, ``stunned.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..evolve import replace
from ..ids import TrooperId, WeaponId
from ..ruleset import options
from ..state import GameState, TrooperState
from .ammunition import Ammunition, inflicts_wounds
from .dice import Dice, roll_d20
from .immobilized import immobilized_by_em
from .immunity import ammunition_against, immune_to_state
from .incapacitation import incapacitation_skill
from .isolated import isolates
from .mines import side_of, target_or_mine
from .outcome import (
    Effect,
    ImmobilizedBSet,
    IncapacitationIgnored,
    IsolatedSet,
    SaveRecord,
    StunnedSet,
    WentProne,
    Wounded,
)
from .saves import judge_save, save_target, saves_required
from .stunned import stuns
from .wounds import Condition, apply_failed_saves


@dataclass(frozen=True, slots=True)
class Hit:
    """Successes of one attack against one trooper.

    ``partial_cover`` is True only for a BS Attack against a target in Partial Cover (never
    for templates or CC): it adds +3 to the target's saves.
    """

    attacker: TrooperId
    target: TrooperId
    weapon: WeaponId
    hits: int
    criticals: int
    partial_cover: bool = False


@dataclass(frozen=True, slots=True)
class Damage:
    saves: tuple[SaveRecord, ...]
    effects: tuple[Effect, ...]
    dice: Dice


def resolve_hits(state: GameState, hits: Sequence[Hit], dice: Dice) -> Damage:
    """Roll every save of ``hits`` in order and put the failures on the wound tracks."""
    troopers = {hit.target: _target(state, hit.target) for hit in hits}
    records: list[SaveRecord] = []
    effects: list[Effect] = []
    for hit in hits:
        record, dice = _saves(state, troopers[hit.target], hit, dice)
        records.append(record)
        before = troopers[hit.target]
        after = _wounded(before, record)
        if after != before:
            troopers[hit.target] = after
            effects.append(Wounded(after.id, after.wounds, after.condition))
            kept = _kept_in_the_fight(before, after)
            if kept is not None:
                effects.append(kept)
            if after.condition is Condition.UNCONSCIOUS and not before.prone:
                # An Unconscious trooper goes Prone (DIGEST 7.7).
                troopers[hit.target] = _prone(after)
                effects.append(WentProne(after.id, "unconscious"))
        if _isolated_by(troopers[hit.target], record):
            # E/M: a failed BTS save makes the trooper Isolated (DIGEST 7.6, 8).
            troopers[hit.target] = replace(troopers[hit.target], isolated=True)
            effects.append(IsolatedSet(hit.target, record.weapon))
        if _immobilized_by(troopers[hit.target], record):
            # ... and on a HI, TAG or REM, Immobilized-B too (DIGEST 7.6).
            troopers[hit.target] = replace(troopers[hit.target], immobilized_b=True)
            effects.append(ImmobilizedBSet(hit.target, record.weapon))
        if _stunned_by(troopers[hit.target], record):
            # Stun: a failed save makes the trooper Stunned for this Player Turn (DIGEST 8);
            # the turn is recorded when the effect is applied (``effects.apply_effect``).
            troopers[hit.target] = replace(troopers[hit.target],
                                           stunned_in=(state.round, state.turn))
            effects.append(StunnedSet(hit.target, record.weapon))
    return Damage(saves=tuple(records), effects=tuple(effects), dice=dice)


def _target(state: GameState, target_id: TrooperId) -> TrooperState:
    found = target_or_mine(state, target_id)  # a Discovered Mine shot at (mines.py)
    assert found is not None, f"{target_id} is not on the table"
    return found


def _saves(state: GameState, target: TrooperState, hit: Hit,
           dice: Dice) -> tuple[SaveRecord, Dice]:
    weapon = state.armies[side_of(state, hit.attacker)].weapon(hit.weapon)  # a Mine's too
    fired = Ammunition(weapon.ammo)
    ammo = ammunition_against(target.profile, fired)  # Immunity: as Normal (immunity.py)
    armour = target.profile.bts if weapon.save_attribute == "BTS" else target.profile.arm
    convention = options(state.ruleset).save_convention
    number = save_target(armour, weapon.ps, ammo, hit.partial_cover, convention)
    faces, dice = roll_d20(dice, saves_required(ammo, hit.hits, hit.criticals))
    rolls = tuple(judge_save(face, number, convention) for face in faces)
    record = SaveRecord(
        trooper=target.id, attacker=hit.attacker, weapon=weapon.id, ammo=ammo.value,
        hits=hit.hits, criticals=hit.criticals, partial_cover=hit.partial_cover,
        target=number, rolls=rolls, failed=sum(1 for roll in rolls if roll.failed),
        immune_to=fired.value if ammo is not fired else None,
    )
    return record, dice


def _wounded(target: TrooperState, record: SaveRecord) -> TrooperState:
    ammo = Ammunition(record.ammo)
    if not inflicts_wounds(ammo) or record.failed == 0:
        return target  # E/M and Stun impose a State (Isolated, Stunned), not wounds
    extra = record.rolls[len(record.rolls) - record.criticals:] if record.criticals else ()
    outcome = apply_failed_saves(
        target.wounds, record.failed, target.profile.vita, ammo, target.condition,
        structure=target.profile.structure, failed_extra_saves=sum(1 for roll in extra if roll.failed),
        ignores_unconscious=incapacitation_skill(target.profile) is not None,
    )
    return _with_wounds(target, outcome.wounds, outcome.condition)


def _kept_in_the_fight(before: TrooperState, after: TrooperState) -> IncapacitationIgnored | None:
    """NWI / Dogged: the trooper just reached its Unconscious threshold and stays Normal
    (``incapacitation.py``)."""
    skill = incapacitation_skill(after.profile)
    reached = before.wounds < after.profile.vita == after.wounds
    if skill is None or not reached or after.condition is not Condition.NORMAL:
        return None
    return IncapacitationIgnored(after.id, skill.value)


def _isolated_by(target: TrooperState, record: SaveRecord) -> bool:
    return (isolates(Ammunition(record.ammo)) and record.failed > 0
            and not target.is_null and not target.isolated
            and not immune_to_state(target.profile, "isolated"))


def _immobilized_by(target: TrooperState, record: SaveRecord) -> bool:
    return (isolates(Ammunition(record.ammo)) and record.failed > 0 and not target.is_null
            and immobilized_by_em(target) and not target.immobilized_b
            and not immune_to_state(target.profile, "immobilized_b"))


def _stunned_by(target: TrooperState, record: SaveRecord) -> bool:
    """A failed save against Stun by a trooper not Null and not Stunned yet (States are
    not doubled: a second Stun in the same turn changes nothing)."""
    return (stuns(Ammunition(record.ammo)) and record.failed > 0 and not target.is_null
            and not target.stunned and not immune_to_state(target.profile, "stunned"))


def _with_wounds(target: TrooperState, wounds: int, condition: Condition) -> TrooperState:
    return replace(target, wounds=wounds, condition=condition)


def _prone(target: TrooperState) -> TrooperState:
    return replace(target, prone=True)
