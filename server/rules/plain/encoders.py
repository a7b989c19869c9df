"""Encoders to plain data generated per dataclass: ``encoding.to_plain``'s converter of each
dataclass.

A dataclass's encoder is generated once as Python source that reads every field and writes
the map in one expression. A field whose type hint is text, a whole number, a flag, a number
or an enum (optional or not) is written inline when its value has exactly that type (the
usual case); any other value, and every other field, goes through ``to_plain``, which picks
its converter by the value's own type. So the output is the one ``to_plain`` always wrote,
whatever a field holds.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from enum import Enum
from typing import Any, Union, get_args, get_origin

from .hints import hints_of

Encoder = abc.Callable[[Any], Any]

_SCALARS = (str, int, bool, float)


def dataclass_encoder(cls: type, tag: str | None, to_plain: Encoder,
                      encoder_of: abc.Callable[[type], Encoder]) -> Encoder:
    """The encoder of ``cls`` (``tag``: the ``"type"`` key of a tagged union's member);
    ``encoder_of`` gives ``to_plain``'s converter of a class (a field's dataclass).

    Raises ``NameError`` if a field's type hint does not resolve yet."""
    hints = hints_of(cls)
    names: dict[str, Any] = {"to_plain": to_plain, "encoder_of": encoder_of}
    reads, items = [], [] if tag is None else [f"'type': {tag!r}"]
    _BUILDING.add(cls)
    try:
        for i, field in enumerate(dataclasses.fields(cls)):
            var = f"v{i}"
            reads.append(f"    {var} = value.{field.name}")
            items.append(f"{field.name!r}: {_inline(hints[field.name], var, names)}")
    finally:
        _BUILDING.discard(cls)
    text = (f"def encode_{cls.__name__}(value):\n" + "\n".join(reads)
            + "\n    return {" + ", ".join(items) + "}\n")
    exec(compile(text, f"<plain encoder {cls.__name__}>", "exec"), names)
    return typing.cast(Encoder, names[f"encode_{cls.__name__}"])


_BUILDING: set[type] = set()
"""Dataclasses whose encoder is being generated: a field of one of them (a recursive type)
goes through ``to_plain``."""


def _inline(tp: Any, var: str, names: dict[str, Any]) -> str:
    """An expression writing ``var`` as ``to_plain`` would, fast for its expected type: each
    shortcut applies only when the value's class is exactly the one it is written for."""
    optional = False
    while True:
        while getattr(tp, "__supertype__", None) is not None:  # typing.NewType (ids)
            tp = tp.__supertype__
        options = get_args(tp) if get_origin(tp) in (Union, types.UnionType) else ()
        if len(options) == 2 and type(None) in options:
            (tp,) = [option for option in options if option is not type(None)]
            optional = True
            continue
        break
    none = f"{var} is None or " if optional else ""
    if isinstance(tp, type) and get_origin(tp) is None:
        if tp in _SCALARS:
            return f"{var} if {none}{var}.__class__ is {tp.__name__} else to_plain({var})"
        if issubclass(tp, Enum):
            enum = f"enum_{len(names)}"
            names[enum] = tp
            if optional:
                return (f"None if {var} is None else {var}._value_ if {var}.__class__ is "
                        f"{enum} else to_plain({var})")
            return f"{var}._value_ if {var}.__class__ is {enum} else to_plain({var})"
        if dataclasses.is_dataclass(tp) and tp not in _BUILDING:
            kind = f"cls_{len(names)}"
            names[kind] = tp
            encode = f"encode_{len(names)}"
            names[encode] = names["encoder_of"](tp)
            return _or_none(optional, var,
                            f"{encode}({var}) if {var}.__class__ is {kind} else to_plain({var})")
    args = get_args(tp)
    if get_origin(tp) is tuple and args and (
            (len(args) == 2 and args[1] is Ellipsis) or all(a == args[0] for a in args)):
        # A tuple of one type of items (a point, ids): one list, each item inline.
        item = f"{var}_"
        each = _inline(args[0], item, names)
        if each != f"to_plain({item})":
            return _or_none(optional, var, f"[{each} for {item} in {var}] if {var}.__class__ "
                                           f"is tuple else to_plain({var})")
    return f"to_plain({var})"


def _or_none(optional: bool, var: str, expression: str) -> str:
    return f"(None if {var} is None else {expression})" if optional else f"({expression})"
