"""``replace``: a copy of a frozen dataclass with some fields changed, as
``dataclasses.replace`` makes it, at a fraction of its cost.

Every event the rules core applies builds new states this way (about eight copies per
command), and ``dataclasses.replace`` walks the class's fields in Python on every call: it
was the rules core's largest interpreted cost. Here each class gets, on first use, a
function generated for its fields (``obj.a if a is MISSING else a`` for each), so a copy is
one call to the class with keyword arguments. The result is the same object
``dataclasses.replace`` would build: the class's own ``__init__`` runs, fields not in
``__init__`` take their defaults, and a name that is not an ``__init__`` field raises
``TypeError``. A slots class whose ``__init__`` is the one dataclasses generates and does
nothing else (every field an ``__init__`` field, no ``__post_init__``: the state's classes)
is copied into a new object slot by slot, as that ``__init__`` would store them, without the
keyword call to it (a copy of ``GameState`` or ``TrooperState`` costs under half as much).

For the type checker this *is* ``dataclasses.replace``: mypy's dataclass plugin checks
each call's field names and types against the class, which a generic signature would not.
"""

from __future__ import annotations

import dataclasses
import types
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
    if plain_slots(cls):
        return _slots_replacer(cls, names)
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


def plain_slots(cls: type) -> bool:
    """Whether ``cls``'s ``__init__`` does nothing but store each field in its slot: the one
    dataclasses generates, with no ``__post_init__`` (whose checks must run), no
    ``init=False`` field or ``InitVar``, and a slot (a member descriptor) for every field.
    The state's and the events' classes are such: ``replace`` copies them, and
    ``plain.decoders`` builds them, slot by slot."""
    fields = dataclasses.fields(cls)
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    return (code is not None and code.co_filename == "<string>"
            and getattr(init, "__qualname__", "") == f"{cls.__qualname__}.__init__"
            and not hasattr(cls, "__post_init__")
            and all(field.init for field in fields)
            # Its parameters are the fields, no more (no InitVar) and no fewer.
            and code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
            == tuple(field.name for field in fields)
            and all(isinstance(cls.__dict__.get(field.name), types.MemberDescriptorType)
                    for field in fields))


def _slots_replacer(cls: type, names: list[str]) -> Callable[..., Any]:
    """A copy that stores each field straight into its slot, as the generated ``__init__``
    does (a frozen class's through ``object.__setattr__``), without the keyword call to
    ``__init__``: a copy of a state is made for almost every event applied."""
    source = "\n".join([
        f"def replace(_replaced_object_, /{', *' if names else ''}"
        + "".join(f", {name}=_MISSING" for name in names) + "):",
        "    _new_object_ = _new(_cls)",
        *(f"    _set_{name}(_new_object_, _replaced_object_.{name} if {name} is _MISSING "
          f"else {name})" for name in names),
        "    return _new_object_",
    ])
    namespace: dict[str, Any] = {"_cls": cls, "_MISSING": _MISSING, "_new": object.__new__}
    namespace.update({f"_set_{name}": cls.__dict__[name].__set__ for name in names})
    exec(source, namespace)
    replacer: Callable[..., Any] = namespace["replace"]
    replacer.__qualname__ = f"{cls.__qualname__}.<replace>"
    return replacer
