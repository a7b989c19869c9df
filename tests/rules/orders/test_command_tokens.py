"""Command Tokens (DIGEST 3.3; seed 002 "Executive Use of Command Tokens"): the holdings,
the ``spend_command_token`` command, the ``command_token_spent`` event, the Strategic
uses, the Executive step, ``options`` and the views. Coordinated Orders (DIGEST 3.4) are
not built (docs/rules-coverage.md)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from server.rules import engine
from server.rules.commands import parse_command
from server.rules.decision import Accepted, Rejected
from server.rules.events import CommandTokenSpent
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.orders.command_tokens import TOKENS_PER_GAME
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.scenarios import SCENARIO_DIR, build_state

W6 = SCENARIO_DIR / "w6_order_count.json"


def _w6(*, second_group: bool = True) -> GameState:
    """DIGEST W6's army for A (9 counted Orders in Combat Group 1, which has 10 members),
    with a second Combat Group of two Regular troopers: 11 Orders, pools {1: 7, 2: 2}.
    A plays first; the state is A's first Orders Phase, right after its Order Count."""
    setup: dict[str, Any] = copy.deepcopy(json.loads(W6.read_text())["setup"])
    if second_group:
        setup["armies"]["A"]["entries"] += [
            {"id": "t11", "unit": "lancer", "combat_group": 2},
            {"id": "t12", "unit": "lancer", "combat_group": 2},
        ]
        setup["placements"] |= {"A-t11": [2, 4, 90], "A-t12": [4, 4, 90]}
    return build_state(setup)


def _spend(use: str, **fields: Any) -> dict[str, Any]:
    return {"type": "spend_command_token", "use": use, **fields}


def _refused(state: GameState, side: Side, body: dict[str, Any]) -> str:
    decision = engine.decide(state, side, parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def test_digest_3_3_each_player_holds_four_command_tokens_shown_in_every_view() -> None:
    state = _w6()
    assert TOKENS_PER_GAME == 4
    assert state.command_tokens.held == {Side.A: 4, Side.B: 4}
    for viewer in (Side.A, Side.B, SPECTATOR):
        assert view_state(state, viewer)["command_tokens"]["held"] == {"A": 4, "B": 4}


def test_digest_3_3_strategic_remove_two_regular_orders_after_the_first_order_count() -> None:
    state = _w6()
    offered = seat_options(state, Side.B)["command_tokens"]
    assert _spend("remove_orders", combat_groups=[1, 2]) in offered
    assert _spend("remove_orders", combat_groups=[2, 2]) in offered
    state, events = play(state, Side.B, _spend("remove_orders", combat_groups=[1, 2]))
    assert events == (CommandTokenSpent(Side.B, "remove_orders", 3, (1, 2)),)
    assert state.orders.pools == {1: 6, 2: 1}
    assert state.command_tokens.held == {Side.A: 4, Side.B: 3}
    assert _refused(state, Side.B, _spend("remove_orders", combat_groups=[1, 1])) == \
        "command_token_use_unavailable", "each Strategic use once"
    assert not [b for b in seat_options(state, Side.B)["command_tokens"]
                if b["use"] == "remove_orders"]


def test_digest_3_3_strategic_removal_needs_more_than_ten_orders_w6() -> None:
    """W6: 7 + 1 + 1 = 9 Orders: the removal is refused and not offered."""
    state = _w6(second_group=False)
    assert _refused(state, Side.B, _spend("remove_orders", combat_groups=[1, 1])) == \
        "command_token_use_unavailable"
    assert "remove_orders" not in [b["use"] for b in seat_options(state, Side.B)["command_tokens"]]


def test_digest_3_3_strategic_removal_names_pools_that_hold_the_orders() -> None:
    state = _w6()
    assert _refused(state, Side.B, _spend("remove_orders", combat_groups=[2, 2, 2])) == "bad_command"
    assert _refused(state, Side.B, _spend("remove_orders", combat_groups=[3, 1])) == \
        "no_order_available"
    state = replace(state, orders=replace(state.orders, pools={1: 9, 2: 0}))
    assert _refused(state, Side.B, _spend("remove_orders", combat_groups=[2, 1])) == \
        "no_order_available"


def test_digest_3_3_strategic_uses_only_by_the_second_player_before_the_first_order() -> None:
    state = _w6()
    assert _refused(state, Side.A, _spend("limit_tokens")) == "wrong_phase", "only the second player"
    assert not [b for b in seat_options(state, Side.A)["command_tokens"]
                if b["use"] != "transfer_trooper"]
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t3", "order": "regular"})
    assert _refused(state, Side.B, _spend("limit_tokens")) == "order_in_progress"
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    while (window := engine.pending_aro_window(state)) is not None:
        state, _ = play(state, window.reactive, {"type": "close_aro_window", "order": window.order,
                                                 "step": window.step})
        if state.order is not None and state.order.skills and len(state.order.skills) == 1:
            state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    assert state.order is None
    assert _refused(state, Side.B, _spend("limit_tokens")) == "wrong_phase", "right after the count"
    assert seat_options(state, Side.B)["command_tokens"] == []


def test_digest_3_3_strategic_limit_the_opponent_to_one_command_token_that_turn() -> None:
    state = _w6()
    state, events = play(state, Side.B, _spend("limit_tokens"))
    assert events == (CommandTokenSpent(Side.B, "limit_tokens", 3),)
    assert state.command_tokens.limited == {Side.A}
    state, _ = play(state, Side.A, _spend("transfer_trooper", trooper="A-t3", combat_group=2))
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="A-t4", combat_group=2)) == \
        "no_command_token"
    assert seat_options(state, Side.A)["command_tokens"] == []
    state, _ = play(state, Side.A, {"type": "end_turn"})
    assert state.active is Side.B
    assert state.command_tokens.limited == frozenset(), "only for that turn"
    assert state.command_tokens.held == {Side.A: 3, Side.B: 3}


def test_seed_002_tactical_phase_executive_use_moves_a_trooper_and_its_order() -> None:
    state = _w6()
    body = _spend("transfer_trooper", trooper="A-t3", combat_group=2)
    assert body in seat_options(state, Side.A)["command_tokens"]
    assert not [b for b in seat_options(state, Side.B)["command_tokens"]
                if b["use"] == "transfer_trooper"], "only the Active Player"
    state, events = play(state, Side.A, body)
    assert events == (CommandTokenSpent(Side.A, "transfer_trooper", 3, (), TrooperId("A-t3"), 2),)
    assert state.trooper(TrooperId("A-t3")).entry.combat_group == 2
    assert state.orders.pools == {1: 6, 2: 3}
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t3", "order": "regular"})
    assert state.orders.pools == {1: 6, 2: 2}, "it now spends its new group's Orders"


def test_seed_002_tactical_phase_executive_use_closes_with_the_first_order_of_the_turn() -> None:
    state = _w6()
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t4", "order": "regular"})
    state = replace(state, order=None)  # the Order is over; only its spending matters here
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="A-t3", combat_group=2)) == \
        "wrong_phase"
    assert seat_options(state, Side.A)["command_tokens"] == []


def test_seed_002_tactical_phase_executive_use_respects_ten_members_and_models() -> None:
    state = _w6()
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="A-t11", combat_group=1)) == \
        "command_token_use_unavailable", "Combat Group 1 has 10 members (Hidden Deployment too)"
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="A-t3", combat_group=3)) == \
        "command_token_use_unavailable", "no such Combat Group"
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="A-t10", combat_group=2)) == \
        "trooper_not_on_table"
    assert _refused(state, Side.A, _spend("transfer_trooper", trooper="B-t1", combat_group=2)) == \
        "not_your_trooper"
    assert _refused(state, Side.A, _spend("transfer_trooper")) == "bad_command"


def test_digest_3_3_no_command_token_left_is_refused_and_not_offered() -> None:
    state = _w6()
    tokens = replace(state.command_tokens, held={Side.A: 0, Side.B: 0})
    state = replace(state, command_tokens=tokens)
    assert _refused(state, Side.B, _spend("limit_tokens")) == "no_command_token"
    assert seat_options(state, Side.A)["command_tokens"] == []
    assert seat_options(state, Side.B)["command_tokens"] == []


@pytest.mark.parametrize("side", [Side.A, Side.B])
def test_digest_3_3_every_offered_token_use_is_a_complete_accepted_body(side: Side) -> None:
    state = _w6()
    offered = seat_options(state, side)["command_tokens"]
    assert offered
    for body in offered:
        assert isinstance(engine.decide(state, side, parse_command(body)), Accepted), body


def test_digest_3_3_a_spent_token_is_open_information() -> None:
    state = _w6()
    event = CommandTokenSpent(Side.B, "remove_orders", 3, (1, 1))
    after = engine.apply(state, event)
    seen = [view_event(event, viewer, after) for viewer in (Side.A, Side.B, SPECTATOR)]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0] == {"type": "command_token_spent", "side": "B", "use": "remove_orders",
                       "left": 3, "combat_groups": [1, 1], "trooper": None, "combat_group": None}
    assert engine.state_from_plain(engine.state_to_plain(after)) == after


def test_digest_14_codeone_holds_no_command_tokens_and_refuses_their_use() -> None:
    state = build_state({"ruleset": "codeone",
                         "placements": {"A-t1": [2, 2, 90], "B-t1": [20, 30, 270]}})
    assert state.active is Side.A
    assert state.command_tokens.held == {}
    assert view_state(state, Side.B)["command_tokens"]["held"] == {}
    for body in (_spend("limit_tokens"), _spend("remove_orders", combat_groups=[1, 1]),
                 _spend("transfer_trooper", trooper="A-t1", combat_group=1)):
        for side in (Side.A, Side.B):
            assert _refused(state, side, body) == "not_allowed_by_ruleset"
    assert seat_options(state, Side.A)["command_tokens"] == []
    assert seat_options(state, Side.B)["command_tokens"] == []


# --- Coordinated Orders (DIGEST 3.4) ---------------------------------------------------------


def _w6_facing_enemy() -> GameState:
    """W6 with B's Lieutenant 14" in front of A's Lancers (Line Rifle, Burst 3) in the open."""
    setup: dict[str, Any] = copy.deepcopy(json.loads(W6.read_text())["setup"])
    setup["armies"]["A"]["entries"] += [{"id": "t11", "unit": "lancer", "combat_group": 2}]
    setup["placements"] |= {"A-t11": [30, 4, 90], "B-t1": [8, 16, 270]}
    return build_state(setup)


def _coordinate(spearhead: str, *troopers: str) -> dict[str, Any]:
    return {"type": "coordinate_order", "spearhead": spearhead, "troopers": list(troopers)}


def _shot(burst: int, target: str = "B-t1") -> dict[str, Any]:
    return {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": target, "burst": burst}]}


def _declare(spearhead: dict[str, Any], **others: dict[str, Any]) -> dict[str, Any]:
    return {"type": "declare_skill", "skill": spearhead,
            "peripherals": [{"trooper": t, "skill": s} for t, s in others.items()]}


def test_digest_3_4_coordinated_order_costs_one_token_and_one_regular_order() -> None:
    state = _w6_facing_enemy()
    before = state.orders.pools[1]
    state, events = play(state, Side.A, _coordinate("A-t3", "A-t4", "A-t5"))
    assert events[0] == CommandTokenSpent(Side.A, "coordinated_order", 3, (), TrooperId("A-t3"), 1)
    assert events[1].TYPE == "order_spent"
    assert state.orders.pools[1] == before - 1
    assert state.command_tokens.held[Side.A] == 3
    assert state.order is not None and state.order.activated == ("A-t3", "A-t4", "A-t5")


def test_digest_3_4_coordinated_bs_attack_spearhead_half_burst_others_b1_same_target() -> None:
    state, _ = play(_w6_facing_enemy(), Side.A, _coordinate("A-t3", "A-t4", "A-t5"))
    skills = seat_options(state, Side.A)["skills"]
    assert skills["coordinated"] is True
    assert skills["bs_attack"]["line_rifle"]["burst"] == 2, "3 halved, rounded up"
    assert skills["peripherals"]["A-t4"]["bs_attack"]["line_rifle"]["burst"] == 1
    assert skills["cc_attack"] == {}
    assert _refused(state, Side.A, _declare(_shot(3), **{"A-t4": _shot(1), "A-t5": _shot(1)})) == "bad_burst"
    assert _refused(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(2), "A-t5": _shot(1)})) == "bad_burst"
    assert _refused(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(1)})) == "illegal_skill_combination"
    assert _refused(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(1), "A-t5": {"type": "idle"}})) == \
        "illegal_skill_combination", "the same skill for every trooper"
    state, _ = play(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(1), "A-t5": _shot(1)}))
    # The reactive trooper has its one ARO, against one activated trooper of its choice.
    aros = seat_options(state, Side.B)["aros"]["B-t1"]
    assert set(aros["targets"]["bs_attack"]["breacher_rifle"]) == {"A-t3", "A-t4", "A-t5"}
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": "B-t1",
                                    "skill": {"type": "bs_attack", "weapon": "breacher_rifle",
                                              "targets": [{"trooper": "A-t4", "burst": 1}]}})
    assert _refused(state, Side.B, {"type": "declare_aro", "trooper": "B-t1", "skill": {"type": "dodge"}}) == \
        "aro_already_declared"
    state, _ = close_aro_window(state)
    state, _ = play(state, Side.A, _declare({"type": "idle"}, **{"A-t4": {"type": "idle"}, "A-t5": {"type": "idle"}}))
    state, events = close_aro_window(state)
    resolved = next(e for e in events if e.TYPE == "order_resolved")
    shots = {r.trooper: r for r in resolved.outcome.rolls if r.skill == "bs_attack"}
    assert {t: r.burst for t, r in shots.items() if t.startswith("A-")} == {"A-t3": 2, "A-t4": 1, "A-t5": 1}
    assert shots["B-t1"].target == "A-t4"
    face_to_face = {t for t, r in shots.items() if r.opposed_by}
    assert face_to_face == {"A-t4", "B-t1"}, "the ARO is Face to Face only with its chosen target"
    assert state.order is None


def test_digest_3_4_coordinated_order_one_single_target_and_no_cc() -> None:
    state, _ = play(_w6_facing_enemy(), Side.A, _coordinate("A-t3", "A-t4"))
    state = replace(state, troopers={**state.troopers, TrooperId("B-t2"): replace(
        state.trooper(TrooperId("B-t2")), position=(12.0, 16.0))})
    assert _refused(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(1, "B-t2")})) == "bad_target"
    two = {"type": "bs_attack", "weapon": "line_rifle",
           "targets": [{"trooper": "B-t1", "burst": 1}, {"trooper": "B-t2", "burst": 1}]}
    assert _refused(state, Side.A, _declare(two, **{"A-t4": _shot(1)})) == "bad_target"
    move = {"type": "move", "route": [[6, 2], [6, 5]]}
    state, _ = play(state, Side.A, _declare(move, **{"A-t4": {"type": "move", "route": [[8, 2], [8, 5]]}}))
    assert state.trooper(TrooperId("A-t4")).position == (8.0, 5.0)


def test_digest_3_4_coordinated_order_who_may_take_part() -> None:
    state = _w6_facing_enemy()
    assert _refused(state, Side.A, _coordinate("A-t3", "A-t4", "A-t5", "A-t6", "A-t7")) == "bad_command", "up to 4"
    assert _refused(state, Side.A, _coordinate("A-t3")) == "bad_command"
    assert _refused(state, Side.A, _coordinate("A-t3", "A-t11")) == "order_not_for_trooper", "one Combat Group"
    assert _refused(state, Side.A, _coordinate("A-t3", "A-t8")) == "command_token_use_unavailable", "Irregular"
    isolated = replace(state, troopers={**state.troopers, TrooperId("A-t4"): replace(
        state.trooper(TrooperId("A-t4")), isolated=True)})
    assert _refused(isolated, Side.A, _coordinate("A-t3", "A-t4")) == "command_token_use_unavailable"
    assert _refused(state, Side.B, _coordinate("B-t1", "B-t2")) == "not_your_turn"
    spent = replace(state, command_tokens=replace(state.command_tokens, held={Side.A: 0, Side.B: 4}))
    assert _refused(spent, Side.A, _coordinate("A-t3", "A-t4")) == "no_command_token"
    offered = seat_options(state, Side.A)["coordinate"]
    # W6: A-t8 is Irregular, A-t9 Unconscious, A-t10 in Hidden Deployment; A-t11 in group 2 alone.
    assert offered["A-t3"] == ["A-t1", "A-t2", "A-t4", "A-t5", "A-t6", "A-t7"]
    assert not {"A-t8", "A-t9", "A-t10", "A-t11"} & set(offered)
    assert seat_options(state, Side.B)["coordinate"] == {}
    assert seat_options(spent, Side.A)["coordinate"] == {}


def test_digest_3_4_coordinated_order_with_controllers_and_in_codeone_refused() -> None:
    from tests.support.skirmish import skirmish

    n5 = skirmish({"A-t4": [10, 4, 90], "A-t7": [14, 4, 90], "A-t8": [18, 4, 90], "A-t1": [2, 2, 90],
                   "B-t1": [2, 46, 270]}, ruleset="n5")
    assert _refused(n5, Side.A, _coordinate("A-t7", "A-t4")) == "command_token_use_unavailable", \
        "a Controller (the Field Tinker) takes no part"
    play(n5, Side.A, _coordinate("A-t7", "A-t8"))
    c1 = skirmish({"A-t1": [2, 2, 90], "A-t2": [6, 2, 90], "B-t1": [2, 30, 270]})
    assert _refused(c1, Side.A, _coordinate("A-t1", "A-t2")) == "not_allowed_by_ruleset"
    assert seat_options(c1, Side.A)["coordinate"] == {}


def test_digest_3_4_coordinated_dodge_is_one_roll_opposed_to_every_attack() -> None:
    state, _ = play(_w6_facing_enemy(), Side.A, _coordinate("A-t3", "A-t4", "A-t5"))
    state, _ = play(state, Side.A, _declare(_shot(2), **{"A-t4": _shot(1), "A-t5": _shot(1)}))
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": "B-t1", "skill": {"type": "dodge"}})
    state, _ = close_aro_window(state)
    state, _ = play(state, Side.A, _declare({"type": "idle"}, **{"A-t4": {"type": "idle"}, "A-t5": {"type": "idle"}}))
    state, events = close_aro_window(state)
    rolls = next(e for e in events if e.TYPE == "order_resolved").outcome.rolls
    dodge = next(i for i, r in enumerate(rolls) if r.skill == "dodge")
    attacks = [i for i, r in enumerate(rolls) if r.skill == "bs_attack"]
    assert len(attacks) == 3 and set(rolls[dodge].opposed_by) == set(attacks)
    assert all(rolls[i].opposed_by == (dodge,) for i in attacks)
