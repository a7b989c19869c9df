"""A trooper's customisations from an army code (the builder's JSON text, e.g.
``[{"type":"stat","stat":"bts","q":2}]`` or ``[{"type":"skill","id":28,"extra":[6]}]``),
read into what the conversion applies: a raise of a characteristic the engine has, an added
skill, piece of equipment or weapon from the army data; anything else is not refereed
(docs/rules-decisions/armies.md, "Per-trooper customisations").

Implementation module: no rule section.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.rules.armies.army_code import Customisation
from server.rules.armies.army_data_records import ItemRef
from server.rules.armies.item_catalogue import DataItem
from server.rules.armies.not_refereed import ItemKind, NotRefereed, shorten

STATS: Mapping[str, str] = {
    "cc": "cc", "bs": "bs", "ph": "ph", "wip": "wip", "arm": "arm", "bts": "bts",
    "w": "vita", "vita": "vita", "str": "vita",
}
"""The builder's stat names -> the engine profile's field they raise."""
MAX_RAISE = 20


@dataclass(slots=True)
class Customised:
    """What a trooper's customisations add: ``stats`` (profile field -> how much it rises),
    added ``items`` (skills, equipment) and ``weapons``, and what is not refereed."""

    stats: dict[str, int] = field(default_factory=dict)
    items: list[DataItem] = field(default_factory=list)
    weapons: list[ItemRef] = field(default_factory=list)
    not_refereed: list[NotRefereed] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DataNames:
    """The army data's names the customisations refer to by id."""

    skills: Mapping[int, str]
    equips: Mapping[int, str]
    weapons: Mapping[int, str]
    extra_name: Callable[[int], str | None]


def read_customisations(customisations: Sequence[Customisation], names: DataNames) -> Customised:
    found = Customised()
    for customisation in customisations:
        try:
            value = json.loads(customisation.json_text)
        except (ValueError, RecursionError):  # the decoder refuses these; kept safe
            value = None
        entries = value if isinstance(value, list) else [value]
        for entry in entries:
            if not _read_entry(entry, names, found):
                found.not_refereed.append(_unknown(json.dumps(entry, separators=(",", ":"))))
    return found


def _unknown(text: str) -> NotRefereed:
    return NotRefereed(ItemKind.CUSTOMISATION, "unknown customisation",
                       f"Customisation {shorten(text, 80)}")


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _read_entry(entry: Any, names: DataNames, found: Customised) -> bool:
    """Add what ``entry`` says to ``found``; False when it is not understood at all."""
    if not isinstance(entry, dict):
        return False
    kind = entry.get("type")
    if kind == "stat":
        return _stat(entry, found)
    item_id = _whole(entry.get("id"))
    if kind not in ("skill", "equip", "equipment", "weapon") or item_id is None:
        return False
    extras = entry.get("extra", [])
    extra_ids = [x for x in extras if _whole(x) is not None] if isinstance(extras, list) else []
    if kind == "weapon":
        name = names.weapons.get(item_id)
        if name is None:
            found.not_refereed.append(_missing("weapon", item_id))
        else:
            found.weapons.append(ItemRef(item_id, name, 1, tuple(extra_ids)))
        return True
    table, item_kind = ((names.skills, ItemKind.SKILL) if kind == "skill"
                        else (names.equips, ItemKind.EQUIPMENT))
    name = table.get(item_id)
    if name is None:
        found.not_refereed.append(_missing(item_kind.value, item_id))
        return True
    levels = tuple(text for text in (names.extra_name(x) for x in extra_ids) if text)
    found.items.append(DataItem(item_kind, name, levels))
    return True


def _missing(kind: str, item_id: int) -> NotRefereed:
    return NotRefereed(ItemKind.CUSTOMISATION, f"added {kind} missing from the data",
                       f"Added {kind} {item_id}, which the server's army data does not have")


def _stat(entry: Mapping[str, Any], found: Customised) -> bool:
    stat, raise_by = entry.get("stat"), _whole(entry.get("q"))
    if not isinstance(stat, str) or raise_by is None:
        return False
    target = STATS.get(stat.strip().casefold())
    if target is None or abs(raise_by) > MAX_RAISE:
        found.not_refereed.append(NotRefereed(
            ItemKind.CUSTOMISATION, f"{stat} raise", f"Customisation {raise_by:+d} {stat.upper()}"))
        return True
    found.stats[target] = found.stats.get(target, 0) + raise_by
    return True
