"""The Classified Objectives draw (missions/classified.py; docs/missions-classified.md):
in the ITS pre-game order of DIGEST 11.1, once both armies are chosen and before the
Initiative Roll, each side draws its cards from the room's dice; what a side drew is its
Private Information (DIGEST 11.2) until a card is achieved or the game ends."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules import commands as c
from server.rules import engine
from server.rules.events import ClassifiedDrawn, Event, InitiativeRolled
from server.rules.ids import CASTER, SPECTATOR, Side
from server.rules.missions import MissionError
from server.rules.missions.classified import DICE_PER_PICK, pick
from server.rules.missions.classified_deck import shipped_deck
from server.rules.missions.mission_data import MAX_CLASSIFIED_DRAW
from server.rules.ruleset import Ruleset
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.rules.missions.classified_support import classified_mission
from tests.support.games import ARMIES, TEST_ENTROPY, play

A, B = Side.A, Side.B


def _armies_chosen(seed: int = 3, draw: int = 2, dice: Sequence[int] = (),
                   ruleset: str = "n5") -> tuple[GameState, tuple[Event, ...]]:
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, injected_dice=tuple(dice),
                                             mission=classified_mission(ruleset, draw)))
    state, _ = play(state, A, c.ChooseArmy(ARMIES[ruleset][A], TEST_ENTROPY))
    assert not state.classified  # one army is not both
    return play(state, B, c.ChooseArmy(ARMIES[ruleset][B], TEST_ENTROPY))


def _drawn(events: Sequence[Event]) -> dict[Side, tuple[str, ...]]:
    return {e.side: e.cards for e in events if isinstance(e, ClassifiedDrawn)}


def test_digest_11_1_both_sides_draw_after_the_armies_and_before_the_initiative_roll() -> None:
    state, events = _armies_chosen()
    kinds = [type(e).__name__ for e in events]
    assert kinds[:4] == ["ArmyChosen", "ClassifiedDrawn", "ClassifiedDrawn", "InitiativeRolled"]
    assert [e.side for e in events if isinstance(e, ClassifiedDrawn)] == [A, B]
    assert state.phase is Phase.INITIATIVE
    assert {side: tuple(card.id for card in cards) for side, cards in state.classified.items()} \
        == _drawn(events)
    assert all(not card.achieved for cards in state.classified.values() for card in cards)


@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_digest_11_1_each_side_draws_the_missions_number_of_distinct_cards_of_its_ruleset(
        ruleset: str) -> None:
    _, events = _armies_chosen(draw=3, ruleset=ruleset)
    deck = {card.id for card in shipped_deck(Ruleset(ruleset))}
    for cards in _drawn(events).values():
        assert len(cards) == 3 and len(set(cards)) == 3 and set(cards) <= deck


def test_digest_11_1_no_draw_without_classified_objectives() -> None:
    state, events = _armies_chosen(draw=0)
    assert not _drawn(events) and state.classified == {}
    assert isinstance(events[1], InitiativeRolled)


def test_digest_11_1_the_same_seed_draws_the_same_cards_and_other_seeds_other_cards() -> None:
    first = _drawn(_armies_chosen(seed=3)[1])
    assert _drawn(_armies_chosen(seed=3)[1]) == first
    others = {tuple(_drawn(_armies_chosen(seed=seed)[1]).items()) for seed in (4, 5, 6, 7)}
    assert others - {tuple(first.items())}


def test_digest_11_1_the_draw_uses_a_fixed_number_of_dice_so_the_initiative_roll_does_not_depend_on_it() -> None:
    """Two games whose draws read different faces: the draw takes DICE_PER_PICK dice per
    card whatever comes, so the Initiative Roll reads the very same die in both."""
    per_side = DICE_PER_PICK * 2
    low = [1] * (2 * per_side) + [7, 12]
    high = [20] * (2 * per_side) + [7, 12]
    one, events_one = _armies_chosen(dice=low)
    two, events_two = _armies_chosen(dice=high)
    assert _drawn(events_one) != _drawn(events_two)
    rolled = [next(e for e in events if isinstance(e, InitiativeRolled))
              for events in (events_one, events_two)]
    assert rolled[0].attempts == rolled[1].attempts == ((7, 12),)
    assert one.dice.cursor == two.dice.cursor


def test_digest_11_1_the_draw_is_recorded_with_its_dice_for_the_record_to_check() -> None:
    """Implementation test: no rule section. Generated dice: each draw carries the faces it
    read (the verifier checks them in order, docs/record-format.md)."""
    _, events = _armies_chosen()
    draws = [e for e in events if isinstance(e, ClassifiedDrawn)]
    assert [len(d.dice.drawn) for d in draws] == [2 * DICE_PER_PICK] * 2
    assert draws[1].dice.cursor == draws[0].dice.cursor + 2 * DICE_PER_PICK


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 20), min_size=5 * DICE_PER_PICK, max_size=5 * DICE_PER_PICK),
       st.integers(1, 5))
def test_digest_11_1_a_draw_never_holds_a_card_twice(faces: list[int], count: int) -> None:
    ids = [card.id for card in shipped_deck(Ruleset.N5)]
    cards = pick(ids, faces, count)
    assert len(cards) == count and len(set(cards)) == count and set(cards) <= set(ids)


def test_digest_11_1_the_whole_deck_can_be_drawn() -> None:
    ids = [card.id for card in shipped_deck(Ruleset.N5)]
    assert sorted(pick(ids, [20] * DICE_PER_PICK * len(ids), len(ids))) == sorted(ids)


def test_a_mission_never_draws_more_cards_than_a_deck_holds() -> None:
    """Implementation test: no rule section. A mission draws at most ``MAX_CLASSIFIED_DRAW``
    cards a side, which every ruleset's deck can give; more is refused naming the field."""
    for ruleset in Ruleset:
        assert len(shipped_deck(ruleset)) >= MAX_CLASSIFIED_DRAW
    with pytest.raises(MissionError, match=r"^classified\.draw: "):
        engine.new_game(engine.GameSetup(ruleset="codeone", mission=classified_mission(
            "codeone", MAX_CLASSIFIED_DRAW + 1)))
    with pytest.raises(MissionError, match=r"^classified\.draw: "):
        engine.new_game(engine.GameSetup(ruleset="n5", mission=classified_mission("n5", -1)))
    with pytest.raises(MissionError, match=r"^classified\.op: "):
        engine.new_game(engine.GameSetup(ruleset="n5", mission=classified_mission("n5", 1, -1)))


def test_digest_11_2_the_owner_and_casters_read_the_cards_everyone_else_only_their_count() -> None:
    state, events = _armies_chosen()
    draw_a, draw_b = (e for e in events if isinstance(e, ClassifiedDrawn))
    assert view_event(draw_a, A, state) == {"type": "classified_drawn", "side": "A",
                                             "cards": list(draw_a.cards), "count": 2}
    assert view_event(draw_a, CASTER, state) == view_event(draw_a, A, state)
    for viewer in (B, SPECTATOR):
        assert view_event(draw_a, viewer, state) == {"type": "classified_drawn", "side": "A",
                                                      "count": 2}
    assert view_event(draw_b, A, state) == {"type": "classified_drawn", "side": "B", "count": 2}


def test_digest_11_2_the_owners_view_lists_its_cards_others_only_the_count() -> None:
    state, _ = _armies_chosen()
    own = view_state(state, A)["classified"]
    assert [card["id"] for card in own["A"]["cards"]] == [card.id for card in state.classified[A]]
    first = own["A"]["cards"][0]
    assert set(first) >= {"id", "title", "text", "achieved"} and first["achieved"] is False
    assert own["B"] == {"count": 2, "op": 0, "cards": []}
    for viewer in (B, SPECTATOR):
        assert view_state(state, viewer)["classified"]["A"] == {"count": 2, "op": 0, "cards": []}
    caster = view_state(state, CASTER)["classified"]
    assert caster["A"] == own["A"] and caster["B"] == view_state(state, B)["classified"]["B"]
    assert len(caster["B"]["cards"]) == 2


def test_the_record_of_a_game_with_classified_objectives_checks_out() -> None:
    """Implementation test: no rule section. The draw's dice sit in the record's sequence
    of dice (docs/record-format.md), and ``server.verify`` checks them with the rest."""
    from types import SimpleNamespace

    from protocol.codec import pack_plain, unpack_plain
    from server import verify
    from server.lobby.record import build_record
    from server.rules.events import event_to_plain

    state = engine.new_game(engine.GameSetup(ruleset="n5", dice_secret="ab" * 32, id_key="1d" * 32,
                                             mission=classified_mission("n5", 2)))
    log: list[Event] = []
    for side in (A, B):
        state, events = play(state, side, c.ChooseArmy(ARMIES["n5"][side], TEST_ENTROPY))
        log.extend(events)
    state, events = play(state, A, c.Concede())
    log.extend(events)
    plain = [unpack_plain(pack_plain(event_to_plain(event))) for event in log]
    settings = SimpleNamespace(ruleset="n5", aro_window_s=30.0, visibility="private",
                               spectator_delay_s=0.0, fixed_dice=False, table="", mission="",
                               clock_s=0)
    meta = SimpleNamespace(room_id="0-classified", created_ms=1_795_000_000_000, settings=settings)
    record = build_record(meta, plain)  # type: ignore[arg-type]
    summary = verify.verify(record)
    assert summary.dice == 2 * 2 * DICE_PER_PICK + 2 and summary.untied == 0
    drawn = next(entry["event"] for entry in record["events"]
                 if entry["event"]["type"] == "classified_drawn")
    drawn["cards"] = drawn["cards"][:1]
    with pytest.raises(verify.Failure, match="1 cards drawn with 12 dice"):
        verify.verify(record)


def test_classified_events_and_state_read_back_from_plain_data() -> None:
    """Implementation test: no rule section. The events and the state travel and are stored
    as plain data (msgpack); what is read back is what was written."""
    from protocol.codec import pack_plain, unpack_plain
    from server.rules.events import ClassifiedAchieved, GameEnded, event_from_plain, event_to_plain

    state, events = _armies_chosen()
    state, ended = play(state, A, c.Concede())
    achieved = ClassifiedAchieved(A, "quiet-blade", 1, "Quiet Blade: …")
    for event in (*events, achieved, *ended):
        assert event_from_plain(unpack_plain(pack_plain(event_to_plain(event)))) == event
    (game_ended,) = [e for e in ended if isinstance(e, GameEnded)]
    assert game_ended.classified == state.classified and len(game_ended.classified[B]) == 2
    assert engine.state_from_plain(unpack_plain(pack_plain(engine.state_to_plain(state)))) == state
