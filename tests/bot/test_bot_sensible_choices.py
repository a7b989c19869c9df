"""The sensible level's choices on a seat's view and options built by hand, in the shapes
``server/rules/views.py`` and ``server/rules/options/`` send (docs/client.md): Fireteams
formed and activated with their leader, members following its move, Classified Objectives
tried, markers Discovered before moving on, no Order spent on a trooper with nowhere to go.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

import math
import random
from itertools import islice
from typing import Any

from server.bot.decide import candidates

SEAT = "B"


def _profile(**extra: Any) -> dict[str, Any]:
    return {"name": "Trooper", "mov": [4, 4], "bs": 12, "cc": 13, "ph": 10, "wip": 13,
            "silhouette": 2, "dodge_mod": 0, **extra}


def _trooper(trooper_id: str, side: str, at: list[float] | None, **profile: Any) -> dict[str, Any]:
    return {"id": trooper_id, "side": side, "position": at, "facing": 270.0, "hidden": False,
            "marker": False, "condition": "normal", "entry": {"combat_group": 1},
            "profile": _profile(**profile)}


def _view(troopers: list[dict[str, Any]], order: dict[str, Any] | None = None,
          mission: dict[str, Any] | None = None, phase: str = "orders") -> dict[str, Any]:
    """An open 48" x 48" table, B deploying in the north (y 36..48, facing -y)."""
    return {"ruleset": "n5", "phase": phase, "round": 1, "turn": 1, "active": SEAT,
            "table": {"width": 48.0, "depth": 48.0, "terrain": []},
            "deployment_zones": {"north": {"x0": 0.0, "y0": 36.0, "x1": 48.0, "y1": 48.0},
                                 "south": {"x0": 0.0, "y0": 0.0, "x1": 48.0, "y1": 12.0}},
            "initiative": {"zones": {"A": "south", "B": "north"}},
            "troopers": troopers, "orders": {"pools": {"1": 5}, "irregular": []},
            "order": order, "mission": mission, "objective_activations": [],
            "lieutenant_choice": "B-1"}


def _decide(view: dict[str, Any], options: dict[str, Any], n: int = 40) -> list[dict[str, Any]]:
    return list(islice(candidates(view, options, SEAT, "sensible", random.Random(3)), n))


def _skills(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"index": 1, "route_skills": ["move"], "allowances": {"move": 4.0},
                            "idle": True, "dodge": False, "reset": False, "bs_attack": {},
                            "cc_attack": {}, "discover": [], "activate": {}}
    return {**base, **extra}


def test_a_fireteam_is_formed_before_the_deployment_step_ends() -> None:
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0], fireteam_core=True),
                  _trooper("B-2", SEAT, [13.0, 40.0], fireteam_core=True),
                  _trooper("B-3", SEAT, [16.0, 40.0], fireteam_core=True)], phase="deployment")
    options = {"deploy": [], "end_deployment_step": True, "fireteams": {"form": {
        "duo": {"sizes": [2, 2], "leaders": {"B-1": ["B-2", "B-3"]}},
        "core": {"sizes": [2, 5], "leaders": {"B-1": ["B-2", "B-3"], "B-2": ["B-1"]}}}}}
    chosen = _decide(view, options)
    assert chosen[0] == {"type": "form_fireteam", "kind": "core", "leader": "B-1",
                         "members": ["B-2", "B-3"]}
    assert {"type": "end_deployment_step"} in chosen


def test_a_trooper_that_may_join_a_team_deploys_in_coherency_with_its_teammate() -> None:
    view = _view([_trooper("B-1", SEAT, [40.0, 44.0], fireteam_core=True),
                  _trooper("B-2", SEAT, None, fireteam_core=True)], phase="deployment")
    options = {"deploy": ["B-2"], "end_deployment_step": False, "fireteams": {"form": {}}}
    first = _decide(view, options)[0]
    assert first["type"] == "deploy" and first["trooper"] == "B-2"
    assert math.dist(first["position"], [40.0, 44.0]) <= 8.0


def test_a_team_leader_with_a_target_is_activated_with_its_team() -> None:
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0], fireteam_core=True),
                  _trooper("B-2", SEAT, [13.0, 40.0], fireteam_core=True),
                  _trooper("A-1", "A", [10.0, 20.0])])
    options = {"activate": {"B-1": ["regular"], "B-2": ["regular"]}, "sight": {"B-1": ["A-1"]},
               "fireteams": {"activate": ["B-1", "B-2"]}, "end_turn": True}
    assert _decide(view, options)[0] == {"type": "activate_fireteam", "leader": "B-1"}


def test_the_team_follows_its_leader_when_it_moves() -> None:
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0]), _trooper("B-2", SEAT, [13.0, 40.0]),
                  _trooper("A-1", "A", [10.0, 20.0])],
                 order={"trooper": "B-1", "skills": []})
    member = {"idle": True, "route_skills": ["move"], "allowances": {"move": 4.0}}
    options = {"skills": _skills(fireteam=True, peripherals={"B-2": member})}
    first = _decide(view, options)[0]
    assert first["type"] == "declare_skill" and first["skill"]["type"] == "move"
    leader_route = first["skill"]["route"]
    (follower,) = first["peripherals"]
    assert follower["trooper"] == "B-2" and follower["skill"]["type"] == "move"
    route = follower["skill"]["route"]
    step = [leader_route[-1][i] - leader_route[0][i] for i in (0, 1)]
    assert route[0] == [13.0, 40.0]
    assert math.dist(route[-1], [13.0 + step[0], 40.0 + step[1]]) < 0.01  # the same step


def test_a_classified_objective_offered_is_tried() -> None:
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0]), _trooper("A-1", "A", [10.0, 20.0])],
                 order={"trooper": "B-1", "skills": []})
    options = {"skills": _skills(),
               "classified_action": {"low": {"": {"sv": 3, "mods": []}},
                                     "telemetry": {"": {"sv": 13, "mods": []}}}}
    assert _decide(view, options)[0] == {
        "type": "declare_skill", "skill": {"type": "classified_action", "card": "telemetry"}}


def test_a_marker_in_sight_is_discovered_before_moving_on() -> None:
    marker = {"id": "A-9", "side": "A", "position": [10.0, 30.0], "marker": True,
              "silhouette": 2}
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0]), marker, _trooper("A-1", "A", [30.0, 20.0])],
                 order={"trooper": "B-1", "skills": []})
    options = {"skills": _skills(discover=["A-9"])}
    assert _decide(view, options)[0] == {
        "type": "declare_skill", "skill": {"type": "discover", "target": "A-9"}}


def test_no_order_goes_to_a_trooper_already_at_its_goal() -> None:
    """Its only goal is the mission zone it stands in: activating it could only end in an
    Idle, so the turn ends instead."""
    mission = {"markers": [], "zones": [{"x0": 20.0, "y0": 20.0, "x1": 28.0, "y1": 28.0}]}
    view = _view([_trooper("B-1", SEAT, [24.0, 24.0]), _trooper("A-1", "A", [4.0, 4.0])],
                 mission=mission)
    options = {"activate": {"B-1": ["regular"]}, "sight": {}, "end_turn": True}
    assert _decide(view, options)[0] == {"type": "end_turn"}


def test_a_member_goes_around_a_base_in_its_way_and_stays_in_coherency() -> None:
    """The leader steps 4" south; the member's same step would cross a trooper standing
    south of it, so it takes another straight way that ends in the leader's Zone of Control."""
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0]), _trooper("B-2", SEAT, [13.0, 40.0]),
                  _trooper("B-3", SEAT, [13.0, 37.5]), _trooper("A-1", "A", [10.0, 20.0])],
                 order={"trooper": "B-1", "skills": []})
    member = {"idle": True, "route_skills": ["move"], "allowances": {"move": 4.0}}
    options = {"skills": _skills(fireteam=True, peripherals={"B-2": member})}
    first = _decide(view, options)[0]
    leader_end = first["skill"]["route"][-1]
    (follower,) = first["peripherals"]
    start, end = follower["skill"]["route"]
    base = 2 * 0.492  # two Silhouette 2 bases' radii (25 mm)
    for i in range(1, 41):  # the straight way keeps clear of B-3's base
        point = [start[0] + (end[0] - start[0]) * i / 40, start[1] + (end[1] - start[1]) * i / 40]
        assert math.dist(point, [13.0, 37.5]) >= base - 0.02
    assert math.dist(end, leader_end) - base <= 8.0


def test_a_marker_on_the_move_is_discovered_in_aro() -> None:
    marker = {"id": "A-9", "side": "A", "position": [10.0, 30.0], "marker": True,
              "silhouette": 2}
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0]), marker],
                 order={"trooper": "A-9", "skills": [{"type": "move"}]})
    view["active"] = "A"
    options = {"close_aro_window": {"order": 4, "step": 1}, "aros": {"B-1": {
        "discover": True, "dodge": True, "shots": {}, "bs_burst": {},
        "discover_rolls": {"A-9": [{"point": None, "sv": 10, "mods": []},
                                   {"point": [10.0, 32.0], "sv": 13, "mods": []}]}}}}
    assert _decide(view, options)[0] == {
        "type": "declare_aro", "trooper": "B-1",
        "skill": {"type": "discover", "target": "A-9", "target_point": [10.0, 32.0]}}


def test_smoke_between_it_and_a_better_shooter_beats_a_poor_dodge() -> None:
    """A BS 15 shooter targets a trooper whose Dodge is PH 8 and whose Smoke grenade
    screens it at Success Value 13: the screen leaves it hit least often."""
    shooter = _trooper("A-1", "A", [10.0, 30.0], bs=15)
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0], ph=8), shooter],
                 order={"trooper": "A-1", "skills": [
                     {"type": "bs_attack", "targets": [{"trooper": "B-1", "burst": 3}]}]})
    view["active"] = "A"
    screen = {"kind": "smoke", "burst": 1, "screens": {"A-1": {"point": [10.0, 36.0], "sv": 13}}}
    options = {"close_aro_window": {"order": 4, "step": 1}, "aros": {"B-1": {
        "dodge": True, "shots": {}, "bs_burst": {}, "zones": {"smoke-grenades": screen}}}}
    assert _decide(view, options)[0] == {
        "type": "declare_aro", "trooper": "B-1",
        "skill": {"type": "bs_attack", "weapon": "smoke-grenades", "targets": [],
                  "zone_at": [10.0, 36.0]}}


def test_a_command_token_forms_a_team_in_its_turn() -> None:
    view = _view([_trooper("B-1", SEAT, [10.0, 40.0], fireteam_haris=True),
                  _trooper("B-2", SEAT, [13.0, 40.0], fireteam_haris=True),
                  _trooper("B-3", SEAT, [16.0, 40.0], fireteam_haris=True)])
    options = {"activate": {"B-1": ["regular"]}, "sight": {}, "end_turn": True,
               "fireteams": {"cost": "command_token", "form": {
                   "haris": {"sizes": [3, 3], "leaders": {"B-2": ["B-1", "B-3"]}}}}}
    assert _decide(view, options)[0] == {"type": "form_fireteam", "kind": "haris",
                                         "leader": "B-2", "members": ["B-1", "B-3"]}
