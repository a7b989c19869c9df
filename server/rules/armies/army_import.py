"""An army code plus the operator's army data -> the project's army document
(docs/armies.md, "From an army code to a list").

``army_document_from_code`` decodes the code (``army_code``), resolves every member's ids
against the data (``ArmyData.trooper``), converts each trooper (``trooper_conversion``) and
writes the document ``load_army_list`` reads: one entry per member with an inline
``profile``, ``combat_group``, ``lieutenant``, ``controller`` for a Peripheral and
``not_refereed``; a ``weapons`` section with the converted weapons; ``points`` from the
code, ``format`` as asked, ``faction`` the faction's name, ``name`` the list's name and an
``id`` derived from the code; for an N5 list, ``fireteam_chart`` from the faction's
Fireteams Chart when the data has one (``army_data_chart``). It does not judge the list
(Lieutenants, points, group sizes): ``load_army_list`` does, naming the problem.

Every failure is an ``ArmyImportError`` with one sentence a player understands: a damaged
code names the byte offset and the field expected; an id the data lacks names the member and
its combat group.

Implementation module: no rule section.
"""

from __future__ import annotations

import hashlib
from typing import Any

from server.rules.armies.army_code import ArmyCode, ArmyCodeError, decode_army_code
from server.rules.armies.army_data import ArmyData, ArmyDataError
from server.rules.armies.army_data_chart import chart_document
from server.rules.armies.army_list import ListFormat
from server.rules.armies.not_refereed import item_texts
from server.rules.armies.trooper_conversion import (
    ConvertedTrooper,
    TrooperConversionError,
    convert_trooper,
)

ID_PREFIX = "code-"
DATA_HINT = ("The server's army data may be older or newer than the army builder's; the "
             "server's operator can update it.")


class ArmyImportError(ValueError):
    """An army code that cannot become an army document; ``problem`` is one sentence a
    player understands (the byte and field of a damaged code, or the member whose ids the
    army data lacks)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


def army_document_from_code(text: str, data: ArmyData, list_format: ListFormat) -> dict[str, Any]:
    """The army document for the army code ``text`` (as a player pastes it)."""
    try:
        code = decode_army_code(text)
    except ArmyCodeError as error:
        raise ArmyImportError(str(error)) from None
    faction = _faction_name(code, data)
    entries: list[dict[str, Any]] = []
    weapons: dict[str, dict[str, Any]] = {}
    for group_index, group in enumerate(code.combat_groups, start=1):
        if group.number < 1:
            raise ArmyImportError(
                f"The army code's combat group {group_index} is numbered {group.number}; "
                f"combat groups are numbered from 1.")
        controller: dict[str, Any] | None = None
        for member_index, member in enumerate(group.members, start=1):
            where = f"member {member_index} of combat group {group.number}"
            converted = _member(code, data, where, member.unit_id, member.profile_group_id,
                                member.option_id, member.customisations)
            entry = _entry(f"t{len(entries) + 1}", group.number, converted)
            if converted.peripheral:
                _attach(entry, controller, where, converted)
            else:
                controller = entry
            entries.append(entry)
            weapons.update((weapon["id"], weapon) for weapon in converted.weapons)
    document: dict[str, Any] = {
        "id": document_id(code),
        "name": code.list_name.strip() or f"{faction} list",
        "faction": faction,
        "format": list_format.value,
        "points": code.points_limit,
        "weapons": [weapons[weapon_id] for weapon_id in sorted(weapons)],
        "entries": entries,
    }
    chart = data.fireteam_chart(code.faction_id)
    # CodeOne has no Fireteams (a chart is refused there); N5 lists take the faction's own.
    if chart is not None and list_format is ListFormat.STANDARD:
        document["fireteam_chart"] = chart_document(chart, data.units(code.faction_id))
    return document


def document_id(code: ArmyCode) -> str:
    """``code-`` and a short hash of the code's open header (faction, list name, points
    limit). Never of its troopers: the opponent and a tournament's public page see the id,
    and a hash of the whole code would let them confirm a guess of a private fact (which
    option is the Lieutenant, a Hidden Deployment trooper) by hashing candidate codes."""
    header = f"{code.faction_id}\x00{code.faction_slug}\x00{code.list_name}\x00{code.points_limit}"
    digest = hashlib.sha256(header.encode("utf-8")).hexdigest()
    return f"{ID_PREFIX}{digest[:12]}"


def _faction_name(code: ArmyCode, data: ArmyData) -> str:
    named = f" ({code.faction_slug})" if code.faction_slug.strip() else ""
    try:
        faction = data.faction(code.faction_id)
    except ArmyDataError:
        raise ArmyImportError(
            f"This army code is for faction {code.faction_id}{named}, which the server's army "
            f"data does not have. {DATA_HINT}") from None
    if code.faction_id not in data.faction_ids:
        raise ArmyImportError(
            f"The server's army data knows the faction {faction.name} but has none of its "
            f"units, so this army code cannot be read. {DATA_HINT}")
    return faction.name


def _member(code: ArmyCode, data: ArmyData, where: str, unit_id: int, group_id: int,
            option_id: int, customisations: Any) -> ConvertedTrooper:
    try:
        trooper = data.trooper(code.faction_id, unit_id, group_id, option_id)
        return convert_trooper(data, trooper, customisations)
    except ArmyDataError as error:
        raise ArmyImportError(
            f"The army code's {where} (unit {unit_id}, profile group {group_id}, option "
            f"{option_id}) cannot be found in the server's army data: {error.problem} "
            f"{DATA_HINT}") from None
    except TrooperConversionError as error:
        raise ArmyImportError(f"The army code's {where}: {error.problem}") from None


def _entry(entry_id: str, group: int, converted: ConvertedTrooper) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": entry_id, "profile": converted.profile,
                             "combat_group": group}
    if converted.lieutenant:
        entry["lieutenant"] = True
    entry["not_refereed"] = item_texts(converted.not_refereed)
    return entry


def _attach(entry: dict[str, Any], controller: dict[str, Any] | None, where: str,
            converted: ConvertedTrooper) -> None:
    """A Peripheral's Controller is the nearest trooper before it in its combat group that is
    not a Peripheral (the builder lists a Peripheral right after the trooper that brings it;
    docs/rules-decisions/armies.md, "The Controller of a Peripheral"). Without orders of its
    own, it takes its Controller's training."""
    if controller is None:
        raise ArmyImportError(
            f"The army code's {where} ({converted.profile['name']}) is a Peripheral with no "
            f"trooper before it in its combat group to control it.")
    entry["controller"] = controller["id"]
    entry["profile"].setdefault("training", controller["profile"]["training"])
