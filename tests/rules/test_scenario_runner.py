"""The scenario runner itself: its matcher can fail, malformed files are refused, and a
broken rule in the engine makes the scenarios that exercise it fail.

Implementation test: no rule section."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.rules.combat import face_to_face as f2f
from server.rules.ruleset import OPTIONS, Ruleset
from server.rules.state import Eligibility, TrooperState
from tests.support.scenarios import (
    SCENARIO_DIR,
    ScenarioFailed,
    expect,
    load_scenario,
    run_scenario,
    scenario_files,
)


def _run(name: str) -> None:
    run_scenario(load_scenario(SCENARIO_DIR / f"{name}.json"))


def test_there_are_scenarios_for_issue_2_and_3() -> None:
    names = {p.stem for p in scenario_files()}
    assert {
        "shot_and_counter_shot", "dodge", "direct_template", "discover_then_shoot_camouflage",
        "unconscious_then_dead", "guts_roll", "w6_aro_windows_move_move", "zoc_only_dodge_and_reset",
        "aro_lost_by_not_declaring", "order_structure_rejections", "w6_order_count",
    } <= names


# --- the matcher --------------------------------------------------------------------------


def test_matcher_checks_only_the_named_fields() -> None:
    expect({"a": 1, "b": {"c": [1, 2.0]}}, {"a": 1, "b": {"c": [1, 2.0000000001], "d": 9}, "e": 0})


@pytest.mark.parametrize(
    ("want", "got"),
    [
        ({"a": 1}, {"b": 1}),  # missing field
        ({"a": [1, 2]}, {"a": [1, 2, 3]}),  # lists match element by element, same length
        ({"a": 1}, {"a": 1.01}),
        ({"a": True}, {"a": 1}),  # a bool is not a number
        ({"a": 1}, {"a": True}),
        ({"a": "x"}, {"a": None}),
        ({"a": None}, {"a": "x"}),
        ({"a": {"b": 1}}, {"a": [1]}),
    ],
)
def test_matcher_fails_on_a_difference(want: Any, got: Any) -> None:
    with pytest.raises(ScenarioFailed):
        expect(want, got)


def test_malformed_scenario_files_are_refused(tmp_path: Path) -> None:
    def write(data: dict[str, Any]) -> Path:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        return path

    base = {"title": "t", "setup": {}, "steps": []}
    with pytest.raises(ScenarioFailed, match="unknown key"):
        load_scenario(write(base | {"extra": 1}))
    with pytest.raises(ScenarioFailed, match="unknown key"):
        load_scenario(write(base | {"setup": {"placement": {}}}))
    with pytest.raises(ScenarioFailed, match="exactly one"):
        load_scenario(write(base | {"steps": [{"as": "A", "command": {"type": "end_turn"}}]}))
    with pytest.raises(ScenarioFailed, match="'as'"):
        load_scenario(write(base | {"steps": [{"command": {"type": "end_turn"}, "events": []}]}))


def test_unrolled_injected_dice_fail_the_scenario(tmp_path: Path) -> None:
    data = json.loads((SCENARIO_DIR / "w6_order_count.json").read_text())
    data["setup"]["dice"] = [7]
    path = tmp_path / "extra_dice.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioFailed, match="not rolled"):
        run_scenario(load_scenario(path))


def test_a_wrong_expectation_fails_with_the_step_and_field(tmp_path: Path) -> None:
    data = json.loads((SCENARIO_DIR / "shot_and_counter_shot.json").read_text())
    data["steps"][-1]["events"][1]["outcome"]["rolls"][0]["success_value"] = 13
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ScenarioFailed, match=r"step 7, event 2: at outcome.rolls\[0\].success_value"):
        run_scenario(load_scenario(path))


# --- a broken rule makes scenarios fail ----------------------------------------------------


def test_scenarios_fail_when_face_to_face_cancels_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    real = f2f.face_to_face

    def no_cancelling(*args: Any) -> f2f.FaceToFace:
        result = real(*args)
        first = replace(result.first, cancelled=tuple(False for _ in result.first.cancelled))
        return replace(result, first=first)

    monkeypatch.setattr("server.rules.combat.resolution.face_to_face", no_cancelling)
    with pytest.raises(ScenarioFailed):
        _run("shot_and_counter_shot")
    with pytest.raises(ScenarioFailed):
        _run("dodge")


def test_scenarios_fail_when_zone_of_control_reactions_are_not_limited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Eligibility, "zoc_only", property(lambda self: False))
    with pytest.raises(ScenarioFailed, match="zone_of_control_only"):
        _run("zoc_only_dodge_and_reset")


def test_scenarios_fail_when_null_troopers_count_and_act(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TrooperState, "can_act", property(lambda self: self.on_table))
    with pytest.raises(ScenarioFailed, match="pools"):
        _run("w6_order_count")


def test_scenarios_fail_without_guts_rolls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(OPTIONS, Ruleset.N5, replace(OPTIONS[Ruleset.N5], guts_rolls=False))
    with pytest.raises(ScenarioFailed):
        _run("guts_roll")


def test_scenarios_fail_without_the_n5_zone_of_control_dodge_penalty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(OPTIONS, Ruleset.N5, replace(OPTIONS[Ruleset.N5], zoc_dodge_penalty=False))
    with pytest.raises(ScenarioFailed, match=r"outcome\.rolls"):
        _run("zoc_only_dodge_and_reset")
