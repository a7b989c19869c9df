"""The army data's weapons as the engine's: each mode of a data weapon becomes one engine
``Weapon`` (``server/rules/armies/weapons.py``), or is left off and named as not refereed;
docs/armies.md, "From an army code to a list".

A mode converts when the engine can play all of its core: a whole-number Burst (at least 1)
and Damage (read as the weapon's PS, 0-20), an ammunition the engine knows
(``KNOWN_AMMUNITION``, matched by name), a save on ARM or BTS, and a kind: close combat
(the ``CC`` property), a Direct Template (a small or large teardrop property) or ballistic
(distance bands in centimetres, turned into inches at 2.5 cm to the inch, not rounded).
Properties the engine reads become traits or fields (Suppressive Fire, Throwing Weapon,
Disposable (n));
the others are kept as not refereed ("played without it") on a mode that converts.

Implementation module: no rule section (the rules the weapons follow live elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from server.rules.armies.army_data_records import CM_PER_INCH, DataWeapon, WeaponMode
from server.rules.armies.item_catalogue import normalise
from server.rules.armies.not_refereed import ItemKind, NotRefereed
from server.rules.armies.weapons import (
    KNOWN_AMMUNITION,
    MAX_PS,
    SAVE_ATTRIBUTES,
    ZONE_AMMUNITION,
    RangeBand,
    TemplateShape,
    Weapon,
    WeaponKind,
    weapon_problems,
)
from server.rules.ids import WeaponId
from server.rules.plain import to_plain

_WHOLE = re.compile(r"^\s*\d{1,3}\s*$")
_DISPOSABLE = re.compile(r"^disposable\s*\(\s*(?P<uses>\d{1,2})\s*\)$")
_AMMUNITION = {normalise(code): code for code in KNOWN_AMMUNITION}
_SAVES = {normalise(code): code for code in SAVE_ATTRIBUTES}
_TEMPLATES = {"small teardrop": TemplateShape.SMALL_TEARDROP,
              "large teardrop": TemplateShape.LARGE_TEARDROP}


@dataclass(frozen=True, slots=True)
class ConvertedWeapon:
    """A data weapon's modes as engine weapons (plain, as an army document's ``weapons``
    section holds them) and what of it is not refereed."""

    weapons: tuple[dict[str, Any], ...]
    not_refereed: tuple[NotRefereed, ...]


def weapon_id(data_weapon_id: int, mode_number: int) -> str:
    """The engine weapon id of a data weapon's mode (counted from 1 in data order)."""
    return f"w-{data_weapon_id}-{mode_number}"


def mode_name(weapon: DataWeapon, mode: WeaponMode) -> str:
    """"Arc Launcher (Shell)"; the weapon's name alone when the mode has no name."""
    return f"{weapon.name} ({mode.mode})" if mode.mode.strip() else weapon.name


class _LeftOff(Exception):
    """A mode the engine cannot play: ``reason`` completes "not carried: ..."; ``kind`` and
    ``name`` say what the coverage report counts (e.g. the ammunition "Burst Charge")."""

    def __init__(self, reason: str, name: str, kind: ItemKind = ItemKind.WEAPON) -> None:
        super().__init__(reason)
        self.reason = reason
        self.name = name
        self.kind = kind


def convert_weapon(weapon: DataWeapon, ammunition_names: Mapping[int, str]) -> ConvertedWeapon:
    """Every mode of ``weapon`` as an engine weapon, or left off with a not-refereed note."""
    weapons: list[dict[str, Any]] = []
    notes: list[NotRefereed] = []
    for number, mode in enumerate(weapon.modes, start=1):
        name = mode_name(weapon, mode)
        try:
            engine, properties = _convert_mode(weapon_id(weapon.id, number), name, mode,
                                               ammunition_names)
        except _LeftOff as left_off:
            notes.append(NotRefereed(left_off.kind, left_off.name, name,
                                     f"not carried: {left_off.reason}"))
            continue
        weapons.append(_plain(engine))
        notes.extend(NotRefereed(ItemKind.WEAPON_PROPERTY, prop, f"{name}: {prop}")
                     for prop in properties)
    return ConvertedWeapon(tuple(weapons), tuple(notes))


def _convert_mode(engine_id: str, name: str, mode: WeaponMode,
                  ammunition_names: Mapping[int, str]) -> tuple[Weapon, list[str]]:
    burst = _whole(mode.burst, "Burst")
    if burst < 1:
        raise _LeftOff("its Burst is 0", "Burst 0")
    # Smoke and Eclipse hit no one (combat/smoke.py): their Damage and save "-" are no fault.
    named = ammunition_names.get(mode.ammunition) if mode.ammunition is not None else None
    zone = (_AMMUNITION.get(normalise(named or "")) in ZONE_AMMUNITION
            and mode.damage.strip() in ("", "-"))
    ps = 0 if zone else _whole(mode.damage, "Damage")
    if ps > MAX_PS:
        raise _LeftOff(f"its Damage {ps} is above {MAX_PS}", f"Damage above {MAX_PS}")
    ammo = _ammunition(mode, ammunition_names)
    save = "ARM" if zone and mode.saving.strip() in ("", "-") else _SAVES.get(normalise(mode.saving))
    if save is None:
        raise _LeftOff(f"its save ({mode.saving}) is not on ARM or BTS", f"save {mode.saving}")
    kind = WeaponKind.BALLISTIC
    template: TemplateShape | None = None
    traits: list[str] = []
    disposable: int | None = None
    unread: list[str] = []
    direct_template = False
    for prop in mode.properties:
        key = normalise(prop)
        shape = next((shape for text, shape in _TEMPLATES.items() if text in key), None)
        uses = _DISPOSABLE.match(key)
        if key == "cc":
            kind = WeaponKind.CLOSE_COMBAT
        elif shape is not None:
            template, direct_template = shape, True
        elif key == "direct template":
            direct_template = True
        elif key == "suppressive fire":
            traits.append("suppressive_fire")
        elif key == "throwing weapon":
            traits.append("throwing_weapon")
        elif key in ("deployable", "concealed") and "mine" in normalise(name):
            # Mines (combat/mines.py): placed as a Camouflage Marker, going off by itself.
            if "mines" not in traits:
                traits.append("mines")
        elif ammo in ZONE_AMMUNITION and key in ("non-lethal", "targetless"):
            pass  # what Smoke and Eclipse are anyway (combat/smoke.py)
        elif uses is not None and int(uses.group("uses")) >= 1:
            disposable = int(uses.group("uses"))
        else:
            unread.append(prop.strip())
    if direct_template and kind is not WeaponKind.CLOSE_COMBAT:
        if template is None:
            raise _LeftOff("it is a Direct Template without a teardrop shape",
                           "Direct Template without a teardrop")
        kind = WeaponKind.DIRECT_TEMPLATE
    ranges = _ranges(mode) if kind is WeaponKind.BALLISTIC else ()
    engine = Weapon(id=WeaponId(engine_id), name=name, kind=kind, burst=burst, ps=ps, ammo=ammo,
                    ranges=ranges, template=template, disposable=disposable,
                    save_attribute=save, traits=tuple(traits))
    problems = weapon_problems(engine)
    if problems:  # every check above should prevent this; never hand the engine a bad weapon
        raise _LeftOff(problems[0], problems[0])
    return engine, unread


def _whole(text: str, label: str) -> int:
    if _WHOLE.match(text) is None:
        if text.strip() in ("", "-"):
            raise _LeftOff(f"it has no {label}", f"no {label}")
        raise _LeftOff(f"its {label} is {text.strip()}, which the referee cannot play",
                       f"{label} {text.strip()}")
    return int(text)


def _ammunition(mode: WeaponMode, ammunition_names: Mapping[int, str]) -> str:
    if mode.ammunition is None:
        raise _LeftOff("it names no ammunition", "no ammunition")
    name = ammunition_names.get(mode.ammunition)
    if name is None:
        raise _LeftOff(f"its ammunition {mode.ammunition} is not in the army data",
                       f"ammunition {mode.ammunition}", ItemKind.AMMUNITION)
    code = _AMMUNITION.get(normalise(name))
    if code is None:
        raise _LeftOff(f"the referee has no {name} ammunition", name, ItemKind.AMMUNITION)
    return code


def _ranges(mode: WeaponMode) -> tuple[RangeBand, ...]:
    """The distance bands in inches: a band's edge is its centimetres / 2.5, exactly (one
    decimal at most), so no distance changes band (docs/rules-decisions/armies.md)."""
    if not mode.distance:
        raise _LeftOff("it has no range", "no range")
    bands = tuple(RangeBand(float(Decimal(band.max_cm) / CM_PER_INCH), band.mod)
                  for band in mode.distance)
    edges = [band.up_to for band in bands]
    if edges[0] <= 0 or edges != sorted(set(edges)):
        raise _LeftOff("its range bands are not positive and ascending",
                       "range bands out of order")
    return bands


def _plain(weapon: Weapon) -> dict[str, Any]:
    """The weapon as an army document's ``weapons`` item, without empty optional fields."""
    plain = to_plain(weapon)
    if not isinstance(plain, dict):
        raise TypeError("a weapon's plain form is an object")
    return {key: value for key, value in plain.items() if value not in (None, [])}
