"""Random legal play on every shipped mission (DIGEST 11.5: a mission is won on Objective
Points): each game, on a tournament table of the mission's ruleset, reaches its end by
itself, with 0 to 10 OP per side, each side's OP the sum of the awards its scoring events
gave, and the result carrying them. The random player heads for the mission's markers now
and then and activates one whenever it is offered (``tests/support/random_player.py``).
Every liveness property of ``tests/support/liveness.py`` holds along the way."""

from __future__ import annotations

from functools import cache

import pytest

from server.rules.ids import Side
from server.rules.missions import mission_catalogue
from server.rules.ruleset import Ruleset
from server.rules.state import Phase
from server.rules.table import table_catalogue
from tests.support.liveness import GameLog, play_random_game

MISSIONS = tuple((ruleset.value, mission.id) for mission in mission_catalogue.shipped()
                 for ruleset in mission.rulesets)
SEEDS = {"n5-relay-station": 13, "n5-flare-line": 12, "n5-quarantine-line": 11,
         "codeone-cold-storage": 7}
"""One seed per mission (a whole game each): seeds whose games activate a marker where the
mission has one (checked below)."""


def _table(ruleset: str, index: int) -> str:
    tournament = [item.layout.id for item in table_catalogue.layouts(Ruleset(ruleset))
                  if not item.sample]
    return tournament[index % len(tournament)]


MORE_SEEDS = (1, 2)
"""Further games per mission, on other tables: the game ends by itself whatever the dice."""


@cache
def mission_game(ruleset: str, mission: str, seed: int | None = None) -> GameLog:
    seed = SEEDS.get(mission, 1) if seed is None else seed
    return play_random_game(ruleset, seed, orders_per_turn=4, table=_table(ruleset, seed),
                            mission=mission)


def assert_ends_with_op_from_the_awards(log: GameLog, mission: str) -> None:
    state = log.state
    assert state.phase is Phase.GAME_OVER and state.result is not None
    assert state.mission is not None and state.mission.id == mission
    assert state.result.reason in ("rounds_completed", "retreat"), state.result
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert not log.idle_offers, "\n".join(log.idle_offers)
    assert not log.changed_previews, "\n".join(log.changed_previews)
    for side in Side:
        op = state.objective_points.get(side, 0)
        assert 0 <= op <= 10
        assert op == log.awarded.get(side, 0)
        assert state.result.op[side] == op


@pytest.mark.slow  # whole random games (a few seconds each)
@pytest.mark.parametrize(("ruleset", "mission"), MISSIONS)
def test_random_games_on_every_mission_end_with_op_from_the_scoring_events(ruleset: str,
                                                                          mission: str) -> None:
    log = mission_game(ruleset, mission)
    state = log.state
    assert_ends_with_op_from_the_awards(log, mission)
    assert state.mission is not None
    if state.mission.markers:
        assert log.events["objective_activated"] > 0, "no marker activated: pick another seed"


@pytest.mark.slow  # the games above, cached
def test_random_mission_games_achieve_classified_objectives() -> None:
    """The random player meets the Classified Objectives the missions draw: in these games
    some card is achieved (and its OP counted among the awards, above)."""
    assert sum(mission_game(ruleset, mission).events["classified_achieved"]
               for ruleset, mission in MISSIONS) > 0


@pytest.mark.slow  # whole random games
@pytest.mark.parametrize("seed", MORE_SEEDS)
@pytest.mark.parametrize(("ruleset", "mission"), MISSIONS)
def test_random_legal_play_on_every_mission_always_reaches_game_over(ruleset: str, mission: str,
                                                                     seed: int) -> None:
    assert_ends_with_op_from_the_awards(mission_game(ruleset, mission, seed), mission)
