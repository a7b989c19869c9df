"""Making the converters of a set of types ahead of their first use, both ways."""

from __future__ import annotations

import dataclasses
from collections import abc
from enum import Enum
from typing import Any, get_args

from .decoders import decoder_for
from .decoding import DECODER_OF_CLASS
from .encoding import converter_of
from .hints import hints_of
from .tagged import Tagged


def prepare(*roots: type) -> int:
    """Make now, both ways, the converters of ``roots`` and of every class their fields can
    hold (a tagged union's base stands for each class of the union): what ``to_plain`` and
    ``from_plain`` would otherwise make at a type's first use, reading its type hints and
    compiling generated source (6 ms for a game's first roll's events, in the middle of a
    player's command). How many dataclasses, unions and enums were prepared."""
    found: set[type] = set()
    waiting = list(roots)
    while waiting:
        kind = waiting.pop()
        if kind in found:
            continue
        found.add(kind)
        registry = kind.__dict__.get("_registry") if issubclass(kind, Tagged) else None
        if registry is not None:
            waiting.extend(registry.values())
        if dataclasses.is_dataclass(kind):
            try:
                hints = hints_of(kind)
            except NameError:  # (a hint that does not resolve: made at its first use)
                continue
            for hint in hints.values():
                waiting.extend(_classes_in(hint))
    for kind in found:
        if dataclasses.is_dataclass(kind) or issubclass(kind, Enum):
            converter_of(kind)
        if kind not in DECODER_OF_CLASS:
            DECODER_OF_CLASS[kind] = decoder_for(kind)
    return len(found)


def _classes_in(hint: Any) -> abc.Iterator[type]:
    """The dataclasses, tagged unions and enums a type hint names, at any depth."""
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint) or issubclass(hint, Enum | Tagged):
            yield hint
        return
    for argument in get_args(hint):
        yield from _classes_in(argument)

