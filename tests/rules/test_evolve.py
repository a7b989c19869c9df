"""``server.rules.evolve.replace`` builds what ``dataclasses.replace`` builds: checked on the
rules core's own classes over a whole scripted game, and on the corner cases of the
dataclass machinery it reimplements.

Implementation test: no rule section."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from server.rooms.rules_engine import RulesCoreEngine
from server.rules.evolve import replace
from server.rules.state import GameState
from testkit.scripted_game import plan


@dataclass(frozen=True, slots=True)
class Plain:
    a: int
    b: str = "b"


@dataclass(frozen=True)
class WithDerived:
    a: int
    kw: int = field(default=0, kw_only=True)
    derived: int = field(init=False, default=-1)

    def __post_init__(self) -> None:
        object.__setattr__(self, "derived", self.a * 10 + self.kw)


@dataclass(frozen=True, slots=True)
class Empty:
    pass


@dataclass(frozen=True, slots=True)
class SlotsWithPostInit:
    a: int
    derived: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "derived", self.a + 1)


@dataclass(frozen=True, slots=True)
class SlotsWithDefaults:
    a: int
    items: tuple[int, ...] = field(default_factory=tuple)
    kw: str = field(default="k", kw_only=True)


def test_the_changed_fields_change_and_the_others_are_the_same_objects() -> None:
    original = Plain(1, "x")
    changed = replace(original, a=2)
    assert changed == Plain(2, "x") and original == Plain(1, "x")
    assert changed.b is original.b
    assert replace(original) == original and replace(original) is not original


def test_init_runs_as_for_dataclasses_replace_kw_only_and_init_false_fields_included() -> None:
    original = WithDerived(1, kw=2)
    for changes in ({}, {"a": 3}, {"kw": 5}, {"a": 4, "kw": 6}):
        assert replace(original, **changes) == dataclasses.replace(original, **changes)
    assert replace(original, a=3).derived == 32


def test_slots_classes_stored_slot_by_slot_equal_their_init_s() -> None:
    """A frozen slots class whose ``__init__`` only stores its fields is copied without
    calling it; one with ``__post_init__`` still runs it."""
    original = SlotsWithDefaults(1, (2, 3), kw="x")
    for changes in ({}, {"a": 5}, {"items": (4,)}, {"kw": "y", "a": 0}):
        copy = replace(original, **changes)
        assert copy == dataclasses.replace(original, **changes)
        assert type(copy) is SlotsWithDefaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        replace(original, a=2).a = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        replace(original, b=1)  # type: ignore[call-arg]
    assert replace(SlotsWithPostInit(1), a=4).derived == 5


def test_a_class_without_fields_is_copied() -> None:
    assert replace(Empty()) == Empty()


@pytest.mark.parametrize("changes", [{"c": 1}, {"derived": 1}])
def test_a_name_that_is_not_an_init_field_is_refused(changes: dict[str, int]) -> None:
    target = Plain(1) if "c" in changes else WithDerived(1)
    with pytest.raises(TypeError):
        replace(target, **changes)


def test_only_dataclass_instances_are_accepted() -> None:
    with pytest.raises(TypeError, match="dataclass instances"):
        replace(object())


def test_every_state_of_a_scripted_game_copies_like_dataclasses_replace() -> None:
    engine = RulesCoreEngine()
    state = engine.new_game("codeone", 7)
    names = [f.name for f in dataclasses.fields(GameState)]
    for side, body in plan(7).commands(clock_closes_windows=True):
        verdict = engine.decide(state, side, engine.parse_command(body))
        assert verdict.events is not None
        state = engine.apply_all(state, verdict.events)
        for name in names[:3]:
            changes = {name: getattr(state, name)}
            assert replace(state, **changes) == dataclasses.replace(state, **changes)
