"""DIGEST 9 (Jump: "Entire Order (Super-Jump makes it Short Movement)"). Super-Jump
(infinitythewiki "Super-Jump"): the user's Jump is a Short Movement Skill of a MOV value,
vertical, diagonal or horizontal, so Jump + BS Attack is one Order.
docs/rules-decisions/deployment-skills.md "Super-Jump".

N5 table: building-w (4 inches high) fills x 8-14, y 20-28; container-s (2.5 high) x 22-26,
y 14-16. Lancer A-t7 (MOV 4-4, line_rifle) jumps; B's Boss B-t1 stands north.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import engine
from server.rules.commands import parse_command
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState, OrderStep
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

JUMPER = TrooperId("A-t7")


def _game(super_jump: bool, at: tuple[float, float] = (24.0, 13.0)) -> GameState:
    state = skirmish({"A-t7": (*at, 90.0), "A-t1": (2.0, 2.0, 90.0),
                      "B-t1": (24.0, 30.0, 270.0)}, ruleset="n5", first=Side.A)
    found = state.trooper(JUMPER)
    entry = replace(found.entry, profile=replace(found.entry.profile, super_jump=super_jump))
    state = state.with_trooper(replace(found, entry=entry))
    state, _ = play(state, Side.A, {"type": "activate", "trooper": JUMPER, "order": "regular"})
    return state


def _declare(state: GameState, skill: dict[str, Plain]) -> Accepted | Rejected:
    decision = engine.decide(state, Side.A, parse_command({"type": "declare_skill", "skill": skill}))
    assert isinstance(decision, Accepted | Rejected)
    return decision


JUMP_OVER: dict[str, Plain] = {"type": "jump", "route": [[24.0, 13.0], [24.0, 17.0]]}


def test_super_jump_is_a_short_movement_skill_then_a_bs_attack() -> None:
    state = _game(True)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": JUMP_OVER})
    state, _ = close_aro_window(state)
    assert state.order is not None and state.order.step is OrderStep.SECOND_SKILL
    skills = seat_options(state, Side.A)["skills"]
    assert isinstance(skills, dict) and "B-t1" in str(skills["bs_attack"])
    shot = _declare(state, {"type": "bs_attack", "weapon": "line_rifle",
                            "targets": [{"trooper": "B-t1", "burst": 3}]})
    assert isinstance(shot, Accepted)


def test_a_common_jump_is_an_entire_order() -> None:
    state = _game(False)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "jump", "route": [[24.0, 13.0], [24.0, 13.5]]}})
    state, _ = close_aro_window(state)
    assert state.order is None or state.order.step is not OrderStep.SECOND_SKILL


def test_super_jump_may_follow_a_move_and_uses_the_second_mov_value() -> None:
    state = _game(True, at=(30.0, 10.0))
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[30.0, 10.0], [30.0, 12.0]]}})
    state, _ = close_aro_window(state)
    too_far = _declare(state, {"type": "jump", "route": [[30.0, 12.0], [30.0, 16.5]]})
    assert isinstance(too_far, Rejected) and too_far.code == "route_too_long"
    assert isinstance(_declare(state, {"type": "jump", "route": [[30.0, 12.0], [30.0, 16.0]]}), Accepted)
    common = _game(False, at=(30.0, 10.0))
    common, _ = play(common, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[30.0, 10.0], [30.0, 12.0]]}})
    common, _ = close_aro_window(common)
    refused = _declare(common, {"type": "jump", "route": [[30.0, 12.0], [30.0, 14.0]]})
    assert isinstance(refused, Rejected) and refused.code == "illegal_skill_combination"


def test_super_jump_clears_scenery_up_to_its_mov_a_common_jump_2_inches() -> None:
    # The container is 2.5 inches high: beyond a common Jump's 2 inches, within MOV 4.
    assert isinstance(_declare(_game(True), JUMP_OVER), Accepted)
    refused = _declare(_game(False), JUMP_OVER)
    assert isinstance(refused, Rejected) and refused.code == "bad_route"


def test_catalogue_maps_super_jump_and_climbing_plus() -> None:
    from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
    from server.rules.armies.not_refereed import ItemKind
    for name, field in (("Super-Jump", "super_jump"), ("Climbing Plus", "climbing_plus")):
        flags = TrooperFlags()
        assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
        assert flags.fields == {field: True}


PARTICIPANT = TrooperId("A-t8")


def _coordinated_jump() -> GameState:
    """A Coordinated Order (DIGEST 3.4) led by a Super-Jumping Lancer (A-t7) with a Lancer
    without Super-Jump (A-t8); both Jump first, then the second skill is declared."""
    state = skirmish({"A-t7": (24.0, 13.0, 90.0), "A-t8": (30.0, 13.0, 90.0), "A-t1": (2.0, 2.0, 90.0),
                      "B-t1": (24.0, 30.0, 270.0)}, ruleset="n5", first=Side.A)
    found = state.trooper(JUMPER)
    state = state.with_trooper(replace(found, entry=replace(
        found.entry, profile=replace(found.entry.profile, super_jump=True))))
    state, _ = play(state, Side.A, {"type": "coordinate_order", "spearhead": JUMPER,
                                    "troopers": [PARTICIPANT]})
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": JUMP_OVER, "peripherals": [
        {"trooper": PARTICIPANT, "skill": {"type": "jump", "route": [[30.0, 13.0], [30.0, 15.0]]}}]})
    state, _ = close_aro_window(state)
    assert state.order is not None and state.order.step is OrderStep.SECOND_SKILL
    return state


def test_a_participant_whose_jump_took_its_whole_order_declares_idle_for_the_second_skill() -> None:
    """DIGEST 3.4 (every trooper declares the Spearhead's skills; one that cannot performs
    Idle) with wiki "Super-Jump" (its example with several troopers: one without Super-Jump
    whose Jump is its Entire Order declares no second skill). The participant was offered
    nothing at the second skill, not even Idle, and its Idle was refused: the Order could not
    go on. Now Idle is what it is offered and what the rules core takes; any other skill of
    its own is refused, as its Order is spent on the Jump."""
    state = _coordinated_jump()
    skills = seat_options(state, Side.A)["skills"]
    assert isinstance(skills, dict)
    own = skills["peripherals"][PARTICIPANT]
    assert own["idle"] is True and own["route_skills"] == [] and own["bs_attack"] == {}
    assert {"move", "bs_attack", "idle"} <= set(own["idle_for"])
    move = {"type": "move", "route": [[24.0, 17.0], [24.0, 19.0]]}
    again = {"type": "move", "route": [[30.0, 15.0], [30.0, 17.0]]}
    refused = engine.decide(state, Side.A, parse_command({"type": "declare_skill", "skill": move,
                            "peripherals": [{"trooper": PARTICIPANT, "skill": again}]}))
    assert isinstance(refused, Rejected) and refused.code == "illegal_skill_combination"
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": move, "peripherals": [
        {"trooper": PARTICIPANT, "skill": {"type": "idle"}}]})
    assert state.trooper(JUMPER).position == (24.0, 19.0)
    assert state.trooper(PARTICIPANT).position == (30.0, 15.0)
