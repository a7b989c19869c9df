"""The websocket endpoint: handshake, limits, decoding, and handing messages to the room.

Protocol abuse closes the connection with a ``CloseCode``; a frame that is merely not a
usable message is answered with ``error`` (or ``rejected`` when it was a command whose id
could be read) and the connection stays open, up to ``max_bad_frames`` of them. Nothing
here touches game state: a bad client can only ever lose its own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import codec
from protocol.codec import DecodeError
from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import (
    Command,
    Error,
    Hello,
    HistoryRequest,
    Measure,
    OptionsRequest,
    Ping,
    Pong,
    Rejected,
    Sync,
)
from server.config import Settings
from server.lobby.admission import admission_for
from server.lobby.tokens import CASTER, caster_nonce, role_for_token
from server.log_format import current_room
from server.metrics import COMMAND_OUTCOMES, SOCKETS_BY_SEAT
from server.rooms.door import RoomDoor, RoomMoved
from server.rooms.registry import NodeShuttingDown, RoomRegistry
from server.rooms.room import Room, RoomStopped
from server.rooms.seats import role_seat
from server.rules.reasons import Reason
from server.store import StorageUnavailable
from server.store.interface import TRY_AGAIN
from server.transport.caster_sessions import (
    WITHDRAWN_MESSAGE,
    CasterSessions,
    CasterWatch,
    caster_sessions_for,
)
from server.transport.direct_frames import DirectFrames
from server.transport.keepalive import set_ping_interval
from server.transport.open_sockets import OpenSockets
from server.transport.rate_limit import TokenBucket
from server.transport.session import Session
from server.transport.work_budget import WorkBudgets
from server.transport.work_lane import Work, WorkLane

log = logging.getLogger(__name__)

NODE_HEADER = b"x-referee-node"
"""Response header of the websocket handshake naming the node that serves the socket."""

MESSAGE_TOKENS: dict[type, float] = {
    Command: 1.0, Ping: 1.0, Measure: 1.0, Sync: 2.0, OptionsRequest: 2.0, HistoryRequest: 2.0,
}
"""What each message takes of the socket's rate limit (``rate_per_s`` tokens a second,
``rate_burst`` at once; over it the socket is closed with RATE_LIMITED). A command joins the
room's bounded inbox and a ping is answered at once: one token. ``options`` (milliseconds of
the rules core at each new version), a ``history`` page and ``sync`` (a snapshot) take
two. A ``measure`` is one Line of Fire check and a few distances: one token. Besides, the
loop time of every query is budgeted as it is spent (``server.transport.work_budget``). A
whole 5,000-event history is 10 pages: 20 tokens of the burst of 40."""

HISTORY_FLOOR_S = 0.010
"""Loop time a ``history`` request is charged at least: its page is made later, in the
room's task (``bench.history_cost``, docs/performance.md)."""
RELAYED_OPTIONS_FLOOR_S = 0.005
"""Loop time a relayed ``options`` request is charged at least on the relaying node: the
owner computes it (milliseconds at a new version), where no budget of this socket's is."""
SYNC_FLOOR_S = 0.002
"""Loop time a ``sync`` is charged at least: the room builds a snapshot or a catch-up for
it later, in its task (a snapshot's view of a full N5 table)."""

JOIN_ATTEMPTS = 3
"""Joins tried when the room changes owner during the handshake (a takeover): then the
client is told to reconnect (4011)."""


class HandshakeRefused(Exception):
    def __init__(self, code: CloseCode, reason: ProtocolReason | Reason, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = str(reason)
        self.message = message


class WebsocketApp:
    """The ASGI app at the websocket path. Raw ASGI (a Starlette route calls an object as
    an ASGI app, a function as an endpoint): the session writes its frames with the
    connection's own ``send``, without Starlette's per-call state checks and exception
    wrapper that every frame of the fan-out would otherwise go through."""

    def __init__(self) -> None:
        self._budgets: WorkBudgets | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive, send)
        open_sockets: OpenSockets = websocket.app.state.open_sockets
        if self._budgets is None:  # the node's, made with its settings on first use
            self._budgets = WorkBudgets(websocket.app.state.settings, time.perf_counter())
        with open_sockets.track():
            await _websocket(websocket, send, self._budgets)


async def _websocket(websocket: WebSocket, send: Send, budgets: WorkBudgets) -> None:
    registry: RoomRegistry = websocket.app.state.registry
    settings: Settings = websocket.app.state.settings
    # Which node answered: behind a load balancer, operators and tests can tell.
    await websocket.accept(headers=[(NODE_HEADER, registry.node_id.encode())])
    casters = caster_sessions_for(websocket.app.state)
    try:
        # asyncio.timeout, not wait_for: no task of its own for every joining socket.
        async with asyncio.timeout(settings.handshake_timeout_s):
            hello = await _read_hello(websocket, settings)
        room, role = await _admit(registry, hello)
        watch = await _watch_caster(registry, casters, room, role, hello.token)
        seat = role_seat(role)  # (None for a spectator or a caster: read only)
        if seat is not None:  # the room is no longer one nobody uses (server.lobby.admission)
            admission_for(websocket.app.state, settings).started(room.meta.room_id)
    except NodeShuttingDown:
        # No error frame: nothing is wrong with the request; the client reconnects and the
        # load balancer sends it to another node.
        with contextlib.suppress(Exception):
            await websocket.close(CloseCode.GOING_AWAY, "server shutting down")
        return
    except TimeoutError:
        await _refuse(websocket, HandshakeRefused(
            CloseCode.HANDSHAKE_TIMEOUT, ProtocolReason.HANDSHAKE_TIMEOUT, "no hello in time"))
        return
    except HandshakeRefused as refused:
        await _refuse(websocket, refused)
        return
    except StorageUnavailable:
        await _refuse(websocket, HandshakeRefused(
            CloseCode.ROOM_UNAVAILABLE, ProtocolReason.STORAGE_UNAVAILABLE, TRY_AGAIN))
        return
    except WebSocketDisconnect:
        return
    if seat is None:  # a read-only viewer: pinged less often (``server.transport.keepalive``)
        set_ping_interval(websocket.scope, settings.ws_viewer_ping_interval_s)
    door = [room]  # the room may move to another owner while this viewer joins
    session = Session(send, role, settings.send_queue_frames,
                      lambda _audience: door[0].overflow_frame(session),
                      # read-only viewers always written directly (the fan-out's bulk),
                      # seats unless REFEREE_DIRECT_FRAMES=0
                      DirectFrames.for_scope(websocket.scope)
                      if settings.direct_frames or seat is None else None)
    if watch is not None and not casters.attach(watch, session):
        casters.forget(watch)  # withdrawn since its check: refused as if it had been then
        await _refuse(websocket, _withdrawn())
        return
    # The role travels where a seat would (a relay forwards it to the owner as it is); the
    # room takes "caster" for a read-only viewer of the caster audience (``role_seat``).
    joined = await _join(registry, door, session, role, hello.since)
    room = door[0]
    if not joined:
        if watch is not None:
            casters.forget(watch)
        if registry.closing:
            session.close(CloseCode.GOING_AWAY, "server shutting down")
        else:
            session.close(CloseCode.ROOM_UNAVAILABLE, "room stopped; reconnect")
        await session.finish()
        return
    room_id = room.meta.room_id
    current_room.set(room_id)  # this socket's log lines name its room
    sockets = SOCKETS_BY_SEAT[seat]
    sockets.inc()
    lane = WorkLane(budgets.take(room_id, seat, time.perf_counter()))
    try:
        await _serve(websocket, settings, room, session, lane)
    finally:
        sockets.dec()
        lane.close()
        budgets.give_back(room_id, seat, time.perf_counter())
        room.leave(session)
        if watch is not None:
            casters.forget(watch)
        await session.finish()


async def _read_hello(websocket: WebSocket, settings: Settings) -> Hello:
    frame = await _receive_frame(websocket)
    if frame is None:
        raise WebSocketDisconnect(1000)
    if isinstance(frame, str) or len(frame) > settings.max_frame_bytes:
        raise HandshakeRefused(CloseCode.PROTOCOL_ERROR, ProtocolReason.MALFORMED_FRAME,
                               "the first frame must be a binary msgpack hello")
    try:
        message = codec.decode_client(frame)
    except DecodeError as error:
        raise HandshakeRefused(CloseCode.PROTOCOL_ERROR, error.code, error.message) from None
    if not isinstance(message, Hello):
        raise HandshakeRefused(CloseCode.PROTOCOL_ERROR, ProtocolReason.UNEXPECTED_MESSAGE,
                               "the first message must be a hello")
    if message.protocol != PROTOCOL_VERSION:
        raise HandshakeRefused(CloseCode.UNSUPPORTED_VERSION, ProtocolReason.UNSUPPORTED_VERSION,
                               f"this server speaks protocol {PROTOCOL_VERSION}")
    return message


async def _join(registry: RoomRegistry, door: list[RoomDoor], session: Session,
                seat: str | None, since: int | None) -> bool:
    """Join ``door[0]``, opening the room again if it moved meanwhile; False: give up."""
    for _attempt in range(JOIN_ATTEMPTS):
        try:
            await door[0].join(session, seat, since)
            return True
        except RoomMoved:
            try:
                room = await registry.open(door[0].meta.room_id)
            except (StorageUnavailable, NodeShuttingDown):
                return False
            if room is None:
                return False
            door[0] = room
        except RoomStopped:
            return False
    return False


async def _admit(registry: RoomRegistry, hello: Hello) -> tuple[RoomDoor, str | None]:
    """The room and the role ``hello`` opens in it: "A"/"B" (a seat token), "caster" (a
    caster token made by the room's organizer), None (no token: a spectator)."""
    room = await registry.open(hello.room)
    if room is None:
        raise HandshakeRefused(CloseCode.ROOM_NOT_FOUND, ProtocolReason.ROOM_NOT_FOUND,
                               f"no room {hello.room!r}")
    if hello.token is None:
        return room, None
    role = role_for_token(room.meta, hello.token)
    if role is None:
        raise HandshakeRefused(CloseCode.BAD_TOKEN, ProtocolReason.BAD_TOKEN,
                               "this token opens no seat of this room, nor its caster feed")
    return room, role


async def _watch_caster(registry: RoomRegistry, casters: CasterSessions, room: RoomDoor,
                        role: str | None, token: str | None) -> CasterWatch | None:
    """A caster's socket is watched (``server.transport.caster_sessions``) from before its
    link is checked against the room's withdrawn links: a withdrawal stored after this
    check finds the watch. None for a seat or a spectator."""
    nonce = caster_nonce(token) if role == CASTER and token is not None else None
    if nonce is None:
        return None
    room_id = room.meta.room_id
    watch = casters.watch(room_id, nonce)
    try:
        links = await registry.store.caster_links(room_id)
    except BaseException:
        casters.forget(watch)
        raise
    if links is not None and any(link.nonce == nonce and link.withdrawn for link in links):
        casters.forget(watch)
        raise _withdrawn()
    return watch


def _withdrawn() -> HandshakeRefused:
    return HandshakeRefused(CloseCode.CASTER_WITHDRAWN, ProtocolReason.CASTER_WITHDRAWN,
                            WITHDRAWN_MESSAGE)


async def _refuse(websocket: WebSocket, refused: HandshakeRefused) -> None:
    try:
        await websocket.send_bytes(codec.encode(Error(refused.reason, refused.message)))
        await websocket.close(refused.code, refused.message[:120])
    except Exception:
        pass  # the peer is already gone


async def _receive_frame(websocket: WebSocket) -> bytes | str | None:
    """The next data frame, or None once the peer disconnected."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    data = message.get("bytes")
    if data is not None:
        return bytes(data)
    return str(message.get("text") or "")


async def _serve(websocket: WebSocket, settings: Settings, room: RoomDoor,
                 session: Session, lane: WorkLane) -> None:
    """Read frames until the peer leaves or is closed for abuse."""
    bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
    bad_frames = 0
    while not session.closing:
        frame = await _receive_frame(websocket)
        if frame is None:
            return
        if not bucket.allow():
            session.close(CloseCode.RATE_LIMITED, "too many messages")
            return
        if isinstance(frame, str):
            problem: Error | Rejected | None = Error(ProtocolReason.MALFORMED_FRAME,
                                                     "frames must be binary msgpack")
        elif len(frame) > settings.max_frame_bytes:
            session.close(CloseCode.FRAME_TOO_LARGE,
                          f"frames are limited to {settings.max_frame_bytes} bytes")
            return
        else:
            problem = _dispatch(frame, room, session, bucket, lane)
        if problem is not None:
            bad_frames += 1
            session.deliver(codec.encode(problem))
            if bad_frames > settings.max_bad_frames:
                session.close(CloseCode.PROTOCOL_ERROR, "too many bad frames")
                return


def _dispatch(frame: bytes, room: RoomDoor, session: Session, bucket: TokenBucket,
              lane: WorkLane) -> Error | Rejected | None:
    """Hand one frame to the room; returns the answer to a frame that was not usable. The
    frame has taken one token of ``bucket``; a message that costs more takes the rest of
    its ``MESSAGE_TOKENS`` here (over the limit: the connection is closed, as for any
    message), and the queries go through the socket's ``lane``."""
    try:
        message = codec.decode_client(frame)
    except DecodeError as error:
        if error.command_id is not None:
            COMMAND_OUTCOMES.rejected(error.code)
            return Rejected(error.command_id, error.code, error.message)
        return Error(error.code, error.message)
    tokens = MESSAGE_TOKENS.get(type(message), 1.0)
    if tokens > 1.0 and not bucket.allow(tokens - 1.0):
        session.close(CloseCode.RATE_LIMITED, "too many messages")
        return None
    if isinstance(message, Command):
        if not room.submit(session, session.seat, message):
            session.deliver(codec.encode(Rejected(message.id, ProtocolReason.ROOM_BUSY,
                                                  "the room is busy; try again")))
        return None
    if isinstance(message, Ping):
        session.deliver(codec.encode(Pong(message.nonce)))
        return None
    if isinstance(message, Sync):
        since = message.since
        resync = Work("sync", lambda: room.resync(session, since), SYNC_FLOOR_S)
        if not lane.push(resync):
            lane.run(resync)  # no id to refuse it by; rare, and two tokens each
        return None
    if isinstance(message, OptionsRequest):
        floor = 0.0 if isinstance(room, Room) else RELAYED_OPTIONS_FLOOR_S
        lane.push(Work("options", lambda: room.request_options(session), floor, merges=True))
        return None  # one waiting always answers it: never refused
    if isinstance(message, HistoryRequest):
        request = message
        if not lane.push(Work("history", lambda: _ask_history(room, session, request),
                              HISTORY_FLOOR_S)):
            session.deliver(_busy(request.id))
        return None
    if isinstance(message, Measure):
        asked = message
        if not lane.push(Work("measure", lambda: room.measure(session, asked))):
            session.deliver(_busy(asked.id))
        return None
    return Error(ProtocolReason.UNEXPECTED_MESSAGE, "hello was already received")


def _busy(query_id: str) -> bytes:
    return codec.encode(Rejected(query_id, ProtocolReason.ROOM_BUSY,
                                 "too many queries waiting; try again"))


def _ask_history(room: RoomDoor, session: Session, request: HistoryRequest) -> None:
    if not room.history(session, request):
        session.deliver(codec.encode(Rejected(request.id, ProtocolReason.ROOM_BUSY,
                                              "the room is busy; try again")))
