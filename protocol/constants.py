"""The protocol's shared constants: the one source for the server and the JS client.

Everything a client switches on lives here: the protocol version, the message tags, the
reason codes of rejected commands and protocol errors, and the websocket close codes.
``protocol.generate_js`` writes them to ``client-js/src/protocol-constants.js``; a test fails
when that file is out of date. Values never change meaning once published; new ones may be
added (and a breaking change bumps ``PROTOCOL_VERSION``).
"""

from __future__ import annotations

from enum import IntEnum, StrEnum

from server.rules.reasons import Reason

PROTOCOL_VERSION = 3
"""Sent by the client in ``hello``; the server closes with ``UNSUPPORTED_VERSION`` otherwise."""

WS_PATH = "/ws"
"""The websocket endpoint, relative to the server's origin."""


class ClientTag(StrEnum):
    """Tags of the messages a client sends."""

    HELLO = "hello"
    COMMAND = "command"
    SYNC = "sync"
    PING = "ping"
    OPTIONS = "options"
    HISTORY = "history"
    MEASURE = "measure"


class ServerTag(StrEnum):
    """Tags of the messages the server sends."""

    WELCOME = "welcome"
    SNAPSHOT = "snapshot"
    EVENTS = "events"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    PRESENCE = "presence"
    ERROR = "error"
    PONG = "pong"
    OPTIONS = "options"
    SPECTATORS = "spectators"
    HISTORY = "history"
    MEASUREMENT = "measurement"


class ProtocolReason(StrEnum):
    """Reason codes the server itself gives, beside the rules core's ``Reason`` codes.

    A ``rejected`` answer to a command carries either one of these or a rules ``Reason``;
    an ``error`` message (a frame that was not a usable message) carries one of these.
    """

    MALFORMED_FRAME = "malformed_frame"  # not msgpack, not a map, or a text frame
    UNKNOWN_MESSAGE_TYPE = "unknown_message_type"
    BAD_MESSAGE = "bad_message"  # a known message with missing or wrongly typed fields
    UNEXPECTED_MESSAGE = "unexpected_message"  # e.g. a second hello
    SPECTATOR_READ_ONLY = "spectator_read_only"
    STALE_VERSION = "stale_version"  # issued against an older version than the room's
    FUTURE_VERSION = "future_version"  # issued against a version the room has not reached
    ROOM_BUSY = "room_busy"  # the room's inbox is full; try again
    INTERNAL_ERROR = "internal_error"  # the server failed; the command was not applied
    STORAGE_UNAVAILABLE = "storage_unavailable"  # storage is down; nothing acknowledged, resend the same id
    # Sent in an ``error`` frame just before the matching close code:
    HANDSHAKE_TIMEOUT = "handshake_timeout"
    UNSUPPORTED_VERSION = "unsupported_version"
    ROOM_NOT_FOUND = "room_not_found"
    BAD_TOKEN = "bad_token"
    CASTER_WITHDRAWN = "caster_withdrawn"  # the organizer withdrew this caster link


class CloseCode(IntEnum):
    """Websocket close codes the server uses (4000-4999 are application codes)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # the server is shutting down
    MESSAGE_TOO_BIG = 1009  # above the transport's hard frame ceiling (never decoded)
    PROTOCOL_ERROR = 4002  # first message not a hello, or too many bad frames
    BAD_TOKEN = 4003  # the seat token does not open a seat of this room
    ROOM_NOT_FOUND = 4004
    UNSUPPORTED_VERSION = 4005
    HANDSHAKE_TIMEOUT = 4006  # no hello in time
    RATE_LIMITED = 4008  # more messages than the rate limit allows
    FRAME_TOO_LARGE = 4009  # above the protocol's frame size limit
    REPLACED = 4010  # the same seat connected again from elsewhere
    ROOM_UNAVAILABLE = 4011  # the room stopped on this server (moved or failed)
    CASTER_WITHDRAWN = 4012  # the organizer withdrew this caster link (at hello or later)


RULE_REASONS: tuple[str, ...] = tuple(reason.value for reason in Reason)
"""The rules core's rejection codes, listed here so the JS constants carry them too."""
