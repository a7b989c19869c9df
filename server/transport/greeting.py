"""A protocol 4 viewer's welcome and its catch-up as one frame (``Welcome.catch_up``).

A room sends a joining viewer its welcome, then its catch-up (an ``events`` or a
``snapshot`` frame), as protocol 3 has them, and a frame it sends meanwhile (a spectator
count sent by its timer while the catch-up reads the store) may come between the two. For a
protocol 4 socket its session keeps the welcome, and whatever follows it, until the
catch-up comes, then hands on the welcome carrying it and then what came between. So rooms,
relays and the crowd kits of other nodes all speak one form and each socket gets its own,
and a restart's thousands of returning viewers each read one frame instead of two
(docs/performance.md, "The restart").
"""

from __future__ import annotations

from protocol import codec
from protocol.messages import Welcome

_WELCOME = Welcome.TAG.value


class WelcomeMerge:
    """The frames a protocol 4 session was given before its welcome's catch-up."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: list[bytes] = []

    def take(self, frame: bytes) -> list[bytes] | None:
        """The frames to send, in order, now that ``frame`` came; None while the welcome
        waits for its catch-up. Once it returns frames the merge is over: a first frame that
        is no welcome (nothing to merge) is handed on as it is."""
        kept = self._kept
        tag = codec.message_tag(frame)
        if not kept:
            if tag != _WELCOME:
                return [frame]
            kept.append(frame)
            return None
        if tag not in codec.CATCH_UP_TAGS:
            kept.append(frame)
            return None
        return [codec.welcome_with_catch_up(kept[0], frame), *kept[1:]]

    def kept(self) -> list[bytes]:
        """What it keeps, as it came: for a socket closed before its catch-up (a room that
        stopped while the viewer joined), whose welcome then goes alone."""
        kept, self._kept = self._kept, []
        return kept
