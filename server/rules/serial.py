"""Conversion between the rules core's frozen dataclasses and plain data.

Plain data is what msgpack and JSON can carry: dicts with string keys, lists, str, int,
float, bool and None. The storage layer and the wire protocol only ever see plain data, so
the rules core stays free of any codec. Conversion is driven by the dataclasses' type hints:

* dataclass -> dict of its fields (tagged unions carry a ``"type"`` key, see ``Tagged``)
* tuple[X, ...] / frozenset[X] -> list
* dict[str, X] -> dict
* Enum -> its value
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from enum import Enum
from functools import cache
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")

Plain = Any
"""Plain data: dict/list/str/int/float/bool/None, nested."""


class FormatError(ValueError):
    """Plain data that does not have the shape of the expected type."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'value'}: {problem}")
        self.path = path
        self.problem = problem


class Tagged:
    """Base for dataclasses that travel inside a tagged union (commands, events, skills).

    Each concrete subclass sets ``TYPE``; ``to_plain`` writes it as the ``"type"`` key and
    ``from_plain`` on the union's base class reads it back to pick the subclass.
    """

    TYPE: ClassVar[str] = ""
    _registry: ClassVar[dict[str, type[Tagged]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_registry" not in cls.__dict__ and not cls.__dict__.get("TYPE"):
            # A new union base (e.g. Command, Event): it gets its own registry.
            cls._registry = {}
            return
        tag = cls.__dict__.get("TYPE")
        if tag:
            known = cls._registry.get(tag)
            # dataclass(slots=True) re-creates the class: the same class may register twice.
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise TypeError(f"duplicate tag {tag!r} for {cls.__name__}")
            cls._registry[tag] = cls

    @classmethod
    def tags(cls) -> tuple[str, ...]:
        return tuple(sorted(cls._registry))

    @classmethod
    def class_for(cls, tag: str) -> type[Tagged] | None:
        return cls._registry.get(tag)


def to_plain(value: Any) -> Plain:
    """Turn a rules-core value into plain data."""
    convert = _TO_PLAIN.get(type(value))
    if convert is None:
        convert = _TO_PLAIN[type(value)] = _to_plain_for(type(value))
    return convert(value)


_TO_PLAIN: dict[type, abc.Callable[[Any], Plain]] = {}
"""The converter of each type met so far: ``to_plain`` runs for every stored event, view
and snapshot, and deciding how to convert a value from its type once, rather than by a
chain of isinstance tests and ``dataclasses.fields`` per value, is most of its speed."""


def _to_plain_for(kind: type) -> abc.Callable[[Any], Plain]:
    if issubclass(kind, Enum):  # before str: our enums are str enums
        return _enum_value
    if kind is type(None) or issubclass(kind, bool | int | float | str):
        return _itself
    if dataclasses.is_dataclass(kind):
        names = tuple(field.name for field in dataclasses.fields(kind))
        tag = kind.TYPE if issubclass(kind, Tagged) else None

        def dataclass_to_plain(value: Any) -> Plain:
            out: dict[str, Plain] = {} if tag is None else {"type": tag}
            for name in names:
                out[name] = to_plain(getattr(value, name))
            return out
        return dataclass_to_plain
    if issubclass(kind, tuple | list):
        return _sequence_to_plain
    if issubclass(kind, frozenset | set):
        return _set_to_plain
    if issubclass(kind, dict):
        return _dict_to_plain
    raise TypeError(f"cannot convert {kind.__name__} to plain data")


def _enum_value(value: Enum) -> Plain:
    return value.value


def _itself(value: Plain) -> Plain:
    return value


def _sequence_to_plain(value: tuple[Any, ...] | list[Any]) -> Plain:
    return [to_plain(item) for item in value]


def _set_to_plain(value: frozenset[Any] | set[Any]) -> Plain:
    return sorted(to_plain(item) for item in value)


def _dict_to_plain(value: dict[Any, Any]) -> Plain:
    return {str(to_plain(key)): to_plain(item) for key, item in value.items()}


def from_plain(cls: type[T], data: Plain, path: str = "") -> T:
    """Build a value of type ``cls`` from plain data, or raise ``FormatError``."""
    return typing.cast(T, _convert(cls, data, path))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _convert(tp: Any, data: Plain, path: str) -> Any:
    if tp is Any:
        return data
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _convert_union(tp, data, path)
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise FormatError(path, f"must be one of {list(get_args(tp))}")
        return data
    if origin is tuple:
        return _convert_tuple(tp, data, path)
    if origin is frozenset:
        (item_tp,) = get_args(tp)
        return frozenset(_convert(item_tp, item, f"{path}[]") for item in _as_list(data, path))
    if origin in (dict, abc.Mapping):
        key_tp, item_tp = get_args(tp)
        if not isinstance(data, dict):
            raise FormatError(path, "must be a map")
        return {
            _convert(key_tp, _map_key(key_tp, key), f"{path}.key"): _convert(
                item_tp, item, f"{path}.{key}"
            )
            for key, item in data.items()
        }
    if isinstance(tp, type):
        return _convert_class(tp, data, path)
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return _convert(supertype, data, path)
    raise TypeError(f"unsupported type {tp!r}")


def _convert_union(tp: Any, data: Plain, path: str) -> Any:
    options = get_args(tp)
    if data is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _convert(option, data, path)
        except FormatError as error:
            errors.append(error.problem)
    raise FormatError(path, errors[0] if len(errors) == 1 else "has the wrong shape")


def _convert_tuple(tp: Any, data: Plain, path: str) -> tuple[Any, ...]:
    items = _as_list(data, path)
    args = get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_convert(args[0], item, f"{path}[{i}]") for i, item in enumerate(items))
    if len(items) != len(args):
        raise FormatError(path, f"must have {len(args)} items")
    return tuple(
        _convert(a, item, f"{path}[{i}]") for i, (a, item) in enumerate(zip(args, items, strict=True))
    )


def _convert_class(cls: type, data: Plain, path: str) -> Any:
    if cls is bool:
        if not isinstance(data, bool):
            raise FormatError(path, "must be true or false")
        return data
    if cls is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise FormatError(path, "must be a whole number")
        return data
    if cls is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise FormatError(path, "must be a number")
        if data != data or data in (float("inf"), float("-inf")):
            raise FormatError(path, "must be a finite number")
        return float(data)
    if cls is str:
        if not isinstance(data, str):
            raise FormatError(path, "must be text")
        return data
    if issubclass(cls, Tagged) and not cls.__dict__.get("TYPE"):
        return _convert_tagged(cls, data, path)
    if issubclass(cls, Enum):
        try:
            return cls(data)
        except ValueError:
            raise FormatError(path, f"must be one of {[m.value for m in cls]}") from None
    if dataclasses.is_dataclass(cls):
        return _convert_dataclass(cls, data, path)
    raise TypeError(f"unsupported class {cls!r}")


def _convert_tagged(cls: type[Tagged], data: Plain, path: str) -> Any:
    if not isinstance(data, dict):
        raise FormatError(path, "must be a map")
    tag = data.get("type")
    concrete = cls.class_for(tag) if isinstance(tag, str) else None
    if concrete is None or not issubclass(concrete, cls):
        raise FormatError(f"{path}.type" if path else "type", f"unknown type {tag!r}")
    return _convert_dataclass(concrete, data, path)


def _convert_dataclass(cls: type, data: Plain, path: str) -> Any:
    if not isinstance(data, dict):
        raise FormatError(path, "must be a map")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        field_path = f"{path}.{field.name}" if path else field.name
        if field.name in data:
            kwargs[field.name] = _convert(hints[field.name], data[field.name], field_path)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise FormatError(field_path, "is missing")
    known = {f.name for f in dataclasses.fields(cls)} | {"type"}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise FormatError(path, f"has unknown fields {unknown}")
    return cls(**kwargs)


def _map_key(key_tp: Any, key: Any) -> Any:
    """Map keys travel as text (``to_plain`` writes ``str(key)``); whole-number keys come back."""
    if key_tp is int and isinstance(key, str) and key.lstrip("-").isdigit():
        return int(key)
    return key


def _as_list(data: Plain, path: str) -> list[Any]:
    if not isinstance(data, list | tuple):
        raise FormatError(path, "must be a list")
    return list(data)
