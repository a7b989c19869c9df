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
a trooper carries them as references (``ItemRef``) with their names. The records live in
``army_data_records``, the checked reading of the documents in ``army_data_reading``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.rules.armies.army_data_chart import DataFireteamChart, read_fireteam_chart
from server.rules.armies.army_data_reading import FactionReader, read_metadata, unique_ids
from server.rules.armies.army_data_records import (
    MAX_FACTIONS,
    MAX_REFS,
    MAX_UNITS,
    NO_VALUE,
    TROOP_TYPES,
    ArmyDataError,
    DataTrooper,
    DataWeapon,
    Faction,
    Option,
    Order,
    ProfileGroup,
    Unit,
    mov_inches,
)
from server.rules.armies.profiles import Training

__all__ = ["MAX_FACTIONS", "MAX_REFS", "NO_VALUE", "ArmyData", "ArmyDataError", "DataTrooper",
           "mov_inches", "unit_profile_fields"]




class ArmyData:
    """The operator's army data, validated and indexed; lookups raise ``ArmyDataError``
    naming the id that is missing."""

    def __init__(self, metadata: Any, factions: Mapping[int, Any]) -> None:
        """``metadata``: the parsed metadata document; ``factions``: each faction's parsed
        document by faction id. Raises ``ArmyDataError`` on the first problem."""
        self.read_metadata = read_metadata(metadata)
        if len(factions) > MAX_FACTIONS:
            raise ArmyDataError(f"{len(factions)} faction documents, more than the limit of "
                                f"{MAX_FACTIONS}.")
        self._units: dict[int, dict[int, Unit]] = {}
        self._charts: dict[int, DataFireteamChart] = {}
        for faction_id, raw in factions.items():
            if faction_id not in self.read_metadata.factions:
                raise ArmyDataError(f"faction {faction_id}: the metadata lists no faction "
                                    f"with this id.")
            reader = FactionReader(faction_id, self.read_metadata)
            document = reader.reader.obj(raw, "the document")
            units = reader.reader.seq(document, "units", "", MAX_UNITS)
            parsed = [reader.unit(item, f"units[{index}]") for index, item in enumerate(units)]
            unique_ids([unit.id for unit in parsed], reader.reader, "units")
            self._units[faction_id] = {unit.id: unit for unit in parsed}
            chart = read_fireteam_chart(document, reader.reader.document)
            if chart is not None:
                self._charts[faction_id] = chart

    @property
    def faction_ids(self) -> tuple[int, ...]:
        """The factions that have a document (the metadata may list more)."""
        return tuple(sorted(self._units))

    def faction(self, faction_id: int) -> Faction:
        found = self.read_metadata.factions.get(faction_id)
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

    def fireteam_chart(self, faction_id: int) -> DataFireteamChart | None:
        """The faction's Fireteams Chart (``army_data_chart``), or None when its document
        has none."""
        return self._charts.get(faction_id)

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
        found = self.read_metadata.weapons.get(weapon_id)
        if found is None:
            raise ArmyDataError(f"The army data has no weapon {weapon_id}.")
        return found

    def ammunition_name(self, ammunition_id: int) -> str:
        found = self.read_metadata.ammunitions.get(ammunition_id)
        if found is None:
            raise ArmyDataError(f"The army data has no ammunition {ammunition_id}.")
        return found

    def extra_name(self, extra_id: int) -> str | None:
        """The text an ``extra`` id stands for ("-3", "L1"), or None when the metadata's
        ``extras`` list (optional) does not name it."""
        return self.read_metadata.extras.get(extra_id)

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
