"""``plain.from_plain`` builds one converter per type; it must accept, build and reject
exactly what the reflective walker it replaced did (``serial_reference``), with the same
``FormatError`` messages: clients see them as the reasons their commands are refused.

It reads data first with the decoders generated per type (``plain.decoders``), which only
tell that data is wrong; these must never accept what the walker refuses, nor build another
value, and every value of every event type must make the round trip exactly.

Implementation test: no rule section."""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import types
import typing
from collections.abc import Iterable, Mapping
from enum import Enum
from functools import cache
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rooms.rules_engine import RulesCoreEngine
from server.rules import engine
from server.rules.armies.army_catalogue import sample_armies
from server.rules.armies.profiles import UnitProfile
from server.rules.armies.weapons import Weapon
from server.rules.commands import Command
from server.rules.events import Event
from server.rules.ids import Side
from server.rules.plain import FormatError, Plain, Tagged, from_plain, to_plain
from server.rules.plain import decoders as plain_decoders
from server.rules.state import GameState
from testkit.scripted_game import plan
from tests.rules import serial_reference
from tests.rules.test_views_and_replay import _random_game

ENGINE = RulesCoreEngine()


@cache
def _scripted_game() -> tuple[list[Plain], list[GameState], list[Event]]:
    """The benchmark's scripted game: its command bodies, every state and every event."""
    bodies = [body for _, body in plan(7).commands(clock_closes_windows=True)]
    states = [ENGINE.new_game("codeone", 7)]
    events: list[Event] = []
    for side, body in plan(7).commands(clock_closes_windows=True):
        verdict = ENGINE.decide(states[-1], side, ENGINE.parse_command(body))
        assert verdict.events is not None, body
        events.extend(verdict.events)
        states.append(ENGINE.apply_all(states[-1], verdict.events))
    return bodies, states, events


@cache
def _samples() -> list[tuple[Any, Plain]]:
    """(target type, plain data) pairs of every kind ``from_plain`` reads in production."""
    bodies, states, events = _scripted_game()
    army = next(iter(sample_armies().values()))
    profile = army.entries[0].profile
    samples: list[tuple[Any, Plain]] = [(Command, body) for body in bodies]
    samples += [(Event, to_plain(event)) for event in events]
    samples += [(GameState, plain) for plain in _covering(to_plain(s) for s in states)]
    samples += [(UnitProfile, to_plain(entry.profile)) for entry in army.entries]
    samples += [(Weapon, to_plain(weapon)) for weapon in army.arsenal]
    # profile_from_plain reads each field on its own, by its type hint.
    hints = get_type_hints(UnitProfile)
    samples += [(hints[f.name], to_plain(getattr(profile, f.name)))
                for f in dataclasses.fields(UnitProfile)]
    return samples


def _covering(plains: Iterable[Plain]) -> list[Plain]:
    """A few of ``plains`` that together hold a non-empty value at every place (by field
    names, not indices) where any of them has one: each kind of value gets malformed."""
    chosen: list[Plain] = []
    covered: set[tuple[str, ...]] = set()
    for plain in plains:
        filled = {tuple(str(key) for key in place if not isinstance(key, int))
                  for place in _places(plain) if _value_at(plain, place) not in (None, [], {})}
        if not filled <= covered:
            chosen.append(plain)
            covered |= filled
    return chosen


def _value_at(data: Plain, place: tuple[Any, ...]) -> Plain:
    for key in place:
        data = data[key]
    return data


def _outcome(read: Any, tp: Any, data: Plain, path: str) -> tuple[str, ...]:
    try:
        value = read(tp, data, path)
    except FormatError as error:
        return ("FormatError", str(error), error.path, error.problem)
    except (TypeError, ValueError, OverflowError) as error:  # from a class's own checks
        return (type(error).__name__, str(error))
    return ("value", type(value).__name__, repr(value))


def _generated(tp: Any, data: Plain, path: str) -> Any:
    """The generated decoder of ``tp`` alone (no explaining converters behind it)."""
    try:
        return plain_decoders.decoder_for(tp)(data)
    except plain_decoders.Wrong:
        raise FormatError(path, "refused by the generated decoder") from None


def test_the_generated_decoders_read_every_value_of_the_scripted_game() -> None:
    """Valid data never falls back to the explaining converters (that would only be slow)."""
    for tp, plain in _samples():
        assert repr(_generated(tp, plain, "")) == repr(serial_reference.from_plain(tp, plain))


def test_the_scripted_game_reads_back_as_it_was_written() -> None:
    bodies, states, events = _scripted_game()
    for state in states:
        plain = to_plain(state)
        assert repr(plain) == repr(serial_reference.to_plain(state))
        assert engine.state_from_plain(plain) == state
        assert repr(from_plain(GameState, plain)) == repr(serial_reference.from_plain(GameState, plain))
    for event in events:
        assert repr(to_plain(event)) == repr(serial_reference.to_plain(event))
        assert from_plain(Event, to_plain(event)) == event
        assert (repr(from_plain(Event, to_plain(event)))
                == repr(serial_reference.from_plain(Event, to_plain(event))))
    for body in bodies:
        assert (repr(from_plain(Command, body))
                == repr(serial_reference.from_plain(Command, body)))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), ruleset=st.sampled_from(["codeone", "n5"]))
def test_random_games_read_back_as_they_were_written(seed: int, ruleset: str) -> None:
    initial = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed))
    state, log = _random_game(initial, random.Random(seed), max_commands=300, views_every=10_000)
    plain = to_plain(state)
    assert repr(plain) == repr(serial_reference.to_plain(state))
    assert engine.state_from_plain(plain) == state
    # repr tells 0 from 0.0 (a float field the game set to 0 reads back as 0.0, as before).
    assert repr(engine.state_from_plain(plain)) == repr(serial_reference.from_plain(GameState, plain))
    for event in log:
        assert repr(to_plain(event)) == repr(serial_reference.to_plain(event))
        assert from_plain(Event, to_plain(event)) == event
        assert (repr(from_plain(Event, to_plain(event)))
                == repr(serial_reference.from_plain(Event, to_plain(event))))


# --- malformed data ---------------------------------------------------------------------------

_ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([2**70, -(2**70)]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["", "A", "x", "-1", "7"]),
    st.text(max_size=4), st.lists(st.integers(0, 3), max_size=3), st.just([[1, 2], "x"]),
    st.dictionaries(st.sampled_from(["type", "x", "id", "1"]), st.integers(0, 2), max_size=2),
    st.sampled_from(sorted(Event.tags() + Command.tags())).map(lambda tag: {"type": tag}),
)


def _places(data: Plain, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path (keys and indices) of every value inside ``data``, ``data`` itself first."""
    places = [at]
    if isinstance(data, dict):
        for key, item in data.items():
            places += _places(item, (*at, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            places += _places(item, (*at, i))
    return places


def _mutate(data: Plain, place: tuple[Any, ...], how: str, odd: Any) -> Plain:
    """``data`` with the value at ``place`` replaced by ``odd``, dropped, given an unknown
    field, or (a map key) turned into ``odd``'s text."""
    if not place:
        return odd
    data = copy.deepcopy(data)
    *outer, last = place
    parent = data
    for step in outer:
        parent = parent[step]
    if how == "replace" or not isinstance(parent, dict):
        parent[last] = odd
    elif how == "drop":
        del parent[last]
    elif how == "unknown field":
        parent[f"extra_{odd!r}"] = 1
    else:  # rename the key
        parent[str(odd)] = parent.pop(last)
    return data


@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), how=st.sampled_from(["replace", "drop", "unknown field", "rename"]),
       odd=_ODD_VALUES, path=st.sampled_from(["", "weapons[3]"]))
def test_malformed_data_is_refused_exactly_as_before(data: st.DataObject, how: str, odd: Any,
                                                      path: str) -> None:
    samples = _samples()
    tp, plain = samples[data.draw(st.integers(0, len(samples) - 1), label="sample")]
    places = _places(plain)
    place = places[data.draw(st.integers(0, len(places) - 1), label="place")]
    bad = _mutate(plain, place, how, odd)
    expected = _outcome(serial_reference.from_plain, tp, bad, path)
    assert _outcome(from_plain, tp, bad, path) == expected
    # The generated decoder alone: refuses, or builds the very value the walker builds.
    fast = _outcome(_generated, tp, bad, path)
    assert fast[0] != "value" or fast == expected


_KNOWN = [
    (Command, [], "", "value: must be a map"),
    (Command, {"type": "nonsense"}, "", "type: unknown type 'nonsense'"),
    (Command, {"type": 3}, "cmd", "cmd.type: unknown type 3"),
    (Command, {"type": "end_turn", "x": 1}, "", "value: has unknown fields ['x']"),
    (float, math.inf, "range", "range: must be a finite number"),
    (tuple[int, ...], [1, "2"], "dice", "dice[1]: must be a whole number"),
    (tuple[int, str], [1], "pair", "pair: must have 2 items"),
    (dict[int, str], {"1": 2}, "names", "names.1: must be text"),
    (dict[int, int], {"x": 2}, "pools", "pools.key: must be a whole number"),
    (dict[Side, str], {"C": "north"}, "zones", "zones.key: must be one of ['A', 'B']"),
    (frozenset[int], [1, None], "ids", "ids[]: must be a whole number"),
    (int | None, "x", "n", "n: must be a whole number"),
    (int | str, None, "n", "n: has the wrong shape"),
]


@pytest.mark.parametrize(("tp", "data", "path", "expected"), _KNOWN)
def test_known_messages_stay_word_for_word(tp: Any, data: Plain, path: str,
                                           expected: str) -> None:
    """A few rejection reasons, written out (and the same as the old walker's)."""
    assert _outcome(from_plain, tp, data, path)[:2] == ("FormatError", expected)
    assert _outcome(serial_reference.from_plain, tp, data, path)[:2] == ("FormatError", expected)


def test_map_keys_read_back_as_whole_numbers_only_for_whole_number_keys() -> None:
    assert from_plain(dict[int, int], {"-2": 1, "7": 2}) == {-2: 1, 7: 2}
    assert from_plain(dict[str, int], {"7": 2}) == {"7": 2}


# --- shared values ------------------------------------------------------------------------


def test_catalogue_values_are_shared_between_reads_and_told_apart_by_type() -> None:
    _, states, _ = _scripted_game()
    plain = to_plain(states[-1])
    first, second = from_plain(GameState, plain), from_plain(GameState, copy.deepcopy(plain))
    assert first == second
    side = next(iter(first.armies))
    assert first.armies[side].entries[0].profile is second.armies[side].entries[0].profile
    assert first.armies[side].arsenal[0] is second.armies[side].arsenal[0]
    # Equal as plain data, but not the same data: True is not a whole number, a whole
    # number reads back as a float, -0.0 is not 0.0 (equality does not tell them apart).
    profile = {**to_plain(first.armies[side].entries[0].profile), "cc": 1, "structure": False,
               "swc": 0.0}
    assert from_plain(UnitProfile, profile) == serial_reference.from_plain(UnitProfile, profile)
    for field_name, odd in [("cc", True), ("cc", 1.0), ("structure", 0), ("swc", 0),
                            ("swc", -0.0), ("swc", False)]:
        changed = {**profile, field_name: odd}
        assert changed == profile
        assert (_outcome(from_plain, UnitProfile, changed, "")
                == _outcome(serial_reference.from_plain, UnitProfile, changed, ""))
    plain_decoders.forget_shared()
    assert from_plain(GameState, plain) == first


# --- every event type, round trip --------------------------------------------------------

_PLAIN_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner,
                                                                max_size=2),
    max_leaves=4)


def _values_of(tp: Any) -> st.SearchStrategy[Any]:
    """Values of ``tp`` as the rules core holds them (built from the type hints; classes
    whose own checks refuse the drawn fields are drawn again)."""
    while getattr(tp, "__supertype__", None) is not None:
        tp = tp.__supertype__
    origin, args = get_origin(tp), get_args(tp)
    if tp is Any:
        return _PLAIN_VALUES
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_values_of(arg) for arg in args])
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_values_of(args[0]), max_size=2).map(tuple)
        return st.tuples(*(_values_of(arg) for arg in args))
    if origin is frozenset:
        return st.frozensets(_values_of(args[0]), max_size=2)
    if origin in (dict, Mapping):
        return st.dictionaries(_values_of(args[0]), _values_of(args[1]), max_size=2)
    if tp is type(None):
        return st.none()
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(-2, 25)  # small: dice faces and counts pass their checks
    if tp is float:
        return st.floats(-100, 100, allow_nan=False)
    if tp is str:
        return st.text(max_size=4)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return st.sampled_from(list(tp))
    if isinstance(tp, type) and issubclass(tp, Tagged) and not tp.__dict__.get("TYPE"):
        return st.sampled_from(tp.tags()).flatmap(lambda tag: _values_of(tp.class_for(tag)))
    assert isinstance(tp, type) and dataclasses.is_dataclass(tp), tp
    return st.deferred(lambda: _dataclass_values(tp))


@cache
def _dataclass_values(cls: type) -> st.SearchStrategy[Any]:
    hints = get_type_hints(cls)
    fields = {f.name: _values_of(hints[f.name]) for f in dataclasses.fields(cls) if f.init}
    return st.fixed_dictionaries(fields).map(lambda kwargs: _built(cls, kwargs)).filter(
        lambda value: value is not None)


def _built(cls: type, kwargs: dict[str, Any]) -> Any:
    try:
        return cls(**kwargs)
    except (ValueError, TypeError):
        return None


@pytest.mark.parametrize("tag", Event.tags())
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_event_type_makes_the_round_trip(tag: str, data: st.DataObject) -> None:
    """Written as the reference writes it, read back equal. Also the event types the scripted and random games do not reach (clocks, Combat
    Jump, Retreat!, Command Tokens...)."""
    event = data.draw(_values_of(Event.class_for(tag)))
    plain = to_plain(event)
    assert repr(plain) == repr(serial_reference.to_plain(event))  # repr: 1 is not 1.0
    back = from_plain(Event, plain)
    assert back == event
    assert repr(back) == repr(serial_reference.from_plain(Event, plain))
    assert repr(_generated(Event, plain, "")) == repr(back)
    assert to_plain(back) == plain


def test_classes_with_their_own_checks_are_built_through_them() -> None:
    """Decoders store fields straight into the slots only of classes whose ``__init__`` does
    nothing else; a ``__post_init__`` (or a written-out ``__init__``) still runs."""
    from server.rules.combat.dice import Dice
    from server.rules.table.terrain import Zone

    with pytest.raises(ValueError, match="cursor must not be negative"):
        from_plain(Dice, {"cursor": -1})
    with pytest.raises(ValueError, match="x0 <= x1"):
        from_plain(Zone, {"x0": 2.0, "y0": 0.0, "x1": 1.0, "y1": 1.0})
    _, states, _ = _scripted_game()
    state = from_plain(GameState, to_plain(states[-1]))
    assert state == states[-1] and hash(state.dice) == hash(states[-1].dice)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.turn = 99  # type: ignore[misc]
