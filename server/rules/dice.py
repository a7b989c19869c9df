"""The seeded d20 generator that lives inside the game state.

The generator is a plain value: a seed, a cursor counting the faces drawn from the generator,
and a queue of injected faces. Rolling returns the faces together with the next ``Dice`` value,
so replaying the same events from the same starting state reproduces every roll exactly.

Faces come from a counter-based generator (BLAKE2b over ``"{seed}:{cursor}"``) rather than
Python's ``random``: the result depends only on the two integers, never on the interpreter
version, the platform or any hidden state, and any single face can be recomputed on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import blake2b

from .evolve import replace

D20_FACES = 20


class InvalidFaceError(ValueError):
    """A face that is not a whole number from 1 to 20."""


def check_face(face: object) -> int:
    """Return ``face`` if it is an int in 1..20, else raise ``InvalidFaceError``."""
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= D20_FACES:
        raise InvalidFaceError(f"a d20 face must be a whole number from 1 to 20, got {face!r}")
    return face


@dataclass(frozen=True, slots=True)
class Dice:
    """Generator state.

    ``cursor`` counts the faces drawn from the generator so far (injected faces do not move it).
    ``injected`` holds faces that tests (or a scripted scenario) want rolled next, in order.
    """

    seed: int
    cursor: int = 0
    injected: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.cursor < 0:
            raise ValueError(f"cursor must not be negative, got {self.cursor}")
        for face in self.injected:
            check_face(face)


def generated_face(seed: int, cursor: int) -> int:
    """The face the generator yields for ``seed`` at position ``cursor`` (pure, 1..20)."""
    digest = blake2b(f"{seed}:{cursor}".encode(), digest_size=8).digest()
    return 1 + int.from_bytes(digest, "big") % D20_FACES


def roll_d20(dice: Dice, count: int) -> tuple[tuple[int, ...], Dice]:
    """Roll ``count`` d20: injected faces first, in order, then generated ones.

    Returns the faces and the generator state to keep for the next roll.
    """
    if count < 0:
        raise ValueError(f"cannot roll a negative number of dice ({count})")
    from_queue = dice.injected[:count]
    generated = count - len(from_queue)
    fresh = tuple(generated_face(dice.seed, dice.cursor + i) for i in range(generated))
    after = replace(dice, cursor=dice.cursor + generated, injected=dice.injected[count:])
    return from_queue + fresh, after


def inject(dice: Dice, faces: Sequence[int]) -> Dice:
    """Queue ``faces`` to be rolled after any faces already injected."""
    checked = tuple(check_face(face) for face in faces)
    return replace(dice, injected=dice.injected + checked)
