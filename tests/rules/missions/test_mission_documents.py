"""Mission documents (format ``infinity-referee-mission/1``, docs/missions.md) and the shipped
missions: read and checked with errors naming the field, on the table size of their ruleset
(DIGEST 14: CodeOne's 24 by 32 inches, N5's 48 by 48), and playable on every shipped table
of it (DIGEST 11.5: scenarios are won on Objective Points)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from server.rules import engine
from server.rules.missions import MissionError, load_mission, mission_catalogue
from server.rules.missions.mission import ActivateMarker, DominateZone
from server.rules.ruleset import Ruleset
from server.rules.table import table_catalogue
from server.rules.table.geometry import point_to_segment_distance

DOCUMENT: dict[str, Any] = {
    "format": "infinity-referee-mission/1", "id": "test-yard", "title": "Yard",
    "description": "A test.", "rulesets": ["codeone"], "rounds": 3, "max_op": 10,
    "zones": [{"id": "yard", "name": "Yard", "x0": 4, "y0": 12, "x1": 20, "y1": 20}],
    "markers": [{"id": "pump", "name": "Pump", "kind": "console", "x": 12, "y": 16}],
    "objectives": [
        {"id": "hold", "kind": "dominate", "op": 1, "zones": ["yard"]},
        {"id": "pump", "kind": "activate", "op": 2, "markers": ["pump"]},
    ],
}


def broken(change: str, value: Any) -> dict[str, Any]:
    """DOCUMENT with the field at dotted path ``change`` set to ``value`` (None: removed)."""
    document = copy.deepcopy(DOCUMENT)
    *path, last = change.split(".")
    target: Any = document
    for part in path:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is None:
        del target[last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return document


def test_a_mission_document_reads_into_a_mission_digest_11_5() -> None:
    mission = load_mission(DOCUMENT)
    assert (mission.id, mission.rulesets, mission.rounds, mission.max_op) == (
        "test-yard", (Ruleset.CODEONE,), 3, 10)
    hold, pump = mission.objectives
    assert isinstance(hold, DominateZone) and hold.by == "points" and hold.when == ("round_end",)
    assert isinstance(pump, ActivateMarker) and pump.when == "game_end" and not pump.per_round
    assert (mission.classified_draw, mission.classified_op) == (0, 0)
    classified = load_mission({**DOCUMENT, "classified": {"draw": 2, "op": 1}})
    assert (classified.classified_draw, classified.classified_op) == (2, 1)


@pytest.mark.parametrize(("change", "value", "path", "words"), [
    ("format", "mission/0", "format", "infinity-referee-mission/1"),
    ("zones.0.x1", 30, "zones[0]", "0 <= x0 < x1 <= 24"),
    ("markers.0.y", 40, "markers[0]", "not on the table"),
    ("markers.0.kind", "crate", "markers[0].kind", "console"),
    ("objectives.0.zones", ["dock"], "objectives[0].zones", "no zone 'dock'"),
    ("objectives.1.markers", [], "objectives[1].markers", "one or more marker ids"),
    ("objectives.0.kind", "bribe", "objectives[0].kind", "must be one of"),
    ("objectives.0.op", 0, "objectives[0].op", "from 1 to 10"),
    ("objectives.0.when", ["dawn"], "objectives[0].when", "round_end"),
    ("objectives.0.by", "weight", "objectives[0].by", "points"),
    ("max_op", 11, "max_op", "from 1 to 10"),
    ("rulesets", ["n4"], "rulesets", "one or more of"),
    ("objectives", [], "objectives", "1 to 12"),
    ("title", None, "title", "text of 1 to 80"),
    ("zones.0.colour", "red", "zones[0]", "unknown fields ['colour']"),
])
def test_a_broken_document_is_refused_naming_the_field_digest_14(change: str, value: Any,
                                                                 path: str, words: str) -> None:
    with pytest.raises(MissionError) as refused:
        load_mission(broken(change, value))
    assert refused.value.path == path and words in refused.value.problem


def test_a_marker_under_two_objectives_and_falling_bands_are_refused_digest_14() -> None:
    twice = broken("objectives", [*DOCUMENT["objectives"],
                                  {"id": "again", "kind": "activate", "op": 1, "markers": ["pump"]}])
    with pytest.raises(MissionError, match="already activated under another objective"):
        load_mission(twice)
    falling = broken("objectives", [{"id": "toll", "kind": "kill_thresholds", "bands": [
        {"share": 0.5, "op": 2}, {"share": 0.25, "op": 3}]}])
    with pytest.raises(MissionError, match="must rise"):
        load_mission(falling)


def test_the_catalogue_chooses_by_id_or_document_for_the_ruleset_digest_14() -> None:
    assert mission_catalogue.choose("n5-relay-station", "n5").title == "Relay Station"
    assert mission_catalogue.choose(DOCUMENT, Ruleset.CODEONE).id == "test-yard"
    with pytest.raises(MissionError, match="no mission 'nowhere'"):
        mission_catalogue.choose("nowhere", "n5")
    with pytest.raises(MissionError, match="for codeone, not n5"):
        mission_catalogue.choose("codeone-cold-storage", "n5")
    (summary,) = mission_catalogue.summaries("codeone")
    assert summary["id"] == "codeone-cold-storage" and summary["objectives"]
    assert all(o["text"] for o in summary["objectives"])


def test_a_game_set_up_with_a_mission_holds_it_and_refuses_a_wrong_one_digest_11_5() -> None:
    state = engine.new_game(engine.GameSetup(ruleset="n5", mission="n5-flare-line"))
    assert state.mission is not None and state.mission.id == "n5-flare-line"
    assert engine.new_game(engine.GameSetup(ruleset="n5")).mission is None
    with pytest.raises(MissionError):
        engine.new_game(engine.GameSetup(ruleset="n5", mission="codeone-cold-storage"))


def test_shipped_missions_three_n5_one_codeone_within_ten_op_digest_14() -> None:
    """At least three N5 missions and one CodeOne mission, each mixing objective kinds, with
    Classified Objectives on some; what can be scored reaches the cap of 10 without the
    objectives alone exceeding it by much (the cap holds anyway)."""
    n5, codeone = mission_catalogue.missions(Ruleset.N5), mission_catalogue.missions(Ruleset.CODEONE)
    assert len(n5) >= 3 and len(codeone) >= 1
    for mission in (*n5, *codeone):
        assert len({o.TYPE for o in mission.objectives}) >= 2, mission.id
        assert mission.max_op == 10
    assert any(m.classified_draw for m in (*n5, *codeone))


def _inside(point: tuple[float, float], polygon: tuple[tuple[float, float], ...]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def test_every_shipped_marker_stands_clear_of_terrain_on_every_table_digest_11_5() -> None:
    """A coarse reachability check: on every shipped table of the mission's rulesets, each
    marker's point is outside every terrain piece and at least an inch from its outline, so
    a trooper's base fits beside it; and no zone lies wholly inside a piece."""
    for mission in mission_catalogue.shipped():
        for ruleset in mission.rulesets:
            for listed in table_catalogue.layouts(ruleset):
                table = listed.layout.table
                for piece in table.terrain:
                    edges = list(zip(piece.polygon, piece.polygon[1:] + piece.polygon[:1],
                                     strict=True))
                    for marker in mission.markers:
                        where = f"{mission.id} {marker.id} on {table.id} ({piece.id})"
                        assert not _inside(marker.position, piece.polygon), where
                        assert min(point_to_segment_distance(marker.position, a, b)
                                   for a, b in edges) >= 1.0, where
                    for zone in mission.zones:
                        corners = [(zone.x0, zone.y0), (zone.x1, zone.y0), (zone.x1, zone.y1),
                                   (zone.x0, zone.y1)]
                        assert not all(_inside(c, piece.polygon) for c in corners)
                for marker in mission.markers:  # room for a base between it and the edge
                    assert 1.0 <= marker.x <= table.width - 1.0, marker.id
                    assert 1.0 <= marker.y <= table.depth - 1.0, marker.id
