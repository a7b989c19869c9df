"""The item catalogue: which of the army data's skills and equipment the referee plays, and
as which of the engine's profile flags (``UnitProfile``); docs/armies.md, "What the referee
knows".

Items are matched by name, not id (ids differ between data releases; names are the rules'
terms): case and runs of spaces do not matter, and a level written after the name
("Mimetism (-6)", "Lieutenant L2") or given by the reference's ``extra`` ids (their texts
come from the metadata's ``extras`` list) is read as the item's level. An item the catalogue
does not know becomes a ``NotRefereed`` record.

Implementation module: no rule section (it names the rules; the rules live elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.rules.armies.not_refereed import ItemKind, NotRefereed

_SPACES = re.compile(r"\s+")
_LEVEL_SUFFIX = re.compile(r"^(?P<base>.*?)\s*(?:\((?P<paren>[^()]*)\)|\s(?P<word>L\d+|[+-]\d+))$",
                           re.IGNORECASE)
_MIMETISM = re.compile(r"^\(?\s*-?\s*(?P<value>\d+)\s*\)?$")
MIMETISM_LEVELS = (3, 6)


def normalise(name: str) -> str:
    """A name as the catalogue compares it: case-folded, spaces collapsed."""
    return _SPACES.sub(" ", name).strip().casefold()


def split_level(name: str) -> tuple[str, tuple[str, ...]]:
    """The name without a level written after it, and that level:
    "Mimetism (-6)" -> ("Mimetism", ("-6",)); "Lieutenant L2" -> ("Lieutenant", ("L2",))."""
    cleaned = _SPACES.sub(" ", name).strip()
    found = _LEVEL_SUFFIX.match(cleaned)
    if found is None or not found.group("base"):
        return cleaned, ()
    level = found.group("paren") if found.group("paren") is not None else found.group("word")
    return found.group("base"), (level.strip(),) if level.strip() else ()


@dataclass(frozen=True, slots=True)
class DataItem:
    """One skill or piece of equipment of a trooper: its kind, its name as the data writes
    it and the texts of its levels (from the name and from its ``extra`` ids)."""

    kind: ItemKind
    name: str
    levels: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """As a player reads it on the profile: "Glare Visor L1"."""
        base, written = split_level(self.name)
        levels = list(dict.fromkeys((*written, *self.levels)))
        return " ".join([base, *levels])

    def not_refereed(self, consequence: str | None = None) -> NotRefereed:
        base = split_level(self.name)[0]
        if consequence is None:
            return NotRefereed(self.kind, base, self.label)
        return NotRefereed(self.kind, base, self.label, consequence)


@dataclass(slots=True)
class TrooperFlags:
    """What the mapped items say about a trooper, gathered item by item."""

    fields: dict[str, bool | int] = field(default_factory=dict)
    """``UnitProfile`` flags: hacker, hidden_deployment, mimetism..."""
    lieutenant: bool = False
    peripheral: bool = False
    camouflage: DataItem | None = None
    """Camouflage takes its value from the trooper's Mimetism, known only after every item
    is read (``settle_camouflage``)."""
    camouflage_level: int | None = None


def _flag(name: str) -> Callable[[DataItem, TrooperFlags], NotRefereed | None]:
    def apply(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
        flags.fields[name] = True
        return None
    return apply


def _lieutenant(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # A Lieutenant's level is never listed as not refereed: the list of items is open to the
    # opponent and the Lieutenant is Private Information (docs/rules-decisions/armies.md).
    flags.lieutenant = True
    return None


def _peripheral(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    flags.peripheral = True
    return None


def mimetism_level(levels: Sequence[str]) -> int | None:
    """The Mimetism MOD magnitude (3 or 6) the texts give, or None."""
    for text in levels:
        found = _MIMETISM.match(text.strip())
        if found is not None and int(found.group("value")) in MIMETISM_LEVELS:
            return int(found.group("value"))
    return None


def _mimetism(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    level = mimetism_level((*split_level(item.name)[1], *item.levels))
    if level is None:
        return item.not_refereed("played without it: the referee plays Mimetism -3 or -6 only")
    flags.fields["mimetism"] = level
    return None


_VISOR_LEVEL = re.compile(r"^L(?P<level>[123])$", re.IGNORECASE)


def _multispectral_visor(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # issue 36, what changes what a trooper sees: the level (L1-L3) sets the profile's
    # ``multispectral_visor``; a visor without a level the referee can read is not refereed.
    for text in (*split_level(item.name)[1], *item.levels):
        found = _VISOR_LEVEL.match(text.strip())
        if found is not None:
            flags.fields["multispectral_visor"] = int(found.group("level"))
            return None
    return item.not_refereed("played without it: the referee plays Multispectral Visor L1-L3 only")


_ECM_HACKER = re.compile(r"^\(?\s*hacker\s*-?\s*(?P<value>\d+)\s*\)?$", re.IGNORECASE)


def _ecm(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # issue 36, what changes what a trooper sees: ECM (Hacker -3/-6) sets ``ecm_hacker``;
    # ECM (Guided ...) has nothing to act on (the engine has no Guided attacks).
    for text in (*split_level(item.name)[1], *item.levels):
        found = _ECM_HACKER.match(text.strip())
        if found is not None and int(found.group("value")) in MIMETISM_LEVELS:
            flags.fields["ecm_hacker"] = int(found.group("value"))
            return None
    return item.not_refereed("played without it: the referee plays ECM (Hacker -3 or -6) only")


def _camouflage(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    flags.camouflage = item
    flags.camouflage_level = mimetism_level((*split_level(item.name)[1], *item.levels))
    return None


CATALOGUE: dict[str, Callable[[DataItem, TrooperFlags], NotRefereed | None]] = {
    "lieutenant": _lieutenant,
    "hacker": _flag("hacker"),
    "hacking device": _flag("hacker"),
    "camouflage": _camouflage,
    "mimetism": _mimetism,
    "multispectral visor": _multispectral_visor,  # issue 36, what changes what a trooper sees
    "ecm": _ecm,  # issue 36, what changes what a trooper sees
    "hidden deployment": _flag("hidden_deployment"),
    "impetuous": _flag("impetuous"),
    "tactical awareness": _flag("tactical_awareness"),
    "sixth sense": _flag("sixth_sense"),
    "combat jump": _flag("combat_jump"),
    "airborne deployment": _flag("combat_jump"),
    "repeater": _flag("repeater"),
    "peripheral": _peripheral,
}
"""Normalised item names (without levels) -> how the item sets the trooper's flags."""


def is_mapped(name: str) -> bool:
    return normalise(split_level(name)[0]) in CATALOGUE


def apply_item(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    """Set the flags ``item`` stands for, or return why it is not refereed."""
    handler = CATALOGUE.get(normalise(split_level(item.name)[0]))
    if handler is None:
        return item.not_refereed()
    return handler(item, flags)


def settle_camouflage(flags: TrooperFlags) -> NotRefereed | None:
    """Camouflage once every item is read: the engine's CAMO marker shows the trooper's
    Mimetism (3 or 6), so Camouflage takes the trooper's Mimetism, else a level written on
    the Camouflage itself (which then is its Mimetism too); without either it is not
    refereed (the trooper deploys as a model)."""
    if flags.camouflage is None:
        return None
    mimetism = flags.fields.get("mimetism")
    level = mimetism if isinstance(mimetism, int) and mimetism else flags.camouflage_level
    if not level:
        return flags.camouflage.not_refereed(
            "deployed as a model, not a marker: the referee plays Camouflage only with "
            "Mimetism -3 or -6")
    flags.fields["camouflage"] = level
    flags.fields["mimetism"] = level
    return None
