"""Infinity Army codes: the Base64 text the official army builder exports for a list.

``decode_army_code`` reads a code as players paste it (whitespace around it, URL-encoded,
with or without ``=`` padding, standard or URL-safe Base64) into an ``ArmyCode``: the
faction, the list's name and points limit, and per Combat Group the ids of its troopers
(unit, profile group, option) with their per-trooper customisations. ``encode_army_code``
writes one back. Neither knows what the ids mean: resolving them against the operator's army
data is another module's job.

The stream (described publicly by cwoac/Infinity-Army-Tools, Romdeau/infinity-comlog and
IphStich/InfinityListSupport; this is our own reading of those descriptions):

* an integer is one byte when below 128, else two bytes, the first with its high bit set,
  holding ``((first & 0x7F) << 8) | second``; so at most 32767;
* a string is its length (an integer) then that many UTF-8 bytes;
* header: faction id, faction slug, list name, points limit, number of Combat Groups;
* each group: its number, then in the N5 layout two integers whose meaning is not known
  (seen as 1 and 0), then its member count;
* each member: a 0x00 byte, unit id, profile-group id, option id, a 0x00 byte, the number of
  customisations, then per customisation an integer and a string holding a JSON text.

Which layout a code uses is not written in it: the decoder reads it as N5 and, when that does
not consume the stream exactly, as N4 (docs/rules-decisions/armies.md, "Army code layouts").
Every fault raises ``ArmyCodeError`` naming the byte offset and the field expected.

Implementation module: no rule section (the format is the builder's, not the game's).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

Layout = Literal["n5", "n4"]

MAX_TEXT_LENGTH = 8192
"""Characters of pasted text read at most (a full 15-trooper list is well under 1 KiB)."""
MAX_INTEGER = 0x7FFF
"""The largest value a two-byte integer holds."""
MAX_STRING_BYTES = 1024
"""UTF-8 bytes of one string (slug, list name, customisation JSON) at most."""
MAX_COMBAT_GROUPS = 16
MAX_MEMBERS_PER_GROUP = 40
"""Members of one group at most, Peripherals included (the rules allow 10 plus Peripherals)."""
MAX_CUSTOMISATIONS = 16
"""Customisations of one trooper at most."""
MAX_JSON_DEPTH = 16
"""Nesting of a customisation's JSON at most (seen: a list of flat objects, depth 3)."""
SAVED_LINK_MAX_LENGTH = 11
"""Codes this short (after clean-up) are taken for the id of a list saved on the builder's
server: no real export is this short."""

_BASE64 = re.compile(r"[A-Za-z0-9+/]*")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)", re.IGNORECASE)

SAVED_LINK_MESSAGE = (
    "This looks like a link to a list saved on the army builder's server, which this server "
    "cannot read. In the army builder, export the list and paste the full army code instead."
)


class ArmyCodeError(ValueError):
    """An army code that cannot be read (or an ``ArmyCode`` that cannot be written).

    ``offset`` is the byte offset in the decoded stream where the faulty field starts, or
    None when the fault is in the text itself (not Base64, too long, a saved-list link) or
    found while encoding. ``expected`` names the field, in a player's words."""

    def __init__(self, message: str, *, offset: int | None, expected: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.expected = expected


@dataclass(frozen=True, slots=True)
class Customisation:
    """One per-trooper customisation: ``kind`` (an integer, seen as 1) and the JSON text the
    builder wrote (e.g. a stat raise or an extra skill), kept verbatim; it parses as JSON."""

    kind: int
    json_text: str


@dataclass(frozen=True, slots=True)
class GroupMember:
    """One trooper of a Combat Group, as ids into the builder's unit data."""

    unit_id: int
    profile_group_id: int
    option_id: int
    customisations: tuple[Customisation, ...] = ()


@dataclass(frozen=True, slots=True)
class CombatGroup:
    """One Combat Group: its ``number``, its members in code order and, in the N5 layout only,
    the two integers that follow the number (meaning unknown, seen as 1 and 0; None in N4)."""

    number: int
    members: tuple[GroupMember, ...]
    n5_fields: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class ArmyCode:
    """A decoded army code. ``layout`` says which group layout it was written in."""

    layout: Layout
    faction_id: int
    faction_slug: str
    list_name: str
    points_limit: int
    combat_groups: tuple[CombatGroup, ...]


# --- decoding ---------------------------------------------------------------------------


def _stream_from_text(text: str) -> bytes:
    """The bytes a pasted code stands for, or ``ArmyCodeError`` (offset None)."""
    if len(text) > MAX_TEXT_LENGTH:
        raise ArmyCodeError(
            f"This army code is {len(text)} characters long; an army code is at most "
            f"{MAX_TEXT_LENGTH}. Paste only the code the army builder exported.",
            offset=None, expected=f"an army code of at most {MAX_TEXT_LENGTH} characters")
    cleaned = "".join(unquote(text.strip()).split())
    if not cleaned:
        raise ArmyCodeError("The army code is empty: paste the code the army builder exported.",
                            offset=None, expected="an army code")
    if _URL.match(cleaned):
        raise ArmyCodeError(SAVED_LINK_MESSAGE, offset=None, expected="an army code, not a link")
    cleaned = cleaned.replace("-", "+").replace("_", "/").rstrip("=")
    if len(cleaned) <= SAVED_LINK_MAX_LENGTH and _BASE64.fullmatch(cleaned):
        raise ArmyCodeError(SAVED_LINK_MESSAGE, offset=None,
                            expected="the full army code, not a saved-list id")
    if not _BASE64.fullmatch(cleaned) or len(cleaned) % 4 == 1:
        raise ArmyCodeError(
            "This is not an army code: an army code is Base64 text (letters, digits, + and /) "
            "as the army builder exports it. Copy it again from the builder's export.",
            offset=None, expected="Base64 text")
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
    except (binascii.Error, ValueError) as error:  # unreachable after the check; kept safe
        raise ArmyCodeError("This is not an army code: it is not valid Base64 text.",
                            offset=None, expected="Base64 text") from error


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class _Reader:
    """Reads the stream front to back; every read names the field it expects."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    def fail(self, offset: int, expected: str, problem: str) -> ArmyCodeError:
        return ArmyCodeError(
            f"This army code is damaged or incomplete: at byte {offset} it expected {expected}, "
            f"but {problem}. Copy the code again from the army builder's export.",
            offset=offset, expected=expected)

    def byte(self, expected: str) -> int:
        if self.position >= len(self.data):
            raise self.fail(self.position, expected, "the code ended")
        value = self.data[self.position]
        self.position += 1
        return value

    def integer(self, expected: str) -> int:
        start = self.position
        first = self.byte(expected)
        if first < 0x80:
            return first
        if self.position >= len(self.data):
            raise self.fail(start, expected, "the code ended in the middle of it")
        second = self.data[self.position]
        self.position += 1
        return ((first & 0x7F) << 8) | second

    def zero(self, expected: str) -> None:
        start = self.position
        value = self.byte(expected)
        if value != 0:
            raise self.fail(start, expected, f"found the byte {value}")

    def count(self, expected: str, maximum: int) -> int:
        start = self.position
        value = self.integer(expected)
        if value > maximum:
            raise self.fail(start, expected, f"it says {value}, more than the {maximum} allowed")
        return value

    def string(self, expected: str) -> str:
        start = self.position
        length = self.integer(expected)
        if length > MAX_STRING_BYTES:
            raise self.fail(start, expected,
                            f"its length is {length} bytes, more than the {MAX_STRING_BYTES} allowed")
        if self.position + length > len(self.data):
            raise self.fail(start, expected, "the code ended in the middle of it")
        raw = self.data[self.position:self.position + length]
        self.position += length
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(start, expected, "it is not UTF-8 text") from None


def _json_problem(text: str) -> str | None:
    """Why ``text`` is not acceptable customisation JSON, or None when it is."""

    def refuse_constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    try:
        value = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, RecursionError):
        return "it is not JSON text"
    if _depth(value) > MAX_JSON_DEPTH:
        return f"it is nested deeper than {MAX_JSON_DEPTH} levels"
    return None


def _depth(value: object) -> int:
    # Iterative, so hostile nesting cannot exhaust the interpreter's stack.
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        if isinstance(item, list):
            pending += [(child, level + 1) for child in item]
        elif isinstance(item, dict):
            pending += [(child, level + 1) for child in item.values()]
    return deepest


def _read_member(reader: _Reader, where: str) -> GroupMember:
    reader.zero(f"the 0x00 byte that opens {where}")
    unit_id = reader.integer(f"the unit id of {where}")
    profile_group_id = reader.integer(f"the profile-group id of {where}")
    option_id = reader.integer(f"the option id of {where}")
    reader.zero(f"the 0x00 byte after the option id of {where}")
    count = reader.count(f"the number of customisations of {where}", MAX_CUSTOMISATIONS)
    customisations = []
    for index in range(1, count + 1):
        field = f"customisation {index} of {where}"
        kind = reader.integer(f"the kind of {field}")
        start = reader.position
        text = reader.string(f"the JSON text of {field}")
        problem = _json_problem(text)
        if problem is not None:
            raise reader.fail(start, f"the JSON text of {field}", problem)
        customisations.append(Customisation(kind, text))
    return GroupMember(unit_id, profile_group_id, option_id, tuple(customisations))


def _read(data: bytes, layout: Layout) -> ArmyCode:
    reader = _Reader(data)
    faction_id = reader.integer("the faction id")
    faction_slug = reader.string("the faction name")
    list_name = reader.string("the list's name")
    points_limit = reader.integer("the points limit")
    group_count = reader.count("the number of combat groups", MAX_COMBAT_GROUPS)
    groups = []
    for group_index in range(1, group_count + 1):
        group = f"combat group {group_index}"
        number = reader.integer(f"the number of {group}")
        n5_fields = None
        if layout == "n5":
            n5_fields = (reader.integer(f"the first N5 field of {group}"),
                         reader.integer(f"the second N5 field of {group}"))
        member_count = reader.count(f"the number of troopers in {group}", MAX_MEMBERS_PER_GROUP)
        members = tuple(_read_member(reader, f"member {member_index} of {group}")
                        for member_index in range(1, member_count + 1))
        groups.append(CombatGroup(number, members, n5_fields))
    if reader.position != len(data):
        raise reader.fail(reader.position, "the end of the code",
                          f"{len(data) - reader.position} more bytes follow")
    return ArmyCode(layout, faction_id, faction_slug, list_name, points_limit, tuple(groups))


def decode_army_code(text: str) -> ArmyCode:
    """The ``ArmyCode`` that ``text`` (an army code as a player pastes it) holds.

    Raises ``ArmyCodeError`` for anything else: text that is not Base64, too long, a link
    or id of a list saved on the builder's server, or a stream that neither layout reads
    exactly. When neither layout reads it, the error reported is the one found further into
    the stream (the N5 one on a tie): the layout that got further is the likelier one."""
    data = _stream_from_text(text)
    try:
        return _read(data, "n5")
    except ArmyCodeError as n5_error:
        try:
            return _read(data, "n4")
        except ArmyCodeError as n4_error:
            if (n4_error.offset or 0) > (n5_error.offset or 0):
                raise n4_error from None
            raise n5_error from None


# --- encoding ---------------------------------------------------------------------------


def _refuse(expected: str, problem: str) -> ArmyCodeError:
    return ArmyCodeError(f"Cannot write this army code: {expected} {problem}.",
                         offset=None, expected=expected)


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def integer(self, value: int, expected: str) -> None:
        if not 0 <= value <= MAX_INTEGER:
            raise _refuse(expected, f"is {value}, outside 0-{MAX_INTEGER}")
        if value < 0x80:
            self.out.append(value)
        else:
            self.out += bytes((0x80 | (value >> 8), value & 0xFF))

    def count(self, value: int, maximum: int, expected: str) -> None:
        if value > maximum:
            raise _refuse(expected, f"is {value}, more than the {maximum} allowed")
        self.integer(value, expected)

    def string(self, text: str, expected: str) -> None:
        raw = text.encode("utf-8")
        if len(raw) > MAX_STRING_BYTES:
            raise _refuse(expected, f"is {len(raw)} bytes, more than the {MAX_STRING_BYTES} allowed")
        self.integer(len(raw), expected)
        self.out += raw


def encode_army_code(code: ArmyCode) -> str:
    """The army code (padded standard Base64) for ``code``; ``decode_army_code`` reads it back.

    Raises ``ArmyCodeError`` (offset None) for a value the stream cannot hold: an integer
    outside 0-32767, a string or count over its limit, customisation text that is not JSON,
    or groups whose N5 fields do not match ``code.layout``."""
    writer = _Writer()
    writer.integer(code.faction_id, "the faction id")
    writer.string(code.faction_slug, "the faction name")
    writer.string(code.list_name, "the list's name")
    writer.integer(code.points_limit, "the points limit")
    writer.count(len(code.combat_groups), MAX_COMBAT_GROUPS, "the number of combat groups")
    for group_index, group in enumerate(code.combat_groups, start=1):
        name = f"combat group {group_index}"
        writer.integer(group.number, f"the number of {name}")
        if (group.n5_fields is None) != (code.layout == "n4"):
            raise _refuse(f"the N5 fields of {name}",
                          f"must be {'absent' if code.layout == 'n4' else 'present'} "
                          f"in the {code.layout} layout")
        if group.n5_fields is not None:
            writer.integer(group.n5_fields[0], f"the first N5 field of {name}")
            writer.integer(group.n5_fields[1], f"the second N5 field of {name}")
        writer.count(len(group.members), MAX_MEMBERS_PER_GROUP, f"the number of troopers in {name}")
        for member_index, member in enumerate(group.members, start=1):
            where = f"member {member_index} of {name}"
            writer.out.append(0)
            writer.integer(member.unit_id, f"the unit id of {where}")
            writer.integer(member.profile_group_id, f"the profile-group id of {where}")
            writer.integer(member.option_id, f"the option id of {where}")
            writer.out.append(0)
            writer.count(len(member.customisations), MAX_CUSTOMISATIONS,
                         f"the number of customisations of {where}")
            for index, customisation in enumerate(member.customisations, start=1):
                field = f"customisation {index} of {where}"
                writer.integer(customisation.kind, f"the kind of {field}")
                problem = _json_problem(customisation.json_text)
                if problem is not None:
                    raise _refuse(f"the JSON text of {field}", problem)
                writer.string(customisation.json_text, f"the JSON text of {field}")
    return base64.b64encode(bytes(writer.out)).decode("ascii")
