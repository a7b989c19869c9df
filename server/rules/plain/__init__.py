"""Conversion between the rules core's frozen dataclasses and plain data.

Plain data is what msgpack and JSON can carry: dicts with string keys, lists, str, int,
float, bool and None. The storage layer and the wire protocol only ever see plain data, so
the rules core stays free of any codec. Conversion is driven by the dataclasses' type hints
and specialised once per type, both ways:

* ``encoding.to_plain``: a converter per type, a dataclass's generated (``encoders``);
* ``decoding.from_plain``: a decoder per type generated (``decoders``), and for data it
  refuses the explaining converters (``explaining``), which raise ``FormatError`` with the
  path to the value at fault;
* ``prepare``: both made ahead of a type's first use;
* ``data``: the ``Plain`` alias and ``FormatError``; ``tagged``: ``Tagged``, the base of the
  unions that travel with a ``"type"`` key (commands, events, skills).

The names below are the package's public face: import them from ``server.rules.plain``.
"""

from __future__ import annotations

from .data import FormatError, Plain
from .decoding import from_plain
from .encoding import to_plain
from .prepare import prepare
from .tagged import Tagged

__all__ = ["FormatError", "Plain", "Tagged", "from_plain", "prepare", "to_plain"]
