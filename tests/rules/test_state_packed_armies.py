"""A stored state's army lists written packed by the store's codec (``state_to_plain`` with
``pack``) read back with its ``unpack`` to the same state, once per distinct bytes and then
shared (``server/rules/plain/packed.py``, ``state_form.py``).

Implementation test: no rule section."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocol import codec
from server.rules import engine
from server.rules.armies.army_list import ArmyList
from server.rules.plain import FormatError, Plain, decoders, to_plain
from tests.rules.test_state_form import _exactly, _fielded, _scripted_states


def _counting_unpack() -> tuple[Callable[[bytes], Plain], list[bytes]]:
    unpacked: list[bytes] = []

    def unpack(data: bytes) -> Plain:
        unpacked.append(data)
        return codec.unpack_plain(data)
    return unpack, unpacked


def test_every_state_of_the_scripted_game_round_trips_with_its_armies_packed() -> None:
    for state in _scripted_states()[::4]:
        plain = engine.state_to_plain(state, codec.pack_plain)
        assert {side: codec.unpack_plain(army) for side, army in plain["armies"].items()} \
            == {side: to_plain(army) for side, army in state.armies.items()}
        stored = codec.unpack_plain(codec.pack_plain(plain))
        back = engine.state_from_plain(stored, codec.unpack_plain)
        assert back == state and _exactly(back) == _exactly(state)


def test_the_same_bytes_are_unpacked_once_and_read_to_one_shared_army() -> None:
    state = _fielded()
    first = codec.unpack_plain(codec.pack_plain(engine.state_to_plain(state, codec.pack_plain)))
    again = codec.unpack_plain(codec.pack_plain(engine.state_to_plain(state, codec.pack_plain)))
    decoders.forget_shared()
    unpack, unpacked = _counting_unpack()
    one = engine.state_from_plain(first, unpack)
    other = engine.state_from_plain(again, unpack)
    assert len(unpacked) == len(state.armies)
    assert all(one.armies[side] is other.armies[side] for side in state.armies)
    for trooper in other.troopers.values():
        assert trooper.entry is other.armies[trooper.side].entry(trooper.entry.id)
    decoders.forget_shared()
    engine.state_from_plain(again, unpack)
    assert len(unpacked) == 2 * len(state.armies)


def test_an_army_changed_by_one_byte_is_read_as_its_own() -> None:
    state = _fielded()
    army = to_plain(state.armies["A"])
    renamed = {**army, "name": army["name"] + "!"}
    read_one = engine.state_from_plain(
        {**engine.state_to_plain(state), "armies": {**to_plain(state)["armies"],
                                                    "A": codec.pack_plain(army)}},
        codec.unpack_plain)
    read_other = engine.state_from_plain(
        {**engine.state_to_plain(state), "armies": {**to_plain(state)["armies"],
                                                    "A": codec.pack_plain(renamed)}},
        codec.unpack_plain)
    assert read_one.armies["A"] == state.armies["A"]
    assert read_other.armies["A"].name == state.armies["A"].name + "!"


@pytest.mark.parametrize(("packed", "unpack", "problem"), [
    (b"\xc1", codec.unpack_plain, "armies.A: packed data that does not unpack"),
    (codec.pack_plain({"id": 3}), codec.unpack_plain, "armies.A"),
    (codec.pack_plain(to_plain(_fielded().armies["A"])), None,
     "armies.A: is packed, and the reader was given no codec"),
])
def test_packed_armies_that_cannot_be_read_are_refused_naming_them(
        packed: bytes, unpack: Callable[[bytes], Plain] | None, problem: str) -> None:
    plain = engine.state_to_plain(_fielded())
    plain["armies"] = {**plain["armies"], "A": packed}
    with pytest.raises(FormatError, match=problem):
        engine.state_from_plain(plain, unpack)


def test_without_a_codec_the_state_is_written_as_before() -> None:
    plain = engine.state_to_plain(_fielded())
    assert all(isinstance(army, dict) for army in plain["armies"].values())
    assert isinstance(engine.state_from_plain(plain).armies["A"], ArmyList)


def test_every_state_of_the_scripted_game_round_trips_with_its_armies_kept_apart() -> None:
    """``armies=False`` writes no army list; given back (``armies_to_plain``'s form, packed
    or not), the state reads back exactly."""
    for state in _scripted_states()[::4]:
        for pack, unpack in ((codec.pack_plain, codec.unpack_plain), (None, None)):
            plain = engine.state_to_plain(state, pack, armies=False)
            assert "armies" not in plain
            apart = engine.armies_to_plain(state, pack)
            assert apart == engine.state_to_plain(state, pack)["armies"]
            stored = codec.unpack_plain(codec.pack_plain(plain))
            kept = codec.unpack_plain(codec.pack_plain(apart))
            back = engine.state_from_plain(stored, unpack, kept)
            assert back == state and _exactly(back) == _exactly(state)


def test_a_state_with_its_own_armies_ignores_the_ones_given_apart() -> None:
    state = _fielded()
    whole = engine.state_to_plain(state, codec.pack_plain)
    back = engine.state_from_plain(whole, codec.unpack_plain, {"A": b"", "B": b""})
    assert back == state
