"""Initiative and deployment (DIGEST 11.1): a Face to Face WIP roll-off between the
Lieutenants (ties and double failures re-roll); the winner keeps Initiative or Deployment and
the loser takes the other choice; deployment in four steps, totally inside one's own zone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.wounds import Condition
from server.rules.decision import Rejected
from server.rules.events import InitiativeRolled
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from tests.support.games import ARMIES, TEST_ENTROPY, play
from tests.support.skirmish import skirmish

T = TrooperId


def rolled_off(dice: Sequence[int]) -> tuple[GameState, InitiativeRolled]:
    """CodeOne armies chosen; both Lieutenants have WIP 14."""
    state = engine.new_game(engine.GameSetup(ruleset="codeone", seed=3, injected_dice=tuple(dice)))
    state, _ = play(state, Side.A, c.ChooseArmy(ARMIES["codeone"][Side.A], TEST_ENTROPY))
    state, events = play(state, Side.B, c.ChooseArmy(ARMIES["codeone"][Side.B], TEST_ENTROPY))
    rolled = [e for e in events if isinstance(e, InitiativeRolled)]
    assert len(rolled) == 1 and state.phase is Phase.INITIATIVE
    return state, rolled[0]


def rejected(state: GameState, side: Side, command: dict[str, object]) -> str:
    decision = engine.decide(state, side, c.parse_command(command))
    assert isinstance(decision, Rejected), decision
    return decision.code


def test_initiative_is_a_face_to_face_wip_roll_and_a_tie_rolls_again() -> None:
    # 5 vs 5: equal successes cancel (tie), re-roll; 3 vs 10: B's higher success wins.
    _, rolled = rolled_off([5, 5, 3, 10])
    assert rolled.success_values == (14, 14)
    assert rolled.attempts == ((5, 5), (3, 10)) and rolled.winner is Side.B


def test_initiative_double_failure_rolls_again() -> None:
    _, rolled = rolled_off([18, 19, 12, 16])
    assert rolled.attempts == ((18, 19), (12, 16)) and rolled.winner is Side.A


def test_winner_keeping_initiative_leaves_deployment_and_zone_to_the_loser() -> None:
    state, _ = rolled_off([3, 10])  # B wins
    assert rejected(state, Side.A, {"type": "choose_initiative", "keep": "initiative", "first": True}) == "not_your_turn"
    assert rejected(state, Side.B, {"type": "choose_remaining", "first": True, "zone": "north"}) == "wrong_phase"
    state, _ = play(state, Side.B, {"type": "choose_initiative", "keep": "initiative", "first": False})
    assert rejected(state, Side.B, {"type": "choose_remaining", "first": True, "zone": "north"}) == "not_your_turn"
    assert rejected(state, Side.A, {"type": "choose_remaining", "first": True}) == "bad_command"
    state, _ = play(state, Side.A, {"type": "choose_remaining", "first": True, "zone": "north"})
    assert state.initiative.first_player is Side.A  # B chose to play second
    assert state.initiative.deploys_first is Side.A and dict(state.initiative.zones) == {
        Side.A: "north", Side.B: "south"}
    assert state.phase is Phase.DEPLOYMENT


def test_winner_keeping_deployment_picks_zone_and_order_and_the_loser_picks_the_turn_order() -> None:
    state, _ = rolled_off([3, 10])  # B wins
    assert rejected(state, Side.B, {"type": "choose_initiative", "keep": "deployment", "first": True}) == "bad_command"
    state, _ = play(state, Side.B, {"type": "choose_initiative", "keep": "deployment", "first": True, "zone": "south"})
    state, _ = play(state, Side.A, {"type": "choose_remaining", "first": True})
    assert state.initiative.first_player is Side.A and state.initiative.deploys_first is Side.B
    assert dict(state.initiative.zones) == {Side.B: "south", Side.A: "north"}


def deploying() -> GameState:
    """A won and kept Initiative playing first; B deploys first, in the north (y 24-32)."""
    state, _ = rolled_off([3, 20])
    state, _ = play(state, Side.A, {"type": "choose_initiative", "keep": "initiative", "first": True})
    state, _ = play(state, Side.B, {"type": "choose_remaining", "first": True, "zone": "north"})
    return state


def deploy(trooper: str, x: float, y: float) -> dict[str, object]:
    return {"type": "deploy", "trooper": trooper, "position": [x, y], "facing": 270.0}


def test_deployment_totally_inside_ones_own_zone_in_turn() -> None:
    state = deploying()
    a1 = state.troopers_of(Side.A)[0].id
    b1, b2 = (t.id for t in state.troopers_of(Side.B)[:2])
    assert rejected(state, Side.A, deploy(a1, 2, 2)) == "not_your_turn"
    assert rejected(state, Side.B, deploy(b1, 2, 24.2)) == "outside_deployment_zone"  # straddles the edge
    # An enemy not on the table yet answers like an id that names nobody (named_troopers).
    assert rejected(state, Side.B, deploy(a1, 2, 30)) == "unknown_trooper"
    assert rejected(state, Side.B, deploy("nobody", 2, 30)) == "unknown_trooper"
    state, _ = play(state, Side.B, deploy(b1, 2, 25))
    assert rejected(state, Side.B, deploy(b2, 2.3, 25)) == "bad_position"  # overlaps the first base
    assert rejected(state, Side.B, deploy(b1, 6, 25)) == "already_deployed"


def test_first_step_deploys_all_but_one_then_the_other_player_then_the_reserves() -> None:
    state = deploying()
    mains = [t.id for t in state.troopers_of(Side.B) if not t.entry.is_peripheral]
    assert rejected(state, Side.B, {"type": "end_deployment_step"}) == "deployment_incomplete"
    for i, trooper in enumerate(mains[:-1]):
        state, _ = play(state, Side.B, deploy(trooper, 1.5 + 2 * i, 30))
    state, _ = play(state, Side.B, {"type": "end_deployment_step"})
    assert state.deployment.step == 2
    assert rejected(state, Side.B, deploy(mains[-1], 20, 26)) == "not_your_turn"  # reserve waits for step 3
    # Step 2: A (south, y 0-8), all but one trooper with its Peripherals.
    a_mains = [t for t in state.troopers_of(Side.A) if not t.entry.is_peripheral]
    for i, trooper in enumerate(a_mains[:-1]):
        state, _ = play(state, Side.A, {"type": "deploy", "trooper": trooper.id,
                                         "position": [1.5 + 2 * i, 2], "facing": 90.0})
    controllers = {t.entry.id for t in a_mains[:-1]}
    for i, p in enumerate(t for t in state.troopers_of(Side.A) if t.entry.controller in controllers):
        state, _ = play(state, Side.A, {"type": "deploy", "trooper": p.id,
                                         "position": [1.5 + 2 * i, 5], "facing": 90.0})
    state, _ = play(state, Side.A, {"type": "end_deployment_step"})
    state, _ = play(state, Side.B, deploy(mains[-1], 20, 26))
    state, _ = play(state, Side.B, {"type": "end_deployment_step"})
    assert rejected(state, Side.A, {"type": "end_deployment_step"}) == "deployment_incomplete"
    state, _ = play(state, Side.A, {"type": "deploy", "trooper": a_mains[-1].id,
                                     "position": [22, 2], "facing": 90.0})
    state, _ = play(state, Side.A, {"type": "end_deployment_step"})
    # Deployment over: the first Player Turn (A, who kept Initiative and plays first) starts.
    assert state.active is Side.A and state.round == 1 and state.phase is Phase.ORDERS


def test_digest_11_1_the_last_trooper_waiting_in_steps_1_and_2_is_the_reserve_and_cannot_deploy() -> None:
    """Deploying every trooper offered never leaves a step impossible to end: the last main
    trooper waiting is the reserve, refused and not offered until step 3 or 4."""
    state = deploying()
    mains = [t.id for t in state.troopers_of(Side.B) if not t.entry.is_peripheral]
    assert seat_options(state, Side.B)["reserve"] is None
    for i, trooper in enumerate(mains[:-1]):
        state, _ = play(state, Side.B, deploy(trooper, 1.5 + 2 * i, 30))
    options = seat_options(state, Side.B)
    assert options["reserve"] == mains[-1] and mains[-1] not in options["deploy"]
    assert options["end_deployment_step"] is True
    decision = engine.decide(state, Side.B, c.parse_command(deploy(mains[-1], 20, 26)))
    assert isinstance(decision, Rejected) and decision.code == "reserve_trooper"
    assert "reserve" in decision.message


def test_deploying_whatever_is_offered_always_lets_both_players_end_every_step() -> None:
    """The soft-lock of placing every trooper offered in step 1 cannot happen again."""
    state = deploying()
    while state.phase is Phase.DEPLOYMENT:
        side = next(s for s in Side if seat_options(state, s)["end_deployment_step"]
                    or seat_options(state, s)["deploy"])
        zone = state.deployment_zones[state.initiative.zones[side]]
        spots = iter((x + 0.75, y + 0.75) for y in range(int(zone.y0), int(zone.y1) - 1, 2)
                     for x in range(int(zone.x0), int(zone.x1) - 1, 2))
        for trooper in seat_options(state, side)["deploy"]:
            for spot in spots:
                decision = engine.decide(state, side, c.Deploy(trooper, spot, 90.0))
                if not isinstance(decision, Rejected):
                    state = engine.apply_all(state, decision.events)
                    break
        assert seat_options(state, side)["end_deployment_step"], "nothing left to click"
        state, _ = play(state, side, {"type": "end_deployment_step"})
    assert state.phase is not Phase.DEPLOYMENT


def test_codeone_has_no_retreat() -> None:
    """DIGEST 14: Retreat! is an N4 rule not used in CodeOne."""
    state = skirmish({"A-t1": (2, 2, 270.0), "B-t1": (2, 30, 90.0)})
    troopers = {tid: (replace(t, condition=Condition.DEAD)
                      if t.side is Side.B and t.id != "B-t1" else t)
                for tid, t in state.troopers.items()}
    state = replace(state, troopers=troopers)
    state, events = play(state, Side.A, c.EndTurn())
    assert state.active is Side.B and not state.retreat
    assert not any(e.TYPE == "retreat_declared" for e in events)
