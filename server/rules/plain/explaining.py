"""The explaining converters: plain data read as a type by walking its type hints, saying
where and why data of the wrong shape is refused (``FormatError``, with the path to the
value at fault: ``"weapons[3].burst"``).

``decoding.from_plain`` reads data with the fast generated decoders first (``decoders``);
only what they refuse comes here, rare (stored data was written by ``to_plain``; commands
come from clients), so this walk favours clear messages over speed, though it too keeps one
converter per type.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from enum import Enum
from typing import Any, Union, get_args, get_origin

from .data import FormatError, Plain, itself, unsupported
from .hints import hints_of
from .tagged import Tagged


def explained(tp: Any, data: Plain, path: str = "") -> Any:
    """``data`` read as a value of type ``tp``, or ``FormatError`` saying where and why it
    does not fit (``path`` names where ``data`` sits)."""
    try:
        return _from_plain_for(tp)(data)
    except _Misfit as misfit:
        for step in reversed(misfit.steps):
            path = step(path)
        raise FormatError(path, misfit.problem) from None


_FromPlain = abc.Callable[[Plain], Any]
_Step = abc.Callable[[str], str]


class _Misfit(Exception):
    """A ``FormatError`` on its way up to ``explained``, which names its path.

    Each container the bad value sits in adds the step from its own path to the item's as the
    misfit passes through (``steps`` runs innermost first), so paths are built only for data
    that is rejected: building one per field and item was a large part of the conversion's
    cost.
    """

    def __init__(self, problem: str, *steps: _Step) -> None:
        super().__init__(problem)
        self.problem = problem
        self.steps = list(steps)


_FROM_PLAIN: dict[Any, _FromPlain] = {}
"""The converter of each target type met so far (see ``encoding.TO_PLAIN``): loading a room
converts a snapshot and up to a hundred events, and reading the type hints once per type
instead of once per value is most of the conversion's speed. Classes are their own key; other types
(``int | None``, ``tuple[X, ...]``) are keyed with their ``repr`` too, because equal unions may
list their options in different orders, and the order decides."""


def _from_plain_for(tp: Any) -> _FromPlain:
    key = tp if isinstance(tp, type) else (tp, repr(tp))
    convert = _FROM_PLAIN.get(key)
    if convert is None:
        convert = _FROM_PLAIN[key] = _build_from_plain(tp)
    return convert


def _build_from_plain(tp: Any) -> _FromPlain:
    if tp is Any:
        return itself
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union_from_plain(get_args(tp))
    if origin is typing.Literal:
        return _literal_from_plain(get_args(tp))
    if origin is tuple:
        return _tuple_from_plain(get_args(tp))
    if origin is frozenset:
        (item_tp,) = get_args(tp)
        return _frozenset_from_plain(_from_plain_for(item_tp))
    if origin in (dict, abc.Mapping):
        key_tp, item_tp = get_args(tp)
        return _dict_from_plain(key_tp, _from_plain_for(key_tp), _from_plain_for(item_tp))
    if isinstance(tp, type):
        return _class_from_plain(tp)
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return _from_plain_for(supertype)
    return unsupported(f"unsupported type {tp!r}")


def _union_from_plain(options: tuple[Any, ...]) -> _FromPlain:
    optional = type(None) in options
    converters = [_from_plain_for(option) for option in options if option is not type(None)]

    def union_from_plain(data: Plain) -> Any:
        if data is None and optional:
            return None
        problems = []
        for convert in converters:
            try:
                return convert(data)
            except (_Misfit, FormatError) as error:  # the option's path is not told
                problems.append(error.problem)
        raise _Misfit(problems[0] if len(problems) == 1 else "has the wrong shape")
    return union_from_plain


def _literal_from_plain(values: tuple[Any, ...]) -> _FromPlain:
    problem = f"must be one of {list(values)}"

    def literal_from_plain(data: Plain) -> Any:
        if data not in values:
            raise _Misfit(problem)
        return data
    return literal_from_plain


def _tuple_from_plain(args: tuple[Any, ...]) -> _FromPlain:
    if len(args) == 2 and args[1] is Ellipsis:
        convert_item = _from_plain_for(args[0])

        def tuple_from_plain(data: Plain) -> Any:
            return tuple(_items_from_plain(convert_item, data, _at_index))
        return tuple_from_plain
    converters = [_from_plain_for(arg) for arg in args]
    problem = f"must have {len(args)} items"

    def fixed_tuple_from_plain(data: Plain) -> Any:
        items = _as_list(data)
        if len(items) != len(converters):
            raise _Misfit(problem)
        out: list[Any] = []
        append = out.append
        try:
            for convert, item in zip(converters, items, strict=True):
                append(convert(item))
        except _Misfit as misfit:
            misfit.steps.append(_at_index(len(out)))  # the index of the item at fault
            raise
        return tuple(out)
    return fixed_tuple_from_plain


def _frozenset_from_plain(convert_item: _FromPlain) -> _FromPlain:
    def frozenset_from_plain(data: Plain) -> Any:
        return frozenset(_items_from_plain(convert_item, data, _in_set))
    return frozenset_from_plain


def _items_from_plain(convert: _FromPlain, data: Plain,
                      step: abc.Callable[[int], _Step]) -> list[Any]:
    items = _as_list(data)
    out: list[Any] = []
    append = out.append
    try:
        for item in items:
            append(convert(item))
    except _Misfit as misfit:
        misfit.steps.append(step(len(out)))  # the index of the item at fault
        raise
    return out


def _at_index(i: int) -> _Step:
    return lambda path: f"{path}[{i}]"


def _in_set(i: int) -> _Step:
    return _set_item  # a set's items have no index: every one is "path[]"


def _set_item(path: str) -> str:
    return f"{path}[]"


def _dict_from_plain(key_tp: Any, convert_key: _FromPlain,
                     convert_item: _FromPlain) -> _FromPlain:
    int_keys = key_tp is int

    def dict_from_plain(data: Plain) -> Any:
        if not isinstance(data, dict):
            raise _Misfit("must be a map")
        out = {}
        for key, item in data.items():
            try:
                # Map keys travel as text (``to_plain`` writes ``str(key)``); whole-number
                # keys come back.
                if int_keys and isinstance(key, str) and key.lstrip("-").isdigit():
                    converted = convert_key(int(key))
                else:
                    converted = convert_key(key)
            except _Misfit as misfit:
                misfit.steps.append(_map_key_step)
                raise
            try:
                out[converted] = convert_item(item)
            except _Misfit as misfit:
                misfit.steps.append(_map_item_step(key))
                raise
        return out
    return dict_from_plain


def _map_key_step(path: str) -> str:
    return f"{path}.key"


def _map_item_step(key: Any) -> _Step:
    return lambda path: f"{path}.{key}"


def _class_from_plain(cls: type) -> _FromPlain:
    if cls is bool:
        return _bool_from_plain
    if cls is int:
        return _int_from_plain
    if cls is float:
        return _float_from_plain
    if cls is str:
        return _str_from_plain
    if issubclass(cls, Tagged) and not cls.__dict__.get("TYPE"):
        return _tagged_from_plain(cls)
    if issubclass(cls, Enum):
        return _enum_from_plain(cls)
    if dataclasses.is_dataclass(cls):
        return _dataclass_from_plain(cls)
    return unsupported(f"unsupported class {cls!r}")


def _bool_from_plain(data: Plain) -> Any:
    if not isinstance(data, bool):
        raise _Misfit("must be true or false")
    return data


def _int_from_plain(data: Plain) -> Any:
    if isinstance(data, bool) or not isinstance(data, int):
        raise _Misfit("must be a whole number")
    return data


def _float_from_plain(data: Plain) -> Any:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise _Misfit("must be a number")
    if data != data or data in _INFINITIES:
        raise _Misfit("must be a finite number")
    return float(data)


_INFINITIES = (float("inf"), float("-inf"))


def _str_from_plain(data: Plain) -> Any:
    if not isinstance(data, str):
        raise _Misfit("must be text")
    return data


def _tagged_from_plain(cls: type[Tagged]) -> _FromPlain:
    def tagged_from_plain(data: Plain) -> Any:
        if not isinstance(data, dict):
            raise _Misfit("must be a map")
        tag = data.get("type")
        # Looked up on each use: the registry may grow after this converter is built.
        concrete = cls.class_for(tag) if isinstance(tag, str) else None
        if concrete is None or not issubclass(concrete, cls):
            raise _Misfit(f"unknown type {tag!r}", _type_step)
        return _from_plain_for(concrete)(data)
    return tagged_from_plain


def _type_step(path: str) -> str:
    return f"{path}.type" if path else "type"


def _enum_from_plain(cls: type[Enum]) -> _FromPlain:
    members = cls._value2member_map_
    problem = f"must be one of {[m.value for m in cls]}"

    def enum_from_plain(data: Plain) -> Any:
        try:
            return members[data]  # what cls(data) looks up first
        except (KeyError, TypeError):
            pass
        try:
            return cls(data)
        except ValueError:
            raise _Misfit(problem) from None
    return enum_from_plain


def _dataclass_from_plain(cls: type) -> _FromPlain:
    # The fields are read on first use: their types may name this class (or one naming it),
    # whose converter is then this one, and forward references resolve only once every
    # module is loaded.
    plan: tuple[tuple[str, _FromPlain, type, bool, _Step], ...] | None = None
    known = frozenset({f.name for f in dataclasses.fields(cls)} | {"type"})

    def dataclass_from_plain(data: Plain) -> Any:
        nonlocal plan
        if not isinstance(data, dict):
            if data.__class__ is cls:  # read already: taken as it is, as a field's value is
                return data
            raise _Misfit("must be a map")
        if plan is None:
            plan = _dataclass_plan(cls)
        kwargs: dict[str, Any] = {}
        for name, convert, accepted, required, step in plan:
            if name in data:
                value = data[name]
                if type(value) is not accepted:
                    try:
                        value = convert(value)
                    except _Misfit as misfit:
                        misfit.steps.append(step)
                        raise
                kwargs[name] = value
            elif required:
                raise _Misfit("is missing", step)
        if not known.issuperset(data):
            unknown = sorted(str(key) for key in data if key not in known)
            raise _Misfit(f"has unknown fields {unknown}")
        return cls(**kwargs)
    return dataclass_from_plain


def _dataclass_plan(cls: type) -> tuple[tuple[str, _FromPlain, type, bool, _Step], ...]:
    """(name, converter, accepted type, required, path step) of each field that
    ``cls.__init__`` takes; a value of exactly the accepted type is taken as it is."""
    hints = hints_of(cls)
    plan = []
    for field in dataclasses.fields(cls):
        if field.init:
            convert = _from_plain_for(hints[field.name])
            required = (field.default is dataclasses.MISSING
                        and field.default_factory is dataclasses.MISSING)
            plan.append((field.name, convert, _ACCEPTED_AS_IS.get(convert, _Nothing), required,
                         _field_step(field.name)))
    return tuple(plan)


class _Nothing:
    """No plain value has this type: a field whose values all go through their converter."""


_ACCEPTED_AS_IS: dict[_FromPlain, type] = {
    _str_from_plain: str, _int_from_plain: int, _bool_from_plain: bool,
}
"""Converters that return any value of exactly this type unchanged (most fields are text,
whole numbers or flags: skipping the call is a good part of the conversion's speed)."""


def _field_step(name: str) -> _Step:
    return lambda path: f"{path}.{name}" if path else name


def _as_list(data: Plain) -> list[Any] | tuple[Any, ...]:
    if not isinstance(data, list | tuple):
        raise _Misfit("must be a list")
    return data


