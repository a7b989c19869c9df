"""Generated websocket frames and lobby requests for fuzzing a real referee (issue 18), each
carrying what protocol/README.md says it must get back.

A ``Frame`` is a template plus its documented outcome: the client message it decodes to
(``tag``), or the ``ProtocolReason`` of the ``error`` (or of the ``rejected``, when its id can
be read) that a frame which is not a usable message gets, or the close code an oversized
frame causes. The generators know what they broke, so the oracle does not ask the server's
codec what a frame is. Values the room supplies -- the sender's version, its troopers,
points near them, the open ARO window -- are placeholders (``AtVersion``, ``Known``) filled
in when the frame is sent (``fill``), so one generated batch fits any room.

Game commands are generated from the rules core's own command classes
(``server.rules.commands``, through their type hints), with every field either of the shape
``plain.from_plain`` takes or broken on purpose: the frame says which (``well_formed``), and
a malformed body must be answered ``bad_command``.

``requests`` makes HTTP lobby requests the same way: a method, a path (sometimes naming a
real room), headers and a body (create-room fields good and bad, a shipped table document
with one value changed, bodies that are not JSON or too large).

What came back is checked by ``testkit.fuzz.oracle`` and sent by ``testkit.fuzz.harness`` (the
harness the tests and the long run, ``python -m bench.fuzz``, share); this module only makes
inputs and says what they must get.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import msgpack
from hypothesis import strategies as st

from protocol.codec import (
    MAX_BODY_DEPTH,
    MAX_BODY_ITEMS,
    MAX_BODY_NUMBER,
    MAX_BODY_TEXT,
    MAX_SAFE_INTEGER,
)
from protocol.constants import ClientTag, CloseCode, ProtocolReason, ServerTag
from server.rules import commands
from server.rules.plain import Tagged

MAX_FRAME = 16 * 1024  # Settings.max_frame_bytes: above it, close FRAME_TOO_LARGE
HARD_FRAME = 64 * 1024  # Settings.hard_frame_bytes: above it, close MESSAGE_TOO_BIG
MSGPACK_DEPTH = 1024  # the msgpack unpacker's container stack: deeper is not msgpack to us
ANSWERED_BY_ID = frozenset({"command", "history", "measure"})

# --- placeholders filled in when a frame is sent -------------------------------------------


@dataclass(frozen=True, slots=True)
class Known:
    """A value of the room's: ``kind`` is "trooper", "point", "weapon", "army", "entropy",
    "program", "order", "step", "room" or "token"; ``pick`` chooses among them."""

    kind: str
    pick: int


@dataclass(frozen=True, slots=True)
class AtVersion:
    """The sender's own version when the frame is sent, plus ``delta``."""

    delta: int


@dataclass(frozen=True, slots=True)
class FreshId:
    """A valid id (1-128 characters), made unique in the run from ``text`` when sent."""

    text: str


@dataclass(frozen=True, slots=True)
class Deep:
    """``depth`` one-item lists nested in each other around a nil, written as bytes:
    msgpack's packer stops at 512 levels, its unpacker at 1024."""

    depth: int


@dataclass(frozen=True, slots=True)
class BadUtf8:
    """A msgpack str whose bytes are not UTF-8."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Repeat:
    """Send again the ``pick``-th earlier command of this seat, as it was sent: the answer
    must be the first one (protocol/README.md, "A repeated id")."""

    pick: int


@dataclass(frozen=True, slots=True)
class Frame:
    """One generated frame and what it must get.

    ``wire`` is a template (packed with msgpack once filled in), or, when ``raw``, bytes or
    text sent as they are. ``tag``: the client message it decodes to, or None. ``error``:
    the reason code of the ``error`` a frame that is not usable gets -- a ``rejected`` with
    that code when ``wire`` has a readable ``id`` (``FreshId``) and is a command or query.
    ``close``: the close code it causes (no answer). ``well_formed``: a command's body has
    the rules core's shape (else ``bad_command``); a measure's points are ``[x, y]`` (else
    ``rejected bad_message``)."""

    wire: Any
    note: str
    tag: str | None = None
    error: str | None = None
    close: int | None = None
    well_formed: bool = True
    raw: bool = False

    @property
    def readable_id(self) -> bool:
        return (isinstance(self.wire, dict) and isinstance(self.wire.get("type"), str)
                and self.wire["type"] in ANSWERED_BY_ID and isinstance(self.wire.get("id"), FreshId)
                and self.error != ProtocolReason.MALFORMED_FRAME)

    @property
    def unusable(self) -> bool:
        """Counts against the socket's bad frames (an ``error``, or a ``rejected`` by the
        transport for a frame it could not read)."""
        return self.error is not None


# --- plain values ---------------------------------------------------------------------------

INT_EDGES = (0, 1, -1, 2, 3, 255, 256, 65535, 2**31 - 1, 2**31, -(2**31), MAX_BODY_NUMBER,
             MAX_BODY_NUMBER + 1, MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER,
             -MAX_SAFE_INTEGER - 1, 2**63 - 1, -(2**63), 2**64 - 1)
ints = st.one_of(st.sampled_from(INT_EDGES), st.integers(-300, 300),
                 st.integers(-(2**63), 2**64 - 1))
"""Any integer msgpack carries."""
safe_ints = st.one_of(ints.filter(lambda n: abs(n) <= MAX_SAFE_INTEGER), st.integers(-300, 300))
"""Integers a protocol field takes (within +-(2^53-1), what a JavaScript client holds)."""
unsafe_ints = st.one_of(st.sampled_from([MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER - 1,
                                         2**63 - 1, -(2**63), 2**64 - 1]),
                        st.integers(MAX_SAFE_INTEGER + 1, 2**64 - 1))
body_ints = st.one_of(st.integers(-300, 300), st.integers(-300, 300), st.sampled_from(INT_EDGES))
"""Integers in a command body: mostly of a game's size, sometimes beyond what a body may
hold (+-1e6: refused ``bad_command`` before the rules core)."""
numbers = st.one_of(  # what a ``float`` field takes: finite, integers included (msgpack sends 24.0 as 24)
    st.floats(-60, 60, allow_nan=False), st.floats(-MAX_BODY_NUMBER, MAX_BODY_NUMBER),
    st.sampled_from([0.0, -0.0, 0.5, 24.0, 359.99, 360, 1e-300, 5e-324, 1e15, 1e308, -1e308]),
    st.integers(-100, 100), st.floats(allow_nan=False, allow_infinity=False))
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])
texts = st.one_of(st.text(max_size=12), st.text(min_size=100, max_size=140),
                  st.sampled_from(["", " ", "A-t1", "B-t1", "null", "\x00", "é" * 128, "x" * 129]))
short_texts = st.one_of(st.text(min_size=1, max_size=16), st.text(min_size=120, max_size=128))
_TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)  # not encodable as UTF-8: no websocket text
malformed_tokens = st.one_of(
    # The review's crash: a caster-shaped token with a non-ASCII MAC (compare_digest of two
    # str raised TypeError), and the same in the nonce, the kind and a whole seat token.
    st.sampled_from(["c.x.\u00e9", "c.\u00e9.x", "\u00e7.x.y", "\u00e9" * 32, "c..\u00e9",
                     "c.x.\u00e9" + "A" * 42, "\u2028", "tok en", "c.x.y\x00", "\U0001F600" * 8]),
    # text of a token's length with at least one character outside base64url and "."
    st.tuples(st.text(st.sampled_from(_TOKEN_ALPHABET), max_size=40),
              st.characters(blacklist_characters=_TOKEN_ALPHABET, blacklist_categories=_SURROGATES),
              st.text(max_size=40)).map("".join))
"""Tokens no seat, organizer, caster or tournament token can be, each within the 128
characters a hello's token may have (longer is ``bad_message``, close 4002, by the codec):
each opens nothing and gets ``bad_token`` (close 4003 on the websocket, 403 in the lobby),
never a traceback."""
json_malformed_tokens = st.one_of(malformed_tokens, st.sampled_from(
    ["\ud800", "c.x.\udc80", "\udfff" * 32]),
    # a token's characters, but longer than any (server.lobby.tokens.MAX_TOKEN_CHARS)
    st.text(st.sampled_from(_TOKEN_ALPHABET), min_size=129, max_size=300).map(lambda t: "c." + t))
"""As ``malformed_tokens``, with lone surrogates, which a JSON body can carry (``\\ud800``)
and msgpack cannot, and tokens too long."""

scalars = st.one_of(st.none(), st.booleans(), ints, st.floats(), texts, st.binary(max_size=16))
junk = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=6), kids, max_size=3)),
    max_leaves=8)


def _not(*kinds: str) -> st.SearchStrategy[Any]:
    """Values of none of ``kinds`` ("int", "float", "text", "bool", "none", "list", "map",
    "binary"): a float is never an int to the protocol or the rules core, so leaving out
    "int" alone still offers 3.0."""
    pool = {
        "int": ints, "float": st.floats(), "text": texts, "bool": st.booleans(),
        "none": st.none(), "list": st.lists(scalars, max_size=3),
        "map": st.dictionaries(st.text(max_size=5), scalars, max_size=2),
        "binary": st.binary(max_size=8),
    }
    return st.one_of([strategy for name, strategy in pool.items() if name not in kinds])


Pair = tuple[Any, bool]
"""A value and whether it is of the shape its field takes."""

percent = st.sampled_from(range(100)).map(lambda n: 99 - n)
"""A roll for a choice made so often in a hundred (``draw(percent) < 8``: 8 times). Drawn as
an index, evenly (hypothesis draws bounded integers leaning hard to small ones:
``integers(0, 99) < 8`` a third of the time), and reversed, because hypothesis still often
draws the simplest index, 0, which should be the usual case, not the rare one."""


@st.composite
def weighted(draw: st.DrawFn, *choices: tuple[int, st.SearchStrategy[Any]]) -> Any:
    """A value of one of the strategies, each chosen ``weight`` times in a hundred
    (``one_of`` chooses among its strategies, nested ones flattened, without weights)."""
    roll = draw(percent)
    for weight, strategy in choices:
        if roll < weight:
            return draw(strategy)
        roll -= weight
    return draw(choices[-1][1])


@st.composite
def _either(draw: st.DrawFn, good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any],
            bad_percent: int = 8) -> Pair:
    if draw(percent) < bad_percent:
        return draw(bad), False
    return draw(good), True


@st.composite
def _fields(draw: st.DrawFn, tag: str, fields: list[tuple[str, st.SearchStrategy[Pair], bool]],
            mutate_percent: int = 6) -> Pair:
    """A map ``{"type": tag, ...}``: each field drawn, optional ones sometimes left out; a
    required field left out or an unknown field added makes it malformed."""
    wire: dict[Any, Any] = {"type": tag}
    ok = True
    for name, values, required in fields:
        roll = draw(percent)
        if roll < (mutate_percent if required else 30):
            ok = ok and not required
            continue
        value, fits = draw(values)
        wire[name] = value
        ok = ok and fits
    if draw(percent) < mutate_percent:
        extra = draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in wire))
        wire[extra] = draw(junk)
        ok = False
    return wire, ok


# --- the rules core's commands --------------------------------------------------------------

_HINTED = {"army": "army", "entropy": "entropy", "program": "program", "weapon": "weapon",
           "order": "order", "step": "step"}
"""Field names whose text or number is usually one the room knows."""


plain_documents: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), body_ints, texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
"""Small plain documents of any shape (what a field typed ``Any`` reads as it is)."""


def _rules_value(tp: Any, name: str, nullable: bool = False) -> st.SearchStrategy[Pair]:
    """A plain value for a field of type ``tp`` as ``plain.from_plain`` reads it; in an
    optional field (``nullable``) nil is never one of the broken values."""
    if tp is Any:  # a whole document (a brought army list): any plain value parses
        return plain_documents.map(lambda value: (value, True))
    origin = get_origin(tp)
    nil = ("none",) if nullable else ()
    if origin in (Union, types.UnionType):
        optional = type(None) in get_args(tp)
        values = [_rules_value(option, name, optional) for option in get_args(tp)
                  if option is not type(None)]
        return st.one_of([*values, st.just((None, True))] if optional else values)
    if origin is Literal:
        return _either(st.sampled_from(get_args(tp)),
                       st.one_of(_other_text(get_args(tp)), ints,
                                 *([] if nullable else [st.none()])))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            items = st.lists(_rules_value(args[0], name), max_size=4).map(
                lambda pairs: ([v for v, _ in pairs], all(ok for _, ok in pairs)))
            return st.one_of(items, items, items, _not("list", *nil).map(lambda v: (v, False)))
        return _point(nullable)
    supertype = getattr(tp, "__supertype__", None)
    if supertype is not None:  # TrooperId, WeaponId
        kind = "weapon" if "Weapon" in tp.__name__ else "trooper"
        return _either(st.one_of(_known(kind), _known(kind), texts), _not("text", *nil))
    if tp is bool:
        return _either(st.booleans(), _not("bool", *nil))
    good: st.SearchStrategy[Any]
    if tp is int:
        good = st.one_of(_known(_HINTED[name]), body_ints) if name in _HINTED else body_ints
        return _either(good, _not("int", *nil))
    if tp is float:
        return _either(numbers, st.one_of(non_finite, _not("int", "float", *nil)))
    if tp is str:
        good = st.one_of(_known(_HINTED[name]), texts) if name in _HINTED else texts
        return _either(good, _not("text", *nil))
    if isinstance(tp, type) and issubclass(tp, Enum):
        members = [member.value for member in tp]
        return _either(st.sampled_from(members), st.one_of(_other_text(members), ints))
    if isinstance(tp, type) and issubclass(tp, Tagged) and not tp.__dict__.get("TYPE"):
        return _tagged(tp, nullable)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    raise TypeError(f"no generator for {tp!r}")


def _other_text(taken: Sequence[Any]) -> st.SearchStrategy[Any]:
    """Text that is none of ``taken``."""
    def other(text: Any) -> bool:
        return text not in taken
    return texts.filter(other)


def _deferred(tp: Any, name: str) -> st.SearchStrategy[Pair]:
    """``_rules_value`` built on first use: a skill's fields may hold skills."""
    return st.deferred(lambda: _rules_value(tp, name))


def _known(kind: str) -> st.SearchStrategy[Known]:
    return st.integers(0, 40).map(lambda pick: Known(kind, pick))


def _point(nullable: bool = False) -> st.SearchStrategy[Pair]:
    good = st.one_of(_known("point"), _known("point"), st.lists(numbers, min_size=2, max_size=2))
    bad = st.one_of(st.lists(numbers, max_size=4).filter(lambda p: len(p) != 2),
                    st.tuples(numbers, non_finite).map(list),
                    _not("list", *(("none",) if nullable else ())))
    return _either(good, bad)


_EDGE_ONLY = frozenset({"from_code"})
"""Command fields only the room's edge sets (``RulesCoreEngine``): a body carrying one is
refused ``bad_command``, whatever its value, so they are not generated as fields."""


def _dataclass(cls: type, tag: str | None = None) -> st.SearchStrategy[Pair]:
    hints = get_type_hints(cls)
    fields = [(f.name, _deferred(hints[f.name], f.name),
               f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
              for f in dataclasses.fields(cls) if f.init and f.name not in _EDGE_ONLY]
    return _fields(tag or "", fields, mutate_percent=4).map(
        lambda pair: ({k: v for k, v in pair[0].items() if k != "type" or tag}, pair[1]))


def _tagged(base: type[Tagged], nullable: bool = False) -> st.SearchStrategy[Pair]:
    concrete = [base.class_for(tag) for tag in base.tags()]
    good = st.one_of([_dataclass(cls, cls.TYPE) for cls in concrete if cls is not None])
    unknown_tag = st.fixed_dictionaries({"type": st.one_of(texts, ints, st.none())}).filter(
        lambda m: not isinstance(m["type"], str) or base.class_for(m["type"]) is None)
    bad = st.one_of(unknown_tag, _not("map", *(("none",) if nullable else ())))
    return st.one_of(good, good, good, good, bad.map(lambda m: (m, False)))


rules_bodies: st.SearchStrategy[Pair] = _tagged(commands.Command)
"""A rules command body (a template) and whether ``commands.parse_command`` must take it."""


# --- client messages ------------------------------------------------------------------------

Field = tuple[str, st.SearchStrategy[Any], st.SearchStrategy[Any], bool]
"""(wire name, values it takes, values it does not take, required) of a client message."""

ID = ("id", short_texts.map(FreshId), st.one_of(
    st.just(""), st.text(min_size=129, max_size=160), ints, st.none(), st.binary(max_size=4),
    st.lists(scalars, max_size=2)), True)
bad_ints = st.one_of(unsafe_ints, _not("int", "none"))
"""What no integer field of the protocol takes (nil aside: some take it)."""
VERSION = ("version", st.one_of(st.sampled_from([0, 0, 0, 0, 0, -1, 1, -5]).map(AtVersion),
                                safe_ints), st.one_of(bad_ints, st.none()), True)
SINCE = ("since", st.one_of(st.sampled_from([0, -1, -3, 1]).map(AtVersion), safe_ints, st.none()),
         bad_ints, False)
points = st.one_of(_known("point"), _known("point"), st.lists(numbers, min_size=2, max_size=2),
                   st.lists(numbers, max_size=3))
bad_points = st.one_of(_not("list"), st.tuples(numbers, non_finite).map(list),
                       st.lists(st.booleans(), min_size=2, max_size=2))
MESSAGES: dict[str, list[Field]] = {
    "command": [ID, VERSION],  # and its body, below
    "measure": [
        ID,
        ("from", st.one_of(_known("trooper"), _known("trooper"), short_texts, points),
         st.one_of(st.just(""), st.text(min_size=129, max_size=140), ints, st.none(),
                   st.tuples(non_finite, numbers).map(list)), True),
        ("to", points, bad_points, True),
        ("silhouette", st.one_of(safe_ints, st.sampled_from([1, 2, 3, 5, 8]), st.none()),
         bad_ints, False)],
    "history": [ID, ("from", st.one_of(safe_ints, st.sampled_from([1, 1, 2, 0, -1])),
                     st.one_of(bad_ints, st.none()), True)],
    "sync": [SINCE],
    "ping": [("nonce", safe_ints, st.one_of(bad_ints, st.none()), True)],
    "options": [],
    "hello": [
        ("protocol", st.one_of(st.just(3), safe_ints), st.one_of(bad_ints, st.none()), True),
        ("room", st.one_of(_known("room"), short_texts), _not("text"), True),
        ("token", st.one_of(_known("token"), short_texts, st.none()), _not("text", "none"), False),
        SINCE],
}


@st.composite
def _message(draw: st.DrawFn, tag: str, body: Any = None) -> tuple[dict[Any, Any], str | None]:
    """A client message ``tag`` with every field as it should be (optional ones sometimes
    left out), then, a quarter of the time, one thing broken: a field of the wrong type or
    range, a required field missing, or an unknown field. Returns it and what was broken."""
    fields = MESSAGES[tag]
    wire: dict[Any, Any] = {"type": tag}
    for name, good, _, required in fields:
        if required or draw(percent) < 70:
            wire[name] = draw(good)
    if body is not None:
        wire["body"] = body
    if draw(percent) >= 25 or (not fields and draw(percent) >= 5):
        return wire, None
    how = draw(st.sampled_from(["a bad value", "missing", "an unknown field"] if fields
                               else ["an unknown field"]))
    if how == "an unknown field":
        name = draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in wire))
        wire[name] = draw(junk)
        return wire, f"{name!r}: {how}"
    name, _, bad, required = draw(st.sampled_from(
        [f for f in fields if f[3]] if how == "missing" and any(f[3] for f in fields)
        else fields))
    if how == "missing" and required:
        wire.pop(name, None)
    else:
        wire[name] = draw(bad)
        how = "a bad value"
    return wire, f"{name}: {how}"


def _message_frames(tag: str) -> st.SearchStrategy[Frame]:
    return _message(tag).map(lambda pair: Frame(pair[0], tag, tag=tag) if pair[1] is None else
                             Frame(pair[0], f"{tag} with {pair[1]}",
                                   error=ProtocolReason.BAD_MESSAGE))


command_bodies: st.SearchStrategy[Pair] = st.one_of(
    rules_bodies.filter(lambda pair: isinstance(pair[0], dict)),
    rules_bodies.filter(lambda pair: isinstance(pair[0], dict)),
    rules_bodies.filter(lambda pair: isinstance(pair[0], dict)),
    st.dictionaries(st.text(max_size=8).filter(lambda k: k != "type"), junk, max_size=4).map(
        lambda m: (m, False)))
"""Command bodies (maps) and whether the rules core must take their shape."""


@st.composite
def command_frames(draw: st.DrawFn) -> Frame:
    body, well_formed = draw(command_bodies)
    if draw(percent) < 4:
        body, well_formed = draw(_not("map")), False
        wire, _ = draw(_message("command", body))
        return Frame(wire, "command whose body is no map", error=ProtocolReason.BAD_MESSAGE)
    wire, broken = draw(_message("command", body))
    if broken is not None:
        return Frame(wire, f"command with {broken}", error=ProtocolReason.BAD_MESSAGE)
    return Frame(wire, "command", tag="command", well_formed=well_formed)


@st.composite
def measure_frames(draw: st.DrawFn) -> Frame:
    wire, broken = draw(_message("measure"))
    if broken is not None:
        return Frame(wire, f"measure with {broken}", error=ProtocolReason.BAD_MESSAGE)
    both_points = all(not isinstance(wire[key], list) or len(wire[key]) == 2
                      for key in ("from", "to"))
    return Frame(wire, "measure", tag="measure", well_formed=both_points)


hello_frames = _message("hello").map(lambda pair: Frame(
    pair[0], "second hello" if pair[1] is None else f"second hello with {pair[1]}",
    error=ProtocolReason.UNEXPECTED_MESSAGE if pair[1] is None else ProtocolReason.BAD_MESSAGE))

_CLIENT_TAGS = {tag.value for tag in ClientTag}
@st.composite
def unknown_type_frames(draw: st.DrawFn) -> Frame:
    """A map whose ``type`` is no client message: a server's tag, a near miss, any text, a
    number, nil, a list, a list nested up to a thousand deep, or no ``type`` at all."""
    tag = draw(st.one_of(
        st.sampled_from([*sorted({t.value for t in ServerTag} - _CLIENT_TAGS),
                         "COMMAND", "command ", "Ping"]),
        texts.filter(lambda t: t not in _CLIENT_TAGS), ints, st.none(),
        st.lists(scalars, max_size=2), st.integers(1, 1000).map(Deep)))
    rest = draw(st.dictionaries(st.text(max_size=6).filter(lambda k: k != "type"), junk,
                                max_size=3))
    note = (f"deep value in type ({tag.depth} levels)" if isinstance(tag, Deep)
            else "unknown message type")
    return Frame({**rest, "type": tag} if tag is not None else rest, note,
                 error=ProtocolReason.UNKNOWN_MESSAGE_TYPE)


def _malformed(frame: bytes) -> bool:
    """Whether msgpack itself refuses ``frame`` or reads something that is not a map
    (what protocol/README.md calls not msgpack, not a map)."""
    def refuse(code: int, data: bytes) -> None:
        raise ValueError("extension")
    try:
        value = msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=refuse)
    except Exception:
        return True
    return not isinstance(value, dict)


_valid_ping = msgpack.packb({"type": "ping", "nonce": 1})
malformed_frames = st.one_of(
    st.binary(max_size=64).filter(_malformed).map(
        lambda b: Frame(b, "binary garbage", error=ProtocolReason.MALFORMED_FRAME, raw=True)),
    st.integers(1, len(_valid_ping) - 1).map(lambda n: Frame(
        _valid_ping[:n], "truncated frame", error=ProtocolReason.MALFORMED_FRAME, raw=True)),
    st.binary(min_size=1, max_size=4).map(lambda tail: Frame(
        _valid_ping + tail, "trailing bytes", error=ProtocolReason.MALFORMED_FRAME, raw=True)),
    st.one_of(scalars, st.lists(junk, max_size=3)).map(lambda v: Frame(
        v, "not a map", error=ProtocolReason.MALFORMED_FRAME)),
    st.text(max_size=30).map(lambda t: Frame(
        t, "text frame", error=ProtocolReason.MALFORMED_FRAME, raw=True)),
    st.sampled_from([{1: "ping"}, {"type": "ping", "nonce": 1, 7: 8},
                     {"type": "command", "id": FreshId("k"), "version": 0, "body": {1: 2}}]).map(
        lambda v: Frame(v, "a map key that is not text", error=ProtocolReason.MALFORMED_FRAME)),
    st.binary(max_size=8).map(lambda b: Frame({"type": "ping", "nonce": msgpack.ExtType(5, b)},
                                              "msgpack extension",
                                              error=ProtocolReason.MALFORMED_FRAME)),
    st.sampled_from([b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80"]).map(lambda b: Frame(
        {"type": BadUtf8(b)}, "text that is not UTF-8", error=ProtocolReason.MALFORMED_FRAME)),
)


@st.composite
def deep_frames(draw: st.DrawFn) -> Frame:
    """A value nested near msgpack's limit, where a client message has a field: in ``type``
    (an unknown type), a command's body, an unknown field of a ping."""
    depth = draw(st.one_of(st.integers(1, MSGPACK_DEPTH + 8),
                           st.integers(MSGPACK_DEPTH - 40, MSGPACK_DEPTH + 2)))
    where = draw(st.sampled_from(["type", "body", "field", "measure"]))
    wire: dict[str, Any]
    error: str
    if where == "type":
        wire, error, outer = {"type": Deep(depth)}, ProtocolReason.UNKNOWN_MESSAGE_TYPE, 1
    elif where == "field":
        wire, error, outer = {"type": "ping", "nonce": 1, "x": Deep(depth)}, "bad_message", 1
    elif where == "measure":
        wire, error, outer = ({"type": "measure", "id": FreshId("deep"), "from": Deep(depth),
                               "to": [1, 1]}, ProtocolReason.BAD_MESSAGE, 1)
    else:
        wire = {"type": "command", "id": FreshId("deep"), "version": AtVersion(0),
                "body": {"type": Deep(depth)}}
        if 2 + depth > MSGPACK_DEPTH:
            return Frame(wire, "nested too deep", error=ProtocolReason.MALFORMED_FRAME)
        return Frame(wire, "deep command body", tag="command", well_formed=False)
    if outer + depth > MSGPACK_DEPTH:
        return Frame(wire, "nested too deep", error=ProtocolReason.MALFORMED_FRAME)
    return Frame(wire, f"deep value in {where} ({depth} levels)", error=error)


@st.composite
def oversized_frames(draw: st.DrawFn) -> Frame:
    """A ping padded to a size about the protocol's limit or the transport's ceiling."""
    size = draw(st.one_of(st.sampled_from([MAX_FRAME, MAX_FRAME + 1, HARD_FRAME, HARD_FRAME + 1]),
                          st.integers(MAX_FRAME - 64, MAX_FRAME + 64),
                          st.integers(MAX_FRAME + 1, HARD_FRAME + 4096)))
    frame = padded_ping(size)
    if size > HARD_FRAME:
        return Frame(frame, "above the transport ceiling", close=CloseCode.MESSAGE_TOO_BIG,
                     raw=True)
    if size > MAX_FRAME:
        return Frame(frame, "above the frame limit", close=CloseCode.FRAME_TOO_LARGE, raw=True)
    return Frame(frame, "at most the frame limit", error=ProtocolReason.BAD_MESSAGE, raw=True)


def padded_ping(size: int) -> bytes:
    """A ping with an unknown ``pad`` field, exactly ``size`` bytes long."""
    head = msgpack.packb({"type": "ping", "nonce": 1, "pad": b""})[:-2]  # without the bin8 b""
    payload = size - len(head) - 5  # bin32: 0xc6 and four length bytes
    return bytes(head) + b"\xc6" + payload.to_bytes(4, "big") + b"p" * payload


FRAME_MIX: tuple[tuple[int, st.SearchStrategy[Frame]], ...] = (
    (34, command_frames()),
    (5, st.integers(0, 400).map(lambda pick: Frame(Repeat(pick), "repeated command"))),
    (11, measure_frames()),
    (5, _message_frames("history")),
    (5, _message_frames("sync")),
    (6, _message_frames("ping")),
    (4, _message_frames("options")),
    (3, hello_frames),
    (7, unknown_type_frames()),
    (12, malformed_frames),
    (4, deep_frames()),
    (1, oversized_frames()),
)
"""(percent, generator): what a batch is made of."""


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    roll = draw(st.sampled_from(range(sum(weight for weight, _ in FRAME_MIX))))
    for weight, strategy in FRAME_MIX:
        if roll < weight:
            return draw(strategy)
        roll -= weight
    raise AssertionError("unreachable")


ROLES = ("A", "B", "spectator")


@dataclass(frozen=True, slots=True)
class Batch:
    """Frames one connection of a room sends back to back."""

    role: str
    frames: tuple[Frame, ...]


def batches(max_frames: int = 24) -> st.SearchStrategy[Batch]:
    """A role and up to ``max_frames`` frames."""
    return st.builds(Batch, st.sampled_from(ROLES),
                     st.lists(frames(), min_size=1, max_size=max_frames).map(tuple))


# --- filling in and packing -----------------------------------------------------------------


class Fill:
    """What a room supplies to a frame when it is sent: the sender's version, known values
    (troopers, points...), and unique ids."""

    def __init__(self, version: int, known: dict[str, list[Any]], next_id: Any) -> None:
        self.version = version
        self.known = known
        self.next_id = next_id  # () -> int, unique in the run

    def value(self, template: Any) -> Any:
        if isinstance(template, AtVersion):
            return self.version + template.delta
        if isinstance(template, Known):
            values = self.known.get(template.kind) or [f"no-{template.kind}"]
            return values[template.pick % len(values)]
        if isinstance(template, FreshId):
            suffix = f"~{self.next_id()}"
            return template.text[:128 - len(suffix)] + suffix
        if isinstance(template, dict):
            return {key: self.value(item) for key, item in template.items()}
        if isinstance(template, list):
            return [self.value(item) for item in template]
        if isinstance(template, Swap):
            documents = self.known.get("table_document") or [{}]
            return swap(documents[template.pick % len(documents)], template)
        return template


_SPLICE = "\x00splice-{}\x00"


def pack(filled: Any) -> bytes:
    """msgpack bytes of a filled template; ``Deep`` and ``BadUtf8`` are spliced in as bytes."""
    splices: list[bytes] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Deep | BadUtf8):
            splices.append(b"\x91" * value.depth + b"\xc0" if isinstance(value, Deep)
                           else b"\xd9" + bytes([len(value.data)]) + value.data)
            return _SPLICE.format(len(splices) - 1)
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    data: bytes = msgpack.packb(swap(filled), use_bin_type=True)
    for n, replacement in enumerate(splices):
        data = data.replace(msgpack.packb(_SPLICE.format(n)), replacement, 1)
    return data


def body_fits(body: Any, depth: int = 1) -> bool:
    """Whether a decoded command body holds only what protocol/README.md lets any body hold
    ("What a body may hold at all"): finite numbers within +-1e6 (booleans are no numbers),
    lists and maps of at most 32 items nested at most 8 deep, text of at most 256
    characters, text keys, nothing but plain data. Else the frame is ``rejected``
    ``bad_command`` when decoded, before the room sees it."""
    if body is None or isinstance(body, bool):
        return True
    if isinstance(body, Deep):  # lists nested from ``depth`` on, around a nil
        return depth + body.depth - 1 <= MAX_BODY_DEPTH
    if isinstance(body, int | float):
        return -MAX_BODY_NUMBER <= body <= MAX_BODY_NUMBER
    if isinstance(body, str):
        return len(body) <= MAX_BODY_TEXT
    if not isinstance(body, list | dict) or len(body) > MAX_BODY_ITEMS or depth > MAX_BODY_DEPTH:
        return False
    if isinstance(body, dict):
        return all(isinstance(key, str) and len(key) <= MAX_BODY_TEXT
                   and body_fits(item, depth + 1) for key, item in body.items())
    return all(body_fits(item, depth + 1) for item in body)


# --- HTTP lobby requests --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Swap:
    """A shipped table document (``Known("table_document", pick)``) with the value at
    ``path`` (keys and indexes, followed as far as they lead) replaced by ``value``."""

    path: tuple[Any, ...]
    value: Any
    pick: int


@dataclass(frozen=True, slots=True)
class Request:
    """One lobby request. ``path`` segments may be ``Known`` ("room": a real room,
    "room_suffix": one with a character more); ``body`` is bytes sent as they are, a
    template sent as JSON once filled in, or None."""

    method: str
    path: tuple[Any, ...]
    query: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: Any
    route: str


huge_numbers = st.sampled_from([10**400, -(10**400), 10**309, 2**1024, 10**30, 2**63, 2**64,
                                1e308, -1e308, 5e-324])
"""Numbers JSON carries and a double does not hold (or barely): Python reads an integer of
any length."""
table_swaps = st.builds(
    Swap,
    st.lists(st.one_of(st.integers(0, 12), st.sampled_from(
        ["terrain", "height", "points", "footprint", "id", "title", "width", "depth", "zones",
         "kind", "x", "y", "rulesets", "pieces"])), min_size=1, max_size=4).map(tuple),
    st.one_of(junk, non_finite, huge_numbers, st.sampled_from([-1, 0, "", [], {}])),
    st.integers(0, 40))
room_fields: dict[str, st.SearchStrategy[Any]] = {
    "ruleset": weighted((50, st.sampled_from(["n5", "codeone"])), (20, st.sampled_from(
        ["N5", "", "n6", "codeone "])), (30, st.one_of(texts, ints, junk))),
    "aro_window_s": weighted((40, numbers), (20, huge_numbers), (10, non_finite), (15, st.sampled_from(
        [0.05, 0.049, 600, 600.0001, 30])), (15, st.one_of(texts, st.booleans(), junk))),
    "visibility": weighted((60, st.sampled_from(["public", "private"])), (40, st.one_of(
        st.sampled_from(["PUBLIC", ""]), texts, ints))),
    "spectator_delay_s": weighted((40, numbers), (20, huge_numbers), (10, non_finite),
                                  (15, st.sampled_from([0, 3600, 3601, -0.0])),
                                  (15, st.one_of(st.none(), texts))),
    "seed": weighted((40, st.integers(0, 2**63 - 1)), (20, huge_numbers), (20, st.sampled_from(
        [-1, 2**63, 2**64])), (20, st.one_of(numbers, texts, st.booleans()))),
    "table": weighted((40, _known("layout")), (30, table_swaps), (30, st.one_of(texts, junk))),
}


@st.composite
def room_bodies(draw: st.DrawFn) -> Any:
    """A create-room body: the documented fields with values good and bad, sometimes an
    unknown field, a table document with one value changed, or not an object at all."""
    kind = draw(st.sampled_from(range(10)))
    if kind == 0:
        return draw(junk)
    if kind == 1:
        return {"ruleset": draw(st.sampled_from(["codeone", "n5"])), "table": draw(table_swaps)}
    body = {name: draw(values) for name, values in room_fields.items()
            if draw(percent) < 35}
    if draw(st.sampled_from(range(10))) == 0:
        body[draw(st.text(min_size=1, max_size=8))] = draw(junk)
    return body


raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"", b"{", b"[" * 100_000, b'{"a":' * 20_000, b"\xff\xfe{}", b"null",
                     b'{"ruleset": NaN}', b'{"aro_window_s": 1' + b"0" * 5000 + b"}",
                     b" " * (64 * 1024 + 1), b'{"ruleset": "n5"}' + b" " * (64 * 1024)]),
    st.integers(64 * 1024 - 16, 64 * 1024 + 16).map(lambda n: b'{"x": "' + b"y" * n + b'"}'),
)
"""Bodies that are not JSON objects, nested past the parser's recursion, or about 64 KiB."""

LOBBY_ROUTES: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("POST", ("api", "rooms")),
    ("GET", ("api", "rooms")),
    ("GET", ("api", "rooms", "ROOM")),
    ("POST", ("api", "rooms", "ROOM", "join")),
    ("GET", ("api", "rooms", "ROOM", "record")),
    ("GET", ("api", "armies")),
    ("GET", ("api", "tables")),
    ("GET", ("healthz",)),
)
room_segments = st.one_of(
    _known("room"), _known("room"), _known("room_suffix"), texts.filter(lambda t: t != ""),
    st.sampled_from(["..", ".", "%2e%2e", "a%2Fb", "%00", "%ff", "%", "x" * 5000, "🂡", "0-"]))
header_values = st.one_of(
    st.sampled_from(["application/json", "text/plain", "gzip", "*/*", "", "chunked"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
    st.integers(1000, 9000).map(lambda n: "h" * n))


@st.composite
def requests(draw: st.DrawFn) -> Request:
    """A request to one of the lobby's routes (now and then with another method or one path
    segment more), with a query, a few headers and, for a POST, a body."""
    method, template = draw(st.sampled_from(LOBBY_ROUTES))
    route = f"{method} /{'/'.join(template)}"
    if draw(percent) < 6:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]))
    segment = draw(room_segments)
    path = tuple(segment if part == "ROOM" else part for part in template)
    if draw(percent) < 4:
        path = (*path, draw(st.text(min_size=1, max_size=12)))
    query = tuple(draw(st.lists(st.tuples(
        st.sampled_from(["ruleset", "ruleset", "x", "limit"]),
        st.one_of(st.sampled_from(["n5", "codeone", "", "N5"]), st.text(max_size=10))),
        max_size=2)))
    headers = tuple(draw(st.lists(st.tuples(
        st.sampled_from(["content-type", "accept", "x-forwarded-for", "origin", "x-junk",
                         "content-encoding", "cookie"]), header_values), max_size=3)))
    body: Any = None
    if method == "POST" and path[-1] == "join":
        token = draw(st.one_of(_known("token"), _known("token"), texts, junk,
                               json_malformed_tokens))
        body = {"token": token} if draw(st.sampled_from(range(10))) else draw(junk)
    elif method == "POST":
        body = draw(room_bodies())
    if method in ("POST", "PUT", "PATCH") and draw(percent) < 12:
        body = draw(raw_bodies)
    return Request(method, path, query, headers, body, route)


def swap(document: Any, change: Swap) -> Any:
    """``document`` (plain JSON data, copied) with ``change`` made."""
    document = json.loads(json.dumps(document))
    holder: Any = None
    key: Any = None
    current = document
    for step in change.path:
        if isinstance(current, dict) and current:
            names = list(current)
            name = step if step in current else names[step % len(names)] if isinstance(
                step, int) else None
            if name is None:
                break
            holder, key, current = current, name, current[name]
        elif isinstance(current, list) and current and isinstance(step, int):
            holder, key, current = current, step % len(current), current[step % len(current)]
        else:
            break
    if holder is None:
        return change.value
    holder[key] = change.value
    return document
