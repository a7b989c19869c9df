"""How the node's log lines look: text (the default) or one JSON object per line.

``REFEREE_LOG_FORMAT=json`` (``Settings.log_format``): every line is an object with
``time`` (UTC, ISO 8601, milliseconds), ``level``, ``logger`` and ``message``, plus
``room`` on every line logged in a room's context, and ``exception`` with its traceback
when there is one. uvicorn's own lines (its start-up, errors and access log) go through
the same handler then.

A room's context: ``Room.run`` sets ``current_room`` in its task, so every line logged by
the room's task (and by callbacks and tasks it starts, which copy its context) carries the
room id; ``RoomFilter``, on the handler, copies it onto each record as ``record.room``
(None outside a room), where any formatter may read it.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

current_room: ContextVar[str | None] = ContextVar("current_room", default=None)
"""The room whose task (or socket) is running: set by ``Room.run``."""

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FORMATS = ("text", "json")


class RoomFilter(logging.Filter):
    """Sets ``record.room`` to the room of the context the line is logged in (or None)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.room = current_room.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        room = getattr(record, "room", None)
        if room is not None:
            line["room"] = room
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def json_handler() -> logging.Handler:
    """A stderr handler writing JSON lines that carry the room."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RoomFilter())
    return handler


def configure(level: str, log_format: str) -> None:
    """The root logger's handler for ``python -m server``; ValueError for an unknown
    format (the node does not start)."""
    if log_format not in FORMATS:
        raise ValueError(f"REFEREE_LOG_FORMAT must be one of {', '.join(FORMATS)}, "
                         f"got {log_format!r}")
    if log_format == "json":
        logging.basicConfig(level=level.upper(), handlers=[json_handler()])
    else:
        # With the time: a warning (a slow collection, a lost Redis) is read against what
        # the players saw at that moment.
        logging.basicConfig(level=level.upper(), format=TEXT_FORMAT)


def uvicorn_options(log_format: str) -> dict[str, Any]:
    """uvicorn's logging options: with JSON lines, uvicorn configures no handler of its own
    and its loggers reach the root's JSON handler."""
    return {"log_config": None} if log_format == "json" else {}
