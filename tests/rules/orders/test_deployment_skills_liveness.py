"""DIGEST 11.1 (special deployments), 11.3 (Loss of Lieutenant), 9 (Jump, Climb): random
legal games with Infiltration, Forward Deployment, Chain of Command, Climbing Plus and
Super-Jump (``tests/support/feature_armies.py`` "deploying-vanguard") accept every offered
choice and reach game over by themselves (issue 36 point 4, the liveness games)."""

from __future__ import annotations

import pytest

from server.rules.ids import Side
from server.rules.state import Phase
from tests.support.feature_armies import feature_armies
from tests.support.liveness import play_random_game


@pytest.mark.slow  # two whole random games (about 10 s each)
@pytest.mark.parametrize("seed", [361, 363])
def test_random_games_with_the_deployment_and_movement_skills_end_by_themselves(seed: int) -> None:
    lists = {Side.A: feature_armies()["deploying-vanguard"]}
    log = play_random_game("n5", seed, orders_per_turn=5, lists=lists)
    state = log.state
    assert state.phase is Phase.GAME_OVER and state.result is not None
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert log.events["infiltration_rolled"] > 0, log.events  # the seeds chosen reach it
