"""DIGEST 11.1, item 2: the roll-off winner keeps Initiative (and chooses to play first or
second) or keeps Deployment (and chooses its zone and to deploy first or second); the loser
takes the other choice. Every combination is played through the rules core and checked
against what the Digest says it settles; ``options.initiative`` offers exactly the command
bodies the rules core accepts, and each one of them leads to the combination it names."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.state import GameState, Phase
from tests.support.games import ARMIES, TEST_ENTROPY, deploy_all, play

ZONES = ("north", "south")
EVERY_BODY: list[dict[str, Any]] = [
    *({"type": "choose_initiative", "keep": keep, "first": first, **zone}
      for keep in ("initiative", "deployment") for first in (True, False)
      for zone in ({}, {"zone": None}, {"zone": "north"}, {"zone": "south"})),
    *({"type": "choose_remaining", "first": first, **zone}
      for first in (True, False)
      for zone in ({}, {"zone": None}, {"zone": "north"}, {"zone": "south"})),
]
"""Every body of both commands, zone or not, that parses."""


def rolled_off(winner: Side, ruleset: str = "codeone") -> GameState:
    """Armies chosen and the roll-off won by ``winner`` (3 against 10 on two WIP 14 or 13
    Lieutenants: the higher success wins)."""
    faces = (10, 3) if winner is Side.A else (3, 10)
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=3, injected_dice=faces))
    for side in Side:
        state, _ = play(state, side, c.ChooseArmy(ARMIES[ruleset][side], TEST_ENTROPY))
    assert state.phase is Phase.INITIATIVE and state.initiative.winner is winner
    return state


def accepted_bodies(state: GameState, side: Side) -> list[dict[str, Any]]:
    return [body for body in EVERY_BODY
            if isinstance(engine.decide(state, side, c.parse_command(body)), Accepted)]


def canonical(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bodies with an explicit ``"zone": None`` written as the key left out, once each."""
    found: list[dict[str, Any]] = []
    for body in bodies:
        plain = {k: v for k, v in body.items() if not (k == "zone" and v is None)}
        if plain not in found:
            found.append(plain)
    return found


def same(bodies: list[dict[str, Any]], others: list[dict[str, Any]]) -> bool:
    """The same command bodies, each once, in any order."""
    return len(bodies) == len(others) and all(body in others for body in bodies)


def settle(winner: Side, winner_body: dict[str, Any], loser_body: dict[str, Any]) -> GameState:
    state = rolled_off(winner)
    state, _ = play(state, winner, winner_body)
    state, _ = play(state, winner.other, loser_body)
    assert state.phase is Phase.DEPLOYMENT
    return state


def other(zone: str) -> str:
    return "north" if zone == "south" else "south"


@pytest.mark.parametrize("winner", list(Side))
@pytest.mark.parametrize("plays_first", [True, False])
@pytest.mark.parametrize("loser_zone", ZONES)
@pytest.mark.parametrize("loser_deploys_first", [True, False])
def test_digest_11_1_winner_keeps_initiative_and_the_loser_chooses_zone_and_deployment_order(
        winner: Side, plays_first: bool, loser_zone: str, loser_deploys_first: bool) -> None:
    loser = winner.other
    state = settle(
        winner,
        {"type": "choose_initiative", "keep": "initiative", "first": plays_first},
        {"type": "choose_remaining", "first": loser_deploys_first, "zone": loser_zone})
    settled = state.initiative
    assert settled.winner_kept == "initiative"
    assert settled.first_player is (winner if plays_first else loser)
    assert settled.deploys_first is (loser if loser_deploys_first else winner)
    assert dict(settled.zones) == {loser: loser_zone, winner: other(loser_zone)}


@pytest.mark.parametrize("winner", list(Side))
@pytest.mark.parametrize("winner_zone", ZONES)
@pytest.mark.parametrize("winner_deploys_first", [True, False])
@pytest.mark.parametrize("loser_plays_first", [True, False])
def test_digest_11_1_winner_keeps_deployment_with_zone_and_order_and_the_loser_chooses_turn_order(
        winner: Side, winner_zone: str, winner_deploys_first: bool, loser_plays_first: bool) -> None:
    loser = winner.other
    state = settle(
        winner,
        {"type": "choose_initiative", "keep": "deployment", "first": winner_deploys_first,
         "zone": winner_zone},
        {"type": "choose_remaining", "first": loser_plays_first})
    settled = state.initiative
    assert settled.winner_kept == "deployment"
    assert settled.deploys_first is (winner if winner_deploys_first else loser)
    assert dict(settled.zones) == {winner: winner_zone, loser: other(winner_zone)}
    assert settled.first_player is (loser if loser_plays_first else winner)


@pytest.mark.parametrize("winner", list(Side))
def test_digest_11_1_the_settled_choices_drive_deployment_and_the_first_turn(winner: Side) -> None:
    """The loser (after the winner kept Deployment, deploying second in the south) plays
    first: the winner deploys second, in the south; the loser's first Player Turn opens."""
    loser = winner.other
    state = settle(winner,
                   {"type": "choose_initiative", "keep": "deployment", "first": False, "zone": "south"},
                   {"type": "choose_remaining", "first": True})
    options = {side: seat_options(state, side) for side in Side}
    assert options[loser]["deploy"] and not options[winner]["deploy"]
    assert state.initiative.zones[winner] == "south"
    for step in range(4):
        side = loser if step % 2 == 0 else winner
        facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
        while waiting := seat_options(state, side)["deploy"]:  # the reserve drops out last
            state = deploy_all(state, side, waiting[:1], facing)
        state, _ = play(state, side, c.EndDeploymentStep())
    assert state.round == 1 and state.turn == 1 and state.active is loser


@pytest.mark.parametrize("winner", list(Side))
def test_digest_11_1_options_offer_the_winner_its_six_choices_and_nothing_to_the_loser(winner: Side) -> None:
    state = rolled_off(winner)
    offered = seat_options(state, winner)["initiative"]
    assert same(offered, canonical(accepted_bodies(state, winner)))
    assert same(offered, [
        {"type": "choose_initiative", "keep": "initiative", "first": True},
        {"type": "choose_initiative", "keep": "initiative", "first": False},
        *({"type": "choose_initiative", "keep": "deployment", "first": first, "zone": zone}
          for zone in ZONES for first in (True, False))])
    assert seat_options(state, winner.other)["initiative"] == []
    assert accepted_bodies(state, winner.other) == []


@pytest.mark.parametrize("winner", list(Side))
@pytest.mark.parametrize("keep", ["initiative", "deployment"])
def test_digest_11_1_options_offer_the_loser_the_choice_the_winner_left(winner: Side, keep: str) -> None:
    state = rolled_off(winner)
    body = {"type": "choose_initiative", "keep": keep, "first": True,
            **({"zone": "north"} if keep == "deployment" else {})}
    state, _ = play(state, winner, body)
    loser = winner.other
    offered = seat_options(state, loser)["initiative"]
    assert same(offered, canonical(accepted_bodies(state, loser)))
    if keep == "initiative":  # the loser picks the zone and whether it deploys first
        expected = [{"type": "choose_remaining", "first": first, "zone": zone}
                    for zone, first in itertools.product(ZONES, (True, False))]
    else:  # the loser picks whether it plays first
        expected = [{"type": "choose_remaining", "first": first} for first in (True, False)]
    assert same(offered, expected)
    assert seat_options(state, winner)["initiative"] == []
    assert accepted_bodies(state, winner) == []


@pytest.mark.parametrize("winner", list(Side))
def test_digest_11_1_every_offered_body_settles_the_combination_it_names(winner: Side) -> None:
    """All 16 paths through the options: the winner's 6 bodies, then each of the loser's."""
    start = rolled_off(winner)
    paths = 0
    for first_body in seat_options(start, winner)["initiative"]:
        chosen, _ = play(start, winner, first_body)
        for second_body in seat_options(chosen, winner.other)["initiative"]:
            settled, _ = play(chosen, winner.other, second_body)
            assert settled.phase is Phase.DEPLOYMENT
            assert seat_options(settled, winner)["initiative"] == []
            assert seat_options(settled, winner.other)["initiative"] == []
            paths += 1
    assert paths == 2 * 4 + 4 * 2


def test_digest_11_1_a_zone_the_choice_does_not_include_is_refused_not_ignored() -> None:
    state = rolled_off(Side.B)
    refused = engine.decide(state, Side.B, c.parse_command(
        {"type": "choose_initiative", "keep": "initiative", "first": True, "zone": "north"}))
    assert isinstance(refused, Rejected) and refused.code == "bad_command"
    state, _ = play(state, Side.B, {"type": "choose_initiative", "keep": "deployment", "first": True,
                                     "zone": "south"})
    refused = engine.decide(state, Side.A, c.parse_command(
        {"type": "choose_remaining", "first": True, "zone": "north"}))
    assert isinstance(refused, Rejected) and refused.code == "bad_command"
    # An explicit null zone is the same as none (the browser app sends it so).
    state, _ = play(state, Side.A, {"type": "choose_remaining", "first": True, "zone": None})
    assert state.initiative.first_player is Side.A


def test_digest_11_1_no_initiative_options_outside_the_initiative_phase() -> None:
    state = engine.new_game(engine.GameSetup(ruleset="n5", seed=1))
    assert all(seat_options(state, side)["initiative"] == [] for side in Side)
    state = settle(Side.A, {"type": "choose_initiative", "keep": "initiative", "first": True},
                   {"type": "choose_remaining", "first": True, "zone": "south"})
    assert all(seat_options(state, side)["initiative"] == [] for side in Side)
