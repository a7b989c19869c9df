"""Why a tournament request is refused: one stable code per reason
(docs/tournaments.md lists them with their HTTP status)."""

from __future__ import annotations


class Refused(Exception):
    def __init__(self, code: str, message: str, status: int = 400,
                 retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s
        """Whole seconds after which asking again may succeed (``Retry-After``), if known."""


def conflict(code: str, message: str) -> Refused:
    return Refused(code, message, 409)
