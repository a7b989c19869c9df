"""DIGEST 3.6 Impetuous (N5; not CodeOne): the skill combinations of an Impetuous activation,
its movement (base contact with an enemy within reach, else the full MOV towards the enemy
Deployment Zone without doubling back, freely inside it), Prone cancelled, and no Partial
Cover at any time. Refused at declaration (``illegal_skill_combination``,
``impetuous_route``) and stated in ``options`` (docs/rules-decisions/README.md).

B (vesper-raiders) plays first from the south zone (y 0-12); A's zone, the enemy's, is the
north one (y 36-48). B-t6 is a Razorback Berserker (Impetuous, MOV 4-4, S2)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.mods import bs_attack_mods
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side, TerrainId, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from server.rules.table.geometry import in_base_contact
from server.rules.table.terrain import Table, TerrainPiece
from tests.support.games import play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
RAZORBACK = "B-t6"
SIDEARM_AT_A7 = {"type": "bs_attack", "weapon": "sidearm", "targets": [{"trooper": "A-t7", "burst": 2}]}


def _state(razorback: tuple[float, float] = (20, 20), enemy: tuple[float, float] = (20, 40),
           **setup: Any) -> GameState:
    placements = {RAZORBACK: [*razorback, 90], "A-t7": [*enemy, 270], "B-t1": [2, 2, 90]}
    return build_state({"ruleset": "n5", "terrain": [], "first": "B", "placements": placements,
                        **setup})


def _activated(state: GameState) -> GameState:
    assert state.phase is Phase.IMPETUOUS and RAZORBACK in state.orders.impetuous
    state, _ = play(state, B, {"type": "activate", "trooper": RAZORBACK, "order": "impetuous"})
    return state


def _decide(state: GameState, body: dict[str, Any]) -> Accepted | Rejected:
    decision = engine.decide(state, B, c.parse_command({"type": "declare_skill", "skill": body}))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def _refused(state: GameState, body: dict[str, Any], code: str) -> str:
    decision = _decide(state, body)
    assert isinstance(decision, Rejected) and decision.code == code, decision
    return decision.message


def _move(*points: tuple[float, float]) -> dict[str, Any]:
    return {"type": "move", "route": [list(p) for p in points]}


def test_digest_3_6_impetuous_razorback_moving_1_inch_away_then_shooting_is_refused() -> None:
    """Issue 19: a Razorback moved 1" straight away from the enemy and then shot. Its
    Impetuous Move must go the full 4" towards the enemy Deployment Zone; then it may shoot."""
    state = _activated(_state())
    message = _refused(state, _move((20, 20), (20, 19)), "impetuous_route")
    assert "doubling back" in message
    assert "full MOV" in _refused(state, _move((20, 20), (20, 21)), "impetuous_route")
    state, _ = play(state, B, {"type": "declare_skill", "skill": _move((20, 20), (20, 24))})
    state, _ = play(state, A, c.CloseAroWindow(state.order.number, 1))  # type: ignore[union-attr]
    assert isinstance(_decide(state, SIDEARM_AT_A7), Accepted)


def test_digest_3_6_impetuous_only_the_fixed_skill_combinations() -> None:
    """Move + Attack, Move + Dodge, Move + Idle (either order), Move + Move, Jump, Climb;
    Idle + Idle is the activation spent doing nothing (the game never waits on it)."""
    state = _activated(_state(enemy=(20, 30)))
    for skill in ({"type": "discover", "target": "A-t7"}, {"type": "reset"},
                  {"type": "cautious_move", "route": [[20, 20], [20, 24]]}):
        _refused(state, skill, "illegal_skill_combination")
    skills = seat_options(state, B)["skills"]
    assert not skills["discover"] and not skills["reset"]
    assert set(skills["route_skills"]) == {"move", "jump", "climb"}
    assert skills["bs_attack"] and skills["idle"] and skills["dodge"]
    # Attack first: only Move (or Idle) may follow.
    shot, _ = play(state, B, {"type": "declare_skill", "skill": SIDEARM_AT_A7})
    shot, _ = play(shot, A, c.CloseAroWindow(shot.order.number, 1))  # type: ignore[union-attr]
    _refused(shot, {"type": "dodge"}, "illegal_skill_combination")
    second = seat_options(shot, B)["skills"]
    assert not second["dodge"] and not second["bs_attack"] and second["idle"]
    assert second["route_skills"] == ["move"]
    # Idle first, then Idle: accepted.
    idle, _ = play(state, B, {"type": "declare_skill", "skill": {"type": "idle"}})
    idle, _ = play(idle, A, c.CloseAroWindow(idle.order.number, 1))  # type: ignore[union-attr]
    assert isinstance(_decide(idle, {"type": "idle"}), Accepted)


def test_digest_3_6_impetuous_move_must_reach_an_enemy_within_reach() -> None:
    """Priority 1: an enemy within the MOV value must be contacted; ending in base contact
    with it may use less than the full MOV."""
    state = _activated(_state(enemy=(22, 23)))
    message = _refused(state, _move((20, 20), (18, 23.4)), "impetuous_route")
    assert "A-t7" in message and "base contact" in message
    enemy = state.trooper(TrooperId("A-t7")).body()
    razor = state.trooper(TrooperId(RAZORBACK)).body()
    gap = razor.radius + enemy.radius + 0.01
    touch = (22 - gap * 2 / 13**0.5, 23 - gap * 3 / 13**0.5)
    assert in_base_contact(razor.moved_to(touch), enemy)
    assert isinstance(_decide(state, _move((20, 20), touch)), Accepted)
    assert seat_options(state, B)["skills"]["impetuous"]["charge"] == ["A-t7"]


def test_digest_3_6_impetuous_move_full_mov_towards_the_enemy_zone_without_doubling_back() -> None:
    state = _activated(_state())
    assert "full MOV (4 inches" in _refused(state, _move((20, 20), (20, 23)), "impetuous_route")
    assert "nearer" in _refused(state, _move((20, 20), (24, 20)), "impetuous_route")
    _refused(state, _move((20, 20), (20.3, 19.9), (20.3, 23.5)), "impetuous_route")
    _refused(state, _move((20, 20)), "impetuous_route")  # it must move
    # Sideways corners are fine as long as no part leads away from the zone.
    assert isinstance(_decide(state, _move((20, 20), (21, 21), (21, 23.55))), Accepted)
    skills = seat_options(state, B)["skills"]
    assert skills["impetuous"] == {"full_mov": {"move": 4.0, "jump": 4.0, "climb": 4.0},
                                   "enemy_zone": "north", "inside_enemy_zone": False,
                                   "charge": []}
    # The second Move of Move + Move uses the second MOV value, under the same rule.
    moved, _ = play(state, B, {"type": "declare_skill", "skill": _move((20, 20), (20, 24))})
    moved, _ = play(moved, A, c.CloseAroWindow(moved.order.number, 1))  # type: ignore[union-attr]
    _refused(moved, _move((20, 24), (20, 25)), "impetuous_route")
    assert isinstance(_decide(moved, _move((20, 24), (20, 28))), Accepted)


def test_digest_3_6_impetuous_moves_freely_inside_the_enemy_zone() -> None:
    state = _activated(_state(razorback=(20, 38), enemy=(45, 45)))
    assert seat_options(state, B)["skills"]["impetuous"]["inside_enemy_zone"] is True
    assert isinstance(_decide(state, _move((20, 38), (19, 38))), Accepted)
    _refused(state, _move((20, 38), (20, 35)), "impetuous_route")  # leaving it: doubling back
    # A shorter move that ends inside the zone is fine too.
    outside = _activated(_state(razorback=(20, 35), enemy=(45, 45)))
    assert isinstance(_decide(outside, _move((20, 35), (20, 37))), Accepted)


def test_digest_3_6_impetuous_move_cancels_prone() -> None:
    state = _activated(_state(troopers={RAZORBACK: {"prone": True}}))
    assert state.trooper(TrooperId(RAZORBACK)).prone
    state, _ = play(state, B, {"type": "declare_skill", "skill": _move((20, 20), (20, 24))})
    assert not state.trooper(TrooperId(RAZORBACK)).prone


def test_digest_3_6_impetuous_rules_bind_only_the_impetuous_activation() -> None:
    """Its Irregular Order in the Orders Phase moves as any Order does."""
    state = _state()
    state, _ = play(state, B, c.EndImpetuousPhase())
    assert state.phase is Phase.ORDERS
    state, _ = play(state, B, {"type": "activate", "trooper": RAZORBACK, "order": "irregular"})
    assert isinstance(_decide(state, _move((20, 20), (20, 19))), Accepted)
    assert seat_options(state, B)["skills"]["impetuous"] is None


def test_digest_3_6_impetuous_trooper_never_benefits_from_partial_cover() -> None:
    """At all times (N4 FAQ): no -3 to the attacker and no +3 to its save."""
    # A low wall touching the S2 bases at (20, 20): Partial Cover needs Silhouette contact.
    low = TerrainPiece(TerrainId("low"), ((19, 19.2), (21, 19.2), (21, 19.5), (19, 19.5)), 0.5)
    state = _state(razorback=(20, 20), enemy=(20, 10))
    state = replace(state, table=Table(state.table.width, state.table.depth, (low,)))
    shooter = replace(state.trooper(TrooperId("A-t7")), facing=90.0)  # facing the Razorback
    rifle = state.armies[A].weapon(WeaponId("line_rifle"))
    razorback = state.trooper(TrooperId(RAZORBACK))
    boss = replace(state.trooper(TrooperId("B-t1")), position=(20.0, 20.0), facing=90.0)
    covered = bs_attack_mods(rifle, boss, shooter.body(), boss.body(), state.table)
    assert covered.partial_cover  # the same spot gives a non-Impetuous trooper cover
    shot = bs_attack_mods(rifle, razorback, shooter.body(), razorback.body(), state.table)
    assert not shot.partial_cover and all(m.source != "partial_cover" for m in shot.mods)
