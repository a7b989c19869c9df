"""Stun ammunition and the Stunned state (``combat/stunned.py``), and the States Phase that
cancels it (``orders/states_phase.py``).

DIGEST 7.6/10 ammunition: Stun -> Stunned (official N5 Stun Ammunition: one save per hit,
one more per Critical, Non-Lethal, the Guts Roll that follows fails). DIGEST 8's states
table: Stunned declares everything except Attacks, -3 to all its rolls except saves, not
Null; cancelled automatically in the States Phase of the turn it was caused. Seed 002: the
States Phase runs after the Orders Phase and before the End of the Turn, its checks cause
no AROs. The shipped Warden Officer (helion armies) carries the Stunner (Stun, BTS save).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.army_catalogue import load_weapons, sample_army
from server.rules.armies.skills import Dodge, Reset
from server.rules.armies.weapons import Weapon
from server.rules.combat.outcome import StunnedSet, Wounded
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.combat.stunned import stunned_to_cancel
from server.rules.combat.wounds import Condition
from server.rules.decision import Accepted, Rejected
from server.rules.events import (
    AroWindowOpened,
    Event,
    OrderResolved,
    OrdersCounted,
    PhaseStarted,
    StatesPhaseChecked,
    TurnEnded,
    TurnStarted,
)
from server.rules.ids import SPECTATOR, Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.support.games import decide as _decide
from tests.support.games import fold_effects as _fold
from tests.support.games import idle_out, play, shoot_and_resolve
from tests.support.scenarios import build_state

from .resolution_builders import RIFLE, RIFLE_BANDS, resolving, shoot, trooper

A, B = Side.A, Side.B
T = TrooperId
WARDEN, ENFORCER = "A-t1", "B-t3"
"""helion-vanguard's Warden Officer (BS 13, the Stunner) and vesper-raiders' Syndicate
Enforcer (BTS 0, WIP 13)."""
STUN_RIFLE = Weapon(WeaponId("test_stun_rifle"), "Stun Rifle (test)", RIFLE.kind, 3, 6, "Stun",
                    RIFLE_BANDS, save_attribute="BTS")


def _armed(state: GameState, weapon: Weapon) -> GameState:
    """Both test armies carry ``weapon`` (``resolving`` builds them from ARSENAL)."""
    armies = {side: replace(army, arsenal=(*army.arsenal, weapon)) for side, army in state.armies.items()}
    return replace(state, armies=armies)


# --- Stun ammunition: saves, no wounds, Stunned ------------------------------------------------


def test_digest_10_stun_ammunition_failed_save_makes_the_target_stunned_not_wounded() -> None:
    """One save per hit against the weapon's attribute (BTS 3 + PS 6 = 9, not halved); a
    failed one makes the target Stunned in this Player Turn and deals no wound."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, bts=3, arm=5)
    state = _armed(resolving(shooter, [shoot(STUN_RIFLE, (target, 2))], [target],
                             faces=[4, 5, 20, 3, 1]), STUN_RIFLE)
    outcome, _ = resolve_order(state)
    (save,) = outcome.saves
    assert save.ammo == "Stun" and save.target == 9 and len(save.rolls) == 2 and save.failed == 1
    assert StunnedSet(target.id, STUN_RIFLE.id) in outcome.effects
    assert not any(isinstance(e, Wounded) for e in outcome.effects)
    after = _fold(state, outcome.effects).trooper(target.id)
    assert after.stunned and after.stunned_in == (1, 1)
    assert after.wounds == 0 and after.condition is Condition.NORMAL and not after.is_null
    # Every save made: not Stunned.
    saved = _armed(resolving(shooter, [shoot(STUN_RIFLE, (target, 2))], [target],
                             faces=[4, 5, 2, 3, 1]), STUN_RIFLE)
    outcome, _ = resolve_order(saved)
    assert not any(isinstance(e, StunnedSet) for e in outcome.effects)


def test_digest_10_stun_ammunition_critical_adds_one_save() -> None:
    """A Critical forces one more save (two for the one hit)."""
    shooter = trooper("s", A, (10, 10), 0.0, bs=12)
    target = trooper("t", B, (16, 10), 180.0, bts=0)
    # SV 12 + 3 (range band 8") = 15: a 15 is a Critical.
    state = _armed(resolving(shooter, [shoot(STUN_RIFLE, (target, 1))], [target],
                             faces=[15, 2, 3, 1]), STUN_RIFLE)
    outcome, _ = resolve_order(state)
    (save,) = outcome.saves
    assert save.criticals == 1 and len(save.rolls) == 2 and save.failed == 0


def test_digest_10_stun_ammunition_failed_save_fails_the_guts_roll_without_a_die() -> None:
    """A trooper that failed a save against Stun fails its Guts Roll: no die is rolled."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, bts=0)
    state = _armed(resolving(shooter, [shoot(STUN_RIFLE, (target, 1))], [target],
                             faces=[4, 20]), STUN_RIFLE)
    outcome, _ = resolve_order(state)
    (_attack, guts) = outcome.rolls
    assert guts.skill == "guts" and guts.stun_failure and guts.dice == ()
    assert guts.successes + guts.criticals == 0
    assert guts.mods == (Mod("stunned", -3),)  # Stunned by then: its WIP shows the -3


# --- the Stunned state ---------------------------------------------------------------------


def test_digest_8_stunned_rolls_take_minus_3_except_saves() -> None:
    """A Stunned trooper's Dodge and Reset carry -3 among their MODs (a 10 no longer dodges
    at PH 11); its Saving Rolls do not change (ARM 1 + PS 7 = 8 either way)."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = replace(trooper("t", B, (16, 10), 180.0), stunned_in=(1, 1))
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], aros={target.id: Dodge()},
                      faces=[3, 10, 20])
    outcome, _ = resolve_order(state)
    dodge = next(r for r in outcome.rolls if r.skill == "dodge")
    assert Mod("stunned", -3) in dodge.mods and dodge.success_value == 11 - 3
    assert dodge.successes + dodge.criticals == 0
    (save,) = outcome.saves
    assert save.target == 1 + 7
    reset = resolving(replace(target, targeted=True), [Reset()], faces=[1])
    (roll,) = resolve_order(reset)[0].rolls
    assert roll.mods == (Mod("targeted", -3), Mod("stunned", -3))
    assert roll.success_value == 13 - 6


def _stunned_game(**troopers: Any) -> GameState:
    placements = {WARDEN: [20, 20, 90], ENFORCER: [20, 30, 270], "B-t1": [1, 47, 90]}
    return build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                        "troopers": troopers})


def test_digest_8_stunned_trooper_may_not_declare_attacks_in_its_turn() -> None:
    """Active: a BS Attack is refused with ``stunned``; options offer no attack, still a
    Dodge, a Reset, a move."""
    state = _stunned_game(**{WARDEN: {"stunned_in": [1, 1]}})
    state, _ = play(state, A, {"type": "activate", "trooper": WARDEN, "order": "regular"})
    shot = {"type": "bs_attack", "weapon": "breacher_rifle",
            "targets": [{"trooper": ENFORCER, "burst": 3}]}
    decision = _decide(state, A, {"type": "declare_skill", "skill": shot})
    assert isinstance(decision, Rejected) and decision.code == "stunned"
    assert "Stunned" in decision.message
    skills = seat_options(state, A)["skills"]
    assert skills["bs_attack"] == {} and skills["firing_points"] == []
    assert skills["cc_attack"] == {} and skills["comms_attack"] == {}
    assert skills["dodge"] and skills["reset"] and "move" in skills["route_skills"]
    calm = state.with_trooper(replace(state.trooper(T(WARDEN)), stunned_in=None))
    assert isinstance(_decide(calm, A, {"type": "declare_skill", "skill": shot}), Accepted)


def test_digest_8_stunned_trooper_may_not_declare_attacks_in_aro() -> None:
    """ARO: a Stunned trooper that sees the active one may Dodge, not shoot (``stunned``)."""
    state = _stunned_game(**{ENFORCER: {"stunned_in": [1, 1]}})
    state, _ = play(state, A, {"type": "activate", "trooper": WARDEN, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill",
                               "skill": {"type": "move", "route": [[20, 20], [22, 20]]}})
    shot = {"type": "declare_aro", "trooper": ENFORCER,
            "skill": {"type": "bs_attack", "weapon": "punch_carbine",
                      "targets": [{"trooper": WARDEN, "burst": 1}]}}
    decision = _decide(state, B, shot)
    assert isinstance(decision, Rejected) and decision.code == "stunned"
    row = seat_options(state, B)["aros"][ENFORCER]
    assert row["bs_attack"] == [] and row["cc_attack"] == [] and row["dodge"] is True
    dodge = {"type": "declare_aro", "trooper": ENFORCER, "skill": {"type": "dodge"}}
    assert isinstance(_decide(state, B, dodge), Accepted)


def test_digest_8_stunned_is_not_null_and_brings_its_order() -> None:
    """Not Null: at the Order Count a Stunned trooper adds its Regular Order as before."""
    def count(**troopers: Any) -> OrdersCounted:
        state = _stunned_game(**troopers)
        state, events = play(state, A, c.EndTurn())
        assert state.trooper(T(ENFORCER)).stunned is bool(troopers)
        (counted,) = [e for e in events if isinstance(e, OrdersCounted)]
        return counted
    # B's Enforcer, Stunned (a hand-built state) in B's coming turn (1, 2), is not cancelled
    # by the end of A's turn: B's Order Count adds its Order as if it were not Stunned.
    assert count(**{ENFORCER: {"stunned_in": [1, 2]}}).pools == count().pools


# --- a played Stun shot, the views, the States Phase --------------------------------------------


def _stun_shot_in_play() -> tuple[GameState, OrderResolved]:
    """The Warden shoots the Enforcer (BTS 0: saves on 6 or less) with its Stunner: two hits,
    two failed saves; the Guts Roll fails without a die."""
    state = _stunned_game()
    state = replace(state, dice=replace(state.dice, injected=(1, 2, 20, 20)))
    return shoot_and_resolve(state, A, WARDEN, "stunner", ENFORCER, 2)


def test_digest_10_stun_ammunition_the_sample_warden_carries_the_stunner() -> None:
    stunner = load_weapons()[WeaponId("stunner")]
    assert stunner.ammo == "Stun" and stunner.save_attribute == "BTS"
    for army in ("helion-vanguard", "helion-c1-patrol"):
        (warden,) = [e for e in sample_army(army).entries if e.profile.id == "warden"]
        assert "stunner" in warden.profile.weapons


def test_digest_8_stunned_is_open_information_in_every_view() -> None:
    state, resolved = _stun_shot_in_play()
    target = state.trooper(T(ENFORCER))
    assert target.stunned_in == (1, 1) and target.wounds == 0
    assert resolved.outcome.saves[0].failed == 2
    for viewer in (A, B, SPECTATOR):
        (row,) = [t for t in view_state(state, viewer)["troopers"] if t["id"] == ENFORCER]
        assert row["stunned_in"] == [1, 1], viewer
        plain = view_event(resolved, viewer, state)
        assert plain is not None
        assert {"type": "stunned_set", "trooper": ENFORCER, "weapon": "stunner"} in \
            plain["outcome"]["effects"]


def _types(events: tuple[Event, ...]) -> list[type]:
    return [type(e) for e in events]


def test_seed_002_states_phase_runs_between_the_orders_phase_and_the_end_of_the_turn() -> None:
    """Seed 002's Player Turn: ... Orders Phase - States Phase - End of the Turn. Ending the
    Orders Phase starts the States Phase; its check cancels the Stunned caused in this turn
    (no roll, no ARO window); then the turn ends and the next one starts."""
    state, _ = _stun_shot_in_play()
    state, events = play(state, A, c.EndTurn())
    kinds = _types(events)
    assert kinds[:4] == [PhaseStarted, StatesPhaseChecked, TurnEnded, TurnStarted]
    assert events[0] == PhaseStarted(Phase.STATES)
    assert events[1] == StatesPhaseChecked(1, 1, stunned_cancelled=(T(ENFORCER),))
    assert not any(isinstance(e, AroWindowOpened | OrderResolved) for e in events)
    assert state.dice.injected == ()  # every injected face was used by the shot: none here
    assert not state.trooper(T(ENFORCER)).stunned
    for viewer in (A, B, SPECTATOR):
        plain = view_event(events[1], viewer, state)
        assert plain == {"type": "states_phase_checked", "round": 1, "turn": 1,
                         "stunned_cancelled": [ENFORCER], "dogged_dead": [],
                         "zones_removed": 0}, viewer


def test_seed_002_states_phase_also_ends_a_turn_whose_orders_ran_out() -> None:
    """With every Order spent, the player's ``end_turn`` (the game waits for it: a private
    Order may remain) starts the States Phase, and with nothing to check it emits no check
    event: Orders Phase, States Phase, End of the Turn."""
    state = _stunned_game()
    orders = [o for o in ("regular", "lieutenant", "tactical") if o in
              seat_options(state, A)["activate"][WARDEN]]
    assert len(orders) == 3
    for order in orders:
        state, _ = play(state, A, {"type": "activate", "trooper": WARDEN, "order": order})
        state, produced = idle_out(state)
    assert state.phase is Phase.ORDERS and not any(isinstance(e, PhaseStarted) for e in produced)
    state, ended = play(state, A, {"type": "end_turn"})
    events = tuple(ended)
    kinds = _types(events)
    start = kinds.index(PhaseStarted)
    assert kinds[start:start + 3] == [PhaseStarted, TurnEnded, TurnStarted]
    assert events[start] == PhaseStarted(Phase.STATES)
    assert any(isinstance(e, OrderResolved) for e in produced)


def test_seed_002_states_phase_cancels_only_the_stunned_caused_in_this_turn() -> None:
    """The turn is recorded: a Stunned from another Player Turn is not this turn's to
    cancel (a state only built by hand: every Stunned ends in its own turn's States Phase)."""
    state = _stunned_game(**{ENFORCER: {"stunned_in": [1, 1]}, WARDEN: {"stunned_in": [1, 2]}})
    assert stunned_to_cancel(state) == (T(ENFORCER),)
    state, events = play(state, A, c.EndTurn())
    (checked,) = [e for e in events if isinstance(e, StatesPhaseChecked)]
    assert checked.stunned_cancelled == (T(ENFORCER),)
    assert state.trooper(T(WARDEN)).stunned and not state.trooper(T(ENFORCER)).stunned


def test_seed_002_states_phase_replaying_the_events_rebuilds_the_state() -> None:
    """The States Phase is events only: applying them again gives the same state."""
    state, _ = _stun_shot_in_play()
    after, events = play(state, A, c.EndTurn())
    assert engine.apply_all(state, events) == after
