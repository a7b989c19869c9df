"""Seed 000/001/003: Structure of an Order, ARO, the Order Expenditure Sequence.

Each test names the rule it checks. Setups use ``skirmish``: A's troopers south facing
north (90 degrees), B's troopers north facing south (270 degrees), on the CodeOne table.
"""

from __future__ import annotations

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import AroWindowClosed, AroWindowOpened, OrderResolved, SkillDeclared
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.state import OrderStep, OrderType
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

A1, A5 = "A-t5", "A-t6"  # Lancer Line Troopers (line_rifle B3)
B_SHOOTER, B_AWAY, B_ZOC = "B-t3", "B-t4", "B-t6"


def setup(**extra: tuple[float, float, float]) -> object:
    placements = {
        A1: (22.5, 4.0, 90.0),
        A5: (1.5, 1.5, 90.0),
        B_SHOOTER: (22.5, 28.0, 270.0),  # sees A1's column
        B_AWAY: (1.5, 30.0, 90.0),  # faces away, far: never eligible
        "A-t1": (3.5, 1.5, 90.0),  # Lieutenants, out of the way
        "B-t1": (3.5, 30.5, 90.0),
        **extra,
    }
    return skirmish(placements)


def decide(state, actor, body):  # type: ignore[no-untyped-def]
    return engine.decide(state, actor, c.parse_command(body))


def activate(state, trooper=A1, order="regular"):  # type: ignore[no-untyped-def]
    state, _ = play(state, Side.A, {"type": "activate", "trooper": trooper, "order": order})
    return state


def move(state, route, side=Side.A):  # type: ignore[no-untyped-def]
    return play(state, side, {"type": "declare_skill", "skill": {"type": "move", "route": route}})


def shot(trooper: str, weapon: str = "line_rifle") -> dict[str, object]:
    return {"type": "bs_attack", "weapon": weapon, "targets": [{"trooper": trooper, "burst": 1}]}


# --- Structure of an Order -------------------------------------------------------------


def test_entire_order_skill_cannot_be_combined() -> None:
    state = activate(setup())
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "cautious_move", "route": [[22.5, 4], [22.5, 5]]}})
    # The ARO step passes (B_SHOOTER answers, B closes the window), then no second skill is
    # asked for.
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, events = close_aro_window(state)
    assert any(isinstance(e, OrderResolved) for e in events)
    assert state.order is None


def test_two_short_movement_skills_may_be_combined() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 6]])
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    state, events = move(state, [[22.5, 6], [22.5, 8]])
    assert any(isinstance(e, SkillDeclared) and e.index == 2 for e in events)


def test_short_skill_then_short_movement_skill_vice_versa_allowed() -> None:
    state = activate(setup())
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": shot(B_SHOOTER) | {"targets": [{"trooper": B_SHOOTER, "burst": 3}]}})
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    state, events = move(state, [[22.5, 4], [22.5, 6]])
    assert any(isinstance(e, SkillDeclared) and e.skill.TYPE == "move" for e in events)


def test_two_short_skills_are_never_combined() -> None:
    state = activate(setup())
    full = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": full})
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    answer = decide(state, Side.A, {"type": "declare_skill", "skill": {"type": "dodge"}})
    assert isinstance(answer, Rejected) and answer.code == "illegal_skill_combination"


def test_movement_places_the_trooper_at_the_end_of_its_route() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 7]])
    assert state.trooper(A1).position == (22.5, 7)
    assert state.order is not None and state.order.path == ((22.5, 4.0), (22.5, 7.0))


def test_route_longer_than_mov_is_rejected_with_a_reason() -> None:
    state = activate(setup())
    answer = decide(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 9]]}})
    assert isinstance(answer, Rejected) and answer.code == "route_too_long"
    assert "inches" in answer.message


def test_second_move_uses_the_second_mov_value() -> None:
    # Colossus Assault Frame: MOV 4-2.
    state = skirmish({"A-t10": (22.5, 4, 90.0), B_SHOOTER: (22.5, 28.0, 270.0), "A-t1": (3.5, 1.5, 90.0)})
    state, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t10", "order": "regular"})
    state, _ = move(state, [[22.5, 4], [22.5, 8]])
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    answer = decide(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 8], [22.5, 11]]}})
    assert isinstance(answer, Rejected) and answer.code == "route_too_long"


# --- ARO --------------------------------------------------------------------------------


def test_aro_eligibility_by_line_of_fire_only_for_troopers_that_see_the_activation() -> None:
    state = activate(setup())
    state, events = move(state, [[22.5, 4], [22.5, 6]])
    opened = next(e for e in events if isinstance(e, AroWindowOpened))
    assert {x.trooper for x in opened.eligible} == {B_SHOOTER}
    assert opened.eligible[0].line_of_fire


def test_aro_eligibility_by_zone_of_control_allows_only_dodge_or_reset() -> None:
    # B_ZOC faces away (north) 6 inches from A1's route: ZoC without LoF.
    state = activate(setup(**{B_ZOC: (20.0, 12.0, 90.0)}))
    state, events = move(state, [[22.5, 4], [22.5, 7]])
    opened = next(e for e in events if isinstance(e, AroWindowOpened))
    zoc = next(x for x in opened.eligible if x.trooper == B_ZOC)
    assert zoc.zone_of_control and not zoc.line_of_fire
    # Only Dodge or Reset are offered; a BS Attack is accepted and fails the ARO Check
    # (test_seed_000_requirements.py::test_seed_000_aro_check_fails_zoc_only_*).
    offered = seat_options(state, Side.B)["aros"][B_ZOC]
    assert offered["dodge"] and offered["reset"] and offered["bs_attack"] == []
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_ZOC, "skill": shot(A1, "scatter_gun")})
    assert isinstance(answer, Accepted)
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_ZOC, "skill": {"type": "dodge"}})
    assert isinstance(answer, Accepted)


def test_trooper_that_could_declare_and_did_not_loses_its_aro() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 6]])
    order = state.order
    assert order is not None
    state, events = play(state, engine.SYSTEM, c.CloseAroWindow(order.number, 1))
    closed = next(e for e in events if isinstance(e, AroWindowClosed))
    assert closed.lost == (B_SHOOTER,) and closed.reason == "deadline"
    state, events = move(state, [[22.5, 6], [22.5, 8]])
    # Step 4 only for troopers that became eligible through the second skill: none here. The
    # window opens all the same, empty, and waits for the reactive player.
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert opened.step == 2 and opened.eligible == ()
    assert not any(isinstance(e, OrderResolved) for e in events)
    state, events = close_aro_window(state)
    assert [type(e) for e in events] == [AroWindowClosed, OrderResolved]


def test_one_aro_per_trooper_per_order_whatever_the_number_of_skills() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 6]])
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": shot(A1, "punch_carbine")})
    answer = decide(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    assert isinstance(answer, Rejected)
    state, _ = close_aro_window(state)
    state, events = move(state, [[22.5, 6], [22.5, 8]])
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert opened.step == 2 and opened.eligible == ()  # B_SHOOTER has had its ARO


def test_aro_must_target_a_trooper_activated_by_the_order() -> None:
    state = activate(setup(**{"A-t7": (21.0, 6.0, 90.0)}))
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": shot("A-t7", "punch_carbine")})
    assert isinstance(answer, Rejected) and answer.code == "bad_target"


def test_only_skills_usable_in_aro_may_be_declared() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": {"type": "move", "route": [[22.5, 28], [22.5, 27]]}})
    assert isinstance(answer, Rejected) and answer.code == "skill_not_allowed"


def test_aro_has_burst_one_and_is_never_split() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    three = {"type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": A1, "burst": 3}]}
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": three})
    assert isinstance(answer, Rejected) and answer.code == "bad_burst"


def test_troopers_cannot_react_to_aros_only_the_reactive_player_declares() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    answer = decide(state, Side.A, {"type": "declare_aro", "trooper": A5, "skill": {"type": "dodge"}})
    assert isinstance(answer, Rejected) and answer.code == "not_your_turn"


def test_no_limit_to_the_number_of_reacting_troopers() -> None:
    extra = {f"B-t{n}": (14.0 + 2 * n, 29.5, 270.0) for n in (7, 8)}
    state = activate(setup(**extra))
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    order = state.order
    assert order is not None and len(order.eligible) == 3
    for trooper in order.eligible:
        weapon = state.trooper(trooper).profile.weapons[0]
        state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": trooper, "skill": shot(A1, weapon)})
    assert state.order is not None and len(state.order.aros) == 3
    state, _ = close_aro_window(state)
    assert state.order is not None and state.order.step is OrderStep.SECOND_SKILL
    assert len(state.order.aros) == 3


def test_second_skill_gives_aro_only_to_newly_eligible_troopers() -> None:
    # A trooper facing away is out of LoF; only A's second move enters its ZoC.
    state = activate(setup(**{B_ZOC: (15.0, 12.0, 90.0)}))
    state, events = move(state, [[22.5, 4], [22.5, 6]])
    first = next(e for e in events if isinstance(e, AroWindowOpened))
    assert B_ZOC not in {x.trooper for x in first.eligible}
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    state, _ = close_aro_window(state)
    state, events = move(state, [[22.5, 6], [22.5, 9.5]])
    second = next(e for e in events if isinstance(e, AroWindowOpened))
    assert {x.trooper for x in second.eligible} == {B_ZOC}
    assert second.step == 2
    answer = decide(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": {"type": "dodge"}})
    assert isinstance(answer, Rejected) and answer.code == "not_eligible_for_aro"


def test_window_stays_open_until_the_reactive_player_closes_it_even_when_every_eligible_trooper_answered() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    state, events = play(state, Side.B, {"type": "pass_aro", "trooper": B_SHOOTER})
    assert not any(isinstance(e, AroWindowClosed) for e in events)
    assert engine.pending_aro_window(state) is not None
    # The active player waits for the window to close.
    answer = decide(state, Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 5], [22.5, 6]]}})
    assert isinstance(answer, Rejected) and answer.code == "wrong_phase"
    state, events = close_aro_window(state)
    (closed,) = events
    assert isinstance(closed, AroWindowClosed)
    assert closed.reason == "closed_by_player" and closed.lost == () and closed.lost_hidden == ()
    assert engine.pending_aro_window(state) is None


def test_declarations_before_resolution_are_all_recorded() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    state, _ = play(state, Side.B, {"type": "declare_aro", "trooper": B_SHOOTER, "skill": shot(A1, "punch_carbine")})
    state, _ = close_aro_window(state)
    full = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}
    state, events = play(state, Side.A, {"type": "declare_skill", "skill": full})
    state, more = close_aro_window(state)
    events += more
    resolved = next(e for e in events if isinstance(e, OrderResolved))
    skills = {r.trooper: r.skill for r in resolved.outcome.rolls}
    assert skills == {A1: "bs_attack", B_SHOOTER: "bs_attack"}


def test_stale_window_close_is_rejected() -> None:
    state = activate(setup())
    state, _ = move(state, [[22.5, 4], [22.5, 5]])
    answer = engine.decide(state, engine.SYSTEM, c.CloseAroWindow(order=99, step=1))
    assert isinstance(answer, Rejected) and answer.code == "stale_window"


@pytest.mark.parametrize("order", [OrderType.IRREGULAR, OrderType.TACTICAL, OrderType.LIEUTENANT])
def test_orders_a_trooper_does_not_have_are_refused(order: OrderType) -> None:
    state = setup()
    answer = engine.decide(state, Side.A, c.Activate(A1, order))  # type: ignore[arg-type]
    assert isinstance(answer, Rejected) and answer.code == "order_not_for_trooper"
