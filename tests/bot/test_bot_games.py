"""The practice bot as a test tool (issue 39): two sensible bots play each other on every
shipped table, with every shipped list and in both rulesets (each at least once), each fed
only its own seat's view and options (``tests/support/bot_games.py``).

Every game ends by the rules' own end (its last Game Round or Retreat!), never by a
concession, and most leave casualties on the table: the bots shoot and react.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

from functools import cache

import pytest

from server.rules.armies.army_catalogue import sample_armies
from server.rules.combat.wounds import Condition
from server.rules.ids import Side
from server.rules.table import table_catalogue
from tests.support.bot_games import BotGame, play_bot_game

GAMES = (
    ("n5", 1, "n5-ashfall-refinery", "", ("helion-vanguard", "orrery-veil")),
    ("n5", 2, "n5-night-market", "n5-relay-station", ("petrel-skyborne", "vesper-raiders")),
    ("n5", 3, "n5-cargo-terminus", "n5-quarantine-line", ("orrery-veil", "petrel-skyborne")),
    ("n5", 4, "sample-open", "n5-flare-line", ("vesper-raiders", "helion-vanguard")),
    ("codeone", 5, "codeone-orbital-medlab", "codeone-cold-storage",
     ("helion-c1-patrol", "orrery-c1-veil")),
    ("codeone", 6, "sample-open-codeone", "", ("petrel-c1-drop", "vesper-c1-cell")),
)
ENDINGS = {"rounds_completed", "retreat"}


@cache
def bot_game(index: int) -> BotGame:
    ruleset, seed, table, mission, armies = GAMES[index]
    return play_bot_game(ruleset, seed, table=table, mission=mission, armies=armies)


def test_the_games_cover_every_shipped_table_list_and_ruleset() -> None:
    assert {g[2] for g in GAMES} == {item.layout.id for item in table_catalogue.shipped()}
    assert {a for g in GAMES for a in g[4]} == set(sample_armies())
    assert {g[0] for g in GAMES} == {"n5", "codeone"}


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(GAMES)), ids=[g[2] for g in GAMES])
def test_two_bots_play_to_the_rules_end(index: int) -> None:
    state = bot_game(index).state
    assert state.result is not None and state.result.reason in ENDINGS, state.result
    assert {army.id for army in state.armies.values()} == set(GAMES[index][4])


@pytest.mark.slow
def test_most_bot_games_end_with_casualties() -> None:
    bloody = [index for index in range(len(GAMES))
              if any(t.condition in (Condition.DEAD, Condition.UNCONSCIOUS)
                     for t in bot_game(index).state.troopers.values())]
    assert len(bloody) > len(GAMES) // 2, bloody


@pytest.mark.slow
def test_the_random_level_plays_a_whole_game_against_the_sensible_one() -> None:
    """The random level (any choice the options offer) keeps the game going to its end too;
    the sensible level wins it on Victory Points."""
    state = play_bot_game("codeone", 7, table="sample-open-codeone",
                          armies=("orrery-c1-veil", "petrel-c1-drop"),
                          levels=("random", "sensible")).state
    assert state.result is not None and state.result.reason in ENDINGS, state.result
    assert state.result.winner is not None and state.result.winner.value == "B", state.result


def _idle_runs(played: list[tuple[str, str]]) -> dict[str, int]:
    """Each seat's longest run of Orders spent on Idle alone (nothing else declared between
    them in its turn)."""
    longest: dict[str, int] = {}
    run: dict[str, int] = {}
    for seat, label in played:
        if label == "declare_skill:idle":
            run[seat] = run.get(seat, 0) + 1
            longest[seat] = max(longest.get(seat, 0), run[seat])
        elif label.startswith("declare_skill") or label == "end_turn":
            run[seat] = 0
    return longest


@pytest.mark.slow
def test_the_bot_ends_its_turn_rather_than_spend_orders_on_idle() -> None:
    """Against a player who only ends its turns, the bot's troopers end up next to enemies
    they cannot shoot (a Lookout in base contact with no shot and nowhere to go): each may
    Idle once, then the turn ends, instead of an Order after Order of "no effect"."""
    ruleset, seed, table, mission, armies = GAMES[5]
    game = play_bot_game(ruleset, seed, table=table, mission=mission, armies=armies,
                         ends_turns=Side.A)
    assert game.state.result is not None
    assert _idle_runs(game.played).get("B", 0) <= 2, game.played
