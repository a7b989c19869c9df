"""The base class of every event (``events.py`` lists them all)."""

from __future__ import annotations

from .plain import Tagged


class Event(Tagged):
    """Base of every event."""
