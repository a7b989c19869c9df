"""The ``measure`` query: a viewer's ruler and Line of Fire check, answered from the room's
state by the rules core's geometry (``server/rules/table/measure.py``, through the ``Engine``).

Like ``options``, it only reads the state, so it is answered at once, outside the room's
inbox. The answer is a ``measurement``, or a ``rejected`` with the request's id: the
rules core's reason (``unknown_trooper`` for any trooper the viewer may not know of,
``bad_position`` for a point off the table, ...) or ``bad_message`` for a point that is
not two numbers. A failure of the rules core is answered ``internal_error``, never raised
to the connection.
"""

from __future__ import annotations

import logging

from protocol import codec
from protocol.constants import ProtocolReason
from protocol.messages import Measure, Measurement, Rejected
from server.fanout import Audience
from server.rooms.engine_port import Engine, Refused, State

log = logging.getLogger(__name__)


def measurement_frame(engine: Engine, state: State, audience: Audience,
                      request: Measure) -> bytes:
    """The encoded answer to ``request`` from a viewer of ``audience``."""
    to = _point(request.to)
    origin = request.from_ if isinstance(request.from_, str) else _point(request.from_)
    if to is None or origin is None:
        return codec.encode(Rejected(request.id, ProtocolReason.BAD_MESSAGE,
                                     "measure: a point is a list of two numbers [x, y]"))
    try:
        measured = engine.measure(state, audience.value, origin, to, request.silhouette)
    except Refused as refused:
        return codec.encode(Rejected(request.id, refused.code, refused.message))
    except Exception:
        log.exception("measure failed: %s", request)
        return codec.encode(Rejected(request.id, ProtocolReason.INTERNAL_ERROR,
                                     "the server failed to measure"))
    return codec.encode(Measurement(
        request.id, request.from_, request.to, measured["distance"], measured["silhouette"],
        measured["line_of_fire"], measured["in_front_arc"], measured["weapons"]))


def _point(value: list[float]) -> tuple[float, float] | None:
    """``[x, y]`` (the codec has checked they are finite numbers), or None."""
    if len(value) != 2:
        return None
    return float(value[0]), float(value[1])
