"""One trooper of the army data (``DataTrooper``) as an army document's inline profile, with
its weapons and what the referee does not play (docs/armies.md, "From an army code to a
list").

The figures come from ``unit_profile_fields``; the flags from the item catalogue
(``item_catalogue``) over the profile's and option's skills and equipment, plus the
option's orders (LIEUTENANT: the Lieutenant; TACTICAL: Tactical Awareness; IMPETUOUS:
Impetuous); the weapons from ``weapon_conversion``; customisations from ``customisations``.

Implementation module: no rule section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.rules.armies.army_code import Customisation
from server.rules.armies.army_data import ArmyData, DataTrooper, unit_profile_fields
from server.rules.armies.army_data_records import ItemRef
from server.rules.armies.customisations import DataNames, read_customisations
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item, settle_camouflage
from server.rules.armies.not_refereed import ItemKind, NotRefereed
from server.rules.armies.profiles import TroopType
from server.rules.armies.weapon_conversion import convert_weapon
from server.rules.plain import to_plain

_ORDER_FLAGS = {"TACTICAL": "tactical_awareness", "IMPETUOUS": "impetuous"}
_TRAINING_ORDERS = ("REGULAR", "IRREGULAR")


class TrooperConversionError(ValueError):
    """A trooper the engine cannot field at all; ``problem`` says why, in a player's words."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


@dataclass(frozen=True, slots=True)
class ConvertedTrooper:
    """``profile``: the inline profile (plain JSON); for a Peripheral without orders it has
    no ``training`` yet (the list gives it its Controller's). ``weapons``: the engine weapons
    its profile names, plain. ``not_refereed``: what the referee does not play."""

    profile: dict[str, Any]
    weapons: tuple[dict[str, Any], ...]
    not_refereed: tuple[NotRefereed, ...]
    lieutenant: bool
    peripheral: bool


def data_names(data: ArmyData) -> DataNames:
    metadata = data.read_metadata
    return DataNames(skills=metadata.skills, equips=metadata.equips,
                     weapons={wid: weapon.name for wid, weapon in metadata.weapons.items()},
                     extra_name=data.extra_name)


def _items(data: ArmyData, refs: Sequence[ItemRef], kind: ItemKind) -> list[DataItem]:
    return [DataItem(kind, ref.name,
                     tuple(text for text in (data.extra_name(x) for x in ref.extras) if text))
            for ref in refs]


def convert_trooper(data: ArmyData, trooper: DataTrooper,
                    customisations: Sequence[Customisation] = ()) -> ConvertedTrooper:
    """The engine's view of ``trooper``; ``TrooperConversionError`` when it has no Order
    and is not a Peripheral (the engine cannot give it one without inventing it)."""
    customised = read_customisations(customisations, data_names(data))
    flags = TrooperFlags()
    notes: list[NotRefereed] = []
    items = (_items(data, trooper.skills, ItemKind.SKILL)
             + _items(data, trooper.equips, ItemKind.EQUIPMENT) + customised.items)
    for item in items:
        note = apply_item(item, flags)
        if note is not None:
            notes.append(note)
    camouflage = settle_camouflage(flags)
    if camouflage is not None:
        notes.append(camouflage)
    notes.extend(_orders(trooper, flags))
    weapons: dict[str, dict[str, Any]] = {}
    seen: set[int] = set()
    for ref in (*trooper.weapons, *customised.weapons):
        if ref.id in seen:
            continue
        seen.add(ref.id)
        converted = convert_weapon(data.weapon(ref.id), data.read_metadata.ammunitions)
        weapons.update((weapon["id"], weapon) for weapon in converted.weapons)
        notes.extend(converted.not_refereed)
    notes.extend(customised.not_refereed)
    if trooper.training is None and not flags.peripheral:
        raise TrooperConversionError(
            f"{trooper.name} brings no Order and is not a Peripheral, so the referee cannot "
            f"field it.")
    profile = _profile(trooper, flags, tuple(weapons), customised.stats)
    return ConvertedTrooper(profile, tuple(weapons.values()), tuple(notes),
                            flags.lieutenant, flags.peripheral)


def _orders(trooper: DataTrooper, flags: TrooperFlags) -> list[NotRefereed]:
    notes: list[NotRefereed] = []
    for order in trooper.orders:
        if order.total <= 0:
            continue
        if order.type == "LIEUTENANT":
            flags.lieutenant = True
        elif order.type in _ORDER_FLAGS:
            flags.fields[_ORDER_FLAGS[order.type]] = True
        elif order.type in _TRAINING_ORDERS:
            if order.total > 1:
                kind = order.type.title()
                notes.append(NotRefereed(ItemKind.ORDER, f"more than one {kind} Order",
                                         f"{order.total} {kind} Orders", "played as one"))
        else:
            label = f"{order.type.title()} Order"
            notes.append(NotRefereed(ItemKind.ORDER, label, label))
    return notes


def _profile(trooper: DataTrooper, flags: TrooperFlags, weapon_ids: tuple[str, ...],
             raises: dict[str, int]) -> dict[str, Any]:
    fields = unit_profile_fields(trooper)
    for name, by in raises.items():
        value = fields[name]
        if isinstance(value, int):
            fields[name] = value + by
    if flags.peripheral:
        fields["troop_type"] = TroopType.PERIPHERAL
    plain = to_plain(fields)
    if not isinstance(plain, dict):
        raise TypeError("a profile's plain form is an object")
    # The id and name never carry the option: the option (e.g. "Lieutenant") is private.
    profile: dict[str, Any] = {
        "id": f"u{trooper.unit_id}-g{trooper.group_id}", "name": trooper.name, **plain,
        **{name: value for name, value in sorted(flags.fields.items())},
        "weapons": list(weapon_ids),
    }
    return profile
