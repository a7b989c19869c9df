"""``replace``: a copy of a frozen dataclass with some fields changed, as
``dataclasses.replace`` makes it, at a fraction of its cost.

Every event the rules core applies builds new states this way (about eight copies per
command), and ``dataclasses.replace`` walks the class's fields in Python on every call: it
was the rules core's largest interpreted cost. Here each class gets, on first use, a
function generated for its fields (``obj.a if a is MISSING else a`` for each), so a copy is
one call to the class with keyword arguments. The result is the same object
``dataclasses.replace`` would build: the class's own ``__init__`` runs, fields not in
``__init__`` take their defaults, and a name that is not an ``__init__`` field raises
``TypeError``.

For the type checker this *is* ``dataclasses.replace``: mypy's dataclass plugin checks
each call's field names and types against the class, which a generic signature would not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["replace"]

if TYPE_CHECKING:
    from dataclasses import replace as replace
else:
    _REPLACERS: dict[type, Callable[..., Any]] = {}

    def replace(obj, /, **changes):
        """``dataclasses.replace(obj, **changes)``."""
        replacer = _REPLACERS.get(type(obj))
        if replacer is None:
            replacer = _REPLACERS[type(obj)] = _make_replacer(type(obj))
        return replacer(obj, **changes)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<unchanged>"


_MISSING = _Missing()


def _make_replacer(cls: type) -> Callable[..., Any]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"replace() should be called on dataclass instances, not {cls!r}")
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    # Generated source, as dataclasses itself generates __init__: field names are
    # identifiers, and the parameters are keyword-only so their order does not matter.
    source = "\n".join([
        f"def replace(_replaced_object_, /{', *' if names else ''}"
        + "".join(f", {name}=_MISSING" for name in names) + "):",
        "    return _cls(" + ", ".join(
            f"{name}=_replaced_object_.{name} if {name} is _MISSING else {name}"
            for name in names) + ")",
    ])
    namespace: dict[str, Any] = {"_cls": cls, "_MISSING": _MISSING}
    exec(source, namespace)
    replacer: Callable[..., Any] = namespace["replace"]
    replacer.__qualname__ = f"{cls.__qualname__}.<replace>"
    return replacer
