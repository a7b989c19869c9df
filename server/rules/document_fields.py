"""Reading the fields of a JSON document the rules core takes from outside (a table layout,
a mission): each check names where the problem is (``terrain[3].height``) and raises the
document's own error type, so every format states its problems in the same words.

A format's reader binds the checks to its error once (``FieldReader(TableError)``) and
keeps its own checks (shapes, cross-references) beside them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .ruleset import Ruleset

IDENTIFIER = re.compile(r"[a-z0-9][a-z0-9-]{0,47}")
"""An id a document gives a thing (a table, a piece, a mission, a marker)."""


class DocumentError(ValueError):
    """A document that breaks its format: ``path`` says where (``objectives[1].op``),
    ``problem`` what is wrong."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)
        self.path = path
        self.problem = problem


def at(path: str, name: str) -> str:
    """The path of field ``name`` inside ``path`` ("" for the document itself)."""
    return f"{path}.{name}" if path else name


@dataclass(frozen=True, slots=True)
class FieldReader:
    """The field checks of one document format, raising its ``error``."""

    error: type[DocumentError]

    def mapping(self, data: Any, path: str, known: Collection[str]) -> dict[str, Any]:
        """``data`` if it is an object whose fields are all ``known``."""
        if not isinstance(data, dict):
            raise self.error(path, "must be an object")
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise self.error(path, f"has unknown fields {unknown}")
        return data

    def identifier(self, data: Mapping[str, Any], name: str, path: str) -> str:
        value = data.get(name)
        if not isinstance(value, str) or not IDENTIFIER.fullmatch(value):
            raise self.error(at(path, name), "must be 1 to 48 lower-case letters, digits and "
                             "dashes, starting with a letter or digit")
        return value

    def text(self, data: Mapping[str, Any], name: str, path: str, limit: int,
             required: bool = True) -> str:
        """Text of 1 to ``limit`` characters ("" for an absent field that is not required)."""
        if name not in data and not required:
            return ""
        value = data.get(name)
        if not isinstance(value, str) or not value.strip() or len(value) > limit:
            raise self.error(at(path, name), f"must be text of 1 to {limit} characters")
        return value

    def number(self, data: Mapping[str, Any], name: str, path: str) -> float:
        return self.as_number(data.get(name), at(path, name))

    def as_number(self, value: Any, path: str) -> float:
        """A finite JSON number (a boolean is not one)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(path, "must be a number")
        try:
            number = float(value)  # an integer beyond a double raises OverflowError
        except OverflowError:
            raise self.error(path, "must be a number within a double's range") from None
        if not math.isfinite(number):
            raise self.error(path, "must be a number")
        return number

    def whole(self, data: Mapping[str, Any], name: str, path: str, least: int,
              most: int) -> int:
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
            raise self.error(at(path, name), f"must be a whole number from {least} to {most}")
        return value

    def flag(self, data: Mapping[str, Any], name: str, path: str) -> bool:
        """A boolean; false when absent."""
        value = data.get(name, False)
        if not isinstance(value, bool):
            raise self.error(at(path, name), "must be true or false")
        return value

    def rulesets(self, value: Any) -> tuple[Ruleset, ...]:
        """The document's ``rulesets``: one or more, each once."""
        known = [r.value for r in Ruleset]
        if not isinstance(value, list) or not value or len(value) > len(known):
            raise self.error("rulesets", f"must list one or more of {known}")
        if any(item not in known for item in value) or len(set(value)) != len(value):
            raise self.error("rulesets", f"must list one or more of {known}, each once")
        return tuple(Ruleset(item) for item in value)
