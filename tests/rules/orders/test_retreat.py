"""DIGEST 11.4 Retreat! (N4/N5, not CodeOne): the threshold (25% of the army's points,
rounded up) and what an army in Retreat! may declare (DIGEST 8 states table, N5: Active Move,
Discover, Idle, Cautious Movement, Dodge, Reset; ARO Discover, Dodge, Reset). Anything else
is refused at declaration with ``in_retreat`` and never offered (docs/rules-decisions/README.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from server.rules import commands as c
from server.rules.combat.wounds import Condition
from server.rules.decision import Accepted, Rejected
from server.rules.events import RetreatDeclared
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.orders.game_sequence import victory_points
from server.rules.orders.retreat import retreat_threshold
from server.rules.state import GameState
from tests.support.games import decide as _decide
from tests.support.games import play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
SURVIVORS = ("B-t1", "B-t7")  # vesper-raiders: Boss (the Lieutenant, 35) and a Ganger (7)
PLACEMENTS: dict[str, Any] = {
    "A-t7": [20, 20, 90], "A-t1": [2, 2, 270],
    "B-t1": [20, 30, 270], "B-t7": [30, 30, 270],
}


def _routed_elsewhere() -> dict[str, Any]:
    """Every vesper-raiders trooper but the survivors is Dead."""
    return {f"B-t{n}": {"condition": "dead", "wounds": 2}
            for n in range(1, 16) if f"B-t{n}" not in SURVIVORS}


def _n5(**setup: Any) -> GameState:
    return build_state({"ruleset": "n5", "terrain": [], "placements": PLACEMENTS,
                        "troopers": _routed_elsewhere(), **setup})


def _b_in_retreat_with_the_boss_activated() -> GameState:
    """A ends its first turn; B starts its turn in Retreat! and activates its (routed)
    Lieutenant, the Boss, on its Irregular Order (the army is in Loss of Lieutenant)."""
    state = _n5()
    state, events = play(state, A, c.EndTurn())
    assert any(isinstance(e, RetreatDeclared) and e.side is B for e in events)
    assert B in state.retreat and state.active is B
    state, _ = play(state, B, {"type": "activate", "trooper": "B-t1", "order": "irregular"})
    return state


SHOT = {"type": "bs_attack", "weapon": "breacher_rifle", "targets": [{"trooper": "A-t7", "burst": 3}]}


# --- the threshold ---------------------------------------------------------------------------


@pytest.mark.parametrize(("points", "threshold"),
                         [(400, 100), (300, 75), (250, 63), (200, 50), (150, 38), (30, 8)])
def test_digest_11_4_retreat_threshold_rounds_up(points: int, threshold: int) -> None:
    """DIGEST 11.4's table: 400 -> 100, 300 -> 75, 250 -> 63, 200 -> 50, 150 -> 38."""
    assert retreat_threshold(points) == threshold


def test_digest_11_4_retreat_is_declared_at_the_rounded_up_threshold() -> None:
    """Survivors worth v points of an army of 4v - 2: 25% is v - 0.5, rounded up to v, so the
    army is in Retreat! (rounding down, v - 1, it would not be)."""
    state = _n5()
    survivors = victory_points(state, B)
    armies = {**state.armies, B: replace(state.armies[B], points=4 * survivors - 2)}
    state = replace(state, armies=armies)
    state, events = play(state, A, c.EndTurn())
    assert RetreatDeclared(B, survivors, survivors) in events
    assert B in state.retreat
    # Two points less of army (25%: v - 1) and the survivors are above the threshold.
    state = _n5()
    armies = {**state.armies, B: replace(state.armies[B], points=4 * survivors - 4)}
    state, events = play(replace(state, armies=armies), A, c.EndTurn())
    assert not any(isinstance(e, RetreatDeclared) for e in events) and not state.retreat


# --- the Active Turn -------------------------------------------------------------------------


@pytest.mark.parametrize("skill", [
    SHOT,
    {"type": "jump", "route": [[20, 30]]},
    {"type": "climb", "route": [[20, 30]]},
])
def test_digest_11_4_retreat_refuses_other_active_skills(skill: dict[str, Any]) -> None:
    """A routed Lieutenant's BS Attack (and a Jump or Climb) is refused with ``in_retreat``;
    the same declaration is not refused so out of Retreat!."""
    state = _b_in_retreat_with_the_boss_activated()
    body = {"type": "declare_skill", "skill": skill}
    decision = _decide(state, B, body)
    assert isinstance(decision, Rejected) and decision.code == "in_retreat", decision
    assert "Retreat!" in decision.message and "Cautious Movement" in decision.message
    calm = _decide(replace(state, retreat=frozenset()), B, body)
    assert not (isinstance(calm, Rejected) and calm.code == "in_retreat")


@pytest.mark.parametrize("skill", [
    {"type": "move", "route": [[20, 30], [20, 32]]},
    {"type": "cautious_move", "route": [[20, 30], [20, 32]]},
    {"type": "idle"},
    {"type": "dodge"},
    {"type": "reset"},
])
def test_digest_11_4_retreat_allows_move_discover_idle_cautious_dodge_reset(
        skill: dict[str, Any]) -> None:
    state = _b_in_retreat_with_the_boss_activated()
    assert isinstance(_decide(state, B, {"type": "declare_skill", "skill": skill}), Accepted)


def test_digest_11_4_retreat_options_offer_only_the_allowed_active_skills() -> None:
    state = _b_in_retreat_with_the_boss_activated()
    skills = seat_options(state, B)["skills"]
    assert skills["bs_attack"] == {} and skills["firing_points"] == []
    assert skills["cc_attack"] == {} and skills["comms_attack"] == {}
    assert skills["route_skills"] == ["move", "cautious_move"]
    assert skills["idle"] and skills["dodge"] and skills["reset"]
    # Out of Retreat! the same trooper would be offered its shot and a Jump.
    calm = seat_options(replace(state, retreat=frozenset()), B)["skills"]
    assert "A-t7" in calm["bs_attack"]["breacher_rifle"]["targets"]
    assert "jump" in calm["route_skills"]


# --- AROs ------------------------------------------------------------------------------------


def _a_moves_in_sight_of_a_routed_b() -> GameState:
    """B's army in Retreat! while A is active (not reached in a standard game, which ends at
    the end of B's Retreat! turn; scenarios may differ): A's Lancer moves in the Boss's LoF."""
    state = replace(_n5(), retreat=frozenset({B}))
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    move = {"type": "move", "route": [[20, 20], [21, 20]]}
    state, _ = play(state, A, {"type": "declare_skill", "skill": move})
    assert state.order is not None and state.order.eligible["B-t1"].line_of_fire
    return state


def test_digest_11_4_retreat_aro_allows_only_discover_dodge_reset() -> None:
    state = _a_moves_in_sight_of_a_routed_b()
    shot = {"type": "declare_aro", "trooper": "B-t1", "skill": {
        "type": "bs_attack", "weapon": "breacher_rifle", "targets": [{"trooper": "A-t7", "burst": 1}]}}
    decision = _decide(state, B, shot)
    assert isinstance(decision, Rejected) and decision.code == "in_retreat", decision
    assert "Discover, Dodge, Reset" in decision.message
    assert isinstance(_decide(replace(state, retreat=frozenset()), B, shot), Accepted)
    for skill in ({"type": "dodge"}, {"type": "reset"}):
        body = {"type": "declare_aro", "trooper": "B-t1", "skill": skill}
        assert isinstance(_decide(state, B, body), Accepted), skill
    row = seat_options(state, B)["aros"]["B-t1"]
    assert row["bs_attack"] == [] and row["cc_attack"] == [] and row["targets"]["bs_attack"] == {}
    assert row["dodge"] is True and row["reset"] is True
    calm = seat_options(replace(state, retreat=frozenset()), B)["aros"]["B-t1"]
    assert "breacher_rifle" in calm["bs_attack"]


def test_digest_14_codeone_has_no_retreat_restrictions() -> None:
    """Retreat! is not a CodeOne rule: an army reduced far below 25% is not in Retreat! and
    its troopers may still shoot."""
    placements = {"A-t1": [20, 20, 90], "B-t1": [20, 26, 270]}
    state = build_state({"placements": placements, "terrain": []})
    dead = {t.id: replace(t, condition=Condition.DEAD) for t in state.troopers_of(B)
            if t.id != "B-t1"}
    state = replace(state, troopers={**state.troopers, **dead})
    state, _ = play(state, A, c.EndTurn())
    assert state.active is B and not state.retreat
    kind = "irregular" if B in state.loss_of_lieutenant else "regular"
    state, _ = play(state, B, {"type": "activate", "trooper": "B-t1", "order": kind})
    assert seat_options(state, B)["skills"]["bs_attack"]
