"""The frames one command's events make for a room's viewers (a ``Delivery``).

Each audience gets the events it may know of, through the engine's views, made from the
plain forms that were also stored, numbered in its own sequence (``numbering``), with the
ARO window as it stands after them (the same for everyone). When no event is seen
differently by anyone (most commands), one view serves every audience, and one encoding
serves every audience whose sequence stands at the same number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from protocol import codec
from protocol.messages import Events
from server.fanout import AUDIENCES, Audience, Delivery
from server.rooms.engine_port import Plain
from server.rooms.numbering import AudienceViews, Seen


class Answering(NamedTuple):
    """The events are the acceptance of ``command_id``, sent by the seat whose audience is
    ``audience``: that audience's frame names it (``Events.accepted``) and is the command's
    answer. A seat's audience has one subscriber, the seat's connection, so nobody else
    sees it."""

    audience: Audience
    command_id: str


def events_delivery(version: int, seen_before: Seen, views: AudienceViews,
                    window: dict[str, Plain] | None,
                    listening: Callable[[Audience], bool],
                    answering: Answering | None = None,
                    clocks: dict[str, Plain] | None = None) -> Delivery:
    """The frames of one commit's events: ``views`` (``numbering.audience_views``) for the
    room at global ``version``, with ``window`` (``window_fields`` of the ARO window open
    after them, or None). Each audience's frame starts at its ``seen_before`` count + 1.
    An audience nobody is ``listening`` as gets no frame (no encoding), and neither does
    one that may know of none of the events, unless its frame answers a command. With
    ``answering``, its audience's frame names its command. ``clocks``: the chess clocks
    after them (``clocks_fields``), the same for everyone."""
    encoded: dict[tuple[int, str | None, int], bytes] = {}
    frames: dict[Audience, bytes] = {}
    for audience in AUDIENCES:
        view = views[audience]
        accepted = answering.command_id if answering and answering.audience is audience else None
        if not listening(audience) or (not view and accepted is None):
            frames[audience] = b""
            continue
        key = (seen_before[audience] + 1, accepted, id(view))
        frame = encoded.get(key)
        if frame is None:
            frame = encoded[key] = codec.encode(Events(key[0], view, window, accepted, clocks))
        frames[audience] = frame
    return Delivery(version, frames[Audience.A], frames[Audience.B], frames[Audience.SPECTATOR])
