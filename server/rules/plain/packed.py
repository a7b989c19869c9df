"""Values a store keeps packed: plain data packed to bytes by the store's codec and embedded
as bytes in the plain data around it (the army lists in a stored state, ``state_form``).

The rules core has no codec: the writer is given the codec's ``pack`` and the reader its
``unpack``. A packed value is read once per distinct bytes and then shared by every state
that holds the same bytes (byte-identical bytes unpack to byte-identical plain data, so the
same value), without unpacking it again: a room loaded again unpacks one bytes object per
army list instead of its thousands of plain objects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .data import FormatError, Plain
from .decoders import register_shared_cache
from .decoding import from_plain

T = TypeVar("T")

Pack = Callable[[Plain], bytes]
Unpack = Callable[[bytes], Plain]

PACKED_LIMIT = 256
"""Distinct packed values kept per class (an army list is about 11 KB packed, so at most
about 3 MB of keys); the cache is emptied when full."""

_READ: dict[type, dict[bytes, Any]] = {}


def read_packed(cls: type[T], data: bytes, unpack: Unpack, path: str) -> T:
    """The value of ``cls`` that ``data`` (``pack(to_plain(value))``) holds, or
    ``FormatError`` naming ``path``."""
    cache = _READ.get(cls)
    if cache is None:
        cache = _READ[cls] = register_shared_cache({})
    value = cache.get(data)
    if value is None:
        try:
            plain = unpack(data)
        except Exception as error:  # a codec raises several unrelated types for bad bytes
            raise FormatError(path, f"packed data that does not unpack ({error})") from None
        value = from_plain(cls, plain, path)
        if len(cache) >= PACKED_LIMIT:
            cache.clear()
        cache[data] = value
    return value
