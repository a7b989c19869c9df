"""``aro_eligibility.may_react_unseen``: from public facts only, whether a side could hold a trooper
whose presence or ARO eligibility is private (uniform ARO windows, docs/fair-play.md).

DIGEST 11.2 and DIGEST 12 (Markers, Hidden Deployment and airborne troopers are private)
against DIGEST 6.1 (who may declare an ARO)."""

from __future__ import annotations

from server.rules import engine
from server.rules.ids import Side
from tests.support.skirmish import Placement, skirmish

OPEN: dict[str, Placement] = {"A-t1": (10.0, 4.0, 90.0), "B-t3": (6.0, 40.0, 270.0)}


def test_a_hidden_deployment_trooper_not_on_the_table_as_a_model_counts_wherever_it_is() -> None:
    hidden = skirmish({**OPEN, "B-t2": (30.0, 20.0, 270.0, "hidden")}, ruleset="n5")
    assert engine.may_react_unseen(hidden, Side.B)
    # Kept off the table (as far as A knows, it could as well be hidden): the same answer.
    assert engine.may_react_unseen(skirmish(OPEN, ruleset="n5"), Side.B)


def test_a_side_whose_every_trooper_that_could_hide_stands_as_a_model_holds_nothing() -> None:
    shown = skirmish({**OPEN, "B-t2": (30.0, 20.0, 270.0)}, ruleset="n5")
    assert not shown.trooper("B-t2").hidden  # (deployed openly: A sees it)
    assert not engine.may_react_unseen(shown, Side.B)


def test_a_camouflage_marker_or_an_airborne_trooper_counts() -> None:
    # Helion Vanguard: t3 a Camouflage Pathfinder, t15 a Combat Jump trooper.
    marker = skirmish({"A-t3": (24.0, 6.0, 90.0), "A-t15": (0, 0, 0, "airborne"),
                       **OPEN}, ruleset="n5")
    assert marker.trooper("A-t3").marker
    assert engine.may_react_unseen(marker, Side.A)
    landed = skirmish({"A-t15": (30.0, 6.0, 90.0), **OPEN}, ruleset="n5")
    assert not engine.may_react_unseen(landed, Side.A), "no marker, the jumper on the table"
