"""Combat Jump (Airborne Deployment): seed 002 "Troopers that have yet to be deployed on the
table as Models or Markers (for example, due to the Combat Jump Special Skill) do not
contribute their Order to the Order Pool. Undeployed Troopers' Orders are Private
Information"; DIGEST 3 (Order Count), 4 (Combat Jump is a Long Skill), 11.2 ("presence of
Combat Jump/Parachutist troopers" is Private); the N5 Combat Jump text (infinitythewiki):
own Order, PH Roll, a failed roll lands in the own Deployment Zone touching the table edge,
then the Reactive Player declares AROs.

A's Stormdrop Jumper (A-t15 of helion-vanguard) is either kept airborne or not in the game
at all; B and the spectators must not be able to tell which, until it lands.
"""

from __future__ import annotations

from server.rules import commands as c
from server.rules import engine
from server.rules.commands import parse_command
from server.rules.decision import Accepted, Rejected
from server.rules.events import (
    AroWindowOpened,
    CombatJumpLanded,
    OrderResolved,
    OrdersCounted,
    OrderSpent,
    SkillDeclared,
    TrooperKeptAirborne,
)
from server.rules.ids import SPECTATOR, Side, TrooperId, Viewer
from server.rules.options import seat_options
from server.rules.orders.airborne import final_victory_points
from server.rules.orders.game_sequence import game_over, victory_points
from server.rules.orders.order_pool import count_orders
from server.rules.plain import Plain
from server.rules.state import GameState, OrderStep, OrderType
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play, spend_public_orders
from tests.support.skirmish import Placement, skirmish

JUMPER = TrooperId("A-t15")  # Stormdrop Jumper: Combat Jump, Regular, PH 12, 11 points
VISIBLE: dict[str, Placement] = {
    "A-t1": (10.0, 6.0, 90.0), "A-t3": (24.0, 6.0, 90.0), "A-t5": (38.0, 6.0, 90.0),
    "A-t11": (16.0, 6.0, 90.0),  # the Jumper's Combat Group 2 has a Regular Order
    "B-t1": (6.0, 44.0, 270.0), "B-t3": (20.0, 40.0, 270.0), "B-t4": (30.0, 40.0, 270.0),
}
AIRBORNE: Placement = (0.0, 0.0, 0.0, "airborne")
LANDING = (30.0, 28.0)
"""In the open, in front of B's troopers (B-t4 sees it straight down the table)."""
FALLBACK = (44.0, 0.5)
"""Inside A's (south) Deployment Zone, its base touching the table's edge."""
OUTSIDERS = (Side.B, SPECTATOR)
_JUMPER_RADIUS = 12.5 / 25.4
"""The Jumper's base (S2, 25 mm) radius, inches."""


def _game(airborne: bool, dice: tuple[int, ...] = ()) -> GameState:
    """A's Orders Phase, with or without the airborne Jumper."""
    placements = {**VISIBLE, JUMPER: AIRBORNE} if airborne else dict(VISIBLE)
    return skirmish(placements, ruleset="n5", first=Side.A, dice=dice)


def _jump(landing: tuple[float, float] = LANDING, fallback: tuple[float, float] = FALLBACK,
          trooper: str = JUMPER) -> dict[str, Plain]:
    return {"type": "combat_jump", "trooper": trooper, "position": list(landing), "facing": 90.0,
            "fallback": list(fallback), "fallback_facing": 90.0}


def _seen(state: GameState, viewer: Viewer) -> dict[str, Plain]:
    view = view_state(state, viewer)
    return {key: view[key] for key in ("orders", "orders_spent", "phase", "active", "troopers",
                                       "armies")}


def _rejected(state: GameState, actor: Side, body: dict[str, Plain]) -> Rejected:
    decision = engine.decide(state, actor, parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision


# --- seed 002.15: no Order to the pool, a private own Order --------------------------------


def test_seed_002_combat_jump_troopers_add_no_order_to_the_order_pool() -> None:
    with_jumper, without = _game(airborne=True), _game(airborne=False)
    assert with_jumper.trooper(JUMPER).airborne and with_jumper.trooper(JUMPER).position is None
    assert with_jumper.orders.pools == without.orders.pools
    assert with_jumper.orders.irregular == without.orders.irregular
    assert with_jumper.orders.hidden == frozenset({JUMPER}), "its own Order, private"
    options = seat_options(with_jumper, Side.A)
    assert JUMPER not in options["activate"]
    assert list(options["combat_jump"]) == [JUMPER]
    assert seat_options(without, Side.A)["combat_jump"] == {}


def test_seed_002_combat_jump_troopers_orders_are_private_counts_and_views_alike() -> None:
    """The Order Count, the snapshot (Orders, troopers, the army list's summary) and B's
    options read the same to B and spectators whether or not an airborne trooper exists."""
    with_jumper, without = _game(airborne=True), _game(airborne=False)
    counted_with, counted_without = count_orders(with_jumper, Side.A), count_orders(without, Side.A)
    assert counted_with.hidden == (JUMPER,) and isinstance(counted_with, OrdersCounted)
    for viewer in OUTSIDERS:
        assert (view_event(counted_with, viewer, with_jumper)
                == view_event(counted_without, viewer, without))
        assert _seen(with_jumper, viewer) == _seen(without, viewer)
        assert JUMPER not in str(view_state(with_jumper, viewer))
    assert seat_options(with_jumper, Side.B) == seat_options(without, Side.B)
    assert view_state(with_jumper, Side.A)["orders"]["hidden"] == [JUMPER]


def _spend_public_orders(state: GameState) -> tuple[GameState, list[tuple[str, object]]]:
    """A spends every public Order on Idle; what B and the spectators receive meanwhile."""
    return spend_public_orders(state, Side.A, OUTSIDERS, _seen)


def test_seed_002_combat_jump_troopers_orders_are_private_the_turn_ends_alike() -> None:
    """Timing: once the public Orders are spent the game waits for A's ``end_turn`` in both
    games, so nothing B receives tells the two apart, the wait nor the end."""
    with_jumper, seen_with = _spend_public_orders(_game(airborne=True))
    without, seen_without = _spend_public_orders(_game(airborne=False))
    assert seen_with == seen_without
    assert with_jumper.active is Side.A and with_jumper.orders.hidden == frozenset({JUMPER})
    ends = []
    for state in (with_jumper, without):
        decision = engine.decide(state, Side.A, c.EndTurn())
        assert isinstance(decision, Accepted)
        after = engine.apply_all(state, decision.events)
        ends.append([[view_event(e, viewer, after) for e in decision.events] for viewer in OUTSIDERS]
                    + [seat_options(after, Side.B)])
        if state is with_jumper:
            assert after.active is Side.B and after.trooper(JUMPER).airborne
            assert after.orders.hidden == frozenset()
    assert ends[0] == ends[1]


def test_seed_002_combat_jump_on_the_private_order_after_the_public_orders_ran_out() -> None:
    state, _ = _spend_public_orders(_game(airborne=True, dice=(5,)))
    assert list(seat_options(state, Side.A)["combat_jump"]) == [JUMPER]
    state, events = play(state, Side.A, _jump())
    landed = next(e for e in events if isinstance(e, CombatJumpLanded))
    assert landed.landed and state.trooper(JUMPER).on_table


# --- the Combat Jump ------------------------------------------------------------------------


def test_digest_4_combat_jump_passed_ph_roll_lands_on_its_own_order() -> None:
    state = _game(airborne=True, dice=(5,))  # 5 <= PH 12: passed
    pools = dict(state.orders.pools)
    state, events = play(state, Side.A, _jump())
    landed, spent, declared, opened = events[:4]
    assert isinstance(landed, CombatJumpLanded) and landed.landed
    assert landed.roll.attribute == "PH" and landed.roll.success_value == 12
    assert [d.value for d in landed.roll.dice] == [5]
    assert landed.position == LANDING
    assert isinstance(spent, OrderSpent)
    assert (spent.trooper, spent.order_type, spent.private) == (JUMPER, OrderType.REGULAR, True)
    assert isinstance(declared, SkillDeclared) and declared.skill.TYPE == "combat_jump"
    assert declared.index == 1
    # "Then, the Reactive Player declares all their AROs": B's window, B-t4 among the eligible.
    assert isinstance(opened, AroWindowOpened)
    assert "B-t4" in {e.trooper for e in opened.eligible}
    assert state.orders.pools == pools and state.orders.hidden == frozenset()
    jumper = state.trooper(JUMPER)
    assert jumper.on_table and not jumper.airborne and jumper.position == LANDING
    assert not jumper.prone
    assert seat_options(state, Side.A)["skills"] is None, "a Long Skill: no second skill"
    state, events = close_aro_window(state)
    assert any(isinstance(e, OrderResolved) for e in events), "the Order ends after the AROs"
    assert state.order is None
    # On the table like any other trooper now: pool Orders activate it.
    assert seat_options(state, Side.A)["activate"][JUMPER] == ["regular"]
    assert seat_options(state, Side.A)["combat_jump"] == {}


def test_digest_4_combat_jump_failed_ph_roll_lands_at_the_deployment_zone_edge() -> None:
    """N5: no Dispersion; a failed PH Roll puts the trooper inside its own Deployment Zone,
    in contact with the table's edge (the spot the player named with the jump)."""
    state = _game(airborne=True, dice=(17,))  # 17 > PH 12: failed
    state, events = play(state, Side.A, _jump())
    landed = events[0]
    assert isinstance(landed, CombatJumpLanded) and not landed.landed
    assert landed.landing == LANDING and landed.position == FALLBACK
    assert state.trooper(JUMPER).position == FALLBACK
    assert state.order is not None and state.order.step is OrderStep.ARO_1


def test_digest_4_combat_jump_landing_restrictions() -> None:
    state = _game(airborne=True, dice=(5,))
    for landing, why in (((30.0, 39.0), "base contact with an enemy"),
                         ((24.0, 24.5 + _JUMPER_RADIUS + 0.01), "touching the wall: Cover"),
                         ((10.0, 24.0), "inside a building"),
                         ((60.0, 24.0), "off the table")):
        refused = _rejected(state, Side.A, _jump(landing=landing))
        assert refused.code == "bad_position", why
    for fallback, why in (((24.0, 6.0), "not touching the edge (and on a model)"),
                          ((24.0, 47.5), "the enemy's zone")):
        refused = _rejected(state, Side.A, _jump(fallback=fallback))
        assert refused.code == "bad_position", why
    # The enemy Deployment Zone itself is no restriction for Combat Jump (Parachutist's).
    assert isinstance(engine.decide(state, Side.A, parse_command(_jump(landing=(44.0, 44.0)))),
                      Accepted)


def test_digest_4_combat_jump_landing_by_scenery_needs_contact_and_names_it() -> None:
    """Landing in Silhouette contact with cover-giving scenery is refused, naming the piece
    as the players see it (the sample table's centre wall, not its id ``wall-c``); half an
    inch from it is no contact, and no Partial Cover either."""
    state = _game(airborne=True, dice=(5,))
    touching = (24.0, 24.5 + _JUMPER_RADIUS + 0.01)  # the wall's north face is at y = 24.5
    refused = _rejected(state, Side.A, _jump(landing=touching))
    assert refused.code == "bad_position"
    assert "the Low wall in the middle of the table" in refused.message
    assert "wall-c" not in refused.message
    apart = (24.0, 24.5 + _JUMPER_RADIUS + 0.5)
    assert isinstance(engine.decide(state, Side.A, parse_command(_jump(landing=apart))),
                      Accepted)


def test_digest_4_combat_jump_only_on_its_own_order_in_its_turn() -> None:
    state = _game(airborne=True, dice=(5,))
    # B may not even learn the id exists.
    assert _rejected(state, Side.B, _jump()).code == "unknown_trooper"
    assert _rejected(state, Side.A, _jump(trooper="A-t1")).code == "bad_target"
    # declare_skill never declares it: only the command that spends the trooper's own Order.
    state2, _ = play(state, Side.A, {"type": "activate", "trooper": "A-t1", "order": "regular"})
    refused = _rejected(state2, Side.A, {"type": "declare_skill",
                                         "skill": {"type": "combat_jump", "position": [30, 28]}})
    assert refused.code == "skill_not_allowed"
    assert _rejected(state2, Side.A, _jump()).code == "order_in_progress"


def test_digest_11_2_combat_jump_lands_seen_by_everyone() -> None:
    """Private until it lands, then open: its profile, side and Combat Group reach B and
    spectators, as their views of it hold them."""
    state = _game(airborne=True, dice=(5,))
    state, events = play(state, Side.A, _jump())
    for viewer in OUTSIDERS:
        seen = view_event(events[0], viewer, state)
        assert seen is not None and seen["side"] == "A"
        assert seen["profile"]["name"] == "Stormdrop Jumper" and "cost" not in seen["profile"]
        (on_table,) = [t for t in view_state(state, viewer)["troopers"] if t["id"] == JUMPER]
        assert seen["combat_group"] == on_table["combat_group"] is not None


# --- deployment ---------------------------------------------------------------------------


def test_digest_11_2_combat_jump_kept_airborne_at_deployment_is_private() -> None:
    from tests.support.games import deployment_spots

    state = engine.new_game(engine.GameSetup(ruleset="n5", seed=3))
    from server.rules.armies.army_catalogue import sample_army
    from server.rules.events import ArmyChosen, InitiativeRolled, InitiativeSettled

    for side, name in ((Side.A, "helion-vanguard"), (Side.B, "vesper-raiders")):
        army = sample_army(name)
        state = engine.apply(state, ArmyChosen(side, army, tuple(
            (e.id, TrooperId(f"{side.value}-{e.id}")) for e in army.entries)))
    state = engine.apply(state, InitiativeRolled(((20, 1),), (1, 1), Side.A, state.dice))
    state = engine.apply(state, InitiativeSettled(Side.A, Side.A, {Side.A: "south", Side.B: "north"}))
    assert seat_options(state, Side.A)["keep_airborne"] == [JUMPER]
    assert seat_options(state, Side.B)["keep_airborne"] == []
    assert _rejected(state, Side.A, {"type": "keep_airborne", "trooper": "A-t7"}).code == "skill_not_allowed"
    state, events = play(state, Side.A, {"type": "keep_airborne", "trooper": JUMPER})
    kept = events[0]
    assert isinstance(kept, TrooperKeptAirborne)
    for viewer in OUTSIDERS:
        assert view_event(kept, viewer, state) is None
    assert view_event(kept, Side.A, state) is not None
    assert seat_options(state, Side.A)["keep_airborne"] == []
    assert JUMPER not in seat_options(state, Side.A)["deploy"]
    # The rest deploy as usual; the step ends with one reserve and the Jumper off the table.
    spots = iter(deployment_spots(state, Side.A))
    while seat_options(state, Side.A)["deploy"]:
        trooper = seat_options(state, Side.A)["deploy"][0]
        x, y = next(spots)
        state, _ = play(state, Side.A, {"type": "deploy", "trooper": trooper,
                                        "position": [x, y], "facing": 90.0})
    assert seat_options(state, Side.A)["end_deployment_step"]
    # B's army summary lists no Combat Jump trooper (its presence is Private).
    roster = view_state(state, Side.B)["armies"]["A"]["roster"]
    assert "Stormdrop Jumper" not in {r["unit"] for r in roster}


# --- the end of the game --------------------------------------------------------------------


def test_digest_11_5_combat_jump_never_deployed_counts_as_killed_at_the_end() -> None:
    state = _game(airborne=True)
    assert final_victory_points(state, Side.A) == victory_points(state, Side.A) - 11
    ended = game_over(state, "rounds_completed")
    assert ended.result.victory_points[Side.A] == final_victory_points(state, Side.A)
