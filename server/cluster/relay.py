"""A room owned by another node, as this node's viewers see it: ``RelayRoom`` (a
``RoomDoor``).

Joins, commands, leaves and ``sync``, ``options``, ``history`` and ``measure`` requests of
local viewers are forwarded on the room's ``in`` channel; the owner's messages arrive on its
``out`` channel in the order the room made them. Each local viewer is first *pending* (its
join is on its way; broadcasts are not for it yet, its catch-up will contain them), becomes
*live* with its first direct frame (the welcome), and is *resyncing* while it waits for a
snapshot (after a send-queue overflow or a lost bus message): broadcasts are skipped for it
until the snapshot arrives, except the answer to its own command that its ``events`` frame
may carry (``Events.accepted``), which it gets as a standalone ``accepted``. When the owner
changes (a takeover) or the bus was reset, every viewer is closed with 4011 and reconnects;
the JS client resumes from its version and sends its pending commands again.

Spectators and casters joining afresh (no ``since``) are greeted here from a crowd kit
(``server.cluster.crowd_kit``) when one is current: the first of an audience to join after a
broadcast asks the owner for a kit (``Greeting.KIT``), those arriving meanwhile wait for it,
and everyone until the next broadcast is greeted from it at once, the owner only told
(``Greeting.QUIET``). If the one who asked leaves before the kit came, the next waiting one
asks again before its leave is sent, so the owner relays the room's broadcasts without a gap
while a kit may be handed out.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from protocol import codec
from protocol.codec import DecodeError
from protocol.constants import CloseCode
from protocol.messages import Command, HistoryRequest, Measure, Snapshot, command_answer
from server.cluster.bus import Bus
from server.cluster.crowd_kit import CrowdKit
from server.cluster.wire import (
    Broadcast,
    CloseMember,
    Direct,
    Greeting,
    Inbound,
    Kit,
    RelayJoin,
    RelayLeave,
    RelayOptions,
    RelayQuery,
    RelayResync,
    RelaySubmit,
    Reset,
    decode_outbound,
    encode_inbound,
    in_channel,
    out_channel,
)
from server.fanout import AUDIENCES, SEATS, Audience, Delivery
from server.fanout.slices import Hold, loop_slices
from server.metrics import (
    RELAY_FROM_OWNER,
    RELAY_GAPS,
    RELAY_JOINS_FROM_KIT,
    RELAY_JOINS_FROM_OWNER,
    RELAY_TO_OWNER,
)
from server.rooms.door import RoomMoved
from server.rooms.seats import Member, deliver_together
from server.store import RoomMeta

log = logging.getLogger(__name__)


_member_ids = itertools.count(1)


class Phase(Enum):
    PENDING = "pending"
    LIVE = "live"
    RESYNCING = "resyncing"


@dataclass(eq=False, slots=True)
class Relayed:
    member: Member
    id: int
    phase: Phase = Phase.PENDING
    seated: bool = False  # a seat's viewer: served before the read-only ones
    role: str | None = None  # what its join names at the owner: a seat, "caster" or None
    live_from: int = 0  # the bus message after which it got its welcome or last snapshot
    at_owner: bool = False  # its join was forwarded to the owner
    hold: Hold | None = None  # a seat's command on its way: this node's crowds wait
    welcomed: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    """None once welcomed; or why the viewer must join elsewhere (``RoomMoved``'s message).
    A reason, not the exception: an exception kept in the future would carry the traceback
    of the join that raised it, whose frames hold this record, which holds the future: a
    reference cycle holding the socket's objects, kept for good once a node's freeze put it
    out of the collector's reach."""


@dataclass(eq=False, slots=True)
class KitRequest:
    """An audience's kit asked of the owner and not come yet: who asked (its own join), and
    who arrived meanwhile and waits for it."""

    asker: int
    waiting: list[Relayed] = field(default_factory=list)


class RelayRoom:
    def __init__(self, bus: Bus, node_id: str, meta: RoomMeta, owner: str,
                 join_timeout_s: float, on_empty: Callable[[RelayRoom], None]) -> None:
        self.meta = meta
        self.room_id = meta.room_id
        self.owner = owner
        self.stopped = False
        self._bus = bus
        self._node_id = node_id
        self._join_timeout_s = join_timeout_s
        self._on_empty = on_empty
        self._in = in_channel(self.room_id)
        self._out = out_channel(self.room_id)
        self._by_member: dict[Member, Relayed] = {}
        self._by_id: dict[int, Relayed] = {}
        self._seated: dict[int, Relayed] = {}  # the seats among them
        self._fence: int | None = None
        self._seq = 0
        self._kits: dict[Audience, CrowdKit] = {}  # current: no broadcast since they came
        self._asking: dict[Audience, KitRequest] = {}
        self._at_owner = 0  # viewers whose join was forwarded and not their leave

    async def open(self) -> None:
        await self._bus.subscribe(self._out, self.on_message)

    async def close(self) -> None:
        await self._bus.unsubscribe(self._out, self.on_message)

    def has_viewers(self) -> bool:
        return bool(self._by_id)

    # --- RoomDoor -----------------------------------------------------------------------

    async def join(self, member: Member, seat: str | None, since: int | None) -> None:
        if self.stopped:
            raise RoomMoved(self.room_id)
        relayed = Relayed(member, next(_member_ids), seated=member.audience in SEATS, role=seat)
        self._by_member[member] = relayed
        self._by_id[relayed.id] = relayed
        if relayed.seated:
            self._seated[relayed.id] = relayed
        if relayed.seated or since is not None:
            # A seat, or a viewer resuming (the owner sends what it missed, not a snapshot).
            self._join_at_owner(relayed, since, Greeting.MEMBER)
        else:
            self._greet_crowd(relayed)
        if not relayed.welcomed.done():
            try:
                async with asyncio.timeout(self._join_timeout_s):
                    await asyncio.shield(relayed.welcomed)
            except TimeoutError:
                self._drop(relayed)
                if relayed.at_owner:
                    self._send(RelayLeave(self._node_id, relayed.id))
                raise RoomMoved(
                    f"{self.room_id}: the owner {self.owner} did not answer") from None
        moved = relayed.welcomed.result()
        if moved is not None:
            raise RoomMoved(moved)

    def submit(self, member: Member, seat: str | None, command: Command) -> bool:
        relayed = self._by_member.get(member)
        if relayed is not None:
            if relayed.seated:
                # Until the owner's next frame for the seat (its answer, as a rule), this
                # node's crowds wait: the answer's way back is not behind their slices.
                self._answered(relayed)
                slices = loop_slices()
                relayed.hold = slices.hold() if slices is not None else None
            self._send(RelaySubmit(self._node_id, relayed.id, codec.encode(command)))
        return True

    def leave(self, member: Member) -> None:
        relayed = self._by_member.get(member)
        if relayed is not None:
            self._drop(relayed)
            if relayed.at_owner:
                self._send(RelayLeave(self._node_id, relayed.id))

    def resync(self, member: Member, since: int | None) -> None:
        relayed = self._by_member.get(member)
        if relayed is not None:
            self._send(RelayResync(self._node_id, relayed.id, since))

    def request_options(self, member: Member) -> None:
        relayed = self._by_member.get(member)
        if relayed is not None:
            self._send(RelayOptions(self._node_id, relayed.id))

    def history(self, member: Member, request: HistoryRequest) -> bool:
        self._query(member, request)
        return True  # a busy owner answers room_busy itself

    def measure(self, member: Member, request: Measure) -> None:
        self._query(member, request)

    def overflow_frame(self, member: Member) -> bytes:
        relayed = self._by_member.get(member)
        if relayed is not None and relayed.phase is Phase.LIVE:
            self._ask_snapshot(relayed)
        return b""  # the owner's snapshot arrives as a direct frame

    # --- the owner's messages -----------------------------------------------------------

    def on_message(self, data: bytes) -> None:
        RELAY_FROM_OWNER.inc()
        envelope = decode_outbound(data)
        if self._fence is None or envelope.fence > self._fence:
            if self._fence is not None:  # a new owner took the room over
                self.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
                return
            self._fence = envelope.fence
        elif envelope.fence < self._fence:
            return  # an older owner's late message
        elif envelope.seq != self._seq + 1:
            log.warning("room %s: bus message lost (seq %d after %d); resyncing viewers",
                        self.room_id, envelope.seq, self._seq)
            RELAY_GAPS.inc()
            self._kits.clear()  # it may have missed a broadcast
            for relayed in list(self._by_id.values()):
                if relayed.phase is Phase.LIVE:
                    self._ask_snapshot(relayed)
        self._seq = envelope.seq
        body = envelope.body
        if isinstance(body, Broadcast):
            self._kits.clear()  # newcomers must see it: the next asks for a kit again
            delivery = body.delivery
            # Once per audience, not per viewer: thousands of spectators share one frame.
            frames = {audience: delivery.frame_for(audience) for audience in AUDIENCES}
            live = Phase.LIVE
            # The seats first: a player's frame does not wait for thousands of spectators'.
            for relayed in self._seated.values():
                self._answered(relayed)
                if relayed.phase is live:
                    frame = frames[relayed.member.audience]
                    if frame:
                        relayed.member.deliver(frame)
                elif relayed.phase is Phase.RESYNCING:
                    self._pass_answer(relayed, delivery)
            # Then the others in slices (``server.fanout.slices``): those here now, each
            # unless it left or got a snapshot (newer than this) meanwhile.
            viewers = [relayed for relayed in self._by_id.values() if not relayed.seated]
            slices = loop_slices()
            if slices is None:
                for relayed in viewers:
                    self._hand(relayed, frames, delivery, self._seq)
            else:
                seq = self._seq
                slices.add(viewers, lambda relayed: self._hand(relayed, frames, delivery, seq))
        elif isinstance(body, Direct):
            if body.node == self._node_id:
                self._direct(body.member, body.frame)
        elif isinstance(body, Kit):
            if body.node == self._node_id:
                self._kit(body)
        elif isinstance(body, CloseMember):
            if body.node == self._node_id:
                self._close_member(body.member, body.code, body.reason)
        elif isinstance(body, Reset):
            self.moved(CloseCode.ROOM_UNAVAILABLE, "room bus reset; reconnect")

    def moved(self, code: int, reason: str) -> None:
        """The owner changed or messages were lost: every viewer reconnects."""
        self.stopped = True
        self._kits.clear()
        self._asking.clear()
        for relayed in list(self._by_id.values()):
            self._drop(relayed)
            if relayed.welcomed.done():
                relayed.member.close(code, reason)
            else:
                relayed.welcomed.set_result(self.room_id)  # join() raises RoomMoved
        self._on_empty(self)

    # --- crowd kits (``server.cluster.crowd_kit``) -------------------------------------

    def _greet_crowd(self, relayed: Relayed) -> None:
        """A spectator or caster: greeted from its audience's kit if one is current, else
        it waits for the kit asked for, or asks for one."""
        audience = relayed.member.audience
        kit = self._kits.get(audience)
        if kit is not None:
            self._greet_from(kit, relayed)
            return
        asking = self._asking.get(audience)
        if asking is not None:
            asking.waiting.append(relayed)
            return
        self._asking[audience] = KitRequest(relayed.id)
        self._join_at_owner(relayed, None, Greeting.KIT)

    def _kit(self, body: Kit) -> None:
        """The kit an audience asked for: it greets who asked and who waited, and every
        newcomer of the audience until the next broadcast."""
        try:
            audience = Audience(body.audience)
            kit = CrowdKit.of(body.welcome, body.snapshot, asyncio.get_running_loop().time())
        except (DecodeError, ValueError):
            # The owner's bug, not the viewers': each is greeted by the owner instead.
            log.exception("room %s: unreadable crowd kit from %s", self.room_id, self.owner)
            self._unreadable_kit(body)
            return
        if self._at_owner:  # (else the owner may have stopped relaying: not kept)
            self._kits[audience] = kit
        asking = self._asking.pop(audience, None)
        for member_id in {body.member, asking.asker} if asking is not None else {body.member}:
            asker = self._by_id.get(member_id)  # (one who asked again after the first left)
            if asker is not None:
                self._greet_from(kit, asker)
        for relayed in asking.waiting if asking is not None else ():
            self._greet_from(kit, relayed)

    def _greet_from(self, kit: CrowdKit, relayed: Relayed) -> None:
        if self._by_id.get(relayed.id) is not relayed or relayed.phase is not Phase.PENDING:
            return  # gone, or greeted by an earlier kit
        if relayed.at_owner:
            RELAY_JOINS_FROM_OWNER.inc()  # the one who asked for this kit (or an earlier)
        else:
            RELAY_JOINS_FROM_KIT.inc()
            self._join_at_owner(relayed, None, Greeting.QUIET)
        relayed.phase = Phase.LIVE
        relayed.live_from = self._seq
        deliver_together(relayed.member,
                         (kit.welcome, kit.snapshot_at(asyncio.get_running_loop().time())))
        relayed.welcomed.set_result(None)

    def _unreadable_kit(self, body: Kit) -> None:
        asker = self._by_id.get(body.member)
        if asker is not None and asker.phase is Phase.PENDING:
            self._direct(body.member, body.welcome)
            self._direct(body.member, body.snapshot)
        for audience, asking in list(self._asking.items()):
            if asking.asker == body.member:
                del self._asking[audience]
                for relayed in asking.waiting:
                    if self._by_id.get(relayed.id) is relayed and not relayed.at_owner:
                        self._join_at_owner(relayed, None, Greeting.MEMBER)

    def _asker_left(self, relayed: Relayed) -> None:
        """``relayed`` asked for its audience's kit and left before it came: the next one
        waiting asks again (before the leave is sent: the owner relays on meanwhile)."""
        audience = relayed.member.audience
        asking = self._asking.get(audience)
        if asking is None or asking.asker != relayed.id:
            return
        while asking.waiting:
            following = asking.waiting.pop(0)
            if self._by_id.get(following.id) is following and following.phase is Phase.PENDING:
                asking.asker = following.id
                self._join_at_owner(following, None, Greeting.KIT)
                return
        del self._asking[audience]

    # --- helpers ------------------------------------------------------------------------

    def _join_at_owner(self, relayed: Relayed, since: int | None, greeting: str) -> None:
        relayed.at_owner = True
        self._at_owner += 1
        self._send(RelayJoin(self._node_id, relayed.id, relayed.role, since, greeting))

    def _direct(self, member_id: int, frame: bytes) -> None:
        relayed = self._by_id.get(member_id)
        if relayed is None:
            return
        self._answered(relayed)
        if relayed.phase is Phase.PENDING:
            relayed.phase = Phase.LIVE  # the first direct frame is the welcome
            relayed.live_from = self._seq
            relayed.member.deliver(frame)
            relayed.welcomed.set_result(None)
            return
        if relayed.phase is Phase.RESYNCING and isinstance(codec.decode_server(frame),
                                                            Snapshot):
            relayed.phase = Phase.LIVE
            relayed.live_from = self._seq
        relayed.member.deliver(frame)

    def _hand(self, relayed: Relayed, frames: dict[Audience, bytes], delivery: Delivery,
              seq: int) -> None:
        """A broadcast (bus message ``seq``) to one read-only viewer."""
        if self._by_id.get(relayed.id) is not relayed or relayed.live_from >= seq:
            return  # gone, or its welcome or snapshot came after this broadcast: it has it
        if relayed.phase is Phase.LIVE:
            frame = frames[relayed.member.audience]
            if frame:
                relayed.member.deliver(frame)
        elif relayed.phase is Phase.RESYNCING:
            self._pass_answer(relayed, delivery)

    @staticmethod
    def _pass_answer(relayed: Relayed, delivery: Delivery) -> None:
        """A seat waiting for its snapshot skips events (the snapshot has them), but not the
        answer to its command that its events frame may carry: every command is answered.
        Decoded only here, for a seat that is resyncing, which is rare."""
        audience = relayed.member.audience
        frame = delivery.frame_for(audience)
        if audience is Audience.SPECTATOR or not frame:
            return
        answer = command_answer(codec.decode_server(frame))  # an events frame naming it
        if answer is not None:
            relayed.member.deliver(codec.encode(answer))

    def _close_member(self, member_id: int, code: int, reason: str) -> None:
        relayed = self._by_id.get(member_id)
        if relayed is None:
            return
        self._drop(relayed)
        if relayed.welcomed.done():
            relayed.member.close(code, reason)
        else:
            relayed.welcomed.set_result(f"{self.room_id}: {reason}")

    def _query(self, member: Member, request: HistoryRequest | Measure) -> None:
        relayed = self._by_member.get(member)
        if relayed is not None:
            self._send(RelayQuery(self._node_id, relayed.id, codec.encode(request)))

    def _ask_snapshot(self, relayed: Relayed) -> None:
        relayed.phase = Phase.RESYNCING
        self._send(RelayResync(self._node_id, relayed.id, None))

    @staticmethod
    def _answered(relayed: Relayed) -> None:
        """A frame for ``relayed`` came from the owner: its command, if one was on its way,
        holds the crowds no longer."""
        if relayed.hold is not None:
            relayed.hold.release()
            relayed.hold = None

    def _drop(self, relayed: Relayed) -> None:
        if self._by_id.pop(relayed.id, None) is None:
            return
        self._answered(relayed)
        self._seated.pop(relayed.id, None)
        if self._by_member.get(relayed.member) is relayed:
            del self._by_member[relayed.member]
        if relayed.phase is Phase.PENDING and not relayed.seated:
            self._asker_left(relayed)
        if relayed.at_owner:
            self._at_owner -= 1
            if not self._at_owner:
                # The owner may stop relaying once it has the leave: a kit could miss the
                # next broadcast.
                self._kits.clear()
        if not self._by_id:
            self._on_empty(self)

    def _send(self, message: Inbound) -> None:
        # A seat's commands and queries are not counted: when a seat acts is its own
        # (server/metrics.py, "A seat's private actions").
        if not isinstance(message, RelaySubmit | RelayOptions | RelayQuery):
            RELAY_TO_OWNER.inc()
        self._bus.publish(self._in, encode_inbound(message))
