"""Plain data, what every converter shares, and the error for data of the wrong shape.

Plain data is what msgpack and JSON can carry: dicts with string keys, lists, str, int,
float, bool and None. The storage layer and the wire protocol only ever see plain data, so
the rules core stays free of any codec.
"""

from __future__ import annotations

from collections import abc
from typing import Any

Plain = Any
"""Plain data: dict/list/str/int/float/bool/None, nested."""


class FormatError(ValueError):
    """Plain data that does not have the shape of the expected type."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'value'}: {problem}")
        self.path = path
        self.problem = problem



def itself(value: Plain) -> Plain:
    """The converter of a value that is plain data already (``Any``, text, numbers), both
    ways."""
    return value


def unsupported(message: str) -> abc.Callable[[Plain], Any]:
    """A converter for a type no plain data is read as: it raises ``TypeError`` when used,
    not when built, so a field whose type cannot be read may stay unread."""
    def unsupported(data: Plain) -> Any:
        raise TypeError(message)
    return unsupported
