"""Warhorse (infinitythewiki "Warhorse", N5; ``orders/warhorse.py``), the N5 successor of
Veteran: DIGEST 11.3 (Loss of Lieutenant leaves it Regular), DIGEST 11.4 (it never enters
Retreat!) and DIGEST 8 (it cannot enter the Isolated State). The page has no worked example:
the tests follow its bullet points.
"""

from __future__ import annotations

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.combat.outcome import IsolatedSet
from server.rules.combat.resolution import resolve_order
from server.rules.decision import Accepted
from server.rules.ids import Side, TrooperId
from server.rules.orders.order_pool import count_orders
from tests.rules.combat.fighting_builders import with_skills
from tests.rules.combat.test_immunity import EM_RIFLE, _shot_at, _target
from tests.rules.orders.test_retreat import SHOT, _b_in_retreat_with_the_boss_activated
from tests.support.games import decide
from tests.support.skirmish import skirmish

A, B = Side.A, Side.B


def test_digest_11_3_loss_of_lieutenant_leaves_a_warhorse_regular() -> None:
    """Loss of Lieutenant: every trooper is Irregular but the Warhorse, whose Order stays in
    its Combat Group's pool."""
    state = skirmish({"A-t7": (6, 2, 270.0), "A-t8": (8, 2, 270.0)}, ruleset="n5")
    assert A in state.loss_of_lieutenant
    veteran = with_skills(state.trooper(TrooperId("A-t7")), warhorse=True)
    counted = count_orders(state.with_trooper(veteran), A)
    assert counted.pools == {1: 1} and counted.irregular == (TrooperId("A-t8"),)


def test_digest_11_4_a_warhorse_never_enters_retreat() -> None:
    state = _b_in_retreat_with_the_boss_activated()
    boss = TrooperId("B-t1")
    state = state.with_trooper(with_skills(state.trooper(boss), warhorse=True))
    assert isinstance(decide(state, B, {"type": "declare_skill", "skill": SHOT}), Accepted)


def test_digest_8_a_warhorse_cannot_be_isolated() -> None:
    """Two failed saves against E/M would Isolate it; it stays connected."""
    target = _target(warhorse=True)
    outcome, _ = resolve_order(_shot_at(target, EM_RIFLE, [4, 20, 20]))
    assert outcome.saves[0].failed == 2
    assert not any(isinstance(e, IsolatedSet) for e in outcome.effects)


def test_digest_11_3_the_catalogue_reads_warhorse() -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, "Warhorse"), flags) is None
    assert flags.fields == {"warhorse": True}
