"""Every answer survives a crash between storing and answering (issue 18).

A real node (``python -m server`` on a real Redis, append-only file on) plays a CodeOne game
from army selection on; in each of ``ITERATIONS`` rounds it dies (``os._exit``, as a
``kill -9``) the moment Redis has confirmed one command's append and before it answered
anyone (``tests/cluster/crash_after_storing.py``: deterministic, no timing). A new node then
serves the room -- alternately under the dead node's name (it takes the room back at once)
and under another name (it takes the room over once the dead node's lease has run out) --
and every seat sends again every command id it ever sent:

- an id whose first answer the seat saw gets exactly that answer, byte for byte (the
  standalone ``accepted`` its ``events`` frame stood for);
- an id whose answer the seat never saw (the node died first) gets ``accepted`` with the
  seat's version right after that command's events -- it was applied exactly once -- and
  from then on exactly those bytes, through every later crash;
- nothing sent again is applied again: the room's stored version does not move.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from protocol import codec
from protocol.messages import Accepted, Command, command_answer
from server.fanout import Audience
from server.lobby.tokens import new_room_id, new_seat_token, token_hash
from server.rooms.numbering import (
    NONE_SEEN,
    pack_room_snapshot,
    state_from_stored,
)
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.ids import Side
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore
from testkit.full_game import next_command
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.wsclient import Client

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ITERATIONS = 24
ENGINE = RulesCoreEngine()
ENTROPY = {side: hashlib.sha256(f"crash: {side.value}".encode()).hexdigest() for side in Side}
CONNECT_TRIES = 10  # a node taking the room over sends early viewers to reconnect (4011)
READY = b"Uvicorn running on"


class CrashingNode(ServerProcess):
    """A node that dies right after storing the command ``crash_after`` (its answer)."""

    module = "tests.cluster.crash_after_storing"

    def __init__(self, redis_url: str, node_id: str, crash_after: str) -> None:
        super().__init__(redis_url, env={
            "REFEREE_NODE_ID": node_id, "CRASH_AFTER_STORING": crash_after,
            # The test answers at once: no rate limit in its way.
            "REFEREE_RATE_BURST": "100000", "REFEREE_RATE_PER_S": "100000"})

    async def crashed(self) -> int:
        """Wait for the process to have died; its exit status."""
        assert self.process is not None
        status = await self.process.wait()
        self.process = None
        if self._drain is not None:
            self.output += await self._drain
            self._drain = None
        return status


@dataclass
class Sent:
    side: Side
    version: int  # the seat's version it was sent at (sent again as it was)
    body: dict[str, Any]


@dataclass
class Game:
    """The room as stored, and what the two seats sent and were answered."""

    store: RedisRoomStore
    room_id: str
    tokens: dict[Side, str]
    sent: dict[str, Sent] = field(default_factory=dict)
    first: dict[str, bytes] = field(default_factory=dict)
    """Per command id, the standalone ``accepted`` its first answer stands for, as bytes."""
    unseen: dict[str, int] = field(default_factory=dict)
    """Command ids stored before a crash, never answered: the seat's version after them."""

    async def now(self) -> tuple[Any, dict[Audience, int], int]:
        """The game state, each audience's count of events and the global version, as
        stored (the test reads Redis as the next node will)."""
        stored = await self.store.load_room(self.room_id)
        assert stored is not None
        state, seen = state_from_stored(ENGINE, stored.snapshot, stored.snapshot_version,
                                        stored.events, stored.armies)
        return state, seen, stored.version


async def new_game(store: RedisRoomStore) -> Game:
    """A CodeOne room at army selection, stored as the lobby stores one (no retention)."""
    tokens = {side: new_seat_token() for side in Side}
    settings = RoomSettings("codeone", 600.0, "private", fixed_seed=3,
                            table="sample-open-codeone")
    meta = RoomMeta(new_room_id(), settings, token_hash(tokens[Side.A]),
                    token_hash(tokens[Side.B]), 1)
    state = ENGINE.new_game("codeone", 3, "sample-open-codeone")
    snapshot = pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN)
    await store.create_room(meta, snapshot, None)
    return Game(store, meta.room_id, tokens)


async def seat(node: CrashingNode, game: Game, side: Side, since: int | None) -> Client:
    for _ in range(CONNECT_TRIES):
        try:
            return await Client.connect(node.base, game.room_id, game.tokens[side], since=since)
        except ConnectionClosed:
            continue  # the node took the room over after welcoming nobody: connect again
    raise AssertionError(f"{node.env['REFEREE_NODE_ID']} never served the room")


async def caught_up(game: Game, clients: dict[Side, Client]) -> None:
    """Each seat has read every event it may know of."""
    _, seen, _ = await game.now()
    for side, client in clients.items():
        while client.version < seen[Audience(side.value)]:
            await client.next()


async def send_again(client: Client, command_id: str, sent: Sent) -> bytes:
    """Send ``command_id`` again exactly as first sent; the frame answering it."""
    already = len(client.raw)
    await client.send(Command(command_id, sent.version, sent.body))
    await client.answer(command_id)
    return next(raw for raw in client.raw[already:]
                if (answer := command_answer(codec.decode_server(raw))) is not None
                and answer.id == command_id)


async def play(game: Game, clients: dict[Side, Client], command_id: str) -> Side:
    """Send the game's next command as ``command_id`` (the seat's version as it stands)."""
    state, seen, _ = await game.now()
    side, body = next_command(state, ENTROPY, "codeone")
    game.sent[command_id] = Sent(side, seen[Audience(side.value)], body)
    await clients[side].send(Command(command_id, seen[Audience(side.value)], body))
    return side


async def check_every_answer(game: Game, clients: dict[Side, Client]) -> None:
    _, seen, version = await game.now()
    for command_id, sent in game.sent.items():
        raw = await send_again(clients[sent.side], command_id, sent)
        if command_id in game.first:
            assert raw == game.first[command_id], f"{command_id}: not its first answer"
        else:
            expected = Accepted(command_id, game.unseen[command_id])
            assert codec.decode_server(raw) == expected, f"{command_id}: not applied once"
            game.first[command_id] = raw
    assert (await game.now())[2] == version, "a command sent again was applied again"
    assert {side: clients[side].version for side in Side} == {
        side: seen[Audience(side.value)] for side in Side}, "no event sent twice"


@pytest.fixture
async def game(redis_server: RedisProcess) -> AsyncIterator[Game]:
    store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield await new_game(store)
    finally:
        await store.close()


async def test_every_command_stored_before_a_crash_gets_its_first_answer_after_it(
        redis_server: RedisProcess, game: Game) -> None:
    versions: dict[Side, int | None] = dict.fromkeys(Side)
    crashes = 0
    for round_ in range(ITERATIONS):
        # Rounds 0, 1: "crash-0"; 2, 3: "crash-1"; ...: every other restart is another node.
        node = CrashingNode(redis_server.url, f"crash-{round_ // 2 % 2}", f"crash-{round_}")
        await node.start()
        try:
            clients = {side: await seat(node, game, side, versions[side]) for side in Side}
            await caught_up(game, clients)
            await check_every_answer(game, clients)

            # A command answered as usual: its first answer is its events frame.
            command_id = f"ok-{round_}"
            side = await play(game, clients, command_id)
            answer = await clients[side].answer(command_id)
            assert isinstance(answer, Accepted), answer
            game.first[command_id] = codec.encode(answer)
            await caught_up(game, clients)

            # The node dies once this one is stored, before it is answered.
            command_id = f"crash-{round_}"
            _, _, before = await game.now()
            side = await play(game, clients, command_id)
            assert await node.crashed() != 0
            crashes += 1
            for client in clients.values():
                await client.close_code()  # reads what arrived before the connection died
            assert not [a for a in clients[side].answers() if a.id == command_id]
            _, seen, after = await game.now()
            assert after > before, "stored before the crash"
            game.unseen[command_id] = seen[Audience(side.value)]
            versions = {side: client.version for side, client in clients.items()}
        finally:
            if node.process is not None:
                print(node.output.decode(errors="replace"))
                await node.stop()
    assert crashes == ITERATIONS

    # One last node: every answer, once more, after the last crash.
    node = CrashingNode(redis_server.url, "crash-last", "")
    await node.start()
    try:
        clients = {side: await seat(node, game, side, versions[side]) for side in Side}
        await caught_up(game, clients)
        await check_every_answer(game, clients)
        assert len(game.first) == 2 * ITERATIONS
    finally:
        await node.stop()
