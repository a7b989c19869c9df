"""Worked examples W4 and W5 of DIGEST 16, as whole Orders through ``resolve_order``."""

from __future__ import annotations

from server.rules.armies.skills import Dodge, Move
from server.rules.combat.outcome import Moved, Outcome
from server.rules.combat.resolution import resolve_order
from server.rules.ids import Side
from server.rules.state import Eligibility, TrooperState

from .resolution_builders import FLAMER, RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B


def _w4(eligibility: Eligibility | None) -> tuple[Outcome, TrooperState]:
    shooter = trooper("s", A, (10, 10), 0.0, bs=10)  # BS 10 + 3 range = SV 13
    dodger = trooper("d", B, (16, 10), 180.0, ph=11)
    state = resolving(
        shooter, [shoot(RIFLE, (dodger, 3))], [dodger],
        aros={dodger.id: Dodge(route=((16, 10), (16, 12)))},
        eligible={dodger.id: eligibility} if eligibility else None,
        faces=[3, 9, 14, 10, 20, 20, 20],
    )
    outcome, _ = resolve_order(state)
    return outcome, dodger


def test_w4_dodge_aro_cancels_the_burst_and_moves_two_inches() -> None:
    """W4: SV 13 B3 rolls 3, 9, 14 vs Dodge SV 11 rolling 10: no damage, then the move."""
    outcome, dodger = _w4(None)
    attack, dodge = outcome.rolls
    assert attack.success_value == 13 and dodge.success_value == 11
    assert attack.cancelled == (True, True, False) and attack.successes == 0
    assert dodge.successes == 1 and dodge.opposed_by == (0,)
    assert outcome.saves == ()
    assert Moved(dodger.id, ((16, 10), (16, 12)), "dodge") in outcome.effects


def test_w4_zone_of_control_dodge_takes_minus_three_and_both_hits_land() -> None:
    """W4 variant: a ZoC-only Dodge is PH 11 - 3 = 8, so the 10 fails; the 3 and 9 hit."""
    zoc = Eligibility(trooper("d", B, (0, 0)).id, line_of_fire=False, zone_of_control=True)
    outcome, _ = _w4(zoc)
    attack, dodge = outcome.rolls[:2]
    assert dodge.success_value == 8 and dodge.successes == 0
    assert attack.successes == 2
    assert outcome.saves[0].hits == 2
    assert not any(isinstance(e, Moved) and e.reason == "dodge"
                   for e in outcome.effects)


def test_w5_direct_template_against_bs_aro_is_two_normal_rolls() -> None:
    """W5: the template hits R with no roll; R's BS ARO is a Normal Roll (8 <= 12) and hits.

    Both save: R against the template without the cover bonus, the active trooper against
    R's shot; dice: R's roll, the active trooper's save, R's save.
    """
    active = trooper("a", A, (10, 10), 0.0)
    reactor = trooper("r", B, (15, 10), 180.0, bs=9)  # BS 9 + 3 range = SV 12
    state = resolving(active, [Move(route=((10, 10),)), shoot(FLAMER, (reactor, 1))],
                      [reactor], aros={reactor.id: shoot(RIFLE, (active, 1))},
                      faces=[8, 12, 13, 20, 20])
    outcome, _ = resolve_order(state)
    aro = outcome.rolls[0]
    assert aro.success_value == 12 and aro.opposed_by == () and aro.successes == 1
    on_active, on_reactor = outcome.saves
    assert on_active.trooper == active.id and on_active.weapon == RIFLE.id
    assert on_reactor.trooper == reactor.id and on_reactor.weapon == FLAMER.id
    assert not on_reactor.partial_cover and on_reactor.hits == 1


def test_w5_dodging_the_template_is_a_normal_ph_roll() -> None:
    """W5 variant: R Dodges instead: a Normal PH roll; success leaves R unaffected and moving."""
    active = trooper("a", A, (10, 10), 0.0)
    reactor = trooper("r", B, (15, 10), 180.0)
    state = resolving(active, [Move(route=((10, 10),)), shoot(FLAMER, (reactor, 1))],
                      [reactor], aros={reactor.id: Dodge(route=((15, 10), (15, 8)))},
                      faces=[11])
    outcome, _ = resolve_order(state)
    (dodge,) = outcome.rolls
    assert dodge.opposed_by == () and dodge.successes == 0 and dodge.criticals == 1
    assert outcome.saves == ()
    assert Moved(reactor.id, ((15, 10), (15, 8)), "dodge") in outcome.effects
