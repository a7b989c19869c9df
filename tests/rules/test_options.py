"""seat_options: the choices offered to a seat are exactly those the rules core accepts
(activations, skill combinations per the Structure of an Order, AROs from LoF or ZoC only)."""

from __future__ import annotations

from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted
from server.rules.ids import Side
from server.rules.options import seat_options
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

A1 = "A-t5"  # Lancer Line Trooper: line_rifle B3, sidearm
B_SHOOTER, B_AWAY, B_ZOC = "B-t3", "B-t4", "B-t6"
PLACEMENTS: dict[str, Any] = {
    A1: (22.5, 4.0, 90.0),
    B_SHOOTER: (22.5, 28.0, 270.0),  # sees A1's column
    B_AWAY: (1.5, 30.0, 90.0),  # faces away
    "A-t1": (3.5, 1.5, 90.0),  # Lieutenants, out of the way
    "B-t1": (3.5, 30.5, 90.0),
}


def accepted(state: Any, side: Side, body: dict[str, Any]) -> bool:
    return isinstance(engine.decide(state, side, c.parse_command(body)), Accepted)


def activated(**extra: Any) -> Any:
    state = skirmish({**PLACEMENTS, **extra})
    state, _ = play(state, Side.A, {"type": "activate", "trooper": A1, "order": "regular"})
    return state


def test_activations_are_the_order_types_the_rules_core_accepts() -> None:
    """DIGEST 3.1: the Order types and who may spend them."""
    state = skirmish(PLACEMENTS)
    options = seat_options(state, Side.A)
    assert options["activate"][A1] == ["regular"]
    assert "lieutenant" in options["activate"]["A-t1"]
    for trooper, kinds in options["activate"].items():
        for kind in ("regular", "irregular", "lieutenant", "tactical", "impetuous"):
            legal = accepted(state, Side.A, {"type": "activate", "trooper": trooper, "order": kind})
            assert legal == (kind in kinds), (trooper, kind)
    assert options["end_turn"] is True
    assert options["skills"] is None
    # The reactive player has nothing to activate and may not end A's turn.
    other = seat_options(state, Side.B)
    assert other["activate"] == {} and other["end_turn"] is False


def test_first_skill_offers_every_structure_and_attacks_with_legal_targets_only() -> None:
    """DIGEST 4.1: the legal skill combinations of an Order."""
    state = activated()
    skills = seat_options(state, Side.A)["skills"]
    assert skills["index"] == 1
    assert set(skills["route_skills"]) == {"move", "cautious_move", "jump", "climb"}
    rifle = skills["bs_attack"]["line_rifle"]
    assert rifle["burst"] == 3 and B_SHOOTER in rifle["targets"]
    for target in rifle["targets"]:
        assert accepted(state, Side.A, {"type": "declare_skill", "skill": {
            "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": target, "burst": 3}]}})
    assert skills["cc_attack"] == {}  # nobody in base contact


def test_second_skill_after_a_short_skill_is_a_movement_only() -> None:
    """DIGEST 4.1: after a Short Skill comes a Basic Short Skill, never a Long one."""
    state = activated()
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}})
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    skills = seat_options(state, Side.A)["skills"]
    assert skills["index"] == 2
    assert skills["route_skills"] == ["move"]  # Entire Order skills cannot follow
    assert skills["bs_attack"] == {} and not skills["dodge"] and not skills["reset"]


def test_aro_options_from_zone_of_control_without_line_of_fire_are_dodge_or_reset() -> None:
    """DIGEST 6.1: in Zone of Control without Line of Fire, only Dodge or Reset."""
    state = activated(**{B_ZOC: (20.0, 12.0, 90.0)})  # 6" from the route, facing away
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 4], [22.5, 7]]}})
    aros = seat_options(state, Side.B)["aros"]
    assert aros[B_ZOC]["zone_of_control"] and not aros[B_ZOC]["line_of_fire"]
    assert aros[B_ZOC]["bs_attack"] == [] and aros[B_ZOC]["dodge"] and aros[B_ZOC]["reset"]
    shooter = aros[B_SHOOTER]
    assert shooter["line_of_fire"] and "punch_carbine" in shooter["bs_attack"]
    assert B_AWAY not in aros
    assert seat_options(state, Side.A)["aros"] == {}  # only the reactive player answers


def test_sight_lists_enemies_in_line_of_fire_and_never_hidden_ones() -> None:
    """DIGEST 10.1 and DIGEST 11.2."""
    state = skirmish({**PLACEMENTS, "B-t2": (30.0, 28.0, 270.0, "hidden")})
    sight = seat_options(state, Side.A)["sight"]
    assert B_SHOOTER in sight[A1]
    assert all("B-t2" not in seen for seen in sight.values())
    assert B_AWAY not in seat_options(state, Side.B)["sight"][B_SHOOTER]  # own side never listed


def test_deployment_options_name_the_deployer_and_its_waiting_troopers() -> None:
    """DIGEST 11.1: the deployment steps."""
    from server.rules.armies.army_catalogue import sample_army
    from server.rules.events import ArmyChosen, InitiativeRolled, InitiativeSettled
    from tests.support.skirmish import tid

    state = engine.new_game(engine.GameSetup(ruleset="codeone", seed=1))
    for side, army_id in ((Side.A, "helion-c1-patrol"), (Side.B, "vesper-c1-cell")):
        army = sample_army(army_id)
        ids = tuple((entry.id, tid(side, entry.id)) for entry in army.entries)
        state = engine.apply(state, ArmyChosen(side, army, ids))
    state = engine.apply(state, InitiativeRolled(((20, 1),), (1, 1), Side.A, state.dice))
    state = engine.apply(state, InitiativeSettled(Side.A, Side.A, {Side.A: "south", Side.B: "north"}))
    first, second = seat_options(state, Side.A), seat_options(state, Side.B)
    assert len(first["deploy"]) == len(state.troopers_of(Side.A)) and second["deploy"] == []
    assert first["end_deployment_step"] is False  # nobody deployed yet: all but one must be
    assert first["end_deployment_step"] == accepted(state, Side.A, {"type": "end_deployment_step"})


def test_engaged_trooper_is_offered_only_close_combat_and_an_unconscious_enemy_for_coup_de_grace() -> None:
    """DIGEST 8 Engaged; 7.7 Coup de Grâce: the options follow the rules core."""
    from dataclasses import replace

    from server.rules.combat.wounds import Condition
    from server.rules.ids import TrooperId

    state = activated(**{B_ZOC: (22.5, 4.98, 270.0), B_AWAY: (21.52, 4.0, 0.0)})
    skills = seat_options(state, Side.A)["skills"]
    assert skills["route_skills"] == [] and skills["bs_attack"] == {} and skills["discover"] == []
    assert skills["idle"] and skills["dodge"] and skills["reset"]
    assert skills["cc_attack"] == {"combat_knife": [B_AWAY, B_ZOC]}
    # Once both enemies are Unconscious A1 is no longer Engaged, and may finish them off.
    troopers = {**state.troopers}
    for enemy in (B_ZOC, B_AWAY):
        troopers[TrooperId(enemy)] = replace(state.trooper(TrooperId(enemy)), condition=Condition.UNCONSCIOUS)
    skills = seat_options(replace(state, troopers=troopers), Side.A)["skills"]
    assert "move" in skills["route_skills"]
    assert skills["cc_attack"] == {"combat_knife": [B_AWAY, B_ZOC]}


def test_firing_points_are_the_corners_of_the_path_with_the_shots_legal_from_each() -> None:
    """DIGEST 4.1: a shot may leave from any point of the declared route."""
    state = activated()
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 4], [21.5, 5], [22.5, 6]]}})
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    skills = seat_options(state, Side.A)["skills"]
    assert [f["point"] for f in skills["firing_points"]] == [[22.5, 4.0], [21.5, 5.0]]
    for firing in skills["firing_points"]:
        for weapon, shot in firing["bs_attack"].items():
            for target in shot["targets"]:
                burst = 1 if shot["template"] else shot["burst"]
                assert accepted(state, Side.A, {"type": "declare_skill", "skill": {
                    "type": "bs_attack", "weapon": weapon, "targets": [{"trooper": target, "burst": burst}],
                    "firing_point": firing["point"]}})
    assert B_SHOOTER in skills["firing_points"][0]["bs_attack"]["line_rifle"]["targets"]
    # Before any move there is only the default firing point: no corners.
    assert seat_options(activated(), Side.A)["skills"]["firing_points"] == []


JOINT = {"A-t3": (3.0, 6.0, 90.0), "A-p1": (10.0, 6.0, 90.0), "B-t3": (3.0, 24.0, 270.0),
         "A-t1": (23.0, 1.0, 270.0), "B-t1": (23.0, 31.0, 90.0)}


def test_joint_activation_offers_the_controllers_peripherals_and_each_ones_own_skills() -> None:
    """DIGEST 2: a Controller and its Peripherals act on one Order, the same skills with their
    own details; every offered combination is one the rules core accepts."""
    state = skirmish(JOINT)
    options = seat_options(state, Side.A)
    assert options["peripherals"] == {"A-t3": ["A-p1"]}
    assert accepted(state, Side.A, {"type": "activate", "trooper": "A-t3", "order": "regular",
                                    "peripherals": ["A-p1"]})
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t3", "order": "regular",
                                    "peripherals": ["A-p1"]})
    skills = seat_options(state, Side.A)["skills"]
    drone = skills["peripherals"]["A-p1"]
    assert skills["idle"] and drone["idle"] and "move" in drone["route_skills"]
    assert accepted(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"},
                                    "peripherals": [{"trooper": "A-p1", "skill": {"type": "idle"}}]})
    for weapon, shot in skills["bs_attack"].items():
        for drone_weapon, drone_shot in drone["bs_attack"].items():
            assert accepted(state, Side.A, {"type": "declare_skill", "skill": {
                "type": "bs_attack", "weapon": weapon, "targets": [{"trooper": shot["targets"][0], "burst": shot["burst"]}]},
                "peripherals": [{"trooper": "A-p1", "skill": {"type": "bs_attack", "weapon": drone_weapon, "targets": [
                    {"trooper": drone_shot["targets"][0], "burst": drone_shot["burst"]}]}}]})
    # Both move; B-t3 sees the Controller's route, while the Hab block hides the drone's
    # from it all along: a shot at the drone is accepted but would be Idle (no Line of
    # Fire), so the ARO offers only the Controller, though B-t3 is eligible through LoF.
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[3, 6], [3, 8]]},
                                    "peripherals": [{"trooper": "A-p1", "skill": {"type": "move", "route": [[10, 6], [10, 10]]}}]})
    aro = seat_options(state, Side.B)["aros"]["B-t3"]
    assert aro["line_of_fire"]
    assert set(aro["targets"]["bs_attack"]["punch_carbine"]) == {"A-t3"}
    assert accepted(state, Side.B, {"type": "declare_aro", "trooper": "B-t3", "skill": {
        "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": "A-p1", "burst": 1}]}})
    assert aro["bs_attack"] == list(aro["targets"]["bs_attack"])
    for weapon, targets in aro["targets"]["bs_attack"].items():
        for target in targets:
            assert accepted(state, Side.B, {"type": "declare_aro", "trooper": "B-t3", "skill": {
                "type": "bs_attack", "weapon": weapon, "targets": [{"trooper": target, "burst": 1}]}})
