"""Fast decoders from plain data: the path ``decoding.from_plain`` tries first.

One decoder per target type, generated once as Python source specialised to that type: a
dataclass's decoder reads each of its fields with that field's check written inline (text,
whole numbers, flags, finite numbers, enum members, optional values, points) or a call to the
field type's own decoder, and builds the instance by calling the class (so ``__init__`` and
any ``__post_init__`` check run exactly as before); tagged unions dispatch on the ``"type"``
key through a table of the concrete classes' decoders. The army catalogue's values (``SHARED``)
are built once per distinct plain form and shared by every state that holds them.

These decoders check everything the explaining converters (``explaining``) check, but only tell
*that* the data is wrong (``Wrong``), not where or why: rejected data is rare (stored data
was written by ``to_plain``; commands come from clients), so ``from_plain`` then runs the
explaining converters on it, which give the ``FormatError`` with its path and message. The
contract, tested against the reference walker (tests/rules/test_serial_from_plain.py): when a
decoder here returns, the explaining converters return an equal value (same ``repr``);
otherwise they raise.
"""

from __future__ import annotations

import dataclasses
import marshal
import sys
import types
import typing
from collections import abc
from enum import Enum
from typing import Any, Union, get_args, get_origin

from ..evolve import plain_slots
from .data import FormatError, itself, unsupported
from .hints import hints_of
from .tagged import Tagged

Decoder = abc.Callable[[Any], Any]


class Wrong(Exception):
    """The data does not have the expected shape (the explaining converters say how)."""


_DECODERS: dict[Any, Decoder] = {}
"""The decoder of each target type, keyed as ``explaining._FROM_PLAIN`` (a class by itself, other
types with their ``repr`` too: equal unions may list their options in different orders)."""

_BUILDING: set[Any] = set()
"""Dataclasses whose decoder is being generated: a field naming one of them (a recursive
type) gets a decoder that looks the finished one up when called."""

_LIST_OR_TUPLE = (list, tuple)
_marshal = marshal.dumps
_MAX_FLOAT = sys.float_info.max


def decoder_for(tp: Any) -> Decoder:
    key = tp if isinstance(tp, type) else (tp, repr(tp))
    decoder = _DECODERS.get(key)
    if decoder is None:
        if key in _BUILDING:
            return _deferred(key)
        decoder = _DECODERS[key] = _build(tp, key)
    return decoder


def _deferred(key: Any) -> Decoder:
    def deferred(data: Any) -> Any:
        return _DECODERS[key](data)
    return deferred


def _build(tp: Any, key: Any) -> Decoder:
    if tp is Any:
        return itself
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union(get_args(tp))
    if origin is typing.Literal:
        return _literal(get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(args[0], "tuple")
        return _fixed_tuple(args)
    if origin is frozenset:
        (item_tp,) = get_args(tp)
        return _sequence(item_tp, "frozenset")
    if origin in (dict, abc.Mapping):
        return _mapping(*get_args(tp))
    if isinstance(tp, type):
        return _class(tp, key)
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return decoder_for(supertype)
    return unsupported(f"unsupported type {tp!r}")


# --- generated source ----------------------------------------------------------------------


class _Source:
    """The namespace and lines of one generated function."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"Wrong": Wrong, "FormatError": FormatError,
                                      "LIST_OR_TUPLE": _LIST_OR_TUPLE, "MAX_FLOAT": _MAX_FLOAT}
        self.lines: list[str] = []

    def name(self, value: Any, hint: str) -> str:
        """A name for ``value`` in the generated function's globals."""
        for name, known in self.names.items():
            if known is value:
                return name
        name = f"{hint}_{len(self.names)}"
        self.names[name] = value
        return name

    def add(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def function(self, name: str) -> Decoder:
        text = f"def {name}(data):\n" + "\n".join(self.lines) + "\n"
        exec(compile(text, f"<plain decoder {name}>", "exec"), self.names)
        return typing.cast(Decoder, self.names[name])


def _check(src: _Source, tp: Any, var: str, indent: int) -> None:
    """Lines that check ``var`` against ``tp`` and replace it with the decoded value."""
    while getattr(tp, "__supertype__", None) is not None:  # typing.NewType (ids)
        tp = tp.__supertype__
    if tp is Any:
        return
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if len(options) == 2 and type(None) in options:
            (inner,) = [option for option in options if option is not type(None)]
            src.add(indent, f"if {var} is not None:")
            body = len(src.lines)
            _check(src, inner, var, indent + 1)
            if len(src.lines) == body:
                src.add(indent + 1, "pass")
            return
    elif origin is tuple:
        args = get_args(tp)
        if args and args[-1] is not Ellipsis and all(a in (float, int, str) for a in args):
            # A fixed tuple of scalars (a point): unpacked and checked in place.
            parts = [f"{var}_{i}" for i in range(len(args))]
            src.add(indent, f"if {var}.__class__ is not list and not isinstance({var}, "
                            f"LIST_OR_TUPLE) or len({var}) != {len(args)}:")
            src.add(indent + 1, "raise Wrong")
            src.add(indent, f"{', '.join(parts)}, = {var}")
            for part, arg in zip(parts, args, strict=True):
                _check(src, arg, part, indent)
            src.add(indent, f"{var} = ({', '.join(parts)},)")
            return
    elif origin is None and isinstance(tp, type):
        if tp is bool:
            src.add(indent, f"if {var}.__class__ is not bool:")
            src.add(indent + 1, "raise Wrong")
            return
        if tp is int or tp is str:
            src.add(indent, f"if {var}.__class__ is not {tp.__name__}:")
            src.add(indent + 1, f"{var} = {src.name(decoder_for(tp), tp.__name__)}({var})")
            return
        if tp is float:
            src.add(indent, f"if {var}.__class__ is not float or not "
                            f"(-MAX_FLOAT <= {var} <= MAX_FLOAT):")
            src.add(indent + 1, f"{var} = {src.name(_float, 'float')}({var})")
            return
        if issubclass(tp, Enum):
            members = src.name(tp._value2member_map_, "members")
            src.add(indent, "try:")
            src.add(indent + 1, f"{var} = {members}[{var}]")
            src.add(indent, "except (KeyError, TypeError):")
            src.add(indent + 1, f"{var} = {src.name(decoder_for(tp), 'enum')}({var})")
            return
    src.add(indent, f"{var} = {src.name(decoder_for(tp), 'decode')}({var})")


def _class(cls: type, key: Any) -> Decoder:
    if cls is bool:
        return _bool
    if cls is int:
        return _int
    if cls is float:
        return _float
    if cls is str:
        return _str
    if issubclass(cls, Tagged) and not cls.__dict__.get("TYPE"):
        return _tagged(cls)
    if issubclass(cls, Enum):
        return _enum(cls)
    if dataclasses.is_dataclass(cls):
        try:
            return _dataclass_or_shared(cls, key)
        except NameError:
            # A forward reference not yet importable (a module still loading): tried again
            # when first used.
            return _lazy(cls, key)
    return unsupported(f"unsupported class {cls!r}")


def _dataclass_or_shared(cls: type, key: Any) -> Decoder:
    _BUILDING.add(key)
    try:
        decoder = _dataclass(cls)
    finally:
        _BUILDING.discard(key)
    if f"{cls.__module__}.{cls.__qualname__}" in SHARED:
        return _shared(decoder, cls)
    return decoder


def _lazy(cls: type, key: Any) -> Decoder:
    built: Decoder | None = None

    def lazy(data: Any) -> Any:
        nonlocal built
        if built is None:
            # Raises NameError again if the reference still does not resolve (as the
            # explaining converters do).
            built = _DECODERS[key] = _dataclass_or_shared(cls, key)
        return built(data)
    return lazy


SHARED = frozenset({
    "server.rules.armies.army_list.ListEntry",
    "server.rules.armies.profiles.UnitProfile",
    "server.rules.armies.weapons.Weapon",
})
"""Classes whose values are read once per distinct plain form and then shared: the army
catalogue's profiles and weapons, identical in every room that fields them and written
several times in one snapshot (each army's entries, each trooper's entry). They are about
half of a snapshot's fields, and building frozen dataclasses is most of the decoding's cost.
Sharing is safe: the values are frozen, and only built from byte-identical data."""

SHARED_LIMIT = 2048
"""Distinct plain forms kept per class (about 1 KB each); the cache is emptied when full."""


def _shared(decode: Decoder, cls: type) -> Decoder:
    # Keyed by the data's marshal form, not by the data: marshal tells True from 1, 1 from
    # 1.0, 0.0 from -0.0 and a list from a tuple, which equality does not, and any of those
    # may decode differently or be refused. Dict order is in the key too (a different order
    # is only a miss).
    cache: dict[bytes, Any] = {}
    _SHARED_CACHES.append(cache)

    def shared(data: Any) -> Any:
        if data.__class__ is cls:  # read already (a trooper's army entry): taken as it is
            return data
        try:
            key = _marshal(data, 2)
        except ValueError:  # not plain data: decoded (and refused) as it is
            return decode(data)
        value = cache.get(key)
        if value is None:
            value = decode(data)
            if len(cache) >= SHARED_LIMIT:
                cache.clear()
            cache[key] = value
        return value
    return shared


_SHARED_CACHES: list[dict[bytes, Any]] = []


def register_shared_cache(cache: dict[bytes, Any]) -> dict[bytes, Any]:
    """``cache`` (of shared values, by bytes) emptied by ``forget_shared`` too."""
    _SHARED_CACHES.append(cache)
    return cache


def forget_shared() -> None:
    """Empty the caches of shared values (benchmarks measure a first read with it)."""
    for cache in _SHARED_CACHES:
        cache.clear()


def _dataclass(cls: type) -> Decoder:
    hints = hints_of(cls)
    fields = dataclasses.fields(cls)
    init_fields = [f for f in fields if f.init]
    # Positional arguments to the dataclass's own __init__, unless it was written out or
    # takes keyword-only fields.
    positional = (cls.__dataclass_params__.init  # type: ignore[attr-defined]
                  and not any(f.kw_only for f in init_fields))
    required = frozenset(f.name for f in init_fields
                         if f.default is dataclasses.MISSING
                         and f.default_factory is dataclasses.MISSING)
    known = frozenset({f.name for f in fields} | {"type"})
    src = _Source()
    src.add(1, "if data.__class__ is not dict and not isinstance(data, dict):")
    # A value of exactly the class, read already, is taken as it is (as the explaining
    # converters take it): a state's reader hands troopers the army entries it has read.
    src.add(2, f"if data.__class__ is {src.name(cls, 'cls')}:")
    src.add(3, "return data")
    src.add(2, "raise Wrong")
    if required:
        src.add(1, f"if not data.keys() >= {src.name(required, 'required')}:")
        src.add(2, "raise Wrong")
    src.add(1, f"if not {src.name(known, 'known')}.issuperset(data):")
    src.add(2, "raise Wrong")
    args = []
    for i, field in enumerate(init_fields):
        var = f"v{i}"
        if field.name in required:
            src.add(1, f"{var} = data[{field.name!r}]")
            _check(src, hints[field.name], var, 1)
        else:
            src.add(1, f"if {field.name!r} in data:")
            src.add(2, f"{var} = data[{field.name!r}]")
            _check(src, hints[field.name], var, 2)
            src.add(1, "else:")
            if field.default is not dataclasses.MISSING:
                src.add(2, f"{var} = {src.name(field.default, 'default')}")
            else:
                src.add(2, f"{var} = {src.name(field.default_factory, 'factory')}()")
        args.append(var if positional else f"{field.name}={var}")
    if plain_slots(cls):
        # What the generated __init__ does, without the call: each value into its slot.
        src.add(1, f"value = {src.name(object.__new__, 'new')}({src.name(cls, 'cls')})")
        for i, field in enumerate(fields):
            setter = src.name(cls.__dict__[field.name].__set__, f"set_{field.name}")
            src.add(1, f"{setter}(value, v{i})")
        src.add(1, "return value")
    else:
        src.add(1, f"return {src.name(cls, 'cls')}({', '.join(args)})")
    return src.function(f"decode_{cls.__name__}")


def _sequence(item_tp: Any, kind: str) -> Decoder:
    src = _Source()
    build = src.name(tuple if kind == "tuple" else frozenset, kind)
    src.add(1, "if data.__class__ is not list and not isinstance(data, LIST_OR_TUPLE):")
    src.add(2, "raise Wrong")
    if isinstance(item_tp, type) and item_tp in (str, int, bool):
        # Items taken as they are when all have exactly the type (the usual case).
        src.add(1, "for item in data:")
        src.add(2, f"if item.__class__ is not {item_tp.__name__}:")
        src.add(3, "break")
        src.add(1, "else:")
        src.add(2, f"return {build}(data)")
    lines_before = len(src.lines)
    _check(src, item_tp, "item", 2)
    check = src.lines[lines_before:]
    if len(check) == 1 and check[0].strip().startswith("item = "):
        # One call per item: a comprehension.
        del src.lines[lines_before:]
        call = check[0].strip().removeprefix("item = ")
        src.add(1, f"return {build}([{call} for item in data])")
    else:
        del src.lines[lines_before:]
        src.add(1, "out = []")
        src.add(1, "append = out.append")
        src.add(1, "for item in data:")
        src.lines.extend(check)
        src.add(2, "append(item)")
        src.add(1, f"return {build}(out)")
    return src.function(f"decode_{kind}")


def _fixed_tuple(args: tuple[Any, ...]) -> Decoder:
    src = _Source()
    src.add(1, "if data.__class__ is not list and not isinstance(data, LIST_OR_TUPLE) "
               f"or len(data) != {len(args)}:")
    src.add(2, "raise Wrong")
    parts = [f"v{i}" for i in range(len(args))]
    src.add(1, f"{', '.join(parts)}, = data" if parts else "pass")
    for part, arg in zip(parts, args, strict=True):
        _check(src, arg, part, 1)
    src.add(1, f"return ({', '.join(parts)}{',' if parts else ''})")
    return src.function("decode_fixed_tuple")


def _mapping(key_tp: Any, item_tp: Any) -> Decoder:
    src = _Source()
    src.add(1, "if data.__class__ is not dict and not isinstance(data, dict):")
    src.add(2, "raise Wrong")
    src.add(1, "out = {}")
    src.add(1, "for key, item in data.items():")
    if key_tp is int:
        # Map keys travel as text (``to_plain`` writes ``str(key)``); whole-number keys
        # come back.
        src.add(2, "if isinstance(key, str) and key.lstrip('-').isdigit():")
        src.add(3, "key = int(key)")
    _check(src, key_tp, "key", 2)
    _check(src, item_tp, "item", 2)
    src.add(2, "out[key] = item")
    src.add(1, "return out")
    return src.function("decode_mapping")


def _union(options: tuple[Any, ...]) -> Decoder:
    optional = type(None) in options
    decoders = tuple(decoder_for(option) for option in options if option is not type(None))

    def union(data: Any) -> Any:
        if data is None and optional:
            return None
        for decode in decoders:
            try:
                return decode(data)
            except (Wrong, FormatError):
                pass
        raise Wrong
    return union


def _literal(values: tuple[Any, ...]) -> Decoder:
    def literal(data: Any) -> Any:
        if data not in values:
            raise Wrong
        return data
    return literal


def _tagged(cls: type[Tagged]) -> Decoder:
    by_tag: dict[str, Decoder] = {}

    def tagged(data: Any) -> Any:
        if data.__class__ is not dict and not isinstance(data, dict):
            raise Wrong
        tag = data.get("type")
        if tag.__class__ is not str and not isinstance(tag, str):
            raise Wrong
        decode = by_tag.get(tag)
        if decode is None:
            # Looked up on first use of each tag: the registry may grow after this decoder
            # is built.
            concrete = cls.class_for(tag)
            if concrete is None or not issubclass(concrete, cls):
                raise Wrong
            decode = by_tag[tag] = decoder_for(concrete)
        return decode(data)
    return tagged


def _enum(cls: type[Enum]) -> Decoder:
    members = cls._value2member_map_

    def enum(data: Any) -> Any:
        try:
            return members[data]  # what cls(data) looks up first
        except (KeyError, TypeError):
            pass
        try:
            return cls(data)
        except ValueError:
            raise Wrong from None
    return enum


def _bool(data: Any) -> Any:
    if not isinstance(data, bool):
        raise Wrong
    return data


def _int(data: Any) -> Any:
    if isinstance(data, bool) or not isinstance(data, int):
        raise Wrong
    return data


def _float(data: Any) -> Any:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise Wrong
    if data != data or data in _INFINITIES:
        raise Wrong
    return float(data)


_INFINITIES = (float("inf"), float("-inf"))


def _str(data: Any) -> Any:
    if not isinstance(data, str):
        raise Wrong
    return data
