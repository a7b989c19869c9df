"""The operator's army data: the army builder's documents, indexed and converted.

The official army builder describes every unit in JSON documents the project may not ship:
a *metadata* document (factions, ammunitions, weapons by mode, skills, equipment, hacking
programs) and one document per faction (``units`` -> ``profileGroups`` -> ``profiles`` and
``options``). A server's operator supplies them (``REFEREE_ARMY_DATA``, docs/armies.md,
"Operator army data"); the tests use an invented dataset of the same shape
(``testkit/army_data/``).

This module is pure: it takes documents already parsed from JSON (``server/node/army_data_folder.py``
reads a folder), validates the parts the referee uses, refusing the first problem with the
document and the path to the field (``ArmyDataError``), and indexes them. ``ArmyData.trooper``
resolves one trooper (faction, unit, profile group, option: the four ids of an army code)
into the figures the engine needs (``DataTrooper``), with MOV in inches
(``mov_inches``, docs/rules-decisions/armies.md, "MOV from centimetres").

Mapping the data's skills, equipment and weapons onto the engine's own is not done here:
a trooper carries them as references (``ItemRef``) with their names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from server.rules.armies.profiles import Training, TroopType

# Limits against huge documents: far above any real army book, low enough that a hostile or
# broken folder cannot make the index unbounded.
MAX_FACTIONS = 500
MAX_METADATA_ITEMS = 20_000
MAX_UNITS = 2_000
MAX_GROUPS_PER_UNIT = 100
MAX_PROFILES_PER_GROUP = 50
MAX_OPTIONS_PER_GROUP = 500
MAX_REFS = 200
MAX_EXTRAS = 50
MAX_TEXT = 500
MAX_ID = 1_000_000
MAX_CM = 100
NO_VALUE = 255
"""What the data writes for a characteristic a profile has none of (a dash on the printed
profile). Read as a value; a trooper needing it is refused (``ArmyData.trooper``)."""

TROOP_TYPES: Mapping[int, TroopType] = {
    1: TroopType.LI,
    2: TroopType.MI,
    3: TroopType.HI,
    4: TroopType.TAG,
    5: TroopType.REM,
    6: TroopType.SK,
    7: TroopType.WB,
}
"""The data's ``type`` 1-7, in the army builder's order."""

DISTANCE_BANDS = ("short", "med", "long", "max")
CM_PER_INCH = Decimal("2.5")
_MOD_TEXT = re.compile(r"[+-]?[0-9]{1,3}")


class ArmyDataError(ValueError):
    """The operator's army data is malformed, or an id is not in it.

    ``problem`` is one sentence naming the document, the path to the field and what is wrong
    (or the id that was not found).
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


@dataclass(frozen=True, slots=True)
class ItemRef:
    """A reference from a profile or option to a skill, piece of equipment or weapon:
    the data's id, its name from the metadata, the quantity ``q`` and the ``extra`` ids
    (e.g. the level of a skill or a weapon's variant)."""

    id: int
    name: str
    quantity: int
    extras: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DistanceBand:
    name: str
    max_cm: int
    mod: int


@dataclass(frozen=True, slots=True)
class WeaponMode:
    """One mode of a weapon as the metadata gives it. ``burst``, ``damage`` and ``saving``
    stay text: the data writes attributes ("PH") and dashes there as well as numbers."""

    mode: str
    burst: str
    damage: str
    saving: str
    ammunition: int | None
    distance: tuple[DistanceBand, ...]
    properties: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DataWeapon:
    id: int
    name: str
    modes: tuple[WeaponMode, ...]


@dataclass(frozen=True, slots=True)
class Faction:
    id: int
    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class Order:
    """An entry of an option's ``orders``: its type as the data writes it (REGULAR,
    IRREGULAR, IMPETUOUS, LIEUTENANT, TACTICAL...) and how many."""

    type: str
    total: int


@dataclass(frozen=True, slots=True)
class Profile:
    id: int
    name: str
    move_cm: tuple[int, int]
    cc: int
    bs: int
    ph: int
    wip: int
    arm: int
    bts: int
    w: int
    s: int
    structure: bool
    type: int
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


@dataclass(frozen=True, slots=True)
class Option:
    id: int
    name: str
    points: int
    swc: Decimal
    orders: tuple[Order, ...]
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


@dataclass(frozen=True, slots=True)
class ProfileGroup:
    id: int
    name: str
    profiles: tuple[Profile, ...]
    options: tuple[Option, ...]


@dataclass(frozen=True, slots=True)
class Unit:
    id: int
    name: str
    groups: tuple[ProfileGroup, ...]


@dataclass(frozen=True, slots=True)
class DataTrooper:
    """One trooper resolved from the data: a unit's profile group and one of its options,
    converted to the engine's figures.

    ``mov`` is in inches (``mov_inches``). ``vita`` is W, or STR when ``structure`` is true.
    ``training`` comes from the option's orders (a REGULAR order: regular; an IRREGULAR one:
    irregular); None when the option brings no order (a peripheral). The skills, equipment
    and weapons are the profile's followed by the option's own.
    """

    faction_id: int
    unit_id: int
    group_id: int
    option_id: int
    profile_id: int
    name: str
    option_name: str
    mov: tuple[int, int]
    cc: int
    bs: int
    ph: int
    wip: int
    arm: int
    bts: int
    vita: int
    structure: bool
    silhouette: int
    troop_type: TroopType
    training: Training | None
    orders: tuple[Order, ...]
    cost: int
    swc: float
    skills: tuple[ItemRef, ...]
    equips: tuple[ItemRef, ...]
    weapons: tuple[ItemRef, ...]


def mov_inches(cm: int) -> int:
    """A MOV value from centimetres to whole inches: 2.5 cm to the inch, to the nearest inch
    and halves up (10 -> 4, 15 -> 6, 5 -> 2, 12 -> 5, 11 -> 4)."""
    quotient = Decimal(cm) / CM_PER_INCH
    return int(quotient.to_integral_value(rounding="ROUND_HALF_UP"))


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
    elif isinstance(raw, str) and _MOD_TEXT.fullmatch(raw.strip()):
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
class _Metadata:
    factions: Mapping[int, Faction]
    ammunitions: Mapping[int, str]
    weapons: Mapping[int, DataWeapon]
    skills: Mapping[int, str]
    equips: Mapping[int, str]
    hack: Mapping[int, str]


def _metadata(raw: Any) -> _Metadata:
    reader = _Reader("metadata")
    document = reader.obj(raw, "the document")
    factions: dict[int, Faction] = {}
    for index, item in enumerate(reader.seq(document, "factions", "", MAX_FACTIONS)):
        path = f"factions[{index}]"
        entry = reader.obj(item, path)
        faction_id = reader.number(entry, "id", path)
        factions[faction_id] = Faction(faction_id, reader.text(entry, "name", path),
                                       reader.text(entry, "slug", path, default=""))
    lists = {key: reader.seq(document, key, "", MAX_METADATA_ITEMS, required=key != "hack")
             for key in ("ammunitions", "weapons", "skills", "equips", "hack")}
    return _Metadata(
        factions=factions,
        ammunitions=_named(lists["ammunitions"], reader, "ammunitions"),
        weapons=_weapons(reader, lists["weapons"]),
        skills=_named(lists["skills"], reader, "skills"),
        equips=_named(lists["equips"], reader, "equips"),
        hack=_named(lists["hack"], reader, "hack"),
    )


class _FactionReader:
    """Reads one faction document against the metadata's names."""

    def __init__(self, faction_id: int, metadata: _Metadata) -> None:
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
        _unique_ids([p.id for p in profiles], reader, f"{path}.profiles")
        _unique_ids([o.id for o in options], reader, f"{path}.options")
        return ProfileGroup(reader.number(entry, "id", path),
                            reader.text(entry, "isco", path, default=""), profiles, options)

    def unit(self, raw: Any, path: str) -> Unit:
        reader = self.reader
        entry = reader.obj(raw, path)
        groups = tuple(self.group(item, f"{path}.profileGroups[{index}]") for index, item in
                       enumerate(reader.seq(entry, "profileGroups", path,
                                             MAX_GROUPS_PER_UNIT)))
        _unique_ids([g.id for g in groups], reader, f"{path}.profileGroups")
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


def _unique_ids(ids: list[int], reader: _Reader, path: str) -> None:
    seen: set[int] = set()
    for value in ids:
        if value in seen:
            raise reader.fail(path, f"has id {value} twice")
        seen.add(value)


class ArmyData:
    """The operator's army data, validated and indexed; lookups raise ``ArmyDataError``
    naming the id that is missing."""

    def __init__(self, metadata: Any, factions: Mapping[int, Any]) -> None:
        """``metadata``: the parsed metadata document; ``factions``: each faction's parsed
        document by faction id. Raises ``ArmyDataError`` on the first problem."""
        self._metadata = _metadata(metadata)
        if len(factions) > MAX_FACTIONS:
            raise ArmyDataError(f"{len(factions)} faction documents, more than the limit of "
                                f"{MAX_FACTIONS}.")
        self._units: dict[int, dict[int, Unit]] = {}
        for faction_id, raw in factions.items():
            if faction_id not in self._metadata.factions:
                raise ArmyDataError(f"faction {faction_id}: the metadata lists no faction "
                                    f"with this id.")
            reader = _FactionReader(faction_id, self._metadata)
            document = reader.reader.obj(raw, "the document")
            units = reader.reader.seq(document, "units", "", MAX_UNITS)
            parsed = [reader.unit(item, f"units[{index}]") for index, item in enumerate(units)]
            _unique_ids([unit.id for unit in parsed], reader.reader, "units")
            self._units[faction_id] = {unit.id: unit for unit in parsed}

    @property
    def faction_ids(self) -> tuple[int, ...]:
        """The factions that have a document (the metadata may list more)."""
        return tuple(sorted(self._units))

    def faction(self, faction_id: int) -> Faction:
        found = self._metadata.factions.get(faction_id)
        if found is None:
            raise ArmyDataError(f"The army data has no faction {faction_id}.")
        return found

    def units(self, faction_id: int) -> tuple[Unit, ...]:
        return tuple(self._faction_units(faction_id).values())

    def _faction_units(self, faction_id: int) -> dict[int, Unit]:
        faction = self.faction(faction_id)
        units = self._units.get(faction_id)
        if units is None:
            raise ArmyDataError(f"The army data has no document for faction {faction_id} "
                                f"({faction.name}).")
        return units

    def unit(self, faction_id: int, unit_id: int) -> Unit:
        found = self._faction_units(faction_id).get(unit_id)
        if found is None:
            raise ArmyDataError(f"Faction {faction_id} has no unit {unit_id}.")
        return found

    def profile_group(self, faction_id: int, unit_id: int, group_id: int) -> ProfileGroup:
        unit = self.unit(faction_id, unit_id)
        for group in unit.groups:
            if group.id == group_id:
                return group
        raise ArmyDataError(f"Unit {unit_id} ({unit.name}) of faction {faction_id} has no "
                            f"profile group {group_id}.")

    def option(self, faction_id: int, unit_id: int, group_id: int, option_id: int) -> Option:
        group = self.profile_group(faction_id, unit_id, group_id)
        for option in group.options:
            if option.id == option_id:
                return option
        unit = self.unit(faction_id, unit_id)
        raise ArmyDataError(f"Profile group {group_id} of unit {unit_id} ({unit.name}) of "
                            f"faction {faction_id} has no option {option_id}.")

    def weapon(self, weapon_id: int) -> DataWeapon:
        found = self._metadata.weapons.get(weapon_id)
        if found is None:
            raise ArmyDataError(f"The army data has no weapon {weapon_id}.")
        return found

    def ammunition_name(self, ammunition_id: int) -> str:
        found = self._metadata.ammunitions.get(ammunition_id)
        if found is None:
            raise ArmyDataError(f"The army data has no ammunition {ammunition_id}.")
        return found

    def trooper(self, faction_id: int, unit_id: int, group_id: int,
                option_id: int) -> DataTrooper:
        """The trooper an army code's four ids name, in the engine's figures. Its profile is
        the group's first (a group's further profiles are the other bodies of one trooper,
        e.g. a transformation, which this conversion does not cover)."""
        unit = self.unit(faction_id, unit_id)
        group = self.profile_group(faction_id, unit_id, group_id)
        option = self.option(faction_id, unit_id, group_id, option_id)
        where = f"Unit {unit_id} ({unit.name}) of faction {faction_id}, profile group {group_id}"
        if not group.profiles:
            raise ArmyDataError(f"{where} has no profile.")
        profile = group.profiles[0]
        missing = [label for label, value in (
            ("MOV", profile.move_cm[0]), ("MOV", profile.move_cm[1]), ("CC", profile.cc),
            ("BS", profile.bs), ("PH", profile.ph), ("WIP", profile.wip), ("ARM", profile.arm),
            ("BTS", profile.bts), ("W/STR", profile.w)) if value == NO_VALUE]
        if missing:
            raise ArmyDataError(f"{where}: the profile has no value for "
                                f"{', '.join(dict.fromkeys(missing))}, which the engine needs.")
        return DataTrooper(
            faction_id=faction_id, unit_id=unit_id, group_id=group_id, option_id=option_id,
            profile_id=profile.id,
            name=profile.name or group.name or unit.name,
            option_name=option.name,
            mov=(mov_inches(profile.move_cm[0]), mov_inches(profile.move_cm[1])),
            cc=profile.cc, bs=profile.bs, ph=profile.ph, wip=profile.wip,
            arm=profile.arm, bts=profile.bts,
            vita=profile.w, structure=profile.structure, silhouette=profile.s,
            troop_type=TROOP_TYPES[profile.type],
            training=_training(option.orders),
            orders=option.orders,
            cost=option.points, swc=float(option.swc),
            skills=profile.skills + option.skills,
            equips=profile.equips + option.equips,
            weapons=profile.weapons + option.weapons,
        )


def _training(orders: tuple[Order, ...]) -> Training | None:
    types = {order.type for order in orders if order.total > 0}
    if "REGULAR" in types:
        return Training.REGULAR
    if "IRREGULAR" in types:
        return Training.IRREGULAR
    return None


def unit_profile_fields(trooper: DataTrooper) -> dict[str, object]:
    """The ``UnitProfile`` fields the data gives directly, by the profile's field names.

    Left to the caller: ``id`` and ``name`` (the list's own), the skill flags
    (``hacker``, ``camouflage``, ``hidden_deployment``...) and ``weapons``, which need the
    data's skills, equipment and weapons mapped onto the engine's; and ``training`` when the
    option has no order (None here, so it is not among these fields).
    """
    fields: dict[str, object] = {
        "mov": trooper.mov, "cc": trooper.cc, "bs": trooper.bs, "ph": trooper.ph,
        "wip": trooper.wip, "arm": trooper.arm, "bts": trooper.bts,
        "vita": trooper.vita, "structure": trooper.structure,
        "silhouette": trooper.silhouette, "troop_type": trooper.troop_type,
        "cost": trooper.cost, "swc": trooper.swc,
    }
    if trooper.training is not None:
        fields["training"] = trooper.training
    return fields
