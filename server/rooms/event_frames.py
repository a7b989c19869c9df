"""The frames one command's events make for a room's viewers (a ``Delivery``).

Each viewer sees the events through the engine's views, made from the plain forms that were
also stored, and the ARO window as it stands after them (the same for everyone). When no
event is seen differently by anyone (most commands), one view and one encoding serve every
socket.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import codec
from protocol.messages import Events
from server.fanout import AUDIENCES, Audience, Delivery
from server.rooms.engine_port import Engine, Event, Plain, State


def events_delivery(engine: Engine, state: State, version: int, first: int,
                    events: Sequence[Event], plains: Sequence[Plain],
                    window: dict[str, Plain] | None,
                    listening: Callable[[Audience], bool]) -> Delivery:
    """``events`` (versions ``first``..``version``) with their ``event_to_plain`` forms, for
    ``state`` (the room's state after them), with ``window`` (``window_fields`` of the ARO
    window open after them, or None); an audience nobody is ``listening`` as gets no frame
    (no view, no encoding)."""
    if all(engine.same_for_every_viewer(event) for event in events):
        view = [engine.view_event_from_plain(event, plain, Audience.SPECTATOR.value, state)
                for event, plain in zip(events, plains, strict=True)]
        return Delivery.same(version, codec.encode(Events(first, view, window)))
    frames = {}
    for audience in AUDIENCES:
        if not listening(audience):
            frames[audience] = b""
            continue
        view = [engine.view_event_from_plain(event, plain, audience.value, state)
                for event, plain in zip(events, plains, strict=True)]
        frames[audience] = codec.encode(Events(first, view, window))
    return Delivery(version, frames[Audience.A], frames[Audience.B], frames[Audience.SPECTATOR])
