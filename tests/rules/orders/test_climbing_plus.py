"""DIGEST 9 (Climb: a Long Skill that goes up vertical surfaces). Climbing Plus (N5 Special
Skill; infinitythewiki "Climbing Plus"): the user moves on vertical surfaces as on
horizontal ones, so its Move goes over scenery without a Climb and stays a Short Movement
Skill. docs/rules-decisions/deployment-skills.md "Climbing Plus".

N5 table: container-s (2.5 inches high) fills x 22-26, y 14-16; Lancer A-t7 (MOV 4-4) stands
in front of it.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import engine
from server.rules.commands import parse_command
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

CLIMBER = TrooperId("A-t7")
OVER_THE_CONTAINER: list[Plain] = [[24.0, 13.0], [24.0, 17.0]]


def _game(climbing_plus: bool) -> GameState:
    state = skirmish({"A-t7": (24.0, 13.0, 90.0), "A-t1": (2.0, 2.0, 90.0),
                      "B-t1": (2.0, 46.0, 270.0)}, ruleset="n5", first=Side.A)
    found = state.trooper(CLIMBER)
    entry = replace(found.entry, profile=replace(found.entry.profile, climbing_plus=climbing_plus))
    state = state.with_trooper(replace(found, entry=entry))
    state, _ = play(state, Side.A, {"type": "activate", "trooper": CLIMBER, "order": "regular"})
    return state


def _declare(state: GameState, skill: dict[str, Plain]) -> Accepted | Rejected:
    decision = engine.decide(state, Side.A, parse_command({"type": "declare_skill", "skill": skill}))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def test_climbing_plus_moves_over_scenery_with_a_move() -> None:
    refused = _declare(_game(False), {"type": "move", "route": OVER_THE_CONTAINER})
    assert isinstance(refused, Rejected) and refused.code == "bad_route"
    state = _game(True)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": OVER_THE_CONTAINER}})
    assert state.order is not None and state.order.path[-1] == (24.0, 17.0)


def test_climbing_plus_move_stays_a_short_movement_skill() -> None:
    state = _game(True)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": OVER_THE_CONTAINER}})
    state, _ = close_aro_window(state)
    skills = seat_options(state, Side.A)["skills"]
    assert isinstance(skills, dict) and "move" in skills["route_skills"]
    second = _declare(state, {"type": "move", "route": [[24.0, 17.0], [24.0, 20.0]]})
    assert isinstance(second, Accepted)


def test_climbing_plus_keeps_its_mov() -> None:
    too_far = _declare(_game(True), {"type": "move", "route": [[24.0, 13.0], [24.0, 17.5]]})
    assert isinstance(too_far, Rejected) and too_far.code == "route_too_long"


def test_climbing_plus_does_not_lift_a_dodge() -> None:
    from server.rules.armies.skills import Dodge, Move
    from server.rules.orders.climbing_plus import climbs_while_moving
    state = _game(True)
    assert climbs_while_moving(state.trooper(CLIMBER), Move(()))
    assert not climbs_while_moving(state.trooper(CLIMBER), Dodge())
