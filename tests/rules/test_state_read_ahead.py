"""Reading a stored state takes its army lists first and hands each trooper written by
reference its army's very entry object (``server/rules/plain/state_form.py``); the decoders
take a value of exactly the expected class, read already, as it is
(``server/rules/plain/decoders.py``, ``explaining.py``).

Implementation test: no rule section."""

from __future__ import annotations

import pytest

from server.rules import engine
from server.rules.armies.army_list import ArmyList, ListEntry
from server.rules.plain import FormatError, decoders, from_plain
from server.rules.plain.explaining import explained
from tests.rules.test_state_form import _fielded


def test_a_value_read_already_is_taken_as_it_is_by_both_readers() -> None:
    army = _fielded().armies["A"]
    entry = army.entries[0]
    for cls, value in ((ArmyList, army), (ListEntry, entry)):
        assert from_plain(cls, value) is value
        assert explained(cls, value) is value


def test_a_value_of_another_class_is_refused() -> None:
    army = _fielded().armies["A"]
    with pytest.raises(FormatError, match="must be a map"):
        from_plain(ListEntry, army)


def test_troopers_by_reference_hold_their_armys_own_entries_without_the_shared_cache(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # With no room in the shared caches, an entry's plain form read again per trooper
    # would make an equal entry of its own for each trooper.
    state = _fielded()
    plain = engine.state_to_plain(state)
    assert all(isinstance(t["entry"], str) for t in plain["troopers"].values())
    decoders.forget_shared()
    monkeypatch.setattr(decoders, "SHARED_LIMIT", 0)
    back = engine.state_from_plain(plain)
    decoders.forget_shared()
    assert back == state
    for trooper in back.troopers.values():
        assert trooper.entry is back.armies[trooper.side].entry(trooper.entry.id)
