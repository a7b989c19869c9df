"""The frames one command's events make for a room's viewers (a ``Delivery``).

Each viewer sees the events through the engine's views, made from the plain forms that were
also stored, and the ARO window as it stands after them (the same for everyone). When no
event is seen differently by anyone (most commands), one view and one encoding serve every
socket, plus one more encoding when a seat's frame names the command it accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from protocol import codec
from protocol.messages import Events
from server.fanout import AUDIENCES, Audience, Delivery
from server.rooms.engine_port import Engine, Event, Plain, State


class Answering(NamedTuple):
    """The events are the acceptance of ``command_id``, sent by the seat whose audience is
    ``audience``: that audience's frame names it (``Events.accepted``) and is the command's
    answer. A seat's audience has one subscriber, the seat's connection, so nobody else
    sees it."""

    audience: Audience
    command_id: str


def events_delivery(engine: Engine, state: State, version: int, first: int,
                    events: Sequence[Event], plains: Sequence[Plain],
                    window: dict[str, Plain] | None,
                    listening: Callable[[Audience], bool],
                    answering: Answering | None = None) -> Delivery:
    """``events`` (versions ``first``..``version``) with their ``event_to_plain`` forms, for
    ``state`` (the room's state after them), with ``window`` (``window_fields`` of the ARO
    window open after them, or None); an audience nobody is ``listening`` as gets no frame
    (no view, no encoding). With ``answering``, its audience's frame names its command."""
    if all(engine.same_for_every_viewer(event) for event in events):
        view = [engine.view_event_from_plain(event, plain, Audience.SPECTATOR.value, state)
                for event, plain in zip(events, plains, strict=True)]
        frame = codec.encode(Events(first, view, window))
        if answering is None:
            return Delivery.same(version, frame)
        frames = dict.fromkeys(AUDIENCES, frame)
        frames[answering.audience] = codec.encode(
            Events(first, view, window, answering.command_id))
    else:
        frames = {}
        for audience in AUDIENCES:
            if not listening(audience):
                frames[audience] = b""
                continue
            view = [engine.view_event_from_plain(event, plain, audience.value, state)
                    for event, plain in zip(events, plains, strict=True)]
            frames[audience] = codec.encode(Events(first, view, window, _accepted(answering, audience)))
    return Delivery(version, frames[Audience.A], frames[Audience.B], frames[Audience.SPECTATOR])


def _accepted(answering: Answering | None, audience: Audience) -> str | None:
    if answering is None or answering.audience is not audience:
        return None
    return answering.command_id
