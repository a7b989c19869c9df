"""An army's own Fireteams Chart (N5), read like the wiki's "Fireteams Chart" example: the
most teams of each type on the table at once, the teams its units form with each unit's Min
and Max ("a Hungries Fireteam must include at least one Oznat"), and wildcards that may be
part of any of its teams (DIGEST 3.5, Fireteams). Judgement calls:
docs/rules-decisions/fireteams.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_list import ArmyListError, load_army_list
from server.rules.armies.fireteam_chart import chart_from_plain
from server.rules.events import FireteamFormed, FireteamLeft
from server.rules.evolve import replace
from server.rules.ids import Side
from server.rules.options.fireteams import fireteam_options
from server.rules.plain import from_plain, to_plain
from server.rules.state import GameState
from tests.rules.orders.test_fireteams import (
    BULWARK,
    L7,
    L8,
    L9,
    L11,
    SPRAY,
    WARDEN,
    _form,
    _refused,
    _table,
)
from tests.support.games import play

A = Side.A
SHIPPED = Path(__file__).parents[3] / "server/rules/data/armies/orrery-veil.json"

# The army's chart, as its list writes it (docs/armies.md, "Fireteams Chart"): Lancer teams
# of every type need at least one plain Lancer and take at most one Chain Spray Lancer; a
# Lancer Haris takes at most two plain Lancers; the Warden Officer is a wildcard.
CHART: dict[str, Any] = {
    "limits": {"core": 1, "haris": 1, "duo": 1},
    "teams": [
        {"name": "Lancers", "types": ["core", "duo"], "units": [
            {"unit": "lancer", "name": "Lancer", "min": 1, "max": 5},
            {"unit": "lancer_spray", "name": "Chain Spray Lancer", "max": 1}]},
        {"name": "Lancer Haris", "types": ["haris"], "units": [
            {"unit": "Lancer Line Trooper", "name": "Lancer", "min": 1, "max": 2},
            {"unit": "lancer_spray", "name": "Chain Spray Lancer", "max": 1}]},
    ],
    "wildcards": [{"unit": "warden", "name": "Warden Officer"}],
}


def _charted(chart: dict[str, Any] = CHART, **placements: list[float]) -> GameState:
    state = _table(placements or None)
    read, problems = chart_from_plain(chart)
    assert read is not None, problems
    armies = {**state.armies, A: replace(state.armies[A], fireteam_chart=read)}
    return replace(state, armies=armies)


def test_a_composition_whose_minimum_is_unmet_is_refused_naming_the_charts_rule() -> None:
    """"Fireteams Chart" item 4: the Min of each unit is observed when a team is formed."""
    refused = _refused(_charted(), _form("core", SPRAY, WARDEN))
    assert refused.code == "fireteam_not_allowed"
    assert refused.message == ("Your army's Fireteams Chart: a Fireteam: Core of Lancers needs "
                               "at least 1 Lancer.")


def test_a_units_maximum_and_a_trooper_the_chart_does_not_list_are_refused() -> None:
    state = _charted()
    assert _refused(state, _form("haris", L7, L8, L9)).message == (
        "Your army's Fireteams Chart allows at most 2 Lancer in a Fireteam: Haris of "
        "Lancer Haris.")
    # The chart replaces the profiles' own types: the Bulwark is in no team of the chart.
    assert _refused(state, _form("duo", L7, BULWARK)).message == (
        "Bulwark Heavy Trooper (A-t2) is in no Fireteam: Duo of your army's Fireteams Chart.")


def test_a_wildcard_joins_a_team_and_counts_for_the_level_only_by_its_own_unit() -> None:
    """A wildcard fills a place in any team of the chart; the Level ("Fireteam Bonuses")
    counts members of the same unit, which the wildcard is not."""
    _, events = play(_charted(), A, _form("core", L7, L8, WARDEN))
    formed = events[-1]
    assert isinstance(formed, FireteamFormed)
    assert formed.members == (L7, L8, WARDEN) and formed.level == 2


def test_the_charts_count_limit_is_checked_when_a_team_is_formed() -> None:
    """"Fireteams Chart" item 2: the most teams of a type on the table, checked every time a
    team is formed (here one Duo, where the default chart has no limit)."""
    state, _ = play(_charted(), A, _form("duo", L7, L8))
    refused = _refused(state, _form("duo", L9, SPRAY))
    assert refused.message == ("Your army's Fireteams Chart allows 1 Fireteam: Duo on the "
                               "table at a time.")
    assert fireteam_options(state, A)["unavailable"]["duo"] == refused.message


def test_a_member_leaving_below_a_units_minimum_does_not_break_the_team() -> None:
    """The chart is checked when a team is formed ("Fireteams Chart"); "Fireteam Integrity"
    cancels a team only when it is left with one member (or loses its leader)."""
    state, _ = play(_charted(), A, _form("core", SPRAY, L7, WARDEN))
    state, events = play(state, A, {"type": "activate", "trooper": L7, "order": "regular"})
    left = next(e for e in events if isinstance(e, FireteamLeft))
    assert left.trooper == L7 and not left.cancelled
    assert state.fireteams[0].members == (SPRAY, WARDEN)


def test_options_offer_only_the_teams_the_chart_allows_with_its_reasons() -> None:
    state = _charted()
    offer = fireteam_options(state, A)
    core = offer["form"]["core"]
    assert set(core["leaders"][L7]) == {L8, L9, SPRAY, WARDEN}
    # The Chain Spray Lancer and the wildcard alone lack a Lancer: with them as leader the
    # plain Lancers still make a team, so they are offered.
    assert set(core["leaders"][SPRAY]) == {L7, L8, L9, WARDEN}
    assert core["unable"][BULWARK] == (
        "Bulwark Heavy Trooper (A-t2) is in no Fireteam: Core of your army's Fireteams Chart.")
    assert core["chart"] == [{"name": "Lancers", "wildcards": [WARDEN], "units": [
        {"name": "Lancer", "min": 1, "max": 5, "required": False, "troopers": [L7, L8, L9, L11]},
        {"name": "Chain Spray Lancer", "min": 0, "max": 1, "required": False,
         "troopers": [SPRAY]}]}]
    # Without Lancers in reach the Chain Spray Lancer and the wildcard form nothing.
    far = {t: [40.0, 10.0 + i * 2, 90.0] for i, t in enumerate((L7, L8, L9))}
    lonely = fireteam_options(_charted(**far), A)
    assert SPRAY not in lonely["form"].get("core", {}).get("leaders", {})
    no_duo = dict(CHART, teams=[CHART["teams"][1]])
    assert fireteam_options(_charted(no_duo), A)["unavailable"]["duo"] == (
        "Your army's Fireteams Chart has no Fireteam: Duo.")


def test_every_offered_pair_is_accepted() -> None:
    """``options`` tells the truth: each Duo it offers the rules accept."""
    state = _charted()
    offer = fireteam_options(state, A)["form"]["duo"]["leaders"]
    for leader, members in offer.items():
        for member in members:
            play(state, A, _form("duo", leader, member))


def test_a_list_carries_its_chart_and_a_broken_chart_is_refused_in_a_players_words() -> None:
    document = {**json.loads(SHIPPED.read_text()), "fireteam_chart": CHART}
    army = load_army_list(document, load_weapons())
    assert army.fireteam_chart is not None and army.fireteam_chart.duo == 1
    assert from_plain(type(army), to_plain(army)) == army  # in the record and snapshots
    broken = dict(CHART, limits={"core": -1}, teams=[{"name": "Odd", "types": ["triad"],
                                                      "units": [{"unit": "x", "min": 3,
                                                                 "max": 2}]}])
    with pytest.raises(ArmyListError) as error:
        load_army_list({**document, "fireteam_chart": broken}, load_weapons())
    assert error.value.problems == (
        'The Fireteams Chart\'s "limits": "core" must be a whole number from 0 to 99, or null '
        "for no limit.",
        'Fireteams Chart team \'Odd\': "types" must list one or more of "core", "haris", "duo".',
        'Fireteams Chart team \'Odd\', unit number 1: "min" (3) must not exceed "max" (2), and '
        '"max" must be at least 1.')
    with pytest.raises(ArmyListError) as error:
        load_army_list({**document, "format": "codeone", "points": 150}, load_weapons())
    assert 'A CodeOne list has no Fireteams, so it takes no "fireteam_chart".' in (
        error.value.problems)


def test_the_default_stays_without_a_chart() -> None:
    state = _table()
    assert state.armies[A].fireteam_chart is None
    state, _ = play(state, A, _form("duo", L7, L8))
    state, _ = play(state, A, _form("duo", L9, WARDEN))  # Duos: no limit
    assert len(state.fireteams) == 2
