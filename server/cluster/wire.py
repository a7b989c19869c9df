"""The room bus's messages (Redis pub/sub, msgpack via ``protocol.codec``).

Two channels per room, in the room's hash tag (so a Redis Cluster's sharded pub/sub could
carry them): ``{room:<id>}:in`` carries what relays forward to the owner (``RelayJoin``,
``RelaySubmit``, ``RelayResync``, ``RelayOptions``, ``RelayQuery``, ``RelayLeave``);
``{room:<id>}:out`` carries everything
the owner sends, as ``Envelope(fence, seq, body)``: a ``Broadcast`` (one ``Delivery``, bytes
per audience -- seats, spectators, casters -- for every relay's local viewers), a
``Direct`` frame for one relayed member (its welcome, catch-up, answers, snapshots), a
``Kit`` (a crowd's welcome and snapshot, which the relay hands to every spectator or caster
joining before the next broadcast: ``server.cluster.crowd_kit``), a ``CloseMember`` or a
``Reset``; first of all the ``FENCE_NOTICE`` of a room started. One owner publishes a
room's messages in order on one connection, so each relay sees them in the order the room
made them; ``seq`` (per fence) lets a relay detect a lost message.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.codec import pack_plain, unpack_plain
from server.fanout import Delivery


def in_channel(room_id: str) -> str:
    return f"{{room:{room_id}}}:in"


def out_channel(room_id: str) -> str:
    return f"{{room:{room_id}}}:out"


# --- relay -> owner ---------------------------------------------------------------------


class Greeting:
    """How the owner greets a relayed join (``RelayJoin.greeting``)."""

    MEMBER = "member"
    """Its welcome and catch-up as ``Direct`` frames (seats; viewers resuming a relay)."""
    KIT = "kit"
    """Its welcome and a snapshot as one ``Kit``, which its node keeps for the crowd."""
    QUIET = "quiet"
    """Nothing: its node already gave it the welcome and snapshot of a current ``Kit``."""


@dataclass(frozen=True, slots=True)
class RelayJoin:
    node: str
    member: int
    seat: str | None
    since: int | None
    greeting: str = Greeting.MEMBER


@dataclass(frozen=True, slots=True)
class RelaySubmit:
    node: str
    member: int
    frame: bytes  # the client's command frame as received (decoded again by the owner)


@dataclass(frozen=True, slots=True)
class RelayResync:
    node: str
    member: int
    since: int | None


@dataclass(frozen=True, slots=True)
class RelayOptions:
    node: str
    member: int


@dataclass(frozen=True, slots=True)
class RelayQuery:
    node: str
    member: int
    frame: bytes  # the client's ``history`` or ``measure`` frame as received


@dataclass(frozen=True, slots=True)
class RelayLeave:
    node: str
    member: int


Inbound = RelayJoin | RelaySubmit | RelayResync | RelayOptions | RelayQuery | RelayLeave


def encode_inbound(message: Inbound) -> bytes:
    if isinstance(message, RelayJoin):
        return pack_plain(["j", message.node, message.member, message.seat, message.since,
                           message.greeting])
    if isinstance(message, RelaySubmit):
        return pack_plain(["c", message.node, message.member, message.frame])
    if isinstance(message, RelayResync):
        return pack_plain(["r", message.node, message.member, message.since])
    if isinstance(message, RelayOptions):
        return pack_plain(["o", message.node, message.member])
    if isinstance(message, RelayQuery):
        return pack_plain(["q", message.node, message.member, message.frame])
    return pack_plain(["l", message.node, message.member])


def decode_inbound(data: bytes) -> Inbound:
    kind, node, member, *rest = unpack_plain(data)
    if kind == "j":
        greeting = str(rest[2]) if len(rest) > 2 else Greeting.MEMBER  # (a relay of before kits)
        if greeting not in (Greeting.MEMBER, Greeting.KIT, Greeting.QUIET):
            raise ValueError(f"unknown greeting {greeting!r}")
        return RelayJoin(node, int(member), rest[0], rest[1], greeting)
    if kind == "c":
        return RelaySubmit(node, int(member), bytes(rest[0]))
    if kind == "r":
        return RelayResync(node, int(member), rest[0])
    if kind == "o":
        return RelayOptions(node, int(member))
    if kind == "q":
        return RelayQuery(node, int(member), bytes(rest[0]))
    if kind == "l":
        return RelayLeave(node, int(member))
    raise ValueError(f"unknown relay message {kind!r}")


# --- owner -> relays --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Broadcast:
    delivery: Delivery


@dataclass(frozen=True, slots=True)
class Direct:
    node: str
    member: int
    frame: bytes


FENCE_NOTICE = Direct("", 0, b"")
"""What an owner sends first when it starts a room: a frame for no node (node ids are never
empty), so it says only the envelope's fence. A relay still on an older fence (the room's
previous owner: maybe this very node id before a ``kill -9`` and a restart, whose lease the
claim took back, so the relay's lease watch saw no new holder) sends its viewers to
reconnect; any other relay, of this version or an older one, drops it."""


@dataclass(frozen=True, slots=True)
class Kit:
    """The answer to a ``Greeting.KIT`` join: ``member``'s welcome and snapshot, which its
    node also hands to the others of ``audience`` joining before the room's next broadcast."""

    node: str
    member: int
    audience: str
    welcome: bytes
    snapshot: bytes


@dataclass(frozen=True, slots=True)
class CloseMember:
    node: str
    member: int
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class Reset:
    """The owner may have missed relayed messages (its bus reconnected): relays send their
    members to reconnect."""


Outbound = Broadcast | Direct | Kit | CloseMember | Reset


@dataclass(frozen=True, slots=True)
class Envelope:
    fence: int
    seq: int
    body: Outbound


def encode_outbound(envelope: Envelope) -> bytes:
    body = envelope.body
    head: list[object] = [envelope.fence, envelope.seq]
    if isinstance(body, Broadcast):
        d = body.delivery
        return pack_plain([*head, "b", d.version, d.a, d.b, d.spectator, d.caster])
    if isinstance(body, Direct):
        return pack_plain([*head, "d", body.node, body.member, body.frame])
    if isinstance(body, Kit):
        return pack_plain([*head, "k", body.node, body.member, body.audience, body.welcome,
                           body.snapshot])
    if isinstance(body, CloseMember):
        return pack_plain([*head, "x", body.node, body.member, body.code, body.reason])
    return pack_plain([*head, "r"])


def decode_outbound(data: bytes) -> Envelope:
    fence, seq, kind, *rest = unpack_plain(data)
    body: Outbound
    if kind == "b":
        caster = bytes(rest[4]) if len(rest) > 4 else b""  # (an owner of before casters)
        body = Broadcast(Delivery(int(rest[0]), bytes(rest[1]), bytes(rest[2]), bytes(rest[3]),
                                  caster))
    elif kind == "d":
        body = Direct(rest[0], int(rest[1]), bytes(rest[2]))
    elif kind == "k":
        body = Kit(rest[0], int(rest[1]), str(rest[2]), bytes(rest[3]), bytes(rest[4]))
    elif kind == "x":
        body = CloseMember(rest[0], int(rest[1]), int(rest[2]), str(rest[3]))
    elif kind == "r":
        body = Reset()
    else:
        raise ValueError(f"unknown owner message {kind!r}")
    return Envelope(int(fence), int(seq), body)
