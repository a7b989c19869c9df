"""Fireteam Bonus Levels 2 and 3 as the Infinity wiki's N5 page "Fireteam Bonuses" gives them.

* Level 2, "BS Attack (+1 SD)": a member's BS Attack rolls one die more than its Burst and
  then one die is discarded; the Burst (what can hit, what ammunition is spent) is as
  declared. The referee discards for the player the die worth least (a failure, else the
  lowest success, a Critical last): ``combat/sustained_dice.py``.
* Level 3, "+3 Discover and +1 Dodge": the +1 is read as a MOD to the Dodge roll.

In the Active Turn the Fireteam Leader rolls with them; in the Reactive Turn every member's
ARO does. Judgement calls: docs/rules-decisions/fireteams.md.
"""

from __future__ import annotations

from typing import Any

from server.rules.combat.dice import Dice, inject
from server.rules.combat.fireteam_bonuses import fireteam_mods
from server.rules.combat.plan import PlannedRoll
from server.rules.combat.resolution import _roll_all
from server.rules.combat.rolls import CritConvention, Mod, judge
from server.rules.combat.sustained_dice import discarded
from server.rules.events import OrderResolved
from server.rules.evolve import replace
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.rules.orders.test_fireteams import L7, L8, L9, SPRAY, WARDEN, _form, _table
from tests.support.games import close_aro_window, play

A = Side.A
N5 = CritConvention.N5


def _shot_preview(state: GameState) -> dict[str, Any]:
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    shot: dict[str, Any] = seat_options(state, A)["skills"]["bs_attack"]["line_rifle"]["shots"]["B-t1"]
    return shot


def _leader_fires(state: GameState, faces: list[int]) -> tuple[dict[str, Any], Any]:
    """The leader shoots B-t1 with Burst 3, the members Idle, with ``faces`` rolled next;
    returns the preview options showed and the leader's roll record."""
    members = [t for t in state.fireteams[0].members if t != L7]
    preview = _shot_preview(state)
    state = replace(state, dice=inject(state.dice, faces))
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    idle = [{"trooper": m, "skill": {"type": "idle"}} for m in members]
    state, _ = play(state, A, {"type": "declare_skill", "peripherals": idle,
                               "skill": {"type": "bs_attack", "weapon": "line_rifle",
                                         "targets": [{"trooper": "B-t1", "burst": 3}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"},
                               "peripherals": idle})
    _, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    (roll,) = [r for r in resolved.outcome.rolls if r.trooper == L7]
    return preview, roll


def test_level_2_rolls_one_extra_die_and_discards_the_failure() -> None:
    """DIGEST 3.5, Level 2 (two Lancers): Burst 3 rolls 4 dice; the failed one is discarded and the
    three successes hit. `options` says so before the shot ("sustained_dice": 1)."""
    state, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    sv = _shot_preview(state)["sv"]
    assert 4 <= sv < 20
    preview, roll = _leader_fires(state, [20, 1, 2, 3])
    assert preview["sustained_dice"] == 1 and preview["burst"] == 3
    assert roll.burst == 3 and [d.face for d in roll.dice] == [20, 1, 2, 3]
    assert roll.discarded == (True, False, False, False)
    assert roll.successes == 3 and roll.criticals == 0


def test_with_every_die_a_success_the_lowest_is_discarded_and_a_critical_kept() -> None:
    """DIGEST 3.5, Level 2: all four dice succeed: the lowest plain success goes; the Critical stays."""
    state, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    sv = _shot_preview(state)["sv"]
    _, roll = _leader_fires(state, [sv, 1, 3, 2])
    assert roll.discarded == (False, True, False, False)
    assert roll.criticals == 1 and roll.successes == 2


def test_level_1_has_no_extra_die() -> None:
    """DIGEST 3.5: a Duo of two different units: Level 1, no "+1 SD"."""
    state, _ = play(_table(), A, _form("duo", L7, WARDEN))
    preview, roll = _leader_fires(state, [20, 1, 2])
    assert preview["sustained_dice"] == 0
    assert len(roll.dice) == 3 and roll.discarded == ()
    assert roll.successes == 2


def test_a_discarded_die_neither_scores_nor_cancels_in_a_face_to_face_roll() -> None:
    """DIGEST 3.5 and 7.4: a member's ARO (Burst 1, +1 SD) against an active shooter: two dice, the better one
    kept. The discarded die would have beaten the enemy's; the kept one cancels it only if it
    is higher."""
    shooter = PlannedRoll(trooper=TrooperId("A-t1"), active=True, skill="bs_attack",
                          target=TrooperId("B-t3"), weapon=None, attribute="BS", base=12,
                          mods=(), burst=1)
    member = PlannedRoll(trooper=TrooperId("B-t3"), active=False, skill="bs_attack",
                         target=TrooperId("A-t1"), weapon=None, attribute="BS", base=12,
                         mods=(), burst=1, sustained_dice=1)
    dice = inject(Dice(), [9, 10, 15])  # the shooter's 9, then the member's 10 and 15 (a failure)
    (active, reactive), after = _roll_all([shooter, member], dice, N5, offset=0)
    assert after.injected == ()
    assert [d.face for d in reactive.record.dice] == [10, 15]
    assert reactive.record.discarded == (False, True)
    assert reactive.record.successes == 1 and active.record.successes == 0
    # Had the member kept its 15, nothing would have cancelled the shooter's 9.
    dice = inject(Dice(), [11, 10, 15])
    (active, reactive), _ = _roll_all([shooter, member], dice, N5, offset=0)
    assert reactive.record.discarded == (False, True)
    assert active.record.successes == 1 and reactive.record.successes == 0
    assert reactive.record.cancelled == (True, False)


def test_the_discard_is_always_the_die_worth_least() -> None:
    """DIGEST 7.2, 7.4: a failure before any success, the lowest success before a higher one, a Critical
    last (SV 12: 12 is a Critical)."""
    judged = [judge(face, 12, N5) for face in (12, 5, 11, 3)]
    assert discarded(judged, 1) == (False, False, False, True)
    judged = [judge(face, 12, N5) for face in (12, 5, 18)]
    assert discarded(judged, 1) == (False, False, True)
    assert discarded([judge(12, 12, N5)], 0) == (False,)


def test_level_3_gives_plus_1_to_a_members_dodge_roll() -> None:
    """DIGEST 3.5, Level 3, "+1 Dodge": a MOD `fireteam` +1 on the Dodge roll; a Level 2 team has none."""
    three, _ = play(_table(), A, _form("core", L7, L8, L9))
    two, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    assert fireteam_mods(three, TrooperId(L9), "dodge") == (Mod("fireteam", 1),)
    assert fireteam_mods(two, TrooperId(L9), "dodge") == ()
    four, _ = play(_table(), A, _form("core", L7, L8, L9, SPRAY))
    assert fireteam_mods(four, TrooperId(SPRAY), "dodge") == (Mod("fireteam", 1),)


def test_the_discarded_die_survives_the_plain_form_and_every_drawn_face_is_shown() -> None:
    """DIGEST 3.5; the record keeps the discarded die (``discarded``) through the plain form the
    websocket and the game record use; the faces shown are all the faces rolled."""
    from server.rules.combat.outcome import RollRecord
    from server.rules.plain import to_plain
    from server.rules.plain.decoding import from_plain

    state, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    _, roll = _leader_fires(state, [20, 1, 2, 3])
    plain = to_plain(roll)
    assert isinstance(plain, dict) and plain["discarded"] == [True, False, False, False]
    assert sorted(d["face"] for d in plain["dice"]) == [1, 2, 3, 20]
    assert from_plain(RollRecord, plain) == roll


def test_a_members_aro_shot_preview_states_the_extra_die() -> None:
    """DIGEST 3.5, Reactive Turn: every member's ARO BS Attack gets "+1 SD", and `options`
    says so in the ARO's shot preview; a trooper outside the team does not."""
    from server.rules.state import Fireteam
    from tests.rules.orders.test_fireteams import _able
    from tests.support.skirmish import skirmish

    spots = {"A-t7": (30, 4, 90.0), "B-t3": (30, 14, 270.0), "B-t4": (32, 16, 270.0),
             "B-t5": (26, 14, 270.0), "B-t1": (46, 46, 90.0), "A-t1": (1, 1, 270.0)}
    state = _able(skirmish(spots, ruleset="n5"), ["B-t3", "B-t4"], fireteam_unit="Enforcer")
    team = Fireteam(Side.B, "core", TrooperId("B-t3"), (TrooperId("B-t3"), TrooperId("B-t4")))
    state = replace(state, fireteams=(team,))
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "bs_attack", "weapon": "line_rifle",
                                                                  "targets": [{"trooper": "B-t3", "burst": 3}]}})
    aros = seat_options(state, Side.B)["aros"]

    def extra_dice(trooper: str) -> set[int]:
        return {preview["sustained_dice"] for by_target in aros[trooper]["shots"].values()
                for previews in by_target.values() for preview in previews}

    assert extra_dice("B-t3") == {1} and extra_dice("B-t4") == {1}
    assert extra_dice("B-t5") == {0}
