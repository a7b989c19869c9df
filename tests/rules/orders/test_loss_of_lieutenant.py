"""DIGEST 11.3 Loss of Lieutenant: the player names its new Lieutenant (``appoint_lieutenant``),
privately, while in Loss of Lieutenant; the choice takes effect at the End of its Turn, and a
player who named nobody gets the eligible trooper with the highest WIP (docs/rules-decisions/README.md;
the seeds are silent on how the player chooses).

The Lieutenant is lost in a real skirmish (N5, injected dice): the other side plays first and
shoots it down, ends its turn, and the Tactical Phase of the side that lost it declares Loss of
Lieutenant.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.wounds import Condition
from server.rules.decision import Accepted, Rejected
from server.rules.events import (
    LieutenantAppointed,
    LossOfLieutenant,
    OrdersCounted,
    StatesPhaseChecked,
    TurnEnded,
)
from server.rules.ids import CASTER, SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.skirmish import Placement, skirmish

T = TrooperId
# vesper-raiders (B): Boss B-t1 is the Lieutenant (WIP 14); Enforcers B-t3, B-t14 (Regular,
# WIP 13); Ganger B-t7 (Irregular); Hauler Gun Drone B-t10 (REM); B-t4 is shot Unconscious.
B_CHOICE, B_DEFAULT = "B-t3", "B-t14"  # B-t14: highest WIP, then the lowest id
B_TROOPERS: dict[str, Placement] = {
    "B-t1": (10.0, 16.0, 90.0), "B-t4": (12.0, 16.0, 90.0),  # facing away from A-t7's shot
    "B-t3": (30.0, 44.0, 90.0), "B-t14": (34.0, 44.0, 90.0), "B-t7": (38.0, 44.0, 90.0),
    "B-t10": (42.0, 44.0, 90.0),
}
# helion-vanguard (A): Warden Officer A-t1 is the Lieutenant; Field Tinker A-t4 (WIP 14);
# its Gnat Drone A-p1 (Peripheral); Strider Walker A-t5 (REM); Lancer A-t8 (WIP 13).
A_TROOPERS: dict[str, Placement] = {
    "A-t1": (10.0, 16.0, 90.0),
    "A-t4": (30.0, 46.0, 90.0), "A-p1": (34.0, 46.0, 90.0), "A-t5": (38.0, 46.0, 90.0),
    "A-t8": (42.0, 46.0, 90.0),
}
HITS_THEN_FAILED_SAVES = [1, 2, 3, 20, 20, 20]


def lieutenant_shot_down(side: Side) -> GameState:
    """``side.other`` plays first: its Lancer/Enforcer at (10, 4) shoots ``side``'s Lieutenant
    (and, for B, B-t4 too) with three hits that fail their saves, then ends its turn.
    Returns the state at ``side``'s Orders Phase, in Loss of Lieutenant."""
    shooter = side.other
    if side is Side.B:
        placements = {**B_TROOPERS, "A-t7": (10.0, 4.0, 90.0), "A-t1": (2.0, 2.0, 270.0)}
        body = {"type": "activate", "trooper": "A-t7", "order": "regular"}
        shot = {"type": "bs_attack", "weapon": "line_rifle",
                "targets": [{"trooper": "B-t1", "burst": 2}, {"trooper": "B-t4", "burst": 1}]}
    else:
        placements = {**A_TROOPERS, "B-t3": (10.0, 4.0, 90.0), "B-t1": (2.0, 2.0, 270.0)}
        body = {"type": "activate", "trooper": "B-t3", "order": "regular"}
        shot = {"type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": "A-t1", "burst": 3}]}
    state = skirmish(placements, ruleset="n5", first=shooter, dice=HITS_THEN_FAILED_SAVES)
    state, _ = play(state, shooter, body)
    state, _ = play(state, shooter, {"type": "declare_skill", "skill": shot})
    state, _ = close_aro_window(state)
    state, _ = play(state, shooter, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, _ = close_aro_window(state)
    assert not state.dice.injected
    assert state.trooper(T(f"{side.value}-t1")).is_null
    state, events = play(state, shooter, c.EndTurn())
    assert LossOfLieutenant(side) in events
    assert state.active is side and state.phase is Phase.ORDERS
    assert state.loss_of_lieutenant == {side}
    return state


def _appoint(state: GameState, side: Side, trooper: str) -> Rejected | Accepted:
    decision = engine.decide(state, side, c.AppointLieutenant(T(trooper)))
    assert isinstance(decision, Rejected | Accepted)
    return decision


def _lieutenants(state: GameState, side: Side) -> list[str]:
    return [t.id for t in state.troopers_of(side) if t.entry.lieutenant]


def _end_turn(state: GameState, side: Side) -> tuple[GameState, TurnEnded]:
    state, events = play(state, side, c.EndTurn())
    (ended,) = [e for e in events if isinstance(e, TurnEnded)]
    return state, ended


# --- who may appoint, and whom --------------------------------------------------------------


def test_digest_11_3_appointing_is_refused_outside_loss_of_lieutenant() -> None:
    state = skirmish({**B_TROOPERS, "A-t7": (10.0, 4.0, 90.0), "A-t1": (2.0, 2.0, 270.0)}, ruleset="n5")
    assert not state.loss_of_lieutenant
    for side, trooper in ((Side.A, "A-t7"), (Side.B, B_CHOICE)):
        decision = _appoint(state, side, trooper)
        assert isinstance(decision, Rejected) and decision.code == "wrong_phase", decision
    # In B's Loss of Lieutenant, A (which has its Lieutenant) may still appoint no one.
    lost = lieutenant_shot_down(Side.B)
    decision = _appoint(lost, Side.A, "A-t7")
    assert isinstance(decision, Rejected) and decision.code == "wrong_phase"


@pytest.mark.parametrize(("side", "trooper", "why"), [
    (Side.B, "B-t7", "an Irregular trooper"),
    (Side.B, "B-t10", "a REM"),
    (Side.B, "B-t4", "a trooper in a Null state (Unconscious)"),
    (Side.B, "B-t1", "the lost Lieutenant itself, Unconscious"),
    (Side.B, "B-t5", "a trooper not on the table"),
    (Side.A, "A-p1", "a Peripheral"),
    (Side.A, "A-t5", "a REM"),
])
def test_digest_11_3_the_new_lieutenant_may_not_be_peripheral_rem_irregular_or_null(
    side: Side, trooper: str, why: str
) -> None:
    state = lieutenant_shot_down(side)
    decision = _appoint(state, side, trooper)
    assert isinstance(decision, Rejected) and decision.code == "bad_target", (why, decision)


def test_digest_11_3_a_player_appoints_only_its_own_trooper() -> None:
    state = lieutenant_shot_down(Side.B)
    decision = _appoint(state, Side.B, "A-t7")
    assert isinstance(decision, Rejected) and decision.code == "not_your_trooper"


def test_digest_11_3_options_list_the_candidates_only_for_the_player_in_loss_of_lieutenant() -> None:
    state = lieutenant_shot_down(Side.B)
    assert sorted(seat_options(state, Side.B)["appoint_lieutenant"]) == [B_DEFAULT, B_CHOICE]
    assert seat_options(state, Side.A)["appoint_lieutenant"] == []
    for trooper in seat_options(state, Side.B)["appoint_lieutenant"]:
        assert isinstance(_appoint(state, Side.B, trooper), Accepted)
    lost_a = lieutenant_shot_down(Side.A)
    assert sorted(seat_options(lost_a, Side.A)["appoint_lieutenant"]) == ["A-t4", "A-t8"]
    assert seat_options(lost_a, Side.B)["appoint_lieutenant"] == []
    before = skirmish({**B_TROOPERS, "A-t7": (10.0, 4.0, 90.0), "A-t1": (2.0, 2.0, 270.0)}, ruleset="n5")
    assert seat_options(before, Side.A)["appoint_lieutenant"] == []
    assert seat_options(before, Side.B)["appoint_lieutenant"] == []


# --- when it takes effect -------------------------------------------------------------------


def test_digest_11_3_the_named_trooper_becomes_lieutenant_at_the_end_of_turn() -> None:
    state = lieutenant_shot_down(Side.B)
    state, events = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    assert events == (LieutenantAppointed(Side.B, T(B_CHOICE)),)
    assert _lieutenants(state, Side.B) == ["B-t1"], "nothing changes before the End of Turn"
    state, ended = _end_turn(state, Side.B)
    assert ended.side is Side.B
    assert _lieutenants(state, Side.B) == [B_CHOICE], "the choice, not the highest WIP default"
    assert Side.B not in state.loss_of_lieutenant and Side.B not in state.lieutenant_choice
    # A's turn, then B's next Tactical Phase: no Loss of Lieutenant, the new Lieutenant's Order.
    state, events = play(state, Side.A, c.EndTurn())
    assert not any(isinstance(e, LossOfLieutenant) for e in events)
    (counted,) = [e for e in events if isinstance(e, OrdersCounted)]
    assert counted.side is Side.B and counted.lieutenant == B_CHOICE


def test_digest_11_3_the_end_of_turn_says_that_a_lieutenant_took_office_and_whom() -> None:
    state = lieutenant_shot_down(Side.B)
    state, _ = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    state, ended = _end_turn(state, Side.B)
    assert (ended.lieutenant_appointed, ended.new_lieutenant) == (True, B_CHOICE)
    # A side not in Loss of Lieutenant: the End of its Turn says nothing of Lieutenants.
    state, ended = _end_turn(state, Side.A)
    assert (ended.lieutenant_appointed, ended.new_lieutenant) == (None, None)


def test_digest_11_3_a_choice_killed_in_the_states_phase_leaves_the_office_to_the_default() -> None:
    """The End of Turn's new Lieutenant is chosen among the troopers the States Phase leaves
    standing: a chosen trooper fighting on Dogged dies there first."""
    state = lieutenant_shot_down(Side.B)
    state, _ = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    chosen = state.trooper(T(B_CHOICE))
    dogged = replace(chosen, wounds=chosen.profile.vita, dogged_in=(state.round, state.turn))
    state = replace(state, troopers={**state.troopers, dogged.id: dogged})
    after, events = play(state, Side.B, c.EndTurn())
    (checked,) = [e for e in events if isinstance(e, StatesPhaseChecked)]
    (ended,) = [e for e in events if isinstance(e, TurnEnded)]
    assert checked.dogged_dead == (B_CHOICE,)
    assert events.index(checked) < events.index(ended)
    assert (ended.lieutenant_appointed, ended.new_lieutenant) == (True, B_DEFAULT)
    assert after.trooper(T(B_CHOICE)).condition is Condition.DEAD
    assert _lieutenants(after, Side.B) == [B_DEFAULT]
    assert engine.apply_all(state, events) == after


def test_digest_11_3_a_record_made_before_the_end_of_turn_named_the_lieutenant_replays_the_same() -> None:
    """Games recorded before ``turn_ended`` named the new Lieutenant replay to the same state:
    the same rule finds it."""
    state = lieutenant_shot_down(Side.B)
    state, _ = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    after, events = play(state, Side.B, c.EndTurn())
    old = [replace(e, lieutenant_appointed=None, new_lieutenant=None)
           if isinstance(e, TurnEnded) else e for e in events]
    assert old != list(events)
    assert engine.apply_all(state, old) == after


def test_digest_11_3_a_later_choice_replaces_an_earlier_one() -> None:
    state = lieutenant_shot_down(Side.B)
    state, _ = play(state, Side.B, c.AppointLieutenant(T(B_DEFAULT)))
    state, _ = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    state, _ = _end_turn(state, Side.B)
    assert _lieutenants(state, Side.B) == [B_CHOICE]


def test_digest_11_3_without_a_choice_the_highest_wip_trooper_becomes_lieutenant() -> None:
    state = lieutenant_shot_down(Side.B)
    state, _ = _end_turn(state, Side.B)
    assert _lieutenants(state, Side.B) == [B_DEFAULT]
    lost_a = lieutenant_shot_down(Side.A)
    lost_a, _ = _end_turn(lost_a, Side.A)
    assert _lieutenants(lost_a, Side.A) == ["A-t4"]  # WIP 14, above the Lancer's 13


# --- private information --------------------------------------------------------------------


def test_digest_11_3_who_is_appointed_is_private_to_its_player() -> None:
    state = lieutenant_shot_down(Side.B)
    state, (event,) = play(state, Side.B, c.AppointLieutenant(T(B_CHOICE)))
    assert view_event(event, Side.B, state) == {"type": "lieutenant_appointed", "side": "B",
                                                "trooper": B_CHOICE}
    for viewer in (Side.A, SPECTATOR):
        assert view_event(event, viewer, state) is None
    state, _ = _end_turn(state, Side.B)
    state, _ = play(state, Side.A, c.EndTurn())  # B's next turn: its new Lieutenant's Order
    for viewer in (Side.A, SPECTATOR):
        view = view_state(state, viewer)
        assert view["orders"]["lieutenant"] is True  # the token is open, its owner is not
        theirs = [t for t in view["troopers"] if t["side"] == "B"]
        assert all("entry" not in t for t in theirs)
    mine = {t["id"]: t for t in view_state(state, Side.B)["troopers"]}
    assert mine[B_CHOICE]["entry"]["lieutenant"] is True


def test_digest_11_3_the_end_of_turn_tells_others_that_a_lieutenant_took_office_not_whom() -> None:
    """Its player and casters read whom in ``turn_ended``; the opponent and spectators only
    that one did (the side leaves Loss of Lieutenant in every view), the same whatever the
    choice."""
    seen: dict[str, list[dict[str, object] | None]] = {}
    for choice in (B_CHOICE, B_DEFAULT):
        state = lieutenant_shot_down(Side.B)
        state, _ = play(state, Side.B, c.AppointLieutenant(T(choice)))
        state, ended = _end_turn(state, Side.B)
        for viewer in (Side.B, CASTER):
            view = view_event(ended, viewer, state)
            assert view is not None
            assert (view["lieutenant_appointed"], view["new_lieutenant"]) == (True, choice)
        seen[choice] = [view_event(ended, viewer, state) for viewer in (Side.A, SPECTATOR)]
        for view in seen[choice]:
            assert view is not None
            assert (view["lieutenant_appointed"], view["new_lieutenant"]) == (True, None)
        for viewer in (Side.A, Side.B, SPECTATOR, CASTER):
            assert view_state(state, viewer)["loss_of_lieutenant"] == []
    assert seen[B_CHOICE] == seen[B_DEFAULT]
