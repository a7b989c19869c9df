"""Every answer survives (issue 18): the answer to an accepted command is stored with its
events, so a room loaded again -- after a restart, by another node, after leaving memory,
or after a write that landed although the room never heard back -- answers a repeated id
with exactly the bytes of its first answer (a standalone ``accepted`` naming the seat's own
version), and never applies the command twice. Rejections changed nothing and are not
stored: the room loaded again decides them again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from protocol import codec
from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Accepted, Command, Rejected, command_answer
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import (
    Answer,
    Deadline,
    Listing,
    MemoryRoomStore,
    RoomSettings,
    StorageUnavailable,
)
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember

SETTINGS = Settings(freeze_gc=False, static_dir=None, grace_s=600.0)


class Seat(RecordingMember):
    """A seat's connection that keeps every frame as sent, bytes and all."""

    def __init__(self, audience: Audience) -> None:
        super().__init__(audience)
        self.raw: list[bytes] = []

    def deliver(self, frame: bytes) -> None:
        self.raw.append(frame)
        super().deliver(frame)

    async def send(self, room: Room, command_id: str, body: dict[str, Any],
                   version: int | None = None) -> bytes:
        """Send a command (at the seat's version now unless ``version``); the frame that
        answers it, as sent."""
        sent = len(self.raw)
        if version is None:
            version = room.seen[self.audience]
        assert room.submit(self, self.audience.value, Command(command_id, version, body))
        await self.answer(command_id)
        return next(frame for frame in self.raw[sent:] if _answers(frame, command_id))


def _answers(frame: bytes, command_id: str) -> bool:
    answer = command_answer(codec.decode_server(frame))
    return answer is not None and answer.id == command_id


def node(store: MemoryRoomStore, engine: FakeEngine | None = None,
         **overrides: object) -> RoomRegistry:
    """A node on ``store``: another one on the same store is the server after a restart,
    or another node taking the room over (both claim the room and load it)."""
    settings = replace(SETTINGS, **overrides)  # type: ignore[arg-type]
    return RoomRegistry(store, LocalFanout(), engine or FakeEngine(), settings)


async def seated(registry: RoomRegistry, room_id: str) -> tuple[Room, Seat, Seat]:
    room = await registry.open(room_id)
    assert isinstance(room, Room)
    a, b = Seat(Audience.A), Seat(Audience.B)
    await room.join(a, "A", None)
    await room.join(b, "B", None)
    return room, a, b


def standalone(frame: bytes) -> bytes:
    """The standalone ``accepted`` a first answer (an events frame naming the command, or
    an ``accepted``) stands for."""
    answer = command_answer(codec.decode_server(frame))
    assert isinstance(answer, Accepted)
    return codec.encode(answer)


async def test_a_room_loaded_again_answers_repeated_ids_with_the_first_answers_bytes() -> None:
    store = MemoryRoomStore()
    first = node(store)
    created = await first.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room, a, b = await seated(first, created.meta.room_id)
    played = {
        "a-act": (a, await a.send(room, "a-act", {"type": "act", "value": 2})),
        "a-hide": (a, await a.send(room, "a-hide", {"type": "hide", "secret": "s"})),
        "a-end": (a, await a.send(room, "a-end", {"type": "end_turn"})),
        "b-act": (b, await b.send(room, "b-act", {"type": "act", "value": 5})),
    }
    # Each seat's own numbering: A's hidden event is not in B's sequence.
    assert [codec.decode_server(standalone(frame)) for _, frame in played.values()] == [
        Accepted("a-act", 1), Accepted("a-hide", 2), Accepted("a-end", 3), Accepted("b-act", 3)]
    repeated_here = {cid: await seat.send(room, cid, {}, 0) for cid, (seat, _) in played.items()}
    assert repeated_here == {cid: standalone(frame) for cid, (_, frame) in played.items()}
    await first.shutdown()

    engine = FakeEngine()
    second = node(store, engine)
    room, a, b = await seated(second, created.meta.room_id)
    seats = {"a": a, "b": b}
    repeated_there = {cid: await seats[cid[0]].send(room, cid, {"type": "act", "value": 9}, 0)
                      for cid in played}
    assert repeated_there == repeated_here, "byte for byte"
    assert engine.calls == [], "nothing decided again"
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.version == 4, "nothing applied twice"
    await second.shutdown()


async def test_each_seat_keeps_its_latest_answers_across_a_reload() -> None:
    store = MemoryRoomStore()
    first = node(store, answer_cache_size=2)
    created = await first.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room, a, _ = await seated(first, created.meta.room_id)
    frames = [await a.send(room, f"c{n}", {"type": "act", "value": n}) for n in range(3)]
    await first.shutdown()

    second = node(store, answer_cache_size=2)
    room, a, _ = await seated(second, created.meta.room_id)
    assert [await a.send(room, f"c{n}", {"type": "act", "value": n}, n) for n in (1, 2)] == [
        standalone(frame) for frame in frames[1:]]
    oldest = codec.decode_server(await a.send(room, "c0", {"type": "act", "value": 0}, 0))
    assert isinstance(oldest, Rejected) and oldest.code == ProtocolReason.STALE_VERSION, \
        "forgotten, so decided again: never applied twice"
    await second.shutdown()


async def test_a_rejected_command_is_decided_again_by_a_room_loaded_again() -> None:
    store = MemoryRoomStore()
    first = node(store)
    created = await first.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room, _, b = await seated(first, created.meta.room_id)
    refused = codec.decode_server(await b.send(room, "b-early", {"type": "act", "value": 1}))
    assert isinstance(refused, Rejected) and refused.code == "not_your_turn"
    await first.shutdown()

    engine = FakeEngine()
    second = node(store, engine)
    room, _, b = await seated(second, created.meta.room_id)
    again = codec.decode_server(await b.send(room, "b-early", {"type": "act", "value": 1}))
    assert again == refused and engine.calls == ["B:act"]
    await second.shutdown()


class LostReply(MemoryRoomStore):
    """A store whose append of the answer to ``command_id`` lands, but whose reply never
    reaches the room (Redis applied the write; the connection died before its reply)."""

    def __init__(self, command_id: str) -> None:
        super().__init__()
        self.command_id = command_id

    async def append(self, room_id: str, *, fence: int, expected_version: int,
                     events: Sequence[bytes], snapshot: bytes | None,
                     deadlines: Sequence[Deadline], listing: Listing | None,
                     answer: Answer | None = None, answers_kept: int = 256,
                     retention_ms: int | None = None, committed_ms: int = 0,
                     window_ms: int = 0, armies: bytes | None = None) -> int:
        version = await super().append(
            room_id, fence=fence, expected_version=expected_version, events=events,
            snapshot=snapshot, deadlines=deadlines, listing=listing, answer=answer,
            answers_kept=answers_kept, retention_ms=retention_ms, committed_ms=committed_ms,
            window_ms=window_ms, armies=armies)
        if answer is not None and answer.command_id == self.command_id:
            self.command_id = ""  # once
            raise StorageUnavailable("append: the reply was lost")
        return version


async def test_a_write_that_landed_unheard_is_answered_from_the_store_once_the_room_reloads(
        ) -> None:
    store = LostReply("x")
    registry = node(store)
    created = await registry.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room, a, _ = await seated(registry, created.meta.room_id)
    body = {"type": "act", "value": 3}
    unsure = codec.decode_server(await a.send(room, "x", body))
    assert isinstance(unsure, Rejected) and unsure.code == ProtocolReason.STORAGE_UNAVAILABLE

    # The client tries again with the same id: the room's write is refused (the store moved
    # on without it), so it stops and its clients reconnect to the room loaded anew.
    assert room.submit(a, "A", Command("x", 0, body))
    assert await a.wait_closed() == (CloseCode.ROOM_UNAVAILABLE, "room moved")
    room, a, _ = await seated(registry, created.meta.room_id)
    assert room.seen[Audience.A] == 1, "its events were stored"
    answer = codec.decode_server(await a.send(room, "x", body, 0))
    assert answer == Accepted("x", 1)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.version == 1, "applied once"
    await registry.shutdown()
