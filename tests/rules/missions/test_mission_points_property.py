"""Objective Points from any table position (DIGEST 11.5: a mission is won on OP, 0 to 10 a
side): whatever stands where, whoever is dead and whatever was scored before, a scoring
never takes a side past the mission's maximum, each award is what the side scores, and a
zone goes to the side with more inside - the same zone with the sides swapped goes to the
other side."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.combat.wounds import Condition
from server.rules.ids import Side, TrooperId
from server.rules.missions import load_mission
from server.rules.missions.dominate import dominator
from server.rules.missions.points import award
from server.rules.missions.scoring import apply_objective_points_scored, scored
from server.rules.state import GameState
from tests.support.skirmish import skirmish

POOL = ("A-t1", "A-t2", "A-t7", "A-t8", "A-t14", "B-t1", "B-t3", "B-t7", "B-t8", "B-t10")
MISSION = {
    "format": "infinity-referee-mission/1", "id": "test-field", "title": "Field",
    "description": "A test.", "rulesets": ["n5"], "rounds": 3, "max_op": 10,
    "zones": [{"id": "west", "name": "West", "x0": 0, "y0": 16, "x1": 24, "y1": 32},
              {"id": "east", "name": "East", "x0": 24, "y0": 16, "x1": 48, "y1": 32}],
    "markers": [],
    "objectives": [
        {"id": "hold", "kind": "dominate", "op": 3, "zones": ["west", "east"],
         "when": ["round_end", "game_end"]},
        {"id": "crowd", "kind": "dominate", "op": 2, "zones": ["west"], "by": "count",
         "when": ["game_end"]},
        {"id": "head", "kind": "kill_lieutenant", "op": 3},
        {"id": "more", "kind": "more_points_killed", "op": 2},
    ],
}


@cache
def base() -> GameState:
    state = skirmish({t: (2.0 + 4 * i, 2.0 if t.startswith("A") else 46.0, 90.0)
                      for i, t in enumerate(POOL)}, ruleset="n5")
    return replace(state, mission=load_mission(MISSION))


spots = st.tuples(st.floats(1.0, 47.0), st.floats(1.0, 47.0), st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.lists(spots, min_size=len(POOL), max_size=len(POOL)),
       st.integers(0, 10), st.integers(0, 10))
def test_a_scoring_never_passes_the_maximum_and_its_awards_are_what_is_scored_digest_11_5(
        where: list[tuple[float, float, bool]], op_a: int, op_b: int) -> None:
    state = award(award(base(), Side.A, op_a), Side.B, op_b)
    for trooper, (x, y, dead) in zip(POOL, where, strict=True):
        state = state.with_trooper(replace(state.trooper(TrooperId(trooper)), position=(x, y),
                                           condition=Condition.DEAD if dead else Condition.NORMAL))
    for when in ("round_end", "game_end"):
        before = dict(state.objective_points)
        event = scored(state, when)
        if event is None:
            continue
        assert all(a.op > 0 for a in event.awards)
        state = apply_objective_points_scored(state, event)
        for side in Side:
            gained = sum(a.op for a in event.awards if a.side is side)
            assert state.objective_points.get(side, 0) == before.get(side, 0) + gained <= 10


@settings(max_examples=40, deadline=None)
@given(st.lists(spots, min_size=len(POOL), max_size=len(POOL)))
def test_a_zone_goes_to_the_side_with_more_inside_whichever_side_it_is_digest_11_5(
        where: list[tuple[float, float, bool]]) -> None:
    state = base()
    for trooper, (x, y, dead) in zip(POOL, where, strict=True):
        state = state.with_trooper(replace(state.trooper(TrooperId(trooper)), position=(x, y),
                                           condition=Condition.DEAD if dead else Condition.NORMAL))
    swapped = replace(state, troopers={t.id: replace(t, side=t.side.other)
                                       for t in state.troopers.values()})
    assert state.mission is not None
    for zone in state.mission.zones:
        for by in ("points", "count"):
            side, held = dominator(state, zone, by)
            other, held_swapped = dominator(swapped, zone, by)
            assert held_swapped == {s: held[s.other] for s in Side}
            assert other is (None if side is None else side.other)
            if side is not None:
                assert held[side] > held[side.other]
