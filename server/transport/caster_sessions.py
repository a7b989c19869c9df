"""This node's caster websockets, by room and caster link, so that withdrawing a link
closes them at once: on this node directly, on every other through the room bus's
``WITHDRAWN_CHANNEL`` (every node of a cluster subscribes to it, ``join_bus``).

A caster's socket is watched from *before* its link is checked against the store (the
withdrawn records, ``server.store.caster_links``) until it leaves. The lobby stores a
withdrawal first and announces it after, so either the check sees the withdrawal (the
hello is refused) or the announcement finds the watch (the socket is closed, or refused
if it has no session yet): no caster slips between the two.

Each watched socket is read by the room whether it is owned here or relayed
(``server.cluster.relay``): closing the socket here is what stops its frames, on the
owner's node and on a relay's alike. A closed session drops every frame pushed after the
close (``SendQueue``), and the endpoint then takes it out of its room.

Pub/sub delivers at most once: a node whose bus connection dropped, or a withdrawal whose
node died between storing and announcing it, would leave a socket open. So every
``RECHECK_S`` each node also reads the records of the rooms it watches casters of
(``recheck``: one store read per such room; casters are few) and closes what it missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from protocol import codec
from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Error
from server.store import StorageUnavailable
from server.store.caster_links import CasterLink

log = logging.getLogger(__name__)

WITHDRAWN_CHANNEL = "{casters}:withdrawn"
"""The bus channel of withdrawals: msgpack ``[room id, nonce]``."""

WITHDRAWN_MESSAGE = "this caster link was withdrawn by the room's organizer"

RECHECK_S = 10.0
"""How often a node reads the records of the links it watches (a missed announcement is
made good this late at most; a caster's feed is at least 60 s behind the game anyway)."""


class Closable(Protocol):
    def deliver(self, frame: bytes) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class Bus(Protocol):
    async def subscribe(self, channel: str, handler: Callable[[bytes], None]) -> None: ...

    def publish(self, channel: str, data: bytes) -> None: ...


class Links(Protocol):
    async def caster_links(self, room_id: str) -> Sequence[CasterLink] | None: ...


class CasterWatch:
    """One caster socket of this node, from its link's check until it leaves."""

    __slots__ = ("nonce", "room_id", "session", "withdrawn")

    def __init__(self, room_id: str, nonce: str) -> None:
        self.room_id = room_id
        self.nonce = nonce
        self.session: Closable | None = None
        self.withdrawn = False


class CasterSessions:
    def __init__(self) -> None:
        self._watches: dict[tuple[str, str], set[CasterWatch]] = {}
        self._bus: Bus | None = None

    def watch(self, room_id: str, nonce: str) -> CasterWatch:
        """Watch a caster socket of the link ``nonce`` before checking that link."""
        watch = CasterWatch(room_id, nonce)
        self._watches.setdefault((room_id, nonce), set()).add(watch)
        return watch

    def attach(self, watch: CasterWatch, session: Closable) -> bool:
        """The socket's session, once made: False if the link was withdrawn meanwhile (then
        the caller refuses the hello)."""
        watch.session = session
        return not watch.withdrawn

    def forget(self, watch: CasterWatch) -> None:
        """The socket left (or was refused)."""
        key = (watch.room_id, watch.nonce)
        watches = self._watches.get(key)
        if watches is not None:
            watches.discard(watch)
            if not watches:
                del self._watches[key]

    def watching(self, room_id: str, nonce: str) -> int:
        """How many sockets of this link this node watches (closed ones until they left)."""
        return len(self._watches.get((room_id, nonce), ()))

    def withdrawn(self, room_id: str, nonce: str) -> int:
        """Close this node's sockets of a withdrawn link, each with an ``error``
        ``caster_withdrawn`` then close 4012; returns how many were closed now."""
        closed = 0
        for watch in self._watches.get((room_id, nonce), ()):
            if watch.withdrawn:
                continue
            watch.withdrawn = True
            if watch.session is not None:
                watch.session.deliver(codec.encode(Error(ProtocolReason.CASTER_WITHDRAWN,
                                                         WITHDRAWN_MESSAGE)))
                watch.session.close(CloseCode.CASTER_WITHDRAWN, WITHDRAWN_MESSAGE)
                closed += 1
        if closed:
            log.info("room %s: caster link withdrawn; %d socket(s) closed here", room_id,
                     closed)
        return closed

    def announce(self, room_id: str, nonce: str) -> None:
        """A withdrawal was stored: close the link's sockets here, and on every other node."""
        self.withdrawn(room_id, nonce)
        if self._bus is not None:
            self._bus.publish(WITHDRAWN_CHANNEL, codec.pack_plain([room_id, nonce]))

    async def join_bus(self, bus: Bus) -> None:
        """Hear the other nodes' withdrawals (a cluster node, at its start)."""
        await bus.subscribe(WITHDRAWN_CHANNEL, self._heard)
        self._bus = bus

    async def recheck(self, store: Links) -> int:
        """Close the sockets of every watched link the store says is withdrawn (an
        announcement this node missed); returns how many were closed."""
        closed = 0
        for room_id in {room_id for room_id, _ in self._watches}:
            links = await store.caster_links(room_id)
            for link in links or ():
                if link.withdrawn and (room_id, link.nonce) in self._watches:
                    closed += self.withdrawn(room_id, link.nonce)
        return closed

    async def recheck_forever(self, store: Links, every_s: float = RECHECK_S) -> None:
        """``recheck`` every ``every_s`` until cancelled (the app's lifespan runs it)."""
        while True:
            await asyncio.sleep(every_s)
            try:
                missed = await self.recheck(store)
            except StorageUnavailable as error:
                log.warning("caster links not rechecked: %s", error)
                continue
            except Exception:  # (the loop must go on: a withdrawn link would stay open)
                log.exception("caster links not rechecked")
                continue
            if missed:
                log.warning("%d caster socket(s) of withdrawn links closed late (a missed "
                            "announcement)", missed)

    def _heard(self, data: bytes) -> None:
        room_id, nonce = codec.unpack_plain(data)
        self.withdrawn(str(room_id), str(nonce))


def caster_sessions_for(state: object) -> CasterSessions:
    """The app's one ``CasterSessions`` (kept on ``app.state``, made at its first use)."""
    sessions = getattr(state, "caster_sessions", None)
    if not isinstance(sessions, CasterSessions):
        sessions = CasterSessions()
        setattr(state, "caster_sessions", sessions)  # noqa: B010 (Starlette's State)
    return sessions
