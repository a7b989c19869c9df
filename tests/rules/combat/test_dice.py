"""The room's dice: a committed 256-bit secret, both players' contributions, HMAC-SHA256
per die with rejection sampling (docs/fair-play.md).

Implementation test: no rule section. The dice's fairness and secrecy are the project's
(docs/fair-play.md); the rules only ask for a d20."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.combat.dice import (
    ACCEPT_BELOW,
    Dice,
    DiceSource,
    InvalidFaceError,
    NoDiceKeyError,
    commitment,
    dice_key,
    die_face,
    fixed_secret,
    inject,
    roll_d20,
)
from server.rules.ids import Side
from server.rules.plain import from_plain, to_plain

SECRET = "11" * 32
KEY = dice_key(SECRET, "aa" * 32, "bb" * 32)


def _dice(key: str = KEY, cursor: int = 0) -> Dice:
    return Dice(key=key, cursor=cursor)


def test_same_key_gives_the_same_faces_in_two_independent_generators() -> None:
    """Replays must reproduce rolls: equal states roll equal faces."""
    faces_a, after_a = roll_d20(_dice(), 10)
    faces_b, after_b = roll_d20(_dice(), 10)
    assert faces_a == faces_b
    assert after_a == after_b


def test_rolling_in_pieces_equals_rolling_at_once() -> None:
    """The generator is counter-based: 3 + 4 dice give the same faces as 7 dice."""
    first, dice = roll_d20(_dice(), 3)
    second, dice = roll_d20(dice, 4)
    together, _ = roll_d20(_dice(), 7)
    assert first + second == together


def test_each_contribution_changes_the_dice() -> None:
    """Neither player's contribution nor the secret alone fixes the dice."""
    base, _ = roll_d20(_dice(), 20)
    for key in (dice_key(SECRET, "ab" * 32, "bb" * 32), dice_key(SECRET, "aa" * 32, "bc" * 32),
                dice_key("12" * 32, "aa" * 32, "bb" * 32)):
        assert roll_d20(_dice(key), 20)[0] != base


def test_faces_follow_the_documented_hmac_formula() -> None:
    """The formula is the contract a verifier recomputes (written out here on its own)."""
    key = hmac.new(bytes.fromhex(SECRET),
                   b"infinity-referee/dice-key/v1\x00" + bytes.fromhex("aa" * 32 + "bb" * 32),
                   hashlib.sha256).digest()
    assert key.hex() == KEY
    expected = []
    for index in (5, 6, 7):
        block = hmac.new(key, b"d20" + index.to_bytes(8, "big") + bytes(4), hashlib.sha256).digest()
        value = int.from_bytes(block[:4], "big")
        assert value < ACCEPT_BELOW  # these three need no second attempt
        expected.append(1 + value % 20)
    faces, _ = roll_d20(_dice(cursor=5), 3)
    assert faces == tuple(expected)


def test_a_value_in_the_rejected_top_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values from 4,294,967,280 up would favour faces 1-16: they are rejected and the next
    attempt decides (16 in 2^32 per die, so real keys almost never show it: the HMAC is
    replaced by one whose first attempt lands in the rejected top)."""
    real_new = hmac.new
    attempts: list[bytes] = []

    class Rigged:
        def __init__(self, key: bytes, message: bytes, digestmod: object) -> None:
            self._message = message
            attempts.append(message[-4:])

        def digest(self) -> bytes:
            if self._message[-4:] == bytes(4):
                return ACCEPT_BELOW.to_bytes(4, "big") + bytes(28)
            return real_new(bytes(32), self._message, hashlib.sha256).digest()

    monkeypatch.setattr("server.rules.combat.dice.hmac.new", Rigged)
    face = die_face(bytes(32), 3)
    monkeypatch.undo()
    retry = hmac.new(bytes(32), b"d20" + (3).to_bytes(8, "big") + (1).to_bytes(4, "big"),
                     hashlib.sha256).digest()
    assert attempts == [bytes(4), (1).to_bytes(4, "big")]
    assert face == 1 + int.from_bytes(retry[:4], "big") % 20


def test_the_commitment_is_a_domain_separated_sha256_of_the_secret() -> None:
    expected = hashlib.sha256(b"infinity-referee/dice-commitment/v1\x00" + bytes.fromhex(SECRET))
    assert commitment(SECRET) == expected.hexdigest()
    assert len(commitment(SECRET)) == 64


def test_the_key_needs_both_contributions() -> None:
    source = DiceSource(SECRET).contributed(Side.A, "aa" * 32)
    assert source.key() == ""
    assert source.contributed(Side.B, "bb" * 32).key() == KEY
    with pytest.raises(NoDiceKeyError):
        roll_d20(Dice(), 1)


def test_cursor_advances_one_per_generated_die_and_drawn_records_them() -> None:
    faces, dice = roll_d20(_dice(), 4)
    assert dice.cursor == 4
    assert dice.drawn == faces
    _, dice = roll_d20(dice, 0)
    assert dice.cursor == 4
    assert dice.settled().drawn == ()


def test_injected_faces_are_consumed_first_in_order_then_the_generator_continues() -> None:
    dice = inject(_dice(), [20, 1])
    dice = inject(dice, [7])
    faces, dice = roll_d20(dice, 2)
    assert faces == (20, 1)
    assert dice.injected == (7,)
    assert dice.cursor == 0  # injected faces are not generator draws
    assert dice.drawn == ()
    faces, dice = roll_d20(dice, 3)
    assert faces[0] == 7
    assert faces[1:] == roll_d20(_dice(), 2)[0]
    assert dice.cursor == 2
    assert dice.injected == ()


@pytest.mark.parametrize("bad", [0, 21, -3, 100])
def test_invalid_injected_faces_are_rejected(bad: int) -> None:
    with pytest.raises(InvalidFaceError):
        inject(_dice(), [5, bad])
    with pytest.raises(InvalidFaceError):
        Dice(injected=(bad,))


def test_negative_dice_count_is_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        roll_d20(_dice(), -1)


def test_dice_state_round_trips_through_plain_data() -> None:
    """The generator is part of the stored game state."""
    dice = inject(_dice(cursor=9), [3, 18])
    assert to_plain(dice) == {"key": KEY, "cursor": 9, "injected": [3, 18], "drawn": []}
    assert from_plain(Dice, to_plain(dice)) == dice


def test_a_fixed_seed_makes_a_full_size_secret() -> None:
    assert len(bytes.fromhex(fixed_secret(7))) == 32
    assert fixed_secret(7) != fixed_secret(8)


@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=10**12),
       st.integers(0, 30))
def test_generated_faces_are_always_between_1_and_20(key: bytes, cursor: int, count: int) -> None:
    faces, dice = roll_d20(Dice(key=key.hex(), cursor=cursor), count)
    assert len(faces) == count
    assert all(1 <= face <= 20 for face in faces)
    assert dice.cursor == cursor + count


def test_generated_faces_cover_every_face_roughly_evenly() -> None:
    """Sanity check of the mapping: 4000 draws hit every face, none wildly off."""
    faces, _ = roll_d20(_dice(), 4000)
    counts = [faces.count(face) for face in range(1, 21)]
    assert min(counts) > 120
    assert max(counts) < 280
