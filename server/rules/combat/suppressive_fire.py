"""Suppressive Fire: the Long Skill and the State (DIGEST 8, 9; N5; not in CodeOne).

A trooper carrying a weapon with the Suppressive Fire Trait (``weapons.json`` ``traits``)
declares the ``suppressive_fire`` skill as its Entire Order (here the N5 Long Skill), or its
player puts it into the State with the Strategic use of a Command Token
(``orders/command_tokens.py``). The State is a marker on the trooper, open to everyone
(``TrooperState.suppressive_fire``). While in it:

* an ARO BS Attack with a Suppressive Fire weapon uses the SF Mode profile: Burst 3 against
  one single target, range bands 0-8" 0, 8-16" 0, 16-24" -3, nothing beyond 24" (the
  weapon's PS, ammunition and other Traits are kept) (``aro_weapon``, ``aro_burst``);
* enemies apply -3 to their Face to Face Rolls against it within 24" (``with_f2f_mods``):
  measured where its SF Mode shot is taken, so exactly the rolls opposed to an SF shot that
  is within range.

The State starts when the skill is declared (its Activation) and ends, as the official
Suppressive Fire State page lists, when the trooper declares an Order (activates), declares
any ARO but a BS Attack with a Suppressive Fire weapon, fails a Guts Roll, is Engaged,
Isolated, Immobilized or in a Null state, is in Retreat!, or its army enters Loss of
Lieutenant (``after_event``, called by ``apply`` after every event: a replay folds the same
events into the same States; ``changes`` names each such change, and ``engine.decide`` logs
a ``suppressive_fire_changed`` event after the event that made it, for the log and for
clients that fold events). Not modelled: joining a Fireteam (there are no Fireteams here).
See docs/rules-decisions/README.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..armies.skills import BsAttack, Skill, SuppressiveFire
from ..armies.weapons import RangeBand, Weapon
from ..decision import require
from ..events import (
    AroDeclared,
    CommandTokenSpent,
    Event,
    LossOfLieutenant,
    OrderResolved,
    OrderSpent,
    RetreatDeclared,
    SkillDeclared,
    SuppressiveFireChanged,
)
from ..evolve import replace
from ..ids import Side, TrooperId, WeaponId
from ..reasons import Reason
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.engaged import is_engaged
from .plan import PlannedRoll
from .rolls import Mod
from .total_reaction import reaction_burst

TRAIT = "suppressive_fire"
SF_BURST = 3
"""Burst of the SF Mode profile, in ARO (DIGEST 6.1: "Suppressive Fire state B3")."""
SF_RANGES: tuple[RangeBand, ...] = (RangeBand(8.0, 0), RangeBand(16.0, 0), RangeBand(24.0, -3))
"""The SF Mode profile's range bands: 0-16" +0, 16-24" -3, nothing beyond 24"."""
SF_RANGE = 24.0
SF_MOD = -3
"""To enemies' Face to Face Rolls against a trooper in Suppressive Fire within 24"."""


def has_trait(weapon: Weapon) -> bool:
    return TRAIT in weapon.traits


def sf_weapons(state: GameState, trooper: TrooperState) -> tuple[Weapon, ...]:
    """The trooper's weapons (its profile's, from its army's arsenal) with the Suppressive
    Fire Trait."""
    army = state.armies[trooper.side]
    return tuple(w for w in (army.weapon(WeaponId(i)) for i in trooper.profile.weapons)
                 if has_trait(w))


def cancelled_by_state(state: GameState, trooper: TrooperState) -> bool:
    """A State or situation that ends Suppressive Fire (and so forbids entering it): Null,
    not on the table, Isolated, Immobilized, Engaged, Retreat!, Loss of Lieutenant."""
    return (not trooper.can_act or trooper.isolated or trooper.immobilized_b
            or trooper.side in state.retreat or trooper.side in state.loss_of_lieutenant
            or is_engaged(state, trooper))


def check_may_enter(state: GameState, trooper: TrooperState) -> None:
    """The Requirements of Suppressive Fire (the skill, or the Command Token use): the
    ruleset has it, the trooper carries a Suppressive Fire weapon, and nothing would cancel
    the State at once."""
    require(options(state.ruleset).suppressive_fire, Reason.NOT_ALLOWED_BY_RULESET,
            "This ruleset has no Suppressive Fire.")
    name = trooper.profile.name
    require(bool(sf_weapons(state, trooper)), Reason.SKILL_NOT_ALLOWED,
            f"{name} carries no weapon with the Suppressive Fire Trait.")
    require(not cancelled_by_state(state, trooper), Reason.SKILL_NOT_ALLOWED,
            f"{name} cannot hold Suppressive Fire now (Engaged, Isolated, Immobilized, "
            "Retreat! or Loss of Lieutenant would cancel it at once).")


def in_sf_mode(trooper: TrooperState, weapon: Weapon) -> bool:
    """Whether an ARO BS Attack of ``trooper`` with ``weapon`` is made in SF Mode."""
    return trooper.suppressive_fire and has_trait(weapon)


def aro_burst(trooper: TrooperState, weapon: Weapon) -> int:
    """The Burst an ARO BS Attack with ``weapon`` declares: 3 in SF Mode (or the weapon's
    own with Total Reaction, if higher), else 1 (the weapon's own with Total Reaction:
    ``total_reaction.py``)."""
    reaction = reaction_burst(trooper, weapon)
    return max(SF_BURST, reaction) if in_sf_mode(trooper, weapon) else reaction


def aro_weapon(trooper: TrooperState, weapon: Weapon) -> Weapon:
    """The profile an ARO shot uses: the SF Mode (Burst 3, SF ranges; PS, ammunition and
    Traits kept) in Suppressive Fire with a Suppressive Fire weapon, else the weapon."""
    if not in_sf_mode(trooper, weapon):
        return weapon
    return replace(weapon, burst=SF_BURST, ranges=SF_RANGES)


def keeps_state(state: GameState, trooper: TrooperState, aro: Skill) -> bool:
    """Whether declaring ``aro`` keeps the trooper in Suppressive Fire: only a BS Attack with
    a Suppressive Fire weapon (in SF Mode) does."""
    if not isinstance(aro, BsAttack):
        return False
    return has_trait(state.armies[trooper.side].weapon(aro.weapon))


# --- the -3 to enemies' Face to Face Rolls --------------------------------------------------


def with_f2f_mods(state: GameState, rolls: Sequence[PlannedRoll],
                  opponents: Sequence[Sequence[int]]) -> tuple[PlannedRoll, ...]:
    """``rolls`` with -3 added to every enemy roll Face to Face against the SF Mode BS
    Attack of a trooper in Suppressive Fire that is within 24" (its shot not out of range:
    the SF Mode has no band beyond 24"). ``opponents[i]`` are the rolls ``rolls[i]`` is Face
    to Face with (``attacks.face_to_face_opponents``)."""
    suppressing = {
        i for i, roll in enumerate(rolls)
        if roll.skill == "bs_attack" and not roll.active and not roll.out_of_range
        and _suppressing(state, roll.trooper)
    }
    if not suppressing:
        return tuple(rolls)
    return tuple(
        replace(roll, mods=(*roll.mods, Mod("suppressive_fire", SF_MOD)))
        if any(j in suppressing for j in opponents[i]) else roll
        for i, roll in enumerate(rolls))


def _suppressing(state: GameState, trooper_id: TrooperId) -> bool:
    trooper = state.troopers.get(trooper_id)
    return trooper is not None and trooper.suppressive_fire


# --- entering and leaving the State (after each event) --------------------------------------


def entering(state: GameState, trooper_id: TrooperId) -> tuple[TrooperId, ...]:
    """A trooper put into Suppressive Fire by a Command Token, with those of its Peripherals
    that may enter it too (the Strategic use: "along with their Peripherals")."""
    trooper = state.trooper(trooper_id)
    ids = {p.id for p in state.armies[trooper.side].peripherals_of(trooper.entry.id)}
    found = [t.id for t in state.troopers_of(trooper.side)
             if t.entry.id in ids and sf_weapons(state, t) and not cancelled_by_state(state, t)]
    return (trooper_id, *found)


def set_state(state: GameState, troopers: Iterable[TrooperId], value: bool) -> GameState:
    changed = {t: replace(state.trooper(t), suppressive_fire=value) for t in troopers
               if state.trooper(t).suppressive_fire is not value}
    return replace(state, troopers={**state.troopers, **changed}) if changed else state


def after_event(state: GameState, event: object) -> GameState:
    """The Suppressive Fire States after ``event`` has been applied (``apply``)."""
    if isinstance(event, SuppressiveFireChanged):  # said again for the log: already so
        return set_state(state, (event.trooper,), event.active)
    if isinstance(event, SkillDeclared):
        declared = [(event.trooper, event.skill), *((p.trooper, p.skill) for p in event.peripherals)]
        state = set_state(state, [t for t, skill in declared if isinstance(skill, SuppressiveFire)],
                          True)
    elif isinstance(event, CommandTokenSpent) and event.use == TRAIT and event.trooper is not None:
        state = set_state(state, entering(state, event.trooper), True)
    holding = [t for t in state.troopers.values() if t.suppressive_fire]
    if not holding:
        return state
    return set_state(state, [t.id for t in holding if end_reason(state, t, event)], False)


def end_reason(state: GameState, trooper: TrooperState, event: object) -> str | None:
    """Why ``event`` (just applied to ``state``) ends ``trooper``'s Suppressive Fire, or None."""
    if isinstance(event, OrderSpent) and trooper.id in (event.trooper, *event.peripherals):
        return "declared_order"  # a joint or Coordinated Order too
    if (isinstance(event, AroDeclared) and event.trooper == trooper.id
            and not keeps_state(state, trooper, event.skill)):
        return "other_aro"
    if isinstance(event, LossOfLieutenant) and event.side is trooper.side:
        return "loss_of_lieutenant"
    if isinstance(event, RetreatDeclared) and event.side is trooper.side:
        return "retreat"
    if isinstance(event, OrderResolved) and any(
            r.trooper == trooper.id and r.skill == "guts" and r.successes + r.criticals == 0
            for r in event.outcome.rolls):
        return "guts_failed"
    return _state_reason(state, trooper)


def _state_reason(state: GameState, trooper: TrooperState) -> str | None:
    if not trooper.can_act:
        return "null"
    if trooper.isolated:
        return "isolated"
    if trooper.immobilized_b:
        return "immobilized"
    if trooper.side in state.retreat:
        return "retreat"
    if trooper.side in state.loss_of_lieutenant:
        return "loss_of_lieutenant"
    if is_engaged(state, trooper):
        return "engaged"
    return None


def may_enter(event: Event) -> bool:
    """Whether ``event`` may put a trooper into Suppressive Fire (``after_event``): no other
    event starts the State."""
    return ((isinstance(event, SkillDeclared)
             and any(isinstance(s, SuppressiveFire)
                     for s in (event.skill, *(p.skill for p in event.peripherals))))
            or (isinstance(event, CommandTokenSpent) and event.use == TRAIT))


def holding_any(state: GameState) -> bool:
    """Some trooper is in Suppressive Fire."""
    for trooper in state.troopers.values():  # noqa: SIM110 (once per command: no generator)
        if trooper.suppressive_fire:
            return True
    return False


def changes(before: GameState, after: GameState, event: Event) -> list[Event]:
    """A ``SuppressiveFireChanged`` for each trooper ``event`` put into Suppressive Fire or
    took out of it (``after`` is ``apply(before, event)``), to follow ``event`` in the log:
    the log says what ``apply`` derives (``engine.decide``, as it folds each event it
    produces). Applying them changes nothing more. Only worth asking while a trooper holds
    the State or the event ``may_enter`` it."""
    if after.troopers is before.troopers:
        return []
    was = before.troopers
    result: list[Event] = []
    for trooper in after.troopers.values():
        previous = was.get(trooper.id)
        if (previous is not None and previous.suppressive_fire) is trooper.suppressive_fire:
            continue
        if trooper.suppressive_fire:
            reason = "skill" if isinstance(event, SkillDeclared) else "command_token"
        else:
            reason = end_reason(after, trooper, event) or "cancelled"
        result.append(SuppressiveFireChanged(trooper.id, trooper.suppressive_fire, reason))
    return result


def holders(state: GameState, side: Side) -> tuple[TrooperId, ...]:
    """``side``'s troopers in Suppressive Fire State."""
    return tuple(t.id for t in state.troopers_of(side) if t.suppressive_fire)
