"""The army a tournament registration brings (docs/tournaments.md, "Registering"): a shipped
list's id, a list document (docs/armies.md) or an Infinity Army code expanded with the
operator's army data. Checked at registration as a game checks a brought list (the same
loader, the shipped weapons, the tournament's list format and points limit), and stored as
the checked document, so the round's rooms never need the code or the data again.

Also what the organizer sees of a registration (``review``): valid or its first problem, the
list's name, faction, limit and cost, and its coverage (the troopers with items the referee
does not play, the entries' ``not_refereed``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.rooms.rules_engine import ArmyCodeReader, ArmyCodeRefused
from server.rules.armies.army_catalogue import load_weapons, sample_armies
from server.rules.armies.army_code import MAX_TEXT_LENGTH
from server.rules.armies.army_list import ArmyList, ArmyListError, load_army_list
from server.rules.armies.army_selection import NO_ARMY_DATA_MESSAGE, list_format_for
from server.rules.ruleset import Ruleset
from server.tournaments.refusals import Refused

MAX_DOCUMENT_BYTES = 16 * 1024
"""A list document as JSON, at most: what a seat may send inline in one websocket frame
(the contract of issue 35), so a registered list is never one a table could not take."""
SOURCES = ("army", "list", "code")


@dataclass(frozen=True, slots=True)
class BroughtArmy:
    army: str
    """What the seat chooses at the table: the shipped list's id, or the document's ``id``."""
    source: str
    """"army" (a shipped list), "list" (a document sent) or "code" (an army code expanded)."""
    document: Mapping[str, Any] | None
    """The checked army document (None for a shipped list)."""


def brought_army(body: Mapping[str, Any], *, ruleset: str, point_limit: int,
                 read_code: ArmyCodeReader | None) -> BroughtArmy:
    """The registration's army from exactly one of ``army``, ``list`` and ``code``;
    ``Refused`` (``bad_field``, ``bad_army_list``, ``no_army_data``) naming the first
    problem. ``read_code``: the server's army code reader, the rooms' own (None: the server
    has no army data)."""
    given = [name for name in SOURCES if name in body]
    if len(given) != 1:
        raise Refused("bad_field", "give exactly one of army (a shipped list's id, GET "
                      "/api/armies), list (an army document, docs/armies.md) or code (an "
                      "Infinity Army code)")
    list_format = list_format_for(Ruleset(ruleset))
    if given == ["army"]:
        army_id = body["army"]
        if not isinstance(army_id, str):
            raise Refused("bad_field", "army must be an army id (GET /api/armies)")
        why = shipped_problem(army_id, ruleset, point_limit)
        if why is not None:
            raise Refused("bad_field", f"army: {why}")
        return BroughtArmy(army_id, "army", None)
    if given == ["list"]:
        document = body["list"]
        if not isinstance(document, dict):
            raise Refused("bad_army_list", "list must be an army document: a JSON object "
                          "(docs/armies.md)")
        source = "list"
    else:
        text = body["code"]
        if not isinstance(text, str) or not text.strip():
            raise Refused("bad_army_list", "code must be the army code's text, as the army "
                          "builder exports it")
        if len(text) > MAX_TEXT_LENGTH:  # the decoder's own limit, checked before the data
            raise Refused("bad_army_list", f"the army code is {len(text)} characters long, "
                          f"more than any list needs ({MAX_TEXT_LENGTH})")
        if read_code is None:
            raise Refused("no_army_data", NO_ARMY_DATA_MESSAGE)
        try:
            document = dict(read_code(text.strip(), list_format))
        except ArmyCodeRefused as refused:
            raise Refused("bad_army_list", f"army code: {refused.problem}") from None
        source = "code"
    problem = list_problem(document, ruleset, point_limit)
    if problem is not None:
        raise Refused("bad_army_list", problem)
    return BroughtArmy(str(document["id"]), source, document)


def shipped_problem(army_id: str, ruleset: str, point_limit: int) -> str | None:
    """Why a tournament of ``ruleset`` and ``point_limit`` does not take the shipped list
    ``army_id`` (None: it does)."""
    army = sample_armies().get(army_id)
    if army is None:
        return f"there is no army '{army_id[:60]}' (GET /api/armies lists them)"
    if army.format is not list_format_for(Ruleset(ruleset)):
        return f"'{army_id}' is not a list of the {ruleset} format"
    if army.points > point_limit:
        return f"'{army_id}' is {army.points} points, over the limit of {point_limit}"
    return None


def list_problem(document: Mapping[str, Any], ruleset: str, point_limit: int) -> str | None:
    """The first problem of a list document in a tournament of ``ruleset`` and
    ``point_limit``, in a player's words (None: it is a legal list there)."""
    problem, _ = _checked(_canonical(document), ruleset, point_limit)
    return problem


def _canonical(document: Mapping[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=512)
def _checked(text: str, ruleset: str, point_limit: int) -> tuple[str | None, ArmyList | None]:
    """The first problem, or the loaded list. Kept by the document's text: the organizer's
    dashboard is read every few seconds and checks each registration again (a list valid
    at registration may not be after the server's rules or weapons changed)."""
    size = len(text.encode())
    if size > MAX_DOCUMENT_BYTES:
        return (f"the list is {size} bytes of JSON, more than the {MAX_DOCUMENT_BYTES} a "
                "table takes"), None
    document = json.loads(text)
    try:
        army = load_army_list(document, load_weapons())
    except ArmyListError as error:
        return error.problems[0], None
    wanted = list_format_for(Ruleset(ruleset))
    if army.format is not wanted:
        return (f"'{army.name}' is a {army.format.value} list; this tournament plays "
                f"{wanted.value} lists"), None
    if army.points > point_limit:
        return (f"'{army.name}' is a list of {army.points} points, over the tournament's "
                f"limit of {point_limit}"), None
    return None, army


def review(document: Mapping[str, Any] | None, army_id: str, ruleset: str,
           point_limit: int) -> dict[str, Any]:
    """What the organizer (and the registration's own player) sees of its army: ``valid``
    and ``problem``, ``list`` (name, faction, format, points limit, cost, SWC, troopers and
    the roster: who leads, each trooper's group and cost: Private Information, never shown
    to other players) and ``coverage``
    (``troopers``: how many carry items the referee does not play; ``items``: per such
    trooper, its entry id, its unit's name and the items)."""
    if document is None:
        problem = shipped_problem(army_id, ruleset, point_limit)
        army = None if problem is not None else sample_armies()[army_id]
    else:
        problem, army = _checked(_canonical(document), ruleset, point_limit)
    if army is None:
        header = document or {}
        return {"valid": False, "problem": problem,
                "list": {"id": army_id, "name": _text(header.get("name")) or army_id,
                         "faction": _text(header.get("faction"))},
                "coverage": None}
    items = [{"entry": entry.id, "unit": entry.profile.name,
              "not_refereed": list(entry.not_refereed)}
             for entry in army.entries if entry.not_refereed]
    roster = [{"entry": entry.id, "unit": entry.profile.name,
               "combat_group": entry.combat_group, "lieutenant": entry.lieutenant,
               "cost": entry.profile.cost, "swc": entry.profile.swc,
               "not_refereed": list(entry.not_refereed)} for entry in army.entries]
    return {"valid": True, "problem": None,
            "list": {"id": army.id, "name": army.name, "faction": army.faction,
                     "format": army.format.value, "points": army.points,
                     "cost": army.total_cost(), "swc": army.total_swc(),
                     "troopers": len(army.entries), "roster": roster},
            "coverage": {"troopers": len(items), "items": items}}


def _text(value: Any) -> str | None:
    return value[:80] if isinstance(value, str) else None
