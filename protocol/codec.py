"""The one codec: protocol messages to msgpack bytes and back. The only msgpack import.

``encode`` writes any message; ``decode_client`` and ``decode_server`` read one frame and
raise ``DecodeError`` with a stable ``ProtocolReason`` code when it is not a valid message
of that direction. ``pack_plain``/``unpack_plain`` turn plain data into bytes for storage.
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

import msgpack

from protocol.constants import ProtocolReason
from protocol.messages import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    ClientMessage,
    Plain,
    ServerMessage,
)
from server.rules.reasons import Reason

M = TypeVar("M")

ANSWERED_BY_ID = frozenset({"command", "history", "measure"})
"""Client messages that carry an ``id``: a frame of these whose ``id`` can be read is
answered ``rejected`` with that id when it is not valid, rather than with a bare ``error``."""

MAX_TEXT_FIELD = 128
"""Longest text accepted in a protocol field (ids, room ids, tokens); bodies are maps."""

MAX_SAFE_INTEGER = 2**53 - 1
"""Integer fields of client messages (versions, ``since``, nonces, ``from``, Silhouettes)
must lie within +-this: the largest a JavaScript client holds exactly. msgpack itself
carries up to 2^64-1, which no client means."""

MAX_BODY_NUMBER = 1_000_000
"""Every number in a command body lies within +-this, and a float is finite: positions
(inches), facings (degrees), Burst, counts and Order numbers of a game are all far smaller,
and a number beyond it (2^64-1, 1e300) is never a game value (``body_problem``)."""

MAX_BODY_ITEMS = 32
"""Longest list (or largest map) in a command body. The longest legitimate one is a
route's points; what a command costs the rules core grows with them (a 700-point route
cost 80 ms of the room's loop on a dense table, against 2 ms for a 2-point one), and a
player draws a handful."""

MAX_BODY_DEPTH = 8
"""Deepest nesting of maps and lists in a command body (the deepest command, a skill's
route, is 4)."""

MAX_BODY_TEXT = 256
"""Longest text in a command body (ids, 64-hex entropy)."""


class DecodeError(ValueError):
    """A frame that is not a valid message; ``code`` is a ``ProtocolReason`` value, or the
    rules core's ``bad_command`` for a command whose body can be no command at all
    (``body_problem``).

    ``command_id`` is set when the frame was a command or a query (``ANSWERED_BY_ID``)
    whose id could be read, so the server can answer it with a rejection instead of a bare
    error.
    """

    def __init__(self, code: ProtocolReason | Reason, message: str,
                 command_id: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.command_id = command_id


def encode(message: ServerMessage | ClientMessage) -> bytes:
    """Serialise one message to a msgpack frame."""
    wire: dict[str, Any] = {"type": message.TAG.value}
    for name, key in _wire_fields(type(message)):
        wire[key] = getattr(message, name)
    return _packer_packb(wire)


def encode_with_packed(message: ServerMessage, **packed: bytes) -> bytes:
    """``encode``, with the fields named in ``packed`` already msgpack-encoded (each value
    is the encoding of what the field holds; the message's own value of it is not read).
    The frame is byte for byte ``encode``'s: a map's encoding is its header and then each
    key's and value's encoding in order, so a large value shared by many frames (a crowd's
    snapshot of one state) is encoded once instead of once per frame."""
    fields = _wire_fields(type(message))
    parts = [_pack_map_header(len(fields) + 1), _packer_packb("type"),
             _packer_packb(message.TAG.value)]
    for name, key in fields:
        parts.append(_packer_packb(key))
        ready = packed.get(name)
        parts.append(ready if ready is not None else _packer_packb(getattr(message, name)))
    return b"".join(parts)


def decode_client(frame: bytes) -> ClientMessage:
    """Read a frame sent by a client, or raise ``DecodeError``."""
    return _decode(frame, _CLIENT_BY_TAG)


def decode_server(frame: bytes) -> ServerMessage:
    """Read a frame sent by the server, or raise ``DecodeError`` (for clients and tests)."""
    return _decode(frame, _SERVER_BY_TAG)


def pack_plain(value: Plain) -> bytes:
    """Plain data to bytes (storage payloads)."""
    return _packer_packb(value)


def unpack_plain(data: bytes) -> Plain:
    """Bytes written by ``pack_plain`` back to plain data."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


# --- internals --------------------------------------------------------------------------

_packer = msgpack.Packer(use_bin_type=True)
_packer_packb: Callable[[Any], bytes] = _packer.pack
_pack_map_header: Callable[[int], bytes] = _packer.pack_map_header


def _refuse_ext(code: int, data: bytes) -> None:
    raise ValueError("msgpack extension types are not part of the protocol")


def _decode(frame: bytes, by_tag: dict[str, type[M]]) -> M:
    try:
        wire = msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_refuse_ext)
    except Exception as error:  # msgpack raises several unrelated types for bad input
        raise DecodeError(ProtocolReason.MALFORMED_FRAME, f"not a msgpack frame: {error}") from None
    if not isinstance(wire, dict):
        raise DecodeError(ProtocolReason.MALFORMED_FRAME, "a message must be a msgpack map")
    tag = wire.get("type")
    cls = by_tag.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise DecodeError(ProtocolReason.UNKNOWN_MESSAGE_TYPE,
                          f"unknown message type {_describe(tag)}")
    command_id = wire.get("id") if tag in ANSWERED_BY_ID and _is_short_text(wire.get("id")) else None
    kwargs: dict[str, Any] = {}
    for name, key, check, required in _field_specs(cls):
        if key not in wire:
            if required:
                raise DecodeError(
                    ProtocolReason.BAD_MESSAGE, f"{tag}: field {key!r} is missing", command_id
                )
            continue
        value = wire[key]
        problem = check(value)
        if problem:
            raise DecodeError(
                ProtocolReason.BAD_MESSAGE, f"{tag}: field {key!r} {problem}", command_id
            )
        kwargs[name] = value
    keys = {key for _, key in _wire_fields(cls)}
    unknown = [key for key in wire if key != "type" and key not in keys]
    if unknown:
        raise DecodeError(
            ProtocolReason.BAD_MESSAGE, f"{tag}: unknown fields {sorted(map(str, unknown))}",
            command_id,
        )
    if tag == "command":
        problem = body_problem(kwargs["body"])
        if problem is not None:
            raise DecodeError(Reason.BAD_COMMAND, f"command: {problem}", command_id)
    return cls(**kwargs)


def body_problem(body: dict[str, Any]) -> str | None:
    """What makes a command body no command at all, whatever its type, or None: a number
    that is not finite or lies beyond +-``MAX_BODY_NUMBER``, a list or map of more than
    ``MAX_BODY_ITEMS``, nesting deeper than ``MAX_BODY_DEPTH``, text longer than
    ``MAX_BODY_TEXT``. The message names the place (``body.skill.route[3][0]``).

    The shape of each command (which fields, of which types; ``true`` is never a number)
    is the rules core's to check; this keeps out what no command can hold before it costs
    the rules core anything. Facings are angles: the rules core takes them modulo 360
    (docs/rules-decisions/README.md)."""
    found = _plain_problem(body, 1)
    if found is None:
        return None
    problem, steps = found
    return "body" + "".join(reversed(steps)) + f": {problem}"


def _plain_problem(value: Any, depth: int) -> tuple[str, list[str]] | None:
    """(what is wrong, the path's steps innermost first) for the first bad value, or None.
    Recursion is bounded by ``MAX_BODY_DEPTH``; paths are built only for a bad value."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if -MAX_BODY_NUMBER <= value <= MAX_BODY_NUMBER:  # False for NaN, too
            return None
        return f"must be a finite number within +-{MAX_BODY_NUMBER} (not {value!r})", []
    if isinstance(value, str):
        return None if len(value) <= MAX_BODY_TEXT else (
            f"text longer than {MAX_BODY_TEXT} characters", [])
    if not isinstance(value, dict | list):
        return f"{type(value).__name__} is not plain data", []
    if len(value) > MAX_BODY_ITEMS:
        return f"more than {MAX_BODY_ITEMS} items", []
    if depth > MAX_BODY_DEPTH:
        return f"nested deeper than {MAX_BODY_DEPTH}", []
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _plain_problem(item, depth + 1)
            if found is not None:
                found[1].append(f"[{index}]")
                return found
        return None
    for key, item in value.items():
        if not isinstance(key, str) or len(key) > MAX_BODY_TEXT:
            return f"keys must be text of at most {MAX_BODY_TEXT} characters", []
        found = _plain_problem(item, depth + 1)
        if found is not None:
            found[1].append(f".{key}")
            return found
    return None


def _describe(value: Any) -> str:
    """A client's value in a message, without ``repr`` of what may be nested a thousand deep
    (its repr raises RecursionError) or be 16 KiB long."""
    if isinstance(value, str):
        return repr(value[:MAX_TEXT_FIELD])
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    return f"of type {type(value).__name__}"


def _is_short_text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_TEXT_FIELD


def _is_finite_number(value: Any) -> bool:
    """An integer or a finite float (msgpack sends 24.0 from JavaScript as the integer 24)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


Check = Callable[[Any], str | None]
"""Returns None when the value fits, else what is wrong with it."""


_WIRE: dict[type, tuple[tuple[str, str], ...]] = {}
_SPECS: dict[type, tuple[tuple[str, str, Check, bool], ...]] = {}


def _wire_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """(attribute, wire key) of each field: a trailing underscore, which lets a field be
    named after a Python keyword (``from_``), is not part of its wire key."""
    fields = _WIRE.get(cls)
    if fields is None:
        fields = _WIRE[cls] = tuple((field.name, field.name.removesuffix("_"))
                                    for field in dataclasses.fields(cls))
    return fields


def _field_specs(cls: type) -> tuple[tuple[str, str, Check, bool], ...]:
    specs = _SPECS.get(cls)
    if specs is None:
        specs = _SPECS[cls] = _build_specs(cls)
    return specs


def _build_specs(cls: type) -> tuple[tuple[str, str, Check, bool], ...]:
    hints = get_type_hints(cls)
    # Text and integers from clients are bounded (ids, tokens; versions, nonces); the
    # server's own messages may be long.
    from_client = cls in CLIENT_MESSAGES
    specs = []
    for field, (_, key) in zip(dataclasses.fields(cls), _wire_fields(cls), strict=True):
        required = field.default is dataclasses.MISSING
        specs.append((field.name, key, _checker(hints[field.name], from_client), required))
    return tuple(specs)


def _checker(tp: Any, from_client: bool) -> Check:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        options = [_checker(option, from_client) for option in args if option is not type(None)]
        nullable = type(None) in get_args(tp)
        return lambda v: None if (v is None and nullable) else _first_fit(options, v)
    if origin is dict:
        value_check = _checker(get_args(tp)[1], from_client)

        def check_map(v: Any) -> str | None:
            if not isinstance(v, dict):
                return "must be a map"
            if not all(isinstance(k, str) for k in v):
                return "must have text keys"
            if get_args(tp)[1] is Any:
                return None
            return next((p for p in map(value_check, v.values()) if p), None)

        return check_map
    if origin is list:
        item_check = _checker(get_args(tp)[0], from_client)
        return lambda v: (
            "must be a list"
            if not isinstance(v, list)
            else next((p for p in map(item_check, v) if p), None)
        )
    if tp is int and from_client:
        return lambda v: (
            None if isinstance(v, int) and not isinstance(v, bool)
            and -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER
            else f"must be an integer within +-{MAX_SAFE_INTEGER}"
        )
    if tp is int:
        return lambda v: (
            None if isinstance(v, int) and not isinstance(v, bool) else "must be an integer"
        )
    if tp is str and from_client:
        return lambda v: None if _is_short_text(v) else f"must be text of 1-{MAX_TEXT_FIELD} chars"
    if tp is str:
        return lambda v: None if isinstance(v, str) else "must be text"
    if tp is bool:
        return lambda v: None if isinstance(v, bool) else "must be true or false"
    if tp is float:
        return lambda v: None if _is_finite_number(v) else "must be a finite number"
    if tp is Any:
        return lambda v: None
    raise TypeError(f"no wire checker for {tp!r}")


def _first_fit(options: list[Check], value: Any) -> str | None:
    problems = [check(value) for check in options]
    if any(problem is None for problem in problems):
        return None
    return problems[0] if len(problems) == 1 else "has the wrong type"


_CLIENT_BY_TAG: dict[str, type[ClientMessage]] = {m.TAG.value: m for m in CLIENT_MESSAGES}
_SERVER_BY_TAG: dict[str, type[ServerMessage]] = {m.TAG.value: m for m in SERVER_MESSAGES}
