"""The Classified Objectives deck as data: ``data/missions/classified-deck.json``, format
``infinity-referee-classified-deck/1`` (docs/missions-classified.md).

Each card names how it is achieved (``achieved_by.kind``):

* judged by the referee from the game, with no player's action:
  - when a trooper dies (``KILL_KINDS``): ``kill_in_close_combat``, ``kill_in_home_zone``,
    ``kill_specialist``, ``kill_by_specialist``;
  - whenever the table shows it (``ANYTIME_KINDS``): ``specialist_in_contact``;
  - at the end of the game (``GAME_END_KINDS``): ``survive_in_enemy_zone``,
    ``lieutenant_survives``;
* ``action``: a Short Skill the card's holder declares (``classified_action``), a Normal WIP
  Roll at ``wip_mod`` by a trooper ``who`` may make it ("any", "specialist"), against the
  ``target`` the card needs ("none", "enemy_in_contact", "enemy_unconscious_in_contact",
  "ally_in_contact"), standing ``where`` the card says ("anywhere", "enemy_zone"); with
  ``engaged`` true the card says its Short Skill may be declared in Engaged State (the
  wiki's "Engaged State": Skills that say so), else an Engaged trooper may not use it.

A card lists the rulesets it belongs to; one id may appear twice with disjoint rulesets
(the same card, written differently for each). Reading never guesses: a document that is
not exactly this shape raises ``ClassifiedDeckError`` naming the card and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..ruleset import Ruleset

FORMAT = "infinity-referee-classified-deck/1"

KILL_KINDS = frozenset({"kill_in_close_combat", "kill_in_home_zone", "kill_specialist",
                        "kill_by_specialist"})
ANYTIME_KINDS = frozenset({"specialist_in_contact"})
GAME_END_KINDS = frozenset({"survive_in_enemy_zone", "lieutenant_survives"})
ACTION = "action"
KINDS = KILL_KINDS | ANYTIME_KINDS | GAME_END_KINDS | {ACTION}

WHO = ("any", "specialist")
TARGETS = ("none", "enemy_in_contact", "enemy_unconscious_in_contact", "ally_in_contact")
WHERE = ("anywhere", "enemy_zone")
MAX_WIP_MOD = 12
"""A card's WIP MOD is kept to what a roll can mean (|mod| below a whole d20)."""


class ClassifiedDeckError(ValueError):
    """The deck document is not a valid ``infinity-referee-classified-deck/1``."""


@dataclass(frozen=True, slots=True)
class Achievement:
    """How a card is achieved (the module's docstring lists the kinds)."""

    kind: str
    who: str = "any"
    target: str = "none"
    where: str = "anywhere"
    wip_mod: int = 0
    engaged: bool = False

    @property
    def is_action(self) -> bool:
        return self.kind == ACTION


@dataclass(frozen=True, slots=True)
class CardDefinition:
    id: str
    title: str
    text: str
    rulesets: tuple[Ruleset, ...]
    achieved_by: Achievement


Deck = tuple[CardDefinition, ...]


def load_deck(document: Any) -> dict[Ruleset, Deck]:
    """The deck of each ruleset, in the document's order."""
    if not isinstance(document, Mapping):
        raise ClassifiedDeckError("the deck document must be a JSON object")
    if document.get("format") != FORMAT:
        raise ClassifiedDeckError(f"format: expected {FORMAT!r}, found {document.get('format')!r}")
    cards = document.get("cards")
    if not isinstance(cards, list) or not cards:
        raise ClassifiedDeckError("cards: expected a non-empty list of cards")
    decks: dict[Ruleset, list[CardDefinition]] = {ruleset: [] for ruleset in Ruleset}
    for index, raw in enumerate(cards):
        card = _card(raw, f"cards[{index}]")
        for ruleset in card.rulesets:
            if any(other.id == card.id for other in decks[ruleset]):
                raise ClassifiedDeckError(
                    f"cards[{index}] ({card.id}): a second card with this id in the "
                    f"{ruleset.value} deck")
            decks[ruleset].append(card)
    return {ruleset: tuple(deck) for ruleset, deck in decks.items()}


def _card(raw: Any, where: str) -> CardDefinition:
    if not isinstance(raw, Mapping):
        raise ClassifiedDeckError(f"{where}: expected an object")
    card_id = _text(raw, "id", where)
    where = f"{where} ({card_id})"
    unknown = set(raw) - {"id", "title", "text", "rulesets", "achieved_by"}
    if unknown:
        raise ClassifiedDeckError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    rulesets = raw.get("rulesets")
    known = [ruleset.value for ruleset in Ruleset]
    if (not isinstance(rulesets, list) or not rulesets
            or not all(isinstance(r, str) and r in known for r in rulesets)
            or len(set(rulesets)) != len(rulesets)):
        raise ClassifiedDeckError(f"{where}.rulesets: expected a list of distinct rulesets "
                                  f"among {known}, found {rulesets!r}")
    return CardDefinition(card_id, _text(raw, "title", where), _text(raw, "text", where),
                          tuple(Ruleset(r) for r in rulesets),
                          _achievement(raw.get("achieved_by"), f"{where}.achieved_by"))


def _text(raw: Mapping[str, Any], name: str, where: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ClassifiedDeckError(f"{where}.{name}: expected a non-empty text, found {value!r}")
    return value


def _achievement(raw: Any, where: str) -> Achievement:
    if not isinstance(raw, Mapping):
        raise ClassifiedDeckError(f"{where}: expected an object with a kind")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ClassifiedDeckError(f"{where}.kind: expected one of {sorted(KINDS)}, found {kind!r}")
    if kind != ACTION:
        if set(raw) != {"kind"}:
            raise ClassifiedDeckError(f"{where}: a {kind} card has no field but kind "
                                      f"(found {sorted(set(raw) - {'kind'})})")
        return Achievement(kind)
    unknown = set(raw) - {"kind", "who", "target", "where", "wip_mod", "engaged"}
    if unknown:
        raise ClassifiedDeckError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    who, target, place = raw.get("who"), raw.get("target"), raw.get("where")
    for name, value, allowed in (("who", who, WHO), ("target", target, TARGETS),
                                 ("where", place, WHERE)):
        if value not in allowed:
            raise ClassifiedDeckError(f"{where}.{name}: expected one of {list(allowed)}, "
                                      f"found {value!r}")
    mod = raw.get("wip_mod")
    if isinstance(mod, bool) or not isinstance(mod, int) or abs(mod) > MAX_WIP_MOD:
        raise ClassifiedDeckError(f"{where}.wip_mod: expected a whole number from "
                                  f"-{MAX_WIP_MOD} to {MAX_WIP_MOD}, found {mod!r}")
    engaged = raw.get("engaged", False)
    if not isinstance(engaged, bool):
        raise ClassifiedDeckError(f"{where}.engaged: expected true or false, found {engaged!r}")
    return Achievement(ACTION, str(who), str(target), str(place), mod, engaged)


@cache
def _shipped() -> dict[Ruleset, Deck]:
    text = resources.files("server.rules.data").joinpath("missions").joinpath("classified-deck.json")
    return load_deck(json.loads(text.read_text(encoding="utf-8")))


def shipped_deck(ruleset: Ruleset) -> Deck:
    """The shipped deck of ``ruleset`` (read and checked once per process)."""
    return _shipped()[ruleset]


def card_definition(ruleset: Ruleset, card_id: str) -> CardDefinition | None:
    return next((card for card in shipped_deck(ruleset) if card.id == card_id), None)
