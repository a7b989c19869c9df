"""The reference for ``plain.from_plain``: the reflective walker it replaced, kept verbatim
(only ``_hints`` is cached by class, as it was) so tests can check that the converters built
once per type accept, build and reject exactly what it did, with the same messages; and for
``plain.to_plain``, the walker by the value's type that it was (``to_plain`` below)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from server.rules.plain import FormatError, Plain, Tagged

T = TypeVar("T")


def from_plain(cls: type[T], data: Plain, path: str = "") -> T:
    """``plain.from_plain`` as it was: walks the type hints for every value."""
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


def to_plain(value: Any) -> Plain:
    """``plain.to_plain`` as it was: decides by each value's type."""
    if isinstance(value, Enum):  # before str: our enums are str enums
        return value.value
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Plain] = {"type": value.TYPE} if isinstance(value, Tagged) else {}
        for field in dataclasses.fields(value):
            out[field.name] = to_plain(getattr(value, field.name))
        return out
    if isinstance(value, tuple | list):
        return [to_plain(item) for item in value]
    if isinstance(value, frozenset | set):
        return sorted(to_plain(item) for item in value)
    if isinstance(value, dict):
        return {str(to_plain(key)): to_plain(item) for key, item in value.items()}
    raise TypeError(f"cannot convert {type(value).__name__} to plain data")
