"""``replace``: ``dataclasses.replace`` at about half the cost, for the hot paths of
``apply`` (and of ``decide``, which folds the events it decides).

``dataclasses.replace`` walks the class's fields on every call and calls the class with
keyword arguments; folding one Order's events replaces ``GameState``, ``ActiveOrder`` and
``TrooperState`` a dozen times. Here the fields are looked up once per class and passed by
position. The class's ``__init__`` still runs, and with it every ``__post_init__`` check.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")

_Plan = tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]
"""Reads an instance's init fields in order; the position of each field's name."""

_PLANS: dict[type, _Plan | None] = {}
"""The plan of each class met so far, or None where only ``dataclasses.replace`` is exact."""


def replace(obj: T, /, **changes: Any) -> T:
    """``obj`` with ``changes``, exactly as ``dataclasses.replace(obj, **changes)``."""
    cls = type(obj)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    read, positions = plan
    values = list(read(obj))
    for name, value in changes.items():
        position = positions.get(name)
        if position is None:  # not a field __init__ takes: let dataclasses.replace refuse it
            return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
        values[position] = value
    return cls(*values)


def _plan(cls: type) -> _Plan | None:
    """How to replace fields of ``cls`` by position, if calling it with the init fields in
    order by position is the same as by name: its ``__init__`` takes exactly those
    parameters, in order, each positional-or-keyword (no keyword-only fields, no InitVar)."""
    if not dataclasses.is_dataclass(cls) or cls.__new__ is not object.__new__:
        return None
    names = tuple(field.name for field in dataclasses.fields(cls) if field.init)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    if ([(p.name, p.kind) for p in parameters]
            != [(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in names]):
        return None
    return _reader(names), {name: i for i, name in enumerate(names)}


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) >= 2:
        return attrgetter(*names)  # a tuple of the values, read in C
    return lambda obj: tuple(getattr(obj, name) for name in names)
