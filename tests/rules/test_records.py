"""``records.replace`` is ``dataclasses.replace``: the same values, the same checks, the same
errors; only faster."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from server.rules.dice import Dice
from server.rules.geometry import Body
from server.rules.records import replace
from tests.rules.test_serial_from_plain import _scripted_game


def _outcome(replace_: Any, obj: Any, **changes: Any) -> tuple[str, str]:
    try:
        value = replace_(obj, **changes)
    except (TypeError, ValueError) as error:
        return type(error).__name__, str(error)
    return type(value).__name__, repr(value)


def test_every_record_of_the_scripted_game_replaces_field_by_field_as_before() -> None:
    _, states, events = _scripted_game()
    records: list[Any] = [*states[::20], *events]
    for state in states[::20]:
        records += [state.orders, state.initiative, state.dice, *state.troopers.values()]
        records += [state.order] if state.order is not None else []
    for record in records:
        for f in dataclasses.fields(record):
            other = getattr(records[0], f.name, None)
            for value in (getattr(record, f.name), other):
                assert (_outcome(replace, record, **{f.name: value})
                        == _outcome(dataclasses.replace, record, **{f.name: value}))
        assert replace(record) == record


@dataclass(frozen=True)
class _KeywordOnly:
    a: int
    b: int = field(default=0, kw_only=True)


@dataclass(frozen=True)
class _WithInitVar:
    a: int
    scale: InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        if scale < 0:
            raise ValueError("scale must not be negative")


@dataclass
class _One:
    a: int


@pytest.mark.parametrize(("obj", "changes"), [
    (Dice(seed=1), {"cursor": 2}),
    (Dice(seed=1), {"cursor": -1}),  # __post_init__ still refuses it
    (Dice(seed=1), {"injected": (25,)}),
    (Dice(seed=1), {"nonsense": 1}),
    (Body((0.0, 0.0), 0.0, 2), {"facing": 90.0}),
    (Body((0.0, 0.0), 0.0, 2), {"radius": 1.0}),  # not an init field
    (Body((0.0, 0.0), 0.0, 2), {"silhouette": 99}),
    (_KeywordOnly(1, b=2), {"a": 3}),
    (_WithInitVar(1), {"a": 2}),
    (_WithInitVar(1), {"scale": -1}),
    (_One(1), {"a": 2}),
    (_One(1), {}),
    (object(), {}),
])
def test_replace_matches_dataclasses_replace(obj: Any, changes: dict[str, Any]) -> None:
    assert _outcome(replace, obj, **changes) == _outcome(dataclasses.replace, obj, **changes)
