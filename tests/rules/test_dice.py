"""The seeded d20 generator kept in the game state ("randomness lives in the state")."""

from __future__ import annotations

from hashlib import blake2b

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.dice import Dice, InvalidFaceError, generated_face, inject, roll_d20
from server.rules.serial import from_plain, to_plain


def test_same_seed_gives_the_same_faces_in_two_independent_generators() -> None:
    """Replays must reproduce rolls: equal states roll equal faces."""
    faces_a, after_a = roll_d20(Dice(seed=1234), 10)
    faces_b, after_b = roll_d20(Dice(seed=1234), 10)
    assert faces_a == faces_b
    assert after_a == after_b


def test_rolling_in_pieces_equals_rolling_at_once() -> None:
    """The generator is counter-based: 3 + 4 dice give the same faces as 7 dice."""
    first, dice = roll_d20(Dice(seed=99), 3)
    second, dice = roll_d20(dice, 4)
    together, _ = roll_d20(Dice(seed=99), 7)
    assert first + second == together


def test_different_seeds_give_different_sequences() -> None:
    faces_a, _ = roll_d20(Dice(seed=1), 20)
    faces_b, _ = roll_d20(Dice(seed=2), 20)
    assert faces_a != faces_b


def test_faces_follow_the_documented_blake2b_formula() -> None:
    """The formula is part of the contract: any process on any platform can recompute it."""
    faces, _ = roll_d20(Dice(seed=7, cursor=5), 2)
    expected = tuple(
        1 + int.from_bytes(blake2b(f"7:{c}".encode(), digest_size=8).digest(), "big") % 20
        for c in (5, 6)
    )
    assert faces == expected
    assert generated_face(7, 5) == expected[0]


def test_cursor_advances_one_per_generated_die() -> None:
    _, dice = roll_d20(Dice(seed=3), 4)
    assert dice.cursor == 4
    _, dice = roll_d20(dice, 0)
    assert dice.cursor == 4


def test_injected_faces_are_consumed_first_in_order_then_the_generator_continues() -> None:
    dice = inject(Dice(seed=5), [20, 1])
    dice = inject(dice, [7])
    faces, dice = roll_d20(dice, 2)
    assert faces == (20, 1)
    assert dice.injected == (7,)
    assert dice.cursor == 0  # injected faces are not generator draws
    faces, dice = roll_d20(dice, 3)
    assert faces[0] == 7
    assert faces[1:] == roll_d20(Dice(seed=5), 2)[0]
    assert dice.cursor == 2
    assert dice.injected == ()


@pytest.mark.parametrize("bad", [0, 21, -3, 100])
def test_invalid_injected_faces_are_rejected(bad: int) -> None:
    with pytest.raises(InvalidFaceError):
        inject(Dice(seed=1), [5, bad])
    with pytest.raises(InvalidFaceError):
        Dice(seed=1, injected=(bad,))


def test_negative_dice_count_is_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        roll_d20(Dice(seed=1), -1)


def test_dice_state_round_trips_through_plain_data() -> None:
    """The generator is part of the stored game state."""
    dice = inject(Dice(seed=42, cursor=9), [3, 18])
    assert to_plain(dice) == {"seed": 42, "cursor": 9, "injected": [3, 18]}
    assert from_plain(Dice, to_plain(dice)) == dice


@given(st.integers(), st.integers(min_value=0, max_value=10**12), st.integers(0, 30))
def test_generated_faces_are_always_between_1_and_20(seed: int, cursor: int, count: int) -> None:
    faces, dice = roll_d20(Dice(seed=seed, cursor=cursor), count)
    assert len(faces) == count
    assert all(1 <= face <= 20 for face in faces)
    assert dice.cursor == cursor + count


def test_generated_faces_cover_every_face_roughly_evenly() -> None:
    """Sanity check of the modulo mapping: 4000 draws hit every face, none wildly off."""
    faces, _ = roll_d20(Dice(seed=2024), 4000)
    counts = [faces.count(face) for face in range(1, 21)]
    assert min(counts) > 120
    assert max(counts) < 280
