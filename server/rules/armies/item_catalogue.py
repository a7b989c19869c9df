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
from server.rules.armies.profiles import FORWARD_DEPLOYMENT_REACHES

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

    fields: dict[str, bool | int | list[str]] = field(default_factory=dict)
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


def _specialist(name: str) -> Callable[[DataItem, TrooperFlags], NotRefereed | None]:
    """A Specialist skill (combat/support_skills.py, combat/forward_observer.py): the skill is
    played; a variant written as its level ("Doctor (2W)", "Engineer (ReRoll WIP=12)") is
    not, and is named so the players know it is played as the plain skill."""
    def apply(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
        flags.fields[name] = True
        if split_level(item.name)[1] or item.levels:
            return item.not_refereed("played as the plain skill: its variant is not refereed")
        return None
    return apply


def _minelayer(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    """Minelayer, or "Minelayer (2)": how many Mines it places as it deploys."""
    written = (*split_level(item.name)[1], *item.levels)
    counts = [int(text.strip()) for text in written if text.strip().isdigit()]
    if len(written) > len(counts) or len(counts) > 1 or (counts and counts[0] < 1):
        flags.fields["minelayer"] = 1
        return item.not_refereed("played as Minelayer (1): its level is not read")
    flags.fields["minelayer"] = counts[0] if counts else 1
    return None


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


_GUIDED = re.compile(r"^\(?\s*guided\b", re.IGNORECASE)


def _ecm(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # issue 36, what changes what a trooper sees: ECM (Hacker -3/-6) sets ``ecm_hacker``;
    # ECM (Guided ...) has nothing to act on (the engine has no Guided attacks).
    written = (*split_level(item.name)[1], *item.levels)
    for text in written:
        found = _ECM_HACKER.match(text.strip())
        if found is not None and int(found.group("value")) in MIMETISM_LEVELS:
            flags.fields["ecm_hacker"] = int(found.group("value"))
            return None
    if any(_GUIDED.match(text.strip()) for text in written):
        return item.not_refereed("no effect here: no weapon or Hacking Program in these games "
                                 "makes Guided attacks, so there is nothing for it to protect against")
    return item.not_refereed("played without it: the referee plays ECM (Hacker -3 or -6) only")


def _camouflage(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    flags.camouflage = item
    flags.camouflage_level = mimetism_level((*split_level(item.name)[1], *item.levels))
    return None


_INCHES = re.compile(r"^\+?\s*(?P<inches>\d+)\s*(?:\"|''|in(?:ches)?)?$", re.IGNORECASE)


def _forward_deployment(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # Deployment skills (issue 36): the reach in inches is the level ("+4\"", "+8\"").
    for text in (*split_level(item.name)[1], *item.levels):
        found = _INCHES.match(text.strip())
        if found is not None and int(found.group("inches")) in FORWARD_DEPLOYMENT_REACHES:
            flags.fields["forward_deployment"] = int(found.group("inches"))
            return None
    return item.not_refereed("played without it: the referee plays Forward Deployment +4\" or +8\" only")


_TERRAIN_TYPES = {"aquatic": ["aquatic"], "desert": ["desert"], "jungle": ["jungle"],
                  "mountain": ["mountain"], "zero-g": ["zero_g"], "zero g": ["zero_g"],
                  "zerog": ["zero_g"],
                  "total": ["aquatic", "desert", "jungle", "mountain", "zero_g"]}
"""A Terrain skill's written Type -> the Types of Terrain it masters (orders/terrain_skill.py)."""


def _terrain(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    # Terrain (issue 36): one Type, or Total; several Types are a choice the player makes
    # as the trooper deploys (``terrain_choice``, orders/terrain_skill.py;
    # docs/rules-decisions/deployment-skills.md "Terrain").
    written = [part.strip().lower() for text in (*split_level(item.name)[1], *item.levels)
               for part in re.split(r"[,/]| or ", text) if part.strip()]
    if not written or any(w not in _TERRAIN_TYPES for w in written) \
            or (len(written) > 1 and "total" in written):
        return item.not_refereed("played without it: the referee knows the Types Aquatic, "
                                 "Desert, Jungle, Mountain, Zero-G and Total")
    if len(written) == 1:
        flags.fields["terrain"] = list(_TERRAIN_TYPES[written[0]])
    else:
        flags.fields["terrain_choice"] = list(dict.fromkeys(
            t for w in written for t in _TERRAIN_TYPES[w]))
    return None


_IMMUNITY_CATEGORIES = {
    "shock": "Shock", "ap": "AP", "da": "DA", "exp": "EXP", "t2": "T2", "e/m": "E/M",
    "stun": "Stun", "total": "total", "isolated": "isolated", "iso": "isolated",
    "immobilized-b": "immobilized_b", "imm-b": "immobilized_b", "stunned": "stunned",
}
"""An Immunity's written category -> the name ``combat/immunity.py`` reads."""


def _add_immunity(flags: TrooperFlags, category: str) -> None:
    held = flags.fields.get("immunities")
    known = list(held) if isinstance(held, list) else []
    if category not in known:
        flags.fields["immunities"] = [*known, category]


def _immunity(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    written = (*split_level(item.name)[1], *item.levels)
    # Immunity (Possessed): the engine has no Possessed State (no program here causes it).
    possessed = [text for text in written if normalise(text) in ("possessed", "pos")]
    categories = [_IMMUNITY_CATEGORIES.get(normalise(text)) for text in written
                  if text not in possessed]
    if None in categories or not (categories or possessed):
        return item.not_refereed("played without it: the referee plays Immunity against an "
                                 "ammunition, Isolated, Immobilized-B, Stunned or Total")
    for category in categories:
        if category is not None:
            _add_immunity(flags, category)
    if possessed:
        return item.not_refereed("no effect here: no Hacking Program in these games can make a "
                                 "trooper Possessed, so there is nothing for it to protect against")
    return None


def _shock_immunity(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    _add_immunity(flags, "Shock")
    return None


_LEVEL = re.compile(r"^L(?P<level>\d)$", re.IGNORECASE)


def _levelled(field_name: str, levels: range,
              skill: str) -> Callable[[DataItem, TrooperFlags], NotRefereed | None]:
    """A skill with numbered Levels ("Martial Arts L2"): its Level into ``field_name``."""
    def apply(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
        written = (*split_level(item.name)[1], *item.levels)
        found = [int(m.group("level")) for text in written if (m := _LEVEL.match(text.strip()))]
        if len(found) != 1 or found[0] not in levels:
            return item.not_refereed(f"played without it: the referee plays {skill} "
                                     f"L{levels.start} to L{levels.stop - 1}")
        flags.fields[field_name] = found[0]
        return None
    return apply


_SIGNED_MOD = re.compile(r"^(?P<value>[+-]\d{1,2})$")


def _dodge(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    """"Dodge (+3)" / "Dodge (-3)": a MOD to its Dodge (``combat/dodge_skill_mods.py``)."""
    written = (*split_level(item.name)[1], *item.levels)
    found = [int(m.group("value")) for text in written if (m := _SIGNED_MOD.match(text.strip()))]
    if len(found) != 1 or len(written) != 1 or found[0] == 0:
        return item.not_refereed("played without it: the referee plays a Dodge MOD such as "
                                 "+3 or -3 only")
    flags.fields["dodge_mod"] = found[0]
    return None


def _berserk(item: DataItem, flags: TrooperFlags) -> NotRefereed | None:
    """"Berserk" (no MOD) or "Berserk (+3)": the MOD its CC Attack takes (orders/berserk.py)."""
    written = (*split_level(item.name)[1], *item.levels)
    found = [int(m.group("value")) for text in written if (m := _SIGNED_MOD.match(text.strip()))]
    if len(found) != len(written) or len(found) > 1:
        return item.not_refereed("played without it: the referee plays Berserk with no MOD "
                                 "or one MOD in brackets, such as Berserk (+3)")
    flags.fields["berserk"] = True
    flags.fields["berserk_mod"] = found[0] if found else 0
    return None


CATALOGUE: dict[str, Callable[[DataItem, TrooperFlags], NotRefereed | None]] = {
    "lieutenant": _lieutenant,
    # Fireteams (issue 36 part 1): the Fireteam types a trooper may join (orders/fireteams.py).
    "fireteam: core": _flag("fireteam_core"),
    "fireteam: haris": _flag("fireteam_haris"),
    "fireteam: duo": _flag("fireteam_duo"),
    "hacker": _flag("hacker"),
    "hacking device": _flag("hacker"),
    "camouflage": _camouflage,
    "mimetism": _mimetism,
    "multispectral visor": _multispectral_visor,  # issue 36, what changes what a trooper sees
    "ecm": _ecm,  # issue 36, what changes what a trooper sees
    "hidden deployment": _flag("hidden_deployment"),
    "impetuous": _flag("impetuous"),
    # -- issue 36, fighting skills --
    "no wound incapacitation": _flag("nwi"),
    "nwi": _flag("nwi"),
    "dogged": _flag("dogged"),
    "courage": _flag("courage"),
    "immunity": _immunity,
    "shock immunity": _shock_immunity,
    "martial arts": _levelled("martial_arts", range(1, 6), "Martial Arts"),
    "total reaction": _flag("total_reaction"),
    # -- issue 36, Berserk: "Berserk" or "Berserk (+3)" (orders/berserk.py); Warhorse --
    "berserk": _berserk,
    "warhorse": _flag("warhorse"),
    "nanoscreen": _flag("nanoscreen"),
    "dodge": _dodge,
    "tactical awareness": _flag("tactical_awareness"),
    "sixth sense": _flag("sixth_sense"),
    "combat jump": _flag("combat_jump"),
    "airborne deployment": _flag("combat_jump"),
    # Deployment skills (issue 36).
    "infiltration": _flag("infiltration"),
    "forward deployment": _forward_deployment,
    "chain of command": _flag("chain_of_command"),
    "climbing plus": _flag("climbing_plus"),
    "super-jump": _flag("super_jump"),
    "super jump": _flag("super_jump"),
    "terrain": _terrain,
    "repeater": _flag("repeater"),
    # issue 36, Specialist troopers
    "doctor": _specialist("doctor"),
    "paramedic": _specialist("paramedic"),
    "engineer": _specialist("engineer"),
    "forward observer": _specialist("forward_observer"),
    "specialist operative": _flag("specialist_operative"),
    # issue 36, Mines and Minelayer (combat/mines.py)
    "minelayer": _minelayer,
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
