"""The first player's Strategic Command Token use in deployment (DIGEST 3.3 "hold back one
extra trooper (plus Peripherals) to deploy in step 3", 11.1): ``spend_command_token`` with
``use="hold_back"`` during its own main deployment step; two main troopers then wait for
its reserve step. Not for the second player, not twice, not in CodeOne."""

from __future__ import annotations

from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Rejected
from server.rules.events import CommandTokenSpent
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from tests.support.games import deploy_all, new_game_in_deployment, play

HOLD_BACK = {"type": "spend_command_token", "use": "hold_back"}


def _deploying(ruleset: str = "n5", *, first_deploys_first: bool = True) -> GameState:
    """Armies chosen, A plays first (south); A deploys first unless told otherwise."""
    state = new_game_in_deployment(ruleset, 7, a_deploys_first=first_deploys_first)
    assert state.phase is Phase.DEPLOYMENT and state.initiative.first_player is Side.A
    return state


def _refused(state: GameState, side: Side, body: dict[str, Any]) -> str:
    decision = engine.decide(state, side, c.parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def _mains(state: GameState, side: Side) -> list[Any]:
    return [t for t in state.troopers_of(side) if not t.entry.is_peripheral]


def _deploy_but(state: GameState, side: Side, kept: int) -> GameState:
    """Deploy every main trooper but the last ``kept`` (and their Peripherals), then end the step."""
    mains = _mains(state, side)
    keep = {t.entry.id for t in mains[-kept:]}
    facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
    waiting = [t.id for t in state.troopers_of(side) if t.position is None
               and t.entry.id not in keep and t.entry.controller not in keep]
    state = deploy_all(state, side, waiting, facing)
    state, _ = play(state, side, c.EndDeploymentStep())
    return state


def _deploy_rest(state: GameState, side: Side) -> GameState:
    facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
    state = deploy_all(state, side, [t.id for t in state.troopers_of(side) if t.position is None], facing)
    state, _ = play(state, side, c.EndDeploymentStep())
    return state


def test_digest_3_3_strategic_hold_back_a_second_trooper_deploys_in_step_3() -> None:
    state = _deploying()
    assert seat_options(state, Side.A)["command_tokens"] == [HOLD_BACK]
    assert seat_options(state, Side.B)["command_tokens"] == []
    state, events = play(state, Side.A, HOLD_BACK)
    assert events == (CommandTokenSpent(Side.A, "hold_back", 3),)
    assert state.command_tokens.held == {Side.A: 3, Side.B: 4}
    assert _refused(state, Side.A, HOLD_BACK) == "command_token_use_unavailable", "once per game"
    assert seat_options(state, Side.A)["command_tokens"] == []
    mains = _mains(state, Side.A)
    # Two kept: both are the reserve, neither may deploy now, and the step ends.
    state_two = _deploy_but_no_end(state, Side.A, 2)
    options = seat_options(state_two, Side.A)
    kept = [t.id for t in mains[-2:]]
    assert options["reserves"] == kept and options["reserve"] == kept[0] and options["deploy"] == []
    assert options["end_deployment_step"] is True
    assert _refused(state_two, Side.A, {"type": "deploy", "trooper": kept[1], "position": [40, 2],
                                        "facing": 90.0}) == "reserve_trooper"
    # With three waiting, ending the step is refused (two, not one, stay in reserve).
    state_three = _deploy_but_no_end(state, Side.A, 3)
    assert _refused(state_three, Side.A, {"type": "end_deployment_step"}) == "deployment_incomplete"
    assert len(seat_options(state_three, Side.A)["deploy"]) == 3  # any one of them may go now
    state, _ = play(state_two, Side.A, c.EndDeploymentStep())
    state = _deploy_but(state, Side.B, 1)  # the second player keeps its one reserve
    assert state.deployment.step == 3
    assert [t.id for t in state.troopers_of(Side.A) if t.position is None] == kept
    state = _deploy_rest(state, Side.A)  # step 3: both held back troopers
    state = _deploy_rest(state, Side.B)
    assert state.phase in (Phase.IMPETUOUS, Phase.ORDERS) and state.active is Side.A


def _deploy_but_no_end(state: GameState, side: Side, kept: int) -> GameState:
    mains = _mains(state, side)
    keep = {t.entry.id for t in mains[-kept:]}
    return deploy_all(state, side, [t.id for t in state.troopers_of(side) if t.position is None
                                    and t.entry.id not in keep and t.entry.controller not in keep], 90.0)


def test_digest_3_3_strategic_hold_back_when_the_first_player_deploys_second() -> None:
    """The first player's reserve step is then step 4: the held back trooper waits for it."""
    state = _deploying(first_deploys_first=False)
    assert state.initiative.deploys_first is Side.B
    assert seat_options(state, Side.A)["command_tokens"] == [], "not in the opponent's step"
    assert _refused(state, Side.A, HOLD_BACK) == "command_token_use_unavailable"
    assert _refused(state, Side.B, HOLD_BACK) == "command_token_use_unavailable", "second player"
    state = _deploy_but(state, Side.B, 1)
    state, _ = play(state, Side.A, HOLD_BACK)
    state = _deploy_but(state, Side.A, 2)
    state = _deploy_rest(state, Side.B)  # step 3: B's reserve
    assert state.deployment.step == 4 and len([t for t in state.troopers_of(Side.A) if t.position is None]) == 2
    state = _deploy_rest(state, Side.A)
    assert state.phase in (Phase.IMPETUOUS, Phase.ORDERS)


def test_digest_3_3_strategic_hold_back_not_once_the_step_leaves_fewer_than_two_waiting() -> None:
    state = _deploying()
    state = _deploy_but_no_end(state, Side.A, 1)
    assert _refused(state, Side.A, HOLD_BACK) == "command_token_use_unavailable"
    assert seat_options(state, Side.A)["command_tokens"] == []


def test_digest_3_3_strategic_hold_back_codeone_has_no_command_tokens() -> None:
    state = _deploying("codeone")
    assert _refused(state, Side.A, HOLD_BACK) == "not_allowed_by_ruleset"
    assert seat_options(state, Side.A)["command_tokens"] == []


def test_digest_3_3_strategic_hold_back_and_airborne_deployment_leave_the_step_playable() -> None:
    """Found by a random game with two brought lists (the first player held back, then kept
    its Combat Jump trooper, one of the two waiting, off the table): the shipped Helion
    Vanguard does the same. Whatever the rule for it, the deploying seat must have a move."""
    state = _deploying()
    state, _ = play(state, Side.A, HOLD_BACK)
    state = _deploy_but_no_end(state, Side.A, 2)
    jumper = next(t for t in _mains(state, Side.A) if t.profile.combat_jump)
    assert jumper.position is None, "the Combat Jump trooper is one of the two held back"
    # A reserve trooper stays waiting: keeping it airborne waits for the reserve step.
    decision = engine.decide(state, Side.A, c.KeepAirborne(jumper.id))
    assert isinstance(decision, Rejected) and decision.code == "reserve_trooper"
    options = seat_options(state, Side.A)
    assert jumper.id not in options["keep_airborne"]
    assert options["end_deployment_step"], options
    state, _ = play(state, Side.A, c.EndDeploymentStep())
    assert state.deployment.step == 2


def test_regression_digest_3_3_no_hold_back_once_airborne_deployment_leaves_one_waiting() -> None:
    """DIGEST 11.1 (all but one trooper deploy in the main step) and 3.3 (the first player
    may hold back one extra trooper): found by a random game (n5 seed 73 on a mission table).
    The first player kept its Combat Jump trooper off the table, deployed all but one other
    main trooper, then was let hold back though only that one still waited (the airborne
    trooper, with no position, was counted as waiting). The step then asked for two
    troopers in reserve with one left: no deploy, no end of the step, a soft-lock. A trooper
    in Airborne Deployment is done with, so there is nobody left to hold back."""
    state = _deploying()
    jumper = next(t for t in _mains(state, Side.A) if t.profile.combat_jump)
    state, _ = play(state, Side.A, c.KeepAirborne(jumper.id))
    others = [t for t in _mains(state, Side.A) if t.id != jumper.id]
    last = others[-1]
    state = deploy_all(state, Side.A, [t.id for t in state.troopers_of(Side.A)
                                       if t.position is None and not t.airborne
                                       and last.entry.id not in (t.entry.id, t.entry.controller)],
                       90.0)
    assert [t.id for t in state.troopers_of(Side.A) if t.position is None and not t.airborne] \
        == [last.id]
    assert _refused(state, Side.A, HOLD_BACK) == "command_token_use_unavailable"
    options = seat_options(state, Side.A)
    assert options["command_tokens"] == []
    assert options["reserves"] == [last.id] and options["end_deployment_step"] is True
    state, _ = play(state, Side.A, c.EndDeploymentStep())
    assert state.deployment.step == 2
