"""Random games between two lists converted from army codes of the invented data
(``testkit/army_data``: Hacker, Hidden Deployment with Camouflage, Combat Jump, Impetuous,
a Peripheral, a TAG, Direct Templates, CC, disposable and Stun weapons), played by the random
player of ``tests/support/liveness.py``: every choice the options name is accepted, every
offered shot resolves with the Success Value it previewed, and the game ends by itself. The
lists' not-refereed items are left out here (their review before the game is
``tests/rules/armies/test_brought_lists.py``'s); what is played is the same.

The conversion is the server's own (issue 35). Implementation test: no rule section."""

from __future__ import annotations

from functools import cache

import pytest

from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_import import army_document_from_code
from server.rules.armies.army_list import ArmyList, ListFormat, load_army_list
from server.rules.ids import Side
from server.rules.state import Phase
from testkit.army_codes import Pick, army_code_text, synthetic_army_data
from tests.support.liveness import play_random_game

LANTERN = [(11, 1, 3), (11, 1, 1), (11, 1, 2), (12, 1, 1), (13, 1, 1), (14, 1, 1), (14, 1, 2),
           (15, 1, 1), (15, 1, 2), (16, 1, 1), (17, 1, 1)]
CINDER = [(21, 1, 2), (21, 1, 1), (22, 1, 1), (23, 1, 1), (24, 1, 1), (25, 1, 1), (26, 1, 1),
          (21, 1, 1)]


@cache
def _converted(faction: int, picks: tuple[Pick, ...]) -> ArmyList:
    code = army_code_text(faction, [list(picks)], points=300)
    document = army_document_from_code(code, synthetic_army_data(), ListFormat.STANDARD)
    for entry in document["entries"]:
        entry.pop("not_refereed", None)
    return load_army_list(document, load_weapons())


@pytest.mark.slow  # whole random games (2-3 s each from the Python sources)
@pytest.mark.parametrize("seed", [1, 2, 4])
def test_random_games_of_two_converted_lists_fire_their_weapons_and_end_by_themselves(
        seed: int) -> None:
    lists = {Side.A: _converted(901, tuple(LANTERN)), Side.B: _converted(902, tuple(CINDER))}
    for army in lists.values():
        assert army.arsenal and all(w.id.startswith("w-") for w in army.arsenal), army.arsenal
    log = play_random_game("n5", seed, orders_per_turn=5, lists=lists, table="n5-ashfall-refinery")
    state = log.state
    assert state.phase is Phase.GAME_OVER and state.result is not None
    assert state.result.reason in {"rounds_completed", "retreat"}, state.result
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert not log.idle_offers, "\n".join(log.idle_offers)
    assert not log.changed_previews, "\n".join(log.changed_previews)
    assert log.checked_previews > 0, "shots with the converted weapons were rolled"
