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
SEEDS = {"n5-relay-station": 3, "n5-flare-line": 1, "n5-quarantine-line": 7,
         "codeone-cold-storage": 5}
"""One seed per mission (a whole game each): seeds whose games activate a marker where the
mission has one (checked below)."""


def _table(ruleset: str, index: int) -> str:
    tournament = [item.layout.id for item in table_catalogue.layouts(Ruleset(ruleset))
                  if not item.sample]
    return tournament[index % len(tournament)]


@cache
def mission_game(ruleset: str, mission: str) -> GameLog:
    seed = SEEDS.get(mission, 1)
    return play_random_game(ruleset, seed, orders_per_turn=4, table=_table(ruleset, seed),
                            mission=mission)


@pytest.mark.slow  # whole random games (a few seconds each)
@pytest.mark.parametrize(("ruleset", "mission"), MISSIONS)
def test_random_games_on_every_mission_end_with_op_from_the_scoring_events(ruleset: str,
                                                                          mission: str) -> None:
    log = mission_game(ruleset, mission)
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
    if state.mission.markers:
        assert log.events["objective_activated"] > 0, "no marker activated: pick another seed"
