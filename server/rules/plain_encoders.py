"""Encoders to plain data generated per dataclass: ``serial.to_plain``'s converter of each
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
from typing import Any, Union, get_args, get_origin, get_type_hints

Encoder = abc.Callable[[Any], Any]

_SCALARS = (str, int, bool, float)


def dataclass_encoder(cls: type, tag: str | None, to_plain: Encoder) -> Encoder:
    """The encoder of ``cls`` (``tag``: the ``"type"`` key of a tagged union's member).

    Raises ``NameError`` if a field's type hint does not resolve yet."""
    hints = get_type_hints(cls)
    names: dict[str, Any] = {"to_plain": to_plain}
    reads, items = [], [] if tag is None else [f"'type': {tag!r}"]
    for i, field in enumerate(dataclasses.fields(cls)):
        var = f"v{i}"
        reads.append(f"    {var} = value.{field.name}")
        items.append(f"{field.name!r}: {_inline(hints[field.name], var, names)}")
    text = (f"def encode_{cls.__name__}(value):\n" + "\n".join(reads)
            + "\n    return {" + ", ".join(items) + "}\n")
    exec(compile(text, f"<plain encoder {cls.__name__}>", "exec"), names)
    return typing.cast(Encoder, names[f"encode_{cls.__name__}"])


def _inline(tp: Any, var: str, names: dict[str, Any]) -> str:
    """An expression writing ``var`` as ``to_plain`` would, fast for its expected type."""
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
    return f"to_plain({var})"
