"""Rooms that play the benchmark's scripted game (``testkit.scripted_game``: every command of
it is accepted) through real server nodes, each seat a websocket client that behaves as a
player's client does when things go wrong on the server's side:

- a command answered ``storage_unavailable`` ("try again") is sent again under its id;
- a connection the node closes (4011: the room's bus link reset, or the room stopped) is
  opened again from the version the seat holds, and the command it was waiting for is sent
  again under its id;
- a hello refused ``storage_unavailable`` (the room could not be opened: its keys split
  between two masters for a moment) is sent again on a new connection;
- a connection the node drops without a close (its process was killed) is opened again as
  soon as the seat notices, and a connection refused while the node is down is tried again
  once the test says it may be up (``down``); a seat that waits for nothing notices when the
  test tells it its connection was lost (``reconnect_if_lost``), as a client's socket would.

While slots are being moved (``Moves``, told of ``redis-cli``'s progress) a seat sends again
at the move's next step, not at once (what refused it changes only with a step), and a room
plays at the pace of the move, so that the game lasts the whole move.

Every send of a command and every answer is recorded per connection, so that a test can
check what players rely on: each send gets exactly one answer (a connection closed while a
command was in flight owes none: the command is sent again on the next one), a command
is answered only ``accepted`` or "try again", an id sent again gets the answer it got
first, and what was accepted is in the room's stored record at the version it was
accepted at (``assert_stored_as_answered``). Retries are bounded by count, not by time: a
room that never answers again fails the test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import Accepted, Error, Events, Hello, Rejected, Welcome
from server.lobby.tokens import new_seat_token, token_hash
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot
from server.rooms.rules_engine import RulesCoreEngine
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore
from testkit.scripted_game import RULESET, TABLE, plan
from testkit.wsclient import Client

SEED = 7
ORDERS = 150
"""Orders of the script planned: far more commands (235) than a room plays in the test."""
ENGINE = RulesCoreEngine()
TRIES = 200
"""Sends of one command (or hellos of one seat) at most before the room counts as frozen:
a slot is half-moved for a few round trips only, and every refusal is answered at once."""
OTHER = {"A": "B", "B": "A"}


def script() -> list[tuple[str, dict[str, object]]]:
    """(seat, command body) of the scripted game, each ARO window closed by its seat."""
    return [(str(seat), body) for seat, body in plan(SEED, max_orders=ORDERS).commands()]


async def create_scripted_room(store: RedisRoomStore, room_id: str) -> tuple[str, str]:
    """Store a new room ``room_id`` (chosen for its slot) at version 0 as the lobby would,
    with the script's ruleset, table and seed; its seat tokens (A, B)."""
    token_a, token_b = new_seat_token(), new_seat_token()
    settings = RoomSettings(RULESET, 600.0, "private", fixed_seed=SEED, table=TABLE)
    meta = RoomMeta(room_id, settings, token_hash(token_a), token_hash(token_b), 1)
    state = ENGINE.new_game(RULESET, SEED, TABLE)
    await store.create_room(meta, pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN),
                            None)
    return token_a, token_b


@dataclass
class Seat:
    """One player's seat, over as many connections as it took."""

    base: str
    room_id: str
    token: str
    connections: list[Client] = field(default_factory=list)
    sent: list[list[str]] = field(default_factory=list)  # the ids sent, per connection
    closes: list[int | None] = field(default_factory=list)  # the close codes received
    answers: dict[str, list[Accepted | Rejected]] = field(default_factory=dict)
    refused_hellos: int = 0
    refused_connections: int = 0
    again: Callable[[], Awaitable[None]] | None = None
    """Awaited before a command or a hello is sent again after "try again" (the slot moves:
    what refused it changes only as the move goes on); None: at once."""
    down: Callable[[], Awaitable[None]] | None = None
    """Awaited before connecting again after the node refused or dropped a connection before
    its welcome (its process is down: returns once it may be up again); None: that fails
    the test."""
    _busy: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    """Held while the seat sends or reads (one thing at a time, as one client)."""

    @property
    def client(self) -> Client:
        return self.connections[-1]

    @property
    def version(self) -> int:
        return self.client.version

    async def join(self) -> None:
        """Connect (again: from the version held); a hello refused "try again" is sent again
        on a new connection."""
        since = self.client.version if self.connections else None
        for _ in range(TRIES):
            try:
                client = await Client.connect(self.base, self.room_id, hello=False)
            except (OSError, InvalidHandshake):
                await self._node_down()
                continue
            try:
                await client.send(Hello(PROTOCOL_VERSION, self.room_id, self.token, since))
                first = await client.next()
            except ConnectionClosed as closed:
                self._closed(closed)
                if closed.rcvd is None:  # dropped, not closed: the node's process is down
                    await self._node_down()
                continue
            if isinstance(first, Welcome):
                client.welcome = first
                client.version = first.version if since is None else since
                self.connections.append(client)
                self.sent.append([])
                return
            assert isinstance(first, Error), first
            assert first.code == ProtocolReason.STORAGE_UNAVAILABLE, first
            self.refused_hellos += 1
            self.closes.append(await client.close_code())
            if self.again is not None:
                await self.again()
        raise AssertionError(f"room {self.room_id}: hello refused {TRIES} times")

    async def _node_down(self) -> None:
        self.refused_connections += 1
        if self.down is None:
            raise AssertionError(f"room {self.room_id}: {self.base} refused the connection")
        await self.down()

    async def reconnect_if_lost(self, lost: Client) -> None:
        """What a client does when the socket ``lost`` drops while it waits for nothing:
        once it is closed, connect again from the version held (unless the seat did so by
        itself meanwhile: it noticed as it sent or read)."""
        async with self._busy:
            if self.client is lost:
                self.closes.append(await lost.close_code())
                await self.join()

    async def command(self, body: dict[str, object], command_id: str) -> Accepted:
        """Send ``body`` until it is accepted: again under its id after "try again", and on
        a new connection after the node closed this one."""
        async with self._busy:
            return await self._command(body, command_id)

    async def _command(self, body: dict[str, object], command_id: str) -> Accepted:
        for _ in range(TRIES):
            try:
                await self.client.send_command(body, id=command_id)
                self.sent[-1].append(command_id)
                answer = await self.client.answer(command_id)
            except ConnectionClosed as closed:
                self._closed(closed)
                await self.join()
                continue
            self.answers.setdefault(command_id, []).append(answer)
            if isinstance(answer, Accepted):
                return answer
            assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
            if self.again is not None:
                await self.again()
        raise AssertionError(f"room {self.room_id}: {command_id} refused {TRIES} times")

    async def holds(self, version: int) -> None:
        """Read until the seat holds ``version`` (connecting again if the node closes)."""
        async with self._busy:
            while self.client.version < version:
                try:
                    await self.client.next()
                except ConnectionClosed as closed:
                    self._closed(closed)
                    await self.join()

    def _closed(self, closed: ConnectionClosed) -> None:
        self.closes.append(closed.rcvd.code if closed.rcvd is not None else None)

    @property
    def tries_again(self) -> int:
        return sum(isinstance(answer, Rejected) for answers in self.answers.values()
                   for answer in answers)

    def assert_answered_once(self, dropped: bool = False) -> None:
        """On every connection, each command sent got exactly one answer, in order: only
        the last one sent on a connection the node closed may have none. The node closed
        connections only with 4011 (room unavailable here: connect again), or, ``dropped``
        (its process was killed), also without a close."""
        for client, sent in zip(self.connections, self.sent, strict=True):
            answered = [answer.id for answer in client.answers()]
            owed = (sent,) if client is self.client else (sent, sent[:-1])
            assert answered in owed, (self.room_id, answered, sent)
        allowed = {CloseCode.ROOM_UNAVAILABLE, *([None] if dropped else [])}
        assert set(self.closes) <= allowed, self.closes


@dataclass
class Moves:
    """How far the moves got, in ``redis-cli``'s steps as it reports them (``advance``;
    ``testkit.cluster_rebalance.Progress``: a slot or a key moved), and whether they are over:
    what paces the rooms. Before the moves are over a room may play its command ``n`` only
    once ``steps_per_command * (n - first)`` steps were made, so that its script lasts (a
    whole game is a few hundred commands, a move thousands of slots) and its commands
    spread over the whole move; it waits on the move's progress, not on time."""

    first: int
    steps_per_command: int
    steps: int = 0
    begun: set[int] = field(default_factory=set)  # the slots redis-cli began to move
    started: bool = False
    over: bool = False
    _tick: asyncio.Event = field(default_factory=asyncio.Event)

    def allows(self, n: int) -> bool:
        return self.over or n < self.first + self.steps // self.steps_per_command

    def advance(self, steps: int, begun: list[int]) -> None:
        self.steps += steps
        self.begun.update(begun)
        self._wake()

    def finish(self) -> None:
        self.over = True
        self._wake()

    def _wake(self) -> None:
        tick, self._tick = self._tick, asyncio.Event()
        tick.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await self._tick.wait()

    async def next_step(self) -> None:
        """Wait for ``redis-cli``'s next step while the moves are under way (a seat told
        "try again" sends again then: its slot's state changes only with a step)."""
        if self.started and not self.over:
            await self._tick.wait()


@dataclass
class ScriptedRoom:
    room_id: str
    seats: dict[str, Seat]
    commands: list[tuple[str, dict[str, object]]]
    accepted: list[tuple[str, str, int]] = field(default_factory=list)  # (seat, id, version)
    during_moves: int = 0  # commands answered while slots were being moved
    after_moves: int = 0  # commands sent (and accepted) after the moves were over
    playing: asyncio.Event = field(default_factory=asyncio.Event)
    opens_when_moving: int | None = None
    """A slot: the seats open the room only once ``redis-cli`` says it began to move that
    slot (the room's: the node claims and loads it while its keys move, unless the test's
    loop read that too late), or once the moves are over; None: the test opens it before
    (``join``)."""

    async def join(self) -> None:
        for seat in self.seats.values():  # (A first: its node claims the room)
            await seat.join()

    async def play(self, moves: Moves, after: int) -> None:
        """Play the script, one command at a time as ``moves`` allows, each seat holding
        the other's events before it commands, until ``after`` commands were played after
        the moves. Sets ``playing`` once the first command is accepted (or the room
        failed)."""
        try:
            if self.opens_when_moving is not None:
                await moves.until(lambda: moves.over or self.opens_when_moving in moves.begun)
                await self.join()
            for n, (side, body) in enumerate(self.commands):
                await moves.until(lambda: moves.allows(n))  # noqa: B023 (awaited at once)
                if moves.over and self.after_moves >= after:
                    return
                started_after = moves.over
                answer = await self.seats[side].command(body, f"{side}{n}")
                self.accepted.append((side, answer.id, answer.version))
                if moves.started and not moves.over:
                    self.during_moves += 1
                self.after_moves += started_after
                self.playing.set()
                await self.seats[OTHER[side]].holds(answer.version)
            raise AssertionError(f"room {self.room_id}: the script ran out ({moves.steps} "
                                 f"steps of the moves, {len(self.accepted)} accepted)")
        finally:
            self.playing.set()

    async def assert_ids_answered_as_first(self) -> None:
        """Every id sent more than once (after "try again", or again on a new connection),
        sent once more now, gets the answer it was accepted with: each id's answers are
        one ``accepted`` version, and "try again" before it."""
        for side, seat in self.seats.items():
            for command_id, answers in list(seat.answers.items()):
                sends = sum(sent.count(command_id) for sent in seat.sent)
                if sends > 1:
                    body = self.commands[int(command_id[1:])][1]
                    await seat.command(body, command_id)  # (recorded in its answers)
                versions = {a.version for a in answers if isinstance(a, Accepted)}
                assert len(versions) == 1, (self.room_id, side, command_id, answers)

    async def assert_stored_as_answered(self, store: RedisRoomStore) -> None:
        """The room's stored record holds every accepted command, once and in order: its
        events are what each seat received, version by version (replayed from the first
        state), and each command that made events has its stored answer at the version it
        was accepted at."""
        stored = await store.load_room(self.room_id)
        assert stored is not None, f"room {self.room_id} lost"
        payloads = await store.events_since(self.room_id, 0)
        assert payloads is not None and len(payloads) == stored.version
        events = [ENGINE.event_from_plain(codec.unpack_plain(p)) for p in payloads]
        final = ENGINE.apply_all(ENGINE.new_game(RULESET, SEED, TABLE), events)
        for side, seat in self.seats.items():
            views = [ENGINE.view_event(event, side, final) for event in events]
            seen = dict(enumerate([view for view in views if view is not None], 1))
            assert received(seat) == seen, f"room {self.room_id}: seat {side}'s events"
        answers = {(answer.seat, answer.command_id): codec.decode_server(answer.frame)
                   for answer in stored.answers}
        previous = 0
        for side, command_id, version in self.accepted:
            first = answers.get((side, command_id))
            if first is None:  # accepted without events: nothing was stored
                assert version == previous, (side, command_id, version)
            else:
                assert isinstance(first, Accepted) and first.version == version, (
                    side, command_id, first, version)
            previous = version
        assert previous == stored.version, (previous, stored.version)

    async def close(self) -> None:
        for seat in self.seats.values():
            await seat.client.close()


def received(seat: Seat) -> dict[int, object]:
    """Version -> event as the seat received it over all its connections (a version seen
    twice must be the same event)."""
    seen: dict[int, object] = {}
    for client in seat.connections:
        for frame in client.of(Events):
            for offset, event in enumerate(frame.events):
                version = frame.first + offset
                assert seen.get(version, event) == event, f"version {version} changed"
                seen[version] = event
    return seen
