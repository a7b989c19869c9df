"""Random play with Fireteams (DIGEST 3.5; the wiki's N5 "Fireteams Module"): two seats
playing only from their options, with lists whose line troopers may form every Fireteam
type, form teams (at deployment and by Command Token), spend Orders on them and lose
members, and the game still waits on exactly one seat with a legal option until it ends.
Every body made only of offered choices (a team to form, a leader to activate, members
Idle) is accepted (``GameLog.refused_offers``). Side A plays by its own Fireteams Chart
(a Lancer team needing a Lancer, the Warden a wildcard, two Duos at most), so the offers
follow the chart's minimums, wildcards and limits too."""

from __future__ import annotations

from server.rules.armies.army_catalogue import sample_army
from server.rules.armies.army_list import ArmyList
from server.rules.armies.fireteam_chart import chart_from_plain
from server.rules.evolve import replace
from server.rules.ids import Side
from server.rules.state import Phase
from tests.support.liveness import play_random_game


def _with_fireteams(army_id: str, units: tuple[str, ...]) -> ArmyList:
    """The sample list with these units able to join every Fireteam type."""
    army = sample_army(army_id)
    entries = tuple(
        replace(e, profile=replace(e.profile, fireteam_core=True, fireteam_haris=True,
                                   fireteam_duo=True))
        if e.profile.id in units else e
        for e in army.entries)
    return replace(army, entries=entries)


def _with_chart(army: ArmyList) -> ArmyList:
    chart, problems = chart_from_plain({
        "limits": {"core": 1, "haris": 1, "duo": 2},
        "teams": [{"name": "Lancers", "types": ["core", "haris", "duo"], "units": [
            {"unit": "lancer", "name": "Lancer", "min": 1, "max": 5},
            {"unit": "lancer_spray", "name": "Chain Spray Lancer", "max": 1}]}],
        "wildcards": [{"unit": "warden", "name": "Warden Officer"}]})
    assert chart is not None, problems
    return replace(army, fireteam_chart=chart)


def test_random_n5_game_with_fireteams_never_soft_locks_and_ends() -> None:
    lists = {Side.A: _with_chart(_with_fireteams("helion-vanguard",
                                                 ("lancer", "lancer_spray", "warden"))),
             Side.B: sample_army("vesper-raiders")}
    log = play_random_game("n5", 5, orders_per_turn=4, lists=lists)
    assert log.state.phase is Phase.GAME_OVER and log.state.result is not None
    assert not log.refused_offers, "\n".join(log.refused_offers)
    assert log.events["fireteam_formed"] >= 1
    assert log.commands["activate_fireteam"] >= 1
