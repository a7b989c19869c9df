"""From plain data to the rules core's values: ``from_plain``.

Data is read first by the decoder generated for its type (``decoders``), which only tells
*that* data is wrong; data it refuses is read again by the explaining converters
(``explaining``), which say where and why (``FormatError``).
"""

from __future__ import annotations

import typing
from typing import Any, TypeVar

from .data import Plain
from .decoders import Decoder, decoder_for
from .explaining import explained

T = TypeVar("T")


def from_plain(cls: type[T], data: Plain, path: str = "") -> T:
    """Build a value of type ``cls`` from plain data, or raise ``FormatError``.

    ``path`` names where ``data`` sits, for the error (``"weapons[3]"``).

    The decoders generated for each type (``decoders``) read the data first; they only
    tell that data is wrong, so data they refuse is read again by the explaining converters
    (``explaining``), which say where and why (or build the value, were the two ever to disagree)."""
    try:
        decode = DECODER_OF_CLASS.get(cls)
        if decode is None:
            decode = decoder_for(cls)
            if isinstance(cls, type):
                DECODER_OF_CLASS[cls] = decode
        return typing.cast(T, decode(data))
    except Exception:  # refused (or a class refused it): the explaining converters decide
        pass
    return typing.cast(T, explained(cls, data, path))


DECODER_OF_CLASS: dict[Any, Decoder] = {}
"""The generated decoder of each class ``from_plain`` was asked for (events and states are
read a class at a time: this skips ``decoder_for``'s keying)."""
