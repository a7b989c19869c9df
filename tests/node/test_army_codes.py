"""The node reads the operator's army data when the app is made (``REFEREE_ARMY_DATA``): with
it the rooms read army codes and offer them; a folder that is not army data stops the start
with its problem; without one, codes are refused ``no_army_data``."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.app import create_app
from server.config import Settings
from server.node.army_codes import army_code_reader, load_operator_army_data
from server.rooms.rules_engine import ArmyCodeRefused
from server.rules.armies.army_data import ArmyDataError
from server.rules.armies.army_list import ListFormat
from testkit.army_codes import legal_army_code
from testkit.synthetic_army_data import SYNTHETIC_ARMY_DATA


def test_the_reader_turns_a_code_into_its_document_and_refuses_a_damaged_one() -> None:
    read = army_code_reader(load_operator_army_data(SYNTHETIC_ARMY_DATA))
    assert read is not None
    document = read(legal_army_code(2), ListFormat.STANDARD)
    assert document["format"] == "standard" and document["entries"]
    with pytest.raises(ArmyCodeRefused) as refused:
        read(legal_army_code(2)[:40], ListFormat.STANDARD)
    assert "byte" in refused.value.problem


def test_no_folder_no_reader() -> None:
    assert army_code_reader(load_operator_army_data(None)) is None


def test_a_folder_that_is_not_army_data_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(ArmyDataError, match=r"metadata\.json"):
        create_app(Settings(freeze_gc=False, static_dir=None, army_data=tmp_path))


def test_the_app_with_army_data_offers_codes() -> None:
    app = create_app(Settings(freeze_gc=False, static_dir=None, army_data=SYNTHETIC_ARMY_DATA))
    engine = app.state.registry._engine  # the rooms' engine: what a seat's options come from
    state = engine.new_game("n5", 1)
    assert engine.seat_options(state, "A")["bring_army"] == ["list", "code"]
