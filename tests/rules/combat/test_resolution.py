"""Resolution of whole Orders with injected dice (seed 000 steps 5-6; DIGEST 5-7, 9, 12, 13)."""

from __future__ import annotations

import math

from server.rules.armies.skills import CcAttack, Discover, Dodge, Move, Reset
from server.rules.combat.outcome import (
    BecameIdle,
    DiscoverFailed,
    Moved,
    Revealed,
    TargetedCleared,
    Turned,
    WeaponUsed,
    WentProne,
    Wounded,
)
from server.rules.combat.resolution import resolve_order
from server.rules.combat.wounds import Condition
from server.rules.ids import Side, TerrainId
from server.rules.ruleset import Ruleset
from server.rules.state import Eligibility
from server.rules.table.terrain import TerrainPiece

from .resolution_builders import (
    DA_RIFLE,
    GRENADE,
    KNIFE,
    RIFLE,
    resolving,
    shoot,
    trooper,
)

A, B = Side.A, Side.B


def test_shot_and_counter_shot_is_face_to_face_and_a_critical_wins() -> None:
    """7.4: BS Attack vs a BS Attack ARO at it is Face to Face; the crit cancels the ARO."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      aros={target.id: shoot(RIFLE, (shooter, 1))},
                      faces=[5, 15, 17, 11, 12, 4])
    outcome, dice = resolve_order(state)
    active, reactive = outcome.rolls
    assert (active.success_value, reactive.success_value) == (15, 15)  # 12 + 3 range
    assert active.opposed_by == (1,) and reactive.opposed_by == (0,)
    assert active.cancelled == (True, False, False)
    assert (active.criticals, active.successes) == (1, 0)
    assert reactive.cancelled == (True,) and reactive.successes == 0
    (save,) = outcome.saves
    assert save.trooper == target.id and save.criticals == 1 and save.target == 8
    assert [r.face for r in save.rolls] == [12, 4] and save.failed == 1
    assert Wounded(target.id, 1, Condition.UNCONSCIOUS) in outcome.effects
    assert dice.injected == ()


def test_aro_against_a_trooper_not_attacking_it_is_a_normal_roll() -> None:
    """7.4: the active trooper only Moves, so the ARO is a Normal Roll and hits on 9."""
    runner = trooper("r", A, (10, 10), 0.0)
    watcher = trooper("w", B, (16, 10), 180.0)
    state = resolving(runner, [Move(route=((10, 10),))], [watcher],
                      aros={watcher.id: shoot(RIFLE, (runner, 1))}, faces=[9, 3, 20])
    outcome, _ = resolve_order(state)
    roll, guts = outcome.rolls
    assert roll.opposed_by == () and roll.successes == 1
    assert guts.skill == "guts" and guts.trooper == runner.id
    assert outcome.saves[0].trooper == runner.id


def test_split_burst_is_face_to_face_only_with_the_target_that_shoots_back() -> None:
    """7.5/7.4: each target's share of the Burst is opposed only by that target's ARO."""
    shooter = trooper("s", A, (10, 10), 0.0)
    first = trooper("f", B, (16, 10), 180.0)
    second = trooper("g", B, (16, 12), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (first, 2), (second, 1))], [first, second],
                      aros={first.id: shoot(RIFLE, (shooter, 1))},
                      faces=[14, 2, 20, 10] + [20] * 6)
    outcome, _ = resolve_order(state)
    to_first, to_second, back = outcome.rolls
    assert (to_first.burst, to_second.burst, back.burst) == (2, 1, 1)
    assert to_first.opposed_by == (2,) and to_second.opposed_by == () and back.opposed_by == (0,)
    assert to_first.successes == 1 and to_first.cancelled == (False, True)
    assert back.cancelled == (True,)


def test_reset_is_a_normal_roll_that_clears_targeted_but_does_not_stop_the_attack() -> None:
    """6.3: Reset is a Normal WIP roll; success cancels Targeted; the BS Attack still hits."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, targeted=True)
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target],
                      aros={target.id: Reset()}, faces=[4, 6, 2])
    outcome, _ = resolve_order(state)
    attack, reset, _guts = outcome.rolls
    assert attack.opposed_by == () and reset.opposed_by == ()
    assert attack.success_value == 18  # 12 + 3 range + 3 Targeted
    assert reset.success_value == 10 and reset.successes == 1  # WIP 13 - 3 Targeted
    assert TargetedCleared(target.id) in outcome.effects
    assert outcome.saves[0].failed == 0


def test_cc_attack_in_base_contact_is_face_to_face_with_a_cc_aro() -> None:
    """9 CC Attack: needs Silhouette contact; CC vs CC is Face to Face."""
    attacker = trooper("a", A, (10, 10), 0.0)
    defender = trooper("d", B, (10.984, 10), 180.0)
    state = resolving(attacker, [CcAttack(weapon=KNIFE.id, target=defender.id)], [defender],
                      aros={defender.id: CcAttack(weapon=KNIFE.id, target=attacker.id)},
                      faces=[12, 10, 15])
    outcome, _ = resolve_order(state)
    attack, parry = outcome.rolls
    assert attack.attribute == "CC" and attack.opposed_by == (1,)
    assert attack.successes == 1 and parry.cancelled == (True,)
    assert outcome.saves[0].trooper == defender.id


def test_cc_attack_out_of_contact_becomes_idle() -> None:
    """5.1 step 6: a failed Requirement (no base contact) turns the skill into Idle."""
    attacker = trooper("a", A, (10, 10), 0.0)
    defender = trooper("d", B, (13, 10), 180.0)
    state = resolving(attacker, [CcAttack(weapon=KNIFE.id, target=defender.id)], [defender])
    outcome, dice = resolve_order(state)
    assert outcome.rolls == ()
    assert outcome.effects == (BecameIdle(attacker.id, "cc_attack", "not_in_base_contact", defender.id),)
    assert dice == state.dice


def test_failed_requirement_still_spends_the_disposable_use() -> None:
    """5.1 step 6: a template with no LoF to its target is Idle, the Disposable use is spent."""
    wall = TerrainPiece(TerrainId("wall"), ((12, 5), (13, 5), (13, 15), (12, 15)), 5.0)
    thrower = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (15, 10), 180.0)
    state = resolving(thrower, [shoot(GRENADE, (target, 1))], [target], terrain=[wall])
    outcome, _ = resolve_order(state)
    assert WeaponUsed(thrower.id, GRENADE.id, 1) in outcome.effects
    assert BecameIdle(thrower.id, "bs_attack", "no_line_of_fire", target.id) in outcome.effects
    assert outcome.saves == ()


def test_failed_requirement_still_reveals_the_marker() -> None:
    """5.1 step 6 / DIGEST 9 Idle: a Camouflage Marker whose declared attack fails its
    Requirement at resolution performs Idle, but the declaration revealed it (and spent the
    Disposable use)."""
    wall = TerrainPiece(TerrainId("wall"), ((12, 5), (13, 5), (13, 15), (12, 15)), 5.0)
    marker = trooper("m", A, (10, 10), 0.0, marker=True, camouflage=3, mimetism=3)
    target = trooper("t", B, (15, 10), 180.0)
    state = resolving(marker, [shoot(GRENADE, (target, 1))], [target], terrain=[wall])
    outcome, _ = resolve_order(state)
    assert outcome.effects == (
        WeaponUsed(marker.id, GRENADE.id, 1),
        Revealed(marker.id, "declared_bs_attack"),
        BecameIdle(marker.id, "bs_attack", "no_line_of_fire", target.id),
    )


def test_invalid_aro_becomes_idle_at_the_aro_check() -> None:
    """[N5.2] ARO Check: a trooper that was never eligible performs Idle instead."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [Move(route=((10, 10),))], [target],
                      aros={target.id: shoot(RIFLE, (shooter, 1))}, eligible={})
    outcome, _ = resolve_order(state)
    assert outcome.rolls == ()
    assert outcome.effects == (BecameIdle(target.id, "bs_attack", "aro_not_valid", shooter.id, aro=True),)


def test_zone_of_control_only_aro_may_not_shoot() -> None:
    """6.1: with ZoC but no LoF a trooper may only Dodge or Reset."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 0.0)
    zoc = {target.id: Eligibility(target.id, line_of_fire=False, zone_of_control=True)}
    state = resolving(shooter, [Move(route=((10, 10),))], [target],
                      aros={target.id: shoot(RIFLE, (shooter, 1))}, eligible=zoc)
    outcome, _ = resolve_order(state)
    assert outcome.effects == (BecameIdle(target.id, "bs_attack", "zone_of_control_only", shooter.id,
                                              aro=True),)


def test_wounds_take_a_trooper_to_unconscious_then_dead_in_one_order() -> None:
    """7.7: wounds == VITA -> Unconscious, more -> Dead, hit after hit in the same Order."""
    runner = trooper("r", A, (10, 10), 0.0, arm=2)
    left = trooper("l", B, (16, 9), 180.0)
    right = trooper("m", B, (16, 11), 180.0)
    aro = {left.id: shoot(DA_RIFLE, (runner, 1)), right.id: shoot(DA_RIFLE, (runner, 1))}
    # ARO rolls 3 and 4 hit (Normal Rolls); saves at SV 8 (ARM 2 + PS 6): 9 fails, 1 passes;
    # then 2 passes, 15 fails.
    state = resolving(runner, [Move(route=((10, 10),))], [left, right], aros=aro,
                      faces=[3, 4, 9, 1, 2, 15])
    outcome, _ = resolve_order(state)
    wounded = [e for e in outcome.effects if isinstance(e, Wounded)]
    assert wounded == [Wounded(runner.id, 1, Condition.UNCONSCIOUS),
                       Wounded(runner.id, 2, Condition.DEAD)]
    assert WentProne(runner.id, "unconscious") in outcome.effects
    assert [s.failed for s in outcome.saves] == [1, 1]


def test_discover_then_shoot_a_camouflage_marker() -> None:
    """12: Discover + BS Attack in one Order; the attack resolves because Discover succeeded."""
    hunter = trooper("h", A, (10, 10), 0.0)
    marker = trooper("c", B, (16, 10), 180.0, marker=True, mimetism=3, camouflage=3)
    state = resolving(hunter, [Discover(target=marker.id), shoot(RIFLE, (marker, 3))],
                      [marker], faces=[7, 2, 20, 20, 19])
    outcome, _ = resolve_order(state)
    discover, attack = outcome.rolls
    assert discover.skill == "discover" and discover.success_value == 13  # WIP 13 +3 -3
    assert attack.success_value == 12  # BS 12 + 3 range - 3 Mimetism
    assert Revealed(marker.id, "discovered") in outcome.effects
    assert outcome.saves[0].trooper == marker.id


def test_failed_discover_turns_the_attack_on_the_marker_into_idle() -> None:
    """12: no Attack on a Camouflaged trooper unless it was Discovered first."""
    hunter = trooper("h", A, (10, 10), 0.0)
    marker = trooper("c", B, (16, 10), 180.0, marker=True, mimetism=3, camouflage=3)
    state = resolving(hunter, [Discover(target=marker.id), shoot(RIFLE, (marker, 3))],
                      [marker], faces=[18])
    outcome, dice = resolve_order(state)
    assert len(outcome.rolls) == 1
    assert DiscoverFailed(hunter.id, marker.id) in outcome.effects
    assert BecameIdle(hunter.id, "bs_attack", "target_not_discovered", marker.id) in outcome.effects
    assert dice.injected == () and dice.cursor == 0


def test_marker_revealed_by_its_own_attack_aro() -> None:
    """12: a marker declaring an Attack is revealed, so it may be shot without Discover."""
    shooter = trooper("s", A, (10, 10), 0.0)
    marker = trooper("c", B, (16, 10), 180.0, marker=True, mimetism=3, camouflage=3)
    state = resolving(shooter, [shoot(RIFLE, (marker, 1))], [marker],
                      aros={marker.id: shoot(RIFLE, (shooter, 1))}, faces=[20, 20])
    outcome, _ = resolve_order(state)
    assert outcome.effects[0] == Revealed(marker.id, "declared_bs_attack")
    assert outcome.rolls[0].opposed_by == (1,)


def test_active_dodge_is_one_roll_against_every_attack() -> None:
    """6.3: a Dodge is one PH roll opposed to all the attacks against its trooper."""
    dodger = trooper("d", A, (10, 10), 0.0)
    one = trooper("o", B, (16, 9), 180.0)
    two = trooper("p", B, (16, 11), 180.0)
    state = resolving(dodger, [Move(route=((10, 10),)), Dodge(route=((10, 10), (10, 8)))],
                      [one, two], aros={one.id: shoot(RIFLE, (dodger, 1)),
                                        two.id: shoot(RIFLE, (dodger, 1))},
                      faces=[10, 6, 12])
    outcome, _ = resolve_order(state)
    dodge, first, second = outcome.rolls
    assert dodge.opposed_by == (1, 2)
    assert dodge.cancelled == (True,)  # the 12 beats the 10
    assert first.cancelled == (True,) and second.successes == 1
    assert not any(isinstance(e, Moved) for e in outcome.effects)


def test_alert_turns_an_attacked_trooper_that_did_not_react() -> None:
    """9 Alert!: a reactive trooper attacked without declaring an ARO turns to its attacker."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 0.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target], faces=[20, 20, 20])
    outcome, _ = resolve_order(state)
    assert outcome.effects == (Turned(target.id, 180.0, "alert"),)


def test_alert_also_turns_a_trooper_with_an_attacked_ally_in_its_zone_of_control() -> None:
    """9 Alert!: "which (or an ally in its ZoC) was targeted by an Attack" -- the ally within
    8 inches turns to the attacker too; one farther away, and the attacker's own side, do not."""
    shooter = trooper("s", A, (10, 10), 0.0)
    friend = trooper("f", A, (10, 14), 90.0)
    target = trooper("t", B, (16, 10), 0.0)
    near = trooper("n", B, (20, 16), 90.0)  # 7.2" from t: in its Zone of Control
    far = trooper("x", B, (40, 10), 90.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [friend, target, near, far],
                      faces=[20, 20, 20])
    outcome, _ = resolve_order(state)
    turned = {effect.trooper: effect.facing for effect in outcome.effects
              if isinstance(effect, Turned)}
    assert set(turned) == {target.id, near.id}
    assert turned[target.id] == 180.0
    assert round(turned[near.id]) == round(math.degrees(math.atan2(10 - 16, 10 - 20)) % 360)


def test_codeone_has_no_guts_rolls() -> None:
    """14: CodeOne does not use Guts Rolls."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0, arm=5)
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target],
                      aros={target.id: Reset()}, faces=[1, 20, 20], ruleset=Ruleset.CODEONE)
    outcome, _ = resolve_order(state)
    assert [r.skill for r in outcome.rolls] == ["bs_attack", "reset"]
    assert outcome.saves[0].failed == 0  # N4 convention: 20 > Attack Damage 8 saves


def test_resolution_is_pure_and_deterministic() -> None:
    """Same state, same outcome; the input state is left unchanged."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      aros={target.id: shoot(RIFLE, (shooter, 1))})
    assert resolve_order(state) == resolve_order(state)
    assert state.trooper(target.id).wounds == 0
