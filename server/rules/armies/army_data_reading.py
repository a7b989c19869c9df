"""Reading the army builder's documents into ``army_data_records``: each field the referee
uses is checked, and the first problem is refused with the document and the path to the
field (``ArmyDataError``). Pure: the documents arrive already parsed from JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from server.rules.armies.army_data_records import (
    DISTANCE_BANDS,
    MAX_CM,
    MAX_EXTRAS,
    MAX_FACTIONS,
    MAX_GROUPS_PER_UNIT,
    MAX_ID,
    MAX_METADATA_ITEMS,
    MAX_OPTIONS_PER_GROUP,
    MAX_PROFILES_PER_GROUP,
    MAX_REFS,
    MAX_TEXT,
    MOD_TEXT,
    NO_VALUE,
    ArmyDataError,
    DataWeapon,
    DistanceBand,
    Faction,
    ItemRef,
    Option,
    Order,
    Profile,
    ProfileGroup,
    Unit,
    WeaponMode,
)


class _Reader:
    """Reads typed fields of one document, naming the document and the path on failure."""

    def __init__(self, document: str) -> None:
        self.document = document

    def fail(self, path: str, problem: str) -> ArmyDataError:
        return ArmyDataError(f"{self.document}: {path} {problem}.")

    def obj(self, value: Any, path: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, "must be an object")
        return value

    def field(self, parent: Mapping[str, Any], key: str, path: str) -> Any:
        if key not in parent:
            raise self.fail(f"{path}.{key}" if path else key, "is missing")
        return parent[key]

    def seq(self, parent: Mapping[str, Any], key: str, path: str, limit: int,
             required: bool = True) -> Sequence[Any]:
        where = f"{path}.{key}" if path else key
        if key not in parent and not required:
            return ()
        value = self.field(parent, key, path)
        if not isinstance(value, list):
            raise self.fail(where, "must be a list")
        if len(value) > limit:
            raise self.fail(where, f"has {len(value)} entries, more than the limit of {limit}")
        return value

    def number(self, parent: Mapping[str, Any], key: str, path: str, low: int = 0,
            high: int = MAX_ID) -> int:
        value = self.field(parent, key, path)
        where = f"{path}.{key}" if path else key
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, "must be a whole number")
        if not low <= value <= high:
            raise self.fail(where, f"is {value}, outside {low}-{high}")
        return value

    def text(self, parent: Mapping[str, Any], key: str, path: str,
             default: str | None = None) -> str:
        if default is not None and parent.get(key) is None:
            return default
        value = self.field(parent, key, path)
        if not isinstance(value, str):
            raise self.fail(f"{path}.{key}", "must be text")
        if len(value) > MAX_TEXT:
            raise self.fail(f"{path}.{key}", f"is longer than {MAX_TEXT} characters")
        return value


def _named(items: Sequence[Any], reader: _Reader, key: str) -> dict[int, str]:
    names: dict[int, str] = {}
    for index, raw in enumerate(items):
        path = f"{key}[{index}]"
        item = reader.obj(raw, path)
        names[reader.number(item, "id", path)] = reader.text(item, "name", path)
    return names


def _distance(reader: _Reader, raw: Any, path: str) -> tuple[DistanceBand, ...]:
    if raw is None:
        return ()
    bands_in = reader.obj(raw, path)
    bands: list[DistanceBand] = []
    for name in DISTANCE_BANDS:
        band = bands_in.get(name)
        if band is None:
            continue
        where = f"{path}.{name}"
        band = reader.obj(band, where)
        bands.append(DistanceBand(name, reader.number(band, "max", where, 0, 1_000),
                                  _mod(reader, band, where)))
    return tuple(bands)


def _mod(reader: _Reader, band: Mapping[str, Any], path: str) -> int:
    raw = reader.field(band, "mod", path)
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, str) and MOD_TEXT.fullmatch(raw.strip()):
        value = int(raw.strip())
    else:
        raise reader.fail(f"{path}.mod", "must be a whole number such as +3, 0 or -6")
    if not -30 <= value <= 30:
        raise reader.fail(f"{path}.mod", f"is {value}, outside -30 to +30")
    return value


def _stat_text(reader: _Reader, mode: Mapping[str, Any], key: str, path: str) -> str:
    """burst/damage/saving: text or a number in the data; absent means none ("-")."""
    raw = mode.get(key, "-")
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise reader.fail(f"{path}.{key}", "must be text or a whole number")
    text = str(raw)
    if len(text) > MAX_TEXT:
        raise reader.fail(f"{path}.{key}", f"is longer than {MAX_TEXT} characters")
    return text


def _weapons(reader: _Reader, items: Sequence[Any]) -> dict[int, DataWeapon]:
    """Weapons by id. The data gives each mode of a weapon as its own entry under the
    weapon's id; the entries of one id are gathered in document order."""
    names: dict[int, str] = {}
    modes: dict[int, list[WeaponMode]] = {}
    for index, raw in enumerate(items):
        path = f"weapons[{index}]"
        entry = reader.obj(raw, path)
        weapon_id = reader.number(entry, "id", path)
        names.setdefault(weapon_id, reader.text(entry, "name", path))
        ammunition = entry.get("ammunition")
        if ammunition is not None:
            ammunition = reader.number(entry, "ammunition", path)
        properties = entry.get("properties", [])
        if not isinstance(properties, list) or not all(isinstance(p, str) for p in properties):
            raise reader.fail(f"{path}.properties", "must be a list of texts")
        if len(properties) > MAX_REFS:
            raise reader.fail(f"{path}.properties", f"has more than {MAX_REFS} entries")
        modes.setdefault(weapon_id, []).append(WeaponMode(
            mode=reader.text(entry, "mode", path, default=""),
            burst=_stat_text(reader, entry, "burst", path),
            damage=_stat_text(reader, entry, "damage", path),
            saving=_stat_text(reader, entry, "saving", path),
            ammunition=ammunition,
            distance=_distance(reader, entry.get("distance"), f"{path}.distance"),
            properties=tuple(properties),
        ))
    return {weapon_id: DataWeapon(weapon_id, names[weapon_id], tuple(found))
            for weapon_id, found in modes.items()}


@dataclass(frozen=True, slots=True)
class Metadata:
    factions: Mapping[int, Faction]
    ammunitions: Mapping[int, str]
    weapons: Mapping[int, DataWeapon]
    skills: Mapping[int, str]
    equips: Mapping[int, str]
    hack: Mapping[int, str]
    extras: Mapping[int, str]
    """The texts ``extra`` ids stand for (a level such as "-3" or "L1"), when the metadata
    has an ``extras`` list; empty when it has none."""


def read_metadata(raw: Any) -> Metadata:
    reader = _Reader("metadata")
    document = reader.obj(raw, "the document")
    factions: dict[int, Faction] = {}
    for index, item in enumerate(reader.seq(document, "factions", "", MAX_FACTIONS)):
        path = f"factions[{index}]"
        entry = reader.obj(item, path)
        faction_id = reader.number(entry, "id", path)
        factions[faction_id] = Faction(faction_id, reader.text(entry, "name", path),
                                       reader.text(entry, "slug", path, default=""))
    optional = ("hack", "extras")
    lists = {key: reader.seq(document, key, "", MAX_METADATA_ITEMS, required=key not in optional)
             for key in ("ammunitions", "weapons", "skills", "equips", "hack", "extras")}
    return Metadata(
        factions=factions,
        ammunitions=_named(lists["ammunitions"], reader, "ammunitions"),
        weapons=_weapons(reader, lists["weapons"]),
        skills=_named(lists["skills"], reader, "skills"),
        equips=_named(lists["equips"], reader, "equips"),
        hack=_named(lists["hack"], reader, "hack"),
        extras=_named(lists["extras"], reader, "extras"),
    )


class FactionReader:
    """Reads one faction document against the metadata's names."""

    def __init__(self, faction_id: int, metadata: Metadata) -> None:
        self.reader = _Reader(f"faction {faction_id}")
        self.metadata = metadata
        self.weapon_names = {wid: weapon.name for wid, weapon in metadata.weapons.items()}

    def refs(self, parent: Mapping[str, Any], key: str, path: str,
             names: Mapping[int, str], kind: str) -> tuple[ItemRef, ...]:
        reader = self.reader
        refs: list[ItemRef] = []
        for index, raw in enumerate(reader.seq(parent, key, path, MAX_REFS, required=False)):
            where = f"{path}.{key}[{index}]"
            entry = reader.obj(raw, where)
            ref_id = reader.number(entry, "id", where)
            if ref_id not in names:
                raise reader.fail(f"{where}.id", f"is {ref_id}, a {kind} the metadata lacks")
            quantity = reader.number(entry, "q", where, 0, 100) if "q" in entry else 1
            extras = reader.seq(entry, "extra", where, MAX_EXTRAS, required=False)
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in extras):
                raise reader.fail(f"{where}.extra", "must be a list of whole numbers")
            refs.append(ItemRef(ref_id, names[ref_id], quantity, tuple(extras)))
        return tuple(refs)

    def item_refs(self, parent: Mapping[str, Any], path: str) -> tuple[
            tuple[ItemRef, ...], tuple[ItemRef, ...], tuple[ItemRef, ...]]:
        return (self.refs(parent, "skills", path, self.metadata.skills, "skill"),
                self.refs(parent, "equip", path, self.metadata.equips, "piece of equipment"),
                self.refs(parent, "weapons", path, self.weapon_names, "weapon"))

    def profile(self, raw: Any, path: str) -> Profile:
        reader = self.reader
        entry = reader.obj(raw, path)
        move = reader.field(entry, "move", path)
        if (not isinstance(move, list) or len(move) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in move)
                or not all(0 <= v <= MAX_CM or v == NO_VALUE for v in move)):
            raise reader.fail(f"{path}.move",
                              f"must be two whole numbers of centimetres, 0-{MAX_CM} "
                              f"(or {NO_VALUE}: none)")
        structure = entry.get("str", False)
        if not isinstance(structure, bool):
            raise reader.fail(f"{path}.str", "must be true or false")
        troop_type = reader.number(entry, "type", path, 1, 7)
        skills, equips, weapons = self.item_refs(entry, path)
        return Profile(
            id=reader.number(entry, "id", path),
            name=reader.text(entry, "name", path, default=""),
            move_cm=(move[0], move[1]),
            cc=_characteristic(reader, entry, "cc", path),
            bs=_characteristic(reader, entry, "bs", path),
            ph=_characteristic(reader, entry, "ph", path),
            wip=_characteristic(reader, entry, "wip", path),
            arm=_characteristic(reader, entry, "arm", path),
            bts=_characteristic(reader, entry, "bts", path),
            w=_characteristic(reader, entry, "w", path),
            s=reader.number(entry, "s", path, 0, 8),
            structure=structure,
            type=troop_type,
            skills=skills, equips=equips, weapons=weapons,
        )

    def option(self, raw: Any, path: str) -> Option:
        reader = self.reader
        entry = reader.obj(raw, path)
        orders: list[Order] = []
        for index, item in enumerate(reader.seq(entry, "orders", path, MAX_REFS,
                                                 required=False)):
            where = f"{path}.orders[{index}]"
            order = reader.obj(item, where)
            orders.append(Order(reader.text(order, "type", where).upper(),
                                reader.number(order, "total", where, 0, 100)))
        skills, equips, weapons = self.item_refs(entry, path)
        return Option(
            id=reader.number(entry, "id", path),
            name=reader.text(entry, "name", path, default=""),
            points=reader.number(entry, "points", path, 0, 10_000),
            swc=_swc(reader, entry, path),
            orders=tuple(orders),
            skills=skills, equips=equips, weapons=weapons,
        )

    def group(self, raw: Any, path: str) -> ProfileGroup:
        reader = self.reader
        entry = reader.obj(raw, path)
        profiles = tuple(self.profile(item, f"{path}.profiles[{index}]") for index, item in
                         enumerate(reader.seq(entry, "profiles", path,
                                               MAX_PROFILES_PER_GROUP)))
        options = tuple(self.option(item, f"{path}.options[{index}]") for index, item in
                        enumerate(reader.seq(entry, "options", path, MAX_OPTIONS_PER_GROUP)))
        unique_ids([p.id for p in profiles], reader, f"{path}.profiles")
        unique_ids([o.id for o in options], reader, f"{path}.options")
        return ProfileGroup(reader.number(entry, "id", path),
                            reader.text(entry, "isco", path, default=""), profiles, options)

    def unit(self, raw: Any, path: str) -> Unit:
        reader = self.reader
        entry = reader.obj(raw, path)
        groups = tuple(self.group(item, f"{path}.profileGroups[{index}]") for index, item in
                       enumerate(reader.seq(entry, "profileGroups", path,
                                             MAX_GROUPS_PER_UNIT)))
        unique_ids([g.id for g in groups], reader, f"{path}.profileGroups")
        return Unit(reader.number(entry, "id", path), reader.text(entry, "name", path), groups)


def _characteristic(reader: _Reader, entry: Mapping[str, Any], key: str, path: str) -> int:
    value = reader.number(entry, key, path, 0, NO_VALUE)
    if 99 < value < NO_VALUE:
        raise reader.fail(f"{path}.{key}", f"is {value}, outside 0-99 (or {NO_VALUE}: none)")
    return value


def _swc(reader: _Reader, entry: Mapping[str, Any], path: str) -> Decimal:
    """SWC: the data writes it as text ("0.5") or a number; steps of 0.5, 0-20."""
    raw = reader.field(entry, "swc", path)
    try:
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            raise InvalidOperation
        value = Decimal(str(raw).strip())
    except InvalidOperation:
        raise reader.fail(f"{path}.swc", "must be a number such as 0, 0.5 or 1.5") from None
    if not value.is_finite() or not 0 <= value <= 20 or (value * 2) % 1:
        raise reader.fail(f"{path}.swc", f"is {raw}, not 0-20 in steps of 0.5")
    return value


def unique_ids(ids: list[int], reader: _Reader, path: str) -> None:
    seen: set[int] = set()
    for value in ids:
        if value in seen:
            raise reader.fail(path, f"has id {value} twice")
        seen.add(value)


