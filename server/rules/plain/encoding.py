"""From the rules core's values to plain data: ``to_plain``.

Conversion is driven by the value's type, decided once per type:

* dataclass -> dict of its fields (tagged unions carry a ``"type"`` key, see ``Tagged``),
  written by an encoder generated for the class (``encoders``)
* tuple / list / frozenset / set -> list (a set's items sorted)
* dict -> dict with text keys
* Enum -> its value
"""

from __future__ import annotations

import dataclasses
from collections import abc
from enum import Enum
from typing import Any

from . import encoders
from .data import Plain, itself
from .tagged import Tagged


def to_plain(value: Any) -> Plain:
    """Turn a rules-core value into plain data."""
    convert = TO_PLAIN.get(type(value))
    if convert is None:
        convert = TO_PLAIN[type(value)] = _to_plain_for(type(value))
    return convert(value)


TO_PLAIN: dict[type, abc.Callable[[Any], Plain]] = {}
"""The converter of each type met so far: ``to_plain`` runs for every stored event, view
and snapshot, and deciding how to convert a value from its type once, rather than by a
chain of isinstance tests and ``dataclasses.fields`` per value, is most of its speed."""


def converter_of(kind: type) -> abc.Callable[[Any], Plain]:
    convert = TO_PLAIN.get(kind)
    if convert is None:
        convert = TO_PLAIN[kind] = _to_plain_for(kind)
    return convert


def _to_plain_for(kind: type) -> abc.Callable[[Any], Plain]:
    if issubclass(kind, Enum):  # before str: our enums are str enums
        return _enum_value
    if kind is type(None) or issubclass(kind, bool | int | float | str):
        return itself
    if dataclasses.is_dataclass(kind):
        names = tuple(field.name for field in dataclasses.fields(kind))
        tag = kind.TYPE if issubclass(kind, Tagged) else None
        try:
            # Source generated for the class: one expression writes the whole map.
            return encoders.dataclass_encoder(kind, tag, to_plain, converter_of)
        except NameError:
            pass  # a type hint that does not resolve yet: the loop below, field by field

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


def _sequence_to_plain(value: tuple[Any, ...] | list[Any]) -> Plain:
    return [to_plain(item) for item in value]


def _set_to_plain(value: frozenset[Any] | set[Any]) -> Plain:
    return sorted(to_plain(item) for item in value)


def _dict_to_plain(value: dict[Any, Any]) -> Plain:
    return {str(to_plain(key)): to_plain(item) for key, item in value.items()}

