"""The answer to a command: the events it produced, or a rejection with a reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .events import Event
from .reasons import Reason
from .state import GameState


class System(StrEnum):
    """The room itself acting (its clock closing an ARO window at the deadline)."""

    SYSTEM = "system"


SYSTEM = System.SYSTEM


@dataclass(frozen=True, slots=True)
class Accepted:
    events: tuple[Event, ...]
    state: GameState = field(repr=False, compare=False)
    """The state the events lead to: ``apply_all(state decided on, events)``, which
    ``decide`` reached as it folded them (a decision is its events: not compared)."""


@dataclass(frozen=True, slots=True)
class Rejected:
    code: str
    message: str


Decision = Accepted | Rejected


class Rejection(Exception):
    """Raised inside validation code; the engine turns it into ``Rejected``."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def require(condition: bool, reason: Reason, message: str) -> None:
    if not condition:
        raise Rejection(reason, message)
