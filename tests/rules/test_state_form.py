"""The state's stored plain form (``server/rules/plain/state_form.py``): a trooper's army list
entry is written as its id when it is its side's army entry with that id, in full otherwise;
both that form and the one written before it (every entry in full, the generic
``to_plain(state)``) read back to the same state.

Implementation test: no rule section."""

from __future__ import annotations

import marshal
import random
from dataclasses import replace
from functools import cache

import pytest

from protocol import codec
from server.rooms.rules_engine import RulesCoreEngine
from server.rules import engine
from server.rules.ids import TrooperId
from server.rules.plain import FormatError, Plain, to_plain
from server.rules.state import GameState, Phase
from testkit.scripted_game import plan
from tests.rules.test_views_and_replay import _random_game

ENGINE = RulesCoreEngine()


@cache
def _scripted_states() -> tuple[GameState, ...]:
    """Every state of the benchmark's scripted game (as ``bench.load_cost`` plays it)."""
    states = [ENGINE.new_game("codeone", 7)]
    for side, body in plan(7).commands(clock_closes_windows=True):
        verdict = ENGINE.decide(states[-1], side, ENGINE.parse_command(body))
        assert verdict.events is not None, body
        states.append(ENGINE.apply_all(states[-1], verdict.events))
    return tuple(states)


def _fielded() -> GameState:
    """A state of the scripted game with every trooper on the table (the Orders Phase)."""
    state = next(s for s in _scripted_states() if s.phase is Phase.ORDERS)
    assert len(state.troopers) > 10
    return state


def _exactly(state: GameState) -> bytes:
    """The state's generic plain form, exactly: == does not tell 1 from 1.0 or 0.0 from -0.0,
    and ``repr`` shows a frozenset's items in an order that depends on how it was built."""
    return marshal.dumps(to_plain(state), 2)


def _reads_back_exactly(state: GameState, plain: Plain) -> None:
    back = engine.state_from_plain(plain)
    assert back == state
    assert _exactly(back) == _exactly(state)


def _by_reference(plain: Plain) -> dict[str, str]:
    return {key: trooper["entry"] for key, trooper in plain["troopers"].items()
            if isinstance(trooper["entry"], str)}


def test_every_state_of_the_scripted_game_round_trips_smaller_with_entries_by_reference(
        ) -> None:
    states = _scripted_states()
    assert any(s.troopers for s in states) and states[-1].phase is Phase.GAME_OVER
    for state in states:
        plain = engine.state_to_plain(state)
        _reads_back_exactly(state, plain)
        # Unchanged entries are references; this game changes none in play.
        assert _by_reference(plain) == {str(key): trooper.entry.id
                                        for key, trooper in state.troopers.items()}
        if state.troopers:
            assert len(codec.pack_plain(plain)) < 0.7 * len(codec.pack_plain(to_plain(state)))


def test_every_state_written_before_references_still_reads_to_the_same_state() -> None:
    for state in _scripted_states()[::3]:
        old = to_plain(state)  # the form every snapshot was written in until now
        assert not any(isinstance(t["entry"], str) for t in old["troopers"].values())
        _reads_back_exactly(state, old)
        _reads_back_exactly(state, codec.unpack_plain(codec.pack_plain(old)))


def test_states_of_a_random_game_round_trip_in_both_forms() -> None:
    state = engine.new_game(engine.GameSetup(ruleset="codeone", seed=23))
    final, log = _random_game(state, random.Random(23), max_commands=150, views_every=10_000)
    checked = 0
    for n, event in enumerate(log):
        state = engine.apply(state, event)
        if n % 7 == 0 or n == len(log) - 1:
            _reads_back_exactly(state, engine.state_to_plain(state))
            _reads_back_exactly(state, to_plain(state))
            checked += 1
    assert state == final and checked > 5 and final.troopers


def test_a_trooper_whose_entry_differs_from_its_armys_keeps_its_own_entry() -> None:
    state = _fielded()
    promoted, moved = [t for t in state.troopers.values() if not t.entry.lieutenant][:2]
    changed = {  # as a new Lieutenant and a Command Token's change of Combat Group do
        promoted.id: replace(promoted, entry=replace(promoted.entry, lieutenant=True)),
        moved.id: replace(moved, entry=replace(moved.entry,
                                                combat_group=moved.entry.combat_group + 1)),
    }
    state = replace(state, troopers={**state.troopers, **changed})
    plain = engine.state_to_plain(state)
    for trooper_id, trooper in changed.items():
        assert plain["troopers"][trooper_id]["entry"] == to_plain(trooper.entry)
    assert len(_by_reference(plain)) == len(state.troopers) - 2
    _reads_back_exactly(state, plain)
    assert engine.state_from_plain(plain).trooper(promoted.id).entry.lieutenant


def test_a_trooper_not_from_its_armys_list_keeps_its_entry_in_full() -> None:
    state = _fielded()
    model = next(iter(state.troopers.values()))
    summoned = replace(model, id=TrooperId(f"{model.side.value}-extra"),
                       entry=replace(model.entry, id="extra"))
    state = replace(state, troopers={**state.troopers, summoned.id: summoned})
    plain = engine.state_to_plain(state)
    assert plain["troopers"][summoned.id]["entry"] == to_plain(summoned.entry)
    _reads_back_exactly(state, plain)


def test_an_equal_entry_is_a_reference_only_when_written_alike() -> None:
    state = _fielded()
    first, second = list(state.troopers.values())[:2]
    copied = replace(first.entry)  # equal, another object: a reference
    swc = second.entry.profile.swc
    assert isinstance(swc, float) and swc == int(swc)
    # Equal, but written 0 where the army's entry has 0.0: kept in full, so it reads back
    # as it was written before references.
    unlike = replace(second.entry, profile=replace(second.entry.profile, swc=int(swc)))
    assert copied is not first.entry and copied == first.entry and unlike == second.entry
    state = replace(state, troopers={**state.troopers,
                                     first.id: replace(first, entry=copied),
                                     second.id: replace(second, entry=unlike)})
    plain = engine.state_to_plain(state)
    assert plain["troopers"][first.id]["entry"] == first.entry.id
    assert plain["troopers"][second.id]["entry"] == to_plain(unlike)
    assert _exactly(engine.state_from_plain(plain)) == \
        _exactly(engine.state_from_plain(to_plain(state)))


def test_a_reference_to_an_entry_the_army_does_not_hold_is_refused_naming_it() -> None:
    state = _fielded()
    plain = engine.state_to_plain(state)
    key = next(iter(plain["troopers"]))
    plain["troopers"][key] = {**plain["troopers"][key], "entry": "nobody"}
    with pytest.raises(FormatError, match=f"troopers.{key}.entry: names entry 'nobody'"):
        engine.state_from_plain(plain)


def test_reading_leaves_the_plain_data_unchanged() -> None:
    plain = engine.state_to_plain(_fielded())
    before = repr(plain)
    engine.state_from_plain(plain)
    assert repr(plain) == before
