"""The room's dice: a committed secret, both players' contributions, and a d20 per roll.

How every die of a game is made (docs/fair-play.md; ``server/verify.py`` checks a finished
game's record against it):

* When a room is created the server draws a 256-bit ``secret`` from the operating system's
  CSPRNG and publishes ``commitment(secret)``: SHA-256 over ``COMMITMENT_PREFIX + secret``.
* Each player sends 32 random bytes of its own (``contribution``) with its army choice,
  after seeing the commitment and before the first roll (initiative).
* The dice key is HMAC-SHA256(secret, ``KEY_PREFIX + contribution_A + contribution_B``):
  the server cannot choose it after the commitment, and neither player can choose it
  without the secret, so no one of the three chooses the dice.
* Die number ``n`` (0, 1, 2, ... over the whole game: the ``cursor``) is the first value
  below ``ACCEPT_BELOW`` among the first four octets (big-endian) of HMAC-SHA256(key,
  ``b"d20" + n as 8 octets + attempt as 4 octets``) for attempt = 0, 1, ...; the face is
  ``1 + value % 20``. Rejecting the top 16 values of 2^32 removes the modulo bias.

The generator is a plain value in the game state: the key, the cursor, faces that tests
inject, and the faces generated since the last event that rolled (``drawn``), which that
event records so that a verifier can check each die in order.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evolve import replace
from ..ids import Side

D20_FACES = 20
SECRET_BYTES = 32
CONTRIBUTION_BYTES = 32
COMMITMENT_PREFIX = b"infinity-referee/dice-commitment/v1\x00"
KEY_PREFIX = b"infinity-referee/dice-key/v1\x00"
FIXED_SEED_PREFIX = b"infinity-referee/fixed-seed/v1\x00"
ACCEPT_BELOW = 2**32 - 2**32 % D20_FACES
"""4,294,967,280: the largest multiple of 20 not above 2^32."""


class InvalidFaceError(ValueError):
    """A face that is not a whole number from 1 to 20."""


class NoDiceKeyError(RuntimeError):
    """A die was needed before both players contributed their entropy."""


def check_face(face: object) -> int:
    """Return ``face`` if it is an int in 1..20, else raise ``InvalidFaceError``."""
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= D20_FACES:
        raise InvalidFaceError(f"a d20 face must be a whole number from 1 to 20, got {face!r}")
    return face


def is_hex_octets(text: object, octets: int) -> bool:
    """``text`` is exactly ``octets`` bytes written as lowercase hexadecimal."""
    return (isinstance(text, str) and len(text) == 2 * octets
            and all(c in "0123456789abcdef" for c in text))


def commitment(secret: str) -> str:
    """The public commitment to a room's secret (64 hexadecimal characters)."""
    return hashlib.sha256(COMMITMENT_PREFIX + bytes.fromhex(secret)).hexdigest()


def fixed_secret(seed: int) -> str:
    """A secret made from a number, for tests, scenarios and the bench only: whoever knows
    the number knows every die. Rooms with one say so (``fixed_dice``)."""
    return hashlib.sha256(FIXED_SEED_PREFIX + str(seed).encode()).hexdigest()


def dice_key(secret: str, contribution_a: str, contribution_b: str) -> str:
    """The key every die of the game comes from (hexadecimal)."""
    message = KEY_PREFIX + bytes.fromhex(contribution_a) + bytes.fromhex(contribution_b)
    return hmac.new(bytes.fromhex(secret), message, hashlib.sha256).hexdigest()


def die_face(key: bytes, index: int) -> int:
    """Die number ``index`` of the game for the raw ``key`` (1..20)."""
    prefix = b"d20" + index.to_bytes(8, "big")
    attempt = 0
    while True:
        block = hmac.new(key, prefix + attempt.to_bytes(4, "big"), hashlib.sha256).digest()
        value = int.from_bytes(block[:4], "big")
        if value < ACCEPT_BELOW:
            return 1 + value % D20_FACES
        attempt += 1


@dataclass(frozen=True, slots=True)
class Dice:
    """Generator state.

    ``key`` is ``dice_key(...)``, empty until both players have contributed. ``cursor``
    counts the dice generated so far (injected faces do not move it). ``injected`` holds
    faces that tests (or a scripted scenario) want rolled next, in order. ``drawn`` holds
    the faces generated since the last event that rolled (that event carries them).
    """

    key: str = ""
    cursor: int = 0
    injected: tuple[int, ...] = ()
    drawn: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.cursor < 0:
            raise ValueError(f"cursor must not be negative, got {self.cursor}")
        for face in self.injected:
            check_face(face)

    def settled(self) -> Dice:
        """This generator once an event has recorded its ``drawn`` faces."""
        return replace(self, drawn=()) if self.drawn else self


@dataclass(frozen=True, slots=True)
class DiceSource:
    """What the dice key is made from: the room's secret and each player's contribution
    (all hexadecimal). Never in any view; revealed by the game's end (``GameEnded``)."""

    secret: str = ""
    contributions: Mapping[Side, str] = field(default_factory=dict)

    def contributed(self, side: Side, entropy: str) -> DiceSource:
        return replace(self, contributions={**self.contributions, side: entropy})

    def key(self) -> str:
        """The dice key once both players have contributed, else ""."""
        if len(self.contributions) < 2:
            return ""
        return dice_key(self.secret, self.contributions[Side.A], self.contributions[Side.B])


def dice_reveal(source: DiceSource) -> dict[str, object]:
    """What the end of a game reveals about its dice (``GameEnded.dice_revealed``)."""
    return {
        "secret": source.secret,
        "commitment": commitment(source.secret),
        "contributions": {side.value: source.contributions.get(side, "") for side in Side},
    }


def roll_d20(dice: Dice, count: int) -> tuple[tuple[int, ...], Dice]:
    """Roll ``count`` d20: injected faces first, in order, then generated ones.

    Returns the faces and the generator state to keep for the next roll.
    """
    if count < 0:
        raise ValueError(f"cannot roll a negative number of dice ({count})")
    from_queue = dice.injected[:count]
    generated = count - len(from_queue)
    fresh: tuple[int, ...] = ()
    if generated:
        if not dice.key:
            raise NoDiceKeyError("no die can be rolled before both players contribute entropy")
        key = bytes.fromhex(dice.key)
        fresh = tuple(die_face(key, dice.cursor + i) for i in range(generated))
    after = replace(dice, cursor=dice.cursor + generated, injected=dice.injected[count:],
                    drawn=dice.drawn + fresh)
    return from_queue + fresh, after


def inject(dice: Dice, faces: Sequence[int]) -> Dice:
    """Queue ``faces`` to be rolled after any faces already injected."""
    checked = tuple(check_face(face) for face in faces)
    return replace(dice, injected=dice.injected + checked)
