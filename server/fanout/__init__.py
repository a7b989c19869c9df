"""Delivery of a room's messages to its viewers behind a small interface (``Fanout``)."""

from server.fanout.interface import AUDIENCES, SEATS, Audience, Delivery, Fanout, Subscriber
from server.fanout.local import LocalFanout

__all__ = ["AUDIENCES", "SEATS", "Audience", "Delivery", "Fanout", "LocalFanout", "Subscriber"]
