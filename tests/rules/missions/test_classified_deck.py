"""The Classified Objectives deck as data (docs/missions-classified.md): the shipped deck of
each ruleset and how a bad document is refused. Classified Objectives are drawn in the
ITS pre-game order of DIGEST 11.1 and score Objective Points (DIGEST 11.5)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from server.rules.missions.classified_deck import (
    FORMAT,
    KINDS,
    ClassifiedDeckError,
    load_deck,
    shipped_deck,
)
from server.rules.ruleset import Ruleset

DECK_FILE = Path(__file__).resolve().parents[3] / "server/rules/data/missions/classified-deck.json"


def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DECK_FILE.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("ruleset", list(Ruleset))
def test_digest_11_1_each_ruleset_ships_at_least_ten_cards_with_distinct_ids(ruleset: Ruleset) -> None:
    deck = shipped_deck(ruleset)
    assert len(deck) >= 10
    assert len({card.id for card in deck}) == len(deck)
    assert all(card.title and card.text and card.achieved_by.kind in KINDS for card in deck)


def test_digest_11_1_a_card_may_read_differently_per_ruleset() -> None:
    n5 = next(c for c in shipped_deck(Ruleset.N5) if c.id == "tag-and-trace")
    codeone = next(c for c in shipped_deck(Ruleset.CODEONE) if c.id == "tag-and-trace")
    assert (n5.achieved_by.wip_mod, codeone.achieved_by.wip_mod) == (-3, 0)
    assert "expert-hands" not in {c.id for c in shipped_deck(Ruleset.CODEONE)}


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(_document())
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


_DELETE = object()


@pytest.mark.parametrize(("path", "value", "message"), [
    (["format"], "infinity-referee-classified-deck/0", "format: expected"),
    (["cards"], [], "cards: expected a non-empty list"),
    (["cards", 0, "title"], "", "cards[0] (quiet-blade).title: expected a non-empty text"),
    (["cards", 0, "rulesets"], ["n5", "n4"], "cards[0] (quiet-blade).rulesets"),
    (["cards", 0, "achieved_by", "kind"], "kill_anything", "cards[0] (quiet-blade).achieved_by.kind"),
    (["cards", 0, "achieved_by", "who"], "any", "a kill_in_close_combat card has no field but kind"),
    (["cards", 7, "achieved_by", "who"], "lieutenant", "cards[7] (data-siphon).achieved_by.who"),
    (["cards", 7, "achieved_by", "target"], "anyone", "cards[7] (data-siphon).achieved_by.target"),
    (["cards", 7, "achieved_by", "wip_mod"], "3", "cards[7] (data-siphon).achieved_by.wip_mod"),
    (["cards", 7, "achieved_by", "wip_mod"], 40, "from -12 to 12"),
    (["cards", 7, "achieved_by", "where"], _DELETE, "cards[7] (data-siphon).achieved_by.where"),
    (["cards", 7, "points"], 2, "unknown field 'points'"),
    (["cards", 1, "id"], "quiet-blade", "cards[1] (quiet-blade): a second card with this id in the n5 deck"),
])
def test_a_bad_deck_document_is_refused_naming_the_card_and_field(
        path: list[Any], value: Any, message: str) -> None:
    """Implementation test: no rule section."""
    with pytest.raises(ClassifiedDeckError, match=re.escape(message)):
        load_deck(_broken(path, value))


def test_the_shipped_document_declares_its_format() -> None:
    """Implementation test: no rule section."""
    assert _document()["format"] == FORMAT
